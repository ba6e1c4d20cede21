"""The paper's own pictures drawn on the typed sentence: Figure 1 (the model, with this sentence's
tensor shapes), Figure 2 (scaled dot-product and multi-head attention with the real matrices),
restricted self-attention (Section 4), Table 1 measured, and why Q and K are projections.

Every function takes a Trace, arrays or a model's config and returns a Plotly figure, a pandas
table or plain numbers; nothing here runs the model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from model.transformer import TransformerConfig
from runtime.paper import (
    PART_LABELS,
    SublayerTimings,
    crossover,
    flop_counts,
    max_path_length,
    path_lengths,
)
from runtime.trace import Trace

from .attention import token_axis, token_categories
from .style import (
    ATTENTION_COLORSCALE,
    FONT_SIZE,
    FULL_PAGE_TITLE_CHARS,
    HEAD_COLORS,
    KIND_LABELS,
    LEGEND_ROW_PX,
    MASKED_COLOR,
    SIGNED_COLORSCALE,
    apply_layout,
    cell_gap,
    fit_title,
    font_scale,
    grid_size,
    legend_below,
    log_ticks,
    token_rows_height,
)

SELF_KINDS = ("encoder_self", "decoder_self")
# Short names for the titles of the small figures laid out side by side.
SHORT_KINDS = {
    "encoder_self": "encoder self-attention",
    "decoder_self": "decoder self-attention (masked)",
    "cross": "encoder-decoder attention",
}
# A numeric tick label on a top axis: fit_title leaves room for the axis title and the ticks.
NUMERIC_TOP_AXIS = ("12345",)


# --- Figure 1: the model, drawn for this model and this sentence ----------------------------------

# The paper's colours: attention orange, Add & Norm yellow, feed-forward blue, embeddings pink,
# the output's linear map purple and its softmax green.
BLOCK_COLORS = {
    "attention": "#fbd9a7",
    "norm": "#f4f5c4",
    "ffn": "#c5e6f6",
    "embedding": "#f7c9c9",
    "linear": "#ddd2ee",
    "softmax": "#cdebc6",
    "badge": "#ffffff",
}
FRAME_COLOR = "#8c8c8c"

# What a click on a block of Figure 1 opens: (view, attention kind or None).
TARGET_LABELS = {
    "attention": "opens this kind's heatmap in the Attention tab",
    "scaling": "opens the 1/√d_k lab (Scaling tab)",
    "positional": "opens the positional-encoding lab",
    "fig2": "opens Figure 2 for this kind: the matrices step by step",
    "restricted": "opens restricted self-attention (window r) for this kind",
    "table1": "opens Table 1: complexity per layer, measured",
    "projections": "opens why Q and K are projections (raw embeddings against W^Q, W^K)",
}


@dataclass(frozen=True)
class Block:
    """A box of Figure 1 in data units (x 0–100, y up), its text and what a click opens."""

    x0: float
    x1: float
    y0: float
    y1: float
    color: str
    text: str
    target: str | None = None  # "view" or "view:kind"
    hover: str = ""
    font_scale: float = 1.0
    text_position: str = "middle center"
    shape: str = "rect"

    @property
    def centre(self) -> tuple[float, float]:
        if self.text_position.startswith("top"):  # a block with chips below its text
            return (self.x0 + self.x1) / 2, self.y1 - 0.3 * (self.y1 - self.y0)
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2


def _shape(*dims: int | str) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


HALF_WIDTH = 16.0  # of a block of the stack, in x units (0–100)
ATTENTION_HEIGHT = 14.0
PE_WIDTH = 12.0
FFN_HEIGHT = 8.5
CHIP_HEIGHT = 2.6


def figure1_blocks(
    config: TransformerConfig, n_source: int, n_target: int, window: int | None = None
) -> tuple[list[Block], list[tuple], list[tuple]]:
    """The blocks, arrows and labels of Figure 1 (Section 3.1) for this config and sentence.

    Arrows are (x0, y0, x1, y1) with a head, or (x0, y0, x1, y1, "line") without; labels are
    (x, y, text, anchor, size) with size "small" or "large". An encoder-only model gets the
    encoder half, centred.
    """
    d, h, d_ff, d_k = config.d_model, config.h, config.d_ff, config.d_k
    decoder = config.is_encoder_decoder
    blocks: list[Block] = []
    arrows: list[tuple] = []
    labels: list[tuple] = []
    places: dict[str, tuple] = {}

    def shape_label(cx: float, y: float, text: str, right: bool = True) -> None:
        """Beside an arrow: right of the encoder's, left of the decoder's (clear of the PE)."""
        if right:
            labels.append((cx + 1.0, y, text, "left", "small"))
        else:
            labels.append((cx - 1.0, y, text, "right", "small"))

    def column(side: str, cx: float, tokens: int, symbol: str) -> None:
        x0, x1 = cx - HALF_WIDTH, cx + HALF_WIDTH
        left_side = side == "encoder" or not decoder  # PE and N on the left of the column
        labels_right = left_side  # shape labels on the side away from the positional encoding
        rows = f"{_shape(symbol, 'd_model')} = {_shape(tokens, d)}"
        y = 2.0
        what = "Inputs" if side == "encoder" else "Outputs (shifted right)"
        labels.append((cx, y, f"<b>{what}</b>: {symbol} = {tokens} tokens", "center", "large"))
        arrows.append((cx, y + 1.5, cx, y + 5.0))
        shape_label(cx, y + 3.3, f"token ids {_shape(symbol)} = {_shape(tokens)}", labels_right)
        y += 5.0
        extra = [
            t
            for t, on in (("+ token type", config.type_vocab), ("LayerNorm", config.embedding_norm))
            if on
        ]
        scale = " × √d_model" if config.scale_embeddings else ""
        name = "Input" if side == "encoder" else "Output"
        blocks.append(
            Block(
                x0, x1, y, y + 5.0, BLOCK_COLORS["embedding"],
                f"{name} Embedding{scale}" + (f"<br>({', '.join(extra)})" if extra else ""),
                "projections",
                "Section 3.4: one learned vector per token. Click: attention on these raw "
                "vectors (Q = K = V = X) against the model's W^Q, W^K.",
            )
        )  # fmt: skip
        y += 5.0
        arrows.append((cx, y, cx, y + 3.5))
        shape_label(cx, y + 1.8, rows, labels_right)
        y += 5.5
        learned = config.positions == "learned"
        pe_text = (
            "Positional<br>Embedding<br>(learned)"
            if learned
            else "Positional<br>Encoding<br>(sinusoids)"
        )
        pe_x0, pe_x1 = (
            (x0 - 2.0 - PE_WIDTH, x0 - 2.0) if left_side else (x1 + 2.0, x1 + 2.0 + PE_WIDTH)
        )
        blocks.append(
            Block(
                pe_x0, pe_x1, y - 3.5, y + 3.5, BLOCK_COLORS["badge"], pe_text, "positional",
                "Section 3.5: added to the embeddings so attention can tell positions apart. "
                "Click: the positional-encoding lab.",
                0.8,
            )
        )  # fmt: skip
        arrows.append((pe_x1 if left_side else pe_x0, y, cx - 1.6 if left_side else cx + 1.6, y))
        blocks.append(
            Block(
                cx - 1.6, cx + 1.6, y - 1.6, y + 1.6, "#ffffff", "+", None, "", 1.2, shape="circle"
            )
        )
        arrows.append((cx, y + 1.6, cx, y + 6.0))
        shape_label(cx, y + 3.8, rows, labels_right)
        y += 6.0
        frame_y0 = y
        y += 2.0
        sublayers: list[tuple[str, str | None, str, str]] = []
        if side == "encoder":
            mask = "no mask (no padding)"
            if window is not None:
                mask = f"band mask: |i − j| ≤ {window}"
            sublayers.append(("attention", "encoder_self", "Multi-Head Attention", mask))
        else:
            mask = "causal mask: j ≤ i"
            if window is not None:
                mask = f"causal + band: i − {window} ≤ j ≤ i"
            sublayers.append(("attention", "decoder_self", "Masked Multi-Head Attention", mask))
            sublayers.append(
                ("attention", "cross", "Multi-Head Attention", "no mask: all n source tokens")
            )
        sublayers.append(("ffn", None, "Feed Forward", ""))
        for block_kind, kind, title, mask in sublayers:
            if block_kind == "attention":
                keys, key_symbol = (n_source, "n") if kind == "cross" else (tokens, symbol)
                weights = f"{_shape('h', symbol, key_symbol)} = {_shape(h, tokens, keys)}"
                blocks.append(
                    Block(
                        x0, x1, y, y + ATTENTION_HEIGHT, BLOCK_COLORS["attention"],
                        f"<b>{title}</b><br>h = {h} heads, d_k = {d_k}<br>weights {weights}<br>{mask}",
                        f"attention:{kind}",
                        f"{KIND_LABELS[kind]}, Section 3.2",
                        text_position="top center",
                    )
                )  # fmt: skip
                chips = [
                    ("÷√d_k", f"scaling:{kind}", f"the scale 1/√d_k = 1/√{d_k}, Section 3.2.1"),
                    ("Figure 2", f"fig2:{kind}", "Figure 2: QKᵀ, scale, mask, softmax, ·V, W^O"),
                ]
                if kind in SELF_KINDS:
                    chips.append(
                        ("window r", f"restricted:{kind}", "restricted self-attention, Section 4")
                    )
                width = (2 * HALF_WIDTH - 2.0) / 3
                for c, (text, target, hover) in enumerate(chips):
                    c0 = x0 + 1.0 + c * width
                    blocks.append(
                        Block(
                            c0 + 0.4, c0 + width - 0.4, y + 0.6, y + 0.6 + CHIP_HEIGHT,
                            BLOCK_COLORS["badge"], text, target, hover, 0.8,
                        )
                    )  # fmt: skip
                places[kind] = (y, y + ATTENTION_HEIGHT)
                y += ATTENTION_HEIGHT
            else:
                act = "ReLU" if config.activation == "relu" else "GELU"
                blocks.append(
                    Block(
                        x0, x1, y, y + FFN_HEIGHT, BLOCK_COLORS["ffn"],
                        f"<b>Feed Forward</b> ({act})<br>d_ff = {d_ff}<br>"
                        f"inner {_shape(symbol, 'd_ff')} = {_shape(tokens, d_ff)}",
                        "table1",
                        "Section 3.3, Eq. (2): the same two linear maps at every position, "
                        "O(n·d²) per layer",
                    )
                )  # fmt: skip
                y += FFN_HEIGHT
            arrows.append((cx, y, cx, y + 1.8))
            y += 1.8
            blocks.append(
                Block(x0, x1, y, y + 3.0, BLOCK_COLORS["norm"], "Add & Norm", None, "", 0.9)
            )
            y += 3.0
            if kind is not None:  # the feed-forward sub-layer is the last of a layer
                arrows.append((cx, y, cx, y + 3.4))
                y += 3.4
        frame_y1 = y + 1.0
        blocks.append(Block(x0 - 1.0, x1 + 1.0, frame_y0, frame_y1, "frame", ""))
        n_x = x0 - 2.0 if left_side else x1 + 2.0
        labels.append(
            (
                n_x,
                (frame_y0 + frame_y1) / 2 + 6,
                f"<b>N = {config.N} ×</b>",
                "right" if left_side else "left",
                "large",
            )
        )
        places[side] = (cx, frame_y1, x0, x1)

    if decoder:
        column("encoder", 31.0, n_source, "n")
        column("decoder", 69.0, n_target, "m")
        cx, top, x0, x1 = places["decoder"]
        # The encoder's output (memory) into the decoder's encoder-decoder attention (Figure 1).
        ecx, etop, _, ex1 = places["encoder"]
        cross_y0, _ = places["cross"]
        join_x = (ex1 + x0) / 2
        y_in = cross_y0 + ATTENTION_HEIGHT * 0.62
        arrows.append((ecx, etop, ecx, etop + 2.5, "line"))
        arrows.append((ecx, etop + 2.5, join_x, etop + 2.5, "line"))
        arrows.append((join_x, etop + 2.5, join_x, y_in, "line"))
        arrows.append((join_x, y_in, x0 - 1.0, y_in))
        labels.append(
            (
                ecx,
                etop + 4.3,
                f"memory {_shape('n', 'd_model')} = {_shape(n_source, d)}",
                "center",
                "small",
            )
        )
        y = top
        arrows.append((cx, y, cx, y + 3.4))
        shape_label(cx, y + 1.7, f"{_shape('m', 'd_model')} = {_shape(n_target, d)}")
        y += 3.4
        blocks.append(Block(x0, x1, y, y + 3.0, BLOCK_COLORS["linear"], "Linear", None, "", 0.9))
        y += 3.0
        arrows.append((cx, y, cx, y + 3.4))
        shape_label(cx, y + 1.7, f"{_shape('m', 'vocab')} = {_shape(n_target, config.tgt_vocab)}")
        y += 3.4
        blocks.append(Block(x0, x1, y, y + 3.0, BLOCK_COLORS["softmax"], "Softmax", None, "", 0.9))
        y += 3.0
        arrows.append((cx, y, cx, y + 2.5))
        labels.append((cx, y + 3.8, "<b>Output probabilities</b>", "center", "large"))
    else:
        column("encoder", 50.0, n_source, "n")
        cx, top, _, _ = places["encoder"]
        arrows.append((cx, top, cx, top + 3.4))
        shape_label(cx, top + 1.7, f"{_shape('n', 'd_model')} = {_shape(n_source, d)}")
        top += 0.4
        labels.append(
            (
                cx,
                top + 6.0,
                f"<b>hidden states</b> {_shape('n', 'd_model')} = {_shape(n_source, d)}",
                "center",
                "large",
            )
        )
    return blocks, arrows, labels


def figure1(
    config: TransformerConfig,
    n_source: int,
    n_target: int,
    window: int | None = None,
    presentation: bool = False,
) -> go.Figure:
    """Figure 1 of the paper for this model: the encoder (and decoder) stack with N, h, d_model,
    d_ff, where the positions are added and where the masks are, and this sentence's tensor
    shapes on the arrows. Each clickable block carries its target in a point's customdata."""
    blocks, arrows, labels = figure1_blocks(config, n_source, n_target, window)
    f = font_scale(presentation)
    font = round(FONT_SIZE * f)
    # The shape labels stand side by side under the encoder and the decoder: on a laptop's
    # narrower page they need a smaller size not to run into each other.
    small = round((0.85 if presentation else 0.7) * FONT_SIZE * f)
    fig = go.Figure()
    top = max(max(b.y1 for b in blocks), max(label[1] for label in labels)) + 2.0
    for b in blocks:
        if b.color == "frame":
            fig.add_shape(
                type="rect", x0=b.x0, x1=b.x1, y0=b.y0, y1=b.y1, layer="below",
                line={"color": FRAME_COLOR, "width": 2}, fillcolor="#f5f5f5",
            )  # fmt: skip
            continue
        label = {"text": b.text, "font": {"size": round(font * b.font_scale), "color": "#111"}}
        if b.shape == "rect":
            label["textposition"] = b.text_position
            if b.text_position.startswith("top"):
                label["padding"] = 6
        fig.add_shape(
            type=b.shape, x0=b.x0, x1=b.x1, y0=b.y0, y1=b.y1, fillcolor=b.color, label=label,
            line={"color": "#404040" if b.target else "#808080", "width": 2 if b.target else 1},
        )  # fmt: skip
    for arrow in arrows:
        x0, y0, x1, y1 = arrow[:4]
        if len(arrow) > 4:  # a segment of a path, without a head
            fig.add_shape(
                type="line", x0=x0, y0=y0, x1=x1, y1=y1, line={"color": "#333", "width": 2}
            )
            continue
        fig.add_annotation(
            x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y", text="",
            showarrow=True, arrowhead=2, arrowsize=1.2, arrowwidth=2, arrowcolor="#333",
        )  # fmt: skip
    for x, y, text, anchor, size in labels:
        fig.add_annotation(
            x=x, y=y, text=text, showarrow=False, xanchor=anchor, yanchor="middle",
            font={"size": small if size == "small" else font, "color": "#222"},
        )  # fmt: skip
    clickable = [b for b in blocks if b.target]
    fig.add_trace(
        go.Scatter(
            x=[b.centre[0] for b in clickable],
            y=[b.centre[1] for b in clickable],
            mode="markers",
            marker={"size": 30, "color": "rgba(0,0,0,0)", "line": {"width": 0}},
            selected={"marker": {"opacity": 0}},
            unselected={"marker": {"opacity": 0}},
            customdata=[b.target for b in clickable],
            hovertext=[_hover(b) for b in clickable],
            hovertemplate="%{hovertext}<extra></extra>",
            showlegend=False,
        )
    )
    decoder = config.is_encoder_decoder
    title = (
        "Figure 1 for this sentence ("
        + ("encoder and decoder" if decoder else "encoder only")
        + f") · N = {config.N}, h = {config.h}, d_model = {config.d_model}, d_ff = {config.d_ff}"
    )
    axis = {"visible": False, "fixedrange": True}
    apply_layout(
        fig,
        title,
        presentation,
        height=round((1040 if decoder else 820) * f),
        xaxis={**axis, "range": [0, 100]},
        yaxis={**axis, "range": [0, top]},
        margin={"l": 6, "r": 6, "b": 6},
        dragmode=False,
        hoverdistance=40,
        clickmode="event+select",
        plot_bgcolor="white",
    )
    return fit_title(fig, max_chars=FULL_PAGE_TITLE_CHARS)


