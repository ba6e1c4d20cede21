"""After a server failover the page reconnects into a fresh session (on the live process), and
its first request carries both the page's URL, written one run earlier, and the widget values
the browser holds, the student's new change among them. The change wins: a session takes from
the URL only what the browser did not send (ui/url.py), so the student's first action after the
failover is not lost (tests/e2e/test_proxy.py prints what a real browser behind nginx saw).

No browser here: the light websocket client of the harness speaks the frontend's protocol, and
a second client carrying the first one's widget values is the reconnected page.
"""

from __future__ import annotations

import harness
from harness.streamlit_client import StreamlitSession
from ui.attention_tab import VIEWS
from viz.style import KIND_LABELS

BEFORE = "the small dog sees the old man ."
TYPED_AFTER_FAILOVER = "the old man sees the dog ."
CHART = "attention_heatmap"


def test_the_first_action_after_a_failover_wins_over_the_url(tmp_path):
    async def visit(url: str) -> tuple[list[str], list[str], list[str]]:
        async with StreamlitSession(url, f"text={BEFORE}") as page:
            await page.rerun()
            before = page.last_chart(CHART).axis_labels("x")
            # The process dies; the page reconnects to a new session with its URL (the mirror
            # of the run above) and sends the sentence typed since, with what else it holds.
            async with StreamlitSession(url, page.query_string) as reconnected:
                reconnected.carry_over(page, values=False)
                await reconnected.set_text("text", TYPED_AFTER_FAILOVER)
                after_failover = reconnected.last_chart(CHART).axis_labels("x")
            await page.set_text("text", TYPED_AFTER_FAILOVER)  # the same change, no failover
            return before, after_failover, page.last_chart(CHART).axis_labels("x")

    with harness.running_server(tmp_path) as server:
        before, after_failover, typed = harness.run_async(visit(server.url))

    assert typed != before
    assert after_failover == typed


def test_a_first_action_after_a_failover_that_hides_a_sent_widget_draws_the_page(tmp_path):
    """The browser sends the kind it showed, and the first action opens a view without a kind
    selector, which still reads the kind: it has the URL's until a run draws the selector."""

    async def visit(url: str):
        async with StreamlitSession(url) as page:
            await page.rerun()
            await page.choose("kind", KIND_LABELS["decoder_self"])
            async with StreamlitSession(url, page.query_string) as reconnected:
                reconnected.carry_over(page)
                run = await reconnected.choose("view", VIEWS["decoding"])
                return run, reconnected.last_chart("decoding_attention")

    with harness.running_server(tmp_path) as server:
        run, chart = harness.run_async(visit(server.url))

    assert run.problems == []
    assert chart.run == run.index
