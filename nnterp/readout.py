"""The readout: what the model does from the last block's output to its logits, shared by the model's
``project_on_vocab`` and the conformance contract."""

from __future__ import annotations

import torch


def head_input(head, hidden: torch.Tensor) -> torch.Tensor:
    """A stream kept in float32 under a half-precision load (Mamba's, ZAYA's) is cast to the head's dtype, as the
    models do before lm_head."""
    weight = getattr(head, "weight", None)
    if isinstance(weight, torch.Tensor) and weight.is_floating_point() and hidden.dtype != weight.dtype:
        return hidden.to(weight.dtype)
    return hidden
