"""What every tab shares: the cached models and Traces (the view in the URL: ui/url.py).

Models are created once per process and shared by every session (`st.cache_resource`); Traces
depend only on (model, text, settings), so they are cached the same way and shared read-only.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st
import torch
from threadpoolctl import threadpool_limits

from model.transformer import RunSettings
from model.weights import WeightsError
from runtime import atlas, attribution, lm_heads, registry
from runtime.causal import default_answer, new_token_limit
from runtime.local import Found
from runtime.local_load import Progress
from runtime.reference import Reference
from runtime.trace import Trace, run
from runtime.verdict import reference_for
from viz import export
from viz.atlas import corpus_statistics
from viz.style import fit_title

from . import controls, url
from .trace_cache import TraceCache


@dataclass(frozen=True)
class ViewContext:
    """What the page hands every tab: the shared model, the current run and the page options."""

    name: str
    loaded: registry.LoadedModel
    trace: Trace
    text: str
    decoding: str
    presentation: bool
    # the chat model's "Longest answer" (None: the page's default): every run of a view passes it
    answer_tokens: int | None = None


DEFAULT_TEXT = "The small dog sees the old man."  # as people write it
# A model whose first text is another: the chat model answers a question (issue 66, item 5: it
# kept the translator's sentence and wrote "He is a small dog." five times).
DEFAULT_TEXTS = {"smollm2-135m": "What is the capital of France?"}


def default_text(name: str) -> str:
    return DEFAULT_TEXTS.get(name, DEFAULT_TEXT)


def follow_model() -> None:
    """The model box's callback: a text nobody typed (a model's opening text) becomes the new
    model's opening text, and a head nobody chose (the one the last model opened on) becomes
    the head the new model opens on; a typed text or a chosen head stays."""
    new = st.session_state["model"]
    moved: dict[str, Any] = {}
    if st.session_state.get("text") in {DEFAULT_TEXT, *DEFAULT_TEXTS.values()}:
        moved["text"] = default_text(new)
    old = st.query_params.get("model")  # the URL is written at a run's end: the model shown
    if old in registry.all_models() and old != new:
        try:
            opened, opening = (controls.first_view(get_model(name)) for name in (old, new))
        except (registry.ModelUnavailable, WeightsError):
            opened = opening = None  # the page says what is wrong with it; the view stays
        keys = (controls.KIND.name, controls.LAYER.name, controls.HEAD.name)
        if opened and tuple(st.session_state.get(k, v) for k, v in zip(keys, opened)) == opened:
            # The translator opened on cross-attention, layer 5: MiniLM kept layer 5.
            moved.update(zip(keys, opening))
    if moved:
        url.switch(**moved)


def unrunnable_note(found: list[Found]) -> None:
    """Under the model box: the models found on this machine that cannot run, each with its
    reason (text only: a folder's name is never read as Markdown)."""
    if not found:
        return
    with st.expander(f"{len(found)} model{'s' * (len(found) > 1)} on this machine cannot run"):
        for model in found:
            st.text(f"{model.title} ({model.architecture}): {model.reason}")


@st.cache_resource(show_spinner="Loading the model (once per server)…")
def get_model(name: str) -> registry.LoadedModel:
    """The model `name`, loaded once per server and shared (taken from `load_with_progress`
    where that loaded it)."""
    # Half the cores: the Streamlit server and the browser need the rest, and torch's spinning
    # threads on a fully busy CPU were measured 30x slower (5.5 s against 0.15 s a forward pass).
    torch.set_num_threads(max(1, (os.cpu_count() or 2) // 2))
    # numpy's BLAS (OpenBLAS, a thread per core by default) does the head atlas's PCA: its
    # matrices are small (d_k = 64), and its threads spinning against the server's other work
    # made one head's PCA 1.6 s instead of 2 ms (8,000 points, both cores busy), minutes for
    # SmolLM2's matrix of 270 heads; on an idle machine one thread costs nothing.
    threadpool_limits(1, user_api="blas")
    with _handoff_lock:
        handed = _handoff.pop(name, None)
    _loaded_names.add(name)
    return handed or registry.load(name)


# A model found on this machine may take minutes to load: the page loads it here, outside the
# cache (a cached function may not draw into the page's progress bar), and get_model takes it.
_handoff: dict[str, registry.LoadedModel] = {}
_handoff_lock = threading.Lock()
_loaded_names: set[str] = set()


def load_with_progress(name: str, progress: Progress) -> None:
    """Load a model found on this machine with a progress bar, once, before get_model reads it;
    a model get_model already holds, or a shipped one (seconds), is left to get_model."""
    if name in _loaded_names or not registry.all_models()[name].local:
        return
    with _handoff_lock:  # one load at a time: a second page waits, then finds it handed over
        if name in _handoff or name in _loaded_names:
            return
        torch.set_num_threads(max(1, (os.cpu_count() or 2) // 2))
        _handoff[name] = registry.load(name, progress=progress)


# Every session's Traces together: 1 GiB holds a dozen 512-token MiniLM Traces (~86 MiB each)
# or thousands of sentence-length ones (tests/ui/test_trace_cache.py checks the bound, and
# tests/e2e/test_memory_bound.py the server's memory under it). A department server with less
# memory to spare sets ATLAS_TRACE_CACHE_MIB (docs/deploy.md).
TRACE_CACHE_BYTES = int(os.environ.get("ATLAS_TRACE_CACHE_MIB", 1024)) << 20


@st.cache_resource
def _trace_cache() -> TraceCache[Trace]:
    """One cache per server process, shared by every session (read-only Traces)."""
    return TraceCache(TRACE_CACHE_BYTES)


@contextlib.contextmanager
def working(label: str) -> Iterator[None]:
    """A status line naming the work, shown at once where the page stands and gone when the
    work is done. (st.spinner shows only after half a second: a run of the Scaling or the
    Positional tab said nothing for that long, issue 45's speed bar.) Shown only on a cache
    miss, so a rerun that finds its results draws nothing here and nothing moves."""
    holder = st.empty()
    holder.status(label, state="running")
    try:
        yield
    finally:
        holder.empty()


def _running(settings: RunSettings, decoding: str, encoder_only: bool) -> str:
    """What a run is, as the page's status line names it."""
    what = []
    if settings.scale is not None:
        what.append(f"with the scale s = {settings.scale:.4g}")
    if settings.ablate:
        what.append(f"with {len(settings.ablate)} heads switched off")
    if not settings.use_positions:
        what.append("without positional encodings")
    if settings.window is not None:
        what.append(f"with self-attention restricted to r = {settings.window}")
    if decoding == "beam":
        what.append("by beam search")
    runs = "Running the encoder" if encoder_only else "Running the model"
    return " ".join([runs, ", ".join(what)]).strip() + "…"


# The longest text a run reads. Models read at most 512 tokens and a token takes at least one
# character, so the cut never changes what a model reads; it bounds what a session's run and the
# shared cache's keys hold, whatever is pasted into the page or sent to the server.
MAX_TEXT_CHARS = 5000


def get_trace(
    name: str,
    text: str,
    scale: float | None = None,
    ablate: tuple[tuple[str, int, int], ...] = (),
    use_positions: bool = True,
    decoding: str = "greedy",
    window: int | None = None,
    encoder_only: bool = False,
    answer_tokens: int | None = None,
) -> Trace:
    """A Trace for these exact inputs (the text up to MAX_TEXT_CHARS); every argument is part
    of the cache key. `answer_tokens` is the most a language model writes (None: the page's
    default), within the deployment's limit (ATLAS_MAX_NEW_TOKENS). `encoder_only` runs an
    encoder-decoder's encoder alone (runtime.run)."""
    text = text[:MAX_TEXT_CHARS]
    deployment = new_token_limit()
    limit = min(answer_tokens or default_answer(deployment), deployment)
    settings = RunSettings(
        scale=scale, ablate=frozenset(ablate), use_positions=use_positions, window=window
    )

    def make() -> Trace:
        with working(_running(settings, decoding, encoder_only)):
            return run(
                get_model(name),
                text,
                settings,
                decoding=decoding,
                encoder_only=encoder_only,
                max_new_tokens=limit,
            )

    return _trace_cache().get((name, text, settings, decoding, encoder_only, limit), make)


@st.cache_data(max_entries=64, show_spinner=False)
def get_attributions(
    name: str, text: str, decoding: str, method: str, steps: int
) -> attribution.Attributions:
    """`method`'s gradient attributions for the (cached) run of `text` with the paper's
    settings: computed once per server for these inputs (arrays of a few KB)."""
    return attribution.attribute(
        get_model(name), get_trace(name, text, decoding=decoding), method, steps
    )


@st.cache_data(max_entries=256, show_spinner=False)
def get_attribution_rows(
    name: str, text: str, decoding: str, steps: int, rows: tuple[int, ...]
) -> attribution.Attributions:
    """Integrated gradients of the decoder `rows` only (a block of a page's rows), once per
    server for these inputs."""
    return attribution.attribute(
        get_model(name),
        get_trace(name, text, decoding=decoding),
        "integrated_gradients",
        steps,
        rows=rows,
    )


@st.cache_data(max_entries=64, show_spinner=False)
def get_similarity_attributions(
    name: str, text_a: str, text_b: str, method: str, steps: int
) -> attribution.SimilarityAttributions:
    """`method`'s attributions of two texts' cosine similarity (an encoder's sentence
    embeddings), once per server for these inputs."""
    return attribution.similarity_attributions(
        get_model(name), text_a[:MAX_TEXT_CHARS], text_b[:MAX_TEXT_CHARS], method, steps
    )


# The head atlas's corpus runs (every sentence's weights, queries and keys: about 0.3 MB a
# translator sentence), shared by every session and bounded by bytes like the Traces.
CORPUS_CACHE_BYTES = int(os.environ.get("ATLAS_CORPUS_CACHE_MIB", 512)) << 20
HEAD_MAP_CACHE_BYTES = 64 << 20  # a head's picture holds its points: about 1.5 MiB at 5,000


@st.cache_resource
def _corpus_cache() -> TraceCache[atlas.CorpusRun]:
    return TraceCache(CORPUS_CACHE_BYTES)


def get_corpus_run(name: str, lines: tuple[str, ...]) -> atlas.CorpusRun:
    """The head atlas's run of `lines` through `name`, once per server (read-only, shared),
    with a progress bar while it runs."""

    def make() -> atlas.CorpusRun:
        bar = st.progress(0.0, text="Running the corpus through the model (once per server)…")

        def progress(done: int, total: int) -> None:
            bar.progress(
                done / total, text=f"Running sentence {done} of {total} (once per server)…"
            )

        try:
            return atlas.run_corpus(get_model(name), lines, progress)
        finally:
            bar.empty()

    return _corpus_cache().get((name, lines), make)


@st.cache_resource
def _head_map_cache() -> TraceCache[atlas.HeadMap]:
    return TraceCache(HEAD_MAP_CACHE_BYTES)


def get_head_map(
    name: str,
    lines: tuple[str, ...],
    corpus: atlas.CorpusRun,
    where: tuple[str, int, int],
    method: str,
) -> atlas.HeadMap:
    """One head's picture (`where`: kind, layer, head) over the corpus run of `lines` through
    `name`, once per server: t-SNE takes seconds, with a progress bar while it runs."""

    def make() -> atlas.HeadMap:
        if method != "tsne":
            return atlas.head_map(corpus, *where, method)
        bar = st.progress(0.0, text="t-SNE of this head's queries and keys (once per server)…")

        def progress(done: int, total: int) -> None:
            bar.progress(done / total, text=f"t-SNE: iteration {done} of {total}…")

        try:
            return atlas.head_map(corpus, *where, method, progress)
        finally:
            bar.empty()

    return _head_map_cache().get((name, lines, *where, method), make)


@st.cache_data(max_entries=16, show_spinner="Averaging every head over the corpus…")
def get_corpus_statistics(
    name: str, lines: tuple[str, ...], _corpus: atlas.CorpusRun
) -> pd.DataFrame:
    """The statistics of every head over the corpus run of `lines` through `name`, with their
    roles (viz.atlas); the run itself is the key's (name, lines), not hashed."""
    return corpus_statistics(_corpus, get_model(name).special_tokens)


@st.cache_data(max_entries=256, show_spinner=False)
def get_reference(name: str, text: str) -> Reference | None:
    """What the model's corpus knows about `text` (None: nothing, or the model has no corpus)."""
    return reference_for(get_model(name), text)


@st.cache_resource(
    show_spinner="Running the induction test (random tokens, repeated; once per server)…"
)
def get_induction_ablation(name: str) -> lm_heads.InductionAblation:
    """The induction test and its ablations for a language model, once per server (~10 s)."""
    return lm_heads.induction_ablation(get_model(name))


# A class that will open another model than the default (the chat model, say) names it here,
# comma-separated, so that its first visitor does not wait for it to load and run (docs/deploy.md).
PRELOAD_ENV = "ATLAS_PRELOAD"


def preloaded_models() -> list[str]:
    """The default model, then those named in ATLAS_PRELOAD; an unknown name stops the start
    with a message that lists the names there are."""
    names = [registry.default_model_name()]
    for name in (part.strip() for part in os.environ.get(PRELOAD_ENV, "").split(",")):
        if name and name not in registry.all_models():
            raise SystemExit(
                f"{PRELOAD_ENV}={os.environ[PRELOAD_ENV]!r}: {name!r} is no model here; "
                f"choose from {', '.join(registry.all_models())}"
            )
        if name and name not in names:
            names.append(name)
    return names


def preload() -> None:
    """What the first visitor would otherwise wait for, done when the server starts
    (`server.py`): the default model (and any in ATLAS_PRELOAD) loaded and its Trace of the
    page's opening text made, in
    the same shared caches the page reads, and a first heatmap built and serialised (Plotly's
    first figure pays for its templates and validators). The visitor's page then runs warm."""
    from viz.attention import heatmap  # viz imports plotly: only the server pays for it here

    # Outside a page run Streamlit warns once per cache call that there is no page to show a
    # spinner on; that is expected here.
    try:
        new_token_limit()
    except ValueError as err:  # a deployment's typo stops the start, with the reason
        raise SystemExit(str(err)) from None
    runner_log = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    level = runner_log.level
    runner_log.setLevel(logging.ERROR)
    try:
        for name in preloaded_models():
            # Loaded by name, not only through the run: a Trace can outlive its model's cache
            # entry (get_model.clear() leaves the Trace cache), and the first page asks for both.
            get_model(name)
            trace = get_trace(name, DEFAULT_TEXT)
            heatmap(trace, trace.kinds[0], 0, 0).to_json()
    finally:
        runner_log.setLevel(level)
    # Streamlit collects garbage after every page run (`runner.postScriptGC`); a full collection
    # walks every object, and the libraries and model loaded by now are most of them: half the
    # server's CPU under a lecture hall's load went there. Frozen, they are no longer walked.
    gc.freeze()


def main_width_px(presentation: bool) -> int:
    """The page's main area on the screens it is laid out for: a 1280 px laptop with the
    sidebar open, a 1920 px projector with the sidebar folded away (presentation mode). The
    server cannot see the browser's width: a figure wider than this is laid out otherwise.
    Measured in Chromium: the open tab's panel is 820 px and 1,680 px wide."""
    return 1680 if presentation else 820


# Title characters a line for a figure in half the page at 1280 px (fit_title takes fewer in
# presentation mode, whose title font is larger).
HALF_PAGE_TITLE_CHARS = 32


def plot(figure, where=None, title_chars: int | None = None, **options) -> Any:
    """st.plotly_chart (in the container `where`, if given) with our figure's own fonts and
    colours (Streamlit's theme would replace them with 12 px labels, too small for a lecture
    hall), at the container's full width; `title_chars` wraps the title of a figure in a
    column to that many characters a line. A heatmap's own width (`viz.style.grid_size`) is
    the least its cells need: `plot_row` keeps it, to lay comparisons side by side.

    Under every figure: download it for slides (PNG, SVG) or as an interactive page. Plotly's
    own toolbar is not shown: it lay over the right half of a figure's title, and the buttons
    under the figure save it; dragging still zooms, a double click zooms back out."""
    options.setdefault("theme", None)
    options["config"] = {"displayModeBar": False, **options.get("config", {})}
    options.setdefault("width", "stretch")
    if title_chars is not None:  # a figure in a column: its title wrapped to the column
        fit_title(figure, max_chars=title_chars)
    where = where or st.container()
    chart = where.plotly_chart(figure, **options)
    if options["width"] == "content":
        seen_width = figure.layout.width or main_width_px(_presenting())
    else:  # the width of the page's main area, or of a column of half of it
        seen_width = main_width_px(_presenting()) // (1 if title_chars is None else 2)
    figure_downloads(figure, options.get("key"), seen_width, where)
    return chart


def plot_row(figures: list[tuple[Any, str]], **options) -> None:
    """(figure, key) pairs side by side as long as the page has room for them at their own
    width, the rest on the next line: comparisons never squeeze a heatmap's cells."""
    row = st.container(horizontal=True, wrap=True, gap="medium")
    for figure, key in figures:
        # A figure and its download buttons stay together when the row wraps.
        plot(figure, where=row.container(width="content"), key=key, width="content", **options)


def _presenting() -> bool:
    return bool(st.session_state.get("present", False))


def figure_downloads(figure, key: str | None, seen_width: float, where) -> None:
    """A row of small buttons under a figure: the figure as a 1920x1080 PNG or an SVG for a
    slide (drawn by Kaleido when pressed, with the figure's title and selection), and as an
    interactive page (not in presentation mode). Without a browser to draw them the slide
    buttons are greyed out and say why (so does the page's Download box, `ui.output`)."""
    name = export.slide_file_name(
        st.session_state.get("model", ""), figure.layout.title.text, key or "figure"
    )
    button_key = f"{key or name}_download"
    row = where.container(horizontal=True, gap="small")
    missing = export.slide_export_problem()
    for fmt, what in (("png", "a 1920×1080 PNG"), ("svg", "an SVG")):
        row.download_button(
            f"Slide {fmt.upper()}",
            lambda fmt=fmt: export.slide_image(figure, fmt, seen_width),
            file_name=f"{name}.{fmt}",
            mime=export.SLIDE_FORMATS[fmt],
            on_click="ignore",
            type="tertiary",
            icon=":material/download:",
            help=missing or f"This figure as {what} for a slide, as shown here",
            disabled=missing is not None,
            key=f"{button_key}_{fmt}",
        )
    if _presenting():  # in front of a class: the slide images only
        return
    row.download_button(
        "Interactive HTML",
        lambda: export.figure_html(figure),
        file_name=f"{name}.html",
        mime="text/html",
        on_click="ignore",
        type="tertiary",
        icon=":material/download:",
        help="This figure as a page that works offline, with hover and zoom",
        key=f"{button_key}_html",
    )
