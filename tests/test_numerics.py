"""The tolerance of nnterp.numerics lets rounding through and nothing else."""

import pytest
import torch

from nnterp import real
from nnterp.numerics import UNIT_ROUNDOFF, assert_close, roundings, tolerance


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_a_sum_in_another_order_is_within_the_tolerance(dtype):
    """Row sums of n terms, forward and reversed in the dtype, differ by rounding: within sqrt(n) u magnitude."""
    generator = torch.Generator().manual_seed(0)
    n = 4096
    terms = torch.rand(64, n, generator=generator)
    forward = torch.zeros(64, dtype=dtype)
    backward = torch.zeros(64, dtype=dtype)
    for chunk in range(0, n, 64):  # a running sum, chunk by chunk, as a kernel's blocked reduction
        forward += terms[:, chunk:chunk + 64].to(dtype).sum(-1)
        backward += terms[:, n - chunk - 64:n - chunk].flip(-1).to(dtype).sum(-1)
    assert not torch.equal(forward, backward)  # the orders do differ
    assert_close(backward, forward, length=n)
    assert tolerance(dtype, 1.0, 1) == UNIT_ROUNDOFF[dtype]


def test_the_tolerance_of_a_value_after_every_block_catches_a_real_change():
    """On the embedded model, what a padded batch gives is within the tolerance of what the prompt gives alone,
    and the stream of a neighbouring position is not."""
    model = real.load()
    prompt = "The Eiffel Tower is in the city of"
    with torch.no_grad():
        with model.trace([prompt, "Hello"]):
            batched = model.layers[-1].layer_output.save()
        with model.trace(prompt):
            alone = model.layers[-1].layer_output.save()
    assert_close(batched[0], alone[0], length=roundings(model))
    with pytest.raises(AssertionError, match=r"allowed: .* = sqrt\(46080\) \* u\(torch.float32\)"):
        assert_close(batched[0, 1:], alone[0, :-1], length=roundings(model))
