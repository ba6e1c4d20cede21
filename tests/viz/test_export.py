"""Slide images: every figure as a 1920x1080 PNG and an SVG, drawn by Kaleido in Debian's
Chromium, with a file name that says what the figure shows; and the download buttons under the
figures of a tab other than Attention."""

import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from viz import export
from viz.style import apply_layout, grid_size

APP = str(Path(__file__).resolve().parents[2] / "app.py")
needs_chromium = pytest.mark.skipif(
    export.slide_export_problem() is not None,
    reason="no Chromium at /usr/bin/chromium: run scripts/ensure-chromium.sh",
)
TOKENS = ["The", "animal", "didn't", "cross", "the", "street"]


def _heatmap(title="Encoder self-attention · layer 4, head 2") -> go.Figure:
    """A token-by-token heatmap laid out as the app lays one out (grid_size)."""
    weights = [[(q + k) % 3 / 3 for k in range(len(TOKENS))] for q in range(len(TOKENS))]
    fig = go.Figure(go.Heatmap(z=weights, x=TOKENS, y=TOKENS, zmin=0, zmax=1))
    return apply_layout(fig, title, **grid_size(TOKENS, len(TOKENS), presentation=False))


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG header (the signature, then the IHDR chunk), by hand."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


@pytest.mark.parametrize(
    "width, height",
    [(500, 400), (820, 600), (1680, 1200), (1680, 420), (2400, 700), (820, 3000)],
)
def test_slide_box_is_16_by_9_and_holds_the_figure(width, height):
    box_width, box_height = export.slide_box(width, height)
    assert box_width * 9 == box_height * 16  # exactly 16:9, in whole pixels
    assert box_width >= width and box_height >= height  # nothing is cut off
    assert box_width >= export.SLIDE_MIN_LAYOUT_WIDTH  # text at most twice its page size
    # As small as holds the figure (up to the multiple of 16): text as large as it can be.
    assert box_width - 16 < max(width, height * 16 / 9, export.SLIDE_MIN_LAYOUT_WIDTH)


def test_slide_figure_keeps_the_figure_and_only_changes_its_size():
    fig = _heatmap()
    slide = export.slide_figure(fig, seen_width=820)
    assert (slide.layout.width, slide.layout.height) == export.slide_box(820, fig.layout.height)
    assert slide.layout.title.text == fig.layout.title.text
    assert list(slide.data[0].x) == TOKENS and slide.data[0].z == fig.data[0].z
    assert fig.layout.width != slide.layout.width  # the page's figure is left as it was


@pytest.mark.parametrize(
    "model, title, expected",
    [
        (
            "minilm-l6",
            "Encoder self-attention · layer 4, head 2",
            "minilm-l6-encoder-self-attention-layer-4-head-2",
        ),
        ("en-de", "Row of “Müller” → Buch<br>weight", "en-de-row-of-muller-buch-weight"),
        # Typed tokens reach titles escaped: neither their markup nor a path separator,
        # a quote or a control character reaches the file name.
        ("en-de", 'Row of &lt;/b&gt;../../etc/passwd "x"\n\x00', "en-de-row-of-b-etc-passwd-x"),
        ("paper-untrained", "", "paper-untrained-pos-shift"),  # no title: the figure's key
        ("paper-untrained", "√d_k · 1/√d_k", "paper-untrained-d-k-1-d-k"),
    ],
)
def test_file_names_say_what_is_shown_and_are_safe(model, title, expected):
    assert export.slide_file_name(model, title, "pos_shift") == expected


def test_long_titles_give_file_names_of_bounded_length():
    name = export.slide_file_name("minilm-l6", "layer 1 · " * 80, "k")
    assert len(name) <= len("minilm-l6-") + 100 and not name.endswith("-")


@needs_chromium
@pytest.mark.parametrize("seen_width", [500, 820, 1680])
def test_png_is_1920_by_1080(seen_width):
    png = export.slide_image(_heatmap(), "png", seen_width)
    assert _png_size(png) == (export.SLIDE_WIDTH, export.SLIDE_HEIGHT)


@needs_chromium
def test_a_tall_figure_is_also_a_1920_by_1080_png():
    fig = _heatmap().update_layout(height=2000)
    assert _png_size(export.slide_image(fig, "png", 820)) == (1920, 1080)


