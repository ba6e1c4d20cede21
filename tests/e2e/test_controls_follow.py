"""The layer and head a person chose survive a cleared text box: the controls and the heatmap
agree after a new sentence (issue 45, item 2: the slider showed layer 1 and the head box "mean
over heads" while the heatmap stayed on layer 4, head 6)."""

from __future__ import annotations

import pytest

import harness
from harness import ACTIVE_PANEL, EXCEPTION
from runtime.pretrained import minilm_tokenizer

pytestmark = pytest.mark.browser

FIRST = "The small dog sees the old man."
SECOND = "My sister reads a long book."


def tokens(text: str) -> list[str]:
    return list(minilm_tokenizer().encode(text, 512).tokens)


def test_a_cleared_text_box_keeps_the_chosen_layer_and_head(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page, watch = harness.watched_page(context)
    page.goto(server.url + "/?model=minilm-l6")
    harness.wait_for_ticks(page, tokens(FIRST))
    panel = page.locator(ACTIVE_PANEL)
    slider = panel.locator('[data-testid="stSlider"] input[type="range"]').first
    for shown in range(2, 5):  # one step at a time: a key pressed during a run is lost
        slider.press("ArrowRight")
        harness.wait_for_title(page, f"layer {shown},")
    panel.locator('[data-testid="stSelectbox"]').filter(has_text="Head").first.click()
    page.get_by_role("option", name="head 6", exact=True).click()
    harness.wait_for_title(page, "layer 4, head 6")
    harness.wait_idle(page)

    harness.type_text(page, "")
    page.locator('[data-testid="stMain"] [data-testid="stAlert"]').first.wait_for()
    harness.wait_idle(page)
    harness.type_text(page, SECOND)
    harness.wait_for_ticks(page, tokens(SECOND))
    harness.wait_idle(page)

    assert "layer 4, head 6" in harness.figure_title(page)
    slider_text = page.locator(ACTIVE_PANEL).locator('[data-testid="stSlider"]').first.inner_text()
    head_box = page.locator(ACTIVE_PANEL).locator('[data-testid="stSelectbox"]')
    head_box = head_box.filter(has_text="Head").first
    shown_head = head_box.inner_text() + " " + head_box.locator("input").first.input_value()
    assert "4" in slider_text.split(), slider_text
    assert "head 6" in shown_head, shown_head
    assert page.locator(EXCEPTION).count() == 0
    assert watch.problems() == []
    context.close()
