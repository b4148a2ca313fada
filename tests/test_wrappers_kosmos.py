"""Kosmos-2 and Kosmos-2.5: the image rows enter where image_embeds_position_mask says, whatever ids sit there, and
the two language stacks differ in the attention's sub-LayerNorm."""

import pytest
import torch

from nnterp import tiny
from nnterp.contract.numerics import assert_close
from nnterp.declare.errors import BatchRefused


@pytest.mark.parametrize("name", ["kosmos-2", "kosmos-2.5"])
def test_the_image_rows_go_where_the_position_mask_says_not_where_a_token_id_is(name):
    """The processor marks the image rows in image_embeds_position_mask; the forward writes the rows there, over
    whatever embeddings the ids at those positions have, so other ids there change nothing the stream holds."""
    model = tiny.load(name)
    inputs = tiny.image_call(name)
    marked = inputs["image_embeds_position_mask"].bool()
    other_ids = {**inputs, "input_ids": inputs["input_ids"].masked_fill(marked, 5)}
    with model.trace(inputs):
        mask = model.image_mask.save()
        features = model.image_features.save()
        added = model.text_model.model.embed_positions.output.save()
        entering = model.layers[0].layer_input.save()
        logits = model.logits.save()
    with model.trace(other_ids):
        other_mask = model.image_mask.save()
        other_logits = model.logits.save()
    assert torch.equal(mask, marked) and torch.equal(other_mask, marked)
    assert torch.equal(logits, other_logits)
    # at the image positions the first block takes the rows (times the embedding scale) plus what the stack adds
    # past them: its positions (and Kosmos-2.5's segment row, added into the positions' tensor in place)
    assert features.shape[0] == int(marked.sum()) and not torch.equal(features[0], features[1])
    assert_close(entering[mask] - features, added[mask], length=2, magnitude=float(entering.abs().max()))


@pytest.mark.parametrize("name, normed", [("kosmos-2", True), ("kosmos-2.5", False)])
def test_out_proj_takes_the_heads_layer_normed_on_kosmos_2_only(name, normed):
    """Kosmos-2's attention LayerNorms its heads' outputs side by side (inner_attn_ln) before out_proj, so
    attention_premix is that norm of attention_head_outputs; Kosmos-2.5's attention has no such norm."""
    model = tiny.load(name, attn_implementation="eager")
    inputs = tiny.image_call(name)
    with model.trace(inputs):
        heads = model.layers[0].self_attn.attention_head_outputs.save()
        premix = model.layers[0].self_attn.attention_premix.save()
    side_by_side = heads.flatten(-2)
    if not normed:
        assert torch.equal(premix.flatten(-2), side_by_side)
        return
    norm = model._module.text_model.model.layers[0].self_attn.inner_attn_ln
    expected = torch.nn.functional.layer_norm(side_by_side, norm.normalized_shape, norm.weight, norm.bias, norm.eps)
    assert not torch.equal(premix.flatten(-2), side_by_side)
    assert_close(premix.flatten(-2), expected, length=model.hidden_size)


def test_a_left_padded_batch_is_refused_its_positions_being_no_rows_of_the_table():
    """Kosmos-2.5 takes position_ids as rows of its sinusoid table, counted past pad_token_id: the 0-based ids a
    left-padded batch needs would move a short prompt's positions, so such a batch is refused."""
    model = tiny.load("kosmos-2.5")
    with pytest.raises(BatchRefused, match="position_ids"):
        with model.trace(["The Eiffel Tower is in the city of", "Hello"]):
            model.logits.save()
