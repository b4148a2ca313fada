"""Checks beyond the contract for the Llama-wired, sandwich, post-norm and Cohere families.

token_embeddings is what enters the first block wherever the model adds nothing between them (the
multipliers Granite, HyperCLOVA X and AFMoE apply are part of the value); nanochat, which norms the
embeddings first, is the exception its family module describes.
"""

import pytest
import torch

from nnterp import tiny
from nnterp.contract.conformance import PROMPT

#: (family, config overrides) whose token_embeddings must equal layers[0].layer_input exactly
ENTERS_FIRST_BLOCK = [
    ("granite", {}), ("granite_swa", {}), ("hyperclovax", {}), ("afmoe", {}), ("afmoe", {"mup_enabled": True}),
    ("gemma", {}), ("gemma2", {}), ("vaultgemma", {}), ("gemma4_unified_text", {}), ("qwen3", {}),
]


@pytest.mark.parametrize("family,overrides", ENTERS_FIRST_BLOCK,
                         ids=[f"{f}{'@' + ','.join(o) if o else ''}" for f, o in ENTERS_FIRST_BLOCK])
def test_token_embeddings_enter_the_first_block(family, overrides):
    model = tiny.load(family, attn_implementation="eager", **overrides)
    with model.trace(PROMPT):
        embeddings = model.token_embeddings.save()
        first = model.layers[0].layer_input.save()
    assert torch.equal(embeddings, first)


def test_nanochat_norms_the_embeddings_before_the_first_block():
    model = tiny.load("nanochat", attn_implementation="eager")
    with model.trace(PROMPT):
        embeddings = model.token_embeddings.save()
        first = model.layers[0].layer_input.save()
    assert torch.equal(model.norm._module(embeddings), first)


def test_beam_zeroing_attention_output_leaves_the_stream_as_it_entered():
    model = tiny.load("beam", attn_implementation="eager")
    with model.trace(PROMPT):
        x = model.layers[1].layer_input.save()
        model.layers[1].self_attn.attention_output[:] = 0
        mid = model.layers[1].layer_mid.save()
    torch.testing.assert_close(mid, x)


def test_gemma4_layer_scalar_multiplies_the_whole_block():
    model = tiny.load("gemma4_text", attn_implementation="eager")
    with torch.no_grad():
        model.layers[0]._module.layer_scalar.fill_(0.5)
    with model.trace(PROMPT):
        x = model.layers[0].layer_input.save()
        attention = model.layers[0].self_attn.attention_output.save()
        mlp = model.layers[0].mlp.mlp_output.save()
        out = model.layers[0].layer_output.save()
    torch.testing.assert_close((x + attention + mlp) * 0.5, out)


@pytest.mark.parametrize("family", ["granite", "granitemoe", "granitemoehybrid", "minicpm3", "falcon_h1"])
def test_each_head_s_share_carries_the_multiplier_the_block_applies_to_the_attention(family):
    """Granite (residual_multiplier), MiniCPM 3 (scale_depth / sqrt(num_layers)) and Falcon-H1
    (attention_out_multiplier) multiply the attention's output before the add: each head's contribution carries the
    multiplier, so the heads and the projection's bias times it add up to the attention's share of the stream (all of
    attention_output where the attention is the block's only mixer), not to o_proj's output."""
    model = tiny.load(family, attn_implementation="eager")
    model.instrument()
    i = next(i for i in range(model.num_layers) if model.serves("attention_head_contributions", i) is None)
    attention = model.layers[i].self_attn
    with model.trace(PROMPT):
        entering = model.layers[i].layer_input.save()
        heads = attention.attention_head_contributions.save()
        projected = attention.o_proj.output.save()
        added = attention.attention_output.save()
        mid = model.layers[i].layer_mid.save()
    multiplier = attention._nnterp_site("attention_head_contributions").scale(model.config)
    assert multiplier != 1
    bias = attention.o_proj._module.bias
    total = heads.sum(-2) + (0 if bias is None else bias * multiplier)
    # the projection's dot product cut into per-head partial sums: its width's roundings, relative to its terms
    tolerance = 8 * model.hidden_size * torch.finfo(heads.dtype).eps * float(projected.abs().max())
    assert (total - projected * multiplier).abs().max() <= tolerance
    assert (total - projected).abs().max() > 100 * tolerance
    if family != "falcon_h1":  # Falcon-H1's attention_output also holds its Mamba mixer's share
        assert (total - added).abs().max() <= tolerance
        assert (total - (mid - entering)).abs().max() <= tolerance
