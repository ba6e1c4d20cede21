"""Why the attention logits are divided by √d_k (Section 3.2.1 and its footnote 4).

Footnote 4: if the components of q and k are independent with mean 0 and variance 1, then
q·k = Σ_{i=1}^{d_k} q_i k_i has mean 0 and variance d_k. Large logits push the softmax "into
regions where it has extremely small gradients". The Monte Carlo functions here measure that
(seeded, so every figure can be reproduced), the statistics functions measure attention rows of
real runs, and the figure functions draw both.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from runtime.trace import Trace

from .attention import CELL_HOVER, head_title, token_axis, token_categories, with_mask
from .stats import attention_statistics, entropy
from .style import (
    ATTENTION_COLORSCALE,
    CHAR_WIDTH,
    HEAD_COLORS,
    apply_layout,
    colorbar_room,
    fit_title,
    font_px,
    grid_size,
    legend_below,
    row_label_room,
)

# d_k on a log axis labelled at powers of 4 only: Plotly's own log ticks add 2 and 5 between the
# decades, which print over each other in a panel a third of the page wide.
DK_AXIS = {"type": "log", "tickvals": [1, 4, 16, 64, 256, 1024]}
# d_k from 1 to 1,024, evenly spread on a log axis.
DK_GRID = tuple(int(d) for d in np.unique(np.round(np.logspace(0, 10, 21, base=2))))
SCALED_COLOR, UNSCALED_COLOR = HEAD_COLORS[0], HEAD_COLORS[1]


# --- Statistics of probability rows ---------------------------------------------------------------


def largest_weight(p: np.ndarray) -> np.ndarray:
    return np.asarray(p).max(axis=-1)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_jacobian_norm(p: np.ndarray) -> np.ndarray:
    """Frobenius norm of the softmax's Jacobian J = diag(p) − p pᵀ, over the last axis.

    ‖J‖²_F = Σ_i p_i²(1 − p_i)² + Σ_{i≠j} p_i² p_j² = Σ p_i² − 2 Σ p_i³ + (Σ p_i²)².
    It is 0 for a one-hot p: no gradient flows back through a saturated softmax.
    """
    p = np.asarray(p, dtype=np.float64)
    squares = (p**2).sum(axis=-1)
    return np.sqrt(np.maximum(squares - 2 * (p**3).sum(axis=-1) + squares**2, 0.0))


# --- Monte Carlo ----------------------------------------------------------------------------------


def dot_products(d_k: int, samples: int, rng: np.random.Generator) -> np.ndarray:
    """`samples` values of q·k for q, k with independent N(0, 1) components."""
    q = rng.standard_normal((samples, d_k))
    k = rng.standard_normal((samples, d_k))
    return np.einsum("sd,sd->s", q, k)


def sample_variance_sd(d_k: int, samples: int) -> float:
    """Standard deviation of the sample variance of `samples` draws of q·k.

    Var(s²) = σ⁴ (2/(n−1) + κ/n), with σ² = d_k and κ the excess kurtosis of q·k. Each product
    q_i k_i has variance 1 and fourth moment E[q⁴]E[k⁴] = 9, so excess kurtosis 6; a sum of d_k
    independent ones has excess kurtosis 6/d_k.
    """
    n = samples
    return d_k * math.sqrt(2 / (n - 1) + 6 / (d_k * n))


def variance_table(d_values, samples: int, seed: int) -> pd.DataFrame:
    """For each d_k: the sample variance of q·k, the exact d_k, and the sampling error to expect."""
    rng = np.random.default_rng(seed)
    rows = []
    for d_k in d_values:
        variance = dot_products(d_k, samples, rng).var(ddof=1)
        rows.append((d_k, variance, float(d_k), sample_variance_sd(d_k, samples)))
    return pd.DataFrame(
        rows, columns=["d_k", "Var(q·k), Monte Carlo", "exact: d_k", "± 1 s.d. of the estimate"]
    )


def softmax_table(d_values, n_keys: int, trials: int, seed: int) -> pd.DataFrame:
    """Expected largest weight, entropy and Jacobian norm of softmax(q·k_j · s) over n keys.

    For each d_k, q is drawn with N(0, 1) components; given q, the n logits q·k_j are independent
    N(0, ‖q‖²) (a fixed linear combination of independent normals), so they are drawn as ‖q‖·z_j
    with z_j ~ N(0, 1): the same distribution as drawing the n keys, at a fraction of the cost.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for d_k in d_values:
        q_norm = np.linalg.norm(rng.standard_normal((trials, d_k)), axis=1, keepdims=True)
        logits = q_norm * rng.standard_normal((trials, n_keys))
        row = {"d_k": d_k}
        for label, scale in (("unscaled", 1.0), ("scaled 1/√d_k", 1 / math.sqrt(d_k))):
            p = softmax(logits * scale)
            row[f"largest weight, {label}"] = largest_weight(p).mean()
            row[f"entropy (nats), {label}"] = entropy(p).mean()
            row[f"‖Jacobian‖, {label}"] = softmax_jacobian_norm(p).mean()
        rows.append(row)
    return pd.DataFrame(rows)