def _hover(block: Block) -> str:
    view = block.target.split(":")[0]
    return f"{block.hover}<br><i>Click: {TARGET_LABELS[view]}</i>"


def parse_target(target: str) -> tuple[str, str | None]:
    """ "view:kind" or "view" -> (view, kind or None), as Figure 1's customdata holds them."""
    view, _, kind = str(target).partition(":")
    if view not in TARGET_LABELS:
        raise ValueError(f"unknown Figure 1 target {target!r}")
    return view, kind or None


# --- Figure 2: scaled dot-product attention and multi-head attention, on real numbers ------------


def allowed_keys(kind: str, n_queries: int, n_keys: int, window: int | None) -> np.ndarray:
    """[query, key] booleans: which keys a query may see (Section 3.2.3's causal mask in decoder
    self-attention; Section 4's band |i − j| ≤ r in self-attention when a window is set)."""
    i = np.arange(n_queries)[:, None]
    j = np.arange(n_keys)[None, :]
    allowed = np.ones((n_queries, n_keys), dtype=bool)
    if kind == "decoder_self":
        allowed &= j <= i
    if window is not None and kind in SELF_KINDS:
        allowed &= np.abs(i - j) <= window
    return allowed


@dataclass(frozen=True)
class Pipeline:
    """The matrices of Figure 2 (left) for one head, recomputed in float64 from the Trace's Q, K
    and V: MatMul, Scale, Mask (opt.), SoftMax, MatMul (Section 3.2.1, Eq. 1)."""

    kind: str
    layer: int
    head: int
    query_tokens: tuple[str, ...]
    key_tokens: tuple[str, ...]
    queries: np.ndarray  # Q [n, d_k]
    keys: np.ndarray  # K [m, d_k]
    values: np.ndarray  # V [m, d_v]
    scale: float
    logits: np.ndarray  # QKᵀ [n, m]
    scaled: np.ndarray  # QKᵀ · scale
    allowed: np.ndarray  # the mask: True where a key may be seen
    masked: np.ndarray  # the scaled logits with -inf where the mask forbids
    weights: np.ndarray  # softmax over each row
    output: np.ndarray  # weights · V [n, d_v]


