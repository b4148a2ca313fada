"""ERNIE 4.5 VL routes text and image positions to experts of their own: with moe_mm_token_type_ids, the router
values are each position's own router's, the vision experts run on the image rows only, and an edit reaches the
image positions' routing while one of a text position's row, whose experts already ran, is refused."""

import pytest
import torch

from nnterp import tiny
from nnterp.contract.conformance import read_block
from nnterp.declare.errors import OrderError

NAME = "ernie4_5_vl_moe"


@pytest.fixture(scope="module")
def model():
    return tiny.load(NAME, attn_implementation="eager")


def _marked_call():
    """The tiny image call with the processor's moe_mm_token_type_ids: the image positions and their brackets."""
    inputs = tiny.image_call(NAME)
    config = tiny.config(NAME)
    ids = inputs["input_ids"]
    marked = (ids == config.image_token_id) | (ids == config.image_start_token_id) | (ids == config.image_end_token_id)
    return {**inputs, "moe_mm_token_type_ids": marked.long()}, marked


def test_each_position_is_routed_by_its_own_router_and_the_vision_experts_take_the_image_rows(model):
    inputs, marked = _marked_call()
    block = model.layers[1]
    with model.trace(inputs):  # the served values; the native ones, in the forward's order, in a second run
        logits = block.mlp.router_logits.save()
        choices = block.mlp.router_choices.save()
    with model.trace(inputs):
        entering = block.mlp.input.save()
        text_logits = block.mlp.text_moe.gate.output[0].save()
        text_rows = block.mlp.text_moe.experts.inputs[0][0].save()
        vision_logits = block.mlp.vision_moe.gate.output[0].save()
        vision_rows = block.mlp.vision_moe.experts.inputs[0][0].save()
    flat = marked.reshape(-1)
    assert vision_rows.shape[0] == int(flat.sum()) and text_rows.shape[0] == int((~flat).sum())
    assert torch.equal(vision_rows, entering[marked]) and torch.equal(text_rows, entering[~marked])
    assert torch.equal(logits[marked], vision_logits) and torch.equal(logits[~marked], text_logits)
    assert bool((choices >= 0).all()) and bool((choices < model.num_experts).all())


def test_without_token_types_the_text_router_routes_every_position(model):
    inputs = tiny.image_call(NAME)
    with model.trace(inputs):
        logits = model.layers[1].mlp.router_logits.save()
    with model.trace(inputs):
        text_logits = model.layers[1].mlp.text_moe.gate.output[0].save()
    assert torch.equal(logits.reshape(-1, logits.shape[-1]), text_logits)


def test_an_edit_reaches_the_image_positions_routing_and_one_of_a_text_row_is_refused(model):
    inputs, marked = _marked_call()
    with model.trace(inputs):
        base = model.logits.save()
    with model.trace(inputs):
        weights = model.layers[1].mlp.router_weights
        weights[marked] = 0
        edited = model.layers[1].mlp.vision_moe.experts.inputs[0][2].save()
        logits = model.logits.save()
    assert not bool(edited.any())  # the vision experts were handed the zeroed weights
    assert not marked[0, 0] and torch.equal(logits[0, 0], base[0, 0])  # before the image: causally untouched
    assert not torch.equal(logits, base)
    with pytest.raises(OrderError, match="edit only the marked positions' rows"):
        with model.trace(inputs):
            model.layers[1].mlp.router_logits[:] = 0
            model.logits.save()


def test_the_router_values_of_each_generated_step_are_that_step_s(model):
    """A generation passes the block once per step: each step's router values are held afresh, the prompt's from
    both routers, a generated token's from the text router alone."""
    inputs, marked = _marked_call()
    with model.generate(inputs, max_new_tokens=2, do_sample=False) as tracer:
        steps = list().save()
        for step in tracer.iter[:]:
            steps.append(model.layers[1].mlp.router_logits)
    with model.trace(inputs):
        prompt = model.layers[1].mlp.router_logits.save()
    assert torch.equal(steps[0], prompt)
    assert [tuple(step.shape[:2]) for step in steps] == [tuple(marked.shape), (1, 1)]


def test_every_value_of_a_routed_block_reads_in_one_run_in_the_forward_order(model):
    """The contract's read of a block, every value in the forward's order, on a call routed by both routers: the
    router values are [batch seq ...] and the block still sums to its output."""
    inputs, marked = _marked_call()
    values = read_block(model, 1, inputs)
    seq = marked.shape[1]
    assert values["router_logits"].shape == (1, seq, model.num_experts)
    assert values["router_weights"].shape == values["router_choices"].shape == (1, seq, model.num_experts_per_token)
    total = values["layer_input"] + values["attention_output"] + values["mlp_output"]
    assert torch.equal(total, values["layer_output"])
