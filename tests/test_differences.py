"""What a family declares against the common (Llama) conventions, as data: Family.differences(), and the page's
"As Llama, except" list built from it."""

from nnterp.encyclopedia.render import _differences_html
from nnterp.family import registry


def test_llama_declares_nothing():
    assert registry()["llama"].differences() == []
    assert "declares nothing" in _differences_html(registry()["llama"])


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


def test_the_page_lists_them():
    html = _differences_html(registry()["gemma2"])
    assert html.count("<li>") == len(registry()["gemma2"].differences()) and "As Llama, except" in html
