"""The paper, live: Figures 1 and 2 on the typed sentence, restricted self-attention (Section 4),
Table 1 measured on this machine, why queries and keys are projections, and Figures 3–5 (heads
chosen by a statistic) on the pretrained MiniLM encoder.

Every view draws from the page's cached Trace or from a Trace with another per-call setting (the
window r), never from state left on the shared model. The view, kind, layer, head and window are
session keys mirrored in the URL.
"""

from __future__ import annotations

import threading
import time
from functools import partial

import streamlit as st

from model.weights import WeightsError
from runtime.paper import (
    TIMING_ROUNDS,
    crossover,
    max_path_length,
    output_projection,
    predicted_crossover,
    time_sublayers,
    timing_lengths,
)
from runtime.registry import ModelEntry, ModelUnavailable, find_model
from runtime.trace import InputError
from viz import paper, paper_heads
from viz.links import MIN_WEIGHT, select_lines, two_column_figure
from viz.style import FULL_PAGE_TITLE_CHARS, KIND_LABELS, fit_title, safe

from . import controls, state, tables, url
from .text import escape_markdown
from .url import UrlKey, counted, counted_list, parse_bool

TAB_LABEL = "The paper, live"
# The other tabs Figure 1 opens (their labels in app.py's TABS).
ATTENTION_TAB, POSITIONAL_TAB, SCALING_TAB = "Attention", "Positional encoding", "Scaling 1/√d_k"

VIEWS = {
    "fig1": "Figure 1: the model",
    "fig2": "Figure 2: attention step by step",
    "restricted": "Restricted self-attention (r)",
    "table1": "Table 1: cost per layer",
    "projections": "Why Q and K are projections",
    "fig3-5": "Figures 3–5: heads by statistic",
}
VIEW = UrlKey("paper_view")
KIND = UrlKey("paper_kind")
LAYER = counted("paper_layer")
HEAD = counted("paper_head")
HEAD_KEYS = (KIND, LAYER, HEAD)  # the kind, layer and head of Figure 2 and the views after it
WINDOW = UrlKey("paper_r", int)
# Figures 3-5: the figure, the sentence, its query word and antecedent, the heads drawn.
HEADS_FIGURE = UrlKey("paper_hfig")
HEADS_TEXT = UrlKey("paper_htext")
HEADS_WORD = UrlKey("paper_hword", int)
HEADS_ANTECEDENT = UrlKey("paper_hante", int)
HEADS_LAYER = counted("paper_hlayer")
HEADS_HEADS = counted_list("paper_hheads")
HEADS_ALL_WORDS = UrlKey("paper_hall", parse_bool)
FIGURE_LABELS = {
    "3": "Figure 3: long distance",
    "4": "Figure 4: anaphora",
    "5": "Figure 5: structure",
}
DEFAULT_WINDOW = 2

