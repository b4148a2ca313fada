"""The core on the three families: conformance, support, printout, accessors, load options."""

import json

import pytest
import torch

from nnterp import StandardizedTransformer, tiny
from nnterp.declare.vocabulary import VALUES

from conftest import FAMILIES


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("load", ["eager", "sdpa"])
def test_conformance(family, load):
    if family == "gpt_neox_japanese" and load == "sdpa":
        pytest.skip("GPT-NeoX-Japanese has one attention implementation, its own _attn (tested under eager)")
    report = tiny.load(family, attn_implementation=load).check()
    assert report.ok and len(report.results) > 100


def test_support_is_data_and_prints(phi):
    rows = phi.support()
    assert len(rows) == len(VALUES) == 33
    data = json.loads(rows.to_json())
    by = {row["name"]: row for row in data}
    assert by["mlp_up"]["status"] == "unavailable" and "not gated" in by["mlp_up"]["note"]
    assert by["attention_queries_unrotated"]["status"] == "served" and "partial rotary" in by[
        "attention_queries_unrotated"]["description"]
    assert by["attention_queries_unrotated"]["read_at"] == (
        "inside the forward: the value assigned to query_states (query_states_0)")
    assert by["attention_norm_scale"]["read_at"] == (
        "computed from the child module input_layernorm's input, applied at its output")
    assert by["layer_mid"]["status"] == "unavailable" and "parallel block" in by["layer_mid"]["note"]
    assert by["attention_scores"]["status"] == "conditioned" and "eager" in by["attention_scores"]["note"]
    assert by["attention_queries"]["read_at"] == "inside the forward: the arguments of attention_interface_1, element 1"
    assert by["attention_scores"]["read_at"] == (
        "inside the forward: the input of nn_functional_softmax_0 inside attention_interface_1")
    assert by["attention_probabilities"]["read_at"] == (
        "inside the forward: the output of nn_functional_dropout_0 inside attention_interface_1")
    assert by["attention_head_outputs"]["read_at"] == "inside the forward: the output of attention_interface_1, element 0"
    assert by["mlp_norm_output"]["read_at"] == "the child module input_layernorm's output"
    assert by["mlp_neurons"]["read_at"] == "the child module down_proj's input"
    text = str(rows)
    assert "⚠︎ layer_mid" in text and "model.layers[i].self_attn PhiAttention" in text


def test_support_neox_japanese_read_at(neox_jp):
    by = {row.name: row for row in neox_jp.support()}
    assert by["attention_queries"].read_at == "inside the forward: the arguments of self__attn_0, element 0"
    assert by["attention_scores"].read_at == "inside the forward: the input of nn_functional_softmax_0 inside self__attn_0"
    assert by["attention_probabilities"].read_at == (
        "inside the forward: the output of self_attention_dropout_0 inside self__attn_0")
    assert by["layer_mid"].read_at == "the child module post_attention_layernorm's input"


def test_printout_phi(phi):
    text = repr(phi)
    for line in (
        "(o_proj/dense): Linear(in_features=64, out_features=64, bias=True)",
        "(act_fn/activation_fn): NewGELUActivation()",
        "(down_proj/fc2): Linear(in_features=128, out_features=64, bias=True)",
        "(layer_mid): Unavailable: a parallel block: the attention and the MLP read the same input, so there is no stream between them",
        "(mlp_norm_output) -> Residual [batch seq hidden_size]: The normed stream entering the MLP: the one norm feeds both sublayers",
        "(attention_queries) -> Queries [batch num_heads seq qk_head_dim]: The queries entering attention",
        "(input_size): [batch, seq] of the current call; read-only",
        "(norm): LayerNorm((64,), eps=1e-05, elementwise_affine=True, bias=True)",
    ):
        assert line in text, line
    assert "(model): PhiModel" not in text
    # the family's own values first, as on the seed page
    assert text.index("(layer_mid)") < text.index("(layer_input)")


