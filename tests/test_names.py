"""``nnterp.compat.names``: TransformerLens's hook names and nnterp 1.x's accessors as standard paths, and the error
suggestions that answer with them."""

import re

import pytest
import torch

from nnterp import UnknownName, tiny
from nnterp.compat.names import (
    PENDING_HOSTS, TRANSFORMERLENS_BLOCK, TRANSFORMERLENS_MODEL, UnknownPath, resolve, rows, transformerlens_names,
)
from nnterp.declare.errors import NnterpError, ReadOnlyValue, UnavailableValue
from nnterp.declare.vocabulary import BY_NAME
from nnterp.tools._common import ToolError
from nnterp.tools.splice import resolve_at

#: HookedTransformer's hooks (TransformerLens 3.9, transformer_lens/components): TransformerBlock's, its
#: attention's, its MLPs' (MLP, GatedMLP), its norms' (ln1, ln2; LayerNorm, RMSNorm and their Pre forms)
TL_BLOCK_HOOKS = (
    "hook_resid_pre", "hook_resid_mid", "hook_resid_post", "hook_attn_in", "hook_q_input", "hook_k_input",
    "hook_v_input", "hook_attn_out", "hook_mlp_in", "hook_mlp_out",
    "ln1.hook_scale", "ln1.hook_normalized", "ln2.hook_scale", "ln2.hook_normalized",
    "attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_z", "attn.hook_rot_q", "attn.hook_rot_k",
    "attn.hook_attn_scores", "attn.hook_pattern", "attn.hook_result",
    "mlp.hook_pre", "mlp.hook_pre_linear", "mlp.hook_post",
)
TL_MODEL_HOOKS = ("hook_embed", "hook_tokens", "ln_final.hook_scale", "ln_final.hook_normalized")


@pytest.mark.parametrize("hook", TL_BLOCK_HOOKS)
def test_every_block_hook_resolves_to_a_standard_path(hook):
    path = resolve(f"blocks.3.{hook}")
    assert path.layer == 3 and (path.value in BY_NAME or path.value in PENDING_HOSTS)
    assert path.host != "model"
    assert resolve(path.key) == type(path)(path.value, 3)  # the path it names resolves to itself


@pytest.mark.parametrize("hook", TL_MODEL_HOOKS)
def test_every_model_hook_resolves(hook):
    path = resolve(hook)
    assert path.layer is None and path.host == "model"


def test_the_issue_examples():
    assert resolve("blocks.3.hook_resid_post").attribute == "model.layers[3].layer_output"
    assert resolve("blocks.3.attn.hook_pattern").key == "layers.3.self_attn.attention_probabilities"
    normalized = resolve("ln_final.hook_normalized", num_layers=4)
    assert [read.key for read in normalized.reads(4)] == ["layers.3.layer_output", "final_norm_scale"]
    assert resolve("blocks.0.attn.hook_z").value == "attention_premix"
    assert resolve("blocks.0.attn.hook_rot_q").value == "attention_queries"
    assert resolve("blocks.0.attn.hook_q").value == "attention_queries_unrotated"
    assert resolve("blocks.0.attn.hook_result").value == "attention_head_contributions"
    assert resolve("blocks.0.mlp.hook_pre_linear").value == "mlp_up"
    assert resolve("blocks.0.ln2.hook_scale").value == "mlp_norm_scale"


def test_standard_paths_in_every_spelling():
    for spelled in ("layers.3.self_attn.attention_probabilities", "model.layers[3].self_attn.attention_probabilities",
                    "layers[3].self_attn.attention_probabilities"):
        assert resolve(spelled).key == "layers.3.self_attn.attention_probabilities"
    assert resolve("layers.-1.layer_output", num_layers=4).layer == 3
    assert resolve("logits").key == "logits" and resolve("model.logits").key == "logits"
    with pytest.raises(UnknownPath, match="its path is layers.{i}.self_attn.attention_probabilities"):
        resolve("layers.3.attention_probabilities")
    with pytest.raises(UnknownPath, match="the model has 4 blocks"):
        resolve("blocks.7.hook_resid_post", num_layers=4)
    with pytest.raises(UnknownPath, match="did you mean 'layers.2.layer_output'"):
        resolve("layers.2.layer_outptu")
    with pytest.raises(UnknownPath, match="position embeddings have no standard value"):
        resolve("hook_pos_embed")


def test_mlp_in_follows_the_block_kind():
    assert resolve("blocks.1.hook_mlp_in").value == "layer_mid"
    assert resolve("blocks.1.hook_mlp_in", block_kind="parallel").value == "layer_input"


