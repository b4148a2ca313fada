"""QK attributions: a head's pre-softmax score split over the replacement model's source nodes, query side × key
side, whose pairs and bias terms give back the model's own score (its rotary, its scale, its soft cap, ALiBi's
bias); and the check fails where one side's norm scale is left live or the rotary is skipped."""

import pytest
import torch

import nnterp.tools.frozen as frozen_module
import nnterp.tools.qk as qk_module
from nnterp import tiny
from nnterp.tools._common import ToolError
from nnterp.tools.graph import IncompleteGraph
from nnterp.tools.graph_sweep import transcoders
from nnterp.tools.qk import qk_attribution, qk_tolerance

PROMPT = "The Eiffel Tower is in"


def _models_scores(model, layer, head, query):
    """The scores as a plain trace reads them, without the tool: a circuit-tracer prompt (BOS first)."""
    ids = frozen_module.circuit_tracer_tokens(model, PROMPT)[None]
    with model.trace(ids):
        scores = model.layers[layer].self_attn.attention_scores[0, head, query].save()
    return scores.detach()


#: llama (rotary), gemma2 (soft cap, query_pre_attn_scalar), qwen3 (a norm on each head's queries and keys),
#: bloom (ALiBi: a term of the positions alone), phi (one norm for the attention and the MLP, partial rotary),
#: gpt_neox_japanese (its scale a divisor, norm_factor)
@pytest.mark.parametrize("family", ["llama", "gemma2", "qwen3", "bloom", "phi", "gpt_neox_japanese"])
def test_the_pairs_and_the_bias_terms_give_back_the_models_score(family):
    model = tiny.load(family, attn_implementation="eager")
    layer, head = model.num_layers - 1, 1
    found = qk_attribution(model, transcoders(model), PROMPT, layer, head, keys=[3, 6])
    scores = _models_scores(model, layer, head, -1)
    tolerance = qk_tolerance(model, layer, torch.float32)
    for one, key in zip(found, (3, 6)):
        assert one.key == key and one.score == float(scores[key])
        assert one.residual < tolerance
        # the marginals are the pairs summed one way, with the other side's constant
        assert torch.allclose(one.query_marginals().sum() + one.key_with_query_bias.sum() + one.bias,
                              torch.tensor(one.raw, dtype=torch.float64))
        assert torch.allclose(one.key_marginals().sum() + one.query_with_key_bias.sum() + one.bias,
                              torch.tensor(one.raw, dtype=torch.float64))
        assert len(one.query_nodes) > 1 and len(one.key_nodes) > 1 and one.pairs.abs().sum() > 0
    if family == "bloom":  # ALiBi's bias: no query or key carries it
        assert found[0].position != 0
    if family == "gemma2":
        assert found[0].softcap == model.config.attn_logit_softcapping


def test_the_top_keys_are_those_the_head_attends_to_most_and_a_masked_key_is_refused():
    model = tiny.load("llama", attn_implementation="eager")
    saes = transcoders(model)
    found = qk_attribution(model, saes, PROMPT, 1, 0, query=4, top_k=2)
    with model.trace(frozen_module.circuit_tracer_tokens(model, PROMPT)[None]):
        pattern = model.layers[1].self_attn.attention_probabilities[0, 0, 4].save()
    assert [one.key for one in found] == pattern.topk(2).indices.tolist()
    assert [one.probability for one in found] == pytest.approx(pattern.topk(2).values.tolist())
    top = found[0].top(3)
    assert len(top) == 3 and abs(top[0][2]) >= abs(top[1][2]) >= abs(top[2][2])
    with pytest.raises(ToolError, match=r"key position 6 is masked for query position 4 at block 1"):
        qk_attribution(model, saes, PROMPT, 1, 0, query=4, keys=6)


def test_a_key_norm_scale_left_live_is_caught(monkeypatch):
    """The attention norm's scale frozen at every position but the key's, which the pass computes from its own
    stream: the key is no longer affine in the sources and the terms no longer give back the score."""
    model = tiny.load("llama", attn_implementation="eager")
    layer, key = 1, 3
    original = frozen_module.frozen_attention

    def live_at_the_key(model, frozen, i, rows, between=None):
        if i != layer:
            return original(model, frozen, i, rows, between)
        block = model.layers[i]
        live = block.attention_norm_scale
        fixed = frozen_module._rows(frozen.attention_scales[i], rows)
        block.attention_norm_scale = torch.cat([fixed[:, :key], live[:, key:key + 1], fixed[:, key + 1:]], 1)
        if between is not None:
            between()
        block.self_attn.attention_probabilities = frozen_module._rows(frozen.patterns[i], rows)

    saes = transcoders(model)
    assert qk_attribution(model, saes, PROMPT, layer, 1, keys=key)[0].residual < 1e-6  # frozen: complete
    sources = qk_module.replacement_sources

    def then_live(*args):  # past the graph's own probe (first_nonlinear), which refuses a live scale as well
        found = sources(*args)
        monkeypatch.setattr(frozen_module, "frozen_attention", live_at_the_key)
        return found

    monkeypatch.setattr(qk_module, "replacement_sources", then_live)
    with pytest.raises(IncompleteGraph, match=r"llama's QK attribution of head 1 at block 1 is not complete"):
        qk_attribution(model, saes, PROMPT, layer, 1, keys=key)  # 8.1e-4 of the magnitude, against 6.9e-5


def test_skipping_the_rotary_is_caught(monkeypatch):
    """The queries and keys before the rotary: their product is not the model's score, so it is refused."""
    model = tiny.load("llama", attn_implementation="eager")
    monkeypatch.setattr(qk_module, "QUERIES", "attention_queries_unrotated")
    monkeypatch.setattr(qk_module, "KEYS", "attention_keys_unrotated")
    with pytest.raises(ToolError, match=r"llama's attention_scores at block 1 are not a scale times the queries'"):
        qk_attribution(model, transcoders(model), PROMPT, 1, 1, keys=3)


def test_the_soft_cap_is_applied_to_the_bilinear_sum(monkeypatch):
    """Gemma 2 with a cap small enough to bend its scores: the terms give the score back through cap · tanh(x / cap);
    read as if uncapped, the scores are refused."""
    model = tiny.load("gemma2", attn_implementation="eager", attn_logit_softcapping=0.002)
    saes = transcoders(model)
    (one,) = qk_attribution(model, saes, PROMPT, 1, 1, keys=3)
    assert one.softcap == 0.002 and abs(one.raw) > one.softcap  # the cap bends this score
    assert one.residual < qk_tolerance(model, 1, torch.float32)
    monkeypatch.setattr(model.config, "attn_logit_softcapping", None)
    with pytest.raises(ToolError, match=r"gemma2's attention_scores at block 1 are not a scale times"):
        qk_attribution(model, saes, PROMPT, 1, 1, keys=3)
