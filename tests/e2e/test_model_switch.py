"""Every control shows what its figure draws across model switches (issue 66, item 1): an
Attention kind chosen on the translator (other than the one it opens on), a switch to a model without it and back left the box
on "encoder self-attention" while the figure and the URL showed decoder masked self-attention.
(A second half that chose each kind afterwards failed by chance in CI's load, its option
detached from the DOM for 30 s while clicked: left out until that is understood.)"""

from __future__ import annotations

import pytest

import harness
from harness import ACTIVE_PANEL, EXCEPTION
from viz.style import KIND_LABELS

pytestmark = pytest.mark.browser


def _choose(page, box_text: str, option: str, where: str = ACTIVE_PANEL) -> None:
    page.locator(where).locator('[data-testid="stSelectbox"]').filter(
        has_text=box_text
    ).first.click()
    page.get_by_role("option", name=option, exact=True).click()


def _title_kind(page) -> str:
    title = harness.figure_title(page)
    return next(kind for kind, label in KIND_LABELS.items() if title.startswith(label))


def _wait_for_url_kind(page, kind: str) -> None:
    """Until the link holds `kind` (none: the translator's default, cross-attention, where it
    opens: issue 66, item 4). The link is written at a run's end, after the figure: a test
    that read it at once raced it."""
    page.wait_for_function(
        "(kind) => (new URLSearchParams(location.search).get('kind') || 'cross') === kind",
        arg=kind,
        timeout=60_000,
    )


def _kind_box(page) -> str:
    box = page.locator(ACTIVE_PANEL).locator('[data-testid="stSelectbox"]')
    box = box.filter(has_text="Attention kind").first
    return box.inner_text() + " " + box.locator("input").first.input_value()


@pytest.mark.parametrize("other", ["minilm-l6", "smollm2-135m", "paper-untrained"])
def test_the_kind_box_and_its_figure_agree_after_a_round_trip_to_another_model(
    server, browser, other
):
    from runtime.registry import MODELS

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page, watch = harness.watched_page(context)
    page.goto(server.url + "/")  # the first page, as a newcomer opens it
    harness.wait_for_title(page, "cross")  # the translator opens on its aligned head
    harness.wait_run_finished(page, watch)
    # Each action waits for the run it starts to end (read from the websocket): `wait_idle`
    # right after a click returned before that run had begun, and the next click cut the
    # model's run short; the test then read a page half drawn (CI, stop 69: the box of the
    # last full run beside the figure of the new one).
    with harness.script_run(watch):
        _choose(page, "Attention kind", KIND_LABELS["decoder_self"])
    harness.wait_for_title(page, "decoder masked self-attention")
    for name in (other, "en-de"):
        with harness.script_run(watch):
            _choose(page, "Model", MODELS[name].label, where='[data-testid="stSidebar"]')
        harness.wait_drawn(page)
    # the box names the kind its figure draws and its link holds, whichever that is
    drawn = _title_kind(page)
    assert KIND_LABELS[drawn] in _kind_box(page), (_kind_box(page), drawn)
    _wait_for_url_kind(page, drawn)
    assert page.locator(EXCEPTION).count() == 0
    assert watch.problems() == []
    context.close()