def test_the_table_says_where_meanings_differ():
    table = {name: (path, note, families) for name, path, note, families in rows()}
    assert len(table) == len(TRANSFORMERLENS_BLOCK) + len(TRANSFORMERLENS_MODEL)
    assert "gemma2" in table["blocks.{i}.hook_attn_out"][2]
    assert "bloom" in table["blocks.{i}.attn.hook_attn_scores"][2]
    assert "parallel" in table["blocks.{i}.hook_resid_mid"][2]
    assert "1 / attention_norm_scale[..., None]" in table["blocks.{i}.ln1.hook_scale"][0]
    assert table["blocks.{i}.attn.hook_q"][0].endswith("transpose(1, 2): [batch pos head_index d_head]")
    assert table["blocks.{i}.ln1_post.hook_normalized"][0].startswith("refused: ")
    assert table["blocks.{i}.attn.hook_pattern"][0] == "layers.{i}.self_attn.attention_probabilities"
    assert transformerlens_names("layer_output") == ["blocks.{i}.hook_resid_post"]
    assert transformerlens_names("layer_output", bridge=True) == ["blocks.{i}.hook_resid_post", "blocks.{i}.hook_out"]
    assert transformerlens_names("final_norm_scale") == ["ln_final.hook_scale"]  # not hook_normalized


def message(get) -> str:
    with pytest.raises(UnknownName) as error:
        get()
    return str(error.value)


def test_suggestions_answer_foreign_names_with_the_standard_path(llama):
    assert "did you mean model.layers[0].self_attn.attention_probabilities?" in message(
        lambda: llama.layers[0].self_attn.attention_pattern)
    assert "did you mean model.layers[0].self_attn.attention_probabilities?" in message(
        lambda: llama.layers[0].attention_pattern)
    assert "did you mean model.layers[0].layer_output?" in message(lambda: llama.layers[0].resid_post)
    assert "did you mean model.layers[i].layer_output?" in message(lambda: llama.layers_output)
    assert "did you mean model.layers[1].self_attn.attention_output?" in message(lambda: llama.layers[1].hook_attn_out)
    assert "did you mean the module model.norm?" in message(lambda: llama.ln_final)
    assert "did you mean 'layer_output'" in message(lambda: llama.layers[0].layer_outptu)


def test_the_no_guess_list_names_the_hosts_own_values(llama):
    text = message(lambda: llama.layers[0].zzqq)
    assert "layer_input" in text and "layer_output" in text
    assert "embed_tokens" not in text and "layers," not in text and "attention_probabilities" not in text


def test_value_is_served_inside_a_trace_by_any_name(phi, prompt):
    with phi.trace(prompt):
        by_hook = phi.value("blocks.1.hook_mlp_in").save()  # a parallel block: its layer_input
        by_path = phi.value("model.layers[1].layer_input").save()
        out = phi.value("blocks.1.hook_resid_post").save()
        attribute = phi.layers[1].layer_output.save()
    assert torch.equal(by_hook, by_path) and torch.equal(out, attribute)


# --------------------------------------------------------------------------- TransformerLens's tensors, by name
def test_a_transformerlens_name_reads_transformerlens_layout_and_convention(llama, prompt):
    with llama.trace(prompt):  # TransformerLens's names, then (the same run again) nnterp's values
        q_tl = llama.value("blocks.1.attn.hook_q").save()
        k_tl = llama.value("blocks.1.attn.hook_k").save()
        scores_tl = llama.value("blocks.1.attn.hook_attn_scores").save()
        normalized_tl = llama.value("blocks.1.ln2.hook_normalized").save()
    with llama.trace(prompt):
        scale_tl = llama.value("blocks.1.ln2.hook_scale").save()
    with llama.trace(prompt):
        q = llama.layers[1].self_attn.attention_queries_unrotated.save()
        scores = llama.layers[1].self_attn.attention_scores.save()
        mid = llama.layers[1].layer_mid.save()
        scale = llama.layers[1].mlp_norm_scale.save()
        normed = llama.layers[1].mlp_norm_output.save()
    batch, seq = q.shape[0], q.shape[2]
    assert q_tl.shape == (batch, seq, llama.num_heads, llama.qk_head_dim) and torch.equal(q_tl, q.transpose(1, 2))
    assert k_tl.shape == (batch, seq, llama.num_kv_heads, llama.qk_head_dim)  # grouped keys keep their own heads
    above = torch.ones(seq, seq, dtype=torch.bool).triu(1)
    assert torch.isneginf(scores_tl[..., above]).all() and torch.equal(scores_tl[..., ~above], scores[..., ~above])
    assert scale_tl.shape == (batch, seq, 1)
    divisor = (mid.pow(2).mean(-1, keepdim=True) + llama.layers[1].post_attention_layernorm._module.variance_epsilon).sqrt()
    torch.testing.assert_close(scale_tl, divisor)  # TransformerLens's sqrt(mean(x²) + eps), not nnterp's factor
    torch.testing.assert_close(scale_tl[..., 0], 1 / scale)
    torch.testing.assert_close(normalized_tl, mid / divisor)  # before the gain
    torch.testing.assert_close(llama.layers[1].post_attention_layernorm._module.weight * normalized_tl, normed)


