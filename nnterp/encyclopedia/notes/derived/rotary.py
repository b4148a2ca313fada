"""The position encoding: how many dimensions the rotary turns, its frequencies and its style, or a learned table
of absolute positions."""

from __future__ import annotations

import inspect
import re
import sys

import torch

from .reading import (
    _assert_close_holds, _attention_block, _attention_module, _children, _module, _note, _num, _queries_beside,
    _trace
)
from .subject import _serves, _standard_meaning


def _by_layer_order(per_type: dict, config) -> list:
    """A per-layer-type dict's items in the order the config's layer_types first lists each type (a stable order
    however the dict was built)."""
    order = list(dict.fromkeys(getattr(config, "layer_types", None) or ()))
    return sorted(per_type.items(), key=lambda item: (order.index(item[0]) if item[0] in order else len(order), item[0]))


def _rope_parameters(config) -> dict:
    params = getattr(config, "rope_parameters", None) or {}
    if params and all(isinstance(v, dict) for v in params.values()):
        return {"per_layer_type": params}
    return dict(params)


def _rotary_module(model):
    native = _module(model)
    wrapper = getattr(getattr(model, "family", None), "wrapper", None)
    vision = ()
    if wrapper is not None:  # a wrapper's vision tower has a rotary of its own (Pixtral's 2D one): not the text's,
        # nor may one inside the language model's module (Evolla's protein encoder, under model)
        vision = tuple(f"{path[len(wrapper.language_model) + 1:]}." for path in wrapper.vision
                       if path.startswith(wrapper.language_model + "."))
        native = native.get_submodule(wrapper.language_model)
    for name, module in native.named_modules():
        if _inv_freq(module) is not None and not f"{name}.".startswith(vision or ("\0",)):
            return module
    return None


def _inv_freq(module):
    """The rotary's frequencies: inv_freq, or the first layer type's (Gemma 3's sliding_attention_inv_freq)."""
    found = getattr(module, "inv_freq", None)
    if isinstance(found, torch.Tensor):
        return found
    return next((buffer for name, buffer in module.named_buffers(recurse=False)
                 if name.endswith("_inv_freq") and "original" not in name), None)


def _rotary_style(attention_module) -> str | None:
    """rotate_half or interleaved, from the modeling module's own rotate function."""
    modeling = sys.modules.get(type(attention_module).__module__)
    if modeling is None:
        return None
    rotate = getattr(modeling, "rotate_half", None)
    apply = getattr(modeling, "apply_rotary_pos_emb", None)
    try:
        applied = inspect.getsource(apply) if apply else ""
        rotated = inspect.getsource(rotate) if rotate else ""
    except (OSError, TypeError):
        return None
    if "rotate_half" in applied and rotated:
        if "::2" in rotated:
            return "interleaved: `rotate_half` here pairs dimension 2i with 2i + 1"
        return "`rotate_half`: dimension i turns with i + rot / 2"
    return None


