"""Evolla: every few of its blocks hold an adapter that their forward calls last, a tanh-gated cross-attention to the
protein encoder's latents (a method of the adapter, not a module) and a tanh-gated feed-forward. model.layers places
each adapter as a block of its own after the block holding it (blocks.Interleaved), its attention hosted by
envoys.MethodAttention: the stream passes from block to block, the keys span the protein's latents, the gates are
tanh of their parameters, an edit reaches the logits as the arithmetic says, and a call without a protein passes
the stream through each adapter as it is."""

import pytest
import torch

from conftest import assert_the_stream_passes_block_to_block
from nnterp import StandardizedTransformer, tiny
from nnterp.contract.numerics import assert_close
from nnterp.declare.errors import UnavailableValue
from nnterp.runtime.envoys import LayerEnvoy, MLPEnvoy, MethodAttention

NAME = "evolla"
#: the tiny recipe's four blocks, an adapter in every second
ORDER = ["layers.0", "layers.1", "layers.1.adapter", "layers.2", "layers.3", "layers.3.adapter"]
ADAPTERS = (2, 5)
#: the block of model.model.layers holding each adapter
HOLDER = {2: 1, 5: 3}


@pytest.fixture(scope="module")
def model():
    return tiny.load(NAME, attn_implementation="eager")


@pytest.fixture(scope="module")
def protein():
    return tiny.image_call(NAME)


def test_layers_are_the_blocks_and_their_adapters_in_forward_order_and_nothing_is_added(protein):
    native, tok = tiny.build(NAME, attn_implementation="eager")
    keys, modules = list(native.state_dict()), [name for name, _ in native.named_modules()]
    model = StandardizedTransformer(native, tokenizer=tok)
    assert list(native.state_dict()) == keys and [name for name, _ in native.named_modules()] == modules
    assert [layer.path[len("model.model."):] for layer in model.layers] == ORDER
    for i in ADAPTERS:
        assert model.layers[i]._module is native.model.layers[HOLDER[i]].adapter
        attention = model.layers[i].self_attn
        assert isinstance(attention, MethodAttention) and attention._module is model.layers[i]._module
        assert isinstance(model.layers[i], LayerEnvoy) and isinstance(model.layers[i].mlp, MLPEnvoy)
    with torch.no_grad():
        expected = native(**protein).logits
    with model.trace(protein):
        logits = model.logits.save()
    assert torch.equal(logits, expected)


def test_the_stream_passes_from_each_block_to_the_next_and_the_contract_holds(model, protein):
    ins, outs = assert_the_stream_passes_block_to_block(model, protein)
    for i in ADAPTERS:  # the adapter adds what it computes: its output is not its input
        assert not torch.equal(outs[i], ins[i])


def test_the_adapters_keys_are_made_from_the_proteins_latents(model, protein):
    i = ADAPTERS[0]
    adapter = model.layers[i]._module
    with model.trace(protein):
        latents = model.model.protein_encoder.output.sequence_compressor_output.save()
        normed = model.layers[i].attention_norm_output.save()
        queries = model.layers[i].self_attn.attention_queries.save()
        keys = model.layers[i].self_attn.attention_keys.save()
        pattern = model.layers[i].self_attn.attention_probabilities.save()
    heads, seq, positions = model.num_heads, protein["input_ids"].shape[1], latents.shape[1]
    assert positions == 3 != seq
    split = lambda x: x.view(1, x.shape[1], heads, -1).transpose(1, 2)  # noqa: E731 - heads first
    torch.testing.assert_close(keys, split(adapter.key_protein(latents)), rtol=0, atol=0)
    torch.testing.assert_close(queries, split(adapter.query(normed)), rtol=0, atol=0)
    assert pattern.shape == (1, heads, seq, positions)
    # each entry an exp over a sum of `positions` exps, divided; then `positions` of them summed
    assert_close(pattern.sum(-1), torch.ones(1, heads, seq), length=2 * positions + 2, magnitude=1.0)


