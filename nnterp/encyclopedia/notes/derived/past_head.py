"""What the model does to ``lm_head``'s output before the logits (a softcap, a scale, a cast), by config key."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.reading import _note, _num, _trace_or_none
from nnterp.encyclopedia.notes.derived.readout import subject_readout_identity

#: What a model may do past lm_head, by config key: (words, expression of head, the tiny model's check).
_PAST_HEAD = (
    ("final_logit_softcapping", "soft-capped: cap · tanh(lm_head_output / cap)",
     "cap * torch.tanh(head / cap)", lambda head, v: v * torch.tanh(head / v)),
    ("logit_scale", "scaled: lm_head_output · logit_scale", "head * model.config.logit_scale",
     lambda head, v: head * v),
    ("logits_scaling", "divided: lm_head_output / logits_scaling", "head / model.config.logits_scaling",
     lambda head, v: head / v),
    ("logits_scaling", "scaled: lm_head_output · logits_scaling", "head * model.config.logits_scaling",
     lambda head, v: head * v),
    ("lm_head_multiplier", "scaled: lm_head_output · lm_head_multiplier", "head * model.config.lm_head_multiplier",
     lambda head, v: head * v),
)


def past_head_note(subject) -> str | None:
    tiny = subject.tiny
    if subject_readout_identity(subject.family):
        return None
    saved = _trace_or_none(tiny, {"head": lambda: tiny.lm_head_output, "logits": lambda: tiny.logits})
    if saved is None:
        return None
    head, logits = saved["head"], saved["logits"]
    for key, words, expression, compute in _PAST_HEAD:
        value = getattr(tiny.config, key, None)
        real_value = getattr(subject.config, key, None)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        try:
            again = compute(head, value)
        except Exception:
            continue
        if again.shape == logits.shape and torch.equal(again.to(logits.dtype), logits):
            stated = subject.stated(key) if isinstance(real_value, (int, float)) else None
            stated = stated if stated is not None and float(stated.value) == float(real_value) else None
            shown = _num(float(real_value)) if isinstance(real_value, (int, float)) else "unset"
            heading = f"The logits are {words.split(':')[0]}, `{key}` = {shown}" + (
                f" ({stated.label}'s default)" if stated is not None and not stated.repo else "")
            prose = (f"`logits` is {words.split(': ', 1)[1]}, with `{key}` = {shown} "
                     + (stated.on if stated is not None else f"on {subject.named} as built here")
                     + ". `lm_head_output` is the head's own output, before that; `project_on_vocab` "
                     "applies it, so a logit lens reads as the model's own logits do.")
            code = ["with model.trace(prompt):", "    head = model.lm_head_output.save()",
                    "    logits = model.logits.save()", ""]
            if key == "final_logit_softcapping":
                code.append("cap = model.config.final_logit_softcapping")
            cast = "" if again.dtype == logits.dtype else ".to(logits.dtype)"
            code.append(f"assert torch.equal(({expression}){cast}, logits)")
            code += stated.check() if stated is not None else []
            return _note(heading, prose, code)
    if logits.dtype != head.dtype and torch.equal(head.to(logits.dtype), logits):
        heading = f"The logits are lm_head's output cast to {str(logits.dtype).removeprefix('torch.')}"
        prose = ("`logits` is `lm_head_output` cast to float32 by the model, whatever the load's dtype.")
        code = ["with model.trace(prompt):", "    head = model.lm_head_output.save()", "    logits = model.logits.save()",
                "", "assert torch.equal(head.float(), logits)"]
        return _note(heading, prose, code)
    return None
