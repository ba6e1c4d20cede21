"""Clicks where a lecturer expects them, in the real app and Chromium: a square of the Model
overview, a cell of the Find-the-head grid and a row of its ranking each open that head in the
Head heatmap; the row chosen in Heads & rollout survives a reload.

Streamlit's AppTest cannot click a Plotly chart or a table, so these run in the browser.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

import harness
from harness import ACTIVE_PANEL, EXCEPTION, HEATMAP

pytestmark = pytest.mark.browser

PAPER_SENTENCE = "The animal didn't cross the street because it was too tired."
# MiniLM's WordPiece tokens of the sentence: [CLS] the animal didn ' t cross the street because
# it was too tired . [SEP] — "it" is token 10 and "animal" token 2 (0-based).
IT, ANIMAL = 10, 2
N_TOKENS, N_LAYERS, N_HEADS = 16, 6, 12
VIEWPORT = {"width": 1280, "height": 800}
TABLE = '[data-testid="stDataFrame"]'
ROW_PX = 35  # the height of a row (and of the header) of Streamlit's data grid


def _open(server, browser, **params):
    context = browser.new_context(viewport=VIEWPORT)
    page, watch = harness.watched_page(context)
    query = urlencode({"model": "minilm-l6", "text": PAPER_SENTENCE, **params})
    page.goto(f"{server.url}/?{query}")
    harness.wait_drawn(page)
    return context, page, watch


def _wait_for_link(page, wanted) -> None:
    """Until the page's URL is the link `wanted` accepts: the app writes the view into the URL
    at the end of the script run, which can come after the new title is drawn and after the
    running widget looked gone (`harness.wait_idle`): the link was read too early once (fc11)."""
    page.wait_for_url(wanted, timeout=harness.RENDER_TIMEOUT_MS)


def _plot_area(page, chart: int = 0) -> dict:
    """The box of the plotting area (inside the axes) of the open tab's chart."""
    figure = page.locator(ACTIVE_PANEL).locator(HEATMAP).nth(chart)
    return figure.locator(".nsewdrag").first.bounding_box()


def _click_cell(page, column: float, row: float, n_columns: int, n_rows: int) -> None:
    """Click at category position (column, row) of a chart whose axes hold n_columns × n_rows
    categories (row 0 at the top: the axis is reversed)."""
    box = _plot_area(page)
    y = box["y"] + (row + 0.5) / n_rows * box["height"]
    if not 100 < y < VIEWPORT["height"] - 100:  # scroll the point to the middle of the screen
        page.mouse.move(box["x"] + 2, min(max(box["y"], 0) + 2, VIEWPORT["height"] - 2))
        page.mouse.wheel(0, y - VIEWPORT["height"] / 2)
        area = page.locator(ACTIVE_PANEL).locator(HEATMAP).first.locator(".nsewdrag").first
        area.evaluate(  # until the page has scrolled
            "(el, top) => new Promise(done => { const check = () => "
            "Math.abs(el.getBoundingClientRect().top - top) > 1 ? done() : "
            "requestAnimationFrame(check); check(); })",
            box["y"],
        )
        box = _plot_area(page)
        y = box["y"] + (row + 0.5) / n_rows * box["height"]
    page.mouse.move(box["x"] + (column + 0.5) / n_columns * box["width"], y)
    page.mouse.down()
    page.mouse.up()


def _click_row_until(page, row: int, title: str) -> None:
    """Click the row-selection margin of the open tab's first table at `row` (0-based), then
    wait until the first figure's title shows `title`."""
    # Playwright scrolls the table into view and waits until it stands still.
    page.locator(ACTIVE_PANEL).locator(TABLE).first.click(
        position={"x": 12, "y": ROW_PX * (row + 1) + ROW_PX / 2}
    )
    harness.wait_for_title(page, title)


def _ranking():
    """The heads ranked for "it" → "animal", computed here from a run of the model."""
    import torch

    from runtime import registry
    from runtime.trace import run
    from viz.find_head import rank_heads

    trace = run(registry.load("minilm-l6", torch.device("cpu")), PAPER_SENTENCE)
    assert (trace.source_tokens[IT], trace.source_tokens[ANIMAL]) == ("it", "animal")
    return rank_heads(trace.attention["encoder_self"], "encoder_self", IT, ANIMAL)


def _assert_clean(page, watch) -> None:
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()
    assert watch.problems() == []


def test_an_overview_square_opens_its_head(server, browser):
    context, page, watch = _open(server, browser, view="overview")
    try:
        block = N_TOKENS + 1  # cells of a block and the gap after it
        # Layer 3, head 5, near the block's top-left corner: anywhere in the square opens it.
        _click_cell(
            page,
            4 * block + 2,
            2 * block + 2,
            N_HEADS * block - 1,
            N_LAYERS * block - 1,
        )
        harness.wait_for_title(page, "layer 3, head 5")
        # the heatmap is the default view: a link leaves it out
        _wait_for_link(
            page, lambda url: "view=" not in url and "layer=3" in url and "head=5" in url
        )
        _assert_clean(page, watch)
    finally:
        context.close()


def test_find_the_head_grid_cell_and_ranking_row_open_their_heads(server, browser):
    context, page, watch = _open(server, browser, view="find", query=IT, key_token=ANIMAL)
    try:
        harness.wait_for_title(page, "'it' → 'animal'")
        # The grid: layer 2, head 7.
        _click_cell(page, 6, 1, N_HEADS, N_LAYERS)
        harness.wait_for_title(page, "layer 2, head 7")
        _wait_for_link(page, lambda url: "view=" not in url)  # the heatmap, the default view

        # the find view's own keys left the link with the view; a link back names them again
        page.goto(page.url + f"&view=find&query={IT}&key_token={ANIMAL}")
        harness.wait_drawn(page)
        harness.wait_for_title(page, "'it' → 'animal'")
        assert f"query={IT}" in page.url and f"key_token={ANIMAL}" in page.url
        # The ranking: its second row, the second strongest head.
        second = _ranking().iloc[1]
        _click_row_until(page, 1, f"layer {int(second['layer'])}, head {int(second['head'])}")
        _wait_for_link(page, lambda url: "view=" not in url)
        _assert_clean(page, watch)
    finally:
        context.close()


def test_the_heads_table_row_survives_a_reload(server, browser):
    context, page, watch = _open(server, browser, tab="Heads & rollout")
    try:
        _click_row_until(page, 5, "layer 1, head 6")  # rows are layer-major
        # The URL is written at the end of the run, after the figure (seen late on a busy CPU).
        # (layer 1 is the default layer: a link leaves it out)
        page.wait_for_function(
            "() => !location.search.includes('stats_layer=')"
            " && location.search.includes('stats_head=6')",
            timeout=harness.RENDER_TIMEOUT_MS,
        )
        page.reload()
        harness.wait_drawn(page)
        harness.wait_for_title(page, "layer 1, head 6")
        _assert_clean(page, watch)
    finally:
        context.close()
