"""The layout of every figure, read from the browser: every tab and view of every model, at a
lecture screen (1920×1080, presentation mode) and a laptop (1280×800).

For each page, `tests/e2e/layout.py` reads the boxes of every text element Plotly drew and
reports texts printed over each other, text cut off by the figure or the page, text below the
minimum size, and legends or colour bars over text; and it reads every visible select box for a
chosen option wider than its box (which Streamlit cuts without an ellipsis).

The check landed with a list of the 1,841 problems the page then had (commit 137a451, in
`layout_baseline.json`), which could only shrink; the list is empty now and gone: any problem
fails the test.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import pytest

import harness
from tests.e2e.layout import caption_problems, settled_layout_problems, widget_problems


@dataclass(frozen=True)
class Screen:
    name: str
    width: int
    height: int
    presentation: bool
    min_font_px: float  # smallest figure text a person can read at this screen's distance


SCREENS = (
    Screen("lecture-1920", 1920, 1080, presentation=True, min_font_px=16),
    Screen("laptop-1280", 1280, 800, presentation=False, min_font_px=12),
)

# Sentences a lecturer would type: the page's default on the translator, and the paper's own
# anaphora sentence on MiniLM (15 tokens: where tick labels started to overprint).
TEXTS = {
    "en-de": "The small dog sees the old man.",
    "minilm-l6": "The animal didn't cross the street because it was too tired.",
    "paper-untrained": "The small dog sees the old man.",
    "smollm2-135m": "What is the capital of France?",
}
# A language model has no encoder to attribute through and no Figure 1 of its own (app.py).
PAPER_ONLY_TABS = {"smollm2-135m": ("Attention vs gradients", "The paper, live")}

ATTENTION_VIEWS = ("heatmap", "overview", "links", "breakdown")
PAPER_VIEWS = ("fig1", "fig2", "restricted", "table1", "projections")
ATLAS_VIEWS = ("roles", "head", "matrix")
OTHER_TABS = ("Heads & rollout", "Ablation", "Positional encoding", "Scaling 1/√d_k", "Model")


# Compare: a second text one word away from the first, and the same text under two settings.
COMPARE_MODES = ("texts", "scale", "ablate")
SECOND_TEXTS = {
    "en-de": "The small dog sees the old woman.",
    "minilm-l6": "The animal didn't cross the street because it was too wide.",
    "paper-untrained": "The small dog sees the old woman.",
    "smollm2-135m": "What is the capital of Germany?",
}
# Find the head: a query and a key token by position (MiniLM: 'it' → 'animal'), on every kind.
FIND_THE_HEAD = {
    "minilm-l6": ({"view": "find", "query": "10", "key_token": "2"},),
    "en-de": (
        {"view": "find", "kind": "cross", "query": "2", "key_token": "3"},
        {"view": "find", "kind": "decoder_self", "query": "4", "key_token": "2"},
    ),
    "paper-untrained": ({"view": "find", "query": "3", "key_token": "1"},),
    "smollm2-135m": ({"view": "find", "query": "40", "key_token": "30"},),
}
UPPER_CROSS_LAYERS_OFF = ",".join(
    f"cross:{layer}:{head}" for layer in (5, 6) for head in range(1, 9)
)
# Figures 3–5 run on MiniLM whatever the sidebar's model: each figure once.
PAPER_HEAD_FIGURES = ("3", "4", "5")


def pages() -> list[tuple[str, dict[str, str]]]:
    """(page id, URL parameters) for every tab and view of every model."""
    found = []
    for model in TEXTS:
        views = [("Attention", {"view": v}) for v in ATTENTION_VIEWS]
        if model == "en-de":
            views += [
                ("Attention", {"view": "heatmap", "kind": "cross"}),
                ("Attention", {"view": "decoding"}),
            ]
        views += [("Attention vs gradients", {"attr_steps": "16"})]
        views += [(tab, {}) for tab in OTHER_TABS]
        views += [("Head atlas", {"atlas_view": v}) for v in ATLAS_VIEWS]
        views += [("The paper, live", {"paper_view": v}) for v in PAPER_VIEWS]
        views += [("Compare", {"compare_mode": mode}) for mode in COMPARE_MODES]
        views += [("Attention", find) for find in FIND_THE_HEAD.get(model, ())]
        if model == "en-de":
            # Both upper cross-attention layers off: the longest grid title of the tab (in a
            # half column), one comparable decoder row (a short colour bar), and a step table
            # with missing values; its title was cut and the bar's labels overprinted.
            views += [("Ablation", {"ablate": UPPER_CROSS_LAYERS_OFF})]
        if model == "minilm-l6":
            views += [("Heads & rollout", {"stats_layer": "4", "stats_head": "8"})]
            views += [
                (
                    "Head atlas",
                    {"atlas_view": "head", "atlas_projection": "tsne", "atlas_colour": "token"},
                )
            ]
            views += [
                ("The paper, live", {"paper_view": "fig3-5", "paper_hfig": f})
                for f in PAPER_HEAD_FIGURES
            ]
        views = [v for v in views if v[0] not in PAPER_ONLY_TABS.get(model, ())]
        for tab, extra in views:
            page_id = " · ".join([model, tab, *extra.values()])
            params = {"model": model, "text": TEXTS[model], "tab": tab, **extra}
            if extra.get("compare_mode") == "texts":
                params["compare_text"] = SECOND_TEXTS[model]
            if extra.get("compare_mode") == "ablate":
                kind = "decoder_self" if model in PAPER_ONLY_TABS else "encoder_self"
                params["ablate"] = f"{kind}:1:2"
            found.append((page_id, params))
    return found


PAGES = pages()


@pytest.fixture(scope="module")
def pages(browser):
    """One page a screen, kept for the module: each test loads its URL into it afresh (a new
    Streamlit session), as a new tab would, but the browser's cached scripts and its renderer
    process are reused (a new tab a test had cost ~2 s of Chromium's CPU)."""
    made = {}
    for s in SCREENS:
        context = browser.new_context(viewport={"width": s.width, "height": s.height})
        made[s.name] = harness.watched_page(context)
    yield made
    for page, _ in made.values():
        page.context.close()


def open_page(server, pages, screen: Screen, params: dict[str, str]):
    """The screen's page with the app at `params`, in presentation mode on the lecture screen."""
    page, watch = pages[screen.name]
    watch.clear()
    query = {**params, "present": "1" if screen.presentation else "0"}
    page.goto(server.url + "/?" + urlencode(query))
    harness.wait_run_finished(page, watch)
    return page, watch


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: s.name)
@pytest.mark.parametrize("page_id, params", PAGES, ids=[page_id for page_id, _ in PAGES])
def test_figures_readable(server, pages, screen, page_id, params):
    page, watch = open_page(server, pages, screen, params)
    harness.wait_drawn(page, charts=0)
    assert page.locator(harness.EXCEPTION).count() == 0, page.locator(
        harness.EXCEPTION
    ).first.inner_text()
    assert watch.problems() == []
    problems = settled_layout_problems(page, screen.min_font_px)
    checked, cut = widget_problems(page)
    problems += [str(p) for p in cut]
    read, faint = caption_problems(page)
    problems += [str(p) for p in faint]
    # The laptop's sidebar is open, so its model select box and the model's caption are always
    # read: a Streamlit whose markup the probes no longer recognise fails here, not unread.
    if screen.presentation and params.get("tab", "Attention") in FIRST_SCREEN_TABS:
        problems += first_figure_problems(page, screen.height)
    assert checked > 0 or screen.presentation, "no select box read: has Streamlit's markup changed?"
    assert read > 0 or screen.presentation, "no caption read: has Streamlit's markup changed?"
    assert not problems, (
        f"{len(problems)} layout problem(s) on {screen.name} · {page_id}:\n" + "\n".join(problems)
    )