EXPLANATIONS = {
    "fig1": """**Figure 1 of the paper, drawn for the model in the sidebar** (Section 3.1). Each
arrow carries the shape of the tensor it passes for the sentence you typed: n source tokens, m
decoder inputs (`<s>` and the translation so far; a model with a decoder), d_model numbers per
token, h heads. **Click a
block**: an attention block opens its heatmap, the ⊕ of positions opens the positional lab,
"÷√d_k" the scaling lab, "Figure 2" the matrices of that block, "window r" restricted
self-attention, the feed-forward block Table 1 and the embedding why Q and K are projections.""",
    "fig2": """**Figure 2 of the paper on your sentence.** Left half: scaled dot-product attention
(Section 3.2.1, Eq. 1) for one head, every step with its real matrix: QKᵀ, the scale 1/√d_k, the
mask (decoder self-attention: a query may not see later positions, Section 3.2.3), the softmax
over each row and the weighted sum of the values. Right half: multi-head attention (Section
3.2.2): the h heads' outputs side by side, concatenated and multiplied by W^O. Hover for the
exact numbers. Every matrix here is recomputed from the run's own Q, K and V.""",
    "restricted": """**Restricted self-attention** (Section 4): "self-attention could be
restricted to considering only a neighborhood of size r in the input sequence centered around
the respective output position. This would increase the maximum path length to O(n/r)." Here
each query sees the keys within r positions (|i − j| ≤ r; in the decoder also j ≤ i): a band
mask added to the paper's masks, in a separate run of the same model. Encoder-decoder attention
is not restricted. A layer moves information at most r positions, so token j reaches token i
after ⌈|i − j|/r⌉ layers instead of 1.""",
    "table1": """**Table 1** compares layer types by cost per layer, sequential operations and
the longest path between two positions. Self-attention's cost grows as n²·d (every query against
every key), the position-wise parts (the projections and the feed-forward network) as n·d²: the
paper notes self-attention is the cheaper one while n is smaller than d. The measurement times
the sub-layers of this model's first encoder layer on random inputs of growing length.""",
    "projections": """**Why queries and keys are projections.** Without W^Q and W^K, attention
would compare the input vectors themselves: Q = K = V = X. The dot product of a vector with
itself, |x|², is the largest it can have with any vector of the same length, "so each hidden
state will be biased towards attending to itself". Left: softmax(XXᵀ/√d_model) on the input of
the chosen layer; right: the same layer's head with the model's own W^Q and W^K.""",
    "fig3-5": """**Figures 3–5 of the paper** draw encoder self-attention as lines from each word
(left) to the words it attends to (right), one colour per head, a line's opacity its weight. The
paper chose its heads by eye; here each of the 72 heads of the pretrained MiniLM-L6 encoder
(6 layers × 12 heads, whichever model the sidebar has) gets a number computed from its weights on
the sentence, and the best layer and its best heads are drawn; you may choose others. WordPiece
pieces are joined into words: a word's weight on another sums over the other's pieces and
averages over its own, so each word's weights still add up to 1.""",
}


# --- Navigation: the sidebar links and Figure 1's blocks ------------------------------------------


def open_view(view: str, kind: str | None = None) -> None:
    """Callback: open this tab on `view` (and `kind`)."""
    url.switch(tab=TAB_LABEL, paper_view=view)
    if kind is not None:
        url.switch(paper_kind=kind)


def open_target(target: str) -> None:
    """Callback: open what a block of Figure 1 stands for (see viz.paper.TARGET_LABELS)."""
    view, kind = paper.parse_target(target)
    if view == "attention":
        url.switch(tab=ATTENTION_TAB, view="heatmap", kind=kind)
    elif view == "scaling":
        url.switch(tab=SCALING_TAB, scaling_kind=kind)
    elif view == "positional":
        url.switch(tab=POSITIONAL_TAB)
    else:
        open_view(view, kind)


SHORT_LABELS = {
    "fig1": "Figure 1",
    "fig2": "Figure 2",
    "restricted": "window r",
    "table1": "Table 1",
    "projections": "why W^Q, W^K",
    "fig3-5": "Figures 3–5",
}


def _jump() -> None:
    view = st.session_state.get("paper_jump")
    if view in VIEWS:
        open_view(view)
    st.session_state["paper_jump"] = None  # a link, not a choice that stays selected


def sidebar_links() -> None:
    """One click from anywhere on the page to each view of this tab (pills that act as links)."""
    st.sidebar.pills(
        TAB_LABEL,
        list(VIEWS),
        format_func=SHORT_LABELS.get,
        key="paper_jump",
        on_change=_jump,
        help="Opens the tab of the paper's figures on this view.",
    )


def _on_figure1_select(chart_key: str) -> None:
    selection = st.session_state.get(chart_key)
    points = (selection or {}).get("selection", {}).get("points", [])
    if not points:
        return
    target = points[0].get("customdata")
    if isinstance(target, list):  # Plotly may hand customdata over as a one-element list
        target = target[0] if target else None
    if target is None:
        return
    try:
        open_target(str(target))
    except ValueError:
        return
    # A fresh chart next time: a selection left on the old one would not fire again.
    st.session_state["paper_fig1_nav"] = st.session_state.get("paper_fig1_nav", 0) + 1


# --- The tab ---------------------------------------------------------------------------------------