@needs_chromium
def test_svg_is_slide_sized_xml_with_the_title_and_the_tokens():
    svg = export.slide_image(_heatmap(), "svg", 820)
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (root.get("width"), root.get("height")) == ("1920", "1080")
    box = [float(v) for v in root.get("viewBox").split()]
    assert box[2] * 9 == pytest.approx(box[3] * 16)  # the drawing is 16:9 too
    texts = {"".join(el.itertext()) for el in root.iter("{http://www.w3.org/2000/svg}text")}
    assert "Encoder self-attention · layer 4, head 2" in texts
    assert set(TOKENS) <= texts


@needs_chromium
def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="png"):
        export.slide_image(_heatmap(), "gif", 820)


def test_a_missing_browser_gives_a_message_not_a_traceback(monkeypatch, tmp_path):
    missing = tmp_path / "no-chromium"
    monkeypatch.setenv("BROWSER_PATH", str(missing))
    problem = export.slide_export_problem()
    assert problem and str(missing) in problem and "ensure-chromium.sh" in problem
    renderer = export._SlideRenderer()  # a fresh one: the server's own may be running
    with pytest.raises(export.SlideExportError) as error:
        renderer.render(export.slide_figure(_heatmap(), 820), "png")
    assert str(error.value) == problem  # the same words as the page's caption
    assert renderer.failure == str(error.value)  # the page shows it on its next run


@needs_chromium
def test_a_render_that_fails_gives_a_message_and_the_next_one_works(monkeypatch):
    renderer = export._SlideRenderer()
    monkeypatch.setattr(export, "SLIDE_RENDER_TIMEOUT", 0.001)  # no figure is drawn that fast
    with pytest.raises(export.SlideExportError, match="did not draw the figure within"):
        renderer.render(export.slide_figure(_heatmap(), 820), "png")
    assert renderer.failure
    monkeypatch.undo()  # a new browser is started for the next figure
    assert _png_size(renderer.render(export.slide_figure(_heatmap(), 820), "png")) == (1920, 1080)
    assert renderer.failure is None


def test_positional_tab_figures_have_slide_downloads():
    at = _positional_tab()
    assert not at.exception
    charts = at.get("plotly_chart")
    labels = [button.proto.label for button in at.get("download_button")]
    assert charts and labels.count("Slide PNG") == len(charts)
    assert labels.count("Slide SVG") == len(charts) == labels.count("Interactive HTML")
    buttons = at.get("download_button")
    assert all(b.proto.deferred_file_id for b in buttons)  # made when pressed, not every rerun
    assert not any(b.proto.disabled for b in buttons)
    assert "Whole run (Trace JSON)" in labels  # the page's Download box, above the tabs


def _positional_tab() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["model"] = "paper-untrained"
    at.query_params["tab"] = "Positional encoding"  # only the open tab runs
    return at.run()


def test_without_chromium_the_page_says_why_instead_of_offering_slides(monkeypatch, tmp_path):
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-chromium"))
    at = _positional_tab()
    assert not at.exception
    slides = [b for b in at.get("download_button") if b.proto.label.startswith("Slide")]
    assert len(slides) == 2 * len(at.get("plotly_chart"))  # still there, greyed out ...
    assert all(b.proto.disabled and "no-chromium" in b.proto.help for b in slides)  # ... saying why
    captions = [caption.value.replace("\\", "") for caption in at.caption]  # markdown escapes
    assert any("Slide images need Chromium" in c and "no-chromium" in c for c in captions)


def test_a_failed_slide_export_is_reported_above_the_tabs(monkeypatch):
    monkeypatch.setattr(export._RENDERER, "failure", "Kaleido did not draw the figure within 60 s")
    warnings = [box.value.replace("\\", "") for box in _positional_tab().warning]
    assert any("last slide image failed: Kaleido did not draw" in w for w in warnings)


def _title_png(title: str) -> bytes:
    return export.slide_image(go.Figure(layout={"title": {"text": title}}), "png", 820)


@needs_chromium
@pytest.mark.parametrize("text", ["注意力机制", "🐶🎉🧠🤖"], ids=["chinese", "emoji"])
def test_chinese_and_emoji_are_drawn_not_boxes(text):
    """Typed Chinese and emoji reach the slide as glyphs (issue 45, item 10). Where no font
    covers them, Chromium draws each as the missing-glyph box, exactly as it draws characters
    Unicode has not assigned (U+0378): the two slides are then the same picture."""
    unassigned = "\u0378" * len(text)
    assert _title_png(text) != _title_png(unassigned)
