"""Downloads: attention as a tidy CSV, the Trace as JSON, figures as offline HTML, PNG options,
and figures as slide images (PNG and SVG) drawn by Kaleido."""

from __future__ import annotations

import asyncio
import atexit
import html
import json
import math
import os
import re
import threading
import unicodedata

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from runtime.trace import Trace

CSV_COLUMNS = ["layer", "head", "query_index", "query_token", "key_index", "key_token", "weight"]
# The Trace as JSON holds every weight of every kind as text; past this many it is too large for
# a browser download (a 512-token MiniLM text has 19 million) and the command line is the way.
TRACE_JSON_MAX_WEIGHTS = 2_000_000


def attention_frame(trace: Trace, kind: str, layers, heads) -> pd.DataFrame:
    # `layers` and `heads` index the Trace's arrays (from 0).
    """One row per (layer, head, query, key) weight. Layers and heads are numbered from 1, as
    the page and the file names show them ("layer4-head2" holds layer 4, head 2); query and key
    indices are positions, from 0 as in PE(pos)."""
    queries, keys = trace.axis_tokens(kind)
    layers, heads = list(layers), list(heads)
    weights = trace.attention[kind][np.ix_(layers, heads)]  # [layer, head, query, key]
    layer_i, head_i, query_i, key_i = np.indices(weights.shape).reshape(4, -1)
    frame = pd.DataFrame(
        {
            "layer": np.asarray(layers)[layer_i] + 1,
            "head": np.asarray(heads)[head_i] + 1,
            "query_index": query_i,
            "query_token": np.asarray(queries, dtype=object)[query_i],
            "key_index": key_i,
            "key_token": np.asarray(keys, dtype=object)[key_i],
            "weight": weights.reshape(-1),
        }
    )
    if kind == "decoder_self":  # the masked future has no weight, rather than a weight of 0
        frame = frame[frame["key_index"] <= frame["query_index"]].reset_index(drop=True)
    return frame


def attention_csv(trace: Trace, kind: str, layers, heads) -> str:
    """The weights as CSV text (see `attention_frame` for the numbering)."""
    return attention_frame(trace, kind, layers, heads).to_csv(index=False, float_format="%.9g")


def trace_weight_count(trace: Trace) -> int:
    return sum(weights.size for weights in trace.attention.values())


def trace_json(trace: Trace) -> str:
    return json.dumps(trace.to_json_dict())


def figure_html(fig: go.Figure) -> str:
    """A standalone interactive page with plotly.js inline, so it works offline."""
    return fig.to_html(include_plotlyjs=True, full_html=True)


# --- Slides: a figure as a 1920x1080 (16:9) PNG or an SVG, drawn by Plotly's Kaleido ---------

SLIDE_WIDTH, SLIDE_HEIGHT = 1920, 1080
# The figure's box on the slide is never narrower than this many layout pixels: a small figure
# is drawn at most twice as large, so its text does not outgrow the slide.
SLIDE_MIN_LAYOUT_WIDTH = SLIDE_WIDTH // 2
# Plotly's figure height when the layout gives none.
PLOTLY_DEFAULT_HEIGHT = 450
# Debian's Chromium (scripts/ensure-chromium.sh installs it); BROWSER_PATH, which choreographer
# (Kaleido's browser driver) also reads, points at another one.
DEFAULT_CHROMIUM = "/usr/bin/chromium"
# Seconds: Chromium's start (~4 s measured) and one figure (~0.5 s) on a busy CPU, with room.
SLIDE_START_TIMEOUT = 60
SLIDE_RENDER_TIMEOUT = 60
SLIDE_FORMATS = {"png": "image/png", "svg": "image/svg+xml"}


class SlideExportError(RuntimeError):
    """A slide image could not be made; the message says why, in words for the page."""


def chromium_path() -> str:
    return os.environ.get("BROWSER_PATH", DEFAULT_CHROMIUM)


def slide_export_problem() -> str | None:
    """Why slide images cannot be made here (None: they can), checked before offering them."""
    path = chromium_path()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return (
            f"Slide images need Chromium, which is not at {path}: run "
            "scripts/ensure-chromium.sh (or set BROWSER_PATH to a Chromium)."
        )
    return None