def first_figure_problems(page, screen_height: int) -> list[str]:
    """In presentation mode the open tab's first figure starts on the lecture screen, without a
    scroll (issue 66, item 3: the opening heatmap started at y ≈ 660 of 1,080 and a chat model's
    ran 2,142 px down)."""
    charts = page.locator(f"{harness.ACTIVE_PANEL} .js-plotly-plot")
    if charts.count() == 0:
        return []
    top = charts.first.bounding_box()["y"]
    if top < screen_height - FIRST_FIGURE_SHOWN_PX:
        return []
    return [f"the first figure starts at y = {top:.0f} px, below the first screen"]


# How much of the open tab's first figure the lecture screen must show at least.
FIRST_FIGURE_SHOWN_PX = 200
# The tabs held to it. Not yet the others: on 31 of their pages (Heads & rollout, Head atlas,
# Compare, Ablation, the Model tab, a few of the paper's figures) tables and controls above the
# first figure push it below the fold in presentation mode (issue 66, item 3, open).
FIRST_SCREEN_TABS = {"Attention"}


@pytest.mark.parametrize("screen", [s for s in SCREENS if s.presentation], ids=lambda s: s.name)
def test_a_twelve_word_sentence_is_whole_on_the_lecture_screen(server, pages, screen):
    """Presentation mode at 1920×1080: the translator's opening heatmap of a 12-word sentence
    starts in the upper half of the screen and is whole on it, every token labelled (issue 66,
    item 3: it started at y ≈ 600 and ran 230 px past the screen's bottom)."""
    sentence = "The young teacher gives the small children a new book every morning."
    page, _ = open_page(server, pages, screen, {"text": sentence})
    harness.wait_drawn(page)
    chart = page.locator(f"{harness.ACTIVE_PANEL} {harness.HEATMAP}").first
    box = chart.bounding_box()
    cells = chart.locator(".heatmaplayer").first.bounding_box()
    assert box["y"] <= screen.height / 2, f"the figure starts at y = {box['y']:.0f} px"
    assert cells["y"] + cells["height"] <= screen.height, (
        f"its cells end at y = {cells['y'] + cells['height']:.0f} px"
    )
    columns = harness.tick_labels(page, "x")
    words = sentence[:-1].split() + ["."]  # the translator's tokenizer keeps these words whole
    assert columns == words
    rows, cells_down = chart.locator(".js-plotly-plot").first.evaluate(
        "c => [c.querySelectorAll('.yaxislayer-above .ytick text').length, c._fullData[0].z.length]"
    )
    assert rows == cells_down, f"{rows} of {cells_down} rows labelled"
    assert "hover for all" not in chart.locator(".xtitle").first.text_content()


