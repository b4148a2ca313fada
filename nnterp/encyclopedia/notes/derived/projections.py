"""The attention's projections: fused or separate, their biases and sizes, how a fused output is cut."""

from __future__ import annotations

import re
import warnings

import torch

from nnterp import tiny as tiny_models
from nnterp.encyclopedia.notes.derived.reading import (
    _attention_block, _attention_module, _children, _has_bias, _instrumented_trace, _linear_like, _list, _meta_lines,
    _module, _real_attention, _trace,
)
from nnterp.encyclopedia.notes.derived.rotary import _rotary_module
from nnterp.encyclopedia.notes.derived.subject import _serves


def _projections(module) -> dict:
    """name -> (in, out, bias) of the attention's direct 2-D weighted children."""
    found = {}
    for name, child in _children(module).items():
        if _linear_like(child):
            out_features, in_features = child.weight.shape
            if type(child).__name__ == "Conv1D":  # GPT-2's Conv1D keeps the weight as [in, out]
                in_features, out_features = out_features, in_features
            found[name] = (in_features, out_features, _has_bias(child))
    return found


def _bias_phrase(projections: dict) -> str:
    biased = [name for name, (_, _, bias) in projections.items() if bias]
    plain = [name for name, (_, _, bias) in projections.items() if not bias]
    if not biased:
        return "none has a bias"
    if not plain:
        return "each has a bias"
    return f"{_list(biased)} {'has' if len(biased) == 1 else 'have'} a bias, {_list(plain)} not"


_FUSED = ("query_key_value", "qkv_proj", "c_attn", "Wqkv", "qkv")


def projections_note(subject) -> str | None:
    index, real = _real_attention(subject)
    tiny_index = _attention_block(subject)
    tiny_attention = _attention_module(subject.tiny, tiny_index) if tiny_index is not None else None
    if tiny_attention is None:
        return None
    module = real if real is not None else tiny_attention
    projections = _projections(module)
    if not projections:
        return None
    fused = next((name for name in projections if name in _FUSED), None)
    biased = [name for name, (_, _, bias) in projections.items() if bias]
    if not fused and not biased and all(name in projections for name in ("q_proj", "k_proj", "v_proj", "o_proj")):
        subject.as_llama("separate, unbiased q, k, v and o projections")
        return None
    if fused:
        subject.differs("projections", f"one fused `{fused}`")
    if biased:
        subject.differs("projections", f"a bias on {_list(biased)}")
    mixer = "attention" if subject.served("attention_queries") is not None else "token mixer"
    sizes = "; ".join(f"`{name}` {i} → {o}" for name, (i, o, _) in projections.items())
    if fused:
        heading = f"Queries, keys and values come from one projection, `{fused}`"
    elif all(name in projections for name in ("q_proj", "k_proj", "v_proj")):
        heading = "`q_proj`, `k_proj` and `v_proj` are separate; " + _bias_phrase(projections)
        heading = heading[0].upper() + heading[1:] if not heading.startswith("`") else heading
    else:
        heading = f"The {mixer}'s projections are {_list(projections)}: {_bias_phrase(projections)}"
    text = [f"## {heading}", "",
            f"On {subject.named} (block {index if index is not None else tiny_index}), the {mixer}'s weighted "
            f"modules are {sizes} (in → out features): {_bias_phrase(projections)}."]
    tiny_projections = _projections(tiny_attention)
    same = {n: b for n, (_, _, b) in tiny_projections.items()} == {n: b for n, (_, _, b) in projections.items()}
    if not same:
        text.append("The tiny model's config places the biases otherwise ("
                    + _bias_phrase(tiny_projections) + "); the snippet asserts them on the checkpoint's config, "
                    "built on the meta device.")
    text.append("")
    cuts = _fused_layouts(subject, tiny_index, fused) if fused else []
    if len(cuts) == 1:
        text += [cuts[0][1][0], ""]
    elif cuts:
        text += [f"How `{fused}`'s output is cut depends on the checkpoint's config flags; each layout was tried on the "
                 "tiny model with the checkpoint's flags:", ""]
        text += [f"- {labels}: {cut[0][0].lower()}{cut[0][1:]}" for labels, cut in cuts] + [""]
        subject.differs("projections", f"`{fused}` cut in {len(cuts)} layouts, by the checkpoint's flags")
    if same:
        code = [f"attention = model.layers[{tiny_index}].self_attn"]
        target = "attention"
    else:
        code = _meta_lines(subject) + [f"attention = real.{_module_path(subject.real, index)}"]
        target = "attention"
    # names an envoy keeps for itself (RWKV's output projection is called output) are read on the module
    reach = (lambda name: f"{target}._module.{name}" if same and name in ("output", "input", "source") else
             f"{target}.{name}")
    code += [f"assert {reach(name)}.bias is {'not None' if bias else 'None'}"
             for name, (_, _, bias) in (projections.items())]
    text += ["```python", *code, "```", ""]
    for _, cut in cuts:
        text += ["```python", *cut[1], "```", ""]
    return "\n".join(text)


#: boolean config keys that do not change how a fused projection is cut
_NOT_LAYOUT = ("tie_word_embeddings", "use_cache", "bias", "use_bias", "attention_bias", "mlp_bias", "alibi",
               "parallel_attn", "use_parallel_residual", "use_sliding_window", "is_decoder")


