"""What the GPT-NeoX-Japanese page says beyond its snippets (those run, and must pass, when the encyclopedia is
built: tests/test_encyclopedia.py), checked on a tiny model."""

import pytest
import torch

from nnterp import LoadOptionRefused, tiny


def test_last_block_bias_is_part_of_attention_output(neox_jp, prompt):
    model = neox_jp
    last = model.layers[-1]
    bias = last.self_attn._module.dense_bias

    with model.trace(prompt):
        module = last.self_attn.output[0].save()
        attn = last.self_attn.attention_output.save()

    assert torch.equal(attn, module + bias)
    assert model.layers[0].self_attn._module.dense_bias is None


def test_identity_bit_identical_on_every_block(neox_jp, prompt):
    model = neox_jp
    for i in range(model.num_layers):
        with model.trace(prompt):
            x = model.layers[i].input.save()
            attn = model.layers[i].self_attn.attention_output.save()
            mlp = model.layers[i].mlp.mlp_output.save()
            out = model.layers[i].layer_output.save()
        assert torch.equal(x + attn + mlp, out)


def test_reading_the_sum_leaves_the_forward_bit_identical(neox_jp, prompt):
    model = neox_jp
    with model.trace(prompt):
        before = model.logits.save()
    with model.trace(prompt):
        model.layers[-1].self_attn.attention_output.save()
        after = model.logits.save()
    assert torch.equal(before, after)


def test_edit_carried_back_minus_the_bias(neox_jp, prompt):
    model = neox_jp
    last = model.layers[-1]
    bias = last.self_attn._module.dense_bias
    with model.trace(prompt):
        last.self_attn.attention_output[:] = 0
        module_inplace = last.self_attn.output[0].save()
        logits_inplace = model.logits.save()
    with model.trace(prompt):
        last.self_attn.attention_output = torch.zeros_like(last.self_attn.attention_output)
        module_assigned = last.self_attn.output[0].save()
        logits_assigned = model.logits.save()
    assert torch.equal(module_inplace, -bias.expand_as(module_inplace))
    assert torch.equal(module_assigned, module_inplace) and torch.equal(logits_assigned, logits_inplace)
    # zeroing the module's own output leaves the bias in the stream; zeroing attention_output removes both
    with model.trace(prompt):
        x = last.input.save()
        last.self_attn.output[0][:] = 0
        mid = last.post_attention_layernorm.input.save()
    torch.testing.assert_close(mid, x + bias)
    with model.trace(prompt):
        x = last.input.save()
        last.self_attn.attention_output[:] = 0
        mid = last.post_attention_layernorm.input.save()
    assert torch.equal(mid, x)


def test_interior_needs_no_eager_load(neox_jp, prompt):
    model = neox_jp
    with model.trace(prompt):
        q = model.layers[1].self_attn.attention_queries.save()
        k = model.layers[1].self_attn.attention_keys.save()
        scores = model.layers[1].self_attn.attention_scores.save()

    n = scores.shape[-1]
    causal = torch.ones(n, n, dtype=torch.bool, device=scores.device).tril()
    again = q @ k.transpose(-1, -2) / model.head_dim ** 0.5
    torch.testing.assert_close(again[..., causal], scores[..., causal])
    assert (scores[..., ~causal] == torch.finfo(scores.dtype).min).all()  # the mask holds the dtype's minimum
    # every value is served but the one the structure has not: an ungated MLP has no up projection (the
    # unrotated queries and keys are the permuted heads the rotary dims are cut from)
    unserved = {row.name for row in model.support() if row.status != "served"}
    assert unserved == {"mlp_up"}


def test_sdpa_is_refused_in_a_sentence():
    hf, tok = tiny.build("gpt_neox_japanese")
    from nnterp import StandardizedTransformer

    with pytest.raises(LoadOptionRefused, match="gpt_neox_japanese cannot run attn_implementation='sdpa'"):
        StandardizedTransformer(hf, tokenizer=tok, attn_implementation="sdpa")
