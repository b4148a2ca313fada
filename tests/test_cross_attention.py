"""The cross-attention block kind (nnterp.declare.crossattention), on Llama 3.2 Vision's tiny model: the identity on each kind
of block, the cross-attention's keys over the image's positions, the gates, and a skipped block saying why."""

import pytest
import torch

from nnterp import tiny
from nnterp.declare.errors import NotCached, UnavailableValue
from nnterp.registry import family_for

NAME = "mllama_vision"
CROSS = 1  # the tiny recipe's cross_attention_layers


@pytest.fixture(scope="module")
def model():
    return tiny.load(NAME, attn_implementation="eager")


@pytest.fixture(scope="module")
def image():
    return tiny.image_call(NAME)


def _identities(report):
    return {r.where: r.ok for r in report.results if r.check.startswith("identity")}


def test_the_identity_holds_on_each_kind_of_block(model, image):
    kinds = {type(layer._module).__name__ for layer in model.layers}
    assert kinds == {"MllamaSelfAttentionDecoderLayer", "MllamaCrossAttentionDecoderLayer"}
    with_image = _identities(model.check(image, raise_on_failure=False))
    assert with_image == {f"layers[{i}]": True for i in range(model.num_layers)}
    text = model.check(None, raise_on_failure=False)
    assert text.ok, str(text)
    # on text the cross-attention block does not run: it is reported as skipped, with the reason, not checked
    assert f"layers[{CROSS}]" not in _identities(text)
    skipped = [r for r in text.results if r.where == f"layers[{CROSS}]" and "skip" in r.check]
    assert skipped and skipped[0].ok and "cross_attention_states" in skipped[0].detail


def test_the_cross_attentions_keys_span_the_image_and_its_queries_the_call(model, image):
    layer = model.layers[CROSS]
    with model.trace(image):
        states = model.model.multi_modal_projector.output.save()
        queries = layer.self_attn.attention_queries.save()
        keys = layer.self_attn.attention_keys.save()
        values = layer.self_attn.attention_values.save()
        pattern = layer.self_attn.attention_probabilities.save()
    image_positions, seq = states.shape[-2], image["input_ids"].shape[1]
    assert image_positions != seq
    assert queries.shape[2] == seq and pattern.shape[-2] == seq
    assert keys.shape[2] == values.shape[2] == pattern.shape[-1] == image_positions
    # the keys are the projected image features through k_proj and k_norm, heads first
    attention = layer.self_attn._module
    made = attention.k_norm(attention.k_proj(states).view(1, image_positions, -1, attention.head_dim).transpose(1, 2))
    torch.testing.assert_close(keys, made)


def _set_gates(model, value):
    with torch.no_grad():
        for name in ("cross_attn_attn_gate", "cross_attn_mlp_gate"):
            getattr(model.layers[CROSS]._module, name).fill_(value)


def test_with_the_gates_at_zero_the_block_leaves_the_stream_unchanged():
    model, image = tiny.load(NAME), tiny.image_call(NAME)
    layer = model.layers[CROSS]
    for value, unchanged in ((0.0, True), (0.5, False)):
        _set_gates(model, value)
        with model.trace(image):
            x = layer.layer_input.save()
            gate = layer.self_attn.attention_gate.save()
            attention = layer.self_attn.attention_output.save()
            mlp_gate = layer.mlp.mlp_gate.save()
            out = layer.layer_output.save()
        assert torch.equal(gate, torch.tanh(torch.tensor([value]))) and torch.equal(mlp_gate, gate)
        assert torch.equal(out, x) is unchanged
        assert bool(attention.any()) is not unchanged


def test_the_mlp_adds_nothing_on_the_rows_that_attend_no_image(model, image):
    with model.trace(image):
        added = model.layers[CROSS].mlp.mlp_output.save()
    first = int((image["cross_attention_mask"][0, :, 0, 0] == 1).nonzero()[0])
    assert first > 0 and not bool(added[:, :first].any()) and bool(added[:, first:].any())


def test_a_skipped_block_says_why_and_a_zero_gate_refuses_an_edit():
    model = tiny.load(NAME)
    with pytest.raises(UnavailableValue, match="does not run on this call: a cross-attention block"):
        with model.trace("The Eiffel Tower is"):
            model.layers[CROSS].self_attn.attention_keys.save()
    _set_gates(model, 0.0)
    with pytest.raises(UnavailableValue, match="tanh\\(0\\) = 0"):
        with model.trace(tiny.image_call(NAME)):
            model.layers[CROSS].self_attn.attention_output[:] = 1.0
            model.logits.save()


def test_a_cache_keeps_the_cross_attention_block_on_a_call_with_an_image_only(model, image):
    text = model.cache("The Eiffel Tower is")
    with pytest.raises(NotCached, match="the call skips this block: a cross-attention block"):
        text.layers[CROSS].self_attn.attention_keys
    cached = model.cache(image)
    with model.trace(image):
        keys = model.layers[CROSS].self_attn.attention_keys.save()
    assert torch.equal(cached.layers[CROSS].self_attn.attention_keys, keys)


def test_a_self_attention_block_has_no_gate(model):
    with pytest.raises(UnavailableValue, match="through no gate"):
        with model.trace("The Eiffel Tower is"):
            model.layers[0].self_attn.attention_gate.save()


def test_the_conditional_generation_class_is_the_wrappers_and_the_causal_lm_the_text_familys():
    config = tiny.config(NAME)
    assert family_for(config, "MllamaForConditionalGeneration").name == NAME
    assert family_for(config, "MllamaForCausalLM").name == "mllama"

