"""Token links: queries in a left column, keys in a right one, a line per weight (as BertViz's
head view). Several heads at once, each in its own colour; a line's opacity is its weight."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from model.trace import Trace

from .style import HEAD_COLORS, KIND_LABELS, apply_layout, legend_below, safe

MIN_WEIGHT = 0.01  # lighter lines are invisible anyway and would only add traces
MAX_LINES = 400  # the heaviest lines kept, so a long text still gives a small figure
MAX_TOKENS = 64  # tokens per column; more would not fit on a screen
LEFT, RIGHT = 0.0, 1.0


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
    """The lines to draw: weight >= min_weight, the heaviest max_lines of them.

    `focus` = ("query", i) keeps the lines leaving query i, ("key", j) those arriving at key j.
    """
    queries, keys = trace.axis_tokens(kind)
    n_q, n_k = min(len(queries), max_tokens), min(len(keys), max_tokens)
    weights = np.asarray(trace.attention[kind][layer][heads, :n_q, :n_k])
    wanted = np.zeros(weights.shape, dtype=bool)
    if focus is None:
        wanted[:] = True
    elif focus[0] == "query":
        wanted[:, focus[1], :] = True
    else:
        wanted[:, :, focus[1]] = True
    heavy = wanted & (weights >= min_weight)
    order = np.argsort(-weights[heavy], kind="stable")[:max_lines]
    head_pos, q_idx, k_idx = (axis[order] for axis in np.nonzero(heavy))
    kept = tuple(
        Link(heads[h], int(q), int(k), float(weights[h, q, k]))
        for h, q, k in zip(head_pos, q_idx, k_idx)
    )
    n_heavy = int(heavy.sum())
    return LinkSelection(kept, int(wanted.sum()) - n_heavy, n_heavy - len(kept), n_q, n_k)


def _y(index: int, count: int) -> float:
    """Token i of a column, top to bottom."""
    return float(count - 1 - index)


def links_figure(
    trace: Trace,
    kind: str,
    layer: int,
    heads: list[int],
    focus: tuple[str, int] | None = None,
    presentation: bool = False,
    selection: LinkSelection | None = None,
) -> go.Figure:
    """One Scatter trace per line (its opacity is the weight), then the two token columns."""
    selection = selection or select_links(trace, kind, layer, heads, focus)
    queries, keys = trace.axis_tokens(kind)
    queries, keys = queries[: selection.n_queries], keys[: selection.n_keys]
    rows = max(len(queries), len(keys))
    # Columns of different lengths (cross attention) are both spread over the same height.
    q_y = [_y(i, len(queries)) * (rows - 1) / max(len(queries) - 1, 1) for i in range(len(queries))]
    k_y = [_y(j, len(keys)) * (rows - 1) / max(len(keys) - 1, 1) for j in range(len(keys))]
    fig = go.Figure()
    legend_shown = set()
    for link in selection.links:
        colour = HEAD_COLORS[link.head % len(HEAD_COLORS)]
        fig.add_trace(
            go.Scatter(
                x=[LEFT, RIGHT],
                y=[q_y[link.query], k_y[link.key]],
                mode="lines",
                line={"color": colour, "width": 3},
                opacity=link.weight,
                name=f"head {link.head + 1}",
                legendgroup=f"head {link.head}",
                showlegend=link.head not in legend_shown,
                hovertemplate=f"head {link.head + 1}: query '{safe(queries[link.query])}' → "
                f"key '{safe(keys[link.key])}': {link.weight:.4f}<extra></extra>",
            )
        )
        legend_shown.add(link.head)
    for x, tokens, ys, anchor in ((LEFT, queries, q_y, "left"), (RIGHT, keys, k_y, "right")):
        fig.add_trace(
            go.Scatter(
                x=[x] * len(tokens),
                y=ys,
                mode="text",
                text=[safe(t) for t in tokens],
                textposition="middle " + anchor,
                hoverinfo="skip",
                showlegend=False,
            )
        )
    which = ", ".join(f"{h + 1}" for h in sorted(heads)) or "none"
    title = f"{KIND_LABELS[kind]} · layer {layer + 1}, heads {which}"
    apply_layout(
        fig,
        title,
        presentation,
        xaxis={
            "range": [-0.6, 1.6],
            "tickvals": [LEFT, RIGHT],
            "ticktext": ["query (attending)", "key (attended to)"],
            "side": "top",
            "showgrid": False,
            "zeroline": False,
        },
        yaxis={"visible": False, "range": [-1, rows]},
        **legend_below(
            fig,
            presentation,
            round(max(420, 30 * rows + 160) * (1.25 if presentation else 1.0)),
            per_row=6,
        ),
    )
    fig.update_layout(legend_title_text="colour = head", legend_title_side="top")
    return fig