# The most blank between a figure's title and its top axis title, in title font sizes: Plotly
# leaves about one; a band of 2.3-2.4 (room kept for labels turned upright that lay level) parted
# the opening heatmap from its title (issue 45, item 6).
TITLE_GAP_FONTS = 1.6


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: s.name)
def test_the_opening_heatmap_is_whole_on_the_first_screen(server, pages, screen):
    """Heading, output, tabs and controls leave room for the whole opening heatmap of the
    default sentence, its last row included, without scrolling; no blank band parts it from its
    title. (Its last row was below the fold at both screens.)"""
    page, _ = open_page(server, pages, screen, {"text": TEXTS["en-de"]})
    harness.wait_drawn(page)
    chart = page.locator(f"{harness.ACTIVE_PANEL} {harness.HEATMAP}").first
    cells = chart.locator(".heatmaplayer").first.bounding_box()
    assert cells["y"] + cells["height"] <= screen.height, (
        f"the heatmap's cells run from y = {cells['y']:.0f} to "
        f"{cells['y'] + cells['height']:.0f} px, past the screen's {screen.height}"
    )
    title = chart.locator(".gtitle").first.bounding_box()
    axis_title = chart.locator(".xtitle").first.bounding_box()
    title_px = float(
        chart.locator(".gtitle").first.evaluate("t => getComputedStyle(t).fontSize")[:-2]
    )
    gap = axis_title["y"] - (title["y"] + title["height"])
    assert gap <= TITLE_GAP_FONTS * title_px, f"{gap:.0f} px blank under the title"


@pytest.mark.parametrize("model", ["minilm-l6", "en-de"])
@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: s.name)
def test_every_tab_of_the_tab_bar_is_in_view(server, browser, screen, model):
    """At 1280 px with the sidebar open the last tab sat past the page's edge, behind a scroll
    arrow (issue 45, item 9): every tab is now within the main area, on one row, on MiniLM's
    page and on the default model's (whose output line stands above the tabs). A new browser
    context, as a newcomer's first visit: the arrow was seen there, not on a reused page."""
    context = browser.new_context(viewport={"width": screen.width, "height": screen.height})
    try:
        _tab_bar_in_view(server, context, screen, model)
    finally:
        context.close()


def _tab_bar_in_view(server, context, screen: Screen, model: str) -> None:
    page, _ = harness.watched_page(context)
    present = "1" if screen.presentation else "0"
    page.goto(server.url + "/?" + urlencode({"model": model, "present": present}))
    harness.wait_drawn(page)
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stTab"]')].map(t => {
            const r = t.getBoundingClientRect();
            return [t.innerText, r.left, r.right, r.top];
        })"""
    )
    # the main area's content box: inside its padding, where the views are drawn
    left_edge, right_edge = page.evaluate(
        """() => {
            const main = document.querySelector('[data-testid="stMainBlockContainer"]');
            const r = main.getBoundingClientRect(), style = getComputedStyle(main);
            return [r.left + parseFloat(style.paddingLeft),
                    r.right - parseFloat(style.paddingRight)];
        }"""
    )
    outside = [
        label for label, left, right, _ in boxes if left < left_edge - 1 or right > right_edge + 1
    ]
    assert not outside, f"tabs past the main area's edge at {right_edge:.0f} px: {outside}"
    assert len({round(top) for *_, top in boxes}) == 1, "the tab bar took more than one row"
    # Streamlit's scroll arrow, drawn over the last tab's end even where the tabs fit (seen in
    # some fresh contexts over "The paper, live" at 1280: its last 20 px cut, the tabs 3 px
    # inside the edge; ui/page.css hides it, as the wrapping tab list never scrolls)
    arrows = page.evaluate(
        """() => [...document.querySelectorAll(
            '[data-testid="stTabsScrollRight"], [data-testid="stTabsScrollLeft"]')]
            .filter(b => b.checkVisibility()).map(b => b.dataset.testid)"""
    )
    assert arrows == [], f"a scroll arrow over the tab bar: {arrows}"
