"""Blocks whose residual adds are mixes with learned per-channel gates (nnterp.declare.blocks.ResidualGates): the block's
values satisfy the mix with the gates the model's own parameters give, not the plain sum, and the gates matter."""

import torch

from nnterp import tiny


def _muse_spark_gates(gate):
    """MuseSparkResidualGate's alpha and beta, computed here from its parameter."""
    w = gate.gate.detach() / gate.temperature
    beta = torch.sigmoid(w)
    return torch.sqrt(torch.clamp(torch.sigmoid(-w) * (1.0 + beta), min=gate.eps)), beta


def _block_values(model, i):
    with model.trace(tiny.image_call("muse_spark")):
        layer = model.layers[i]
        x, attn = layer.layer_input.save(), layer.self_attn.attention_output.save()
        mid, mlp, out = layer.layer_mid.save(), layer.mlp.mlp_output.save(), layer.layer_output.save()
    return x, attn, mid, mlp, out


def test_muse_spark_block_is_alpha_residual_plus_beta_sublayer_on_every_block():
    model = tiny.load("muse_spark")
    for i in range(model.num_layers):
        x, attn, mid, mlp, out = _block_values(model, i)
        native = model.layers[i]._module
        alpha, beta = _muse_spark_gates(native.post_attention_residual_gate)
        torch.testing.assert_close(mid, alpha * x + beta * attn)
        alpha, beta = _muse_spark_gates(native.post_feedforward_residual_gate)
        torch.testing.assert_close(out, alpha * mid + beta * mlp)
        assert not torch.allclose(out, mid + mlp, atol=1e-3)  # the plain sum does not hold


def test_muse_spark_changing_a_gate_changes_the_block_and_the_mix_follows():
    model = tiny.load("muse_spark")
    _, _, mid, mlp, out = _block_values(model, 1)
    gate = model.layers[1]._module.post_feedforward_residual_gate
    before, _ = _muse_spark_gates(gate)
    with torch.no_grad():
        gate.gate[:8] -= 1.0  # the first 8 channels' alpha grows, beta shrinks
    after, beta = _muse_spark_gates(gate)
    assert (after[:8] > before[:8]).all()
    x, attn, mid_again, mlp_again, changed = _block_values(model, 1)
    torch.testing.assert_close(mid_again, mid)  # the gate after the MLP changes nothing before it
    assert not torch.allclose(changed[..., :8], out[..., :8], atol=1e-4)
    torch.testing.assert_close(changed[..., 8:], out[..., 8:])
    torch.testing.assert_close(changed, after * mid_again + beta * mlp_again)
    arithmetic = model.family.block.arithmetic(model.config)  # what the contract checks, with the new gate
    torch.testing.assert_close(arithmetic(model.layers[1]._module, x, attn, mlp_again), changed)