def rotary_note(subject) -> str | None:
    model = subject.real if subject.real is not None else subject.tiny
    rotary = _rotary_module(model)
    tiny_rotary = _rotary_module(subject.tiny)
    if rotary is None or tiny_rotary is None:
        return _absolute_positions_note(subject) if rotary is None and tiny_rotary is None else None
    index = _attention_block(subject)
    attention = _attention_module(subject.tiny, index) if index is not None else None
    if attention is None:
        return None
    head_dim = model.qk_head_dim
    rot = 2 * _inv_freq(rotary).numel()
    params = _rope_parameters(model.config)
    kind = params.get("rope_type") or getattr(rotary, "rope_type", None)
    if rot >= head_dim:
        heading = f"Rotary turns every dimension of each head ({head_dim})"
    else:
        heading = f"Rotary turns {rot} of the {head_dim} dimensions of each head"
    # the base as a checkpoint's config.json gives it, or as the config class's default, said so
    if "per_layer_type" in params:
        bases = [(layer_type, subject.stated(("rope_parameters", layer_type, "rope_theta")))
                 for layer_type, _ in _by_layer_order(params["per_layer_type"], model.config)]
        bases = [(layer_type, base) for layer_type, base in bases if base is not None]
    else:
        base = subject.stated("rope_theta", ("rope_parameters", "rope_theta"), others=True)
        bases = [(None, base)] if base is not None else []
    if bases:
        heading += ", at base " + " and ".join(
            _num(float(base.value)) + (f" on {layer_type.replace('_attention', '')} layers" if layer_type else "")
            for layer_type, base in bases)
        source = bases[0][1]
        if source.repo is None:
            heading += f" ({source.label}'s default)"
        elif subject.checkpoint is not None and source.repo != subject.checkpoint.repo:
            heading += f" on {source.label}"
    prose = [f"On {subject.named}, the rotary's `inv_freq` holds {rot // 2} frequencies: {rot} dimensions of each "
             f"{head_dim}-dimensional query and key head turn"]
    if rot < head_dim:
        prose[-1] += f"; the other {head_dim - rot} are the projection's output unchanged and carry no position"
    prose[-1] += "."
    if bases:
        source = bases[0][1]
        if source.repo is None:
            prose.append(f"The base is {source.label}'s default: none of the config.json files recorded for the "
                         "family gives `rope_theta`, so a released checkpoint may well use another.")
        else:
            prose.append(f"The base is {source.whose} `{'.'.join(source.path[1:] if source.path[0] == 'text_config' else source.path)}`.")
    if "per_layer_type" in params:
        described = "; ".join(f"{layer_type}: {p.get('rope_type', 'default')}"
                              for layer_type, p in _by_layer_order(params["per_layer_type"], model.config))
        prose.append(f"Each layer type has its own rotary ({described}).")
    elif kind and kind != "default":
        prose.append(f"The frequencies are scaled: `rope_type` is {kind}.")
    elif subject.checkpoint is not None:
        prose.append(f"The config facts recorded for {subject.named} name no rope scaling (`rope_type` default).")
    else:
        prose.append("The frequencies are unscaled (`rope_type` default).")
    scaling = getattr(rotary, "attention_scaling", 1.0)
    if isinstance(scaling, float) and scaling != 1.0:
        prose.append(f"cos and sin are multiplied by `attention_scaling` = {scaling:.4g}, so the rotary scales "
                     "the queries and keys as well as turning them.")
    style = _rotary_style(attention)
    if style:
        prose.append(f"The rotation is {style}.")
    before = len(subject.differences)
    if rot < head_dim:
        subject.differs("rotary", f"rotary on {rot} of the {head_dim} dimensions of each head")
    if "per_layer_type" in params:
        subject.differs("rotary", "a rotary of its own per layer type")
    elif kind and kind != "default":
        subject.differs("rotary", f"rope_type {kind}")
    if style and style.startswith("interleaved"):
        subject.differs("rotary", "interleaved rotary pairs")
    if len(subject.differences) == before:
        subject.as_llama("rotate_half rotary on every dimension")
    prose.append("`attention_queries` and `attention_keys` are read after the rotary.")
    text = [f"## {heading}", "", " ".join(prose), ""]
    snippet = _rotary_snippet(subject, index, attention, tiny_rotary)
    checks = [line for _, base in bases for line in base.check()]
    if snippet:
        text += [snippet[0], "", "```python", *snippet[1], *checks, "```", ""]
    elif checks:
        text += ["```python", *checks, "```", ""]
    return "\n".join(text)


