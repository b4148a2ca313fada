"""IDEFICS: its gated cross-attention blocks are a second module list that IdeficsModel's forward runs before every
cross_layer_interval-th block, and model.layers is nnterp's view of both lists in forward order (blocks.Interleaved,
envoys.Blocks): the stream passes from each block to the next across the interleaving, a cross-attention block's
keys span the image's positions, its gates are tanh of its parameters, and an edit of what it adds reaches the
logits as the arithmetic says."""

import pytest
import torch

from conftest import assert_the_stream_passes_block_to_block
from nnterp import tiny
from nnterp.contract.numerics import assert_close
from nnterp.declare.errors import BadIndex, UnavailableValue
from nnterp.runtime.bridge import logging_visits

NAME = "idefics"
#: the tiny recipe's four self-attention blocks with a cross-attention block before every second
ORDER = ["gated_cross_attn_layers.0", "layers.0", "layers.1", "gated_cross_attn_layers.1", "layers.2", "layers.3"]
CROSS = (0, 3)


@pytest.fixture(scope="module")
def model():
    return tiny.load(NAME, attn_implementation="eager")


@pytest.fixture(scope="module")
def image():
    return tiny.image_call(NAME)


def test_layers_are_both_module_lists_in_forward_order_and_nothing_is_added_to_the_model(image):
    native, tok = tiny.build(NAME)
    keys = list(native.state_dict())
    modules = [name for name, _ in native.named_modules()]
    from nnterp import StandardizedTransformer

    model = StandardizedTransformer(native, tokenizer=tok)
    assert list(native.state_dict()) == keys and [name for name, _ in native.named_modules()] == modules
    assert model.num_layers == len(model.layers) == 6
    assert [layer.path[len("model.model."):] for layer in model.layers] == ORDER
    assert model.layers[0]._module is native.model.gated_cross_attn_layers[0]
    assert model.layers[-1]._module is native.model.layers[3] and model.layers[1:3][0]._module is native.model.layers[0]
    # the forward enters the blocks in the view's order
    with logging_visits(model) as log, model.trace(image):
        model.logits.save()
    entered = [log.index(f"{layer.path}.input") for layer in model.layers]
    assert entered == sorted(entered)
    with pytest.raises(BadIndex, match="it holds 6 blocks, index 0 to 5"):
        model.layers[6]


def test_the_stream_passes_from_each_block_to_the_next_across_the_interleaving(model, image):
    assert_the_stream_passes_block_to_block(model, image)


def test_a_cross_attention_blocks_keys_span_the_images_positions(model, image):
    layer = model.layers[CROSS[0]]
    with model.trace(image):
        states = model.model.perceiver_resampler.output.save()
        queries = layer.self_attn.attention_queries.save()
        keys = layer.self_attn.attention_keys.save()
        pattern = layer.self_attn.attention_probabilities.save()
    positions, seq = states.shape[-2], image["input_ids"].shape[1]
    assert positions == 3 != seq  # the perceiver's latents, one image
    assert queries.shape[2] == pattern.shape[-2] == seq and keys.shape[2] == pattern.shape[-1] == positions
    attention = layer.self_attn._module
    made = attention.k_proj(states).view(1, positions, attention.num_heads, attention.head_dim).transpose(1, 2)
    torch.testing.assert_close(keys, made, rtol=0, atol=0)
    # a self-attention block's keys are the call's
    with model.trace(image):
        own = model.layers[1].self_attn.attention_keys.save()
    assert own.shape[2] == seq


@pytest.mark.parametrize("alpha_type", ["float", "vector"])
def test_the_gates_are_the_activation_of_their_parameters(alpha_type, image):
    model = tiny.load(NAME, alpha_type=alpha_type)
    for i in CROSS:
        block = model.layers[i]._module
        with model.trace(image):
            attention_gate = model.layers[i].self_attn.attention_gate.save()
            mlp_gate = model.layers[i].mlp.mlp_gate.save()
        # one entry, or one per channel: the [1 1 hidden_size] parameter's entries in order
        assert attention_gate.shape == ((1,) if alpha_type == "float" else (model.hidden_size,))
        assert torch.equal(attention_gate, block.act_cross_attn(block.alpha_cross_attn).flatten())
        assert torch.equal(mlp_gate, block.act_dense(block.alpha_dense).flatten())
        assert torch.equal(attention_gate, torch.tanh(block.alpha_cross_attn).flatten())
    with pytest.raises(UnavailableValue, match="through no gate"):
        with model.trace(image):
            model.layers[1].self_attn.attention_gate.save()
    assert model.check(image, raise_on_failure=False).ok


