"""Twenty students at once on one server: every page gets its own heatmap, none errs, and the
server's memory after the load stays within a stated bound of before. Correctness, not speed: the
timings are reported by bench/load.py."""

from __future__ import annotations

import pytest

import harness
from runtime.pretrained import minilm_tokenizer

# serial: twenty Chromium pages take both cores; beside another worker's tests they made the run
# slower as a whole (22.5 min of pytest against 16) and the other worker's pages time out
pytestmark = [pytest.mark.browser, pytest.mark.serial]

PAGES = 20
RSS_GROWTH_LIMIT = (
    1.5 * 2**30
)  # bytes: caches of 20 new Traces and 20 sessions, far less in practice


def test_twenty_pages_at_once(server, browser):
    sentences = harness.load_sentences(PAGES)
    tokenizer = minilm_tokenizer()
    expected = [list(tokenizer.encode(s, 512).tokens) for s in sentences]
    assert len({tuple(t) for t in expected}) == PAGES
    result = harness.run_load(browser, server, sentences, expected, model="minilm-l6")
    assert result.problems == []
    assert len(result.seconds) == PAGES
    growth = result.rss_after - result.rss_before
    print(
        f"\n{harness.summary(result.seconds)}; server RSS {result.rss_before / 2**20:.0f} MiB -> "
        f"{result.rss_after / 2**20:.0f} MiB"
    )
    assert growth < RSS_GROWTH_LIMIT, f"the server grew by {growth / 2**20:.0f} MiB"
    assert "Traceback" not in server.log()
