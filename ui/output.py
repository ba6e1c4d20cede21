"""The model's output above the tabs, and the grammar's reference translation when it has one."""

from __future__ import annotations

import streamlit as st

from model.registry import LoadedModel
from model.trace import Trace

from . import state
from .text import escape_markdown


def render(loaded: LoadedModel, trace: Trace, text: str) -> None:
    """The model's name heads the page (the figures' titles leave it out), then its output."""
    st.markdown("### " + escape_markdown(loaded.label))
    if trace.output:
        st.markdown("#### Output: " + escape_markdown(trace.output))
        if loaded.output_note:
            st.info(loaded.output_note)
    if loaded.reference is not None:
        reference = state.get_reference(loaded.name, text)
        if reference is None:
            st.caption(
                "The corpus grammar cannot generate this English sentence, so there is no "
                "reference translation to compare with."
            )
        else:
            verdict = "matches" if reference.text == trace.output else "differs from"
            st.caption(
                f"The model's output {verdict} the grammar's reference: "
                + escape_markdown(reference.text)
            )
    for notice in trace.notices:
        st.warning(escape_markdown(notice))  # notices quote typed words
