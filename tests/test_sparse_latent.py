"""Mistral Large 4's language stack: a layer that reads another layer's latent serves keys and values made from that
layer's latent by its own kv_b_proj, the learned query scale on log position is in attention_queries, and a config
whose kv_source_layers is not what its layers read is refused."""

import pytest
import torch

from nnterp import tiny
from nnterp.contract.numerics import assert_close, tolerance
from nnterp.declare.errors import UnknownArchitecture
from nnterp.registry import family_for


@pytest.fixture(scope="module")
def large4():
    return tiny.load("mistral_large4", attn_implementation="eager")


@pytest.fixture(scope="module")
def read(large4):
    """Every block's keys, values and queries, its normed latent where it makes one, and its attention's input."""
    saved = {}
    with large4.trace("The Eiffel Tower is in the city of"):
        for index, layer in enumerate(large4.layers):  # in the order the forward computes them
            attention = layer.self_attn
            saved[index] = {"input": layer.attention_norm_output.save()}
            if attention._module.kv_a_layernorm is not None:
                saved[index]["latent"] = attention.kv_a_layernorm.output.save()
            saved[index].update(queries=attention.attention_queries.save(), keys=attention.attention_keys.save(),
                                values=attention.attention_values.save())
    return saved


def _heads(linear, x, heads):
    """A Linear's output on [batch seq width] as [batch heads seq per_head], and the magnitude its sums run at."""
    batch, seq, _ = x.shape
    split = lambda y: y.view(batch, seq, heads, -1).transpose(1, 2)  # noqa: E731
    return split(linear(x)), float(split(x.abs() @ linear.weight.abs().T).max())


@pytest.mark.parametrize("sharing, source", [(1, 0), (3, 2)])
def test_a_sharing_layer_expands_its_source_layers_latent_with_its_own_kv_b_proj(large4, read, sharing, source):
    native = large4.layers[sharing].self_attn._module
    config = large4._module.config.text_config
    assert config.kv_source_layers[sharing] == source and native.kv_a_proj_with_mqa is None
    with torch.no_grad():
        expanded, magnitude = _heads(native.kv_b_proj, read[source]["latent"], native.num_heads)
    nope, rope = native.qk_nope_head_dim, native.qk_rope_head_dim
    keys, values = read[sharing]["keys"], read[sharing]["values"]
    length = native.kv_b_proj.in_features
    assert_close(keys[..., :nope], expanded[..., :nope], length, magnitude)
    assert_close(values, expanded[..., nope:], length, magnitude)
    # the rotated slice is the source layer's, the same tensor for every head; a layer without rotary has none
    assert rope == (16 if config.no_rope_layers[sharing] else 0)
    assert torch.equal(keys[..., nope:], read[source]["keys"][..., nope:])
    # its own kv_b_proj: the source layer's keys are other numbers
    atol = tolerance(torch.float32, magnitude, length)
    assert (keys[..., :nope] - read[source]["keys"][..., :nope]).abs().max() > 1000 * atol


def test_a_sharing_layer_says_whose_latent_its_keys_are_made_from(large4):
    assert "layer 0's normed latent" in repr(large4.layers[1].self_attn)
    printed = repr(large4.layers[3].self_attn)
    assert "layer 2's normed latent" in printed and "a layer without rotary" in printed
    assert "its kv_a_proj_with_mqa's normed latent" in repr(large4.layers[0].self_attn)


def test_the_queries_carry_the_learned_scale_on_log_position(large4, read):
    """On a layer without rotary the queries are q_proj's heads times scale · log(position + 1) + bias per head."""
    native = large4.layers[2].self_attn._module
    assert not native.use_rope
    x = read[2]["input"]
    seq = x.shape[1]
    with torch.no_grad():
        heads, magnitude = _heads(native.q_proj, x, native.num_heads)
        log_position = torch.log(torch.arange(seq, dtype=torch.float32) + 1)
        scaling = native.softmax_scaling
        scale = scaling.scale[None, :, None] * log_position[None, None, :] + scaling.bias[None, :, None]
    magnitude *= float(scale.abs().max())
    length = native.q_proj.in_features + 2  # the projection's sums, then the scale's product and sum
    assert_close(read[2]["queries"], heads * scale[..., None], length, magnitude)
    # the scale moves them: the tiny model's is not 1 at any position
    assert (read[2]["queries"] - heads).abs().max() > 1000 * tolerance(torch.float32, magnitude, length)


