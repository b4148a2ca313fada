"""The attention's scores against the product of the queries and keys, measured on the tiny model: the softmax
scale, a softcap, queries scaled before the product, no scale, ALiBi's bias, or a mask of −1e4."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.reading import (
    _assert_close_holds, _attention_module, _instrumented_trace, _note, _num, _real_attention, _trace,
)
from nnterp.encyclopedia.notes.derived.subject import _serves


def scale_note(subject) -> str | None:
    """The scores against the product of the queries and keys, measured on the tiny model: the scaled product
    (Llama's, said nothing of), another scale, a softcap, queries scaled before the product, no scale at all, a mask
    of -1e4; where none of these holds (ALiBi, a family's own term), the note says nothing."""
    tiny = subject.tiny
    index = subject.standard("attention_queries", "attention_keys", "attention_probabilities")
    if index is None or not _serves(tiny, "attention_scores", index):
        return None
    _, real_attention = _real_attention(subject)
    tiny_attention = _attention_module(tiny, index)
    # the attribute the attention multiplies its scores by: scaling on most, inv_norm_factor on Falcon
    scale_name = next((name for name in ("scaling", "inv_norm_factor", "softmax_scale", "scale_attn")
                       if isinstance(getattr(tiny_attention, name, None), (int, float))), "scaling")
    scale = getattr(real_attention if real_attention is not None else tiny_attention, scale_name, None)
    tiny_scale = getattr(tiny_attention, scale_name, None)
    head_dim = (subject.real or tiny).qk_head_dim
    scale_expr = f"attention.{scale_name}"
    if not isinstance(tiny_scale, (int, float)) and getattr(tiny_attention, "scale", None) is True:
        # a switch, not a number (openai-gpt's scale=True): the code divides by the root of the head's width
        scale_name, scale_expr = "scale", "q.shape[-1] ** -0.5"
        tiny_scale, scale = None, head_dim ** -0.5
    attention = tiny.layers[index].self_attn
    try:
        saved = _trace(tiny, {"q": lambda: attention.attention_queries, "k": lambda: attention.attention_keys,
                              "scores": lambda: attention.attention_scores,
                              "probs": lambda: attention.attention_probabilities})
    except Exception:
        return None
    q, k, scores, probs = saved["q"], saved["k"], saved["scores"], saved["probs"]
    if not (q.dim() == 4 and k.dim() == 4 and q.shape[1] % k.shape[1] == 0 and q.shape[-1] == k.shape[-1]
            and scores.shape[-1] == k.shape[-2] and scores.shape == probs.shape):
        return None
    product = q @ k.repeat_interleave(q.shape[1] // k.shape[1], dim=1).transpose(-1, -2)
    live = scores > torch.finfo(scores.dtype).min / 2
    soft = _assert_close_holds(scores.softmax(-1), probs)
    tiny_cap = getattr(tiny.config, "attn_logit_softcapping", None)
    reads = [f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
             "    q = attention.attention_queries.save()", "    k = attention.attention_keys.save()",
             "    scores = attention.attention_scores.save()", "    probs = attention.attention_probabilities.save()",
             "", "k = k.repeat_interleave(model.num_heads // model.num_kv_heads, dim=1)"]
    marked = sorted({row.name for row in subject.rows if row.status == "conditioned"})
    lead = (f"Under the default load, {len(marked)} values carry ⚠︎ in the table above "
            f"({', '.join(f'`{n}`' for n in marked)}): the kernel that serves them is eager's, which materialises "
            "the scores. " if marked else "")
    softmax = ["torch.testing.assert_close(scores.softmax(-1), probs)"] if soft else []

    scaled = None
    if tiny_scale is None and scale_name == "scale":
        tiny_scale = q.shape[-1] ** -0.5
    if isinstance(tiny_scale, (int, float)):
        scaled = product * tiny_scale
        if tiny_cap:
            scaled = tiny_cap * torch.tanh(scaled / tiny_cap)
    if scaled is not None and _assert_close_holds(scaled[live], scores[live]):
        cap = subject.stated("attn_logit_softcapping") if tiny_cap else None
        pre = subject.stated("query_pre_attn_scalar")
        pre = pre if pre is not None and isinstance(scale, (int, float)) and pre.value and \
            abs(scale - pre.value ** -0.5) < 1e-9 else None
        plain = isinstance(scale, (int, float)) and abs(scale - head_dim ** -0.5) < 1e-9
        if plain and cap is None and soft and (pre is None or abs(pre.value - head_dim) < 1e-9):
            subject.as_llama("softmax scale qk_head_dim ** -0.5")
            return None
        if pre is not None:
            same = ", as is `qk_head_dim ** -0.5` here" if plain else f", not `qk_head_dim ** -0.5` ({head_dim ** -0.5:.4g})"
            heading = f"The softmax scale is `query_pre_attn_scalar ** -0.5` ({_num(float(pre.value))} ** -0.5 = {scale:.4g}){same}"
            subject.differs("scale", f"softmax scale query_pre_attn_scalar ** -0.5 = {scale:.4g}")
        elif plain:
            heading = f"The softmax scale is `qk_head_dim ** -0.5` ({head_dim} ** -0.5 = {scale:.4g})"
        elif isinstance(scale, (int, float)):
            heading = f"The softmax scale is {scale:.4g}, not `qk_head_dim ** -0.5` ({head_dim ** -0.5:.4g})"
            subject.differs("scale", f"softmax scale {scale:.4g}, not qk_head_dim ** -0.5")
        else:
            return None
        prose = [lead + f"`self_attn.{scale_name}` is {scale:.6g} on {subject.named}, as the attention's constructor "
                 "computes it from the config" + (f" (`query_pre_attn_scalar` {pre.on})" if pre is not None else "")
                 + "."]
        code = [*reads, f"raw = q @ k.transpose(-1, -2) * {scale_expr}"]
        if cap is not None:
            heading += f"; the scores are soft-capped at {_num(float(cap.value))}"
            subject.differs("scale", f"scores soft-capped at {_num(float(cap.value))}")
            prose.append(f"The kernel soft-caps the scaled scores, cap · tanh(s / cap) with `attn_logit_softcapping` "
                         f"= {_num(float(cap.value))} {cap.on}, then adds the mask: `attention_scores` are capped. "
                         "sdpa cannot cap, so the eager load is the model.")
            code += ["cap = model.config.attn_logit_softcapping", "raw = cap * torch.tanh(raw / cap)   # the softcap, before the mask"]
        prose.append("On the tiny model the scores are the scaled product of the queries and the repeated keys"
                     + (", soft-capped," if cap is not None else "") + " where the mask keeps them"
                     + (", and their softmax is the pattern:" if soft else ":"))
        code += ["live = scores > torch.finfo(scores.dtype).min / 2   # the entries the mask keeps",
                 "torch.testing.assert_close(raw[live], scores[live])", *softmax]
        checks = [line for stated in (cap, pre) if stated is not None for line in stated.check()]
        return _note(heading, " ".join(prose), code + checks)

    if _assert_close_holds(product[live], scores[live]):  # the scores are the bare product: where is the scale?
        source = next((name for name, _ in tiny_attention.named_modules()
                       if name.split(".")[-1] in ("q_proj", "query") and name.count(".") <= 1), None)
        if source is None or not _serves(tiny, "attention_queries", index):
            return None
        host = tiny.layers[index].self_attn

        def projected():
            found = host
            for part in source.split("."):
                found = getattr(found, part)
            return found.output
        seen = _instrumented_trace(tiny, {"raw": projected})
        if seen is None or not isinstance(seen["raw"], torch.Tensor) or seen["raw"].dim() != 3:
            return None
        raw = seen["raw"]
        heads = raw.reshape(*raw.shape[:2], -1, q.shape[-1]).transpose(1, 2)
        if heads.shape != q.shape:
            return None
        reshape = f"q_pre = q_raw.view(*q_raw.shape[:2], -1, {q.shape[-1]}).transpose(1, 2)"
        code = ["model.instrument()   # the trace reads a child's output and a value inside the same forward",
                *reads[:2], f"    q_raw = attention.{source}.output.save()", *reads[2:], reshape]
        if isinstance(tiny_scale, (int, float)) and tiny_scale != 1 and _assert_close_holds(heads * tiny_scale, q):
            heading = (f"The queries are scaled before the product, by {scale:.4g}: the scores are exactly q · kᵀ"
                       if isinstance(scale, (int, float)) else
                       "The queries are scaled before the product: the scores are exactly q · kᵀ")
            subject.differs("scale", "the queries scaled before the product (the scores are q · kᵀ)")
            prose = (lead + f"The attention multiplies `{source}`'s output by `self_attn.{scale_name}` "
                     + (f"({scale:.6g} on {subject.named}) " if isinstance(scale, (int, float)) else "")
                     + "before the product, so `attention_queries` are already scaled and `attention_scores` are "
                     "q · kᵀ with nothing more where the mask keeps them; a reader who scales them again divides "
                     "twice. On the tiny model:")
            code += [f"torch.testing.assert_close(q_pre * attention.{scale_name}, q)   # the scale is in the queries"]
        elif _assert_close_holds(heads, q):
            heading = "The scores are q · kᵀ with no scale at all: no division by √head_dim"
            subject.differs("scale", "no softmax scale at all (the scores are q · kᵀ)")
            scale = None
            prose = (lead + "Neither the queries nor the product are scaled: `attention_queries` are the projection's "
                     "output and `attention_scores` are q · kᵀ where the mask keeps them. A reimplementation that "
                     "divides by √head_dim computes a softer pattern than the model's. On the tiny model:")
            code += ["torch.testing.assert_close(q_pre, q)   # the queries as projected, unscaled"]
        else:
            return None
        code += ["live = scores > torch.finfo(scores.dtype).min / 2   # the entries the mask keeps",
                 "torch.testing.assert_close((q @ k.transpose(-1, -2))[live], scores[live])", *softmax]
        return _note(heading, prose, code)

    if scaled is not None and scores.shape[-1] > 2:  # ALiBi: a bias linear in the key's position, a slope per head
        bias = scores - scaled
        steps = bias[..., 1:] - bias[..., :-1]
        both = live[..., 1:] & live[..., :-1]
        slopes = steps[..., -1:, :1]  # the last query sees every key
        if bool(both.any()) and bool((slopes != 0).all()) and \
                _assert_close_holds(steps[both], slopes.expand_as(steps)[both]):
            heading = "The scores add ALiBi: a bias linear in the key's position, with a slope per head, and no rotary"
            subject.differs("positions", "ALiBi: a per-head bias linear in the key's position")
            prose = (lead + f"`attention_scores` are q · kᵀ · `{scale_expr.removeprefix('attention.')}` plus, in each "
                     "head, a bias that grows by the same step from one key to the next: the model's positions live "
                     "in the scores alone, not in the queries and keys. A reader who recomputes the scores from "
                     "`attention_queries` and `attention_keys` without the bias gets a model that cannot tell "
                     "positions apart. On the tiny model:")
            code = [*reads, f"raw = q @ k.transpose(-1, -2) * {scale_expr}", "bias = scores - raw",
                    "live = scores > torch.finfo(scores.dtype).min / 2   # the entries the mask keeps",
                    "steps, both = bias[..., 1:] - bias[..., :-1], live[..., 1:] & live[..., :-1]",
                    "slopes = steps[..., -1:, :1]   # one per head, read on the last query, which sees every key",
                    "torch.testing.assert_close(steps[both], slopes.expand_as(steps)[both])   # linear in the key",
                    "assert (slopes != 0).all() and len(set(slopes.flatten().tolist())) == model.num_heads",
                    *softmax]
            if len(set(slopes.flatten().tolist())) == q.shape[1]:
                return _note(heading, prose, code)
    if scaled is not None:  # a mask of its own value in place of the dtype's minimum (openai-gpt's -1e4)
        masked = scores == -1e4
        if bool(masked.any()) and _assert_close_holds(scaled[~masked], scores[~masked]):
            heading = "The scores are the scaled product with the masked entries set to −1e4, not the dtype's minimum"
            subject.differs("scale", "masked scores set to −1e4")
            prose = (lead + f"`attention_scores` are q · kᵀ · {scale_expr.removeprefix('attention.')} where the causal mask keeps them and −1e4 "
                     "where it does not: a reader testing for the dtype's minimum finds no masked entry, and the "
                     "masked entries keep a probability of about e^−1e4, zero in float32. On the tiny model:")
            code = [*reads, f"raw = q @ k.transpose(-1, -2) * {scale_expr}",
                    "masked = scores == -1e4", "assert masked.any()   # the mask's own value",
                    "torch.testing.assert_close(raw[~masked], scores[~masked])", *softmax]
            return _note(heading, prose, code)
    return None
