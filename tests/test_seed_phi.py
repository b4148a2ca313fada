"""What the Phi page says beyond its snippets (those run, and must pass, when the encyclopedia is built:
tests/test_encyclopedia.py), checked on a tiny Phi."""

import torch

from nnterp import StandardizedTransformer, tiny


def test_partial_rotary_leaves_the_rest_unrotated(phi, prompt):
    model = phi
    with model.trace(prompt):
        q_raw = model.layers[1].self_attn.source.self_q_proj_0.output.save()
        q = model.layers[1].self_attn.attention_queries.save()

    b, s, _ = q_raw.shape
    q_pre = q_raw.view(b, s, model.num_heads, model.head_dim).transpose(1, 2)
    rot = int(model.head_dim * model.config.rope_parameters["partial_rotary_factor"])
    assert rot == model.head_dim // 2
    assert torch.equal(q_pre[..., rot:], q[..., rot:])   # past rot: no rotation
    assert not torch.equal(q_pre[..., :rot], q[..., :rot])


def test_scale_and_softmax(phi, prompt):
    model = phi
    with model.trace(prompt):
        q = model.layers[1].self_attn.attention_queries.save()
        k = model.layers[1].self_attn.attention_keys.save()
        scores = model.layers[1].self_attn.attention_scores.save()
        probs = model.layers[1].self_attn.attention_probabilities.save()
    n = scores.shape[-1]
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    again = q @ k.transpose(-1, -2) * model.head_dim ** -0.5
    torch.testing.assert_close(again[..., causal], scores[..., causal])
    torch.testing.assert_close(scores.softmax(-1), probs)
    assert k.shape[1] == model.num_heads  # keys and values have num_heads heads


def test_readout_bias_and_constant_logit_vector(phi, prompt):
    model = phi
    with model.trace(prompt):
        last = model.layers[-1].layer_output.save()
        head = model.lm_head.output.save()
        logits = model.logits.save()
    assert torch.equal(logits, head)
    assert torch.equal(model.project_on_vocab(last), logits)
    bias_logits = model.lm_head.weight @ model.norm.bias + model.lm_head.bias
    assert bias_logits.shape == (model.vocab_size,)
    # the constant vector is what a lens adds for a zero-centred, zero-variance stream
    torch.testing.assert_close(model.project_on_vocab(torch.zeros(1, 1, model.hidden_size))[0, 0], bias_logits)
    assert model.embed_tokens.weight is not model.lm_head.weight


def test_tokenizer_snippet_runs(phi):
    ids = phi.tokenizer("    return x").input_ids
    assert ids and all(isinstance(i, int) for i in ids)


def test_real_loading_path_with_the_page_arguments(tmp_path, prompt):
    """The page's load line, on a local directory (no hub here): eager, bfloat16, dispatched."""
    hf, tok = tiny.build("phi")
    hf.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    model = StandardizedTransformer(str(tmp_path), dispatch=True, attn_implementation="eager", dtype=torch.bfloat16)
    assert model.attn_implementation == "eager" and next(model._module.parameters()).dtype == torch.bfloat16
    with model.trace(prompt):
        p = model.layers[0].self_attn.attention_probabilities.save()
    assert p.dtype == torch.bfloat16 and torch.isfinite(p).all()


def test_family_config_facts(phi):
    assert phi.config.qk_layernorm is False
    assert not hasattr(phi.layers[0], "post_attention_layernorm")
