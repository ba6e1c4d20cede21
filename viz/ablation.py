"""What changes when heads are switched off: an intact Trace against an ablated one.

Ablating a head replaces its output by zeros before W^O (Section 3.2.2:
MultiHead = Concat(head_1, ..., head_h) W^O), as a per-call setting of the run. The head's own
attention weights are still computed, so the layer it sits in shows no change in attention;
later layers (and the decoder) read a different residual stream and can change.

Decoder rows are compared only while both runs have produced the same tokens: under the causal
mask (Section 3.2.3) row t depends on the tokens before it only, so those rows had equal inputs
apart from the ablation; later rows read different tokens and are not comparable.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from runtime.trace import Trace

from .attention import token_heatmap
from .style import (
    ATTENTION_COLORSCALE,
    FULL_PAGE_TITLE_CHARS,
    HALF_PAGE_TITLE_CHARS,
    HEAD_COLORS,
    KIND_LABELS,
    SIGNED_COLORSCALE,
    apply_layout,
    fit_title,
    layer_head_axes,
    safe,
)


def short_head_label(layer: int, head: int) -> str:
    """0-based indices -> how people name a head, "L1 H1"."""
    return f"L{layer + 1} H{head + 1}"


def shared_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """How many leading tokens two sequences have in common."""
    length = 0
    for x, y in zip(a, b):
        if x != y:
            break
        length += 1
    return length


def comparable_rows(intact: Trace, ablated: Trace, kind: str) -> int:
    """How many query rows of `kind` read the same tokens in both runs."""
    if kind == "encoder_self":
        return len(intact.source_tokens)
    return shared_prefix(intact.target_tokens, ablated.target_tokens)


def _compared(intact: Trace, ablated: Trace, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The [layer, head, row, key] weights of both runs, cut to the comparable rows (and, for
    the decoder's self-attention, to the keys those rows may see)."""
    rows = comparable_rows(intact, ablated, kind)
    keys = rows if kind == "decoder_self" else intact.attention[kind].shape[-1]
    return (
        intact.attention[kind][:, :, :rows, :keys].astype(np.float64),
        ablated.attention[kind][:, :, :rows, :keys].astype(np.float64),
    )


def attention_change(intact: Trace, ablated: Trace, kind: str) -> np.ndarray:
    """[layer, head]: total variation distance ½ Σ_j |a_ij − b_ij| between the runs' rows, averaged
    over the comparable query rows. 0 = the same distribution, 1 = no overlap at all; NaN when no
    row is comparable."""
    before, after = _compared(intact, ablated, kind)
    if before.shape[2] == 0:
        return np.full(before.shape[:2], np.nan)
    return 0.5 * np.abs(after - before).sum(axis=-1).mean(axis=-1)


def attention_difference(
    intact: Trace, ablated: Trace, kind: str, layer: int, head: int
) -> np.ndarray:
    """[row, key]: ablated minus intact weights of one head, on the comparable rows."""
    before, after = _compared(intact, ablated, kind)
    return after[layer, head] - before[layer, head]


def change_grid(
    change: np.ndarray,
    kind: str,
    ablated_heads: Collection[tuple[str, int, int]],
    presentation: bool = False,
) -> go.Figure:
    """Layer × head heatmap of `attention_change`, switched-off heads marked "off"."""
    n_layers, n_heads = change.shape
    layers, heads = list(range(1, n_layers + 1)), list(range(1, n_heads + 1))
    fig = go.Figure(
        go.Heatmap(
            z=change,
            x=heads,
            y=layers,
            colorscale=ATTENTION_COLORSCALE,
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": {"text": "change (TVD)"}},
            hovertemplate="layer %{y}, head %{x}<br>mean total variation distance: "
            "%{z:.4f}<extra></extra>",
            xgap=2,
            ygap=2,
        )
    )
    for k, layer, head in ablated_heads:
        if k == kind:
            fig.add_annotation(
                x=head + 1, y=layer + 1, text="off", showarrow=False, font={"color": "#d62728"}
            )
    off = sum(1 for k, _, _ in ablated_heads if k == kind)
    where = f"{off} switched off here" if off else "heads switched off elsewhere"
    apply_layout(
        fig,
        f"{KIND_LABELS[kind]} · change in attention per layer and head ({where})",
        presentation,
        height=max(380, 60 * n_layers + 180),
        **layer_head_axes(layers, heads),
    )
    return fit_title(fig, max_chars=HALF_PAGE_TITLE_CHARS)  # the left of two columns