def test_the_cross_attention_adds_nothing_on_the_rows_that_attend_no_image(model, image):
    with model.trace(image):
        added = model.layers[CROSS[0]].self_attn.attention_output.save()
        mlp = model.layers[CROSS[0]].mlp.mlp_output.save()
    first = int(image["image_attention_mask"][0, :, 0].nonzero()[0])
    assert first > 0 and not bool(added[:, :first].any()) and bool(added[:, first:].any(-1).all())
    assert bool(mlp[:, :first].any())  # the MLP runs on every row


def test_an_edit_of_what_a_cross_attention_block_adds_reaches_the_logits_as_the_arithmetic_says(image):
    """Zeroing a cross-attention block's attention_output is, bit for bit, the run whose gate alpha_cross_attn is 0:
    the edit is carried back divided by tanh(alpha_cross_attn), and 0 / g * g is 0 as 0 * o is."""
    model = tiny.load(NAME)
    i = CROSS[1]
    with model.trace(image):
        before = model.layers[i].layer_input.save()
        model.layers[i].self_attn.attention_output[:] = 0
        mid = model.layers[i].layer_mid.save()
        edited = model.logits.save()
    assert torch.equal(mid, before)
    native, _ = tiny.build(NAME)
    with torch.no_grad():
        native.model.gated_cross_attn_layers[1].alpha_cross_attn.zero_()
        expected = native(**image).logits
    assert torch.equal(edited, expected)
    # a doubling adds the block's contribution once more: layer_mid is its input plus twice what it added
    with model.trace(image):
        x = model.layers[i].layer_input.save()
        added = model.layers[i].self_attn.attention_output.save()
    with model.trace(image):
        model.layers[i].self_attn.attention_output[:] = 2 * model.layers[i].self_attn.attention_output
        doubled = model.layers[i].layer_mid.save()
        logits = model.logits.save()
    # carried back divided by the gate and multiplied by it again, then added: three roundings, and one add here
    assert_close(doubled, x + 2 * added, length=4, magnitude=float((x.abs() + 2 * added.abs()).max().detach()))
    assert not torch.equal(logits, edited)


def test_a_cache_keeps_the_blocks_by_their_place_in_layers(image):
    # a fresh model, cached before any trace: the cache instruments both forwards a cross-attention block's
    # attention values are read in (its own for the softmax, its block's for attention_output)
    model = tiny.load(NAME, attn_implementation="eager")
    cached = model.cache(image)
    with model.trace(image):
        keys = model.layers[CROSS[1]].self_attn.attention_keys.save()
        out = model.layers[CROSS[1]].layer_output.save()
    assert torch.equal(cached.layers[CROSS[1]].self_attn.attention_keys, keys)
    assert torch.equal(cached["layers.3.layer_output"], out)
    assert cached.stack("layer_output").shape[0] == 6


@pytest.mark.parametrize("overrides", [{"qk_layer_norms": True}, {"use_resampler": False,
                                                                 "perceiver_config": {"use_resampler": False}}])
def test_the_contract_holds_with_the_configs_switches(overrides, image):
    """qk_layer_norms (an RMSNorm of the cross-attention's query and key heads), and no resampler: the keys span the
    vision model's patches and its class token."""
    model = tiny.load(NAME, **overrides)
    report = model.check(image, raise_on_failure=False)
    assert report.ok, str(report)


def test_a_saved_idefics_loads_by_path_with_its_blocks_in_forward_order(tmp_path):
    """Loaded from a path, the envoys are built before the weights (by path, not by class): the view still holds
    every block, each with its hosts, and the contract holds."""
    from transformers import IdeficsImageProcessorPil, IdeficsProcessor

    from nnterp import StandardizedTransformer
    from nnterp.runtime.envoys import AttentionEnvoy, LayerEnvoy, MLPEnvoy

    native, tokenizer = tiny.build(NAME)
    native.save_pretrained(tmp_path)
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>", "<fake_token_around_image>"]})
    IdeficsProcessor(image_processor=IdeficsImageProcessorPil(image_size=16), tokenizer=tokenizer).save_pretrained(
        tmp_path)
    model = StandardizedTransformer(str(tmp_path), dispatch=True)
    assert [layer.path[len("model.model."):] for layer in model.layers] == ORDER
    for layer in model.layers:
        assert isinstance(layer, LayerEnvoy) and isinstance(layer.self_attn, AttentionEnvoy)
        assert isinstance(layer.mlp, MLPEnvoy)
    report = model.check(tiny.image_call(NAME), raise_on_failure=False)
    assert report.ok, str(report)
