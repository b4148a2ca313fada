"""A sliding window: which layers attend within it, checked on a tiny model with a window of 3."""

from __future__ import annotations

import warnings

import torch

from nnterp import tiny as tiny_models
from nnterp.contract.support import compact_indices
from nnterp.declare.vocabulary import BY_NAME
from nnterp.encyclopedia.notes.derived.reading import _trace
from nnterp.encyclopedia.notes.derived.subject import _described, _serves


def sliding_note(subject) -> str | None:
    config = subject.config
    window = getattr(config, "sliding_window", None)
    if not isinstance(window, int) or window <= 0:
        return None
    types = getattr(config, "layer_types", None) or []
    count = sum(1 for t in types if "sliding" in str(t)) if types else None
    total = getattr(config, "num_hidden_layers", None) or len(types)
    if count == 0:
        return None
    stated = subject.stated("sliding_window")
    stated = stated if stated is not None and stated.value == window else None
    whose = "" if stated is None or stated.repo else f" ({stated.label}'s default)"
    if count is None or count == total:
        heading = f"Every layer attends within a window of {window} tokens{whose}"
        which = "every layer"
    else:
        heading = f"{count} of {total} layers attend within a window of {window} tokens{whose}"
        which = _pattern(types)
    snippet = _sliding_snippet(subject)
    # the exact span is said where the tiny model showed it: the snippet below checks it with a window of 3
    span = (f": a query at position i sees the keys i - {window} + 1 to i there, and the others see every earlier "
            "key" if snippet else "")
    others = "" if count is None or count == total else ("; the other layers attend to every earlier key"
                                                         if not snippet else "")
    if which == "every layer":
        span = span.replace(" there, and the others see every earlier key", "")
        which = "every layer slides"
    said = stated.on if stated is not None else f"on {subject.named} as built here"
    prose = (f"`sliding_window` is {window} {said}, and {which}{span}{others}. The mask does it: the "
             "pattern is zero outside the window.")
    if stated is not None and stated.repo is None:
        prose += (" The window is the config class's default: no recorded config.json of the family gives it, and a "
                  "released one may set it to null (no window) or to another size.")
    text = [f"## {heading}", "", prose, ""]
    checks = stated.check() if stated is not None else []
    if snippet:
        text += [snippet[0], "", "```python", *snippet[1], *checks, "```", ""]
    elif checks:
        text += ["```python", *checks, "```", ""]
    return "\n".join(text)


def _pattern(types) -> str:
    sliding = [i for i, t in enumerate(types) if "sliding" in str(t)]
    full = [i for i, t in enumerate(types) if "sliding" not in str(t)]
    if len(full) and all(i % (full[0] + 1) == full[0] for i in full) and len(full) == len(types) // (full[0] + 1):
        step = full[0] + 1
        every = "every other layer" if step == 2 else f"every {step}{'rd' if step == 3 else 'th'} layer"
        return f"{every} ({', '.join(map(str, full[:3]))}, ...) is full, the others slide"
    return f"the sliding layers are {compact_indices(sliding)}"


def _sliding_snippet(subject):
    """A tiny model with a window of 3, whose sliding layer's pattern is zero outside it."""
    family = subject.family
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            small = tiny_models.load(family.name, attn_implementation="eager", sliding_window=3)
    except Exception:
        return None
    types = getattr(small.config, "layer_types", None) or []
    layers = [i for i, t in enumerate(types) if "sliding" in str(t)] if types else list(range(small.num_layers))
    layer = next((i for i in layers if _serves(small, "attention_probabilities", i)
                  and _described(small, "attention_probabilities", i) == BY_NAME["attention_probabilities"].description),
                 None)
    if layer is None:
        return None
    try:
        probs = _trace(small, {"p": lambda: small.layers[layer].self_attn.attention_probabilities})["p"]
    except Exception:
        return None
    n = probs.shape[-1]
    i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
    inside = (j <= i) & (i - j < 3)
    if not (bool((probs[..., ~inside] == 0).all()) and bool((probs[..., inside] > 0).all())):
        return None
    code = ["from nnterp import tiny", "",
            "small = tiny.load(" + repr(family.name) + ", attn_implementation=\"eager\", sliding_window=3)",
            f"with small.trace(prompt):", f"    probs = small.layers[{layer}].self_attn.attention_probabilities.save()",
            "", "n = probs.shape[-1]", "i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing=\"ij\")",
            "inside = (j <= i) & (i - j < 3)   # the query itself and the two keys before it",
            "assert (probs[..., ~inside] == 0).all() and (probs[..., inside] > 0).all()"]
    return (f"On the family's tiny model loaded with a window of 3, block {layer} (a sliding layer) gives each "
            "query weight on exactly itself and the two keys before it:", code)
