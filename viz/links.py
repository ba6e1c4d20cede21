"""Token links: queries in a left column, keys in a right one, a line per weight (as BertViz's
head view, and as the paper's Figures 3–5 draw encoder self-attention). Several heads at once,
each in its own colour; a line's opacity is its weight.

The lines are chosen and drawn from a [head, query, key] array and two lists of labels, so the
same figure shows token attention (from a Trace) and word attention (`viz.paper_heads`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from runtime.trace import Trace

from .attention import decoder_row_labels, has_decoder_rows, row_tokens
from .style import HEAD_COLORS, KIND_LABELS, apply_layout, legend_below, safe, size_scale

MIN_WEIGHT = 0.01  # lighter lines are invisible anyway and would only add traces
MAX_LINES = 400  # the heaviest lines kept, so a long text still gives a small figure
MAX_TOKENS = 64  # tokens per column; more would not fit on a screen
LEFT, RIGHT = 0.0, 1.0
# Each head's lines start and end a little above or below the token (within BAND of a row, at
# most STEP apart), so two heads linking the same tokens draw two lines side by side instead of
# one line of mixed, greyish colour.
BAND, STEP = 0.5, 0.2


def head_colors(heads: Sequence[int]) -> dict[int, str]:
    """Head -> colour: the heads in increasing order take HEAD_COLORS in turn."""
    return {head: HEAD_COLORS[i % len(HEAD_COLORS)] for i, head in enumerate(sorted(heads))}


@dataclass(frozen=True)
class Link:
    head: int
    query: int
    key: int
    weight: float


@dataclass(frozen=True)
class LinkSelection:
    links: tuple[Link, ...]
    dropped_light: int  # lines under MIN_WEIGHT
    dropped_over_cap: int  # lines beyond MAX_LINES
    n_queries: int  # tokens shown per column
    n_keys: int


def select_lines(
    weights: np.ndarray,
    heads: Sequence[int],
    focus: tuple[str, int] | None = None,
    min_weight: float = MIN_WEIGHT,
    max_lines: int = MAX_LINES,
    max_tokens: int = MAX_TOKENS,
) -> LinkSelection:
    """The lines to draw from `weights` [head, query, key] of one layer: those of `heads` with
    weight >= min_weight, the heaviest max_lines of them.

    `focus` = ("query", i) keeps the lines leaving query i, ("key", j) those arriving at key j.
    """
    heads = list(heads)
    n_q, n_k = min(weights.shape[1], max_tokens), min(weights.shape[2], max_tokens)
    chosen = np.asarray(weights[heads, :n_q, :n_k])
    wanted = np.zeros(chosen.shape, dtype=bool)
    if focus is None:
        wanted[:] = True
    elif focus[0] == "query":
        wanted[:, focus[1], :] = True
    else:
        wanted[:, :, focus[1]] = True
    heavy = wanted & (chosen >= min_weight)
    order = np.argsort(-chosen[heavy], kind="stable")[:max_lines]
    head_pos, q_idx, k_idx = (axis[order] for axis in np.nonzero(heavy))
    kept = tuple(
        Link(heads[h], int(q), int(k), float(chosen[h, q, k]))
        for h, q, k in zip(head_pos, q_idx, k_idx)
    )
    n_heavy = int(heavy.sum())
    return LinkSelection(kept, int(wanted.sum()) - n_heavy, n_heavy - len(kept), n_q, n_k)


def select_links(
    trace: Trace,
    kind: str,
    layer: int,
    heads: list[int],
    focus: tuple[str, int] | None = None,
    min_weight: float = MIN_WEIGHT,
    max_lines: int = MAX_LINES,
    max_tokens: int = MAX_TOKENS,
) -> LinkSelection:
    """`select_lines` on the tokens of one layer of a Trace."""
    return select_lines(
        trace.attention[kind][layer], heads, focus, min_weight, max_lines, max_tokens
    )


def _y(index: int, count: int) -> float:
    """Token i of a column, top to bottom."""
    return float(count - 1 - index)


def _head_shifts(heads: Sequence[int]) -> dict[int, float]:
    """Head -> vertical offset of its line ends, in rows, centred on the token."""
    order = sorted(heads)
    step = min(STEP, BAND / max(len(order) - 1, 1))
    return {head: (i - (len(order) - 1) / 2) * step for i, head in enumerate(order)}


def two_column_figure(
    queries: Sequence[str],
    keys: Sequence[str],
    heads: Sequence[int],
    selection: LinkSelection,
    title: str,
    presentation: bool = False,
    unit: str = "key",
    query_labels: Sequence[str] | None = None,
    query_title: str = "query (attending)",
) -> go.Figure:
    """One Scatter trace per line (its opacity is the weight), a legend swatch per head at full
    colour (a legend line drawn at a light line's opacity would be grey), then the two columns.
    `unit` names what the labels are ("key" for tokens, "word" for words) in the hover text;
    `query_labels` (escaped markup) replace the query tokens in the left column."""
    queries, keys = list(queries)[: selection.n_queries], list(keys)[: selection.n_keys]
    rows = max(len(queries), len(keys))
    # Columns of different lengths (cross attention) are both spread over the same height.
    q_y = [_y(i, len(queries)) * (rows - 1) / max(len(queries) - 1, 1) for i in range(len(queries))]
    k_y = [_y(j, len(keys)) * (rows - 1) / max(len(keys) - 1, 1) for j in range(len(keys))]
    fig = go.Figure()
    colors = head_colors(heads)
    shift = _head_shifts(heads)
    for head in sorted(heads):
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="lines",
                line={"color": colors[head], "width": 5},
                name=f"head {head + 1}",
                legendgroup=f"head {head}",
                hoverinfo="skip",
            )
        )
    for link in selection.links:
        fig.add_trace(
            go.Scatter(
                x=[LEFT, RIGHT],
                y=[q_y[link.query] + shift[link.head], k_y[link.key] + shift[link.head]],
                mode="lines",
                line={"color": colors[link.head], "width": 3},
                opacity=link.weight,
                name=f"head {link.head + 1}",
                legendgroup=f"head {link.head}",
                showlegend=False,
                hovertemplate=f"head {link.head + 1}: query '{safe(queries[link.query])}' → "
                f"{unit} '{safe(keys[link.key])}': {link.weight:.4f}<extra></extra>",
            )
        )
    left_labels = list(query_labels)[: len(queries)] if query_labels else [safe(t) for t in queries]
    right_labels = [safe(t) for t in keys]
    for x, labels, ys, anchor in (
        (LEFT, left_labels, q_y, "left"),
        (RIGHT, right_labels, k_y, "right"),
    ):
        fig.add_trace(
            go.Scatter(
                x=[x] * len(labels),
                y=ys,
                mode="text",
                text=labels,
                textposition="middle " + anchor,
                hoverinfo="skip",
                showlegend=False,
            )
        )
    apply_layout(
        fig,
        title,
        presentation,
        xaxis={
            "range": [-0.6, 1.6],
            "tickvals": [LEFT, RIGHT],
            "ticktext": [query_title, f"{unit} (attended to)"],
            "side": "top",
            "showgrid": False,
            "zeroline": False,
        },
        yaxis={"visible": False, "range": [-1, rows]},
        **legend_below(
            fig,
            presentation,
            round(max(420, 30 * rows + 160) * size_scale(presentation)),
            per_row=4,
        ),
    )
    fig.update_layout(legend_title_text="colour = head", legend_title_side="top")
    return fig


def links_figure(
    trace: Trace,
    kind: str,
    layer: int,
    heads: list[int],
    focus: tuple[str, int] | None = None,
    presentation: bool = False,
    selection: LinkSelection | None = None,
) -> go.Figure:
    """The token links of one layer of a Trace."""
    selection = selection or select_links(trace, kind, layer, heads, focus)
    which = ", ".join(f"{h + 1}" for h in sorted(heads)) or "none"
    queries, keys = trace.axis_tokens(kind)
    labels, query_title = None, "query (attending)"
    if has_decoder_rows(trace, kind):  # a decoder row is the token it writes (token read in grey)
        queries = row_tokens(trace, kind)
        labels = decoder_row_labels(trace, range(len(queries)))
        query_title = "written (read)"
    return two_column_figure(
        queries,
        keys,
        heads,
        selection,
        f"{KIND_LABELS[kind]} · layer {layer + 1}, heads {which}",
        presentation,
        query_labels=labels,
        query_title=query_title,
    )
