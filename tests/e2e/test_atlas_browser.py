"""The head atlas in the real app and Chromium: opened from its tab on MiniLM, a row of the
roles table opens its head's picture, a head switched with the Head selector, and a click on
one point of the head's picture opens that point's sentence on the same head in the Attention
tab's heatmap.

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
TABLE = '[data-testid="stDataFrame"]'
ROW_PX = 35  # the height of a row (and of the header) of Streamlit's data grid


def test_a_row_of_the_roles_table_opens_its_head(server, browser):
    context = browser.new_context(viewport=VIEWPORT)
    page, watch = harness.watched_page(context)
    try:
        page.goto(f"{server.url}/?{urlencode({'model': 'minilm-l6', 'tab': 'Head atlas'})}")
        harness.wait_drawn(page)
        row = 2  # layer 1, head 3: the table lists heads in order
        page.locator(ACTIVE_PANEL).locator(TABLE).first.click(
            position={"x": 12, "y": ROW_PX * (row + 1) + ROW_PX / 2}
        )
        harness.wait_for_title(page, "layer 1, head 3")
        harness.wait_idle(page)  # the URL is written at the end of the run
        page.wait_for_function("() => location.search.includes('atlas_view=head')")
        assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()
        assert watch.problems() == []
    finally:
        context.close()


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
        # The link is written key by key at the run's end, each change reaching the browser on
        # its own: read at once, it was caught between them (head=3 not yet there, under load).
        page.wait_for_function(
            "() => location.search.includes('head=3') && !location.search.includes('layer=')"
        )  # layer 1: the default, left out
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


def test_a_click_on_a_named_token_opens_a_sentence_that_has_it(server, browser):
    context = browser.new_context(viewport=VIEWPORT)
    page, watch = harness.watched_page(context)
    try:
        query = {"model": "minilm-l6", "tab": "Head atlas", "atlas_view": "head"}
        query |= {"atlas_colour": "token", "atlas_token": "because"}
        page.goto(f"{server.url}/?{urlencode(query)}")
        harness.wait_drawn(page)
        harness.wait_idle(page)
        panel = page.locator(ACTIVE_PANEL)
        traces = panel.locator(HEATMAP).first.locator(".scatterlayer .trace")
        # trace 4: the named token's keys, drawn over every other point
        point = traces.nth(3).locator(".points path").nth(1)
        point.scroll_into_view_if_needed()
        box = point.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function("() => !location.search.includes('Head+atlas')")
        harness.wait_drawn(page)
        text = page.locator("textarea").first.input_value()
        assert text in built_in_corpus_of_minilm() and "because" in text.lower()
        assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()
        assert watch.problems() == []
    finally:
        context.close()
