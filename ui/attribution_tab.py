"""The Attribution tab: is attention an explanation? For each German token the translator wrote,
which English tokens mattered, by gradients (Captum) and by attention, side by side and scored
against the corpus's gold alignment where it knows the sentence."""

from __future__ import annotations

import streamlit as st

from runtime.attribution import METHODS, stacked
from runtime.loaded import held_out_best_head, supervised_head
from runtime.trace import InputError
from viz.attribution import (
    MIN_LINKED_ROWS,
    aer_table,
    agreement,
    attention_panels,
    comparison_figure,
    encoder_importance,
    linked_rows,
    similarity_figure,
    word_figure,
)
from viz.decoding import gold_alignment

from . import controls, state, tables
from .glossary import FirstUse
from .url import UrlKey, counted, fits_in_url

TAB_LABEL = "Attention vs gradients"
ATTR_LAYER = counted("attr_layer")
ATTR_HEAD = counted("attr_head")
ATTR_STEPS = UrlKey("attr_steps", int)
ATTR_TEXT_B = UrlKey("attr_text", in_url=fits_in_url)  # a longer text stays out of the URL
ATTR_WORD = counted("attr_word")  # the German token explained first: its position, from 1
STEP_CHOICES = [16, 32, 64, 128]
# Integrated gradients run this many German tokens a call: the chosen token's call comes
# first (a fraction of a second), the others follow behind a progress bar. Fixed blocks, so a
# token chosen later finds its block computed.
ROWS_PER_CALL = 2

INTRO = (
    "Do the attention weights show what the model used? For every German token written "
    "(rows), which English tokens (columns) mattered: by **gradients** of the written token's "
    "log-probability, and by **attention** in the same run. Rows sum to 1; red outlines: the "
    "gold alignment, each panel's AER on it in its title (0 is perfect)."
)
METHOD_NOTES = (
    "*Attention is not Explanation* (Jain & Wallace, 2019) and *Attention is not not "
    "Explanation* (Wiegreffe & Pinter, 2019) argue both ways; here the corpus's gold word "
    "alignment settles it for one sentence. The gradients are taken with respect to the English "
    "token vectors (the embeddings × √d_model, before the positions are added) of f = log p("
    "written token | the tokens before it, the English sentence): **saliency** is the "
    "gradient's length ‖∂f/∂x_i‖; **input × gradient** the dot product |x_i · ∂f/∂x_i|; "
    "**integrated gradients** (Sundararajan et al., 2017) integrate the gradient along the "
    "straight path from the padding token's vector to each word's, so that a row's signed "
    "attributions add up to f(x) − f(baseline) (shown as their size here). The attention side "
    "is one cross-attention head, its layer's mean over heads, the head with the best AER over "
    "the model's 500 held-out evaluation sentences (\"held-out best\"), and attention rollout carried through the decoder (each decoder layer's "
    "self- and cross-attention with the residual as an identity, the encoder's rollout behind "
    "the cross-attention). AER: each row's largest cell is its link, scored against the gold "
    "links as 1 − 2·|A∩G| / (|A| + |G|), over the rows the gold alignment covers."
)


def render(ctx: state.ViewContext) -> None:
    words = FirstUse()
    if ctx.trace.steps:
        _translation(ctx, words)
    else:
        _similarity(ctx, words)


def _steps_slider(where) -> int:
    ATTR_STEPS.seed(32, valid=lambda v: v in STEP_CHOICES)
    return where.select_slider(
        "Integrated-gradient steps",
        STEP_CHOICES,
        key=ATTR_STEPS.name,
        help="Points of the path integral (Gauss–Legendre, batched). More points: the "
        "attributions sum closer to the change they explain, at a longer wait.",
    )