def test_printout_neox_japanese(neox_jp):
    text = repr(neox_jp)
    assert text.splitlines()[1].strip() == "(lm_head/embed_out): Linear(in_features=64, out_features=300, bias=False)"
    assert "(self_attn/attention): GPTNeoXJapaneseAttention(" in text
    assert "(attention_output) -> Residual [batch seq hidden_size]: What the attention adds to the residual stream: " \
           "its output plus, on the last block, the dense_bias the block adds" in text
    assert text.index("(attention_head_outputs)") < text.index("(attention_premix)")


def test_native_names_keep_working(neox_jp, phi, prompt):
    assert neox_jp.layers[1].self_attn.query_key_value.weight.shape == (3 * 64, 64)
    assert phi.layers[0].self_attn.dense is phi.layers[0].self_attn.o_proj
    assert phi.layers is phi.model.layers and phi._module.model.final_layernorm is phi.norm._module
    phi.layers[0].self_attn.source  # instrumented before the trace: its operations fire from the first call
    with phi.trace(prompt):
        b = phi.model.layers[0].self_attn.q_proj.output.save()  # the module's output fires inside the call
        a = phi.layers[0].self_attn.source.self_q_proj_0.output.save()
    assert torch.equal(a, b)


def test_config_accessors():
    phi = tiny.load("phi")
    assert (phi.num_layers, phi.hidden_size, phi.num_heads, phi.num_kv_heads, phi.head_dim, phi.qk_head_dim,
            phi.vocab_size, phi.intermediate_size) == (2, 64, 4, 4, 16, 16, 300, 128)
    llama = tiny.load("llama")
    assert (llama.num_kv_heads, llama.head_dim) == (2, 16)


def test_writes_assignment_and_inplace_agree_with_layout(llama, prompt):
    with llama.trace(prompt):
        llama.layers[0].self_attn.attention_premix[:, :, 1] = 0
        a = llama.logits.save()
    with llama.trace(prompt):
        premix = llama.layers[0].self_attn.attention_premix
        edited = premix.clone()
        edited[:, :, 1] = 0
        llama.layers[0].self_attn.attention_premix = edited
        o_in = llama.layers[0].self_attn.o_proj.input.save()
        b = llama.logits.save()
    assert torch.equal(a, b)
    assert (o_in.unflatten(-1, (llama.num_heads, -1))[:, :, 1] == 0).all()


def test_built_model_load_options_honoured_or_refused():
    hf, tok = tiny.build("llama")
    model = StandardizedTransformer(hf, tokenizer=tok, attn_implementation="eager")
    assert model.attn_implementation == "eager" and model._module is hf
    from nnterp import LoadOptionRefused

    with pytest.raises(LoadOptionRefused, match="nnterp never converts weights"):
        StandardizedTransformer(hf, tokenizer=tok, dtype=torch.float16)
    with pytest.raises(LoadOptionRefused, match="device_map places weights while loading"):
        StandardizedTransformer(hf, tokenizer=tok, device_map="cpu")


def test_wrapping_copies_and_replaces_nothing():
    hf, tok = tiny.build("llama")
    before = {name: (p.data_ptr(), p.clone()) for name, p in hf.named_parameters()}
    modules = dict(hf.named_modules())
    model = StandardizedTransformer(hf, tokenizer=tok)
    with model.trace("hello"):
        model.layers[0].self_attn.attention_output.save()
    assert all(m is modules[name] for name, m in hf.named_modules())
    for name, p in hf.named_parameters():
        assert p.data_ptr() == before[name][0] and torch.equal(p, before[name][1])