def attention_pipeline(trace: Trace, kind: str, layer: int, head: int) -> Pipeline:
    """Eq. (1) step by step for one head of `trace`, with the Trace's own scale and masks."""
    q = trace.queries[kind][layer, head].astype(np.float64)
    k = trace.keys[kind][layer, head].astype(np.float64)
    v = trace.values[kind][layer, head].astype(np.float64)
    logits = q @ k.T
    scaled = logits * trace.scale
    allowed = allowed_keys(kind, len(q), len(k), trace.settings.window)
    masked = np.where(allowed, scaled, -np.inf)
    shifted = np.exp(masked - masked.max(axis=1, keepdims=True))
    weights = shifted / shifted.sum(axis=1, keepdims=True)
    queries, keys = trace.axis_tokens(kind)
    return Pipeline(
        kind, layer, head, queries, keys, q, k, v, trace.scale, logits, scaled, allowed, masked,
        weights, weights @ v,
    )  # fmt: skip


def softmax_drift(trace: Trace, pipeline: Pipeline) -> float:
    """Largest difference between the recomputed softmax and the weights the model used."""
    used = trace.attention[pipeline.kind][pipeline.layer, pipeline.head]
    return float(np.abs(pipeline.weights - used).max())


@dataclass(frozen=True)
class MultiHead:
    """Figure 2 (right) for one layer: every head's output, their concatenation and W^O."""

    heads: np.ndarray  # [h, n, d_v]: head_i = Attention(QW_i^Q, KW_i^K, VW_i^V)
    concat: np.ndarray  # [n, h·d_v]
    output: np.ndarray  # [n, d_model] = Concat(head_1, …, head_h) W^O


