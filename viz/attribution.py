"""Attention beside gradient attributions for one translation, each scored against the gold word
alignment where the corpus knows the sentence.

Every panel is a [German token written, English source token] matrix with its rows normalised
to sum to 1 (one fixed 0-1 colour scale for all): gradient attributions (runtime/attribution.py),
the cross-attention of the chosen head, the mean of its layer's heads, the head with the best
held-out AER, and attention rollout through the decoder (`decoder_rollout`). A panel's AER on
this sentence takes each row's largest entry as the link it predicts, as model/evaluate.py does
for the held-out table: AER = 1 − 2·|A ∩ G| / (|A| + |G|) (Och & Ney, 2003, with sure = possible
links), over the rows that have a gold link.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from runtime.attribution import alignment_error_rate
from runtime.trace import Trace

from .attention import decoder_row_labels, token_axis, token_categories, token_heatmap
from .decoding import GoldAlignment
from .rollout import RESIDUAL_SHARE, rollout
from .style import (
    ATTENTION_COLORSCALE,
    CELL_PX,
    CHAR_WIDTH,
    GOLD_COLOR,
    TITLE_SIZE,
    apply_layout,
    fit_title,
    font_px,
    font_scale,
    grid_size,
    legend_below,
    outline_columns,
    row_label_room,
    safe,
    size_scale,
)

ROW_AXIS = "German token written"
COLUMN_AXIS = "English source token"


def row_normalised(matrix: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (a row of zeros stays zero): one colour scale for all."""
    matrix = np.asarray(matrix, dtype=np.float64)
    sums = matrix.sum(axis=-1, keepdims=True)
    return np.divide(matrix, sums, out=np.zeros_like(matrix), where=sums > 0)


def decoder_rollout(trace: Trace) -> np.ndarray:
    """[target row, source token]: how much each decoder row's output draws on each source token,
    attention rollout (Abnar & Zuidema, 2020) carried through the decoder.

    The encoder's rollout R (S × S) says what each encoder output is a mixture of. A decoder
    layer mixes twice, each time with its residual as an identity (Ã = 0.5·A + 0.5·I, heads
    averaged): self-attention mixes the target positions, M = 0.5·(Ā_self + I); cross-attention
    then halves what a row held and adds half of Ā_cross·R. Tracking what each row holds of the
    target inputs (D, from I) and of the source tokens (X, from 0), per layer:
    D ← 0.5·M·D and X ← 0.5·M·X + 0.5·Ā_cross·R, so that every row of [D | X] sums to 1. X is
    returned: the source share of each row (the rest is on the target tokens). Like rollout, it
    ignores the feed-forward layers and the values' sizes."""
    encoder = rollout(trace.attention["encoder_self"])[-1]
    self_attention = np.asarray(trace.attention["decoder_self"], dtype=np.float64).mean(axis=1)
    cross = np.asarray(trace.attention["cross"], dtype=np.float64).mean(axis=1)
    n_rows = self_attention.shape[-1]
    held = np.eye(n_rows)
    source = np.zeros((n_rows, encoder.shape[0]))
    for self_layer, cross_layer in zip(self_attention, cross):
        mixing = (1 - RESIDUAL_SHARE) * self_layer + RESIDUAL_SHARE * np.eye(n_rows)
        held = RESIDUAL_SHARE * mixing @ held
        source = RESIDUAL_SHARE * mixing @ source + (1 - RESIDUAL_SHARE) * cross_layer @ encoder
    return source


FIGURE_TITLE = "Which English tokens made each German token: gradients beside attention"


# The longest panel name, in characters ("integrated gradients"): a panel is never narrower.
PANEL_NAME_CHARS = 20


def least_panel_px(n_source: int, presentation: bool) -> float:
    """A panel's least width: cells of 22 px (scaled), room for upright token labels, and
    its name above it."""
    font = font_px(presentation)
    return max(n_source * 22 * size_scale(presentation), (PANEL_NAME_CHARS + 2) * 0.65 * font)


