"""The tolerance of nnterp.contract.numerics lets rounding through and nothing else."""

import pytest
import torch

from nnterp import real
from nnterp.contract import conformance
from nnterp.contract.numerics import UNIT_ROUNDOFF, assert_close, roundings, tolerance


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


def test_the_contracts_tolerance_lets_a_reordered_sum_through_and_nothing_more():
    """The contract's recomputations (conformance._close at _linear_magnitude) pass a linear layer summed in another
    order, and fail an entry moved by ten times the rounding the arithmetic explains."""
    torch.manual_seed(0)
    x, linear = torch.randn(8, 512) * 30, torch.nn.Linear(512, 256).requires_grad_(False)
    fast = linear(x)
    chunked = sum(x[:, i:i + 64] @ linear.weight[:, i:i + 64].T for i in range(0, 512, 64)) + linear.bias
    exact = (x.double() @ linear.weight.double().T + linear.bias.double()).float()
    magnitude = conformance._linear_magnitude(linear, x)
    assert magnitude >= float(fast.abs().max())  # the terms' sizes bound the result's
    assert conformance._close(chunked, fast, 512, magnitude) and conformance._close(exact, fast, 512, magnitude)
    moved = fast.clone()
    moved[0, 0] += 10 * tolerance(torch.float32, magnitude, 512)
    assert not conformance._close(moved, fast, 512, magnitude)
