"""A figure into slides, in the real app and Debian's Chromium: on the Positional encoding tab
(not the Attention tab), one click on "Slide PNG" under a figure downloads a 1920x1080 PNG
named after the figure, and "Slide SVG" an SVG with the figure's title, from a fresh page.

Any exception element, console error or request to a host other than 127.0.0.1 fails the test.
"""

from __future__ import annotations

import struct
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import harness
from harness import ACTIVE_PANEL, EXCEPTION

pytestmark = pytest.mark.browser


def download(page, label: str) -> tuple[str, bytes, float]:
    """Click the first button `label` in the open tab; the file's name, bytes and seconds."""
    button = page.locator(f'{ACTIVE_PANEL} [data-testid="stDownloadButton"] button')
    button = button.filter(has_text=label).first
    button.scroll_into_view_if_needed()
    started = time.monotonic()
    with page.expect_download(timeout=harness.RENDER_TIMEOUT_MS) as info:
        button.click()
    path = info.value.path()
    return info.value.suggested_filename, Path(path).read_bytes(), time.monotonic() - started


def test_a_positional_figure_downloads_as_a_slide(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page, watch = harness.watched_page(context)
    page.goto(f"{server.url}/?model=paper-untrained&tab=Positional%20encoding")
    harness.wait_drawn(page)
    title = page.locator(f"{ACTIVE_PANEL} .gtitle").first.text_content()

    name, png, first_s = download(page, "Slide PNG")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1920, 1080)
    assert name.startswith("paper-untrained-") and name.endswith(".png")
    assert "sinusoidal" in name  # the first figure's title: "Sinusoidal positional encoding…"

    name, svg, later_s = download(page, "Slide SVG")
    root = ET.fromstring(svg)
    texts = [
        "".join(element.itertext()) for element in root.iter("{http://www.w3.org/2000/svg}text")
    ]
    assert name.endswith(".svg") and title in texts
    print(f"first slide export {first_s:.1f} s, next {later_s:.1f} s")

    assert page.locator(EXCEPTION).count() == 0
    assert watch.problems() == []
    context.close()
