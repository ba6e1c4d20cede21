"""Per-head statistics: how spread out, how far and onto which tokens every head attends.

One row per (kind, layer, head); every statistic is a mean over the head's query rows. These are
the usual summaries of "what a head does" (e.g. Clark et al., 2019, "What Does BERT Look At?":
heads on the previous token, on [SEP], on punctuation, broad vs. focused heads).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from runtime.trace import Trace

from .style import (
    ATTENTION_COLORSCALE,
    KIND_LABELS,
    apply_layout,
    fit_title,
    grid_size,
    layer_head_axes,
)

# Every input word the vocabulary lacks is read as one of these: a placeholder, not a word.
UNKNOWN_TOKENS = frozenset({"<unk>", "[UNK]"})
WORDPIECE_CONTINUATION = "##"


@dataclass(frozen=True)
class Statistic:
    """A column of the statistics table and how the layer × head chart colours it."""

    column: str
    label: str
    explanation: str  # what 0 and the top of the colour scale mean, for the chart's caption
    # The table's header: a word, so that every column of a table fits a laptop's page (the
    # label and the explanation are the header's tooltip).
    short: str
    positional: bool = False  # compares query and key positions: undefined for cross attention

    @property
    def tooltip(self) -> str:
        return f"{self.label}: {self.explanation}"


STATISTICS = (
    Statistic(
        "entropy_normalised",
        "entropy (normalised)",
        "0 = every query row puts all weight on one key; 1 = uniform over all keys the row may see",
        short="entropy",
    ),
    Statistic(
        "entropy_nats",
        "entropy (nats)",
        "0 = focused on one key; the scale ends at ln(number of keys), a uniform row",
        short="nats",
    ),
    Statistic(
        "mean_distance",
        "mean distance |i − j|",
        "expected distance in tokens between a query and the keys it attends to; "
        "the scale ends at the longest possible distance (number of tokens − 1)",
        positional=True,
        short="|i − j|",
    ),
    Statistic(
        "self_share",
        "share on the token itself",
        "0 = none of the weight, 1 = all of it on the query's own position",
        positional=True,
        short="self",
    ),
    Statistic(
        "previous_share",
        "share on the previous token",
        "0 = none of the weight, 1 = all of it on the position just before the query",
        positional=True,
        short="previous",
    ),
    Statistic(
        "next_share",
        "share on the next token",
        "0 = none of the weight, 1 = all of it on the position just after the query",
        positional=True,
        short="next",
    ),
    Statistic(
        "special_share",
        "share on special tokens",
        "0 = none, 1 = all weight on tokens like [CLS], [SEP], <s>, </s>, <unk>",
        short="special",
    ),
    Statistic(
        "punctuation_share",
        "share on punctuation",
        "0 = none, 1 = all weight on punctuation tokens",
        short="punct.",
    ),
    Statistic(
        "max_weight",
        "mean max weight",
        "the largest weight of a row, averaged over rows: 1 = one key takes everything",
        short="max w",
    ),
)
STATISTIC_BY_COLUMN = {s.column: s for s in STATISTICS}


def is_punctuation(token: str) -> bool:
    """A token made only of Unicode punctuation (categories P*), e.g. "." "," "—" or "##,"."""
    body = token.removeprefix(WORDPIECE_CONTINUATION) if len(token) > 2 else token
    return bool(body) and all(unicodedata.category(ch).startswith("P") for ch in body)


def entropy(p: np.ndarray) -> np.ndarray:
    """Shannon entropy in nats over the last axis, H = −Σ_j p_j ln p_j with 0 ln 0 = 0 (masked
    keys carry weight 0)."""
    p = np.asarray(p, dtype=np.float64)
    terms = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return -terms.sum(axis=-1)


def visible_key_counts(kind: str, n_queries: int, n_keys: int) -> np.ndarray:
    """How many keys each query row may attend to: row t of the causal decoder sees t + 1."""
    if kind == "decoder_self":
        return np.arange(1, n_queries + 1)
    return np.full(n_queries, n_keys)


def attention_statistics(
    weights: np.ndarray,
    kind: str,
    query_tokens: Collection[str],
    key_tokens: Collection[str],
    special_tokens: Collection[str],
) -> pd.DataFrame:
    """Statistics of every head in `weights` [layer, head, query, key] of one attention kind.

    Entropy H = −Σ_j w_j ln w_j (0 ln 0 = 0), in nats; normalised by ln(keys the row may see), so
    a uniform row scores 1 under the causal mask too. A row that may see one key only (the
    decoder's first) has no choice to measure and is left out of the normalised mean.
    Positional statistics (distance, self, previous) need queries and keys to be the same
    sequence, so they are NaN for cross attention. The previous-token share averages rows 2..n
    (the first token has no previous one), the next-token share rows 1..n−1 (the decoder's
    causal mask gives it 0 there). Layers and heads are numbered from 1, as shown to people.
    """
    weights = np.asarray(weights, dtype=np.float64)
    n_layers, n_heads, n_queries, n_keys = weights.shape
    if (len(query_tokens), len(key_tokens)) != (n_queries, n_keys):
        raise ValueError("the tokens do not match the shape of the attention weights")
    row_entropy = entropy(weights)  # [layer, head, query]
    visible = visible_key_counts(kind, n_queries, n_keys)
    can_choose = visible > 1
    if can_choose.any():
        normalised = (row_entropy[..., can_choose] / np.log(visible[can_choose])).mean(axis=-1)
    else:
        normalised = np.full((n_layers, n_heads), np.nan)

    special = set(special_tokens) | UNKNOWN_TOKENS
    is_special = np.array([t in special for t in key_tokens], dtype=bool)
    is_punct = np.array([is_punctuation(t) for t in key_tokens], dtype=bool)
    columns = {
        "entropy_nats": row_entropy.mean(axis=-1),
        "entropy_normalised": normalised,
        "special_share": weights[..., is_special].sum(axis=-1).mean(axis=-1),
        "punctuation_share": weights[..., is_punct].sum(axis=-1).mean(axis=-1),
        "max_weight": weights.max(axis=-1).mean(axis=-1),
    }
    nan = np.full((n_layers, n_heads), np.nan)
    if kind == "cross":
        columns |= {
            "mean_distance": nan,
            "self_share": nan,
            "previous_share": nan,
            "next_share": nan,
        }
    else:
        positions = np.arange(n_queries)
        distance = np.abs(positions[:, None] - positions[None, :])
        columns["mean_distance"] = (weights * distance).sum(axis=-1).mean(axis=-1)
        columns["self_share"] = np.diagonal(weights, axis1=-2, axis2=-1).mean(axis=-1)
        previous = weights[..., positions[1:], positions[:-1]]  # w[i, i-1] for i >= 1
        columns["previous_share"] = previous.mean(axis=-1) if n_queries > 1 else nan
        following = weights[..., positions[:-1], positions[1:]]  # w[i, i+1] for i < n - 1
        columns["next_share"] = following.mean(axis=-1) if n_queries > 1 else nan

    layer, head = np.meshgrid(np.arange(n_layers), np.arange(n_heads), indexing="ij")
    table = pd.DataFrame(
        {"kind": kind, "layer": layer.ravel() + 1, "head": head.ravel() + 1}
        | {s.column: columns[s.column].ravel() for s in STATISTICS}
    )
    return table


def head_statistics(trace: Trace, special_tokens: Collection[str]) -> pd.DataFrame:
    """The statistics table of every head of every attention kind of a Trace."""
    tables = [
        attention_statistics(trace.attention[kind], kind, *trace.axis_tokens(kind), special_tokens)
        for kind in trace.kinds
    ]
    return pd.concat(tables, ignore_index=True)


def colour_range(statistic: Statistic, n_keys: int) -> tuple[float, float]:
    """The fixed colour scale of a statistic: its whole possible range for this sentence."""
    if statistic.column == "entropy_nats":
        return 0.0, float(np.log(max(n_keys, 2)))
    if statistic.column == "mean_distance":
        return 0.0, float(max(n_keys - 1, 1))
    return 0.0, 1.0


def statistic_grid(
    table: pd.DataFrame,
    kind: str,
    column: str,
    n_keys: int,
    presentation: bool = False,
    statistic: Statistic | None = None,
) -> go.Figure:
    """Layer × head heatmap of one statistic of one attention kind, on its fixed colour scale
    (`statistic` describes a column that is not one of STATISTICS)."""
    statistic = statistic or STATISTIC_BY_COLUMN[column]
    rows = table[table["kind"] == kind]
    grid = rows.pivot(index="layer", columns="head", values=column).sort_index()
    zmin, zmax = colour_range(statistic, n_keys)
    fig = go.Figure(
        go.Heatmap(
            z=grid.to_numpy(),
            x=list(grid.columns),
            y=list(grid.index),
            colorscale=ATTENTION_COLORSCALE,
            zmin=zmin,
            zmax=zmax,
            colorbar={"title": {"text": statistic.label}},
            hovertemplate="layer %{y}, head %{x}<br>"
            + statistic.label
            + ": %{z:.3f}<extra></extra>",
            xgap=2,
            ygap=2,
        )
    )
    title = f"{KIND_LABELS[kind]} · {statistic.label}, per layer and head"
    apply_layout(
        fig,
        title,
        presentation,
        **grid_size([f"{layer}" for layer in grid.index], len(grid.columns), presentation),
        **layer_head_axes(grid.index, grid.columns),
    )
    return fit_title(fig)
