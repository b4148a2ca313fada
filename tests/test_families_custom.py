"""Checks of the custom-attention, post-norm and fairseq families beyond the conformance sweep: the block's own
arithmetic on post-norm checkpoints, BLOOM's output projection, XGLM's float16 softmax branch."""

import pytest
import torch

from nnterp import tiny
from nnterp.registry import registry

PROMPT = "The Eiffel Tower is in the city of"

POST_NORM = [
    ("bloom", {"apply_residual_connection_post_layernorm": True}),
    ("openai-gpt", {}),
    ("opt", {"do_layer_norm_before": False, "word_embed_proj_dim": 32}),
]


def _block_values(model):
    values = []  # made before the trace: nnsight keeps what the block saves into it
    with model.trace(PROMPT):
        for layer in model.layers:
            values.append({
                "x": layer.layer_input.save(), "attn": layer.self_attn.attention_output.save(),
                "mlp": layer.mlp.mlp_output.save(), "out": layer.layer_output.save(),
            })
        logits = model.logits.save()
    return values, logits


@pytest.mark.parametrize("family,overrides", POST_NORM, ids=[f for f, _ in POST_NORM])
def test_post_norm_blocks_follow_their_own_arithmetic(family, overrides):
    model = tiny.load(family, attn_implementation="eager", **overrides)
    config = model._nnterp_state.config
    arithmetic = registry()[family].block.arithmetic(config)
    values, logits = _block_values(model)
    for layer, v in zip(model.layers, values):
        total = arithmetic(layer._module, v["x"], v["attn"], v["mlp"])
        torch.testing.assert_close(total, v["out"])
        # not a sum: the norms sit on the residual path
        assert not torch.allclose(v["x"] + v["attn"] + v["mlp"], v["out"], atol=1e-3)
    # no final norm on these two: OPT-350M's readout is lm_head(project_out(h)), openai-gpt's lm_head(h)
    unembed = registry()[family].readout.unembed
    assert (unembed is not None) == (family in ("opt", "openai-gpt"))
    if unembed is not None:
        assert torch.equal(unembed(model, values[-1]["out"]), logits)


def test_bloom_dense_of_premix_is_attention_output():
    model = tiny.load("bloom")
    with model.trace(PROMPT):
        premix = model.layers[1].self_attn.attention_premix.save()
        attn = model.layers[1].self_attn.attention_output.save()
    dense = model.layers[1].self_attn.o_proj._module
    torch.testing.assert_close(dense(premix.flatten(-2)), attn)


def test_xglm_float16_reads_the_float16_softmax_branch():
    hf, tok = tiny.build("xglm", dtype=torch.float16)
    from nnterp import StandardizedTransformer

    model = StandardizedTransformer(hf, tokenizer=tok)
    with model.trace(PROMPT):
        scores = model.layers[0].self_attn.attention_scores.save()
        probs = model.layers[0].self_attn.attention_probabilities.save()
    assert scores.dtype == torch.float16
    torch.testing.assert_close(scores.float().softmax(-1).half(), probs, atol=2e-3, rtol=2e-3)
