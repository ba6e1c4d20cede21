"""Attention rollout (Abnar & Zuidema, 2020, "Quantifying Attention Flow in Transformers", ACL).

The raw attention of a layer says which *layer inputs* a position reads, but after layer 1 those
inputs are already mixtures of tokens. Rollout follows the mixing back to the input tokens: each
layer's attention, with the residual connection added as an identity (Section 3 of the rollout
paper; the residual is Section 3.1 of Vaswani et al.), is multiplied through the layers.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from runtime.trace import Trace

from .attention import token_heatmap

RESIDUAL_SHARE = 0.5  # Abnar & Zuidema: Ã = 0.5 A + 0.5 I


def residual_attention(attention: np.ndarray) -> np.ndarray:
    """Ã_l = 0.5 · mean_heads(A_l) + 0.5 · I, rows renormalised to sum to 1.

    `attention` is [layer, head, n, n]; returns [layer, n, n].
    """
    mean = np.asarray(attention, dtype=np.float64).mean(axis=1)
    with_residual = (1 - RESIDUAL_SHARE) * mean + RESIDUAL_SHARE * np.eye(mean.shape[-1])
    return with_residual / with_residual.sum(axis=-1, keepdims=True)


def rollout(attention: np.ndarray) -> np.ndarray:
    """[layer, n, n]: entry l is Ã_l ··· Ã_1, how much output position i of layer l+1 (1-based)
    draws on input token j. Every row is a probability distribution over the input tokens."""
    layers = residual_attention(attention)
    result = np.empty_like(layers)
    flow = np.eye(layers.shape[-1])
    for layer, matrix in enumerate(layers):
        flow = matrix @ flow
        result[layer] = flow
    return result


def rollout_figure(
    trace: Trace, layer: int, presentation: bool = False, max_width: int | None = None
) -> go.Figure:
    """The rollout through layers 1..layer+1 (layer is 0-based) of the self-attention that reads
    the input: the encoder's, or a decoder-only model's masked one."""
    kind = trace.kinds[0]
    tokens = trace.axis_tokens(kind)[0]
    matrix = rollout(trace.attention[kind][: layer + 1])[layer]
    through = "layer 1" if layer == 0 else f"layers 1–{layer + 1}"
    stack = "encoder" if kind == "encoder_self" else "decoder"
    return token_heatmap(
        matrix,
        tokens,
        tokens,
        f"{stack} attention rollout through {through} (mean over heads, residual added)",
        "rollout share",
        row_axis=f"output position after layer {layer + 1}",
        column_axis="input token",
        presentation=presentation,
        max_width=max_width,
    )
