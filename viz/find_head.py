"""Find the head: every head of every layer ranked by the weight one query gives one key.

The weight is one entry of a head's softmax(QK^T / sqrt(d_k)) (Eq. 1, Section 3.2.1); there is
one such matrix per head and layer (Section 3.2.2). Asking "which head links *it* to *animal*?"
is reading that entry in all of them and sorting.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .attention import click_layer
from .style import (
    ATTENTION_COLORSCALE,
    KIND_LABELS,
    apply_layout,
    fit_title,
    grid_size,
    layer_head_axes,
    safe,
)

MARKED_RANKS = 5  # the strongest heads are marked "#1" … in their cells

MASKED_KEY = (
    "This key comes after the query: in decoder self-attention a position may not look at "
    "later positions (Section 3.2.3), so no head gives it any weight. Choose an earlier key."
)


class MaskedKeyError(ValueError):
    """The key is in the query's masked future: no head has a weight for it."""


def is_masked(kind: str, query: int, key: int) -> bool:
    """Whether the causal mask of decoder self-attention hides `key` from `query`."""
    return kind == "decoder_self" and key > query


def rank_heads(weights: np.ndarray, kind: str, query: int, key: int) -> pd.DataFrame:
    """Every (layer, head) of `weights` [layer, head, query, key], strongest weight first.

    Columns: rank, layer and head (numbered from 1, as shown to people), weight (from `query`
    to `key`), and place: the key's place among the keys this head's query row may see
    (1 = the query's strongest key in that head). Equal weights keep layer, then head order.
    Raises MaskedKeyError for a key the causal mask hides, ValueError for a position outside
    the text.
    """
    weights = np.asarray(weights, dtype=np.float64)
    n_layers, n_heads, n_queries, n_keys = weights.shape
    if not (0 <= query < n_queries and 0 <= key < n_keys):
        raise ValueError(f"positions {query}, {key} are outside {n_queries} × {n_keys} tokens")
    if is_masked(kind, query, key):
        raise MaskedKeyError(MASKED_KEY)
    visible = query + 1 if kind == "decoder_self" else n_keys
    row = weights[:, :, query, :visible]
    weight = row[:, :, key]
    place = 1 + (row > weight[:, :, None]).sum(axis=-1)
    layer, head = np.indices((n_layers, n_heads))
    order = np.lexsort((head.ravel(), layer.ravel(), -weight.ravel()))
    return pd.DataFrame(
        {
            "rank": np.arange(1, n_layers * n_heads + 1),
            "layer": layer.ravel()[order] + 1,
            "head": head.ravel()[order] + 1,
            "weight": weight.ravel()[order],
            "place": place.ravel()[order],
        }
    )


def ranking_grid(
    table: pd.DataFrame,
    kind: str,
    query_token: str,
    key_token: str,
    presentation: bool = False,
) -> go.Figure:
    """The ranking as a layer × head heatmap of the weight on the fixed 0–1 scale of attention
    weights, the MARKED_RANKS strongest heads marked "#1" … in their cells; a click on a cell
    reports its head (`click_layer`), whose hover gives the exact weight and rank. A decoder
    query is named by the token it writes."""
    n_layers, n_heads = int(table["layer"].max()), int(table["head"].max())
    grid = table.pivot(index="layer", columns="head", values="weight").sort_index()
    ranks = table.pivot(index="layer", columns="head", values="rank").sort_index().to_numpy()
    marks = np.where(ranks <= MARKED_RANKS, np.char.add("#", ranks.astype(str)), "")
    by_head = table.set_index(["layer", "head"])
    layers, heads = (a.ravel() + 1 for a in np.indices((n_layers, n_heads)))
    query, key = safe(query_token), safe(key_token)
    hover = [
        f"layer {layer}, head {head} · click to open it<br>"
        f"weight '{query}' → '{key}': {by_head.loc[(layer, head), 'weight']:.4f}<br>"
        f"rank {by_head.loc[(layer, head), 'rank']} of {len(table)} heads; "
        f"'{key}' is this row's key no. {by_head.loc[(layer, head), 'place']}"
        for layer, head in zip(layers, heads)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=grid.to_numpy(),
            x=list(grid.columns),
            y=list(grid.index),
            colorscale=ATTENTION_COLORSCALE,
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": {"text": "weight (0–1)"}},
            text=marks,
            texttemplate="%{text}",
            hoverinfo="skip",  # the click layer's hover speaks for each cell
            xgap=2,
            ygap=2,
        )
    )
    fig.add_trace(click_layer(heads, layers, np.stack([layers - 1, heads - 1], axis=-1), hover))
    title = f"'{query}' → '{key}' · {KIND_LABELS[kind]}"
    apply_layout(
        fig,
        title,
        presentation,
        **grid_size([str(n) for n in grid.index], n_heads, presentation, cell_text_chars=2),
        **layer_head_axes(grid.index, grid.columns),
        hoverdistance=-1,
        dragmode=False,
    )
    fig.update_traces(textfont={"size": fig.layout.font.size}, selector={"type": "heatmap"})
    return fit_title(fig)
