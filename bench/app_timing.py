"""Measurement 6: the app itself.

1. Server-side rerun time of the whole page (Streamlit's AppTest runs app.py in this process):
   after changing the layer, the head (the model does not run again: the Trace is cached), and
   after typing a new sentence (a cache miss: the model runs, then every tab draws).
2. In a real browser: from starting `streamlit run server.py` to the first heatmap with its
   token tick labels in headless Debian Chromium (cold: the server loads the default model
   before its health check says ok), from the first page opened on that server to its heatmap
   (the first visitor), and from opening a second page to its heatmap (warm).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import harness
from corpus.generator import generate

from .timing import Stats

ROOT = Path(__file__).resolve().parents[1]
START_TEXT = "the small dog sees the old man ."
# The first heatmap in the visible tab, drawn with its token labels: what a lecturer waits for.
HEATMAP_DRAWN = """(panelSelector) => {
    const panel = document.querySelector(panelSelector);
    const chart = panel && panel.querySelector('.js-plotly-plot');
    return !!chart && chart.querySelectorAll('.xaxislayer-above .xtick text').length > 0;
}"""


def new_sentences(count: int) -> list[str]:
    """Distinct sentences the translator knows, so every one is a cache miss."""
    return [example.english_text for example in generate(count, seed=11)]


def _rerun(at, set_value) -> float:
    set_value(at)
    started = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - started
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return elapsed


def reruns(model: str, count: int) -> dict:
    """Median (min, max) of `count` whole-page reruns after each kind of change."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["model"] = model
    at.query_params["text"] = START_TEXT
    at.run()  # loads the model and fills the caches
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    changes = {
        "layer": lambda i: lambda at: at.select_slider(key="layer").set_value(i % 2 + 1),
        "head": lambda i: lambda at: at.selectbox(key="head").set_value(i % 2 + 1),
    }
    sentences = new_sentences(count)
    changes["new sentence"] = lambda i: (
        lambda at: at.sidebar.text_area(key="text").set_value(sentences[i])
    )
    timings = {}
    for what, change in changes.items():
        before = at.get("plotly_chart")[0].proto.spec
        timings[what] = Stats(tuple(_rerun(at, change(i)) for i in range(count)))
        if at.get("plotly_chart")[0].proto.spec == before:  # the change reached the figure
            raise RuntimeError(f"changing the {what} did not change the first figure")
    return timings


def _open_until_heatmap(context, url: str) -> tuple[float, float, list[str]]:
    """Open a page: seconds from goto to Streamlit's page shell (its JavaScript app mounted), to
    the first heatmap with tick labels, and those labels."""
    page, watch = harness.watched_page(context)
    started = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.locator('[data-testid="stApp"]').wait_for(timeout=harness.RENDER_TIMEOUT_MS)
    shell = time.perf_counter() - started
    page.wait_for_function(
        HEATMAP_DRAWN, arg=harness.ACTIVE_PANEL, timeout=harness.RENDER_TIMEOUT_MS
    )
    elapsed = time.perf_counter() - started
    labels = harness.tick_labels(page)
    if watch.problems():
        raise RuntimeError(f"the page had problems: {watch.problems()}")
    return shell, elapsed, labels


def browser(model: str | None, cold_starts: int, warm_pages: int, preload: bool = False) -> dict:
    """Cold: server start -> first heatmap; first visitor: the first page opened on a fresh
    server -> its heatmap. Warm: another page once the server has served one. `preload`: the
    server started with ATLAS_PRELOAD naming the model (docs/deploy.md)."""
    from playwright.sync_api import sync_playwright

    cold, server_ready, first, warm, warm_shell, labels = [], [], [], [], [], []
    query = f"/?model={model}" if model else "/"
    with sync_playwright() as playwright:
        chromium = harness.launch_chromium(playwright)  # not timed: the browser is already open
        try:
            for _ in range(cold_starts):
                with tempfile.TemporaryDirectory() as logs:
                    started = time.perf_counter()
                    environment = {"ATLAS_PRELOAD": model} if preload and model else None
                    with harness.running_server(Path(logs), environment=environment) as server:
                        server_ready.append(time.perf_counter() - started)
                        context = chromium.new_context(viewport={"width": 1280, "height": 900})
                        _, seconds, labels = _open_until_heatmap(context, server.url + query)
                        first.append(seconds)
                        cold.append(time.perf_counter() - started)
                        context.close()
                        for _ in range(warm_pages):
                            context = chromium.new_context(viewport={"width": 1280, "height": 900})
                            shell, seconds, _ = _open_until_heatmap(context, server.url + query)
                            warm_shell.append(shell)
                            warm.append(seconds)
                            context.close()
        finally:
            chromium.close()
    return {
        "page": query,
        "server_ready": Stats(tuple(server_ready)),
        "cold": Stats(tuple(cold)),
        "first_page": Stats(tuple(first)),
        "warm": Stats(tuple(warm)),
        "warm_page_shell": Stats(tuple(warm_shell)),
        "heatmap_tick_labels": labels,
    }