def multi_head(trace: Trace, kind: str, layer: int, w_o: np.ndarray, b_o: np.ndarray) -> MultiHead:
    """Section 3.2.2: the heads' outputs softmax(QKᵀ·s)V from the Trace's weights and values,
    concatenated, then projected by W^O (weight [d_model, h·d_v], bias as torch's Linear).
    Heads switched off in the run's settings are zeros, as in the model."""
    weights = trace.attention[kind][layer].astype(np.float64)
    values = trace.values[kind][layer].astype(np.float64)
    heads = weights @ values
    for head in trace.settings.heads_to_ablate(kind, layer):
        heads[head] = 0.0
    h, n, d_v = heads.shape
    concat = heads.transpose(1, 0, 2).reshape(n, h * d_v)
    return MultiHead(heads, concat, concat @ w_o.T + b_o)


def _symmetric(*arrays: np.ndarray) -> float:
    finite = [np.abs(a[np.isfinite(a)]) for a in arrays]
    limit = max((float(f.max()) for f in finite if f.size), default=1.0)
    return limit if limit > 0 else 1.0


PIPELINE_STEPS = ("matmul", "scale", "mask", "softmax", "output")


def pipeline_figure(
    pipeline: Pipeline,
    step: str,
    presentation: bool = False,
    line_chars: int = 40,
) -> go.Figure:
    """One step of Figure 2's scaled dot-product attention as a heatmap with exact hovers.

    The three logit matrices (MatMul, Scale, Mask) share one colour scale, ±max|QKᵀ|, so the
    scaling is seen as a fading; the softmax runs from 0 to 1; the output from −max to +max of
    |V| and |output| together. Masked cells are grey with the reason in the hover.
    """
    p = pipeline
    queries, keys = token_categories(p.query_tokens), token_categories(p.key_tokens)
    d_v = p.values.shape[1]
    logit_limit = _symmetric(p.logits)
    scale_text = f"{p.scale:.4g}"
    where = f"{SHORT_KINDS[p.kind]} · layer {p.layer + 1}, head {p.head + 1}"
    columns, column_axis = keys, "key (attended to)"
    grey = None
    if step == "matmul":
        z, zmin, zmax, scale = p.logits, -logit_limit, logit_limit, SIGNED_COLORSCALE
        title, value = "1. MatMul: QKᵀ", "q·k"
        bar = "q·k"
    elif step == "scale":
        z, zmin, zmax, scale = p.scaled, -logit_limit, logit_limit, SIGNED_COLORSCALE
        title, value = f"2. Scale: QKᵀ × {scale_text}", "scaled logit"
        bar = "q·k × scale"
    elif step == "mask":
        z = np.where(p.allowed, p.scaled, np.nan)
        zmin, zmax, scale = -logit_limit, logit_limit, SIGNED_COLORSCALE
        n_masked = int((~p.allowed).sum())
        title = "3. Mask (opt.): " + (f"{n_masked} cells to −∞" if n_masked else "none here")
        value, bar = "scaled logit", "q·k × scale"
        grey = ~p.allowed
    elif step == "softmax":
        z, zmin, zmax, scale = (
            np.where(p.allowed, p.weights, np.nan),
            0.0,
            1.0,
            ATTENTION_COLORSCALE,
        )
        title, value, bar = "4. SoftMax over each row", "weight", "weight"
        grey = ~p.allowed
    elif step == "output":
        limit = _symmetric(p.output, p.values)
        z, zmin, zmax, scale = p.output, -limit, limit, SIGNED_COLORSCALE
        title, value = f"5. MatMul: weights × V, [{len(queries)}, {d_v}]", "output"
        bar = "value"
        columns, column_axis = [str(c + 1) for c in range(d_v)], "dimension of d_v"
    else:
        raise ValueError(f"unknown step {step!r}")
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=columns,
            y=queries,
            colorscale=scale,
            zmin=zmin,
            zmax=zmax,
            colorbar={"thickness": 18, "title": {"text": bar}},
            hoverongaps=False,
            hovertemplate=(
                f"query '%{{y}}' → key '%{{x}}'<br>{value}: %{{z:.4f}}<extra></extra>"
                if step != "output"
                else "query '%{y}', dimension %{x}<br>output: %{z:.4f}<extra></extra>"
            ),
            xgap=cell_gap(len(columns)),
            ygap=cell_gap(len(queries)),
        )
    )
    if grey is not None and grey.any():
        fig.add_trace(_grey_layer(grey, _mask_reasons(p.kind, p.allowed, grey), keys, queries))
    _square_layout(
        fig,
        f"{title}<br>{where}",
        presentation,
        columns if step != "output" else (),
        queries,
        column_axis,
        line_chars,
    )
    if step == "output":
        fig.update_xaxes(type="category", title={"text": column_axis}, side="top", tickangle=0)
    return fig


def _mask_reasons(kind: str, allowed: np.ndarray, grey: np.ndarray) -> np.ndarray:
    """Per masked cell, why: a later position (causal) or outside the window."""
    n, m = allowed.shape
    later = np.arange(m)[None, :] > np.arange(n)[:, None]
    later = later & (kind == "decoder_self")
    return np.where(later, "masked: a later position", "masked: outside the window r")


def _grey_layer(grey: np.ndarray, reasons: np.ndarray, x, y) -> go.Heatmap:
    return go.Heatmap(
        z=np.where(grey, 1.0, np.nan),
        x=x,
        y=y,
        customdata=reasons,
        colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]],
        showscale=False,
        hoverongaps=False,
        hovertemplate="query '%{y}' → key '%{x}': %{customdata}<extra></extra>",
        xgap=cell_gap(len(x)),
        ygap=cell_gap(len(y)),
    )


def _square_layout(fig, title, presentation, columns, rows, column_axis, line_chars) -> None:
    apply_layout(
        fig,
        title,
        presentation,
        **grid_size([r.rstrip("\u200b") for r in rows], len(columns) or 1, presentation),
        plot_bgcolor="white",
        xaxis=token_axis(column_axis, list(columns), side="top") if columns else {},
        yaxis=token_axis("query (attending)", list(rows), autorange="reversed", title_standoff=14),
        margin={"l": 10, "r": 10, "b": 10},
    )
    fit_title(
        fig, [c.rstrip("\u200b") for c in columns] if columns else NUMERIC_TOP_AXIS, line_chars
    )


