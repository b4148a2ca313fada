"""The encyclopedia's pages in headless Chromium: hover and pinned cards, the index's search, every page offline
without errors, the widths from desktop to phone, screenshots."""

from __future__ import annotations

import json
import re

import pytest
from browser import Visit
from encyclopedia_pages import ARTIFACTS


@pytest.fixture
def phi_page(browser, site):
    visit = Visit(browser, (site / "phi.html").as_uri())
    yield visit.page
    assert not visit.problems
    visit.close()


def test_hovering_a_part_shows_its_standard_name(phi_page):
    tip = phi_page.locator("#tip")
    for name in ("attention_output", "attention_probabilities", "mlp_neurons", "layer_mid"):
        phi_page.hover(f'.block-svg .part[data-name="{name}"]')
        assert tip.is_visible() and tip.inner_text() == name
    phi_page.hover('.stream .part[data-name="token_embeddings"]')
    assert tip.inner_text() == "token_embeddings"


def test_clicking_a_part_pins_its_card(phi_page):
    card = phi_page.locator("#card")
    phi_page.click('.block-svg .part[data-name="attention_scores"]')
    assert "pinned" in card.get_attribute("class")
    text = card.inner_text()
    for fact in ("attention_scores", "model.layers[0].self_attn.attention_scores", "Pattern [batch num_heads query key]",
                 "The attention scores entering the softmax, masked",
                 "inside the forward: the input of nn_functional_softmax_0 inside attention_interface_1",
                 'needs attn_implementation="eager"'):
        assert fact in text, fact
    phi_page.hover('.block-svg .part[data-name="mlp_output"]')  # a pinned card stays
    assert "attention_scores" in card.inner_text()
    phi_page.fill("#layer", "7")
    phi_page.dispatch_event("#layer", "input")
    assert "model.layers[7].self_attn.attention_scores" in card.inner_text()
    phi_page.click('.block-svg .part[data-name="layer_mid"]')
    assert "a parallel block: the attention and the MLP read the same input" in card.inner_text()
    assert phi_page.locator('.block-svg .part.pinned[data-name="layer_mid"]').count() == 1


def test_the_warning_mark_shows_the_condition_on_hover(phi_page):
    tip = phi_page.locator("#tip")
    phi_page.hover('tr[data-value="attention_probabilities"] .warn')
    assert tip.is_visible()
    assert 'condition: needs attn_implementation="eager"' in tip.inner_text()
    phi_page.hover('tr[data-value="layer_mid"] .warn')
    assert "reason: a parallel block" in tip.inner_text()
    assert phi_page.locator('tr[data-value="logits"] .warn').count() == 0


def test_the_index_search_filters_as_you_type(browser, site):
    visit = Visit(browser, (site / "index.html").as_uri())
    page = visit.page
    rows = page.locator("tr.family")
    total = rows.count()
    page.fill("#search", "phi")
    visible = [row.get_attribute("data-search").split()[0] for row in rows.all() if row.is_visible()]
    assert "phi" in visible and "gpt_neox_japanese" not in visible and len(visible) < total
    page.fill("#search", "japanese")
    assert [r.get_attribute("data-search").split()[0] for r in rows.all() if r.is_visible()] == ["gpt_neox_japanese"]
    page.fill("#search", "no family is called this")
    assert not any(row.is_visible() for row in rows.all())
    assert page.locator("#empty").is_visible()
    page.fill("#search", "")
    assert sum(row.is_visible() for row in rows.all()) == total
    assert not visit.problems
    visit.close()


def test_every_page_opens_offline_without_errors(browser, site):
    """No console error or warning, no script error, and no request but the page's own file."""
    for path in sorted(site.glob("*.html")):
        visit = Visit(browser, path.as_uri())
        visit.page.hover(".part") if visit.page.locator(".part").count() else None
        assert not visit.problems, (path.name, visit.problems)
        outside = [url for url in visit.requests if not url.startswith("file://")]
        assert not outside, (path.name, outside)
        visit.close()


@pytest.mark.parametrize("width", [1024, 901, 900, 768])
def test_the_index_fits_between_desktop_and_phone(browser, site, width):
    """The six-column table down to its breakpoint, the cards below it: no width scrolls sideways."""
    visit = Visit(browser, (site / "index.html").as_uri(), width)
    scroll = visit.page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width + 1, f"index scrolls sideways at {width} px ({scroll} px wide)"
    visit.close()


@pytest.mark.parametrize("width,label", [(1280, "desktop"), (390, "phone")])
def test_screenshots(browser, site, width, label):
    """Kept for a reader to look at: the index and three pages, top and whole, at both widths."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name in ("index", "phi", "gpt_neox_japanese", "llama"):
        visit = Visit(browser, (site / f"{name}.html").as_uri(), width)
        page = visit.page
        if name != "index":
            page.click('.block-svg .part[data-name="attention_output"]')
            page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"), full_page=True)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width + 1, f"{name} scrolls sideways at {width} px ({scroll} px wide)"
        assert not visit.problems
        visit.close()


def test_on_a_hybrid_the_diagram_follows_the_block_index(browser, site):
    """Where blocks differ (recurrent and attention blocks, say), moving i redraws the block of that kind."""
    hybrid = next((path for path in sorted(site.glob("*.html"))
                   if re.search(r'<script type="application/json" id="kinds">\[\{', path.read_text())), None)
    if hybrid is None:
        pytest.skip("no family has blocks of different kinds")
    visit = Visit(browser, hybrid.as_uri())
    page = visit.page
    kinds = json.loads(page.inner_text("#kinds"))
    for kind in kinds:
        page.fill("#layer", str(kind["indices"][0]))
        page.dispatch_event("#layer", "input")
        drawn = {name: page.get_attribute(f'.block-svg .part[data-name="{name}"]', "class")
                 for name in kind["rows"] if page.locator(f'.block-svg .part[data-name="{name}"]').count()}
        for name, classes in drawn.items():
            assert f"s-{kind['rows'][name]['status']}" in classes, (hybrid.name, kind["indices"][0], name)
        assert drawn, hybrid.name
    assert not visit.problems
    visit.close()