def test_a_write_under_a_transformerlens_name_takes_its_layout(llama, prompt):
    head = 1
    with llama.trace(prompt):
        z = llama.layers[0].self_attn.attention_premix
        z[:, :, head] = 0
        by_nnterp = llama.logits.save()
    with llama.trace(prompt):
        q_tl = llama.value("blocks.0.attn.hook_v")
        llama.value("blocks.0.attn.hook_v", torch.zeros_like(q_tl))  # [batch pos heads d_head], TL's layout
        zeroed_v = llama.layers[0].self_attn.attention_values.save()
        written_scale = llama.value("blocks.1.ln1.hook_scale")
        llama.value("blocks.1.ln1.hook_scale", written_scale * 2)  # the divisor doubled: the norm's output halved
        halved = llama.layers[1].attention_norm_output.save()
    with llama.trace(prompt):
        plain = llama.layers[1].attention_norm_output.save()
    assert torch.equal(zeroed_v, torch.zeros_like(zeroed_v))
    assert not torch.allclose(halved, plain)
    with pytest.raises(UnavailableValue, match="before its gain and bias"):
        with llama.trace(prompt):
            llama.value("blocks.0.ln1.hook_normalized", torch.zeros(1))
    assert by_nnterp is not None


def test_family_meanings_refuse_or_move(llama):
    assert resolve("hook_embed", family="bloom").key == "layers.0.layer_input"  # after BLOOM's embedding norm
    assert resolve("hook_embed", family="gemma2").key == "layers.0.layer_input"  # after Gemma's sqrt(d) scale
    with pytest.raises(UnknownPath, match="router_choices"):
        resolve("blocks.0.mlp.hook_expert_indices")


def test_an_in_place_edit_under_a_transformerlens_layout_reaches_the_model(llama, prompt):
    with llama.trace(prompt):
        llama.layers[0].self_attn.attention_values[:, 1] = 0  # key-value head 1, nnterp's layout
        by_path = llama.logits.save()
    with llama.trace(prompt):
        llama.value("blocks.0.attn.hook_v")[:, :, 1] = 0  # the same head, TransformerLens's layout
        by_name = llama.logits.save()
    with llama.trace(prompt):
        plain = llama.logits.save()
    assert torch.equal(by_path, by_name) and not torch.equal(by_name, plain)


def test_transformerlens_4_names_mean_the_bridges_tensors(llama, prompt):
    """transformerlens=4 reads a name whose tensor differs between the generations as TransformerBridge does: the
    kernel's scores, mask kept, in model.value and in splice's hook names; 3 (the default) as HookedTransformer."""
    with llama.trace(prompt):
        bridge = llama.value("blocks.1.attn.hook_attn_scores", transformerlens=4).save()
        hooked = llama.value("blocks.1.attn.hook_attn_scores").save()
        kernel = llama.layers[1].self_attn.attention_scores.save()
    assert torch.equal(bridge, kernel) and not torch.isinf(bridge).any() and torch.isneginf(hooked).any()
    assert resolve("blocks.0.attn.hook_attn_scores", transformerlens=4).convention.same
    assert not resolve("blocks.0.attn.hook_attn_scores", transformerlens=3).convention.same
    with pytest.raises(UnknownPath, match="scores before the mask"):
        resolve("blocks.0.attn.hook_attn_scores", family="opt", transformerlens=4)
    with pytest.raises(NnterpError, match="pass 3 for HookedTransformer's names"):
        resolve("blocks.0.attn.hook_attn_scores", transformerlens="4.3")
    assert resolve_at(llama, "blocks.1.attn.hook_attn_scores", transformerlens=4).path == "model.layers[1].self_attn.attention_scores"
    with pytest.raises(ToolError, match="-inf"):  # HookedTransformer's is computed, not a tensor the model holds
        resolve_at(llama, "blocks.1.attn.hook_attn_scores")