def difference_figure(
    intact: Trace,
    ablated: Trace,
    kind: str,
    layer: int,
    head: int,
    presentation: bool = False,
) -> go.Figure:
    """One head's attention, ablated minus intact, on a fixed −1..1 diverging scale."""
    difference = attention_difference(intact, ablated, kind, layer, head)
    queries, keys = intact.axis_tokens(kind)
    rows, columns = difference.shape
    return token_heatmap(
        difference,
        queries[:rows],
        keys[:columns],
        f"{KIND_LABELS[kind]} · layer {layer + 1}, head {head + 1}: ablated − intact",
        "Δ weight",
        zmin=-1.0,
        zmax=1.0,
        colorscale=SIGNED_COLORSCALE,
        presentation=presentation,
        title_chars=HALF_PAGE_TITLE_CHARS,  # the right of two columns
    )


def step_comparison(intact: Trace, ablated: Trace) -> pd.DataFrame:
    """The decoders' outputs step by step.

    While the earlier tokens agree, both runs saw the same context, so the ablated run's
    probability of the intact token is a like-for-like comparison: exact when it chose the same
    token, read from its top alternatives otherwise (NaN when not among them). After the first
    difference the contexts differ and only the tokens are shown side by side.
    """
    rows = []
    agree = True
    for t in range(max(len(intact.steps), len(ablated.steps))):
        before = intact.steps[t] if t < len(intact.steps) else None
        after = ablated.steps[t] if t < len(ablated.steps) else None
        ablated_p_of_intact = np.nan
        if agree and before is not None and after is not None:
            alternatives = dict(after.alternatives)
            if after.token == before.token:
                ablated_p_of_intact = after.probability
            elif before.token in alternatives:
                ablated_p_of_intact = alternatives[before.token]
        rows.append(
            {
                "step": t + 1,
                "same context": agree,
                "intact token": before.token if before else "",
                "intact p": before.probability if before else np.nan,
                "ablated token": after.token if after else "",
                "ablated p": after.probability if after else np.nan,
                "ablated p of intact token": ablated_p_of_intact,
                "Δp of intact token": ablated_p_of_intact - before.probability
                if before
                else np.nan,
            }
        )
        agree = agree and before is not None and after is not None and before.token == after.token
    return pd.DataFrame(rows)


def hidden_similarity(intact: Trace, ablated: Trace) -> np.ndarray:
    """[N + 1, source]: cosine similarity of every encoder hidden state, intact vs ablated."""
    a = intact.encoder_hidden_states.astype(np.float64)
    b = ablated.encoder_hidden_states.astype(np.float64)
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return (a * b).sum(axis=-1) / np.maximum(norms, np.finfo(np.float64).tiny)


def similarity_figure(intact: Trace, ablated: Trace, presentation: bool = False) -> go.Figure:
    """Bars per source token: cosine similarity of the final encoder states, intact vs ablated."""
    similarity = hidden_similarity(intact, ablated)[-1]
    last_layer = len(intact.encoder_hidden_states) - 1  # entry 0 is the input embedding
    tokens = [safe(t) for t in intact.source_tokens]
    positions = list(range(len(tokens)))
    fig = go.Figure(
        go.Bar(
            x=positions,
            y=similarity,
            customdata=tokens,
            text=[f"{s:.4f}" for s in similarity],
            textposition="outside",
            marker_color=HEAD_COLORS[0],
            hovertemplate="'%{customdata}': cosine similarity %{y:.5f}<extra></extra>",
        )
    )
    apply_layout(
        fig,
        f"encoder output (after layer {last_layer}): cosine similarity, intact vs ablated",
        presentation,
        height=460,
        xaxis={
            "title": {"text": "token"},
            "tickvals": positions,
            "ticktext": tokens,
            "tickangle": -45,
        },
        yaxis={"title": {"text": "cosine similarity (1 = unchanged)"}, "range": [-1.0, 1.15]},
    )
    return fit_title(fig, max_chars=FULL_PAGE_TITLE_CHARS)  # drawn across the whole page