def test_a_config_whose_kv_sources_are_not_what_its_layers_read_is_refused():
    """Layer 1 has no rotary and names layer 0 (with rotary): transformers hands it no latent of its kind."""
    config = tiny.config("mistral_large4", text_config={
        **tiny.config("mistral_large4").text_config.to_dict(), "no_rope_layers": [1, 0, 1, 1],
        "kv_source_layers": [0, 0, 2, 3]})
    with pytest.raises(UnknownArchitecture, match="layer 1 names layer 0 in kv_source_layers"):
        family_for(config, "MistralLarge4ForConditionalGeneration")


# --------------------------------------------------------------------------- GLM-5-Next
@pytest.fixture(scope="module")
def glm5():
    return tiny.load("glm5_next", attn_implementation="eager")


def _streams(post, comb, output, streams):
    """The hyper-connection's update as the block writes it: post · output into each stream, plus comb^T · streams."""
    return post.unsqueeze(-1) * output.unsqueeze(-2) + torch.matmul(comb.transpose(-1, -2), streams)


def test_the_sublayers_outputs_are_what_the_hyper_connections_write_into_the_streams(glm5):
    """On every block, Kimi delta attention's or latent attention's: the streams the block returns are its input
    streams mixed by comb plus attention_output, then mlp_output, each spread by its post weights."""
    saved = []
    with glm5.trace("The Eiffel Tower is in the city of"):
        for layer in glm5.layers:
            saved.append({"input": layer.input.save(), "attn_hc": layer.attn_hc.output.save(),
                          "attention": layer.self_attn.attention_output.save(),
                          "ffn_hc": layer.ffn_hc.output.save(), "mlp": layer.mlp.mlp_output.save(),
                          "output": layer.output[0].save()})
        final = glm5.final_norm_output.save()
    hidden = glm5.hidden_size
    for index, block in enumerate(saved):
        post, comb, _ = block["attn_hc"]
        mid = _streams(post, comb, block["attention"], block["input"])
        post, comb, _ = block["ffn_hc"]
        expected = _streams(post, comb, block["mlp"], mid)
        assert_close(block["output"], expected, 2 * (glm5._module.config.text_config.hc_mult + 1))
        assert expected.shape[-2:] == (glm5._module.config.text_config.hc_mult, hidden), index
    # the final norm reads the streams' unweighted mean
    native_norm = glm5.norm._module
    with torch.no_grad():
        expected = native_norm(saved[-1]["output"].mean(dim=2))
    assert_close(final, expected, hidden)


def test_a_shared_indexer_layer_masks_the_keys_its_previous_layer_chose(glm5):
    config = glm5._module.config.text_config
    assert config.indexer_types[1:3] == ["full", "shared"] and config.layer_types[1:3] == ["indexed_attention"] * 2
    with glm5.trace("The Eiffel Tower is in the city of Paris and the Colosseum"):
        first = glm5.layers[1].self_attn.attention_probabilities.save()
        second = glm5.layers[2].self_attn.attention_probabilities.save()
    kept = first != 0
    assert torch.equal(kept.any(dim=1), (second != 0).any(dim=1))  # the same keys per query, whichever head
    assert not bool(kept.all(dim=-1).all())  # the indexer left some earlier keys out: the mask does something


def test_the_dense_mlp_serves_the_clamped_up_projection(glm5):
    """With a low swiglu_limit the clamp bites: mlp_up is the clamped up projection, and the product holds."""
    text = {**tiny.config("glm5_next").text_config.to_dict(), "swiglu_limit": 0.05}
    clamped = tiny.load("glm5_next", attn_implementation="eager", text_config=text)
    mlp = clamped.layers[0].mlp
    with clamped.trace("The Eiffel Tower is in the city of"):
        gate = mlp.gate_proj.output.save()
        up = mlp.up_proj.output.save()
        served_up = mlp.mlp_up.save()
        preactivation = mlp.mlp_preactivation.save()
        activation = mlp.mlp_activation.save()
        neurons = mlp.mlp_neurons.save()
    assert bool((up.abs() > 0.05).any())
    assert torch.equal(served_up, up.clamp(-0.05, 0.05)) and torch.equal(preactivation, gate.clamp(max=0.05))
    assert torch.equal(activation * served_up, neurons)
