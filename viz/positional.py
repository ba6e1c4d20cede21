"""Figures of the positional encoding (Section 3.5 of "Attention Is All You Need").

PE(pos, 2i) = sin(pos / 10000^(2i/d_model)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)).

Every function takes arrays (a [position, d_model] table, from `model.transformer.sinusoidal_table`
or a model's learned position vectors) or a Trace, and returns a Plotly figure or a DataFrame.
"""

from __future__ import annotations

import dataclasses
import math
from types import MappingProxyType

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from runtime.trace import Trace

from .style import (
    FONT_SIZE,
    HEAD_COLORS,
    LEGEND_ROW_PX,
    SIGNED_COLORSCALE,
    apply_layout,
    font_scale,
    legend_below,
    safe_all,
)

BASE = 10000.0  # the paper's 10000 in 10000^(2i/d_model)


# --- The formulas ---------------------------------------------------------------------------------


def wavelengths(d_model: int) -> np.ndarray:
    """λ_i = 2π · 10000^(2i/d_model) for i = 0 .. d_model/2 - 1: the period of dimensions 2i, 2i+1.

    Section 3.5: "the wavelengths form a geometric progression from 2π to 10000 · 2π".
    """
    i = np.arange(d_model // 2)
    return 2 * math.pi * BASE ** (2 * i / d_model)


def shift_matrix(k: int, d_model: int) -> np.ndarray:
    """M_k with PE(pos + k) = M_k PE(pos) for every pos (Section 3.5's linear-function claim).

    With ω_i = 1/10000^(2i/d_model), the angle-sum formulas give, for the pair (sin, cos) of
    dimensions 2i and 2i+1, the rotation [[cos kω_i, sin kω_i], [-sin kω_i, cos kω_i]]. M_k is
    block-diagonal with these 2×2 blocks and does not depend on pos.
    """
    omega = 2 * math.pi / wavelengths(d_model)
    matrix = np.zeros((d_model, d_model))
    for i, angle in enumerate(k * omega):
        c, s = math.cos(angle), math.sin(angle)
        matrix[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return matrix


def shift_residual(table: np.ndarray, k: int) -> np.ndarray:
    """max_d |M_k PE(pos) - PE(pos + k)| for every pos with pos + k in the table."""
    table = np.asarray(table, dtype=np.float64)
    moved = table[:-k] @ shift_matrix(k, table.shape[1]).T
    return np.abs(moved - table[k:]).max(axis=1)


def offset_profile(table: np.ndarray) -> pd.DataFrame:
    """PE(p)·PE(p + offset) for every offset: mean, lowest and highest over the positions p.

    For the sinusoids PE(p)·PE(q) = Σ_i cos((p - q) ω_i), a function of the offset only, so the
    lowest and highest coincide; for learned vectors nothing forces that.
    """
    table = np.asarray(table, dtype=np.float64)
    similarity = table @ table.T
    rows = []
    for offset in range(table.shape[0]):
        values = np.diagonal(similarity, offset)
        rows.append((offset, values.mean(), values.min(), values.max(), values.size))
    return pd.DataFrame(rows, columns=["offset", "mean", "lowest", "highest", "pairs"])


# --- Figures of a table ---------------------------------------------------------------------------


def _symmetric_range(values: np.ndarray) -> float:
    return float(np.abs(values).max()) or 1.0


# A learned table has a few outlier dimensions (MiniLM-L6: one reaches 1.87 where 99% of the
# values lie within ±0.08): a scale set by them leaves the rest white, so it is set by this
# percentile of |value| instead, and the colour bar says so.
LEARNED_SCALE_PERCENTILE = 99


def learned_scale_bound(table: np.ndarray) -> float:
    """Where the colours of a learned table end: the LEARNED_SCALE_PERCENTILE of |value|."""
    return float(np.percentile(np.abs(table), LEARNED_SCALE_PERCENTILE)) or 1.0


def _signed_heatmap(
    z: np.ndarray, value_label: str, hover: str, bound: float | None = None
) -> go.Heatmap:
    """A heatmap of signed values on the diverging scale, symmetric about 0 (white); values
    beyond ±bound (default: the largest |value|) take the end colours."""
    bound = bound or _symmetric_range(z)
    return go.Heatmap(
        z=z,
        colorscale=SIGNED_COLORSCALE,
        zmin=-bound,
        zmax=bound,
        colorbar={"title": {"text": value_label}},
        hovertemplate=hover + "<extra></extra>",
    )


def encoding_heatmap(
    table: np.ndarray, title: str, presentation: bool = False, learned: bool = False
) -> go.Figure:
    """Positions down, dimensions across; the diverging scale is white at 0.

    Sinusoids fill ±1 and their dimensions run from the fastest wave to the slowest (Section
    3.5); learned vectors (`learned`) have no such order and a scale clipped at a percentile."""
    table = np.asarray(table, dtype=np.float32)
    hover = "position %{y}, dimension %{x}: %{z:.4f}"
    if learned:
        bound = learned_scale_bound(table)
        trace = _signed_heatmap(table, f"value (scale ±{bound:.2f})", hover, bound)
        dimension_axis = "dimension"
    else:
        trace = _signed_heatmap(table, "value", hover)
        dimension_axis = "dimension (from the fastest wave)"
    return apply_layout(
        go.Figure(trace),
        title,
        presentation,
        height=560,
        xaxis={"title": {"text": dimension_axis}},
        yaxis={"title": {"text": "position"}, "autorange": "reversed"},
    )


def dimension_curves(
    table: np.ndarray, dimensions: list[int], title: str, presentation: bool = False
) -> go.Figure:
    """Chosen dimensions against position (the Annotated Transformer's figure)."""
    positions = np.arange(table.shape[0])
    fig = go.Figure()
    for n, dim in enumerate(dimensions):
        kind = "sin" if dim % 2 == 0 else "cos"
        fig.add_scatter(
            x=positions,
            y=table[:, dim],
            mode="lines",
            name=f"dim {dim} ({kind}, i={dim // 2})",
            line={"width": 3, "color": HEAD_COLORS[n % len(HEAD_COLORS)]},
            hovertemplate=f"dim {dim}, position %{{x}}: %{{y:.4f}}<extra></extra>",
        )
    # the legend below, an entry a row under its title: beside the plot it took half of a
    # column's width, and two a row overprint in a laptop's half-page column
    below = legend_below(fig, presentation, 460)
    title_row = round(LEGEND_ROW_PX * font_scale(presentation))
    below["legend"]["title"] = {"text": "dimension", "side": "top"}
    below["margin"]["b"] += title_row
    below["height"] += title_row
    return apply_layout(
        fig,
        title,
        presentation,
        xaxis={"title": {"text": "position"}},
        yaxis={"title": {"text": "PE(position, dim)"}, "range": [-1.1, 1.1]},
        **below,
    )


def wavelength_figure(d_model: int, presentation: bool = False) -> go.Figure:
    """λ_i on a log scale: a straight line from 2π to 10000·2π, the geometric progression."""
    lam = wavelengths(d_model)
    i = np.arange(lam.size)
    fig = go.Figure(
        go.Scatter(
            x=i,
            y=lam,
            mode="lines+markers",
            name="λ_i = 2π·10000^(2i/d_model)",
            marker={"size": 5},
            hovertemplate="i = %{x} (dims %{customdata}): λ = %{y:.6g} positions<extra></extra>",
            customdata=[f"{2 * k}, {2 * k + 1}" for k in i],
        )
    )
    for value, label in ((2 * math.pi, "2π ≈ 6.28"), (BASE * 2 * math.pi, "10000·2π ≈ 62,832")):
        fig.add_hline(y=value, line_dash="dot", annotation_text=label)
    return apply_layout(
        fig,
        f"Wavelength of each sine/cosine pair, d_model = {d_model}",
        presentation,
        height=460,
        xaxis={"title": {"text": "pair index i (dimensions 2i and 2i+1)"}},
        yaxis={
            "title": {"text": "λ_i (positions, log scale)"},
            "type": "log",
            "dtick": 1,
        },
        showlegend=False,
    )


def similarity_heatmap(table: np.ndarray, title: str, presentation: bool = False) -> go.Figure:
    """PE(p)·PE(q) for every pair of positions."""
    table = np.asarray(table, dtype=np.float64)
    similarity = (table @ table.T).astype(np.float32)
    fig = go.Figure(_signed_heatmap(similarity, "dot product", "PE(%{y})·PE(%{x}) = %{z:.3f}"))
    return apply_layout(
        fig,
        title,
        presentation,
        height=560,
        # square cells: in a narrow column the anchor shrinks the plotting area ("domain")
        # rather than stretching the axes past the positions (it showed -50..150 for 0..99)
        xaxis={"title": {"text": "position q"}, "scaleanchor": "y", "constrain": "domain"},
        yaxis={"title": {"text": "position p"}, "autorange": "reversed", "constrain": "domain"},
    )


def offset_profile_figure(
    profiles: dict[str, pd.DataFrame], title: str, presentation: bool = False
) -> go.Figure:
    """Mean dot product against offset, with the band from lowest to highest over positions.

    A band of zero width means the similarity depends on the offset only.
    """
    fig = go.Figure()
    for n, (label, profile) in enumerate(profiles.items()):
        color = HEAD_COLORS[n % len(HEAD_COLORS)]
        fig.add_scatter(
            x=np.concatenate([profile["offset"], profile["offset"][::-1]]),
            y=np.concatenate([profile["highest"], profile["lowest"][::-1]]),
            fill="toself",
            fillcolor=color,
            opacity=0.25,
            line={"width": 0},
            name=f"{label}: lowest to highest over positions",
            hoverinfo="skip",
        )
        fig.add_scatter(
            x=profile["offset"],
            y=profile["mean"],
            mode="lines",
            line={"width": 3, "color": color},
            name=f"{label}: mean",
            customdata=np.stack([profile["lowest"], profile["highest"]], axis=1),
            hovertemplate="offset %{x}: mean %{y:.4f}, lowest %{customdata[0]:.4f}, "
            "highest %{customdata[1]:.4f}<extra></extra>",
        )
    return apply_layout(
        fig,
        title,
        presentation,
        xaxis={"title": {"text": "offset q − p (positions)"}, "nticks": 6},
        yaxis={"title": {"text": "PE(p)·PE(p + offset)"}},
        **legend_below(fig, presentation, 460),
    )


# The gap between float32 numbers just below 1 (2^-24): how exactly a PE value is stored.
FLOAT32_SPACING_NEAR_1 = 2.0**-24


def shift_figure(table: np.ndarray, k: int, presentation: bool = False) -> go.Figure:
    """Left: the top-left corner of M_k (its 2×2 rotation blocks); right: the residual per position."""
    d_model = table.shape[1]
    factor = font_scale(presentation)
    shown = min(d_model, 16)
    corner = shift_matrix(k, d_model)[:shown, :shown]
    residual = shift_residual(table, k)
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.4, 0.6],
        horizontal_spacing=0.16,
        subplot_titles=(
            f"M_{k}, first {shown} of {d_model} dimensions",
            f"max |M_{k}·PE(pos) − PE(pos+{k})| per position",
        ),
    )
    fig.add_heatmap(
        z=corner,
        colorscale=SIGNED_COLORSCALE,
        zmin=-1,
        zmax=1,
        # Across the bottom of the figure under the left panel: between the panels it would
        # cover the right panel's axis title.
        colorbar={
            "title": {"text": "entry", "side": "top"},
            "orientation": "h",
            "x": 0.2,
            "xanchor": "center",
            "yref": "container",
            "y": 0,
            "yanchor": "bottom",
            "len": 0.38,
            "thickness": 16,
        },
        hovertemplate="M[%{y}, %{x}] = %{z:.6f}<extra></extra>",
        row=1,
        col=1,
    )
    fig.add_scatter(
        x=np.arange(residual.size),
        y=np.maximum(residual, 1e-10),  # an exact 0 (not drawable on a log axis) at the floor
        mode="lines",
        line={"width": 3},
        hovertemplate="pos %{x}: residual %{y:.2e}<extra></extra>",
        showlegend=False,
        row=1,
        col=2,
    )
    fig.update_yaxes(autorange="reversed", title_text="row", row=1, col=1)
    fig.update_xaxes(title_text="column", row=1, col=1)
    # From 1 (the size of a PE value) down past float32's rounding, a tick every decade: the
    # line sits at the rounding, nine decades under the values it compares. Half a decade more
    # at each end keeps the end labels off the x axis's labels and the panel's title.
    fig.update_yaxes(
        type="log",
        range=[-10.5, 0.5],
        dtick=1,
        exponentformat="power",
        title={"text": "largest |difference| (log)", "standoff": round(1.2 * FONT_SIZE * factor)},
        row=1,
        col=2,
    )
    fig.update_xaxes(title_text="position pos", row=1, col=2)
    fig.update_annotations(font_size=round(FONT_SIZE * factor))  # the two panel titles
    fig.add_hline(
        y=FLOAT32_SPACING_NEAR_1, line={"dash": "dot", "width": 2, "color": "#555"}, row=1, col=2
    )
    fig.add_annotation(  # on a log axis an annotation's y is the exponent
        text="float32 rounding near 1 (6·10⁻⁸)",
        xref="x2 domain",
        x=1,
        xanchor="right",
        yref="y2",
        y=math.log10(FLOAT32_SPACING_NEAR_1),
        yanchor="bottom",
        yshift=round(0.6 * FONT_SIZE * factor),
        showarrow=False,
        font={"size": round(FONT_SIZE * factor), "color": "#333"},
    )
    return apply_layout(
        fig,
        f"PE(pos+{k}) = M_{k}·PE(pos): one fixed matrix for every position, d_model = {d_model}",
        presentation,
        height=round(640 * factor),
        margin={"b": round((110 + 16) * factor + 2.8 * FONT_SIZE * factor)},
    )