def test_the_gates_are_tanh_of_their_parameters_and_multiply_what_the_stream_receives(model, protein):
    i = ADAPTERS[1]
    adapter = model.layers[i]._module
    with model.trace(protein):
        gate = model.layers[i].self_attn.attention_gate.save()
        mlp_gate = model.layers[i].mlp.mlp_gate.save()
        mid = model.layers[i].layer_mid.save()
        x = model.layers[i].layer_input.save()
        added = model.layers[i].self_attn.attention_output.save()
        out = model.layers[i].layer_output.save()
        ff = model.layers[i].mlp.mlp_output.save()
    assert torch.equal(gate, torch.tanh(adapter.gate_attention)) and torch.equal(mlp_gate, torch.tanh(adapter.gate_ffw))
    assert torch.equal(mid, x + added) and torch.equal(out, mid + ff)
    torch.testing.assert_close(ff, adapter.ff(mid) * mlp_gate, rtol=0, atol=0)
    with pytest.raises(UnavailableValue, match="through no gate"):
        with model.trace(protein):
            model.layers[1].self_attn.attention_gate.save()


def test_an_edit_of_what_the_adapter_adds_is_its_gate_at_zero(protein):
    """Zeroing an adapter's attention_output is, bit for bit, the run whose gate_attention is 0: the edit is carried
    back divided by tanh(gate_attention), and 0 / g * g is 0 as 0 * o is."""
    model = tiny.load(NAME)
    with model.trace(protein):
        model.layers[ADAPTERS[0]].self_attn.attention_output[:] = 0
        edited = model.logits.save()
    native, _ = tiny.build(NAME)
    with torch.no_grad():
        native.model.layers[1].adapter.gate_attention.zero_()
        expected = native(**protein).logits
    assert torch.equal(edited, expected)


def test_a_call_without_a_protein_passes_the_stream_through_each_adapter(model):
    prompt = "The protein binds"
    with model.trace(prompt):
        x = model.layers[ADAPTERS[0]].layer_input.save()
        out = model.layers[ADAPTERS[0]].layer_output.save()
    assert torch.equal(x, out)
    with pytest.raises(UnavailableValue, match="returns the stream as it is"):
        with model.trace(prompt):
            model.layers[ADAPTERS[0]].self_attn.attention_probabilities.save()
    assert model.check(prompt, raise_on_failure=False).ok


def test_a_saved_evolla_loads_by_path_through_its_own_class(tmp_path, protein):
    """transformers 5.24's auto classes do not take EvollaConfig (it maps back to the name EvollaModel, no model
    type): a path or repo id is loaded by EvollaForProteinText2Text itself, with the load options given."""
    from transformers import AutoModelForImageTextToText

    native, tokenizer = tiny.build(NAME, attn_implementation="eager")
    with pytest.raises(ValueError, match="Unrecognized configuration class"):
        AutoModelForImageTextToText.from_config(native.config)
    native.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    model = StandardizedTransformer(str(tmp_path), attn_implementation="eager")
    assert type(model.hf_model).__name__ == "EvollaForProteinText2Text"
    assert model.hf_model.config._attn_implementation == "eager"
    with torch.no_grad():
        expected = native(**protein).logits
    with model.trace(protein):
        logits = model.logits.save()
    assert torch.equal(logits, expected)


def test_the_encyclopedia_reads_the_language_models_rotary_not_the_protein_encoders(model):
    """The protein encoder, under the language model's module (model.protein_encoder), has a rotary of its own over
    narrower heads: the page's rotary note is the text blocks'."""
    from nnterp.encyclopedia.notes.derived.rotary import _rotary_module

    assert _rotary_module(model) is model.hf_model.model.rotary_emb
    assert model.hf_model.model.protein_encoder.model.rotary_embeddings.inv_freq.numel() == 4
