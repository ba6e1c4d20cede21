"""Fixtures for the browser tests: the real server (`streamlit run server.py`) and Debian's Chromium.

The server runs headless on a free loopback port and is stopped after the module; Chromium is the
system one (/usr/bin/chromium, installed by scripts/ensure-chromium.sh). A missing Chromium fails
the tests instead of skipping them, so CI cannot pass without having driven a real browser.
"""

from __future__ import annotations

import pytest

import harness


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with harness.running_server(tmp_path_factory.mktemp("server")) as running:
        yield running


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    if not harness.CHROMIUM.exists():
        pytest.fail(
            f"{harness.CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does)"
        )
    with sync_playwright() as playwright:
        chromium = harness.launch_chromium(playwright)
        yield chromium
        chromium.close()