# --- The typed sentence ---------------------------------------------------------------------------


def input_norms(tokens, parts: dict[str, np.ndarray], total: np.ndarray) -> pd.DataFrame:
    """One row per token: the Euclidean norm of each summed part and of the encoder input."""
    frame = pd.DataFrame({"position": range(len(tokens)), "token": list(tokens)})
    for name, part in parts.items():
        frame[f"‖{name}‖"] = np.linalg.norm(part, axis=1)
    frame["‖encoder input‖"] = np.linalg.norm(total, axis=1)
    return frame


def input_norms_figure(norms: pd.DataFrame, title: str, presentation: bool = False) -> go.Figure:
    """Grouped bars: how large each part of each token's input vector is."""
    fig = go.Figure()
    columns = [c for c in norms.columns if c.startswith("‖")]
    labels = [f"{p}: {t}" for p, t in zip(norms["position"], safe_all(norms["token"]))]
    for n, column in enumerate(columns):
        fig.add_bar(
            x=labels,
            y=norms[column],
            name=column,
            marker_color=HEAD_COLORS[n % len(HEAD_COLORS)],
            hovertemplate="%{x}: " + column + " = %{y:.3f}<extra></extra>",
        )
    return apply_layout(
        fig,
        title,
        presentation,
        barmode="group",
        xaxis={"title": {"text": "position: token"}, "tickangle": -45},
        yaxis={"title": {"text": "Euclidean norm"}},
        **legend_below(fig, presentation, 480),
    )


def unshuffled(trace: Trace, permutation: tuple[int, ...]) -> Trace:
    """The encoder self-attention of a run on shuffled input, rows and columns put back in the
    original order, as a Trace the attention heatmap can draw.

    Token i of the shuffled run is original token permutation[i], so original token a sits at
    shuffled index inverse[a]; entry [a, b] of the result is the shuffled run's [inverse[a],
    inverse[b]]. Without positions this equals the unshuffled run's attention.
    """
    inverse = np.argsort(permutation)
    weights = trace.attention["encoder_self"][:, :, inverse][:, :, :, inverse]
    queries = trace.queries["encoder_self"][:, :, inverse]
    keys = trace.keys["encoder_self"][:, :, inverse]
    return dataclasses.replace(
        trace,
        source_tokens=tuple(trace.source_tokens[i] for i in inverse),
        attention=MappingProxyType({"encoder_self": weights}),
        queries=MappingProxyType({"encoder_self": queries}),
        keys=MappingProxyType({"encoder_self": keys}),
        encoder_hidden_states=trace.encoder_hidden_states[:, inverse],
    )
