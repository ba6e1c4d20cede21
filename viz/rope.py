"""Rotary position embeddings (RoPE) drawn from a language model's real queries and keys: the
angles each pair is turned by, one query and key placed at every pair of positions, and the
score against their distance (runtime/rope.py computes them)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .positional import _signed_heatmap
from .style import HEAD_COLORS, apply_layout, fit_title, legend_below, safe


def angle_heatmap(angles: np.ndarray, base: float, presentation: bool = False) -> go.Figure:
    """cos(m θ_i) for positions m down and pairs i across: the paper's sinusoids (Section 3.5)
    are the same waves, there added to the input once, here turning q and k in every layer."""
    fig = apply_layout(
        go.Figure(
            _signed_heatmap(
                np.cos(angles), "cos(m·θᵢ)", "position %{y}, pair %{x}: cos %{z:.4f}", 1.0
            )
        ),
        f"RoPE · each pair of q and k turned by m·θᵢ · θᵢ = {base:,.0f}^(−2i/d_k)",
        presentation,
        height=520,
        xaxis={"title": {"text": "pair i (from the fastest turn)"}},
        yaxis={"title": {"text": "position m"}, "autorange": "reversed"},
    )
    return fit_title(fig)


def score_grid_heatmap(
    grid: np.ndarray, query: str, key: str, where: str, presentation: bool = False
) -> go.Figure:
    """The scaled score of one query against one key at every (m, n): equal along diagonals."""
    bound = float(np.abs(grid).max()) or 1.0
    fig = apply_layout(
        go.Figure(
            _signed_heatmap(
                grid,
                "score q·k / √d_k",
                "query at %{y}, key at %{x}: %{z:.4f}",
                bound,
            )
        ),
        f"'{safe(query)}' against '{safe(key)}' · {where} · at every pair of positions",
        presentation,
        height=560,
        xaxis={"title": {"text": "key position n"}},
        yaxis={"title": {"text": "query position m"}, "autorange": "reversed"},
    )
    return fit_title(fig)


def distance_figure(
    with_rope: np.ndarray, without: float, query: str, key: str, presentation: bool = False
) -> go.Figure:
    """The score against the distance m − n, and the same vectors' score without rotation."""
    distances = np.arange(len(with_rope))
    fig = go.Figure()
    fig.add_scatter(
        x=distances,
        y=with_rope,
        mode="lines",
        name="with RoPE",
        line={"width": 3, "color": HEAD_COLORS[0]},
        hovertemplate="distance %{x}: score %{y:.4f}<extra></extra>",
    )
    fig.add_scatter(
        x=distances,
        y=np.full(len(distances), without),
        mode="lines",
        name="without rotation (the same at every distance)",
        line={"width": 3, "dash": "dash", "color": HEAD_COLORS[1]},
        hovertemplate="without rotation: %{y:.4f}<extra></extra>",
    )
    apply_layout(
        fig,
        f"'{safe(query)}' against '{safe(key)}' · the score by distance",
        presentation,
        xaxis={"title": {"text": "distance m − n (positions)"}},
        yaxis={"title": {"text": "score q·k / √d_k"}},
        **legend_below(fig, presentation, 460),
    )
    return fit_title(fig)
