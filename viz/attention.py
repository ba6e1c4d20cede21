"""Attention figures: one head as a heatmap, with the tokens on both axes."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from model.trace import Trace

from .style import ATTENTION_COLORSCALE, KIND_LABELS, MASKED_COLOR, apply_layout, safe, safe_all


def head_weights(trace: Trace, kind: str, layer: int, head: int | None) -> np.ndarray:
    """[query, key] weights of one head, or the mean over heads when head is None."""
    weights = trace.attention[kind][layer]
    return weights.mean(axis=0) if head is None else weights[head]


def head_title(trace: Trace, kind: str, layer: int, head: int | None, model_label: str) -> str:
    which = "mean over heads" if head is None else f"head {head + 1}"
    return f"{safe(model_label)} · {KIND_LABELS[kind]} · layer {layer + 1}, {which}"


def heatmap(
    trace: Trace,
    kind: str,
    layer: int,
    head: int | None,
    model_label: str | None = None,
    stretch: bool = False,
    presentation: bool = False,
) -> go.Figure:
    """Queries down, keys across. Causally masked cells are left empty (grey), not drawn as 0.

    The colour scale is fixed to 0..1 so heads can be compared; `stretch` maps 0..max instead.
    """
    queries, keys = trace.axis_tokens(kind)
    weights = head_weights(trace, kind, layer, head).astype(float)
    shown = weights.copy()
    if kind == "decoder_self":
        shown[np.triu_indices_from(shown, k=1)] = np.nan
    q_labels, k_labels = safe_all(queries), safe_all(keys)
    hover = [[(q, k) for k in k_labels] for q in q_labels]
    zmax = float(np.nanmax(shown)) if stretch else 1.0
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=list(range(len(keys))),
            y=list(range(len(queries))),
            customdata=hover,
            hovertemplate="query '%{customdata[0]}' → key '%{customdata[1]}': "
            "%{z:.3f}<extra></extra>",
            colorscale=ATTENTION_COLORSCALE,
            zmin=0.0,
            zmax=zmax,
            colorbar={"title": {"text": "weight" + (" (stretched)" if stretch else "")}},
            xgap=1,
            ygap=1,
        )
    )
    # Tokens repeat ("the ... the"), so the axes are positions labelled with the tokens.
    size = max(420, min(900, 34 * max(len(queries), len(keys)) + 200))
    apply_layout(
        fig,
        head_title(trace, kind, layer, head, model_label or trace.model),
        presentation,
        height=size,
        plot_bgcolor=MASKED_COLOR if kind == "decoder_self" else "white",
        xaxis={
            "title": {"text": "key (attended to)"},
            "tickvals": list(range(len(keys))),
            "ticktext": k_labels,
            "tickangle": -45,
            "side": "top",
            "showgrid": False,
        },
        yaxis={
            "title": {"text": "query (attending)"},
            "tickvals": list(range(len(queries))),
            "ticktext": q_labels,
            "autorange": "reversed",
            "showgrid": False,
        },
    )
    return fig
