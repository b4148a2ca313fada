"""Interventions: edits of standard values that compose, apply in forward order, and run anywhere.

An ``Intervention`` is a list of edits, each on one standard value of one block. Calling it inside
a trace applies the edits in the order the forward computes their values, so interventions on
different blocks and values combine with ``+`` in any order::

    with model.trace(prompt):
        (steer(vector, layers=5) + ablate_heads([(3, 1)]))(model)
        probs = model.next_token_probs.save()

``run`` and ``generate`` do the tracing for you. The constructors live in ``steering`` and
``ablation``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch

from nnterp.tools._common import TEXT_CALL, ToolError, encode, first_real_position, order_key, trace, why_not


@dataclass(frozen=True)
class Edit:
    """``apply(model, context)`` touches standard value ``name`` of block ``layer`` (None: the model)."""

    name: str
    layer: int | None
    apply: Callable[[Any, dict], None]


class Intervention:
    """Edits of standard values; call it inside a trace, or pass it to ``run`` or ``generate``."""

    def __init__(self, edits=(), label: str = "") -> None:
        self.edits = tuple(edits)
        self.label = label

    def __add__(self, other: "Intervention") -> "Intervention":
        label = " + ".join(x for x in (self.label, other.label) if x)
        return Intervention(self.edits + other.edits, label)

    def __bool__(self) -> bool:
        return bool(self.edits)

    def __repr__(self) -> str:
        return f"Intervention({self.label or 'nothing'}; {len(self.edits)} edits)"

    def __call__(self, model, step: int = 0, batch: dict | None = None) -> None:
        """Apply every edit, in forward order, inside the current trace; call it before reading anything
        the edits come before. ``step`` is the generation step; ``batch`` (the encoded inputs, when known)
        spares reading the attention mask from the model."""
        context: dict = {"step": step}
        if batch is not None:
            context["sink"] = first_real_position(batch)

        def block(edit):
            return None if edit.layer is None else edit.layer % model.num_layers

        for edit in self.edits:  # refuse before touching anything
            reason = why_not(model, edit.name, block(edit))
            if reason is not None:
                where = "" if edit.layer is None else f" at block {block(edit)}"
                raise ToolError(f"{self.label or 'this intervention'} edits {edit.name}{where}, which is not served: {reason}")
        for edit in sorted(self.edits, key=lambda e: order_key(e.name, block(e))):
            edit.apply(model, context)


def run(model, prompts, intervention: Intervention | None = None) -> torch.Tensor:
    """The logits [batch seq vocab] of ``prompts`` under ``intervention`` (left-padded batch)."""
    batch = encode(model, prompts)
    with torch.no_grad():
        with trace(model, batch):
            if intervention:
                intervention(model, batch=batch)
            logits = model.logits.save()
    return logits


def generate(model, prompt, intervention: Intervention | None = None, *, max_new_tokens: int = 20,
             **generate_kwargs) -> list[str]:
    """Greedy continuations of ``prompt`` (a string or a list) with ``intervention`` applied at every step.

    Every step generates exactly ``max_new_tokens`` tokens (an end-of-sequence token does not
    stop it early), so the edit reaches each new token.
    """
    if max_new_tokens < 1:
        raise ToolError("max_new_tokens must be at least 1")
    batch = encode(model, prompt)
    inputs = {k: v for k, v in batch.items() if k in TEXT_CALL}
    settings = {"do_sample": False, **generate_kwargs, "max_new_tokens": max_new_tokens,
                "min_new_tokens": max_new_tokens}
    with torch.no_grad():
        with model.generate(**settings) as tracer:
            with tracer.invoke(inputs):
                if intervention:
                    for step in tracer.iter[0:max_new_tokens]:
                        intervention(model, step=step, batch=batch)
            with tracer.invoke():
                ids = tracer.result.save()
    start = inputs["input_ids"].shape[1]
    return [model.tokenizer.decode(row[start:], skip_special_tokens=True) for row in ids]


# --------------------------------------------------------------------------- shared pieces
def selection(batch_rows: int, seq: int, rows, positions) -> torch.Tensor:
    """A [batch seq 1] float mask of the rows and positions an edit touches in the current call.

    Positions count within the current call, negatives from its end; a position this step does
    not have (a prompt position during a one-token generation step) is left alone.
    """
    mask = torch.zeros(batch_rows, seq, 1)
    row_index = list(range(batch_rows)) if rows is None else [int(r) for r in ([rows] if isinstance(rows, int) else rows)]
    if positions is None:
        columns = list(range(seq))
    else:
        columns = [p % seq for p in ([positions] if isinstance(positions, int) else positions) if -seq <= p < seq]
    for r in row_index:
        if not -batch_rows <= r < batch_rows:
            raise ToolError(f"row {r} is outside a batch of {batch_rows}")
        mask[r, columns] = 1.0
    return mask
