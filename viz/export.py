"""Downloads: attention as a tidy CSV, the Trace as JSON, figures as offline HTML, PNG options."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from model.trace import Trace

CSV_COLUMNS = ["layer", "head", "query_index", "query_token", "key_index", "key_token", "weight"]
# The Trace as JSON holds every weight of every kind as text; past this many it is too large for
# a browser download (a 512-token MiniLM text has 19 million) and the command line is the way.
TRACE_JSON_MAX_WEIGHTS = 2_000_000


def attention_frame(trace: Trace, kind: str, layers, heads) -> pd.DataFrame:
    # `layers` and `heads` index the Trace's arrays (from 0).
    """One row per (layer, head, query, key) weight. Layers and heads are numbered from 1, as
    the page and the file names show them ("layer4-head2" holds layer 4, head 2); query and key
    indices are positions, from 0 as in PE(pos)."""
    queries, keys = trace.axis_tokens(kind)
    layers, heads = list(layers), list(heads)
    weights = trace.attention[kind][np.ix_(layers, heads)]  # [layer, head, query, key]
    layer_i, head_i, query_i, key_i = np.indices(weights.shape).reshape(4, -1)
    frame = pd.DataFrame(
        {
            "layer": np.asarray(layers)[layer_i] + 1,
            "head": np.asarray(heads)[head_i] + 1,
            "query_index": query_i,
            "query_token": np.asarray(queries, dtype=object)[query_i],
            "key_index": key_i,
            "key_token": np.asarray(keys, dtype=object)[key_i],
            "weight": weights.reshape(-1),
        }
    )
    if kind == "decoder_self":  # the masked future has no weight, rather than a weight of 0
        frame = frame[frame["key_index"] <= frame["query_index"]].reset_index(drop=True)
    return frame


def attention_csv(trace: Trace, kind: str, layers, heads) -> str:
    """The weights as CSV text (see `attention_frame` for the numbering)."""
    return attention_frame(trace, kind, layers, heads).to_csv(index=False, float_format="%.9g")


def trace_weight_count(trace: Trace) -> int:
    return sum(weights.size for weights in trace.attention.values())


def trace_json(trace: Trace) -> str:
    return json.dumps(trace.to_json_dict())


def figure_html(fig: go.Figure) -> str:
    """A standalone interactive page with plotly.js inline, so it works offline."""
    return fig.to_html(include_plotlyjs=True, full_html=True)


def plotly_config(file_name: str) -> dict:
    """Chart config: the toolbar's camera button saves a sharp PNG named after the view."""
    return {
        "toImageButtonOptions": {"format": "png", "filename": file_name, "scale": 2},
        "displaylogo": False,
    }
