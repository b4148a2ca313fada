"""A norm over each query and key head (or over all heads at once) before the rotary."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.reading import (
    _attention_block, _attention_module, _children, _instrumented_trace, _note, _real_attention,
)
from nnterp.encyclopedia.notes.derived.subject import _serves

_QK_NORMS = (("q_norm", "k_norm"), ("query_layernorm", "key_layernorm"), ("q_layernorm", "k_layernorm"))


def qk_norm_note(subject) -> str | None:
    """A norm over each query and key head (or over all heads at once) before the rotary."""
    tiny = subject.tiny
    index = _attention_block(subject)
    attention = _attention_module(tiny, index) if index is not None else None
    children = _children(attention)
    pair = next((pair for pair in _QK_NORMS if all(name in children for name in pair)), None)
    if pair is None or "q_proj" not in children or not _serves(tiny, "attention_queries", index):
        return None
    q_name, k_name = pair
    _, real_attention = _real_attention(subject)
    real_norm = _children(real_attention).get(q_name) if real_attention is not None else children[q_name]
    if real_norm is None or not isinstance(getattr(real_norm, "weight", None), torch.Tensor):
        return None
    head_dim = (subject.real or tiny).qk_head_dim
    per_head = real_norm.weight.numel() == head_dim
    host = tiny.layers[index].self_attn
    saved = _instrumented_trace(tiny, {"raw": lambda: host.q_proj.output,
                                       "normed": lambda: getattr(host, q_name).output,
                                       "q": lambda: host.attention_queries})
    if saved is None:
        return None
    raw, normed, q = saved["raw"], saved["normed"], saved["q"]
    d = q.shape[-1]
    tiny_norm = children[q_name]
    tiny_per_head = tiny_norm.weight.numel() == d
    if normed.dim() == 4 and normed.shape == q.shape:  # normed after the heads moved first (Gemma 3)
        again = getattr(host, q_name)(raw.view(*raw.shape[:2], -1, d).transpose(1, 2))
        view = f"q_raw.view(*q_raw.shape[:2], -1, {d}).transpose(1, 2)"
        entering = "q_normed"
        entered = normed
    elif normed.dim() == 4:
        again = getattr(host, q_name)(raw.view(*raw.shape[:2], -1, d))
        view = f"q_raw.view(*q_raw.shape[:2], -1, {d})"
        entering = "q_normed.transpose(1, 2)"
        entered = normed.transpose(1, 2)
    elif normed.dim() == 3 and normed.shape[-1] == d and normed.shape[-2] * d == raw.shape[-1]:
        # normed as rows of heads, [batch·seq, heads, head_dim] (Chameleon's)
        heads = normed.shape[-2]
        again = getattr(host, q_name)(raw.reshape(-1, heads, d))
        view = f"q_raw.reshape(-1, {heads}, {d})"
        entering = f"q_normed.view(*q_raw.shape[:2], {heads}, {d}).transpose(1, 2)"
        entered = normed.view(*raw.shape[:2], heads, d).transpose(1, 2)
    else:
        again = getattr(host, q_name)(raw)
        view = "q_raw"
        entering = f"q_normed.view(*q_normed.shape[:2], -1, {d}).transpose(1, 2)"
        entered = normed.reshape(*normed.shape[:2], -1, d).transpose(1, 2)
    if not torch.equal(again, normed):
        return None
    checks = [f"assert torch.equal(attention.{q_name}({view}), q_normed)   # the norm reads the projection's output"]
    if entered.shape == q.shape and torch.equal(entered[:, :, 0], q[:, :, 0]):
        checks.append(f"assert torch.equal({entering}[:, :, 0], q[:, :, 0])   # position 0: no turn, the normed query "
                      "enters")
    # a [heads, head_dim] weight: the statistics over each head, each head with its own weight (Chameleon's)
    own_weights = tuple(tiny_norm.weight.shape) == (normed.shape[-2], d) and normed.shape[-1] == d
    checks.append(f"assert attention.{q_name}.weight.numel() == {tiny_norm.weight.numel()}   # "
                  + ("one head's width: a norm per head, shared by the heads" if tiny_per_head else
                     "a weight per head: each head normed over its own width" if own_weights else
                     "every head at once"))
    where = ("over each head" if per_head or own_weights else "over all heads at once") + (
        ", each head with its own weights" if own_weights else "")
    heading = (f"Queries and keys are normalized {where} (`{q_name}`, `{k_name}`, {type(real_norm).__name__}) "
               "before the rotary")
    prose = (f"On {subject.named}, `{q_name}` and `{k_name}` hold {real_norm.weight.numel()} weights "
             f"({'one head' if per_head else 'every head'}: {head_dim} per head"
             f"{', each head its own' if own_weights else ''}) and normalize the projections' "
             "outputs before the rotary turns them; `attention_queries` and `attention_keys` are read after both. "
             "The queries' scale is set by the norm's weights, not by the stream's size: multiplying the projection's "
             "output by a constant leaves the queries as they were, up to the norm's eps.")
    code = ["model.instrument()   # the trace reads children's outputs and a value inside the same forward",
            f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
            "    q_raw = attention.q_proj.output.save()", f"    q_normed = attention.{q_name}.output.save()",
            "    q = attention.attention_queries.save()", "", *checks]
    return _note(heading, prose, code)