def test_interior_after_a_child_needs_instrument_only_where_the_code_hides_it(prompt):
    """A value the trace's code names is instrumented before the run, so a read of a native module inside the same
    forward may come first; one reached through getattr is not seen, and the error names model.instrument()."""
    from nnterp import OrderError

    model = tiny.load("llama", attn_implementation="eager")
    with model.trace(prompt):
        q = model.layers[0].self_attn.q_proj.output.save()
        v = model.layers[0].self_attn.attention_values.save()
    assert v.shape[1] == model.num_kv_heads
    model, hidden = tiny.load("llama", attn_implementation="eager"), "attention_values"
    with pytest.raises(OrderError, match="model.instrument"):
        with model.trace(prompt):
            model.layers[0].self_attn.q_proj.output.save()
            getattr(model.layers[0].self_attn, hidden).save()
    model = tiny.load("llama", attn_implementation="eager").instrument()
    with model.trace(prompt):
        q = model.layers[0].self_attn.q_proj.output.save()
        v = getattr(model.layers[0].self_attn, hidden).save()
    assert v.shape[1] == model.num_kv_heads


def test_a_rotary_per_layer_type_is_checked_with_its_own_scaling():
    """Olmo 3's released rotary: YaRN on the full-attention layers (cos and sin times its attention_factor), the
    default on the sliding ones. The contract compares each layer's rotation at position 0 with its own type's
    factor; with one factor for every layer it would fail the full layers or pass the sliding ones vacuously."""
    from nnterp.contract import conformance

    yarn = {"rope_type": "yarn", "rope_theta": 500000.0, "factor": 8.0, "original_max_position_embeddings": 8192,
            "attention_factor": 1.2, "beta_fast": 32.0, "beta_slow": 1.0}
    model = tiny.load("olmo3", rope_parameters={"full_attention": yarn, "sliding_attention": {
        "rope_type": "default", "rope_theta": 500000.0}}, max_position_embeddings=65536)
    kinds = model._module.config.layer_types
    factors = [conformance._rope_scaling(model, layer.self_attn._module) for layer in model.layers]
    assert factors == [1.2 if kind == "full_attention" else 1.0 for kind in kinds] and len(set(factors)) == 2
    assert not model.check(raise_on_failure=False).failures


def test_a_second_wrapper_never_switches_the_kernel_under_the_first(prompt):
    from nnterp.declare.errors import LoadOptionRefused

    first = tiny.load("llama", attn_implementation="sdpa")
    native = first.hf_model
    before = str(first.support())
    with pytest.raises(LoadOptionRefused, match="switching the kernel would switch it under that wrapper"):
        StandardizedTransformer(native, tokenizer=first.tokenizer, attn_implementation="eager")
    assert native.config._attn_implementation == "sdpa" and str(first.support()) == before
    sharing = StandardizedTransformer(native, tokenizer=first.tokenizer)   # the same kernel: allowed
    with first.trace(prompt):
        logits = first.logits.save()
    with sharing.trace(prompt):
        again = sharing.logits.save()
    assert torch.equal(logits, again) and sharing.hf_model is native
    # naming the kernel it already runs is no switch
    same = StandardizedTransformer(native, tokenizer=first.tokenizer, attn_implementation="sdpa")
    assert same.hf_model.config._attn_implementation == "sdpa"


def test_a_site_says_where_it_was_declared_and_the_contract_s_failure_names_it():
    import inspect

    import nnterp
    from nnterp.declare.conventions import described
    from nnterp.registry import family_named
    from nnterp.declare.locations import Argument, Own
    from nnterp.declare.writeback import Read

    wrong = described(Read(Own("input"), Argument(0)), "deliberately wrong: the MLP's input as its output")
    line = inspect.currentframe().f_lineno - 1
    declared = f"tests/test_core.py:{line} (test_a_site_says_where_it_was_declared_and_the_contract_s_failure_names_it)"
    assert wrong.declared_at == declared
    family = family_named("llama").but(name="llama", model_types=("llama",), sites={"mlp_output": wrong})
    with nnterp.registered(family, override=True):
        model = tiny.load("llama", attn_implementation="eager")
        report = model.check(raise_on_failure=False)
        rows = {row.name: row for row in model.support() if row.host.endswith(".mlp")}
    assert not report.ok
    assert any(f"mlp_output declared at {declared}" in failure.detail for failure in report.failures), str(report)
    assert rows["mlp_output"].declared_at == declared
    assert rows["mlp_neurons"].declared_at.startswith("nnterp/declare/conventions.py:")   # the common site, where it is
