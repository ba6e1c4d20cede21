"""Fixtures for the browser tests: the real server (`streamlit run server.py`) and Debian's Chromium.

The server runs headless on a free loopback port; it and the browser are started once for the test
session (each xdist worker has its own) and shared by every module that only reads the app through
its pages: a Streamlit session lives in its page, so tests do not see each other's. Chromium is the
system one (/usr/bin/chromium, installed by scripts/ensure-chromium.sh). A missing Chromium fails
the tests instead of skipping them, so CI cannot pass without having driven a real browser.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

import harness


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    with harness.running_server(tmp_path_factory.mktemp("server")) as running:
        yield running


@pytest.fixture(scope="session")
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


# How much of the shared server's log a failed browser test shows: enough for a traceback or
# the last script runs (a page that never drew once left nothing to read but its timeout).
SERVER_LOG_TAIL = 6000
# ... and its threads' stacks at that moment (fc6's hang: a scene's head atlas never drew in
# 300 s, and the log said nothing of what the server was doing meanwhile)
SERVER_STACKS = 30000


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used the shared server reports the end of that server's log, and
    what every thread of the server is doing as the test fails."""
    report = yield
    funcargs = getattr(item, "funcargs", {})
    if report.failed and report.when == "call":
        for n, (page, watch) in enumerate(_pages(funcargs.values())):
            shot = Path(tempfile.gettempdir()) / "e2e-failures" / f"{_safe(item.nodeid)}-{n}.png"
            shot.parent.mkdir(exist_ok=True)
            state = harness.page_state(page, shot, watch)
            report.sections.append((f"page {n} at failure", state))
    running = funcargs.get("server")
    if report.failed and running is not None and running.process.poll() is None:
        log = running.log()
        report.sections.append((f"app server log (last {SERVER_LOG_TAIL} characters)",
                                log[-SERVER_LOG_TAIL:]))  # fmt: skip
        report.sections.append(("app server threads", running.stacks()[:SERVER_STACKS]))
    return report


def _pages(values) -> list:
    """The Playwright pages among a test's fixtures, each with its watch where it comes in a
    (page, watch) pair (harness.watched_page), else None."""
    from playwright.sync_api import Page

    found = []
    for value in values:
        parts = value if isinstance(value, tuple) else (value,)
        watches = [part for part in parts if isinstance(part, harness.PageWatch)]
        for part in parts:
            if isinstance(part, Page):
                found.append((part, watches[0] if watches else None))
    return found


def _safe(nodeid: str) -> str:
    return re.sub(r"[^\w.-]+", "_", nodeid)[-120:]
