"""The benchmark suite's nnterp side runs on the current API (it is run by hand, so a rename would break it
silently): the values it times are those the model serves, in forward order."""

import sys
from pathlib import Path

from nnterp import tiny

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))  # run as scripts there
from lib_nnterp import block_values  # noqa: E402


def test_the_benchmark_reads_the_served_values_in_forward_order():
    model = tiny.load("llama", attn_implementation="eager")
    residual = block_values(model, residual_only=True)
    assert [name for _, name in residual] == ["layer_input", "attention_norm_output", "attention_output", "layer_mid",
                                              "mlp_norm_output", "mlp_input", "mlp_output", "layer_output"]
    every = block_values(model, residual_only=False)
    assert set(residual) < set(every) and ("attention", "attention_probabilities") in every
    parallel = block_values(tiny.load("phi"), residual_only=True)
    assert "layer_mid" not in [name for _, name in parallel]