def inputs_figure(pipeline: Pipeline, presentation: bool = False) -> go.Figure:
    """The inputs of Figure 2 for one head: Q, K and V (each [tokens, d_k]) side by side, one
    signed colour scale ±max over the three, white at 0."""
    p = pipeline
    limit = _symmetric(p.queries, p.keys, p.values)
    fig = make_subplots(
        rows=1,
        cols=3,
        horizontal_spacing=0.12,
        subplot_titles=[
            f"Q = X·W^Q, [{len(p.query_tokens)}, {p.queries.shape[1]}]",
            f"K = X·W^K, [{len(p.key_tokens)}, {p.keys.shape[1]}]",
            f"V = X·W^V, [{len(p.key_tokens)}, {p.values.shape[1]}]",
        ],
    )
    for col, (matrix, tokens, role) in enumerate(
        ((p.queries, p.query_tokens, "query"), (p.keys, p.key_tokens, "key"), (p.values, p.key_tokens, "value")),
        start=1,
    ):  # fmt: skip
        rows = token_categories(tokens)
        fig.add_trace(
            go.Heatmap(
                z=matrix,
                x=[str(c + 1) for c in range(matrix.shape[1])],
                y=rows,
                colorscale=SIGNED_COLORSCALE,
                zmin=-limit,
                zmax=limit,
                showscale=col == 3,
                colorbar={"thickness": 18, "title": {"text": f"value (±{limit:.3g})"}},
                hovertemplate=f"{role} of '%{{y}}', dimension %{{x}}: %{{z:.4f}}<extra></extra>",
                ygap=cell_gap(len(rows)),
            ),
            row=1,
            col=col,
        )
        step = max(1, matrix.shape[1] // 4)
        ticks = [str(d) for d in range(1, matrix.shape[1] + 1, step)]
        fig.update_xaxes(
            title={"text": "dimension"}, type="category", tickvals=ticks, row=1, col=col
        )
        axis = token_axis("token" if col == 1 else "", rows, autorange="reversed")
        fig.update_yaxes(axis, row=1, col=col)
    f = font_scale(presentation)
    fig.update_annotations(font_size=round(FONT_SIZE * f))
    n = max(len(p.query_tokens), len(p.key_tokens))
    apply_layout(
        fig,
        f"The inputs: Q, K and V of {SHORT_KINDS[p.kind]} · layer {p.layer + 1}, head {p.head + 1}",
        presentation,
        height=token_rows_height(n, presentation, least=330, most=700),
        plot_bgcolor="white",
        margin={"l": 10, "r": 10, "b": 10},
    )
    return fit_title(fig, ("12",), max_chars=FULL_PAGE_TITLE_CHARS)


def figure2_diagram(pipeline: Pipeline, presentation: bool = False) -> go.Figure:
    """The left half of Figure 2 as the paper draws it, bottom to top, with this head's shapes:
    Q, K, V → MatMul → Scale → Mask (opt.) → SoftMax → MatMul."""
    p = pipeline
    n, m, d_k, d_v = len(p.query_tokens), len(p.key_tokens), p.queries.shape[1], p.values.shape[1]
    masked = int((~p.allowed).sum())
    steps = [
        ("MatMul", BLOCK_COLORS["linear"], f"QKᵀ: [{n}, {m}]"),
        ("Scale", BLOCK_COLORS["norm"], f"× {p.scale:.4g}"),
        ("Mask (opt.)", BLOCK_COLORS["embedding"], f"{masked} cells → −∞" if masked else "no mask here"),
        ("SoftMax", BLOCK_COLORS["softmax"], "each row sums to 1"),
        ("MatMul", BLOCK_COLORS["linear"], ""),
    ]  # fmt: skip
    f = font_scale(presentation)
    font = round(FONT_SIZE * f)
    fig = go.Figure()
    x0, x1 = 22.0, 58.0
    y = 8.0
    for label, x in (("Q", 26.0), ("K", 40.0), ("V", 90.0)):
        fig.add_annotation(
            x=x, y=2.5, text=f"<b>{label}</b>", showarrow=False, font={"size": font}
        )  # fmt: skip
    shapes = {"Q": f"[{n}, {d_k}]", "K": f"[{m}, {d_k}]", "V": f"[{m}, {d_v}]"}
    for label, x in (("Q", 26.0), ("K", 40.0), ("V", 90.0)):
        fig.add_annotation(
            x=x, y=-1.5, text=shapes[label], showarrow=False, font={"size": round(0.85 * font)}
        )  # fmt: skip
    for index, (name, colour, note) in enumerate(steps):
        fig.add_shape(
            type="rect", x0=x0, x1=x1, y0=y, y1=y + 6.0, fillcolor=colour,
            line={"color": "#404040", "width": 1.5},
            label={"text": f"{index + 1}. {name}", "font": {"size": font}},
        )  # fmt: skip
        fig.add_annotation(
            x=x1 + 2.0, y=y + 3.0, text=note, showarrow=False, xanchor="left",
            font={"size": round(0.85 * font)},
        )  # fmt: skip
        arrow_from = y - 4.0 if index else 4.5
        fig.add_annotation(
            x=(x0 + x1) / 2, y=y, ax=(x0 + x1) / 2, ay=arrow_from, xref="x", yref="y",
            axref="x", ayref="y", text="", showarrow=True, arrowhead=2, arrowwidth=2,
        )  # fmt: skip
        y += 10.0
    # V joins the last MatMul from the side.
    fig.add_shape(
        type="line", x0=90.0, y0=4.5, x1=90.0, y1=y - 7.0, line={"width": 2, "color": "#444"}
    )
    fig.add_annotation(
        x=x1, y=y - 7.0, ax=90.0, ay=y - 7.0, xref="x", yref="y", axref="x", ayref="y",
        text="", showarrow=True, arrowhead=2, arrowwidth=2,
    )  # fmt: skip
    fig.add_annotation(
        x=(x0 + x1) / 2, y=y - 4.0 + 6.0, ax=(x0 + x1) / 2, ay=y - 4.0, xref="x", yref="y",
        axref="x", ayref="y", text="", showarrow=True, arrowhead=2, arrowwidth=2,
    )  # fmt: skip
    fig.add_annotation(
        x=(x0 + x1) / 2, y=y + 3.5, text=f"<b>head {p.head + 1}</b>: [{n}, {d_v}]",
        showarrow=False, font={"size": font},
    )  # fmt: skip
    axis = {"visible": False, "fixedrange": True}
    apply_layout(
        fig,
        f"Figure 2 (left) · {SHORT_KINDS[p.kind]} · layer {p.layer + 1}, head {p.head + 1}",
        presentation,
        height=round(620 * f),
        xaxis={**axis, "range": [0, 100]},
        yaxis={**axis, "range": [-4, y + 6.0]},
        margin={"l": 4, "r": 4, "b": 4},
        plot_bgcolor="white",
        hovermode=False,
    )
    return fit_title(fig, max_chars=40)


def multi_head_figure(
    heads: np.ndarray,
    tokens: Sequence[str],
    title: str,
    presentation: bool = False,
    highlight: int | None = None,
) -> go.Figure:
    """Figure 2 (right): the h heads' outputs [n, d_v] side by side, one gap column between
    heads; read without the gaps, left to right, they are Concat(head_1, …, head_h)."""
    h, n, d_v = heads.shape
    laid = np.full((n, h * (d_v + 1) - 1), np.nan)
    head_of = np.full(laid.shape[1], 0)
    dim_of = np.full(laid.shape[1], 0)
    for i in range(h):
        laid[:, i * (d_v + 1) : i * (d_v + 1) + d_v] = heads[i]
        head_of[i * (d_v + 1) : i * (d_v + 1) + d_v] = i + 1
        dim_of[i * (d_v + 1) : i * (d_v + 1) + d_v] = np.arange(d_v) + 1
    rows = token_categories(tokens)
    limit = _symmetric(heads)
    custom = np.stack(np.broadcast_arrays(head_of[None, :], dim_of[None, :] + 0 * laid[:, :1]), -1)
    fig = go.Figure(
        go.Heatmap(
            z=laid,
            y=rows,
            customdata=custom,
            colorscale=SIGNED_COLORSCALE,
            zmin=-limit,
            zmax=limit,
            hoverongaps=False,
            colorbar={"thickness": 18, "title": {"text": f"±{limit:.3g}"}},
            hovertemplate=(
                "'%{y}', head %{customdata[0]}, dimension %{customdata[1]}: %{z:.4f}<extra></extra>"
            ),
        )
    )
    if highlight is not None:
        x0 = highlight * (d_v + 1) - 0.5
        fig.add_shape(
            type="rect", x0=x0, x1=x0 + d_v, y0=-0.5, y1=n - 0.5, xref="x", yref="y",
            line={"color": "#111", "width": 3},
        )  # fmt: skip
    apply_layout(
        fig,
        title,
        presentation,
        height=token_rows_height(n, presentation),
        xaxis={
            "title": {"text": f"head (each d_v = {d_v} dimensions)"},
            "tickvals": [i * (d_v + 1) + (d_v - 1) / 2 for i in range(h)],
            "ticktext": [f"head {i + 1}" for i in range(h)],
            "side": "top",
            "showgrid": False,
            "zeroline": False,
        },
        yaxis=token_axis("query token", rows, autorange="reversed"),
    )
    return fit_title(fig, ("head 10",), FULL_PAGE_TITLE_CHARS)


def projected_figure(
    output: np.ndarray, tokens: Sequence[str], title: str, presentation: bool = False
) -> go.Figure:
    """MultiHead(Q, K, V) = Concat(head_1, …, head_h) W^O: [n, d_model], signed colours."""
    n, d = output.shape
    rows = token_categories(tokens)
    limit = _symmetric(output)
    fig = go.Figure(
        go.Heatmap(
            z=output,
            x=np.arange(1, d + 1),
            y=rows,
            colorscale=SIGNED_COLORSCALE,
            zmin=-limit,
            zmax=limit,
            colorbar={"thickness": 18, "title": {"text": f"±{limit:.3g}"}},
            hovertemplate="'%{y}', dimension %{x}: %{z:.4f}<extra></extra>",
        )
    )
    apply_layout(
        fig,
        title,
        presentation,
        height=token_rows_height(n, presentation),
        xaxis={"title": {"text": "dimension of d_model"}, "side": "top", "showgrid": False},
        yaxis=token_axis("query token", rows, autorange="reversed"),
    )
    return fit_title(fig, NUMERIC_TOP_AXIS, FULL_PAGE_TITLE_CHARS)


# --- Section 4: restricted self-attention and the maximum path length ---------------------------


def banded_heatmap(
    trace: Trace,
    kind: str,
    layer: int,
    head: int,
    presentation: bool = False,
    line_chars: int = 40,
    note: str | None = None,
) -> go.Figure:
    """One head of a run, the cells its masks forbid (causal, window) grey with the reason in the
    hover. Queries down, keys across, weights from 0 to 1."""
    queries, keys = trace.axis_tokens(kind)
    weights = trace.attention[kind][layer, head]
    allowed = allowed_keys(kind, len(queries), len(keys), trace.settings.window)
    rows, columns = token_categories(queries), token_categories(keys)
    fig = go.Figure(
        go.Heatmap(
            z=np.where(allowed, weights, np.nan),
            x=columns,
            y=rows,
            colorscale=ATTENTION_COLORSCALE,
            zmin=0.0,
            zmax=1.0,
            hoverongaps=False,
            colorbar={"thickness": 18, "title": {"text": "weight"}},
            hovertemplate="query '%{y}' → key '%{x}': %{z:.4f}<extra></extra>",
            xgap=cell_gap(len(columns)),
            ygap=cell_gap(len(rows)),
        )
    )
    if (~allowed).any():
        fig.add_trace(_grey_layer(~allowed, _mask_reasons(kind, allowed, ~allowed), columns, rows))
    window = trace.settings.window
    what = note or ("full attention" if window is None else f"window r = {window}")
    _square_layout(
        fig,
        f"{KIND_LABELS[kind]} · layer {layer + 1}, head {head + 1} · {what}",
        presentation,
        columns,
        rows,
        "key (attended to)",
        line_chars,
    )
    return fig


def path_length_figure(
    tokens: Sequence[str],
    window: int | None,
    causal: bool,
    n_layers: int,
    title: str,
    presentation: bool = False,
    line_chars: int = 40,
) -> go.Figure:
    """[i, j]: layers of self-attention information at token j needs to reach token i with a
    window r (⌈|i − j| / r⌉). Cells beyond the model's N layers are red: in this model the two
    tokens never meet through self-attention alone."""
    n = len(tokens)
    layers = path_lengths(n, window, causal)
    rows = token_categories(tokens)
    top = max(n_layers + 1, 2)
    finite = np.isfinite(layers)
    shown = np.where(finite, np.minimum(layers, top), np.nan)
    counts = np.where(finite, layers, 0).astype(int).astype(str)
    text = np.where(finite & (layers <= n_layers), counts, "")
    hover = np.where(
        finite,
        np.where(
            layers > n_layers,
            np.char.add(
                np.char.add("needs ", counts), f" layers: more than the model's N = {n_layers}"
            ),
            np.char.add(counts, " layer(s)"),
        ),
        "never: a later position (causal mask)",
    )
    colours = [
        [0.0, "#ffffff"],
        [1 / top, "#deebf7"],
        [(top - 1) / top, "#08519c"],
        [1.0, "#d62728"],
    ]
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=rows,
            y=rows,
            customdata=hover,
            text=text,
            texttemplate="%{text}" if n <= 24 else None,
            colorscale=colours,
            zmin=0,
            zmax=top,
            hoverongaps=False,
            colorbar={
                "thickness": 18,
                "title": {"text": "layers"},
                "tickvals": [*range(0, top), top],  # a whole step apart, as the others are
                "ticktext": [str(t) for t in range(0, top)] + [f"> N = {n_layers}"],
            },
            hovertemplate="from key '%{x}' to query '%{y}': %{customdata}<extra></extra>",
            xgap=cell_gap(n),
            ygap=cell_gap(n),
        )
    )
    if causal:
        grey = ~np.isfinite(layers)
        fig.add_trace(
            _grey_layer(grey, np.full(grey.shape, "masked: a later position"), rows, rows)
        )
    _square_layout(fig, title, presentation, rows, rows, "from token j (key)", line_chars)
    fig.update_yaxes(title={"text": "to token i (query)"})
    return fig