# --- Theory figures -------------------------------------------------------------------------------


def variance_figure(table: pd.DataFrame, samples: int, presentation: bool = False) -> go.Figure:
    d = table["d_k"]
    fig = go.Figure()
    fig.add_scatter(
        x=d,
        y=d,
        mode="lines",
        name="exact: Var(q·k) = d_k",
        line={"width": 3, "dash": "dash", "color": "black"},
        hovertemplate="d_k = %{x}: exact variance %{y}<extra></extra>",
    )
    fig.add_scatter(
        x=d,
        y=table["Var(q·k), Monte Carlo"],
        mode="markers",
        name=f"Monte Carlo, {samples:,} pairs per d_k (±2 s.d.)",
        marker={"size": 11, "color": UNSCALED_COLOR},
        error_y={"type": "data", "array": 2 * table["± 1 s.d. of the estimate"]},
        hovertemplate="d_k = %{x}: sample variance %{y:.2f}<extra></extra>",
    )
    fig.add_scatter(
        x=d,
        y=table["Var(q·k), Monte Carlo"] / d,
        mode="markers+lines",
        name="Monte Carlo, scaled: Var(q·k/√d_k)",
        marker={"size": 9, "color": SCALED_COLOR},
        hovertemplate="d_k = %{x}: variance after scaling %{y:.3f}<extra></extra>",
    )
    return apply_layout(
        fig,
        "Variance of q·k for q, k with independent N(0, 1) components",
        presentation,
        xaxis={"title": {"text": "d_k (log scale)"}, **DK_AXIS},
        yaxis={"title": {"text": "variance (log scale)"}, "type": "log", "dtick": 1},
        **legend_below(fig, presentation, 500),
    )


def _normal_density(x: np.ndarray, variance: float) -> np.ndarray:
    return np.exp(-(x**2) / (2 * variance)) / math.sqrt(2 * math.pi * variance)


def logit_histograms(
    d_k: int, samples: int, seed: int, presentation: bool = False
) -> tuple[go.Figure, pd.DataFrame]:
    """Histograms of q·k and q·k/√d_k for one d_k, each with the normal density of its variance."""
    logits = dot_products(d_k, samples, np.random.default_rng(seed))
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            f"no scaling: q·k (exact variance {d_k})",
            "scaled: q·k/√d_k (exact variance 1)",
        ),
    )
    summary = []
    for col, (label, values, variance, color) in enumerate(
        (
            ("unscaled", logits, float(d_k), UNSCALED_COLOR),
            ("scaled 1/√d_k", logits / math.sqrt(d_k), 1.0, SCALED_COLOR),
        ),
        start=1,
    ):
        fig.add_histogram(
            x=values,
            histnorm="probability density",
            nbinsx=60,
            marker_color=color,
            opacity=0.75,
            name=f"{label} ({samples:,} samples)",
            hovertemplate="logit %{x}: density %{y:.4f}<extra></extra>",
            row=1,
            col=col,
        )
        grid = np.linspace(values.min(), values.max(), 200)
        fig.add_scatter(
            x=grid,
            y=_normal_density(grid, variance),
            mode="lines",
            line={"width": 3, "color": "black"},
            name=f"N(0, {variance:g}) density",
            hoverinfo="skip",
            row=1,
            col=col,
        )
        fig.update_xaxes(title_text="logit value", row=1, col=col)
        summary.append((label, values.var(ddof=1), variance, np.abs(values).max()))
    fig.update_yaxes(title_text="probability density", row=1, col=1)
    apply_layout(
        fig,
        f"Distribution of the attention logits for d_k = {d_k}",
        presentation,
        **legend_below(fig, presentation, 480),
    )
    frame = pd.DataFrame(
        summary, columns=["logits", "sample variance", "exact variance", "largest |logit|"]
    )
    return fig, frame


def softmax_figure(table: pd.DataFrame, n_keys: int, presentation: bool = False) -> go.Figure:
    """Largest weight, entropy and Jacobian norm against d_k, with and without scaling."""
    # Short panel titles: three side by side get a third of the page. The dotted lines are the
    # uniform row's values, 1/n and log n (the caption under the figure gives them).
    panels = (
        ("largest weight", "largest weight", 1 / n_keys),
        ("entropy (nats)", "entropy (nats)", math.log(n_keys)),
        ("‖Jacobian‖", "‖diag(p) − ppᵀ‖_F", None),
    )
    fig = make_subplots(
        rows=1, cols=3, subplot_titles=[title for _, title, _ in panels], horizontal_spacing=0.08
    )
    for col, (quantity, _, reference) in enumerate(panels, start=1):
        for label, color in (("unscaled", UNSCALED_COLOR), ("scaled 1/√d_k", SCALED_COLOR)):
            column = f"{quantity}, {label}"
            fig.add_scatter(
                x=table["d_k"],
                y=table[column],
                mode="lines+markers",
                line={"width": 3, "color": color},
                name=label,
                legendgroup=label,
                showlegend=col == 1,
                hovertemplate=f"d_k = %{{x}}: {column} = %{{y:.4f}}<extra></extra>",
                row=1,
                col=col,
            )
        if reference is not None:
            fig.add_hline(y=reference, line_dash="dot", row=1, col=col)
        fig.update_xaxes(title_text="d_k (log scale)", row=1, col=col, **DK_AXIS)
    return apply_layout(
        fig,
        f"Softmax over n = {n_keys} keys with random N(0, 1) queries and keys",
        presentation,
        **legend_below(fig, presentation, 480),
    )


