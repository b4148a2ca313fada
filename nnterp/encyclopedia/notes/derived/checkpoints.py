"""The checkpoints a family module names: each one's size from its config facts built on the meta device, and
what the real-config run found."""

from __future__ import annotations

import warnings

import torch

from ....wrappers import auto_class
from ...configs import config_class
from ...verdicts import sentence
from .reading import _list, _meta_lines, _module

#: Config keys of the checkpoint's file dtype.
DTYPE_KEYS = ("dtype", "torch_dtype")


def _billions(count: int) -> str:
    return f"{count / 1e9:.2f}B" if count >= 9.995e8 else f"{count / 1e6:.0f}M"


def _gigabytes(count: int, width: int) -> str:
    size = count * width
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


def _parameters(module) -> int:
    return sum(p.numel() for p in module.parameters())


def _meta_build(family, checkpoint):
    """The checkpoint built on the meta device from its config facts (None when that fails)."""
    try:
        with torch.device("meta"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config = config_class(family)(**checkpoint.facts())
            return auto_class(family, config).from_config(config)
    except Exception:
        return None


def _file_dtype(checkpoint) -> str | None:
    if checkpoint is None:
        return None
    for key in DTYPE_KEYS:
        if checkpoint.config.get(key):
            return str(checkpoint.config[key]).removeprefix("torch.")
    return None


def checkpoints_note(subject) -> str | None:
    """One table of the named checkpoints: each one's size, depth, width, heads, vocabulary and files, from its
    recorded facts built on the meta device (a number its facts do not give is marked as the class's default), what
    the real-config run found, and the representative's parameter count and vocabulary asserted."""
    family = subject.family
    if not family.checkpoints:
        return None
    lines = []
    for checkpoint in family.checkpoints:
        if not checkpoint.config:
            lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): no config facts are recorded for it, so no size "
                         "is given here")
            continue
        if checkpoint.not_buildable:
            lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): not built here ({checkpoint.not_buildable})")
            continue
        built = _module(subject.real) if subject.real is not None and checkpoint is subject.checkpoint \
            else _meta_build(family, checkpoint)
        if built is None:
            lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): its config facts do not build here")
            continue
        config = built.config
        facts = checkpoint.config

        def given(value, *keys):  # a number the facts do not give is the class's
            return f"{value}" if any(k in facts or k in facts.get("text_config", {}) for k in keys) \
                else f"{value} (class default)"
        count = _parameters(built)
        said = [f"{_billions(count)} parameters ({_gigabytes(count, 2)} in bfloat16)"]
        layers = getattr(config, "num_hidden_layers", None) or getattr(config, "n_layer", None)
        hidden = getattr(config, "hidden_size", None)
        if layers:
            said.append(given(f"{layers} blocks", "num_hidden_layers", "n_layer", "num_layers"))
        if hidden:
            said.append(given(f"hidden {hidden}", "hidden_size", "n_embd", "d_model"))
        try:
            heads = family.accessor("num_heads", config)
            kv = family.accessor("num_kv_heads", config)
            head_dim = family.accessor("head_dim", config)
            said.append(f"{heads} heads × {head_dim}" + (f" over {kv} key-value heads" if kv != heads else ""))
        except Exception:
            pass
        try:
            embedding, head = built.get_input_embeddings(), built.get_output_embeddings()
            rows = embedding.weight.shape[0]
            tied = head is not None and head.weight is embedding.weight
            said.append(given(f"vocabulary {rows:,}", "vocab_size", "n_vocab")
                        + (", lm_head tied" if tied else ", lm_head its own"))
        except Exception:
            pass
        dtype = _file_dtype(checkpoint)
        said.append(f"{dtype} files" if dtype else "no file dtype recorded")
        run = sentence(family.name, checkpoint.repo)
        lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): " + ", ".join(said) + (f"; {run}" if run else ""))
    count = len(family.checkpoints)
    heading = f"{'One checkpoint' if count == 1 else f'{count} checkpoints'} named by the family module"
    prose = ["Each from its recorded config.json facts built on the meta device (parameters counted with tied "
             "matrices once, weights only, arithmetic on the config and no measurement; a number marked class "
             "default is not in the facts), with what the real-config run (`python -m nnterp.encyclopedia.realconfigs`: "
             "the config as released, the depth cut to one block of each layer type, experts and vocabulary capped, "
             "random weights, the contract in float32 and bfloat16) found:"]
    loads = family.loads
    after = []
    if loads is None:
        after.append("Every attention implementation transformers accepts for the class is a valid load.")
    elif loads:
        after.append(f"The attention implementations nnterp accepts for this family: {_list(loads)}.")
    if family.hazard is not None:
        after.append("The family module declares a numerical hazard: nnterp warns when a load meets it.")
    text = [f"## {heading}", "", *prose, "", *lines, ""]
    if after:
        text += [" ".join(after), ""]
    if subject.real is not None and subject.checkpoint is not None:
        real = _module(subject.real)
        total = _parameters(real)
        code = [*_meta_lines(subject), "", "count = sum(p.numel() for p in real.parameters())   # tied matrices once",
                f"assert count == {total}"]
        try:
            rows = real.get_input_embeddings().weight.shape[0]
            code.append(f"assert real.get_input_embeddings().weight.shape[0] == {rows}")
        except Exception:
            pass
        text += ["```python", *code, "```", ""]
    return "\n".join(text)