def path_growth_figure(
    n_tokens: int,
    windows: Sequence[int],
    n_layers: int,
    title: str,
    presentation: bool = False,
    line_chars: int = 60,
    max_n: int = 64,
) -> go.Figure:
    """Table 1's maximum path length against n: ⌈(n − 1)/r⌉ for each window r, 1 with full
    self-attention, and n − 1 steps for a recurrent layer (O(n)); the model's N as a line."""
    n = np.arange(2, max(max_n, n_tokens) + 1)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=n, y=n - 1, name="recurrent: n − 1 (O(n))", mode="lines",
            line={"color": "#7f7f7f", "dash": "dot", "width": 3},
            hovertemplate="recurrent, n = %{x}: %{y} steps<extra></extra>",
        )
    )  # fmt: skip
    for c, r in enumerate(sorted(set(windows))):
        fig.add_trace(
            go.Scatter(
                x=n, y=[max_path_length(int(k), r) for k in n], name=f"window r = {r}: ⌈(n − 1)/{r}⌉",
                mode="lines", line={"color": HEAD_COLORS[(c + 1) % len(HEAD_COLORS)], "width": 3, "shape": "hv"},
                hovertemplate=f"r = {r}, n = %{{x}}: %{{y}} layers<extra></extra>",
            )
        )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=n, y=np.ones_like(n), name="full self-attention: 1 (O(1))", mode="lines",
            line={"color": HEAD_COLORS[0], "width": 4},
            hovertemplate="full attention, n = %{x}: 1 layer<extra></extra>",
        )
    )  # fmt: skip
    fig.add_hline(
        y=n_layers, line={"color": "#d62728", "dash": "dash", "width": 2},
        annotation_text=f"this model's N = {n_layers} layers", annotation_position="bottom right",
    )  # fmt: skip
    fig.add_vline(
        x=n_tokens, line={"color": "#333", "dash": "dash", "width": 2},
        annotation_text=f"this sentence: n = {n_tokens}", annotation_position="top right",
    )  # fmt: skip
    apply_layout(
        fig,
        title,
        presentation,
        height=round((520 + LEGEND_ROW_PX * (len(set(windows)) + 2)) * font_scale(presentation)),
        xaxis={"title": {"text": "sequence length n (tokens)"}},
        yaxis={"title": {"text": "maximum path length (layers)"}, "rangemode": "tozero"},
        **legend_below(fig, presentation),
    )
    return fit_title(fig, max_chars=line_chars)