def panel_columns(n_source: int, width: float, presentation: bool, left: float) -> int:
    """How many panels fit side by side in `width` px, `left` px of it taken by the row labels."""
    font = font_px(presentation)
    least, gap = least_panel_px(n_source, presentation), 2 * font
    return int(max(1, min(4, (width - left - font + gap) // (least + gap))))


def comparison_figure(
    trace: Trace,
    panels: Sequence[tuple[str, np.ndarray]],
    gold: GoldAlignment | None,
    width: int,
    presentation: bool = False,
) -> go.Figure:
    """Every panel as a [German token written, English source token] heatmap, rows normalised,
    in one small multiple `width` px wide (as many columns as `panel_columns` fits): one colour
    scale, the gold alignment outlined on every panel and each panel's AER in its title."""
    rows_t, sources = len(trace.steps), list(trace.source_tokens)
    font = font_px(presentation)
    title_font = round(font)
    row_labels = decoder_row_labels(trace, range(rows_t))
    left = row_label_room([f"{s.token} {s.query_token}" for s in trace.steps], presentation)
    right = font  # the colour bar lies under the panels, so the panels get the width
    columns = panel_columns(len(sources), width, presentation, left)
    panel_rows = -(-len(panels) // columns)
    gap_x = 2 * font
    cell = min(
        CELL_PX * size_scale(presentation),
        (width - left - right - gap_x * (columns - 1)) / (columns * len(sources)),
    )
    panel_w = max(cell * len(sources), least_panel_px(len(sources), presentation))
    panel_h = cell * rows_t
    # below each panel: its tick labels turned upright; above: its title
    ticks_px = CHAR_WIDTH * font * min(max(len(t) for t in sources), 12) + font
    title_px = 2 * 1.3 * title_font + 8  # two lines: the panel's name, its AER
    gap_y = ticks_px + title_px
    plot_w = columns * panel_w + (columns - 1) * gap_x
    plot_h = panel_rows * panel_h + (panel_rows - 1) * gap_y
    hover_sources = [safe(t) for t in sources]
    hover_rows = [safe(s.token) for s in trace.steps]
    customdata = [[[hover_rows[t], hover_sources[i]] for i in range(len(sources))] for t in
                  range(rows_t)]  # fmt: skip
    fig = go.Figure()
    layout: dict = {}
    annotations = []
    for k, (name, matrix) in enumerate(panels):
        shares = row_normalised(np.asarray(matrix)[:rows_t])
        aer = alignment_error_rate(shares, gold.rows) if gold is not None else None
        r, c = divmod(k, columns)
        x0 = c * (panel_w + gap_x) / plot_w
        y1 = 1 - r * (panel_h + gap_y) / plot_h
        suffix = "" if k == 0 else str(k + 1)
        fig.add_trace(
            go.Heatmap(
                z=shares,
                customdata=customdata,
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                coloraxis="coloraxis",
                showlegend=False,
                hovertemplate=f"{safe(name)}<br>'%{{customdata[0]}}' ← "
                "'%{customdata[1]}': %{z:.4f}<extra></extra>",
                xgap=1,
                ygap=1,
            )
        )
        layout[f"xaxis{suffix}"] = {
            "domain": [max(0.0, x0), min(1.0, x0 + panel_w / plot_w)],
            "anchor": f"y{suffix}",
            "tickvals": list(range(len(sources))),
            "ticktext": hover_sources,
            "tickangle": -90,
            "showgrid": False,
            "zeroline": False,
        }
        layout[f"yaxis{suffix}"] = {
            "domain": [max(0.0, y1 - panel_h / plot_h), min(1.0, y1)],
            "anchor": f"x{suffix}",
            "tickvals": list(range(rows_t)),
            "ticktext": row_labels,
            "showticklabels": c == 0,
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
        }
        annotations.append(
            {
                "text": safe(name) + ("" if aer is None else f"<br>AER {aer:.2f}"),
                "x": x0 + panel_w / plot_w / 2,
                "y": y1,
                "xref": "paper",
                "yref": "paper",
                "yanchor": "bottom",
                "yshift": 4,
                "showarrow": False,
                "font": {"size": title_font},
            }
        )
        for t, aligned in enumerate((gold.rows if gold is not None else ())[:rows_t]):
            for i in aligned or ():
                fig.add_shape(
                    type="rect",
                    x0=i - 0.5,
                    x1=i + 0.5,
                    y0=t - 0.5,
                    y1=t + 0.5,
                    xref=f"x{suffix}",
                    yref=f"y{suffix}",
                    line={"color": GOLD_COLOR, "width": 2},
                    fillcolor="rgba(0,0,0,0)",
                )
    if gold is not None and any(gold.rows):
        fig.add_trace(  # carries the legend entry only
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                marker={"symbol": "square-open", "size": 16, "color": GOLD_COLOR},
                name="gold alignment" + ("" if gold.exact else " (by matching the reference)"),
            )
        )
    legend = legend_below(fig, presentation)
    top = round(3 * TITLE_SIZE * font_scale(presentation) + title_px)
    # under the last panels: their tick labels, the colour bar (title, bar, numbers), the legend
    colorbar_px = 5 * font
    legend_px = legend["margin"]["b"] - 110 * font_scale(presentation)
    bottom = round(ticks_px + font + colorbar_px + legend_px + font)
    apply_layout(
        fig,
        FIGURE_TITLE,
        presentation,
        width=round(plot_w + left + right),
        height=round(plot_h + top + bottom),
        margin={"l": round(left), "r": round(right), "t": top, "b": bottom},
        coloraxis={
            "colorscale": ATTENTION_COLORSCALE,
            "cmin": 0.0,
            "cmax": 1.0,
            "colorbar": {
                "title": {"text": "share of the row", "side": "top"},
                "orientation": "h",
                "x": 0,
                "xanchor": "left",
                "xref": "paper",
                "len": min(1.0, 420 * size_scale(presentation) / (plot_w + left + right)),
                "y": -(ticks_px + font) / plot_h,
                "yanchor": "top",
                "thickness": round(0.9 * font),
            },
        },
        annotations=annotations,
        plot_bgcolor="white",
        showlegend=gold is not None and any(gold.rows),
        legend=legend["legend"],
        **layout,
    )
    pad = round(0.6 * TITLE_SIZE * font_scale(presentation))
    fig.update_layout(title={"y": 1, "yref": "container", "yanchor": "top", "pad": {"t": pad}})
    return fig


def word_figure(
    trace: Trace,
    row: int,
    rows_of_word: Sequence[tuple[str, np.ndarray]],
    gold: GoldAlignment | None,
    presentation: bool = False,
    max_width: int | None = None,
) -> go.Figure:
    """Which English tokens made the German token of decoder row `row`, one method a row:
    `rows_of_word` holds each method's (each panel's) row for it, scaled here to sum to 1 as in
    `comparison_figure`; its gold links are outlined. Drawn across the page's main area,
    `max_width` px wide."""
    names = [name for name, _ in rows_of_word]
    shares = row_normalised(np.stack([np.asarray(values) for _, values in rows_of_word]))
    token = trace.steps[row].token
    fig = token_heatmap(
        shares,
        names,
        list(trace.source_tokens),
        f"What made '{safe(token)}' (German token {row + 1}): each method's row",
        "share of the row",
        row_axis="method",
        column_axis=COLUMN_AXIS,
        presentation=presentation,
        max_width=max_width,
        drawn_width=max_width,
    )
    # a row a method, each tall enough for its name: the plot keeps that height below its
    # title and axis, with only a little room under it
    bottom = round(font_px(presentation))
    plot_px = len(names) * CELL_PX * size_scale(presentation)
    fig.update_layout(height=round(fig.layout.margin.t + plot_px + bottom), margin_b=bottom)
    links = gold.rows[row] if gold is not None and row < len(gold.rows) else None
    outline_columns(fig, links or (), len(names))
    return fig


def attention_panels(
    trace: Trace, layer: int, head: int, best: tuple[int, int] | None
) -> list[tuple[str, np.ndarray]]:
    """The attention side, [target row, source token] each: the chosen cross-attention head, its
    layer's mean over heads, the best held-out AER head (`best`, 0-based, when the model has
    one) and the rollout through the decoder."""
    cross = np.asarray(trace.attention["cross"], dtype=np.float64)
    panels = [
        (f"head L{layer + 1} H{head + 1}", cross[layer, head]),
        (f"L{layer + 1} mean of heads", cross[layer].mean(axis=0)),
    ]
    if best is not None and best != (layer, head):
        panels.append((f"held-out best L{best[0] + 1} H{best[1] + 1}", cross[best[0], best[1]]))
    panels.append(("rollout via decoder", decoder_rollout(trace)))
    return panels


def agreement(
    attention: Sequence[tuple[str, np.ndarray]], attributions: Sequence[tuple[str, np.ndarray]]
) -> pd.DataFrame:
    """Spearman's rank correlation, over every (row, source token) cell of the rows normalised,
    between each attention panel (rows of the table) and each attribution (columns)."""
    cells = {name: row_normalised(matrix).ravel() for name, matrix in [*attention, *attributions]}
    ranks = pd.DataFrame(cells).corr(method="spearman")
    return ranks.loc[[name for name, _ in attention], [name for name, _ in attributions]]


# Fewer German tokens with a gold link than this, and one sentence cannot say which method aligns
# best: on two links every method scores 0 or 1 by chance (input x gradient "won" with AER 0.00).
MIN_LINKED_ROWS = 5


def linked_rows(gold: GoldAlignment) -> int:
    """The German tokens the gold alignment links to English ones."""
    return sum(1 for sources in gold.rows if sources)


def aer_table(
    panels: Sequence[tuple[str, np.ndarray]], gold: GoldAlignment | None
) -> pd.DataFrame | None:
    """AER of every panel on this sentence, best first (None without gold alignment)."""
    if gold is None:
        return None
    scores = [(name, alignment_error_rate(matrix, gold.rows)) for name, matrix in panels]
    rows = [(name, round(aer, 3)) for name, aer in scores if aer is not None]
    if not rows:
        return None
    return pd.DataFrame(rows, columns=["method", "AER"]).sort_values("AER", kind="stable")


def encoder_importance(trace: Trace) -> np.ndarray:
    """[token]: what the mean-pooled sentence embedding draws on each input token by attention
    rollout, the mean of the last layer's rollout rows (sums to 1)."""
    return rollout(trace.attention["encoder_self"])[-1].mean(axis=0)


def similarity_figure(
    tokens: Sequence[str],
    rows: Sequence[tuple[str, np.ndarray]],
    title: str,
    presentation: bool = False,
) -> go.Figure:
    """Methods (rows) × tokens (columns) for one of two compared texts: each row's sizes as
    shares of the row (one 0-1 colour scale), the signed value on hover (for gradients: + raises
    the similarity, − lowers it)."""
    signed = np.array([np.asarray(values, dtype=np.float64) for _, values in rows])
    shares = row_normalised(np.abs(signed))
    names = [name for name, _ in rows]
    hover = [[f"{v:+.4f}" for v in row] for row in signed]
    fig = go.Figure(
        go.Heatmap(
            z=shares,
            x=token_categories(tokens),
            y=names,
            customdata=hover,
            hovertemplate="%{y} · '%{x}': share %{z:.3f}, value %{customdata}<extra></extra>",
            colorscale=ATTENTION_COLORSCALE,
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": {"text": "share of the row"}},
            xgap=1,
            ygap=1,
        )
    )
    size = grid_size(names, len(tokens), presentation)
    # the token labels stand above the cells, in the top margin: the figure grows by them
    longest = min(max(len(t) for t in tokens), 24)
    size["height"] = round(
        len(names) * CELL_PX * size_scale(presentation)
        + font_px(presentation) * (3.2 + CHAR_WIDTH * longest)
        + 40 * size_scale(presentation)
    )
    apply_layout(
        fig,
        title,
        presentation,
        **size,
        xaxis=token_axis("token", token_categories(tokens), side="top"),
        yaxis={"autorange": "reversed", "showgrid": False, "tickvals": names},
        plot_bgcolor="white",
        margin={"b": round(20 * size_scale(presentation))},
    )
    return fit_title(fig, tokens)
