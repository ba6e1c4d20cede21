"""Decoding step by step: at each output position, where every head of the encoder-decoder
attention looks in the source, what the model wrote and what else it considered.

Section 3.2.3: in encoder-decoder attention the queries come from the decoder and the keys and
values from the encoder output, so every decoder position can look at every source token.
Row t of the decoder reads target_tokens[t] and produces steps[t].token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go

from model.tokenization import EOS_ID, SPECIALS
from runtime.confidence import LOW_CONFIDENCE, Confidence
from runtime.reference import Reference
from runtime.trace import Trace

from .attention import token_axis, token_categories
from .style import (
    ATTENTION_COLORSCALE,
    GOLD_COLOR,
    KIND_LABELS,
    apply_layout,
    legend_below,
    outline_columns,
    safe,
    size_scale,
)

EOS = SPECIALS[EOS_ID]


@dataclass(frozen=True)
class GoldAlignment:
    """Gold source positions for each decoder row (None where there is none, e.g. at </s>).

    `exact` is True when the model wrote exactly the reference translation; otherwise each
    generated token borrows the alignment of the same word in the reference, where there is one.
    """

    rows: tuple[tuple[int, ...] | None, ...]
    reference: tuple[str, ...]
    exact: bool


def gold_alignment(trace: Trace, reference: Reference | None) -> GoldAlignment | None:
    """The corpus's gold alignment for the decoder's rows, from the model's `reference` for this
    sentence (None where the grammar does not cover it)."""
    if reference is None:
        return None
    produced = [step.token for step in trace.steps]
    german = list(reference.target_tokens)
    exact = produced == german or produced == german + [EOS]
    rows: list[tuple[int, ...] | None] = []
    used: set[int] = set()
    for t, token in enumerate(produced):
        if exact:
            match = t if t < len(german) else None
        elif t < len(german) and german[t] == token and t not in used:
            match = t
        else:
            match = next((j for j, g in enumerate(german) if g == token and j not in used), None)
        if match is None:
            rows.append(None)
            continue
        used.add(match)
        rows.append(reference.alignment[match])
    return GoldAlignment(tuple(rows), tuple(german), exact)


def step_title(trace: Trace, step: int, escape: Callable[[str], str] = safe) -> str:
    """What the decoder did at this step; `escape` suits where the text goes (Plotly: `safe`)."""
    s = trace.steps[step]
    return (
        f"step {step + 1}: reads '{escape(s.query_token)}', writes '{escape(s.token)}' "
        f"(p = {s.probability:.3f})"
    )


def step_figure(
    trace: Trace,
    layer: int,
    step: int,
    gold: GoldAlignment | None = None,
    presentation: bool = False,
) -> go.Figure:
    """Heads (rows) × source tokens (columns): cross-attention of decoder row `step`.

    Gold-aligned source tokens are outlined in red in every head's row.
    """
    weights = trace.attention["cross"][layer, :, step, :]
    sources = token_categories(trace.source_tokens)
    heads = [f"head {h + 1}" for h in range(weights.shape[0])]
    fig = go.Figure(
        go.Heatmap(
            z=weights,
            x=sources,
            y=heads,
            hovertemplate="%{y}: key '%{x}': %{z:.4f}<extra></extra>",
            colorscale=ATTENTION_COLORSCALE,
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": {"text": "weight (0–1)"}},
            xgap=1,
            ygap=1,
        )
    )
    aligned = gold.rows[step] if gold is not None and step < len(gold.rows) else None
    if aligned:
        # the empty trace below only carries the outlines' legend entry
        outline_columns(fig, aligned, len(heads))
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                marker={"symbol": "square-open", "size": 16, "color": GOLD_COLOR},
                name="gold alignment" + ("" if gold.exact else " (by matching the reference)"),
            )
        )
    title = f"{KIND_LABELS['cross']} · layer {layer + 1} · " + step_title(trace, step)
    apply_layout(
        fig,
        title,
        presentation,
        xaxis=token_axis("source token (key)", sources),
        yaxis={"title": {"text": "head"}, "autorange": "reversed", "showgrid": False},
        **legend_below(
            fig, presentation, round((40 * len(heads) + 260) * size_scale(presentation))
        ),
        plot_bgcolor="white",
    )
    return fig


def alternatives_figure(trace: Trace, step: int, presentation: bool = False) -> go.Figure:
    """The most probable next tokens at this step, best first; the one written is highlighted."""
    s = trace.steps[step]
    options = list(s.alternatives)
    if s.token not in {token for token, _ in options}:
        options.append((s.token, s.probability))  # beam search may keep a less probable token
    labels = token_categories(token for token, _ in options)
    fig = go.Figure(
        go.Bar(
            x=[p for _, p in options],
            y=labels,
            orientation="h",
            marker_color=["#1f77b4" if token == s.token else "#c7c7c7" for token, _ in options],
            text=[f"{p:.3f}" for _, p in options],
            textposition="outside",
            hovertemplate="'%{y}': p = %{x:.4f}<extra></extra>",
        )
    )
    apply_layout(
        fig,
        f"Next-token probabilities at step {step + 1} (blue: written)",
        presentation,
        height=round(380 * size_scale(presentation)),
        xaxis={"title": {"text": "probability"}, "range": [0, 1.1]},
        yaxis=token_axis("token", labels, autorange="reversed"),
        plot_bgcolor="white",
    )
    return fig


def confidence_figure(confidence: Confidence, presentation: bool = False) -> go.Figure:
    """The probability the model gave each token it wrote, in the order written, against the
    line below which the page calls the output probably wrong."""
    labels = token_categories(confidence.tokens)
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=list(confidence.probabilities),
            marker_color=[
                GOLD_COLOR if p < LOW_CONFIDENCE else "#1f77b4" for p in confidence.probabilities
            ],
            hovertemplate="'%{x}': p = %{y:.4f}<extra></extra>",
        )
    )
    fig.add_hline(
        y=LOW_CONFIDENCE,
        line_dash="dash",
        line_color="#555555",
        annotation_text=f"{LOW_CONFIDENCE:.0%}",
        annotation_position="top right",
    )
    apply_layout(
        fig,
        f"Probability of each token written (red: below {LOW_CONFIDENCE:.0%}); "
        f"geometric mean {confidence.sentence:.0%}",
        presentation,
        height=round(320 * size_scale(presentation)),
        xaxis=token_axis("token written", labels),
        yaxis={"title": {"text": "probability"}, "range": [0, 1.05]},
        plot_bgcolor="white",
    )
    return fig