def slide_box(width: float, height: float) -> tuple[int, int]:
    """The 16:9 box, in layout pixels, that holds a figure seen at `width` x `height`.

    The box is as small as holds the figure (so its text keeps the size it has on the page,
    scaled up to the slide) and at least SLIDE_MIN_LAYOUT_WIDTH wide; its width is a multiple
    of 16 so that its height (9/16 of it) is a whole number of pixels. The figure is then laid
    out to fill the box, as the page lays a figure out to fill the width it is given.
    """
    box_width = max(width, height * 16 / 9, SLIDE_MIN_LAYOUT_WIDTH)
    box_width = -(-int(math.ceil(box_width)) // 16) * 16
    return box_width, box_width * 9 // 16


def slide_figure(fig: go.Figure, seen_width: float) -> go.Figure:
    """A copy of the figure (same data, title and selection) laid out in its slide box."""
    seen_height = fig.layout.height or PLOTLY_DEFAULT_HEIGHT
    width, height = slide_box(max(seen_width, fig.layout.width or 0), seen_height)
    return go.Figure(fig).update_layout(width=width, height=height)


def slide_file_name(model: str, title: str, fallback: str) -> str:
    """A file name (without extension) saying what the figure shows: the model, then the
    figure's title ("minilm-l6-encoder-self-attention-layer-4-head-2"), or `fallback` (the
    figure's key) for a figure without one. Only ASCII letters, digits and "-": a typed token in
    a title cannot put a path separator, a quote or a control character into a file name."""
    text = html.unescape(re.sub(r"<[^>]*>", " ", title or "")) or fallback
    return "-".join(part for part in (_slug(model), _slug(text)[:100].strip("-")) if part)


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


class _SlideRenderer:
    """One headless Chromium, driven by Kaleido, kept open for the server's lifetime: starting
    it takes seconds, a figure then takes a fraction of one. Kaleido is asynchronous; its loop
    runs in a thread of its own, and a lock lets one Streamlit session at a time use it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido = None
        self.failure: str | None = None  # the last failure, for the page to show

    def render(self, fig: go.Figure, fmt: str) -> bytes:
        # A PNG is drawn at the slide's size, a hair over the exact ratio as Chromium rounds the
        # image size down; an SVG at the box's size, which _svg_at_slide_size sets to 1920x1080.
        scale = SLIDE_WIDTH / fig.layout.width * (1 + 1e-9) if fmt == "png" else 1
        size = {"width": fig.layout.width, "height": fig.layout.height}
        opts = {"format": fmt, "scale": scale, **size}
        with self._lock:
            try:
                if self._kaleido is None:
                    self._start()
                image = self._run(self._kaleido.calc_fig(fig, opts=opts), SLIDE_RENDER_TIMEOUT)
            except Exception as err:
                self._stop()  # a browser that failed once is not trusted with the next figure
                self.failure = _failure_message(err)
                raise SlideExportError(self.failure) from err
        self.failure = None
        return image

    def _start(self) -> None:
        problem = slide_export_problem()
        if problem:
            raise SlideExportError(problem)
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True, name="kaleido").start()
        self._kaleido = self._run(self._open(), SLIDE_START_TIMEOUT)

    @staticmethod
    async def _open():
        import kaleido  # imported here: only a slide export needs it

        # MathJax would come from a CDN (no figure here uses LaTeX); plotly.js is plotly.py's.
        browser = kaleido.Kaleido(path=chromium_path(), mathjax=False, n=1)
        await browser.open()
        return browser

    def _run(self, coroutine, timeout: float):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def _stop(self) -> None:
        if self._kaleido is not None:
            try:
                self._run(self._kaleido.close(), SLIDE_START_TIMEOUT)
            except Exception:  # noqa: BLE001 - closing a broken browser may fail too
                pass
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._kaleido = self._loop = None


_RENDERER = _SlideRenderer()
atexit.register(lambda: _RENDERER._stop())


def slide_image(fig: go.Figure, fmt: str, seen_width: float) -> bytes:
    """The figure as a slide: a 1920x1080 PNG, or an SVG of the same 16:9 box (whose width and
    height attributes say 1920x1080). Raises SlideExportError with a message for the page."""
    if fmt not in SLIDE_FORMATS:
        raise ValueError(f"slide format must be one of {sorted(SLIDE_FORMATS)}, not {fmt!r}")
    image = _RENDERER.render(slide_figure(fig, seen_width), fmt)
    return _svg_at_slide_size(image) if fmt == "svg" else image


def _failure_message(err: Exception) -> str:
    if isinstance(err, SlideExportError):  # already in words for the page
        return str(err)
    if isinstance(err, TimeoutError):
        return f"Kaleido did not draw the figure within {SLIDE_RENDER_TIMEOUT} s; try again."
    return f"Kaleido could not draw the figure ({type(err).__name__}: {err}); try again."


def _svg_at_slide_size(svg: bytes) -> bytes:
    """Kaleido's SVG, whose viewBox is the box in layout pixels, sized 1920x1080 for a slide."""
    text = svg.decode()
    start = text.index("<svg")
    end = text.index(">", start)
    root = re.sub(r'\swidth="[^"]*"', f' width="{SLIDE_WIDTH}"', text[start:end], count=1)
    root = re.sub(r'\sheight="[^"]*"', f' height="{SLIDE_HEIGHT}"', root, count=1)
    return (text[:start] + root + text[end:]).encode()


def slide_failure() -> str | None:
    """Why the last slide export on this server failed (None: it did not)."""
    return _RENDERER.failure
