"""The positional lab's two figures as the browser draws them (issue 45, item 8): the
PE(p)·PE(q) map's axes run over its positions only (a square scale anchor stretched the y axis
to −50…150, half of it empty), and the four-dimension wave plot keeps most of its width for the
waves (its legend took half of it)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

import harness

pytestmark = pytest.mark.browser

SCREENS = {
    "laptop": ({"width": 1280, "height": 800}, "0"),
    "projector": ({"width": 1920, "height": 1080}, "1"),
}


def chart_titled(page, fragment: str):
    charts = page.locator(f"{harness.ACTIVE_PANEL} {harness.HEATMAP}")
    for i in range(charts.count()):
        title = charts.nth(i).locator(".gtitle").first
        if title.count() and fragment in (title.text_content() or ""):
            return charts.nth(i)
    raise AssertionError(f"no figure titled …{fragment}…")


@pytest.mark.parametrize("screen", SCREENS)
def test_the_positional_figures_use_their_room(server, browser, screen):
    viewport, present = SCREENS[screen]
    context = browser.new_context(viewport=viewport)
    page, watch = harness.watched_page(context)
    query = {"model": "en-de", "tab": "Positional encoding", "present": present}
    page.goto(server.url + "/?" + urlencode(query))
    harness.wait_drawn(page, charts=3)

    similarity = chart_titled(page, "PE(p)·PE(q), first")
    ticks = [
        float(t.replace("−", "-")) for t in similarity.locator(".ytick text").all_text_contents()
    ]
    assert min(ticks) >= 0 and max(ticks) <= 100, ticks

    waves = chart_titled(page, "PE(position, dim) for")
    plot = waves.locator(".draglayer .nsewdrag").first.bounding_box()  # the plotting area
    whole = waves.bounding_box()
    assert plot["width"] >= 0.6 * whole["width"], (plot, whole)
    assert watch.problems() == []
    context.close()
