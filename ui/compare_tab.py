"""The Compare tab: two runs of one head side by side, and their difference where the tokens
line up.

Run A is the page's run (the sidebar's model and text); run B is another text on the same
model, or the same text with another setting (no 1/√d_k scale, or heads switched off), each a
separate cached call of state.get_trace: the shared model is never changed. Kind, layer and head
are the keys the Attention tab shares (ui.controls), so both sides (and that tab) always show
the same head; every choice is mirrored in the URL.
"""

from __future__ import annotations

import math

import streamlit as st

from runtime.trace import InputError, Trace
from viz.ablation import short_head_label
from viz.attention import MASKED_EXPLANATION, heatmap
from viz.compare import compare, difference_figure, largest_change
from viz.style import KIND_LABELS

from . import ablation_tab, controls, state
from .controls import HEAD_MEAN
from .text import escape_markdown
from .url import UrlKey, fits_in_url

MODES = {
    "texts": "Two texts",
    "scale": "One text: with and without 1/√d_k",
    "ablate": "One text: intact and with heads off",
}
MODE = UrlKey("compare_mode")
TEXT_B = UrlKey("compare_text", in_url=fits_in_url)  # a longer text stays out of the URL
# Streamlit's "medium" gap between the figures of a row, with some margin.
ROW_GAP_PX = 32

EXPLANATION = """**What am I looking at?** The same head (kind, layer, head) in two runs: **A** on
the left, **B** on the right, both on the fixed scale 0–1 of a softmax row (Eq. 1, Section 3.2.1).
The third map is **B − A** over the tokens both runs have (lined up in order, as `diff` lines up
text): red where B puts more weight, blue where less, white where nothing changed."""
SHORT_EXPLANATION = """Same head, two runs: **A** and **B** (0–1), then **B − A** where the
tokens line up: red = more in B, blue = less."""

DIFFERENCE_CAPTION = (
    "B − A on a fixed scale from −1 to 1 (both are weights in 0–1), white at 0: red where B "
    "puts more weight, blue where it puts less. Hover a cell for A, B and B − A."
)


def render(ctx: state.ViewContext) -> None:
    MODE.seed("texts", valid=lambda v: v in MODES)
    TEXT_B.seed(ctx.text)  # B starts as A: change a word to compare
    st.markdown(SHORT_EXPLANATION if ctx.presentation else EXPLANATION)
    mode = st.radio(
        "Compare",
        list(MODES),
        format_func=MODES.get,
        horizontal=True,
        key=MODE.name,
        label_visibility="collapsed",
    )
    # B's own control on a row above the shared head controls: beside them, it left the kind
    # select box too narrow for "encoder-decoder (cross) attention" at 1280 px.
    runs = _second_run(ctx, mode)
    kind, layer, head = controls.head_row(
        ctx.trace, head_choice="one_or_mean", opening=controls.opening_head(ctx.loaded)
    )
    if runs is not None:
        _draw(ctx, runs, kind, layer, None if head == HEAD_MEAN else head)


