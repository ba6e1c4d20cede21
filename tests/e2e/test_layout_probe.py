"""The layout probe itself, on figures and select boxes whose faults are known: it must find what
a person sees as broken and nothing in a clean one (Chromium, no server: the page's own HTML)."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

import harness
from tests.e2e.layout import layout_problems, settled_layout_problems, widget_problems


def _figure(**layout) -> go.Figure:
    fig = go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 1, 4], name="first line"))
    fig.add_scatter(x=[0, 1, 2], y=[4, 1, 0], name="second line")
    settings = {
        "width": 600,
        "height": 400,
        "title": {"text": "A clean figure"},
        "xaxis_title": "x axis title",
        "font": {"size": 16},
        "template": "none",
    }
    fig.update_layout(**(settings | layout))
    return fig


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context(viewport={"width": 900, "height": 700})
    yield context.new_page()
    context.close()


def _problems(page, fig: go.Figure, min_font: float = 12) -> list[str]:
    page.set_content(fig.to_html(include_plotlyjs=True, full_html=True))
    page.wait_for_function(
        "() => (document.querySelector('.js-plotly-plot') || {})._fullLayout !== undefined"
    )
    return [str(p) for p in layout_problems(page, min_font)]


def test_a_clean_figure_has_no_problems(page):
    assert _problems(page, _figure()) == []


def test_a_legend_over_the_axis_title_is_found(page):
    """The old design of several figures: a horizontal legend just below the plot."""
    found = _problems(page, _figure(legend={"orientation": "h", "y": -0.15}))
    assert any("x axis title" in p and ("overlap" in p or "covers" in p) for p in found), found


def test_a_title_wider_than_the_figure_is_cut_off(page):
    fig = _figure(title={"text": "A title far too long for a figure six hundred pixels wide, " * 2})
    found = _problems(page, fig)
    assert any("cut off by the figure" in p for p in found), found


def test_small_text_is_found(page):
    found = _problems(page, _figure(font={"size": 9}))
    assert any("text too small" in p and "9.0 px" in p for p in found), found


def test_overprinted_tick_labels_are_found(page):
    words = [f"category{i}" for i in range(40)]
    fig = go.Figure(go.Bar(x=words, y=list(range(40))))
    fig.update_layout(width=500, height=400, xaxis_tickangle=0, font={"size": 16}, template="none")
    found = _problems(page, fig)
    assert any("texts overlap" in p and "category" in p for p in found), found


# A figure that lays itself out again and again, as Plotly does after its first draw: its title
# grows a word every 60 ms for half a second, and only the last titles are too long for it.
GROWING_TITLE = """
<script>
  const gd = document.querySelector('.js-plotly-plot');
  let words = 1;
  const grow = () => {
    Plotly.relayout(gd, {title: {text: 'A title that grows ' + 'and grows '.repeat(words)}});
    if (++words <= 8) setTimeout(grow, 60);
  };
  setTimeout(grow, 60);
</script>
"""


def test_a_figure_is_read_once_it_has_stopped_changing(page):
    """A reading taken while the figure is still being laid out misses its final state; the
    settled reading waits for it."""
    html = _figure().to_html(include_plotlyjs=True, full_html=True)
    page.set_content(html.replace("</body>", GROWING_TITLE + "</body>"))
    page.wait_for_function(
        "() => (document.querySelector('.js-plotly-plot') || {})._fullLayout !== undefined"
    )
    early = [str(p) for p in layout_problems(page, 12)]
    settled = settled_layout_problems(page, 12)
    assert not any("cut off by the figure" in p for p in early), early
    assert any("cut off by the figure" in p and "grows and grows" in p for p in settled), settled
    title = page.evaluate("() => document.querySelector('.gtitle').textContent")
    assert title.count("and grows") == 8


def test_a_page_that_never_stops_changing_is_an_error_not_a_reading(page):
    page.set_content("<p id=t>0</p><script>setInterval(() => t.textContent++, 20)</script>")
    with pytest.raises(Exception, match="the page kept changing for 500 ms"):
        harness.wait_still(page, quiet_ms=150, timeout_ms=500)


def _select_box(width_px: int, option: str, left_px: int = 0) -> str:
    """A select box in Streamlit's markup: its chosen option is an <input>'s value."""
    return (
        f'<div data-testid="stSelectbox" style="position: absolute; left: {left_px}px; '
        f'width: {width_px}px"><div data-testid="stWidgetLabel">Attention kind</div>'
        f'<input readonly value="{option}" style="width: 100%; font: 16px sans-serif"></div>'
    )


def test_an_option_wider_than_its_select_box_is_found(page):
    page.set_content(_select_box(120, "encoder-decoder (cross) attention"))
    checked, found = widget_problems(page)
    assert checked == 1
    assert [(p.figure, p.kind, p.text) for p in found] == [
        ('select box "Attention kind"', "option cut off", "encoder-decoder (cross) attention")
    ]


def test_an_option_that_fits_and_a_box_off_the_page_are_not_reported(page):
    """A collapsed sidebar is moved off the page: its select boxes are not seen, so not read."""
    page.set_content(
        _select_box(400, "encoder-decoder (cross) attention")
        + _select_box(120, "encoder-decoder (cross) attention", left_px=-500)
    )
    assert widget_problems(page) == (1, [])
