"""Eq. (1) on real numbers for one query token and one head (as BertViz's neuron view):
the query vector q, every key vector k, the dot products q·k, the scaled logits and the softmax.

Section 3.2.1: Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V; the scale is the Trace's
(1/sqrt(d_k) unless the viewer changed it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from runtime.trace import Trace

from .attention import token_axis, token_categories
from .style import KIND_LABELS, SIGNED_COLORSCALE, apply_layout, cell_gap, safe, size_scale


def visible_keys(kind: str, query: int, n_keys: int) -> np.ndarray:
    """Which keys the query may see: all of them, except the future in decoder self-attention."""
    allowed = np.ones(n_keys, dtype=bool)
    if kind == "decoder_self":
        allowed[query + 1 :] = False
    return allowed


def breakdown_table(trace: Trace, kind: str, layer: int, head: int, query: int) -> pd.DataFrame:
    """One row per key: q·k, the scaled logit and the softmax, recomputed from q and k.

    Masked keys (the decoder's future) get no logit and weight 0, as the mask gives them -inf.
    """
    q = trace.queries[kind][layer, head, query].astype(np.float64)
    k = trace.keys[kind][layer, head].astype(np.float64)
    dots = k @ q
    logits = dots * trace.scale
    allowed = visible_keys(kind, query, len(k))
    shifted = np.where(allowed, logits - logits[allowed].max(), -np.inf)
    softmax = np.exp(shifted) / np.exp(shifted).sum()
    _, key_tokens = trace.axis_tokens(kind)
    return pd.DataFrame(
        {
            "key_index": np.arange(len(k)),
            "key_token": list(key_tokens),
            "q·k": np.where(allowed, dots, np.nan),
            "scaled logit": np.where(allowed, logits, np.nan),
            "softmax": softmax,
            "masked": ~allowed,
        }
    )


def breakdown_figure(
    trace: Trace,
    kind: str,
    layer: int,
    head: int,
    query: int,
    presentation: bool = False,
) -> go.Figure:
    """Left: q on top, the key vectors below (values as colours). Right: q·k, × scale, softmax."""
    table = breakdown_table(trace, kind, layer, head, query)
    q = trace.queries[kind][layer, head, query]
    k = trace.keys[kind][layer, head]
    query_tokens, key_tokens = trace.axis_tokens(kind)
    keys = token_categories(key_tokens)
    dims = [str(i) for i in range(trace.d_k)]
    limit = float(max(np.abs(q).max(), np.abs(k).max()))
    fig = make_subplots(
        rows=2,
        cols=4,
        shared_yaxes=True,
        row_heights=[0.1, 0.9],
        column_widths=[0.46, 0.18, 0.18, 0.18],
        horizontal_spacing=0.03,
        vertical_spacing=0.09,
        specs=[[{}, None, None, None], [{}, {}, {}, {}]],
        subplot_titles=[
            "query vector q",
            "key vectors k",
            "q·k",
            f"× {trace.scale:.4g}",
            "softmax",
        ],
    )
    vector = {"colorscale": SIGNED_COLORSCALE, "zmin": -limit, "zmax": limit, "xgap": 1}
    fig.add_trace(
        go.Heatmap(
            z=q[None, :],
            x=dims,
            y=[f"q ({safe(query_tokens[query])})"],
            hovertemplate="q[%{x}] = %{z:.4f}<extra></extra>",
            colorbar={"title": {"text": "vector value"}, "x": 1.02},
            **vector,
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Heatmap(
            z=k,
            x=dims,
            y=keys,
            hovertemplate="k('%{y}')[%{x}] = %{z:.4f}<extra></extra>",
            showscale=False,
            ygap=cell_gap(len(keys)),
            **vector,
        ),
        row=2,
        col=1,
    )
    columns = (("q·k", "#7f7f7f"), ("scaled logit", "#ff7f0e"), ("softmax", "#1f77b4"))
    for col, (name, colour) in enumerate(columns, start=2):
        fig.add_trace(
            go.Bar(
                x=table[name],
                y=keys,
                orientation="h",
                marker_color=colour,
                name=name,
                showlegend=False,
                hovertemplate=f"key '%{{y}}': {name} = %{{x:.4f}}<extra></extra>",
            ),
            row=2,
            col=col,
        )
    # Each bar panel is a sixth of the page wide: three ticks leave room between the numbers.
    for col in (2, 3, 4):
        fig.update_xaxes(nticks=3, row=2, col=col)
    fig.update_xaxes(range=[0, 1], tickvals=[0, 0.5, 1], row=2, col=4)
    fig.update_xaxes(showticklabels=False, row=1, col=1)
    fig.update_xaxes(title_text="dimension of d_k", row=2, col=1)
    fig.update_yaxes(token_axis("key", keys, autorange="reversed"), row=2, col=1)
    fig.update_yaxes(autorange="reversed", row=2)
    fig.update_annotations(font_size=round(15 * (1.4 if presentation else 1.0)))
    title = (
        f"{KIND_LABELS[kind]} · layer {layer + 1}, "
        f"head {head + 1} · query '{safe(query_tokens[query])}'"
    )
    rows = len(keys)
    apply_layout(
        fig,
        title,
        presentation,
        height=round(max(460, 26 * rows + 220) * size_scale(presentation)),
        bargap=0.15,
        plot_bgcolor="white",
    )
    return fig
