"""The Attention tab: pick a kind, layer and head and see who attends to whom."""

from __future__ import annotations

import streamlit as st

from viz.attention import heatmap
from viz.style import KIND_LABELS

from . import state

HEAD_MEAN = -1  # the "mean over heads" choice in the head selector


def render(ctx: state.ViewContext) -> list[str]:
    """Draw the tab; returns the session keys it mirrors in the URL."""
    trace = ctx.trace
    kinds = list(trace.kinds)
    state.url_value("kind", kinds[0], valid=lambda v: v in kinds)
    state.url_value("layer", 0, int, valid=lambda v: 0 <= v < trace.n_layers)
    state.url_value("head", 0, int, valid=lambda v: v == HEAD_MEAN or 0 <= v < trace.n_heads)
    controls = st.columns([2, 3, 2])
    kind = controls[0].selectbox(
        "Attention kind", kinds, format_func=lambda k: KIND_LABELS[k], key="kind"
    )
    layer = controls[1].select_slider(
        "Layer", options=list(range(trace.n_layers)), format_func=lambda i: str(i + 1), key="layer"
    )
    head = controls[2].selectbox(
        "Head",
        [HEAD_MEAN, *range(trace.n_heads)],
        format_func=lambda h: "mean over heads" if h == HEAD_MEAN else f"head {h + 1}",
        key="head",
    )
    figure = heatmap(
        trace,
        kind,
        layer,
        None if head == HEAD_MEAN else head,
        model_label=ctx.loaded.label,
        presentation=ctx.presentation,
    )
    st.plotly_chart(figure, width="stretch", key="attention_heatmap")
    return ["kind", "layer", "head"]