def _fused_layouts(subject, index, fused) -> list:
    """(checkpoints, (sentence, snippet)) of each layout the fused projection's output takes on the family's named
    checkpoints, tried on the tiny model loaded with each checkpoint's boolean config flags (one entry, the tiny
    model's, where no checkpoint sets a flag otherwise)."""
    base = subject.tiny
    groups: dict = {}
    for checkpoint in subject.family.checkpoints:
        flags = tuple(sorted((key, value) for key, value in checkpoint.config.items()
                             if isinstance(value, bool) and key not in _NOT_LAYOUT
                             and isinstance(getattr(base.config, key, None), bool)
                             and getattr(base.config, key) != value))
        if flags:  # a head count the facts do not give is the class's own (Falcon-RW's num_kv_heads: num_heads)
            flags += tuple((key, None) for key in ("num_kv_heads", "num_key_value_heads")
                           if key in (subject.family.tiny or {}).get("overrides", {}) and key not in checkpoint.config)
        if checkpoint.config:
            groups.setdefault(flags, []).append(checkpoint)
    if set(groups) <= {()}:
        cut = _fused_cut(subject, index, fused)
        return [("the tiny model", cut)] if cut else []
    found = {}
    for flags, checkpoints in groups.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = tiny_models.load(subject.family.name, **dict(flags)) if flags else base
        except Exception:
            continue
        cut = _fused_cut(subject, index, fused, model=model, flags=dict(flags))
        if cut is None:
            continue
        key = cut[0]
        entry = found.setdefault(key, ([], cut))
        entry[0].extend(checkpoints)
    said = []
    for sentence, (checkpoints, cut) in found.items():
        flags = sorted({key for c in checkpoints for key, v in c.config.items() if isinstance(v, bool)
                        and key not in _NOT_LAYOUT and isinstance(getattr(base.config, key, None), bool)})
        names = ", ".join(c.label for c in checkpoints)
        shown = "; ".join(f"`{key}` {checkpoints[0].config[key]}" for key in flags if key in checkpoints[0].config)
        said.append((f"{names} ({shown})" if shown else names, cut))
    return said


def _module_path(model, index) -> str:
    """The native path of block ``index``'s attention in the HF model (for a snippet on a meta build)."""
    module = _attention_module(model, index)
    for name, found in _module(model).named_modules():
        if found is module:
            return re.sub(r"\.(\d+)\.", r"[\1].", name)
    return f"model.layers[{index}].self_attn"


def _fused_cut(subject, index, fused, model=None, flags=None):
    """(sentence, snippet) of how the fused projection's output is cut into values, tried on the tiny model (or on
    ``model``, the tiny model loaded with ``flags``)."""
    model = model or subject.tiny
    if index is None or not _serves(model, "attention_values", index):
        return None
    attention = model.layers[index].self_attn
    try:
        saved = _trace(model, {"raw": lambda: getattr(attention, fused).output,
                               "v": lambda: attention.attention_values})
    except Exception:
        saved = _instrumented_trace(model, {"raw": lambda: getattr(attention, fused).output,
                                            "v": lambda: attention.attention_values})
        if saved is None:
            return None
    raw, v = saved["raw"], saved["v"]
    if not isinstance(raw, torch.Tensor) or raw.dim() != 3 or v.dim() != 4:
        return None
    b, s, _ = raw.shape
    heads, kv, d = model.num_heads, v.shape[1], v.shape[-1]
    qd = model.qk_head_dim
    candidates = {
        "blocked": ("The output is laid out in blocks, all the queries, then all the keys, then all the values:",
                    [f"v_again = raw[..., {heads}*{qd} + {kv}*{qd}:].view(b, s, {kv}, {d}).transpose(1, 2)"],
                    lambda: raw[..., heads * qd + kv * qd:].reshape(b, s, kv, d).transpose(1, 2)),
        "per_head": ("The output is laid out per head: each head's slice holds its query, then its key, then its value:",
                     [f"v_again = raw.view(b, s, {heads}, 3, {d})[..., 2, :].transpose(1, 2)"],
                     lambda: raw.reshape(b, s, heads, 3, d)[..., 2, :].transpose(1, 2)),
        "per_group": ("The output is laid out per key-value group: each group's queries, then its key, then its value:",
                      [f"v_again = raw.view(b, s, {kv}, {heads // max(kv, 1)} + 2, {d})[..., -1, :].transpose(1, 2)"],
                      lambda: raw.reshape(b, s, kv, heads // max(kv, 1) + 2, d)[..., -1, :].transpose(1, 2)),
    }
    for sentence, lines, compute in candidates.values():
        try:
            again = compute()
        except Exception:
            continue
        if again.shape == v.shape and torch.equal(again, v):
            load = ([f"from nnterp import tiny", "",
                     f"model = tiny.load({subject.family.name!r}, "
                     + ", ".join(f"{key}={value!r}" for key, value in flags.items()) + ")   # the checkpoint's flags"]
                    if flags else [])
            code = [*load, "model.instrument()   # the trace reads a child's output and a value inside the same forward",
                    f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
                    f"    raw = attention.{fused}.output.save()", "    v = attention.attention_values.save()", "",
                    "b, s, _ = raw.shape", *lines, "assert torch.equal(v_again, v)"]
            turn = " (the queries and keys then turn by the rotary)" if _rotary_module(model) is not None and \
                not flags else ""
            return (f"{sentence} the values are read as cut{turn}.", code)
    return None
