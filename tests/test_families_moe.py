"""Router values on the MoE families: layouts on a batch, and what they mean against each other."""

import pytest
import torch

from nnterp import tiny

PROMPTS = ["The Eiffel Tower is in the city of", "Hello world"]


def _moe_block(model):
    return next(i for i in range(model.num_layers) if hasattr(model.layers[i].mlp._module, "experts"))


@pytest.mark.parametrize("family", ["mixtral", "deepseek_v3", "llama4_text"])
def test_router_values_are_batch_seq_laid_out(family):
    model = tiny.load(family)
    i = _moe_block(model)
    mlp = model.layers[i].mlp
    with model.trace(PROMPTS):
        ids = model.input_ids.save()
        logits = mlp.router_logits.save()
        choices = mlp.router_choices.save()
        weights = mlp.router_weights.save()
    batch, seq = ids.shape
    assert batch == 2
    assert tuple(logits.shape) == (batch, seq, model.num_experts)
    assert tuple(choices.shape) == (batch, seq, model.num_experts_per_token)
    assert tuple(weights.shape) == (batch, seq, model.num_experts_per_token)
    assert choices.dtype == torch.long and bool(((choices >= 0) & (choices < model.num_experts)).all())


def test_mixtral_weights_are_the_renormalized_softmax_at_the_choices():
    model = tiny.load("mixtral")
    mlp = model.layers[0].mlp
    with model.trace(PROMPTS[0]):
        logits = mlp.router_logits.save()
        choices = mlp.router_choices.save()
        weights = mlp.router_weights.save()
    probabilities = logits.float().softmax(-1)
    top = probabilities.topk(model.num_experts_per_token, dim=-1)
    assert torch.equal(top.indices, choices)
    torch.testing.assert_close(top.values / top.values.sum(-1, keepdim=True), weights.float())


def test_llama4_weights_are_the_sigmoid_of_the_chosen_logits():
    model = tiny.load("llama4_text")
    mlp = model.layers[0].mlp
    with model.trace(PROMPTS[0]):
        logits = mlp.router_logits.save()
        choices = mlp.router_choices.save()
        weights = mlp.router_weights.save()
    top = logits.topk(model.num_experts_per_token, dim=-1)
    assert torch.equal(top.indices, choices)
    torch.testing.assert_close(top.values.sigmoid(), weights)


def test_an_edited_router_logit_changes_the_choice():
    model = tiny.load("mixtral")
    mlp = model.layers[0].mlp
    with model.trace(PROMPTS[0]):
        logits = mlp.router_logits
        logits[..., 3] = 100.0  # every position now prefers expert 3
        choices = mlp.router_choices.save()
    assert bool((choices[..., 0] == 3).all())


def test_dense_blocks_refuse_router_values_with_a_reason():
    model = tiny.load("deepseek_v3")  # first_k_dense_replace=1: block 0 is dense
    with pytest.raises(Exception, match="dense MLP block"):
        with model.trace(PROMPTS[0]):
            model.layers[0].mlp.router_logits.save()
