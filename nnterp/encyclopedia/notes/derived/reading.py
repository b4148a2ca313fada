"""What the note makers share: reading modules and values off a model, running a trace, and writing numbers,
lists, notes and meta-device builds as the page shows them."""

from __future__ import annotations

import warnings

import torch

from nnterp.encyclopedia.configs import config_class
from nnterp.encyclopedia.snippets import PROMPT
from nnterp.registry import auto_class


def _module(envoy):
    return getattr(envoy, "_module", envoy)


def _attention_module(model, index):
    block = model.layers[index]
    return _module(block.self_attn) if hasattr(block, "self_attn") and block.self_attn is not None else None


def _children(module) -> dict:
    return dict(module.named_children()) if module is not None else {}


def _linear_like(module) -> bool:
    return hasattr(module, "weight") and isinstance(getattr(module, "weight", None), torch.Tensor) \
        and getattr(module, "weight").dim() == 2


def _has_bias(module) -> bool:
    return isinstance(getattr(module, "bias", None), torch.Tensor)


def _eps(module):
    for name in ("eps", "variance_epsilon", "epsilon"):
        value = getattr(module, name, None)
        if isinstance(value, (int, float)):
            return value
    return None


def _num(value) -> str:
    """A number as the text writes it: 1e-06, 10000.0 as 10000, 0.0625."""
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1:
        return str(int(value))
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _trace(model, reads):
    """Run the prompt once and return the saved values of ``reads(model)``, a dict of envoy lambdas."""
    saved: dict = {}  # filled inside the trace: nnsight runs the block's source in a frame of its own
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with model.trace(PROMPT):
            for name, read in reads.items():
                saved[name] = read().save()
    return saved


def _trace_or_none(model, reads) -> dict | None:
    """``_trace``, or None where a read does not run on the model."""
    try:
        return _trace(model, reads)
    except Exception:
        return None


def _queries_beside(model, index: int, child: str):
    """Block ``index``'s attention child ``child``'s output and the served queries, read in one pass of the
    instrumented model: (output, queries), or None where a read does not run on it."""
    host = model.layers[index].self_attn
    saved = _instrumented_trace(model, {"child": lambda: getattr(host, child).output,
                                        "q": lambda: host.attention_queries})
    return None if saved is None else (saved["child"], saved["q"])


def _instrumented_trace(model, reads) -> dict | None:
    """``_trace`` on the instrumented model (the reads take children's outputs beside values), or None where a read
    does not run on it."""
    try:
        model.instrument()
        return _trace(model, reads)
    except Exception:
        return None


def _note(heading: str, prose: str, code: list[str]) -> str:
    """A note as the page renders it: its heading, its prose, its snippet."""
    return "\n".join([f"## {heading}", "", prose, "", "```python", *code, "```", ""])


def _config_value(config, *keys):
    for key in keys:
        try:
            value = getattr(config, key, None)
        except Exception:
            value = None
        if value is not None:
            return key, value
    return None, None


def _meta_lines(subject, name="real") -> list[str]:
    """Snippet lines that build the representative checkpoint on the meta device from its config facts."""
    config = config_class(subject.family)
    cls = config.__name__
    facts = subject.checkpoint.facts() if subject.checkpoint is not None else {}
    builder = auto_class(subject.family, config(**facts))  # the wrapper's own class where no auto class takes it
    auto, builds = builder.__name__, getattr(builder, "builds", "from_config")
    lines = [f"from transformers import {auto}, {cls}", ""]
    if subject.checkpoint is not None:
        index = subject.family.checkpoints.index(subject.checkpoint)
        lines.append(f"facts = model.family.checkpoints[{index}].config   # {subject.checkpoint.repo}'s config facts")
        build = f"{cls}(**facts)"
    else:
        build = f"{cls}()"
    lines += ["with torch.device(\"meta\"):", f"    {name} = {auto}.{builds}({build})"]
    return lines


def _attention_block(subject, model=None):
    model = model or subject.tiny
    index = subject.served("attention_queries", model) if model is subject.tiny else None
    if index is None:
        for i in range(model.num_layers):
            attention = _attention_module(model, i)
            if attention is not None and any(_linear_like(c) for c in attention.children()):
                return i
        return None
    return index


def _real_attention(subject):
    if subject.real is None:
        return None, None
    for value in ("attention_queries", "attention_output"):  # a softmax attention first, else the token mixer
        for index in range(subject.real.num_layers):
            try:
                if subject.real.serves(value, index) is None:
                    module = _attention_module(subject.real, index)
                    if module is not None and any(_linear_like(c) for c in module.children()):
                        return index, module
            except Exception:
                continue
    return None, None


def _list(names) -> str:
    names = [f"`{n}`" for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _mlp_module(model, index):
    block = model.layers[index]
    mlp = getattr(block, "mlp", None)
    return _module(mlp) if mlp is not None else None


def _assert_close_holds(a, b) -> bool:
    """Whether ``torch.testing.assert_close(a, b)``, the snippets' check, passes."""
    try:
        torch.testing.assert_close(a, b)
        return True
    except Exception:
        return False
