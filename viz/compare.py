"""Two runs of one head compared: two texts, or one text under two settings (scaled or not,
intact or with heads switched off), and the difference B − A where their tokens line up.

A head's weights are rows of softmax(QK^T / sqrt(d_k)) (Eq. 1, Section 3.2.1): every weight lies
in [0, 1], so a difference of two weights lies in [−1, 1], and that fixed range is the colour
scale. Two texts have different token sequences; the cells compared are the (query, key) pairs
whose query token and key token both occur in both texts, matched in order by
`difflib.SequenceMatcher` (the longest common blocks, as `diff` finds changed lines).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np
import plotly.graph_objects as go

from runtime.trace import Trace

from .attention import (
    DECODER_ROWS_AXIS,
    decoder_row_labels,
    fit_width,
    head_title,
    head_weights,
    masked_layer,
    token_axis,
    token_categories,
    with_mask,
)
from .style import SIGNED_COLORSCALE, apply_layout, cell_gap, fit_title, grid_size

DIFFERENCE_HOVER = (
    "query '%{y}' → key '%{x}'<br>A: %{customdata[0]:.4f}<br>B: %{customdata[1]:.4f}"
    "<br>B − A: %{z:+.4f}<extra></extra>"
)


def matched_pairs(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[tuple[int, int], ...]:
    """(index in a, index in b) of the elements the two sequences share, in order.

    autojunk=False: difflib otherwise ignores elements that fill more than 1% of a sequence of
    200 or more (a long text's "the"), which would leave those tokens unmatched.
    """
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return tuple(
        (block.a + i, block.b + i)
        for block in matcher.get_matching_blocks()
        for i in range(block.size)
    )


def _decoder_rows(trace: Trace, kind: str) -> bool:
    """Whether the rows are the decoder's steps, each reading one token and writing the next."""
    return kind != "encoder_self" and len(trace.steps) == len(trace.target_tokens)


def row_tokens(trace: Trace, kind: str) -> tuple:
    """What identifies each query row: its token, or for a decoder row the pair (token written,
    token read), so two decoder rows line up only when they read and write the same tokens."""
    queries, _ = trace.axis_tokens(kind)
    if _decoder_rows(trace, kind):
        return tuple((step.token, step.query_token) for step in trace.steps)
    return queries


@dataclass(frozen=True)
class Comparison:
    """One head in runs A and B over the (query, key) cells that line up.

    `rows` and `columns` are (index in A, index in B) pairs; `a` and `b` are the weights at
    those cells, [matched rows, matched columns], NaN where a causal mask hides the cell.
    """

    kind: str
    layer: int
    head: int | None
    rows: tuple[tuple[int, int], ...]
    columns: tuple[tuple[int, int], ...]
    a: np.ndarray
    b: np.ndarray
    unmatched_a: tuple[str, ...]  # tokens of A with no partner in B (rows or keys)
    unmatched_b: tuple[str, ...]

    @property
    def difference(self) -> np.ndarray:
        return self.b - self.a

    @property
    def complete(self) -> bool:
        """Every token of both runs lined up (the same text, or the same translation)."""
        return not self.unmatched_a and not self.unmatched_b


def _unmatched(tokens: Sequence[str], matched: set[int], axis: str) -> list[str]:
    return [f"{token} ({axis} {i + 1})" for i, token in enumerate(tokens) if i not in matched]


def _names(trace: Trace, kind: str) -> tuple[list[str], list[str]]:
    """The row and key tokens as people read them: a decoder row by the token it writes."""
    rows, keys = trace.axis_tokens(kind)
    if _decoder_rows(trace, kind):
        rows = tuple(step.token for step in trace.steps)
    return list(rows), list(keys)


def compare(a: Trace, b: Trace, kind: str, layer: int, head: int | None) -> Comparison:
    """Line up the rows and the keys of `kind` in A and B and take one head's (or the mean
    over heads') weights at the matched cells."""
    rows = matched_pairs(row_tokens(a, kind), row_tokens(b, kind))
    columns = matched_pairs(a.axis_tokens(kind)[1], b.axis_tokens(kind)[1])
    row_index, column_index = (
        np.array(rows, int).reshape(-1, 2),
        np.array(columns, int).reshape(-1, 2),
    )
    weights_a = with_mask(kind, head_weights(a, kind, layer, head))
    weights_b = with_mask(kind, head_weights(b, kind, layer, head))
    unmatched = []
    for side, trace in enumerate((a, b)):
        names_rows, names_keys = _names(trace, kind)
        if kind == "encoder_self":  # rows and keys are the same tokens: named once
            missing = _unmatched(names_rows, set(row_index[:, side]), "token")
        else:
            missing = _unmatched(names_rows, set(row_index[:, side]), "row")
            missing += _unmatched(names_keys, set(column_index[:, side]), "key")
        unmatched.append(tuple(missing))
    return Comparison(
        kind=kind,
        layer=layer,
        head=head,
        rows=rows,
        columns=columns,
        a=weights_a[np.ix_(row_index[:, 0], column_index[:, 0])].astype(np.float64),
        b=weights_b[np.ix_(row_index[:, 1], column_index[:, 1])].astype(np.float64),
        unmatched_a=unmatched[0],
        unmatched_b=unmatched[1],
    )


def largest_change(comparison: Comparison, a: Trace) -> tuple[float, str, str] | None:
    """The largest |B − A| of the comparison, signed, with its query and key tokens (as A
    names them); None when nothing is compared or every compared cell is masked."""
    difference = comparison.difference
    if difference.size == 0 or np.isnan(difference).all():
        return None
    row, column = np.unravel_index(np.nanargmax(np.abs(difference)), difference.shape)
    rows, keys = _names(a, comparison.kind)
    return (
        float(difference[row, column]),
        rows[comparison.rows[row][0]],
        keys[comparison.columns[column][0]],
    )


def difference_figure(
    comparison: Comparison, a: Trace, presentation: bool = False, max_width: int | None = None
) -> go.Figure:
    """B − A over the matched cells, labelled with A's tokens (the same as B's there), on a
    fixed diverging scale from −1 to 1, white at 0; the hover gives A, B and B − A exactly.
    At most `max_width` px wide (`attention.fit_width`)."""
    kind = comparison.kind
    queries, keys = a.axis_tokens(kind)
    rows = [r for r, _ in comparison.rows]
    shown_keys = [keys[c] for c, _ in comparison.columns]
    q_labels = token_categories([queries[r] for r in rows])
    k_labels = token_categories(shown_keys)
    difference = comparison.difference.astype(np.float32)
    gaps = {"xgap": cell_gap(len(k_labels)), "ygap": cell_gap(len(q_labels))}
    fig = go.Figure(
        go.Heatmap(
            z=difference,
            x=k_labels,
            y=q_labels,
            customdata=np.stack([comparison.a, comparison.b], axis=-1).astype(np.float32),
            hovertemplate=DIFFERENCE_HOVER,
            hoverongaps=False,
            colorscale=SIGNED_COLORSCALE,
            zmin=-1.0,
            zmax=1.0,
            colorbar={"title": {"text": "B − A (−1 to 1)"}},
            **gaps,
        )
    )
    masked = np.isnan(difference)
    if masked.any():
        fig.add_trace(masked_layer(masked, k_labels, q_labels, **gaps))
    decoder_rows = _decoder_rows(a, kind)
    row_names = _names(a, kind)[0]
    row_texts = [f"{row_names[r]} {queries[r]}" if decoder_rows else queries[r] for r in rows]
    title = head_title(kind, comparison.layer, comparison.head, "B − A")
    if not comparison.complete:
        title += " · tokens in both"
    size = grid_size(row_texts, len(k_labels), presentation)
    key_axis = token_axis("key (attended to)", k_labels, side="top")
    fit_width(size, key_axis, "key (attended to)", k_labels, row_texts, max_width, presentation)
    apply_layout(
        fig,
        title,
        presentation,
        **size,
        plot_bgcolor="white",
        xaxis=key_axis,
        yaxis=token_axis("query (attending)", q_labels, autorange="reversed"),
    )
    if decoder_rows:
        fig.update_yaxes(title={"text": DECODER_ROWS_AXIS}, ticktext=decoder_row_labels(a, rows))
    return fit_title(fig, shown_keys)