def _second_run(ctx: state.ViewContext, mode: str) -> dict[str, Trace] | None:
    """{label: run} for A and B, after B's own control; None (with a message) when B cannot
    run."""
    settings = ctx.trace.settings  # B differs from the page's run in one setting only
    if mode == "texts":
        text_b = st.text_input(
            "Text B (text A is the sidebar's text)",
            key=TEXT_B.name,
            max_chars=state.MAX_TEXT_CHARS,
        )
        if not text_b.strip():
            st.warning("Type a second text (B) to compare with the sidebar's text (A).")
            return None
        try:
            run_b = state.get_trace(
                ctx.name, text_b, decoding=ctx.decoding, answer_tokens=ctx.answer_tokens
            )
        except InputError as err:
            st.warning(f"Text B cannot be run: {err}")
            return None
        for notice in run_b.notices:  # notices quote typed words
            st.warning("Text B: " + escape_markdown(notice))
        if text_b == ctx.text:
            st.info("B is the same text as A: change a word of B to see what it changes.")
        return {"text A": ctx.trace, "text B": run_b}
    if mode == "scale":
        root = math.sqrt(ctx.trace.d_k)
        run_b = state.get_trace(
            ctx.name,
            ctx.text,
            scale=1.0,
            use_positions=settings.use_positions,
            decoding=ctx.decoding,
            answer_tokens=ctx.answer_tokens,
        )
        return {f"A: paper, 1/√d_k = 1/{root:.3g}": ctx.trace, "B: no scaling, s = 1": run_b}
    st.caption(ablation_tab.HELP)
    ablate = ablation_tab.choose_heads(ctx.trace)
    if not ablate:
        st.info("Choose heads above to switch them off: B is the run without them.")
        return None
    run_b = ablation_tab.ablated_trace(ctx, ablate)
    label = f"B: {short_head_label(*ablate[0][1:])} off" if len(ablate) == 1 else ""
    return {"A: intact": ctx.trace, label or f"B: {len(ablate)} heads off": run_b}


def _side_by_side(
    ctx: state.ViewContext, runs: dict[str, Trace], kind: str, layer: int, head: int | None
) -> tuple[list, bool]:
    """A's and B's heatmaps, and the size they are drawn at.

    Side by side is the point of this view. At presentation size two heatmaps never share the
    1,680 px of a projector (each plot is at least 24 font sizes wide, plus its labels and
    colour bar), so the usual size (18 px text, still above the layout check's 16 px) is used
    while it keeps them side by side; heatmaps that stack anyway get the presentation size.
    """

    def drawn(presentation: bool) -> list:
        return [
            heatmap(
                run,
                kind,
                layer,
                head,
                label,
                presentation=presentation,
                max_width=state.main_width_px(ctx.presentation),
            )
            for label, run in runs.items()
        ]

    figures = drawn(False)
    width = state.main_width_px(ctx.presentation)
    if ctx.presentation and sum(f.layout.width for f in figures) + ROW_GAP_PX > width:
        return drawn(True), True
    return figures, False


def _draw(
    ctx: state.ViewContext, runs: dict[str, Trace], kind: str, layer: int, head: int | None
) -> None:
    run_a, run_b = runs.values()
    if ctx.trace.steps:  # the translations the decoder rows belong to
        left, right = st.columns(2)
        for column, (label, run) in zip((left, right), runs.items()):
            column.caption(f"{label}: {'output' if run.prompt_length else 'translation'}")
            column.text(run.output or "(empty)")
    figures, presentation = _side_by_side(ctx, runs, kind, layer, head)
    comparison = compare(run_a, run_b, kind, layer, head)
    keys = ["compare_a", "compare_b"]
    if comparison.difference.size:
        figures.append(
            difference_figure(
                comparison, run_a, presentation, state.main_width_px(ctx.presentation)
            )
        )
        keys.append("compare_difference")
    state.plot_row(list(zip(figures, keys)))
    if kind == "decoder_self":
        st.caption(MASKED_EXPLANATION)
    if not comparison.difference.size:
        st.warning(
            f"No {KIND_LABELS[kind]} query and key tokens occur in both runs, so there is no "
            "difference to draw."
        )
        return
    _difference_caption(comparison, run_a)


def _difference_caption(comparison, run_a: Trace) -> None:
    text = DIFFERENCE_CAPTION
    largest = largest_change(comparison, run_a)
    if largest is not None:
        change, query, key = largest
        text += (
            f" Largest change: {change:+.4f}, query “{escape_markdown(query)}” → key "
            f"“{escape_markdown(key)}”."
        )
    if not comparison.complete:
        named = [
            f"only in {side}: " + ", ".join(f"“{escape_markdown(t)}”" for t in tokens)
            for side, tokens in (("A", comparison.unmatched_a), ("B", comparison.unmatched_b))
            if tokens
        ]
        text += (
            " Only tokens found in both runs, in the same order, are compared; "
            + "; ".join(named)
            + "."
        )
    st.caption(text)
