"""How far two float evaluations of one value may differ, from the arithmetic.

The same value computed twice, once alone and once in a padded batch, under another kernel or on another CPU,
runs its sums in another order. Each addition rounds by at most the unit roundoff ``u`` of the dtype, relative to
the magnitude of what is summed; over ``n`` roundings the errors add up like a random walk, to about ``sqrt(n) * u``
of that magnitude (the probabilistic bound of Higham and Mary, SIAM J. Sci. Comput. 41(5), 2019). A value read
after ``k`` blocks has been through ``k`` blocks' reductions, each at most the block's widest (its hidden or MLP
width), so ``n = k * width``. The tolerance is that bound with the value's largest entry as its magnitude: anything
it lets through is rounding, and a real change (a patch, an edit, a wrong position) is orders of magnitude larger.
"""

from __future__ import annotations

import math

import torch

#: half the gap between 1 and the next float: the largest relative error of one rounding
UNIT_ROUNDOFF = {torch.float64: 2.0 ** -53, torch.float32: 2.0 ** -24, torch.bfloat16: 2.0 ** -8,
                 torch.float16: 2.0 ** -11}


def tolerance(dtype: torch.dtype, magnitude: float, length: int) -> float:
    """The absolute difference rounding alone explains in a value of ``dtype`` whose entries reach ``magnitude``,
    computed through ``length`` roundings in some order: ``sqrt(length) * u * magnitude``."""
    return math.sqrt(max(int(length), 1)) * UNIT_ROUNDOFF[dtype] * float(magnitude)


def roundings(model, blocks: int | None = None) -> int:
    """The roundings behind a value read after ``blocks`` of the model's blocks (default: all of them): each block
    reduces over at most its widest dimension, the hidden size or the MLP's width (the widest block's, where the
    config gives one a block: Gemma 3n's)."""
    config = model._nnterp_state.config if hasattr(model, "_nnterp_state") else model.config
    mlp = getattr(config, "intermediate_size", 0) or 0
    width = max(getattr(config, "hidden_size", 0) or 0, max(mlp) if isinstance(mlp, (list, tuple)) else mlp,
                getattr(model, "hidden_size", 0) or 0)
    return (model.num_layers if blocks is None else blocks) * width


def assert_close(actual: torch.Tensor, expected: torch.Tensor, length: int, magnitude: float | None = None) -> None:
    """``actual`` is ``expected`` up to the rounding of ``length`` operations in another order (``tolerance``).
    ``magnitude`` is that of what was summed, where it exceeds the compared values' own (a difference of two
    logits is rounded at the logits' magnitude); by default the largest entry of ``expected``."""
    expected = torch.as_tensor(expected)
    actual = torch.as_tensor(actual)
    if magnitude is None:
        magnitude = float(expected.detach().abs().max()) if expected.numel() else 0.0
    atol = tolerance(expected.dtype, magnitude, length)
    torch.testing.assert_close(actual, expected, rtol=0, atol=atol, msg=lambda text: (
        f"{text}\nallowed: {atol:.3g} = sqrt({length}) * u({expected.dtype}) * {magnitude:.4g}, the rounding of "
        f"{length} operations on entries up to {magnitude:.4g}"))