def render(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    kinds = list(trace.kinds)
    longest = max(len(trace.source_tokens), len(trace.target_tokens), 2)
    VIEW.seed("fig1", valid=lambda v: v in VIEWS)
    # Kept in the URL for the views that do not draw them.
    controls.seed_kind(KIND, kinds)
    controls.seed_layer(LAYER, trace.n_layers)
    controls.seed_head(HEAD, trace.n_heads)
    WINDOW.seed(min(DEFAULT_WINDOW, longest - 1), valid=lambda v: 1 <= v < longest)
    view = st.radio(
        "View", list(VIEWS), format_func=VIEWS.get, horizontal=True, key=VIEW.name,
        label_visibility="collapsed",
    )  # fmt: skip
    if not ctx.presentation:
        st.markdown(EXPLANATIONS[view])
    _DRAW[view](ctx)


def _half_width_chars(ctx: state.ViewContext) -> int:
    """Title characters a line for a figure in half the page. fit_title scales them down for
    presentation mode's larger font; presentation mode is meant for a wide (1920 px) screen."""
    return 40 if ctx.presentation else 30


# --- Figure 1 --------------------------------------------------------------------------------------


def _draw_figure1(ctx: state.ViewContext) -> None:
    trace, config = ctx.trace, ctx.loaded.model.config
    fig = paper.figure1(
        config,
        len(trace.source_tokens),
        len(trace.target_tokens),
        presentation=ctx.presentation,
    )
    chart_key = f"paper_fig1_{st.session_state.get('paper_fig1_nav', 0)}"
    st.plotly_chart(
        fig,
        key=chart_key,
        on_select=partial(_on_figure1_select, chart_key),
        selection_mode="points",
        theme=None,
        width="stretch",
        config={"displayModeBar": False},
    )
    targets = _figure1_targets(config.is_encoder_decoder)
    pick, button = st.columns([4, 1], vertical_alignment="bottom")
    pick.selectbox(
        "Or open from here (the same as clicking a block)",
        list(targets),
        format_func=targets.get,
        key="paper_fig1_target",
    )
    # The selectbox's value at the click (not when the button was drawn).
    button.button("Open", on_click=_open_chosen, key="paper_fig1_open")
    st.caption(
        "Shapes on the arrows: [rows, columns] for this sentence, e.g. [n, d_model] = "
        f"[{len(trace.source_tokens)}, {config.d_model}]. The residual connections of each "
        "Add & Norm (Section 3.1) are not drawn. Dropout is off when the model runs here."
    )


def _open_chosen() -> None:
    open_target(st.session_state["paper_fig1_target"])


def _figure1_targets(encoder_decoder: bool) -> dict[str, str]:
    kinds = ["encoder_self"] + (["decoder_self", "cross"] if encoder_decoder else [])
    targets = {}
    for kind in kinds:
        targets[f"attention:{kind}"] = f"{KIND_LABELS[kind]}: heatmap (Attention tab)"
        targets[f"fig2:{kind}"] = f"{KIND_LABELS[kind]}: Figure 2, step by step"
        targets[f"scaling:{kind}"] = f"{KIND_LABELS[kind]}: the scale 1/√d_k (Scaling tab)"
        if kind != "cross":
            targets[f"restricted:{kind}"] = f"{KIND_LABELS[kind]}: restricted to a window r"
    targets["positional"] = "positional encoding (Positional tab)"
    targets["table1"] = "feed-forward and Table 1, measured"
    targets["projections"] = "input embedding: why Q and K are projections"
    return targets


# --- Figure 2 --------------------------------------------------------------------------------------


def _draw_figure2(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    kind, layer, head = controls.head_row(trace, keys=HEAD_KEYS)
    pipeline = paper.attention_pipeline(trace, kind, layer, head)
    n, m = len(pipeline.query_tokens), len(pipeline.key_tokens)
    d_k = pipeline.queries.shape[1]
    st.markdown("#### Scaled dot-product attention (Figure 2, left; Eq. 1)")
    st.latex(
        r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
        rf",\quad Q\in\mathbb{{R}}^{{{n}\times{d_k}}},\ K, V\in\mathbb{{R}}^{{{m}\times{d_k}}},"
        rf"\ \tfrac{{1}}{{\sqrt{{{d_k}}}}} = {trace.scale:.4g}"
    )
    state.plot(paper.inputs_figure(pipeline, ctx.presentation), key="paper_f2_inputs")
    chars = _half_width_chars(ctx)
    steps = [(paper.figure2_diagram(pipeline, ctx.presentation), "paper_f2_diagram")] + [
        (paper.pipeline_figure(pipeline, step, ctx.presentation, chars), f"paper_f2_step_{step}")
        for step in paper.PIPELINE_STEPS
    ]
    state.plot_row(steps)
    drift = paper.softmax_drift(trace, pipeline)
    notes = [
        "Steps 1–3 share one colour scale (±max|QKᵀ|), so the scaling shows as a fading.",
        f"The softmax recomputed here differs from the weights the model used by at most "
        f"{drift:.1e}.",
    ]
    if kind == "cross":
        notes.append("Encoder-decoder attention has no mask: every query sees all source tokens.")
    elif kind == "decoder_self":
        notes.append("Grey: masked, a later position (Section 3.2.3); such cells get weight 0.")
    st.caption(" ".join(notes))

    st.markdown("#### Multi-head attention (Figure 2, right; Section 3.2.2)")
    st.latex(
        r"\mathrm{MultiHead}(Q,K,V)=\mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)W^O,"
        r"\quad \mathrm{head}_i=\mathrm{Attention}(QW_i^Q,KW_i^K,VW_i^V)"
    )
    w_o, b_o = output_projection(ctx.loaded.model, kind, layer)
    heads = paper.multi_head(trace, kind, layer, w_o, b_o)
    h, _, d_v = heads.heads.shape
    where = f"{KIND_LABELS[kind]} · layer {layer + 1}"
    state.plot(
        paper.multi_head_figure(
            heads.heads,
            pipeline.query_tokens,
            f"{where} · the {h} heads' outputs side by side = Concat, "
            f"[n, h·d_v] = [{n}, {h * d_v}] (head {head + 1} framed)",
            ctx.presentation,
            highlight=head,
        ),
        key="paper_f2_heads",
    )
    state.plot(
        paper.projected_figure(
            heads.output,
            pipeline.query_tokens,
            f"{where} · Concat(head_1, …, head_{h}) W^O, "
            f"[n, d_model] = [{n}, {heads.output.shape[1]}]",
            ctx.presentation,
        ),
        key="paper_f2_output",
    )
    st.caption(
        "This is the attention sub-layer's output, before the residual connection and "
        "LayerNorm (Add & Norm in Figure 1)."
    )


# --- Restricted self-attention ------------------------------------------------------------------


def _draw_restricted(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    kinds = [k for k in trace.kinds if k in paper.SELF_KINDS]
    longest = max(len(trace.source_tokens), len(trace.target_tokens), 2)
    window = st.slider(
        "Window r: each query sees the keys within r positions",
        1,
        max(longest - 1, 2),
        key=WINDOW.name,
    )
    kind, layer, head = controls.head_row(ctx.trace, kinds, keys=HEAD_KEYS)
    restricted = state.get_trace(
        ctx.name, ctx.text, decoding=ctx.decoding, answer_tokens=ctx.answer_tokens, window=window
    )
    chars = _half_width_chars(ctx)
    state.plot_row(
        [
            (paper.banded_heatmap(run, kind, layer, head, ctx.presentation, chars), key)
            for run, key in ((trace, "paper_r_full"), (restricted, "paper_r_band"))
        ]
    )
    if trace.output:
        verdict = "the same as" if restricted.output == trace.output else "different from"
        st.markdown(
            f"**Translation with full attention:** {escape_markdown(trace.output)}  \n"
            f"**With window r = {window}:** {escape_markdown(restricted.output)} ({verdict} "
            "full attention)"
        )
        if kind == "decoder_self":
            st.caption(
                "The decoder rows are those of each run's own translation, so the tokens can "
                "differ between the two heatmaps."
            )
    tokens = trace.axis_tokens(kind)[0] if kind == "encoder_self" else restricted.target_tokens
    n = len(tokens)
    longest_path = max_path_length(n, window)
    metrics = st.columns(3)
    metrics[0].metric(f"Maximum path length, r = {window}", f"{longest_path} layers")
    metrics[1].metric("With full self-attention", f"{max_path_length(n, None)} layer")
    metrics[2].metric("Layers in this model (N)", trace.n_layers)
    if longest_path > trace.n_layers:
        st.warning(
            f"With r = {window}, the two ends of this {n}-token sequence are {longest_path} "
            f"layers apart, more than the model's {trace.n_layers}: through self-attention alone "
            "they never meet."
        )
    state.plot(
        paper.path_length_figure(
            tokens,
            window,
            kind == "decoder_self",
            trace.n_layers,
            f"{KIND_LABELS[kind]} · layers from token j to token i, r = {window}",
            ctx.presentation,
            chars,
        ),
        key="paper_r_paths",
    )
    state.plot(
        paper.path_growth_figure(
            n,
            sorted({1, 2, 4, window}),
            trace.n_layers,
            f"Table 1: maximum path length O(n/r) against O(1), for N = {trace.n_layers} layers",
            ctx.presentation,
            line_chars=FULL_PAGE_TITLE_CHARS,
        ),
        key="paper_r_growth",
    )
    st.caption(
        "⌈(n − 1)/r⌉: a layer lets position i read positions i − r … i + r, so after L layers "
        "its receptive field spans L·r positions each way. Our implementation masks the full "
        "n × n matrix, so it shows the pattern and the path length, not the O(r·n·d) saving."
    )


# --- Table 1 ---------------------------------------------------------------------------------------

_TIMING_LOCK = threading.Lock()


@st.cache_resource(show_spinner=False)
def _timing_store() -> dict:
    """Measured timings per model, shared by every session of this server (model name -> result)."""
    return {}


def _draw_table1(ctx: state.ViewContext) -> None:
    trace, config = ctx.trace, ctx.loaded.model.config
    n = len(trace.source_tokens)
    window = int(WINDOW.current())
    st.markdown(
        f"**Table 1 of the paper**, each expression evaluated at this sentence's n = {n} and this "
        f"model's d = d_model = {config.d_model} (k = 3 for a convolution, r = {window} as in the "
        "restricted view)."
    )
    tables.table(paper.table1_frame(n, config.d_model, window), ctx.presentation)
    store = _timing_store()
    lengths = timing_lengths(config.h)
    measured = store.get(ctx.name)
    label = "Measure again" if measured else "Measure on this machine"
    if st.button(
        f"{label} (n = {lengths[0]} … {lengths[-1]}, {TIMING_ROUNDS} rounds; a few seconds)",
        key="paper_measure",
    ):
        with _TIMING_LOCK, st.spinner("Timing the sub-layers of encoder layer 1…"):
            measured = time_sublayers(ctx.loaded.model, lengths)
            store[ctx.name] = (measured, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    if not measured:
        st.info(
            "Nothing measured yet for this model. The measurement runs only when asked, and its "
            "result is kept for everyone on this server."
        )
        return
    timings, when = store[ctx.name]
    title = "encoder layer 1 · median time per call against n"
    chars = _half_width_chars(ctx)
    left, right = st.columns(2)
    state.plot(
        paper.timing_figure(timings, title, ctx.presentation, chars),
        where=left,
        key="paper_t1_time",
    )
    state.plot(
        paper.ratio_figure(
            timings,
            "encoder layer 1 · time ÷ feed-forward time against n",
            ctx.presentation,
            chars,
        ),
        where=right,
        key="paper_t1_ratio",
    )
    st.markdown(
        f"**Measured {when}** on {timings.device}, {timings.threads} thread(s), median of "
        f"{timings.rounds} interleaved rounds per length after a warm-up ({timings.seconds:.1f} s "
        "in all). "
        + _crossover_sentence(timings, "eq1", "Eq. (1)", f"n = d_ff = {config.d_ff}")
        + " "
        + _crossover_sentence(
            timings,
            "attention",
            "The whole self-attention sub-layer",
            f"n = d_ff − 2d = {predicted_crossover(config.d_model, config.d_ff):.0f}",
        )
        + f" Table 1's rule of thumb: n = d = {config.d_model}."
    )
    st.caption(
        "Dotted lines: the ratio the multiply-add counts predict (4n²d for Eq. 1, 8nd² for the "
        "projections, 4nd·d_ff for the feed-forward network). Measured times also include the "
        "softmax, memory traffic and per-call overhead: at small n the fixed costs dominate, at "
        "large n the h·n² weights no longer fit the caches. The machine is shared, so absolute "
        "times drift; the ratios hold better."
    )
    tables.table(paper.timing_table(timings).round(3), ctx.presentation)


def _crossover_sentence(timings, part: str, name: str, predicted: str) -> str:
    ratio = timings.ratio(part)
    n_star = crossover(timings.lengths, ratio)
    if n_star is not None:
        where = f"overtakes the feed-forward sub-layer at n ≈ {n_star:.0f}"
    elif ratio[0] >= 1:
        where = f"is already slower than the feed-forward sub-layer at n = {timings.lengths[0]}"
    else:
        where = f"stays faster than the feed-forward sub-layer up to n = {timings.lengths[-1]}"
    return f"{name} {where} (operation count: {predicted})."


# --- Why projections -----------------------------------------------------------------------------


def _draw_projections(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    _, layer, head = controls.head_row(trace, ["encoder_self"], keys=HEAD_KEYS)
    tokens = trace.source_tokens
    x = trace.encoder_hidden_states[layer]
    raw = paper.raw_attention(x)
    source = "the input embeddings" if layer == 0 else f"the output of layer {layer}"
    chars = _half_width_chars(ctx)
    raw_figure = paper.raw_heatmap(
        raw,
        tokens,
        f"encoder layer {layer + 1}, raw: Q = K = V = X, its input ({source})",
        ctx.presentation,
        chars,
    )
    learned_figure = paper.banded_heatmap(
        trace,
        "encoder_self",
        layer,
        head,
        ctx.presentation,
        chars,
        note="with the model's W^Q, W^K",
    )
    state.plot_row([(raw_figure, "paper_p_raw"), (learned_figure, "paper_p_learned")])
    raw_diagonal = float(paper.diagonal_mean(raw))
    heads = paper.diagonal_mean(trace.attention["encoder_self"][layer])
    metrics = st.columns(3)
    metrics[0].metric("Mean weight on itself, raw X", f"{raw_diagonal:.3f}")
    metrics[1].metric(f"… head {head + 1} with W^Q, W^K", f"{heads[head]:.3f}")
    metrics[2].metric("… uniform attention, 1/n", f"{1 / len(tokens):.3f}")
    left, right = st.columns(2)
    state.plot(
        paper.diagonal_figure(
            raw_diagonal,
            heads,
            len(tokens),
            f"encoder layer {layer + 1} · mean weight a token puts on itself",
            ctx.presentation,
            chars,
        ),
        where=left,
        key="paper_p_diagonal",
    )
    with right:
        st.markdown("**Every layer** (raw attention on the layer's input, against its heads):")
        tables.table(paper.projection_table(trace).round(3), ctx.presentation)
    st.caption(
        "The raw version uses the scale 1/√d_model, the analogue of 1/√d_k for vectors of "
        "d_model numbers. With separate W^Q and W^K a head can make q_i·k_i small and another "
        "token's key large: it chooses what to look at instead of finding itself."
    )


# --- Figures 3–5: heads chosen by a statistic ------------------------------------------------------

STATISTICS = {
    "3": (
        "far weight",
        f"the weight the word '{{word}}' puts on words at least {paper_heads.FAR_WORDS} words "
        "away, either side",
    ),
    "4": ("weight on antecedent", "the weight from '{word}' to '{antecedent}'"),
    "5": (
        "fixed-offset share",
        "the share of attention every word puts on the word δ places away (the best δ of "
        f"±1 … ±{paper_heads.MAX_OFFSET}), averaged over the words: the same pattern at every "
        "position, so a head that follows the sentence's order rather than its words",
    ),
}


def heads_model() -> ModelEntry | None:
    """The model Figures 3–5 run on, whatever model the sidebar has chosen: the paper's trained
    base model is not available, so the first model that learned its attention from real text
    (MiniLM-L6, a 6-layer, 12-head encoder like the paper's)."""
    return find_model(lambda entry: entry.real_text)


def _draw_heads(ctx: state.ViewContext) -> None:
    HEADS_FIGURE.seed("3", valid=lambda v: v in FIGURE_LABELS)
    HEADS_TEXT.seed("paper", valid=lambda v: v in ("paper", "sidebar"))
    HEADS_ALL_WORDS.seed(False)
    top = st.columns([3, 2])
    figure = top[0].radio(
        "Figure", list(FIGURE_LABELS), format_func=FIGURE_LABELS.get, horizontal=True,
        key=HEADS_FIGURE.name,
    )  # fmt: skip
    source = top[1].radio(
        "Sentence",
        ["paper", "sidebar"],
        format_func={"paper": "the paper's", "sidebar": "the sidebar's text"}.get,
        horizontal=True,
        key=HEADS_TEXT.name,
    )
    sentence = paper_heads.FIGURES[figure][0] if source == "paper" else ctx.text
    entry = heads_model()
    if entry is None:
        st.info("Figures 3–5 need a model that learned from real text, and none is offered here.")
        return
    try:
        loaded = state.get_model(entry.name)
        trace = state.get_trace(entry.name, sentence)
    except (ModelUnavailable, WeightsError, InputError) as err:
        st.info(f"Figures 3–5 run on the pretrained {entry.short_label} encoder: {err}")
        return
    words = paper_heads.group_words(trace.source_tokens, loaded.special_tokens)
    weights = paper_heads.word_attention(trace.attention["encoder_self"], words)
    if len(words.ordinary) < 2:
        st.info("These figures need a sentence of at least two words.")
        return
    st.caption(
        f"Encoder self-attention of {loaded.label} on “{escape_markdown(sentence)}” "
        f"({len(words.ordinary)} words, {len(trace.source_tokens)} WordPiece tokens with "
        "[CLS] and [SEP])."
    )
    word, antecedent = _word_choices(figure, sentence, words)
    scores, offsets = _scores(figure, weights, words, word, antecedent)
    pick = paper_heads.pick_heads(scores)
    if not scores.any():
        st.warning(
            "Every head scores 0 on this sentence (is it long enough for the statistic?): the "
            "heads drawn are not picked by anything."
        )
    layer, heads = _head_choices(trace, f"{figure}|{sentence}|{word}|{antecedent}", pick)
    _heads_figures(ctx, figure, words, weights, scores, offsets, pick, layer, heads, word)


def _word_choices(figure: str, sentence: str, words) -> tuple[int | None, int | None]:
    """The query word (Figures 3 and 4) and the antecedent (Figure 4), defaulting to the
    paper's words when the sentence has them; reset when the figure or the sentence changes."""
    if figure == "5":
        return None, None
    ordinary = words.ordinary
    _, query_word, key_word = paper_heads.FIGURES[figure]
    found = words.index(query_word)
    query_default = found if found is not None else ordinary[len(ordinary) // 2]
    found = words.index(key_word) if key_word else None
    key_default = found if found is not None else ordinary[0]
    _reset_on_change(
        "paper_hwords_for",
        f"{figure}|{sentence}",
        {"paper_hword": query_default, "paper_hante": key_default},
    )
    valid = lambda v: v in ordinary  # noqa: E731
    HEADS_WORD.seed(query_default, valid=valid)
    HEADS_ANTECEDENT.seed(key_default, valid=valid)
    label = lambda i: f"{ordinary.index(i) + 1}: {words.text[i]}"  # noqa: E731
    columns = st.columns(2)
    word = columns[0].selectbox(
        "Pronoun" if figure == "4" else "Query word", ordinary, format_func=label,
        key=HEADS_WORD.name,
    )  # fmt: skip
    antecedent = None
    if figure == "4":
        antecedent = columns[1].selectbox(
            "Its antecedent", ordinary, format_func=label, key=HEADS_ANTECEDENT.name
        )
    return word, antecedent


def _reset_on_change(marker: str, signature: str, defaults: dict) -> None:
    """Set the keys of `defaults` to their defaults when `signature` differs from the last
    run's (a value from the URL survives the first run, not a change of sentence)."""
    previous = st.session_state.get(marker)
    if previous is not None and previous != signature:
        st.session_state.update(defaults)
    st.session_state[marker] = signature


def _scores(figure, weights, words, word, antecedent):
    """The figure's statistic for every (layer, head), and each head's offset δ (Figure 5)."""
    if figure == "3":
        return paper_heads.long_distance_mass(weights, words, word), None
    if figure == "4":
        return paper_heads.antecedent_weight(weights, word, antecedent), None
    return paper_heads.offset_share(weights, words)


def _head_choices(trace, signature: str, pick: tuple[int, list[int]]) -> tuple[int, list]:
    """Layer and heads: the statistic's pick until the user chooses others, and again when
    the figure, the sentence or its words change (`signature`)."""
    _reset_on_change(
        "paper_hpick_for", signature, {"paper_hlayer": pick[0], "paper_hheads": pick[1]}
    )
    layers, heads = list(range(trace.n_layers)), list(range(trace.n_heads))
    HEADS_LAYER.seed(pick[0], valid=lambda v: v in layers)
    HEADS_HEADS.seed(pick[1], valid=lambda hs: set(hs) <= set(heads))
    columns = st.columns([3, 5, 2], vertical_alignment="bottom")
    layer = columns[0].select_slider(
        "Layer", options=layers, format_func=lambda i: str(i + 1), key=HEADS_LAYER.name
    )
    heads = columns[1].multiselect(
        "Heads (one colour each)", heads, format_func=lambda h: f"head {h + 1}",
        key=HEADS_HEADS.name,
    )  # fmt: skip
    columns[2].button(
        "The statistic's pick", on_click=_restore_pick, args=pick, key="paper_hrestore",
        disabled=(layer, sorted(heads)) == (pick[0], sorted(pick[1])),
    )  # fmt: skip
    return layer, sorted(heads)


def _restore_pick(layer: int, heads: list[int]) -> None:
    st.session_state["paper_hlayer"] = layer
    st.session_state["paper_hheads"] = list(heads)


def _heads_figures(ctx, figure, words, weights, scores, offsets, pick, layer, heads, word):
    """The statistic and its pick, the two-column figure, then every head's score."""
    label, description = STATISTICS[figure]
    antecedent = st.session_state.get("paper_hante")
    described = description.format(
        word=words.text[word] if word is not None else "",
        antecedent=words.text[antecedent] if antecedent is not None else "",
    )
    picked = ", ".join(
        f"head {h + 1}: {scores[pick[0], h]:.3f}"
        + (f" (δ = {offsets[pick[0], h]:+d})" if offsets is not None else "")
        for h in pick[1]
    )
    st.markdown(
        f"**Statistic: {label}**, {escape_markdown(described)}. **Picked: layer {pick[0] + 1}**, "
        f"{picked} (the best of all {scores.size} heads, with the heads of its layer scoring "
        f"at least {paper_heads.PICK_SHARE:.0%} of it, at most {paper_heads.PICK_MOST})."
    )
    focus = None
    if figure != "5":
        every = st.toggle("Lines from every word", key=HEADS_ALL_WORDS.name)
        focus = None if every else ("query", word)
    selection = select_lines(weights[layer], heads, focus)
    which = ", ".join(str(h + 1) for h in heads) or "none"
    whence = "every word" if focus is None else f"'{safe(words.text[word])}'"
    fig = two_column_figure(
        words.text,
        words.text,
        heads,
        selection,
        f"{FIGURE_LABELS[figure]} · layer {layer + 1}, heads {which} · lines from {whence}",
        ctx.presentation,
        unit="word",
    )
    state.plot(fit_title(fig, top_room=round(2.6 * fig.layout.font.size)), key="paper_h_links")
    st.caption(
        f"Lines under weight {MIN_WEIGHT} are left out ({selection.dropped_light:,} of them). "
        "Hover a line for its exact weight."
    )
    state.plot(
        paper_heads.score_heatmap(
            scores,
            label,
            f"{label} of every head · drawn heads framed",
            (layer, heads),
            ctx.presentation,
        ),
        key="paper_h_scores",
    )
    tables.table(paper_heads.ranking_frame(scores, label, offsets=offsets), ctx.presentation)


_DRAW = {
    "fig1": _draw_figure1,
    "fig2": _draw_figure2,
    "restricted": _draw_restricted,
    "table1": _draw_table1,
    "projections": _draw_projections,
    "fig3-5": _draw_heads,
}