def _translation(ctx: state.ViewContext, words: FirstUse) -> None:
    trace = ctx.trace
    st.markdown(INTRO)
    # the panels below are titled with the methods the notes describe
    words.after(st, INTRO + METHOD_NOTES)
    with st.expander("How each panel is computed"):
        st.markdown(METHOD_NOTES)
    n_layers, n_heads = trace.attention["cross"].shape[:2]
    word_column, left, middle, right = st.columns([3, 2, 2, 3])
    word = _word_selector(word_column, trace)
    layer = controls.layer_selector(left, ATTR_LAYER, n_layers, label="Cross-attention layer")
    head = controls.head_selector(middle, ATTR_HEAD, n_heads)
    steps = _steps_slider(right)
    held_out = held_out_best_head(ctx.loaded)
    best = None if held_out is None else (held_out.layer, held_out.head)
    attention = attention_panels(trace, layer, head, best)
    gold = gold_alignment(trace, state.get_reference(ctx.name, ctx.text))
    found = _attributions(ctx, steps, word, attention, gold)
    gradients = [(label, a.scores) for label, a in found.items()]
    scored = aer_table([*gradients, *attention], gold)
    if gold is not None and scored is not None and linked_rows(gold) < MIN_LINKED_ROWS:
        st.markdown(
            f"Only {linked_rows(gold)} German tokens have a gold link in this sentence: too few "
            "to say which method aligns best (on so few rows any method scores near 0 or 1 by "
            f"chance). Type a sentence with at least {MIN_LINKED_ROWS} linked words to compare."
        )
    elif scored is not None:
        best = scored.iloc[0]
        st.markdown(
            f"On this sentence **{best['method']}** matches the gold alignment best "
            f"(AER {best['AER']:.2f}): its strongest source token is most often the word "
            "the row translates."
        )
    else:
        st.caption(
            "The corpus does not know this sentence, so there is no gold alignment to score "
            "against: the panels still show what each method says."
        )
    if held_out is not None and any(name.startswith("held-out best") for name, _ in attention):
        st.caption(
            f"“held-out best L{held_out.layer + 1} H{held_out.head + 1}” is the cross-attention "
            f"head with the lowest AER over the {held_out.sentences} held-out sentences of the "
            f"model's evaluation ({held_out.aer:.3f} there); its title gives its AER on this "
            "sentence."
            + (
                " It is the head that training pulled towards the gold alignment (alignment "
                "supervision): set it beside the gradients as a head taught to align, not one "
                "that learned to."
                if supervised_head(ctx.loaded) == (held_out.layer, held_out.head)
                else ""
            )
        )
    figure = comparison_figure(
        trace,
        [*gradients, *attention],
        gold,
        state.main_width_px(ctx.presentation),
        ctx.presentation,
    )
    state.plot(figure, key="attr_panels", width="content")
    if scored is not None:
        st.markdown("**AER of every panel on this sentence** (0 is perfect, best first)")
        tables.table(scored, ctx.presentation)
    ig = found[METHODS["integrated_gradients"]]
    st.caption(
        f"Integrated gradients with {steps} points: each row's attributions sum to the change "
        f"of its log-probability within {ig.delta:.3f} nats at worst (Captum's convergence "
        "delta); raise the points to close the gap."
    )
    agree = "Do attention and gradients agree? (Spearman's ρ over every cell)"
    with st.expander(agree):
        st.caption(
            "Rank correlation between each attention panel (rows) and each attribution "
            "(columns) over all (German token, English token) cells of this sentence, rows "
            "scaled to sum to 1: 1 = the same order, 0 = unrelated."
        )
        words.after(st, agree)
        tables.table(
            agreement(attention, gradients).round(3).reset_index(names="attention"),
            ctx.presentation,
        )


def _word_selector(where, trace) -> int:
    """The German token whose row is computed and drawn first."""
    rows = range(len(trace.steps))
    ATTR_WORD.seed(0, valid=lambda v: v in rows)
    return where.selectbox(
        "German token to explain first",
        list(rows),
        format_func=lambda t: f"{t + 1}: {trace.steps[t].token}",
        key=ATTR_WORD.name,
    )


WORKING = "Differentiating the translation for the chosen token"


