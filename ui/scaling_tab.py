"""The 1/√d_k lab (Section 3.2.1, footnote 4): why the logits are scaled, by seeded Monte Carlo,
and what the scale does to the model and the typed text."""

from __future__ import annotations

import math

import streamlit as st

from viz import scaling
from viz.attention import heatmap
from viz.style import KIND_LABELS

from . import controls, state, tables
from .glossary import FirstUse
from .url import UrlKey, counted

SEED = 0
VARIANCE_SAMPLES = 2000  # per d_k: the estimate is within about ±3% (1 s.d.) of d_k
HISTOGRAM_SAMPLES = 5000
SOFTMAX_TRIALS = 1000
DK_CHOICES = tuple(2**p for p in range(11))  # 1 .. 1,024
TEMPERATURES = (0.25, 0.5, 2.0, 4.0, 8.0)
DK = UrlKey("scaling_dk", int)
N_KEYS = UrlKey("scaling_n", int)
TEMPERATURE = UrlKey("scaling_T", float)
KIND = UrlKey("scaling_kind")
LAYER = counted("scaling_layer")
HEAD = counted("scaling_head")


@st.cache_data(max_entries=8, show_spinner=False)
def _variance_table(samples: int, seed: int):
    return scaling.variance_table(scaling.DK_GRID, samples, seed)


@st.cache_data(max_entries=16, show_spinner=False)
def _histograms(d_k: int, samples: int, seed: int, presentation: bool):
    return scaling.logit_histograms(d_k, samples, seed, presentation)


@st.cache_data(max_entries=16, show_spinner=False)
def _softmax_table(n_keys: int, trials: int, seed: int):
    return scaling.softmax_table(scaling.DK_GRID, n_keys, trials, seed)


# Issue 66, item 6: on the trained translator "no scaling" writes the same German (cosine 0.98),
# which reads as "the scale does not matter" unless the page says what it is for.
SCALE_IS_FOR_TRAINING = (
    "Why the output hardly changes: 1/√d_k is not there to change what a trained model writes. "
    "It is there for training. Before training, q·k has variance d_k (footnote 4, below), so "
    "unscaled logits push the softmax into saturation: nearly one-hot rows, whose gradients "
    "(diag(p) − ppᵀ) are close to zero, and the model learns slowly or not at all. A model "
    "trained with the scale has also learned weights that expect it."
)


def render(ctx: state.ViewContext) -> None:
    words = FirstUse()
    if not ctx.presentation:  # on a lecture screen the figure needs the height
        st.markdown("Scaled dot-product attention (Section 3.2.1, Equation 1):")
    st.latex(
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
    )
    # The headline first: the trained model's own attention with and without the scale.
    _live_section(ctx)
    st.subheader("Why √d_k: footnote 4, with random vectors")
    st.markdown(
        "Footnote 4: if the components of q and k are independent random variables with mean 0 "
        "and variance 1, their dot product has mean 0 and variance d_k. For large d_k the logits "
        "are large, the softmax saturates, and its gradients become extremely small. Dividing by "
        "√d_k brings the variance back to 1. Every number below is a seeded Monte Carlo estimate "
        f"(seed {SEED}) next to the exact value where one exists."
    )
    st.latex(
        r"\mathrm{Var}(q\cdot k) = \sum_{i=1}^{d_k}\mathrm{Var}(q_i k_i) = d_k, \qquad "
        r"\mathrm{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right) = 1"
    )
    variances = _variance_table(VARIANCE_SAMPLES, SEED)
    left, right = st.columns([3, 2])
    state.plot(
        where=left,
        figure=scaling.variance_figure(variances, VARIANCE_SAMPLES, ctx.presentation),
        title_chars=state.HALF_PAGE_TITLE_CHARS,
        key="scaling_variance",
    )
    tables.table(
        variances.round(3),
        ctx.presentation,
        where=right,
        height=480,
        width_px=tables.column_px(2 / 5),
    )
    spread = (
        "The s.d. of a sample variance of n draws is σ²·√(2/(n−1) + κ/n), with σ² = d_k and "
        "excess kurtosis κ = 6/d_k for q·k."
    )
    right.caption(spread)
    words.after(right, spread)

    DK.seed(64, valid=lambda v: v in DK_CHOICES)
    N_KEYS.seed(16, valid=lambda v: 2 <= v <= 256)
    left, right = st.columns(2)
    d_k = left.select_slider("d_k for the histograms", DK_CHOICES, key=DK.name)
    n_keys = right.slider("Number of keys n", 2, 256, key=N_KEYS.name)
    figure, summary = _histograms(d_k, HISTOGRAM_SAMPLES, SEED, ctx.presentation)
    state.plot(figure, key="scaling_histograms")
    tables.table(summary.round(3), ctx.presentation)

    st.subheader(f"What the softmax does with these logits, over n = {n_keys} keys")
    st.latex(
        r"p = \mathrm{softmax}(s\,q\cdot k_1, \dots, s\,q\cdot k_n), \quad "
        r"H(p) = -\sum_j p_j \log p_j, \quad \frac{\partial p}{\partial z} = "
        r"\mathrm{diag}(p) - pp^\top"
    )
    table = _softmax_table(n_keys, SOFTMAX_TRIALS, SEED)
    state.plot(
        scaling.softmax_figure(table, n_keys, ctx.presentation),
        key="scaling_softmax",
    )
    means = (
        f"Means over {SOFTMAX_TRIALS:,} random queries per d_k. Uniform weights would give "
        f"largest weight 1/n = {1 / n_keys:.4f} and entropy log n = {math.log(n_keys):.4f} (the "
        "dotted lines); a one-hot row gives 1 and 0, and a Jacobian of norm 0: no gradient "
        "passes."
    )
    st.caption(means)
    words.after(st, means)
    tables.table(table.round(4), ctx.presentation)


