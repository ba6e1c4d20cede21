"""Attention rollout (Abnar & Zuidema, 2020, "Quantifying Attention Flow in Transformers", ACL).

The raw attention of a layer says which *layer inputs* a position reads, but after layer 1 those
inputs are already mixtures of tokens. Rollout follows the mixing back to the input tokens: each
layer's attention, with the residual connection added as an identity (Section 3 of the rollout
paper; the residual is Section 3.1 of Vaswani et al.), is multiplied through the layers.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from model.trace import Trace

from .attention import token_axis, token_categories
from .style import ATTENTION_COLORSCALE, PRESENTATION_SCALE, TITLE_SIZE, apply_layout, safe

# Titles wrap at this many characters, so a figure fits half the page at the usual title size.
TITLE_LINE_CHARS = 44
RESIDUAL_SHARE = 0.5  # Abnar & Zuidema: Ã = 0.5 A + 0.5 I


def residual_attention(attention: np.ndarray) -> np.ndarray:
    """Ã_l = 0.5 · mean_heads(A_l) + 0.5 · I, rows renormalised to sum to 1.

    `attention` is [layer, head, n, n]; returns [layer, n, n].
    """
    mean = np.asarray(attention, dtype=np.float64).mean(axis=1)
    with_residual = (1 - RESIDUAL_SHARE) * mean + RESIDUAL_SHARE * np.eye(mean.shape[-1])
    return with_residual / with_residual.sum(axis=-1, keepdims=True)


def rollout(attention: np.ndarray) -> np.ndarray:
    """[layer, n, n]: entry l is Ã_l ··· Ã_1, how much output position i of layer l+1 (1-based)
    draws on input token j. Every row is a probability distribution over the input tokens."""
    layers = residual_attention(attention)
    result = np.empty_like(layers)
    flow = np.eye(layers.shape[-1])
    for layer, matrix in enumerate(layers):
        flow = matrix @ flow
        result[layer] = flow
    return result


def fit_title(
    fig: go.Figure, top_axis_tokens: Sequence[str] = (), max_chars: int = TITLE_LINE_CHARS
) -> go.Figure:
    """Wrap the title into lines (at " · " and spaces) and make room for it at the top.

    Plotly neither wraps titles nor leaves room for a title of several lines above a token axis
    drawn at the top, so the top margin is computed here from the line count and the tokens.
    """
    title_size = fig.layout.title.font.size
    width = round(max_chars * TITLE_SIZE / title_size)  # fewer characters in presentation mode
    parts = re.split(r" · |<br>", fig.layout.title.text)
    lines = [line for part in parts for line in textwrap.wrap(part, width)]
    line_height = round(1.3 * title_size)
    title_room = line_height * len(lines) + line_height // 2
    axis_room = 0
    if top_axis_tokens:
        # Axis title plus tick labels turned by 45°: about 0.4 font sizes of height per character.
        longest = min(max(len(token) for token in top_axis_tokens), 24)
        axis_room = round(fig.layout.font.size * (2.5 + 0.4 * longest))
    fig.update_layout(
        title={
            "text": "<br>".join(lines),
            "y": 1,
            "yref": "container",
            "yanchor": "top",
            "pad": {"t": line_height},
        },
        margin={"t": title_room + axis_room},
        height=(fig.layout.height or 450) + title_room,
    )
    return fig


def token_heatmap(
    z: np.ndarray,
    row_tokens: Sequence[str],
    column_tokens: Sequence[str],
    title: str,
    value_label: str,
    zmin: float = 0.0,
    zmax: float = 1.0,
    colorscale: str = ATTENTION_COLORSCALE,
    row_axis: str = "query (attending)",
    column_axis: str = "key (attended to)",
    presentation: bool = False,
) -> go.Figure:
    """A [row, column] matrix with tokens on both axes, a fixed colour scale and exact hovers."""
    rows, columns = token_categories(row_tokens), token_categories(column_tokens)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=columns,
            y=rows,
            hovertemplate=f"'%{{y}}' → '%{{x}}'<br>{value_label}: %{{z:.4f}}<extra></extra>",
            colorscale=colorscale,
            zmin=zmin,
            zmax=zmax,
            colorbar={"title": {"text": value_label}},
            xgap=1,
            ygap=1,
        )
    )
    size = max(420, min(900, 34 * max(len(rows), len(columns)) + 200))
    apply_layout(
        fig,
        title,
        presentation,
        height=round(size * (PRESENTATION_SCALE if presentation else 1.0)),
        xaxis=token_axis(column_axis, columns, tickangle=-45, side="top"),
        yaxis=token_axis(row_axis, rows, autorange="reversed"),
    )
    return fit_title(fig, column_tokens)


def rollout_figure(
    trace: Trace, layer: int, model_label: str, presentation: bool = False
) -> go.Figure:
    """The encoder's rollout through layers 1..layer+1 (layer is 0-based)."""
    tokens = trace.source_tokens
    matrix = rollout(trace.attention["encoder_self"][: layer + 1])[layer]
    through = "layer 1" if layer == 0 else f"layers 1–{layer + 1}"
    return token_heatmap(
        matrix,
        tokens,
        tokens,
        f"{safe(model_label)} · encoder attention rollout through {through} "
        "(mean over heads, residual added)",
        "rollout share",
        row_axis=f"output position after layer {layer + 1}",
        column_axis="input token",
        presentation=presentation,
    )