def _attributions(ctx: state.ViewContext, steps: int, word: int, attention, gold) -> dict:
    """Every method's attributions of every German token, by label. Integrated gradients take
    most of the time (one backward pass a token and point): the chosen token's block of rows
    is computed first and its row drawn across every method at once, then the other blocks
    behind a progress bar (issue 45, item 5)."""
    rows = len(ctx.trace.steps)
    blocks = [tuple(range(s, min(s + ROWS_PER_CALL, rows))) for s in range(0, rows, ROWS_PER_CALL)]
    first = next(block for block in blocks if word in block)
    # A progress bar, not a spinner: Streamlit shows a spinner only after half a second, and a
    # new sentence's first view should say at once what it is working on (issue 45's bar).
    working = st.empty()
    working.progress(0.0, text=f"{WORKING}: saliency and input × gradient…")
    quick = {
        label: state.get_attributions(ctx.name, ctx.text, ctx.decoding, method, steps)
        for method, label in METHODS.items()
        if method != "integrated_gradients"
    }
    working.progress(0.5, text=f"{WORKING}: integrated gradients of its rows…")
    done = {first: state.get_attribution_rows(ctx.name, ctx.text, ctx.decoding, steps, first)}
    working.empty()
    of_word = [(label, a.scores[word]) for label, a in quick.items()]
    of_word.append((METHODS["integrated_gradients"], done[first].scores[first.index(word)]))
    of_word += [(label, matrix[word]) for label, matrix in attention]
    width = state.main_width_px(ctx.presentation)
    figure = word_figure(ctx.trace, word, of_word, gold, ctx.presentation, max_width=width)
    state.plot(figure, key="attr_word_figure")
    rest = [block for block in blocks if block != first]
    bar = st.empty()
    for n, block in enumerate(rest):
        bar.progress(
            n / len(rest),
            text=f"Integrated gradients for the other German tokens: {n} of {len(rest)} blocks",
        )
        done[block] = state.get_attribution_rows(ctx.name, ctx.text, ctx.decoding, steps, block)
    bar.empty()
    ig = stacked([done[block] for block in blocks])
    return {**quick, METHODS["integrated_gradients"]: ig}


SIMILARITY_INTRO = (
    "An encoder like MiniLM is used to compare texts: each becomes the mean of its last "
    "layer's vectors, and their cosine says how alike they are. Which tokens made these two "
    "alike or apart? By **gradients** of the cosine with respect to every token vector of both "
    "texts (integrated gradients move both from the padding token's vectors at once, so the "
    "signed values of both texts add up to the change of the cosine; hover for the sign: "
    "+ draws the texts together, − apart), and by **attention rollout** (the share of the "
    "pooled vector each token makes up through the layers). Rows sum to 1."
)
DEFAULT_SECOND = (
    "The animal didn't cross the street because it was too wide.",
    "The animal didn't cross the street because it was too tired.",
)


def _similarity(ctx: state.ViewContext, words: FirstUse) -> None:
    st.markdown(SIMILARITY_INTRO)
    words.after(st, SIMILARITY_INTRO)
    left, right = st.columns([3, 1])
    default = DEFAULT_SECOND[1] if ctx.text.strip() == DEFAULT_SECOND[0] else DEFAULT_SECOND[0]
    ATTR_TEXT_B.seed(default)
    text_b = left.text_input(
        "Second text (B)", key=ATTR_TEXT_B.name, max_chars=state.MAX_TEXT_CHARS
    )
    steps = _steps_slider(right)
    try:
        trace_b = state.get_trace(ctx.name, text_b)
    except InputError as err:
        st.warning(str(err))
        return
    with st.spinner("Differentiating the similarity…"):
        found = {
            label: state.get_similarity_attributions(ctx.name, ctx.text, text_b, method, steps)
            for method, label in METHODS.items()
        }
    ig = found[METHODS["integrated_gradients"]]
    st.markdown(f"cos(A, B) = **{ig.similarity:.3f}**")
    figures = []
    for side, (trace, name) in enumerate(((ctx.trace, "A"), (trace_b, "B"))):
        rows = [(label, a.signed[side] if label != METHODS["saliency"] else a.scores[side])
                for label, a in found.items()]  # fmt: skip
        rows.append(("attention rollout", encoder_importance(trace)))
        title = f"Text {name} · what made cos(A, B) = {ig.similarity:.3f}"
        figures.append(
            (similarity_figure(ig.tokens[side], rows, title, ctx.presentation), f"attr_sim_{name}")
        )
    state.plot_row(figures)
    st.caption(
        f"Integrated gradients with {steps} points: both texts' values sum to cos(A, B) − "
        f"cos(baseline) within {ig.delta:.4f} (Captum's convergence delta). Saliency has no "
        "sign: it is the gradient's length."
    )
