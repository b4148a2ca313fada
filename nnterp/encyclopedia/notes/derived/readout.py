"""The readout: ``lm_head`` tied to the embeddings or not, its bias and the final norm's, and whether the logits
are the projection of the last block's output."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.reading import _assert_close_holds, _has_bias, _module
from nnterp.encyclopedia.rows import groups


def _tied(model) -> bool | None:
    hf = _module(model)
    try:
        head, embed = hf.get_output_embeddings(), hf.get_input_embeddings()
    except Exception:
        return None
    if head is None or embed is None:
        return None
    return getattr(head, "weight", None) is getattr(embed, "weight", 0)


def readout_note(subject) -> str | None:
    tiny = subject.tiny
    last = groups(subject.rows)[-1][1]
    served = last.get("layer_output") is not None and last["layer_output"].status == "served"
    real = subject.real if subject.real is not None else tiny
    tied, tiny_tied = _tied(real), _tied(tiny)
    hf = _module(real)
    head = hf.get_output_embeddings() if hasattr(hf, "get_output_embeddings") else None
    head_bias = _has_bias(head) if head is not None else False
    final = getattr(_module(real), "model", None)
    norm = _module(getattr(real, "norm", None)) if hasattr(real, "norm") else None
    del final
    norm_bias = _has_bias(norm) if norm is not None else False
    parts = ["tied to the embeddings" if tied else "its own matrix" if tied is False else "the model's head"]
    parts.append("with a bias" if head_bias else "without a bias")
    heading = f"`lm_head` is {parts[0]}, {parts[1]}"
    vocab = getattr(subject.config, "vocab_size", None)
    prose = [f"On {subject.named}, `lm_head`'s weight "
             + ("is `embed_tokens.weight`, the same tensor" if tied else "is a matrix of its own" if tied is False
                else "is not the embedding's")
             + (f" ({vocab} rows, the config's `vocab_size`)" if vocab else "") + "."]
    if norm_bias or head_bias:
        terms = (["lm_head.weight @ norm.bias"] if norm_bias else []) + (["lm_head.bias"] if head_bias else [])
        prose.append(f"The {'final norm' if norm_bias else 'head'} has a bias, so every readout, a logit lens at any "
                     f"block included, adds the same logit vector whatever the input: `{' + '.join(terms)}`, what a "
                     "stream of zeros reads as.")
    if not subject.family.readout.exact_lens or not served:
        prose.append("`project_on_vocab` is the final norm, `lm_head` and whatever the model does past `lm_head`, but "
                     "the logits are not that projection of the last block's `layer_output` here: a logit lens is an "
                     "approximation, even at the last block.")
        code = None
    else:
        prose.append("`project_on_vocab` (the final norm, `lm_head` and whatever the model does past `lm_head`) "
                     "applied to the last block's `layer_output` gives `logits`.")
        code = ["with model.trace(prompt):", "    last = model.layers[-1].layer_output.save()",
                "    logits = model.logits.save()", "",
                "torch.testing.assert_close(model.project_on_vocab(last), logits)"]
        if tiny_tied is not None and isinstance(getattr(_module(tiny.lm_head), "weight", None), torch.Tensor):
            code.append(f"assert (model.lm_head.weight is model.embed_tokens.weight) is {tiny_tied}"
                        + ("" if tiny_tied == tied else "   # the tiny model's config; the checkpoint's differs"))
        tiny_norm = _module(getattr(tiny, "norm", None)) if hasattr(tiny, "norm") else None
        if (norm_bias or head_bias) and tiny_norm is not None and _constant_holds(tiny, tiny_norm):
            terms = (["model.lm_head.weight @ model.norm.bias"] if _has_bias(tiny_norm) else [])
            tiny_head = _module(tiny.lm_head)
            terms += ["model.lm_head.bias"] if _has_bias(tiny_head) else []
            if terms:
                code += ["zeros = torch.zeros(1, 1, model.hidden_size)",
                         f"torch.testing.assert_close(model.project_on_vocab(zeros)[0, 0], {' + '.join(terms)})"]
    text = [f"## {heading}", "", " ".join(prose), ""]
    if code:
        text += ["```python", *code, "```", ""]
    return "\n".join(text)


def _constant_holds(tiny, norm) -> bool:
    if not isinstance(norm, torch.nn.LayerNorm) or subject_readout_identity(tiny.family) is False:
        return False
    try:
        zeros = torch.zeros(1, 1, tiny.hidden_size)
        got = tiny.project_on_vocab(zeros)[0, 0]
        want = tiny.lm_head.weight @ norm.bias if norm.bias is not None else 0
        head = _module(tiny.lm_head)
        if _has_bias(head):
            want = want + head.bias
        return _assert_close_holds(got, want)
    except Exception:
        return False


def subject_readout_identity(family) -> bool:
    return family.readout.past_head_identity
