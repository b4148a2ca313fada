"""A query norm ``qk_norm_note`` does not apply to (no weight, after the rotary, one module for both, a fused
or gated projection): what it makes of each query head."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.qk_norm import qk_norm_note
from nnterp.encyclopedia.notes.derived.reading import _attention_module, _children, _note, _queries_beside
from nnterp.encyclopedia.notes.derived.subject import _serves

_QK_NORM_NAMES = ("q_norm", "query_layernorm", "q_layernorm", "qk_norm")


def qk_norm_property_note(subject) -> str | None:
    """Where qk_norm_note does not apply (a norm without a weight, after the rotary, one module for both, a fused
    or gated projection): what the query norm makes of each head, measured on the tiny model and asserted."""
    if qk_norm_note(subject) is not None:
        return None
    tiny = subject.tiny
    index = next((i for i in range(tiny.num_layers) if _serves(tiny, "attention_queries", i)
                  and any(n in _children(_attention_module(tiny, i)) for n in _QK_NORM_NAMES)), None)
    if index is None:
        return None
    children = _children(_attention_module(tiny, index))
    name = next(n for n in _QK_NORM_NAMES if n in children)
    norm = children[name]
    weight = getattr(norm, "weight", None)
    weight = weight if isinstance(weight, torch.Tensor) else None
    bias = getattr(norm, "bias", None)
    bias = bias if isinstance(bias, torch.Tensor) else None
    found = _queries_beside(tiny, index, name)
    if found is None:
        return None
    normed, q = found
    read = f"attention.{name}.output"
    if isinstance(normed, tuple):  # one module for the queries and the keys returns both (Zaya's qk_norm)
        normed, read = normed[0], f"attention.{name}.output[0]"
    if not isinstance(normed, torch.Tensor):
        return None
    d = q.shape[-1]
    if normed.shape[-1] != d and normed.shape[-1] % d:
        return None
    lines, heads = [], normed
    if normed.shape[-1] != d:
        lines.append(f"heads = q_normed.view(*q_normed.shape[:-1], -1, {d})   # one row per head")
        heads = normed.view(*normed.shape[:-1], -1, d)
    else:
        lines.append("heads = q_normed")
    if weight is not None and weight.numel() != d:
        return None
    # what the norm makes of each head, measured: the candidates for undoing its weight, then its property
    undo = [("heads", heads.float(), None)]
    if weight is not None:
        w = f"attention.{name}.weight"
        shifted = heads.float() - (bias.float() if bias is not None else 0)
        minus = f"(heads - attention.{name}.bias)" if bias is not None else "heads"
        undo = [(f"{minus} / {w}", shifted / weight.float(), "the norm's weight"),
                (f"{minus} / (1 + {w})", shifted / (1 + weight.float()), "one plus the norm's weight")]
    properties = (
        ("zero mean and unit variance", lambda u: torch.allclose(u.mean(-1), torch.zeros(()), atol=1e-3)
         and torch.allclose(u.var(-1, unbiased=False), torch.ones(()), atol=2e-2),
         ["assert torch.allclose(unit.mean(-1), torch.zeros(()), atol=1e-3)   # centred per head",
          "assert torch.allclose(unit.var(-1, unbiased=False), torch.ones(()), atol=2e-2)   # unit variance"]),
        ("unit root mean square", lambda u: torch.allclose(u.pow(2).mean(-1), torch.ones(()), atol=2e-2),
         ["assert torch.allclose(unit.pow(2).mean(-1), torch.ones(()), atol=2e-2)   # unit RMS per head"]),
        ("unit length", lambda u: torch.allclose(u.norm(dim=-1), torch.ones(()), atol=1e-3),
         ["assert torch.allclose(unit.norm(dim=-1), torch.ones(()), atol=1e-3)   # unit length per head"]),
    )
    found = next(((expr, scaled, what, asserts) for expr, unit, scaled in undo
                  for what, holds, asserts in properties if holds(unit)), None)
    if found is None:
        return None
    expr, scaled, what, asserts = found
    lines += [f"unit = {expr}", *asserts]
    kind = type(norm).__name__
    weighs = (f"then scales each of its dims by {scaled} (one head's width, shared by the heads)"
              if scaled else "and has no weight: every head leaves the norm at the same scale")
    # where it sits against the rotary: the queries the kernel takes, laid out [batch heads seq dim]
    if heads.dim() == 4 and heads.shape[1] == q.shape[1] and heads.shape[2] == q.shape[2]:
        as_q, layout = heads, "heads"
    elif heads.dim() == 4 and heads.shape[2] == q.shape[1]:
        as_q, layout = heads.transpose(1, 2), "heads.transpose(1, 2)"
    else:
        as_q, layout = None, None
    where = "`attention_queries` are read after it"
    if as_q is not None and as_q.shape == q.shape:
        if torch.equal(as_q, q):
            lines.append(f"assert torch.equal({layout}, q)   # the kernel takes the normed queries as they are")
            where = ("the kernel takes its output as it is: on this block `attention_queries` is the normed query "
                     "(a rotary, where the block has one, turns the projection before the norm)")
        elif torch.equal(as_q[:, :, 0], q[:, :, 0]):
            lines.append(f"assert torch.equal({layout}[:, :, 0], q[:, :, 0])   # position 0: no turn, the normed "
                         "query enters")
            where = "the rotary turns its output: `attention_queries` equal it at position 0, where nothing turns"
    shared = " (one module normalizes both the queries and the keys)" if name == "qk_norm" else ""
    heading = f"`{name}` ({kind}) brings each query head to {what} before the attention"
    prose = (f"`self_attn.{name}`{shared} brings every query head to {what}, measured on its output, {weighs}; "
             f"{where}. The queries' "
             "scale is set by the norm, not by the stream's size. Read on block "
             f"{index} of the tiny model, whose attention serves the queries.")
    code = ["model.instrument()   # the trace reads a child's output and a value inside the same forward",
            f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
            f"    q_normed = {read}.save()", "    q = attention.attention_queries.save()", "",
            *lines]
    return _note(heading, prose, code)