# --- Real runs ------------------------------------------------------------------------------------


def entropy_and_largest_weight_by_run(traces: dict[str, Trace], kind: str) -> pd.DataFrame:
    """One row per (layer, head), numbered from 1: mean entropy and mean largest weight of its
    attention rows, for each labelled run (the statistics of `viz.stats`)."""
    frame = None
    for label, trace in traces.items():
        table = attention_statistics(trace.attention[kind], kind, *trace.axis_tokens(kind), ())
        if frame is None:
            frame = table[["layer", "head"]].copy()
        frame[f"entropy, {label}"] = table["entropy_nats"].to_numpy()
        frame[f"largest weight, {label}"] = table["max_weight"].to_numpy()
    return frame


def output_change(traces: dict[str, Trace], reference: str) -> pd.DataFrame:
    """How each run's output differs from the `reference` run's.

    The encoder's final hidden states are compared token by token: cosine similarity and the
    relative change of the norm. An encoder-decoder run also shows its translation. A language
    model's runs are compared over the prompt, the tokens every run read (what each wrote after
    it may differ).
    """
    shared = traces[reference].prompt_length or None
    base = traces[reference].encoder_hidden_states[-1, :shared].astype(np.float64)
    rows = []
    for label, trace in traces.items():
        final = trace.encoder_hidden_states[-1, :shared].astype(np.float64)
        cosine = (final * base).sum(-1) / (
            np.linalg.norm(final, axis=-1) * np.linalg.norm(base, axis=-1)
        )
        norm_change = np.linalg.norm(final, axis=-1) / np.linalg.norm(base, axis=-1) - 1
        row = {
            "run": label,
            "scale": trace.scale,
            "mean cosine to reference": cosine.mean(),
            "lowest cosine to reference": cosine.min(),
            "mean relative norm change": norm_change.mean(),
        }
        if trace.target_tokens:
            row["output" if trace.prompt_length else "translation"] = trace.output
        rows.append(row)
    return pd.DataFrame(rows)


def same_axes(traces: dict[str, Trace], kind: str) -> bool:
    """Whether the runs share their query and key tokens (a decoder's own translation may
    differ between scales), so their heatmaps can share one token axis."""
    axes = {trace.axis_tokens(kind) for trace in traces.values()}
    return len(axes) == 1


def scale_comparison(
    traces: dict[str, Trace], kind: str, layer: int, head: int, presentation: bool = False
) -> go.Figure:
    """One head's heatmap under each scale, side by side with one query axis and one colour
    scale (0 to 1), so the flattening or sharpening reads across at a glance.

    Key labels stand upright (turned by 90°), which lets three panels of 15 tokens share a
    1920 px screen at presentation size. The runs must share their tokens (`same_axes`).
    """
    queries, keys = next(iter(traces.values())).axis_tokens(kind)
    rows, columns = token_categories(queries), token_categories(keys)
    fig = make_subplots(
        rows=1,
        cols=len(traces),
        shared_yaxes=True,
        horizontal_spacing=0.02,
        subplot_titles=[f"<b>{label}</b>" for label in traces],
    )
    for col, trace in enumerate(traces.values(), start=1):
        fig.add_trace(
            go.Heatmap(
                z=with_mask(kind, trace.attention[kind][layer, head]),
                x=columns,
                y=rows,
                hovertemplate=CELL_HOVER,
                colorscale=ATTENTION_COLORSCALE,
                zmin=0.0,
                zmax=1.0,
                showscale=col == 1,
                colorbar={"title": {"text": "weight (0–1)"}},
                xgap=1,
                ygap=1,
            ),
            row=1,
            col=col,
        )
        fig.update_xaxes(
            token_axis("key (attended to)", columns, tickangle=-90, side="top"), row=1, col=col
        )
    fig.update_yaxes(token_axis("query (attending)", rows, autorange="reversed"), row=1, col=1)
    font = font_px(presentation)
    # Upright labels need only a line's height (1.2 font sizes) between neighbours.
    panels = len(traces) * max(1.2 * font * len(keys), 8 * font)
    width = row_label_room(queries, presentation) + panels * 1.05 + colorbar_room(presentation)
    longest = min(max(len(k) for k in keys), 24)
    labels_px = CHAR_WIDTH * longest * font + 2.5 * font  # upright tick labels and axis title
    fig.update_annotations(font_size=round(font), yshift=round(labels_px))
    apply_layout(
        fig,
        head_title(kind, layer, head) + " · under each scale",
        presentation,
        width=round(width),
        height=grid_size(queries, len(keys), presentation)["height"],
        plot_bgcolor="white",
    )
    return fit_title(fig, top_room=round(labels_px + 2 * font))
