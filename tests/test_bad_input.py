"""Every misuse gets one sentence that names the fix, and a failed trace leaves the model as it was."""

import pytest
import torch
from transformers import BertConfig, BertLMHeadModel

from nnterp import (
    ConditionedValue, LayoutMismatch, NnterpError, OrderError, ReadOnlyValue, StandardizedTransformer,
    UnavailableValue, UnknownArchitecture, UnknownName, tiny,
)

from conftest import same_snapshot, snapshot


def one_sentence(error):
    text = str(error)
    assert "\n" not in text and len(text) < 600 and "Module(" not in text
    return text


def test_unknown_architecture():
    config = BertConfig(num_hidden_layers=1, hidden_size=32, num_attention_heads=2, intermediate_size=64,
                        vocab_size=300, is_decoder=True)
    with pytest.raises(UnknownArchitecture) as error:
        StandardizedTransformer(BertLMHeadModel(config), tokenizer=tiny.tokenizer())
    text = one_sentence(error.value)
    assert "BertLMHeadModel" in text and "llama" in text and "nnterp/families/bert.py" in text


def test_misspelled_value_names_the_nearest(phi, prompt):
    with pytest.raises(UnknownName, match="did you mean 'layer_output'"):
        with phi.trace(prompt):
            phi.layers[0].layer_ouput.save()
    with pytest.raises(AttributeError, match="did you mean 'attention_scores'"):
        phi.layers[0].self_attn.attention_score
    assert not hasattr(phi.layers[0], "layer_ouput")


def test_unavailable_value_says_why(phi, prompt):
    with pytest.raises(UnavailableValue) as error:
        with phi.trace(prompt):
            phi.layers[0].layer_mid.save()
    assert "parallel block" in one_sentence(error.value)


def test_conditioned_value_names_the_load(llama_sdpa, prompt):
    with pytest.raises(ConditionedValue) as error:
        with llama_sdpa.trace(prompt):
            llama_sdpa.layers[0].self_attn.attention_scores.save()
    text = one_sentence(error.value)
    assert "attn_implementation='eager'" in text and "nn_functional_softmax_0 inside attention_interface_1" in text


def test_wrong_shape_and_dtype_writes_name_the_layout(llama, prompt):
    with pytest.raises(LayoutMismatch, match=r"Residual \[batch seq hidden_size\] = \[1, \d+, 64\]; got \[3\]"):
        with llama.trace(prompt):
            llama.layers[0].mlp.mlp_output = torch.zeros(3)
    with pytest.raises(LayoutMismatch, match="cast it with"):
        with llama.trace(prompt):
            out = llama.layers[0].mlp.mlp_output
            llama.layers[0].mlp.mlp_output = torch.zeros(out.shape, dtype=torch.float64)


def test_read_only_values(llama, prompt):
    for name in ("next_token_probs", "input_size"):
        with pytest.raises(ReadOnlyValue, match="read-only"):
            with llama.trace(prompt):
                setattr(llama, name, torch.zeros(1))


def test_out_of_order_read_is_explained(llama, prompt):
    with pytest.raises(OrderError) as error:
        with llama.trace(prompt):
            llama.layers[1].layer_output.save()
            llama.layers[0].layer_output.save()
    assert "order the forward computes them" in one_sentence(error.value)


def test_value_outside_a_trace(llama):
    with pytest.raises(NnterpError, match="served inside a trace"):
        llama.layers[0].layer_output


def test_failed_trace_leaves_the_model_as_it_was(llama, prompt):
    before = snapshot(llama)
    with llama.trace(prompt):
        reference = llama.logits.save()
    with pytest.raises(ZeroDivisionError):
        with llama.trace(prompt):
            llama.layers[0].self_attn.attention_output[:] = 0
            llama.layers[1].mlp.mlp_output[:] = 1.0 / 0 if False else llama.layers[1].mlp.mlp_output * 2
            1 / 0
    with pytest.raises(LayoutMismatch):
        with llama.trace(prompt):
            llama.layers[0].layer_output = torch.zeros(2)
    assert same_snapshot(before, snapshot(llama))
    with llama.trace(prompt):
        after = llama.logits.save()
    assert torch.equal(reference, after)


def test_a_batch_the_model_cannot_take_is_refused_with_the_reason():
    """Reformer computes its own positions, so a left-padded batch (which needs position_ids) is refused before
    the forward, and the model runs the next trace as before."""
    model = tiny.load("reformer")
    before = snapshot(model)
    with pytest.raises(NnterpError) as error:
        with model.trace() as tracer:
            with tracer.invoke("Paris"):
                model.logits.save()
            with tracer.invoke("The Eiffel Tower is in the city of"):
                model.logits.save()
    text = one_sentence(error.value)
    assert "position_ids" in text and "one length" in text
    assert same_snapshot(snapshot(model), before)
    with model.trace() as tracer:
        with tracer.invoke("Paris is"):
            first = model.logits.save()
        with tracer.invoke("Paris is"):
            second = model.logits.save()
    assert torch.equal(first, second)