@pytest.mark.parametrize("family, overrides, refused, served", [
    ("qwen3", {}, {"hook_q": "self.q_norm(...)", "hook_k": "self.k_norm(...)"}, ("hook_v",)),
    ("olmo2", {}, {"hook_q": "self.q_norm(...)", "hook_k": "self.k_norm(...)"}, ("hook_v",)),
    # a config option, not the family: Phi normalises its queries and keys only under qk_layernorm
    ("phi", {"qk_layernorm": True}, {"hook_q": "self.q_layernorm(...)", "hook_k": "self.k_layernorm(...)"}, ()),
    ("phi", {}, {}, ("hook_q", "hook_k", "hook_v")),
    ("opt", {}, {"hook_q": "* self.scaling"}, ("hook_k", "hook_v")),
    ("gemma3n_text", {}, {"hook_v": "self.v_norm(...)"}, ()),
    ("llama", {}, {}, ("hook_q", "hook_k", "hook_v")),
])
def test_a_projection_s_hook_is_refused_where_the_attention_changes_the_projection_before_nnterp_reads(
        family, overrides, refused, served, prompt):
    """TransformerLens hooks hook_q, hook_k and hook_v on its projections' outputs: where this model's attention
    applies a norm or a scale in between, the name is refused, on a read and a write, in a trace and a cache."""
    model = tiny.load(family, attn_implementation="eager", **overrides)
    cache = model.cache(prompt, layers=[0])
    for hook, applied in refused.items():
        with pytest.raises(UnavailableValue, match=re.escape(applied)):
            with model.trace(prompt):
                model.value(f"blocks.0.attn.{hook}").save()
        with pytest.raises(UnavailableValue, match=re.escape(applied)):
            with model.trace(prompt):
                model.value(f"blocks.0.attn.{hook}", torch.zeros(1))
        with pytest.raises(KeyError, match=re.escape(applied)):
            cache[f"blocks.0.attn.{hook}"]
        assert f"blocks.0.attn.{hook}" not in cache
    for hook in served:  # the projection's output as it leaves the projection: the same tensor
        projection = {"hook_q": "q_proj", "hook_k": "k_proj", "hook_v": "v_proj"}[hook]
        heads = model.num_heads if hook == "hook_q" else model.num_kv_heads
        with model.trace(prompt):
            raw = getattr(model.layers[0].self_attn, projection).output.save()
            ours = model.value(f"blocks.0.attn.{hook}").save()
        assert torch.equal(ours, raw.view(*raw.shape[:2], heads, -1)), hook


@pytest.mark.parametrize("name, transformerlens, form", [
    ("blocks.0.attn.hook_attn_scores", 3, "model.value('blocks.0.attn.hook_attn_scores', tensor)"),
    ("blocks.0.ln1.hook_scale", 3, "model.value('blocks.0.ln1.hook_scale', tensor)"),
    ("blocks.0.hook_q_input", 3, "model.value('blocks.0.hook_q_input', tensor)"),
    ("blocks.0.ln2.hook_normalized", 3, "write the norm's output"),
    ("ln_final.hook_normalized", 3, "write the norm's output"),
    ("blocks.1.hook_v_input", 4, "model.value('blocks.1.hook_v_input', tensor)"),
])
def test_an_in_place_edit_of_a_computed_transformerlens_tensor_is_refused_naming_the_form_that_works(
        llama, prompt, name, transformerlens, form):
    with torch.no_grad():
        with llama.trace(prompt):
            clean = llama.logits.save()
        with pytest.raises(ReadOnlyValue, match=re.escape(form)):
            with llama.trace(prompt):
                tensor = llama.value(name, transformerlens=transformerlens)
                tensor[..., 0] = -1e4
        with llama.trace(prompt):  # read without an edit: nothing refused, and the model as it was
            llama.value(name, transformerlens=transformerlens).save()
            again = llama.logits.save()
    assert torch.equal(again, clean)


@pytest.mark.parametrize("name, transformerlens", [
    ("blocks.0.attn.hook_q", 3), ("blocks.0.attn.hook_v", 3), ("blocks.0.attn.hook_z", 3),
    ("blocks.0.hook_resid_pre", 3), ("blocks.0.attn.hook_pattern", 3),
    ("blocks.0.attn.hook_attn_scores", 4),  # TransformerBridge's scores: the kernel's own, its mask kept
])
def test_an_in_place_edit_of_a_transformerlens_view_reaches_the_forward(llama, prompt, name, transformerlens):
    with torch.no_grad():
        with llama.trace(prompt):
            clean = llama.logits.save()
        with llama.trace(prompt):
            llama.value(name, transformerlens=transformerlens)[..., 0] = 0.5
            edited = llama.logits.save()
    assert not torch.equal(edited, clean)
