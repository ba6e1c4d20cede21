"""How well the trained translator does: its held-out scores and each head's alignment error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .style import apply_layout, safe


def metrics_table(metrics: dict) -> pd.DataFrame:
    """One row per test set and decoding method, from the sidecar's `metrics`."""
    rows = []
    for key, label in (
        ("beam4", "held-out test set, beam search (4 beams, α=0.6)"),
        ("greedy", "held-out test set, greedy"),
        ("two_clauses", "two clauses joined by “and” (no such sentence in training), beam"),
        ("longer_than_training", "two clauses, longer than any training sentence, beam"),
    ):
        if key in metrics:
            size = metrics[key].get("size", metrics.get("test_set", {}).get("size"))
            rows.append(
                {
                    "evaluation": label,
                    "sentences": size,
                    "exact match": f"{100 * metrics[key]['exact_match']:.1f}%",
                    "BLEU (sacrebleu)": metrics[key]["bleu"],
                }
            )
    return pd.DataFrame(rows)


def alignment_error_grid(
    aer: list[list[float]], model_label: str, presentation: bool = False
) -> go.Figure:
    """Layer × head heatmap of each cross-attention head's AER against the gold alignment.

    Fixed scale 0 (every argmax on a gold link) to 1 (none); reversed so good heads are dark.
    """
    z = np.asarray(aer, dtype=float)
    layers, heads = z.shape
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(1, heads + 1)),
            y=list(range(1, layers + 1)),
            colorscale="Blues_r",
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": {"text": "AER (lower: closer to the gold alignment)"}},
            hovertemplate="layer %{y}, head %{x}: AER %{z:.3f}<extra></extra>",
            texttemplate="%{z:.2f}",
            xgap=2,
            ygap=2,
        )
    )
    return apply_layout(
        fig,
        f"{safe(model_label)} · cross-attention heads: alignment error rate",
        presentation,
        height=max(380, 60 * layers + 180),
        xaxis={"title": {"text": "head"}, "tickvals": list(range(1, heads + 1))},
        yaxis={
            "title": {"text": "layer"},
            "tickvals": list(range(1, layers + 1)),
            "autorange": "reversed",
        },
    )


def loss_curve(
    history: list[list[float]], floor: float, model_label: str, presentation: bool = False
) -> go.Figure:
    """Training loss against step, from the sidecar's loss_history ([step, loss] pairs), with the
    label-smoothing floor no model can go below."""
    steps, losses = zip(*history)
    fig = go.Figure(
        go.Scatter(
            x=steps,
            y=losses,
            mode="lines",
            name="training loss",
            hovertemplate="step %{x}: loss %{y:.3f} nats<extra></extra>",
        )
    )
    fig.add_hline(
        y=floor,
        line_dash="dash",
        annotation_text=f"lowest possible with label smoothing: {floor:.3f}",
        annotation_position="top right",
    )
    return apply_layout(
        fig,
        f"{safe(model_label)} · training loss (label-smoothed cross-entropy)",
        presentation,
        height=420,
        xaxis={"title": {"text": "training step"}},
        yaxis={"title": {"text": "loss (nats per target token)"}, "rangemode": "tozero"},
        showlegend=False,
    )