def _live_section(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    if not ctx.presentation:  # the figure's titles say the same in presentation mode
        st.subheader("The same model and text with another scale")
        st.markdown(
            "Each run below is a separate pass of the model with its own scale s in "
            "softmax(s·QKᵀ)V; the model itself is not changed. A temperature T gives "
            "s = 1/(T·√d_k): T > 1 flattens the attention, T < 1 sharpens it."
        )
    kinds = list(trace.kinds)
    TEMPERATURE.seed(2.0, valid=lambda v: v in TEMPERATURES)
    columns = st.columns([2, *controls.HEAD_ROW_COLUMNS])
    temperature = columns[0].select_slider("Temperature T", TEMPERATURES, key=TEMPERATURE.name)
    kind = controls.kind_selector(columns[1], KIND, kinds)
    layer = controls.layer_selector(columns[2], LAYER, trace.n_layers)
    head = controls.head_selector(columns[3], HEAD, trace.n_heads)
    root = math.sqrt(trace.d_k)
    runs = {
        f"paper: 1/√d_k = 1/{root:.3g}": trace,
        "no scaling: s = 1": state.get_trace(
            ctx.name, ctx.text, scale=1.0, decoding=ctx.decoding, answer_tokens=ctx.answer_tokens
        ),
        f"T = {temperature:g}: s = 1/({temperature:g}·√d_k)": state.get_trace(
            ctx.name,
            ctx.text,
            scale=1 / (temperature * root),
            decoding=ctx.decoding,
            answer_tokens=ctx.answer_tokens,
        ),
    }
    comparison = (
        scaling.scale_comparison(runs, kind, layer, head, ctx.presentation)
        if scaling.same_axes(runs, kind)
        else None
    )
    if comparison is not None and comparison.layout.width <= state.main_width_px(ctx.presentation):
        state.plot(comparison, key="scaling_live")
    else:  # different translations, or too many tokens for one row: a heatmap each
        state.plot_row(
            [
                (
                    heatmap(
                        run,
                        kind,
                        layer,
                        head,
                        label,
                        presentation=ctx.presentation,
                        max_width=state.main_width_px(ctx.presentation),
                    ),
                    f"scaling_live_{n}",
                )
                for n, (label, run) in enumerate(runs.items())
            ]
        )
    if kind != "encoder_self":
        st.caption(
            "The decoder rows are those of each run's own translation, so the tokens can differ "
            "between the runs."
        )
    st.markdown(f"**Every layer and head** ({KIND_LABELS[kind]}), mean over the query rows:")
    tables.table(
        scaling.entropy_and_largest_weight_by_run(runs, kind).round(3),
        ctx.presentation,
        height=360,
    )
    st.markdown("**The model's output** under each scale, compared with the paper's scale:")
    tables.table(scaling.output_change(runs, next(iter(runs))).round(4), ctx.presentation)
    st.info(SCALE_IS_FOR_TRAINING)
    if trace.prompt_length:
        st.caption(
            "Cosines and norms compare the last layer's vectors over the prompt, the tokens every "
            "run read: what each run writes after it depends on its scale."
        )