# --- Table 1: complexity per layer, the paper's and measured ---------------------------------


def table1_frame(n: int, d: int, r: int, k: int = 3) -> pd.DataFrame:
    """Table 1 of the paper, with each expression evaluated at this sentence's n and this model's
    d (k: a convolution's kernel width; r: the restricted window)."""
    rows = [
        ("Self-Attention", "O(n²·d)", n * n * d, "O(1)", "O(1)", 1),
        ("Recurrent", "O(n·d²)", n * d * d, "O(n)", "O(n)", max(n - 1, 0)),
        ("Convolutional", "O(k·n·d²)", k * n * d * d, "O(1)", "O(log_k(n))", math.ceil(math.log(max(n, 2), k))),
        ("Self-Attention (restricted)", "O(r·n·d)", r * n * d, "O(1)", "O(n/r)", max_path_length(n, r)),
    ]  # fmt: skip
    return pd.DataFrame(
        rows,
        columns=[
            "Layer Type",
            "Complexity per Layer",
            "… here",
            "Sequential Operations",
            "Maximum Path Length",
            "… here (steps)",
        ],
    )


PART_COLORS = {"eq1": "#d62728", "projections": "#ff7f0e", "attention": "#9467bd", "ffn": "#1f77b4"}
SHORT_PARTS = {
    "eq1": "Eq. (1), all heads: n²·d",
    "projections": "W^Q, W^K, W^V, W^O: n·d²",
    "attention": "whole self-attention sub-layer",
    "ffn": "feed-forward, Eq. (2): n·d·d_ff",
}


def _vertical(
    fig: go.Figure, x: float, low: float, high: float, name: str, colour: str, dash: str
) -> None:
    """A vertical line as a trace (shapes on log axes take log10 coordinates), in the legend."""
    fig.add_trace(
        go.Scatter(
            x=[x, x], y=[low, high], mode="lines", name=name,
            line={"color": colour, "dash": dash, "width": 2},
            hovertemplate=f"{name}<extra></extra>",
        )
    )  # fmt: skip


def _mark_lengths(fig: go.Figure, timings: SublayerTimings, low: float, high: float) -> None:
    """n = d (Table 1's rule of thumb) and the measured crossover of Eq. (1) with the FFN."""
    _vertical(fig, timings.d_model, low, high, f"n = d = {timings.d_model}", "#333", "dash")
    measured = crossover(timings.lengths, timings.ratio("eq1"))
    if measured is not None:
        _vertical(
            fig,
            measured,
            low,
            high,
            f"Eq. (1) = FFN at n ≈ {measured:.0f}",
            PART_COLORS["eq1"],
            "dot",
        )


def _length_axis(timings: SublayerTimings) -> dict:
    return {
        "title": {"text": "sequence length n (tokens)"},
        "type": "log",
        "tickvals": list(timings.lengths),
        "ticktext": [str(n) for n in timings.lengths],
        "tickangle": -45,
    }


def timing_figure(
    timings: SublayerTimings, title: str, presentation: bool = False, line_chars: int = 60
) -> go.Figure:
    """Median time per call of each part of encoder layer 1 against n, on log-log axes, with
    n = d_model and where Eq. (1) overtakes the feed-forward sub-layer marked."""
    fig = go.Figure()
    every = [t for part in PART_LABELS for t in timings.medians_ms[part]]
    for part, label in PART_LABELS.items():
        fig.add_trace(
            go.Scatter(
                x=timings.lengths, y=timings.medians_ms[part], name=SHORT_PARTS[part], mode="lines+markers",
                line={"color": PART_COLORS[part], "width": 3, "dash": "dot" if part == "attention" else "solid"},
                marker={"size": 9},
                hovertemplate=f"{label}<br>n = %{{x}}: %{{y:.3f}} ms (median of {timings.rounds})<extra></extra>",
            )
        )  # fmt: skip
    _mark_lengths(fig, timings, min(every), max(every))
    apply_layout(
        fig,
        title,
        presentation,
        height=round(820 * font_scale(presentation)),
        xaxis=_length_axis(timings),
        yaxis={"title": {"text": "median time per call (ms)"}, "type": "log"}
        | log_ticks(min(every), max(every)),
        **legend_below(fig, presentation),
    )
    return fit_title(fig, max_chars=line_chars)


