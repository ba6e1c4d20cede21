"""The head atlas in the real app and Chromium: opened from its tab on MiniLM, a head switched
with the Head selector, and a click on one point of the head's picture opens that point's
sentence on the same head in the Attention tab's heatmap.

Streamlit's AppTest cannot click a Plotly chart, so this runs in the browser.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

import harness
from harness import ACTIVE_PANEL, EXCEPTION, HEATMAP
from runtime.atlas import built_in_corpus

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 800}


def test_switch_a_head_then_click_a_point_into_the_attention_tab(server, browser):
    context = browser.new_context(viewport=VIEWPORT)
    page, watch = harness.watched_page(context)
    try:
        query = {"model": "minilm-l6", "tab": "Head atlas", "atlas_view": "head"}
        page.goto(f"{server.url}/?{urlencode(query)}")
        harness.wait_drawn(page)
        harness.wait_for_title(page, "layer 1, head 1")
        panel = page.locator(ACTIVE_PANEL)
        panel.get_by_role("combobox", name="Head", exact=True).click()
        page.get_by_role("option", name="head 3", exact=True).click()
        harness.wait_for_title(page, "layer 1, head 3")
        harness.wait_idle(page)
        point = panel.locator(HEATMAP).first.locator(".scatterlayer .trace .points path").nth(5)
        point.scroll_into_view_if_needed()
        box = point.bounding_box()  # Plotly takes clicks on its drag layer, over the point
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function("() => !location.search.includes('Head+atlas')")
        harness.wait_drawn(page)
        harness.wait_for_title(page, "layer 1, head 3")
        assert "atlas" not in page.locator(ACTIVE_PANEL).inner_text().lower()
        assert "layer=0" in page.url and "head=2" in page.url
        text = page.locator("textarea").first.input_value()
        assert text in built_in_corpus_of_minilm()
        assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()
        assert watch.problems() == []
    finally:
        context.close()


def built_in_corpus_of_minilm() -> tuple[str, ...]:
    import torch

    from runtime import registry

    return built_in_corpus(registry.load("minilm-l6", torch.device("cpu")))