def _absolute_positions_note(subject) -> str | None:
    """No rotary: a learned table of absolute positions added to the token embeddings before the first block."""
    tiny = subject.tiny
    hf = _module(tiny)
    embed = _module(tiny.embed_tokens) if hasattr(tiny, "embed_tokens") else None
    found = [(name, module) for name, module in hf.named_modules()
             if isinstance(module, torch.nn.Embedding) and module is not embed
             and re.search(r"(^|\.)(wpe|position_embeddings|embed_positions|pos_emb\w*)$", name)]
    if len(found) != 1 or type(found[0][1]) is not torch.nn.Embedding:
        return None
    path, table = found[0]
    try:
        saved = _trace(tiny, {"ids": lambda: tiny.input_ids, "x": lambda: tiny.layers[0].layer_input})
    except Exception:
        return None
    ids, x = saved["ids"], saved["x"]
    n = ids.shape[-1]
    if not isinstance(getattr(embed, "weight", None), torch.Tensor) or \
            not _assert_close_holds(embed.weight[ids] + table.weight[:n], x):
        return None
    real_table = dict(_module(subject.real).named_modules()).get(path) if subject.real is not None else table
    rows = real_table.weight.shape[0] if real_table is not None else table.weight.shape[0]
    heading = f"No rotary: positions are a learned table of {rows} absolute embeddings, `{path.split('.')[-1]}`"
    subject.differs("positions", f"learned absolute positions (`{path.split('.')[-1]}`), no rotary")
    prose = (f"On {subject.named}, `{path}` holds {rows} rows, one per position, added to the token embeddings "
             "before the first block: `layers[0].input` is the token's row plus its position's row, and the "
             "attention itself sees no position. `token_embeddings` is the token's row alone. A prompt longer than "
             f"{rows} tokens has no position to read.")
    code = [f"positions = model._module.{path}", "with model.trace(prompt):", "    ids = model.input_ids.save()",
            "    x = model.layers[0].layer_input.save()", "",
            "n = ids.shape[-1]", "torch.testing.assert_close(model.embed_tokens.weight[ids] + positions.weight[:n], x)"]
    return _note(heading, prose, code)


def _rotary_snippet(subject, index, attention, tiny_rotary):
    """The queries before the rotary, read from the projection (or the query norm), against attention_queries."""
    model = subject.tiny
    children = _children(attention)
    if "q_proj" not in children or not _serves(model, "attention_queries", index) or \
            not _standard_meaning(model, "attention_queries", index):
        return None
    source = "q_norm" if "q_norm" in children else "q_proj"
    found = _queries_beside(model, index, source)
    if found is None:
        return None
    pre, q = found
    if not isinstance(pre, torch.Tensor) or q.dim() != 4:
        return None
    d = q.shape[-1]
    if pre.dim() == 3:
        reshape = f"q_pre = q_raw.view(*q_raw.shape[:2], -1, {d}).transpose(1, 2)"
        q_pre = pre.reshape(*pre.shape[:2], -1, d).transpose(1, 2)
    elif pre.shape == q.shape:  # the heads already first
        reshape = "q_pre = q_raw"
        q_pre = pre
    else:
        reshape = "q_pre = q_raw.transpose(1, 2)"
        q_pre = pre.transpose(1, 2)
    if q_pre.shape != q.shape:
        return None
    rot = 2 * _inv_freq(tiny_rotary).numel()
    scaling = getattr(tiny_rotary, "attention_scaling", 1.0)
    checks = []
    if rot < d and torch.equal(q_pre[..., rot:], q[..., rot:]):
        checks.append(f"assert torch.equal(q_pre[..., {rot}:], q[..., {rot}:])   # past rot: no rotation")
    if scaling == 1.0 and torch.equal(q_pre[:, :, 0], q[:, :, 0]):
        checks.append("assert torch.equal(q_pre[:, :, 0], q[:, :, 0])   # position 0: the rotation is the identity")
    if not torch.equal(q_pre[:, :, 1:, :rot], q[:, :, 1:, :rot]):
        checks.append(f"assert not torch.equal(q_pre[:, :, 1:, :{rot}], q[:, :, 1:, :{rot}])   # later positions turn")
    if len(checks) < 2:
        return None
    code = ["model.instrument()   # the trace reads a child's output and a value inside the same forward",
            f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
            f"    q_raw = attention.{source}.output.save()", "    q = attention.attention_queries.save()", "",
            reshape, *checks]
    lead = (f"On the tiny model ({rot} of {d} dimensions turn), the queries before the rotary are "
            f"`{source}`'s output{' (after the query norm)' if source == 'q_norm' else ''}, one head per "
            f"{d} dimensions:")
    return lead, code
