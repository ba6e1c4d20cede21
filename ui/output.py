"""The model's output above the tabs, and the grammar's reference translation when it has one."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from runtime.confidence import LOW_CONFIDENCE, confidence
from runtime.registry import LoadedModel
from runtime.trace import Trace
from runtime.verdict import DIFFERS, GRAMMAR, verdict
from viz import decoding, export

from . import scenes, state, tables, url
from .text import escape_markdown, unknown_words_markdown


def render(loaded: LoadedModel, trace: Trace, text: str, presentation: bool = False) -> None:
    """The model's name heads the page (the figures' titles leave it out), then its output."""
    heading = st.container(horizontal=True, vertical_alignment="center")
    heading.markdown("#### " + escape_markdown(loaded.label))
    if presentation:
        _type_here(heading, text)
    scenes.gallery(heading)  # on the heading's line: they take no height of their own
    _downloads(heading, trace)
    if trace.output:
        # the output, its confidence and the switch for its bars on one line: the views below
        # keep their room (a laptop's first screen shows the opening heatmap). In presentation
        # mode the confidence goes on the heading's line, which has room: beside a 12-word
        # German sentence and its verdict it took a line of its own (issue 66, item 3).
        line = st.container(horizontal=True, vertical_alignment="center")
        line.markdown("#### Output: " + escape_markdown(trace.output))
        _verdict(loaded, trace, text, line)
        _confidence(loaded, trace, text, presentation, heading if presentation else line)
        if loaded.output_note:
            st.info(loaded.output_note)
        if trace.prompt_length:
            _next_tokens(trace, presentation)
    # every notice stands by the output: presentation mode folds the sidebar away, and the class
    # must see that the output was built without some typed words
    for notice in trace.notices:
        if notice == trace.vocabulary_notice:
            st.warning(unknown_words_markdown(trace.unknown_words, loaded.label))
        else:
            st.warning(escape_markdown(notice))  # notices quote typed words
    if export.slide_failure():  # a slide image was asked for and could not be made
        st.warning(escape_markdown(f"The last slide image failed: {export.slide_failure()}"))


BARS = "output_bars"  # the open state of the confidence's popover
TYPED_HERE = "typed_here"  # the heading's text box, a copy of the sidebar's (url.TEXT)


def _type_here(where, text: str) -> None:
    """The text box one click away on the heading's line, in presentation mode: the sidebar
    starts folded away there, and a lecturer had to unfold it to type a student's sentence
    (issue 66, item 3). It shows the page's text; what is typed in it becomes the page's text."""
    st.session_state[TYPED_HERE] = text
    with where.popover("Type a sentence", icon=":material/edit:", type="tertiary"):
        st.text_area(
            "Text",
            key=TYPED_HERE,
            height=110,
            max_chars=state.MAX_TEXT_CHARS,
            on_change=_typed_here,
            help="Ctrl+Enter runs the model",
        )


def _typed_here() -> None:
    url.switch(**{url.TEXT.name: str(st.session_state[TYPED_HERE]).strip()})


def _confidence(loaded: LoadedModel, trace: Trace, text: str, presentation: bool, line) -> None:
    """The model's own confidence in what it wrote (on the output's `line`, or the heading's);
    the verdict beside the output says when it is too low to trust (`_verdict`)."""
    sure = confidence(trace)
    if sure is None:
        return
    token, lowest = sure.lowest
    # A button on the output's line that opens the bars of each token: no height of its own,
    # where a switch beside it took a line of the laptop's first screen.
    bars = line.popover(
        f"confidence {sure.sentence:.0%}", type="tertiary", key=BARS, on_change="rerun"
    )
    bars.caption(
        f"The geometric mean of the probability the model gave each token it wrote; the "
        f"lowest: “{escape_markdown(token)}”, {lowest:.0%}. Below {LOW_CONFIDENCE:.0%} the "
        "output is probably wrong."
    )
    if st.session_state.get(BARS):  # drawn only while open: every run of every tab passes here
        state.plot(
            decoding.confidence_figure(sure, presentation),
            bars,
            title_chars=state.HALF_PAGE_TITLE_CHARS,
            key="output_confidence",
        )


def _verdict(loaded: LoadedModel, trace: Trace, text: str, line) -> None:
    """Whether the class can trust the output. The grammar's own German is a green badge on the
    output's `line` (no height of its own: the opening heatmap stays whole on a laptop's first
    screen); the two warnings are amber boxes under it, never a grey caption, which a projector
    washes out."""
    said = verdict(loaded, trace, text, state.get_reference(loaded.name, text))
    if said is None:
        return
    if said.level == GRAMMAR:
        line.badge(said.title, icon=":material/check_circle:", color="green", help=said.reason)
        return
    icon = ":material/error:" if said.level == DIFFERS else ":material/warning:"
    # the reason quotes typed words and the grammar's German: escaped, never read as Markdown
    st.warning(f"**{said.title}.** " + escape_markdown(said.reason), icon=icon)


def next_token_table(trace: Trace) -> pd.DataFrame:
    """A language model's choice at each token it wrote: the token, the probability it gave it
    and the five most probable tokens there (greedy decoding writes the first of them)."""
    start = trace.prompt_length - 1
    rows = []
    for t, step in enumerate(trace.steps[start : start + len(trace.output_ids)], start=1):
        rows.append(
            {
                "#": t,
                "after": step.query_token,
                "wrote": step.token,
                "probability": round(step.probability, 3),
                "top 5 next tokens": "   ".join(f"{tok} {p:.0%}" for tok, p in step.alternatives),
            }
        )
    return pd.DataFrame(rows)


def _next_tokens(trace: Trace, presentation: bool) -> None:
    with st.expander(f"Token by token: the {len(trace.output_ids)} tokens it wrote, top 5 each"):
        st.caption(
            "At each step the model scores every one of its tokens; greedy decoding writes the "
            "most probable and reads it back in. The Attention tab's rows from the prompt's "
            "last token on are these steps."
        )
        tables.table(next_token_table(trace), presentation, height=320)


def _downloads(where, trace: Trace) -> None:
    """The page's Download box, above the tabs so every tab has it: the whole run as JSON (made
    when the button is pressed). Each figure has its own buttons beneath it."""
    with where.popover("Download", icon=":material/download:", type="tertiary"):
        weights = export.trace_weight_count(trace)
        if weights <= export.TRACE_JSON_MAX_WEIGHTS:
            st.download_button(
                "Whole run (Trace JSON)",
                lambda: export.trace_json(trace),
                file_name=f"{trace.model}-trace.json",
                mime="application/json",
                on_click="ignore",
                key="page_trace_json",
            )
        else:
            st.caption(
                f"The whole run has {weights:,} weights, too many for a browser download; use "
                "`attention-atlas --model NAME --text … --json out.json`."
            )
        if export.slide_export_problem():
            st.caption(escape_markdown(export.slide_export_problem()))
        st.caption(
            "Every figure has buttons beneath it: **Slide PNG** (1920×1080) and **Slide SVG** "
            "draw it for a slide as it is shown, with its title and selection; **Interactive "
            "HTML** keeps hover and zoom, offline."
        )
