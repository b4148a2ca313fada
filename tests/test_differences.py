"""What a family declares against the common (Llama) conventions, as data: Family.differences(); and what a page
says its architecture shares with Llama and does otherwise, computed from the model, not from the declaration."""

import pytest

from nnterp.encyclopedia.render import _differences_html
from nnterp.registry import registry


def test_llama_declares_nothing():
    assert registry()["llama"].differences() == []


def test_each_declaration_is_a_sentence():
    families = registry()
    gemma2 = families["gemma2"].differences()
    assert any("post_feedforward_layernorm" in s and s.startswith("the block: post-norms") for s in gemma2)
    assert any("cap = config.final_logit_softcapping" in s for s in gemma2)
    assert any(s.startswith("the block: parallel") for s in families["phi"].differences())
    assert any(s.startswith("the MLP: a mixture of experts routed by gate") for s in families["deepseek_v3"].differences())
    assert "lm_head reads the final norm's output divided by config.logits_scaling" in families["minicpm3"].differences()
    assert any(s.startswith("refuses position_ids") for s in families["reformer"].differences())
    assert any("project_on_vocab is a lens" in s for s in families["hrm_text"].differences())


def test_a_preset_changed_through_but_keeps_its_words_and_adds_the_change():
    (block,) = [s for s in registry()["gemma4_text"].differences() if s.startswith("the block:")]
    assert "post-norms beside the sublayers" in block and "dimensions that differ per block" in block


@pytest.fixture(scope="module")
def pages():
    from nnterp.encyclopedia.pages import collect

    return {name: collect(registry()[name]) for name in ("qwen2", "gemma2")}


def test_the_page_computes_what_it_shares_with_llama_and_what_it_does_otherwise(pages):
    """Qwen2 declares nothing against Llama, yet its q, k and v carry a bias: the page says so, measured on the
    checkpoint's modules; Gemma 2's post-norms, offset norm weights and softcaps are measured the same way."""
    qwen2 = pages["qwen2"]
    # and what Qwen2Config does to its released configs (sliding_window set to None without use_sliding_window)
    assert qwen2.differences[0] == ("projections", "a bias on `q_proj`, `k_proj` and `v_proj`")
    assert {aspect for aspect, _ in qwen2.differences[1:]} == {"config"}
    assert {"the sequential pre-norm block", "the gated SiLU MLP", "RMSNorm before each sublayer"} <= set(qwen2.alike)
    html = _differences_html(qwen2)
    assert "As Llama in: the sequential pre-norm block" in html and html.count("<li>") == len(qwen2.differences)
    aspects = {aspect for aspect, _ in pages["gemma2"].differences}
    assert {"block", "norms", "scale", "readout"} <= aspects, pages["gemma2"].differences
    assert "the sequential pre-norm block" not in pages["gemma2"].alike


def test_a_child_declares_only_its_change_and_says_it_against_its_parent():
    families = registry()
    olmo2, olmo3 = families["olmo2"], families["olmo3"]
    assert olmo3.parent is olmo2 and olmo3.block is olmo2.block and olmo3.differences() == []
    assert olmo3.tiny["config_class"] == "Olmo3Config" and olmo2.tiny["config_class"] == "Olmo2Config"
    assert all(olmo3.sites[name].description == site.description for name, site in olmo2.sites.items())
    swa = families["granitemoe_swa"]
    assert swa.parent is families["granitemoe"] and swa.moe is swa.parent.moe
    assert swa.differences() == ["read elsewhere: attention_scores, attention_probabilities, attention_head_outputs",
                                 "described in its own words: attention_premix", "loads: eager"]
    assert "attention_scores" not in swa.parent._declared["sites"]  # the parent is untouched by its child
    assert families["qwen3_5_text"].differences() == [
        "as Llama, not as qwen3_next: a dense MLP, no mixture of experts"]


def test_every_family_serving_router_values_declares_them_through_moe():
    routed = [f.name for f in registry().values() if any(name.startswith("router_") for name in f.sites)]
    assert routed and [name for name in routed if registry()[name].moe is None] == []