def ratio_figure(
    timings: SublayerTimings, title: str, presentation: bool = False, line_chars: int = 60
) -> go.Figure:
    """Median time over the feed-forward sub-layer's, for Eq. (1) and the whole self-attention
    sub-layer, with the ratio the operation counts predict (dotted); 1 is where they cost the same."""
    n = np.asarray(timings.lengths, dtype=float)
    fig = go.Figure()
    shown = []
    for part in ("eq1", "attention"):
        ratio = timings.ratio(part)
        counts = [flop_counts(int(k), timings.d_model, timings.d_ff) for k in n]
        predicted = np.array([c[part] / c["ffn"] for c in counts])
        shown += [*ratio, *predicted]
        name = "Eq. (1)" if part == "eq1" else "sub-layer"
        fig.add_trace(
            go.Scatter(
                x=n, y=ratio, name=f"{name} ÷ FFN, measured", mode="lines+markers",
                line={"color": PART_COLORS[part], "width": 3}, marker={"size": 9},
                hovertemplate=f"{PART_LABELS[part]}<br>n = %{{x}}: %{{y:.3f}}× the FFN's time<extra></extra>",
            )
        )  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=n, y=predicted, name=f"{name} ÷ FFN, operations", mode="lines",
                line={"color": PART_COLORS[part], "width": 2, "dash": "dot"},
                hovertemplate=f"{PART_LABELS[part]}<br>n = %{{x}}: %{{y:.3f}}× the FFN's operations<extra></extra>",
            )
        )  # fmt: skip
    low, high = min(shown), max(shown)
    fig.add_trace(
        go.Scatter(
            x=[n.min(), n.max()], y=[1.0, 1.0], mode="lines", name="equal cost",
            line={"color": "#333", "width": 1.5}, hoverinfo="skip",
        )
    )  # fmt: skip
    _mark_lengths(fig, timings, low, high)
    apply_layout(
        fig,
        title,
        presentation,
        height=round(860 * font_scale(presentation)),
        xaxis=_length_axis(timings),
        yaxis={"title": {"text": "time ÷ feed-forward time"}, "type": "log"}
        | log_ticks(min(low, 1.0), max(high, 1.0)),
        **legend_below(fig, presentation),
    )
    return fit_title(fig, max_chars=line_chars)


def timing_table(timings: SublayerTimings) -> pd.DataFrame:
    """One row per length: each part's median (ms), and the two ratios to the FFN."""
    frame = pd.DataFrame({"n": timings.lengths})
    names = {"eq1": "Eq. (1)", "projections": "W^Q…W^O", "attention": "sub-layer", "ffn": "FFN"}
    for part, name in names.items():
        frame[f"{name} ms"] = timings.medians_ms[part]
    frame["Eq. (1) ÷ FFN"] = timings.ratio("eq1")
    frame["sub-layer ÷ FFN"] = timings.ratio("attention")
    return frame


# --- Why Q and K are projections: raw embeddings against W^Q, W^K ------------------------------


def raw_attention(x: np.ndarray) -> np.ndarray:
    """softmax(X Xᵀ / √d_model) for X [n, d_model]: attention with Q = K = V = X, no projections.

    The dot product of a vector with itself, |x|², is at least x·y whenever |y| ≤ |x| (Cauchy–
    Schwarz), so without W^Q and W^K each token is biased towards attending to itself.
    """
    x = np.asarray(x, dtype=np.float64)
    logits = x @ x.T / math.sqrt(x.shape[1])
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def diagonal_mean(weights: np.ndarray) -> np.ndarray:
    """Mean weight a query puts on itself: the mean of the diagonal over the last two axes."""
    w = np.asarray(weights, dtype=np.float64)
    return np.diagonal(w, axis1=-2, axis2=-1).mean(axis=-1)


def raw_heatmap(
    weights: np.ndarray,
    tokens: Sequence[str],
    title: str,
    presentation: bool = False,
    line_chars: int = 40,
) -> go.Figure:
    """softmax(XXᵀ/√d_model) as a heatmap: queries down, keys across, weights from 0 to 1."""
    rows = token_categories(tokens)
    fig = go.Figure(
        go.Heatmap(
            z=weights,
            x=rows,
            y=rows,
            colorscale=ATTENTION_COLORSCALE,
            zmin=0.0,
            zmax=1.0,
            colorbar={"thickness": 18, "title": {"text": "weight"}},
            hovertemplate="query '%{y}' → key '%{x}': %{z:.4f}<extra></extra>",
            xgap=cell_gap(len(rows)),
            ygap=cell_gap(len(rows)),
        )
    )
    _square_layout(fig, title, presentation, rows, rows, "key (attended to)", line_chars)
    return fig


def projection_table(trace: Trace) -> pd.DataFrame:
    """Per encoder layer: the mean self-weight of raw attention on that layer's input X and of
    the layer's own heads (W^Q, W^K): mean, lowest and highest over the heads."""
    rows = []
    for layer in range(trace.n_layers):
        raw = diagonal_mean(raw_attention(trace.encoder_hidden_states[layer]))
        learned = diagonal_mean(trace.attention["encoder_self"][layer])
        rows.append((layer + 1, raw, learned.mean(), learned.min(), learned.max()))
    return pd.DataFrame(
        rows, columns=["layer", "raw X", "heads: mean", "lowest head", "highest head"]
    )


def diagonal_figure(
    raw: float,
    heads: np.ndarray,
    n: int,
    title: str,
    presentation: bool = False,
    line_chars: int = 60,
) -> go.Figure:
    """Mean weight on the diagonal (a token attending to itself): raw embeddings against each
    head of the layer, with uniform attention 1/n for reference. Scale 0 to 1."""
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=["raw X"], y=[raw], name="raw: Q = K = V = X", marker_color="#d62728",
            hovertemplate="raw X·Xᵀ: mean self-weight %{y:.4f}<extra></extra>",
        )
    )  # fmt: skip
    fig.add_trace(
        go.Bar(
            x=[f"head {h + 1}" for h in range(len(heads))], y=list(heads),
            name="the model's heads: X·W^Q, X·W^K", marker_color=HEAD_COLORS[0],
            hovertemplate="%{x}: mean self-weight %{y:.4f}<extra></extra>",
        )
    )  # fmt: skip
    labels = ["raw X"] + [f"head {h + 1}" for h in range(len(heads))]
    fig.add_trace(
        go.Scatter(
            x=labels, y=[1 / n] * len(labels), mode="lines", name=f"uniform attention: 1/n = {1 / n:.3f}",
            line={"color": "#333", "dash": "dash", "width": 2}, hoverinfo="skip",
        )
    )  # fmt: skip
    apply_layout(
        fig,
        title,
        presentation,
        height=round(600 * font_scale(presentation)),
        xaxis={"title": {"text": "attention computed with"}, "tickangle": -45},
        yaxis={"title": {"text": "mean weight on the diagonal"}, "range": [0, 1.02]},
        bargap=0.2,
        **legend_below(fig, presentation),
    )
    return fit_title(fig, max_chars=line_chars)
