"""Step 3.7's language stack (step3p5_text): heads per block from per_layer_config, the SwiGLU clamped inline where a
layer's limit is set (its activation and up then unavailable, its neurons the clamped product), and the refusal of a
bidirectional config."""

import pytest
import torch

from nnterp import tiny
from nnterp.declare.errors import UnavailableValue, UnknownArchitecture
from nnterp.registry import family_for


@pytest.fixture(scope="module")
def step3p7():
    return tiny.load("step3p7")


def test_each_block_has_its_own_heads(step3p7):
    # the tiny recipe gives the sliding blocks (0 and 2) num_sliding_attention_heads=2, the full block 4
    with step3p7.trace(tiny.image_call("step3p7")):
        sliding = step3p7.layers[0].self_attn.attention_premix.save()
        full = step3p7.layers[1].self_attn.attention_premix.save()
    assert sliding.shape[-2:] == (2, 16) and full.shape[-2:] == (4, 16)
    assert step3p7.num_heads == 2  # model-wide, the first block's


def test_a_clamped_swiglu_serves_its_clamped_product_and_not_its_halves(step3p7):
    block = step3p7.layers[0]._module.mlp
    assert block.limit == 0.1  # swiglu_limits_shared[0]
    with step3p7.trace("The Eiffel Tower is"):
        x = step3p7.layers[0].mlp_input.save()
        gate = step3p7.layers[0].mlp.mlp_preactivation.save()
        neurons = step3p7.layers[0].mlp.mlp_neurons.save()
    with torch.no_grad():
        torch.testing.assert_close(gate, block.gate_proj(x))
        clamped = block.act_fn(gate).clamp(max=0.1) * block.up_proj(x).clamp(-0.1, 0.1)
        unclamped = block.act_fn(gate) * block.up_proj(x)
    torch.testing.assert_close(neurons, clamped)
    assert not torch.allclose(neurons, unclamped, atol=1e-4)  # the clamp bites
    for name in ("mlp_activation", "mlp_up"):
        with pytest.raises(UnavailableValue, match="clamps inline"):
            with step3p7.trace("The Eiffel Tower is"):
                getattr(step3p7.layers[0].mlp, name).save()


def test_a_bidirectional_config_is_refused():
    config = tiny.config("step3p7")
    config.text_config.use_bidirectional_attention = True
    with pytest.raises(UnknownArchitecture, match="use_bidirectional_attention"):
        family_for(config, "Step3p7ForConditionalGeneration")
