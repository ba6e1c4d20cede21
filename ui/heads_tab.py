"""The Heads & rollout tab: a sortable table of what every head does, and attention rollout."""

from __future__ import annotations

import streamlit as st

from runtime import lm_heads
from viz.attention import heatmap
from viz.metrics import head_grid
from viz.rollout import rollout_figure
from viz.stats import STATISTIC_BY_COLUMN, STATISTICS, head_statistics, statistic_grid

from . import controls, state
from .glossary import FirstUse
from .url import UrlKey, counted

STATS_KIND = UrlKey("stats_kind")
# The chosen row of the statistics table, as its layer and head (from 0; from 1 in the URL).
STATS_LAYER = counted("stats_layer")
STATS_HEAD = counted("stats_head")
STAT = UrlKey("stat")
ROLLOUT_LAYER = counted("rollout_layer")

STATISTICS_HELP = (
    "Every number is a mean over the head's query rows. **Entropy** measures how spread out a "
    "row is (in nats; normalised: divided by ln of the number of keys the row may see, so "
    "0 = all weight on one key, 1 = uniform; the decoder's row t sees t + 1 keys, and its first "
    "row, with one key only, has no choice to measure). **Mean distance** is the expected "
    "|query position − key position| in tokens. **Shares** are the weight a row puts on the "
    "token itself, on the previous and the next token, on special tokens (`[CLS]`, `[SEP]`, "
    "`<s>`, `</s>`, `<unk>`) and on punctuation. Distance and the self, previous and next "
    "shares compare positions of one sequence, so cross attention (target queries, source keys) has none. Choose a row to open "
    "that head; click a column header to sort."
)
CHOSEN_HEAD_HELP = "Choose a row to open another head; the link to this page keeps the choice."

ROLLOUT_HELP = (
    "After the first layer a position no longer holds one token: it holds a mixture made by the "
    "layers before. The raw attention of layer ℓ (right) therefore says which *mixtures* are "
    "read, not which words. **Attention rollout** (Abnar & Zuidema, 2020, *Quantifying Attention "
    "Flow in Transformers*, ACL) follows the mixing back to the input tokens. Each layer's "
    "attention, averaged over heads, gets the residual connection added as an identity, "
    "`Ã = 0.5·A + 0.5·I` (rows renormalised), and the layers are multiplied: "
    "`rollout = Ã_ℓ ··· Ã_1`. Row i is how much position i after layer ℓ draws on each input "
    "token; every row sums to 1. It is an approximation: it ignores the feed-forward layers and "
    "the values' sizes."
)


def _statistics_section(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    kinds = list(trace.kinds)
    kind = controls.kind_selector(st, STATS_KIND, kinds)
    # Positional statistics are undefined for cross attention: not offered there.
    offered = [s.column for s in STATISTICS if not (s.positional and kind == "cross")]
    table = head_statistics(trace, ctx.loaded.special_tokens)
    rows = table[table["kind"] == kind][["layer", "head", *offered]].reset_index(drop=True)
    column_config = {
        column: st.column_config.NumberColumn(
            STATISTIC_BY_COLUMN[column].short,
            help=STATISTIC_BY_COLUMN[column].tooltip,
            format="%.3f",
        )
        for column in offered
    }
    # The chosen head is kept as its layer and head (as `layer` and `head` are),
    # so the same head stays chosen when the kind changes, and a reload restores it.
    controls.seed_layer(STATS_LAYER, trace.n_layers)
    controls.seed_head(STATS_HEAD, trace.n_heads)
    row = _row_of(rows, STATS_LAYER.current(), STATS_HEAD.current())
    event = st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        height=320,
        column_config=column_config,
        on_select="rerun",
        selection_mode="single-row-required",
        selection_default={"selection": {"rows": [row]}},
        key=f"heads_table_{kind}",  # one per kind: each kind's table has its own selection
    )
    if event.selection.rows:  # rows are positions in `rows`, whatever the table's sort order
        row = event.selection.rows[0]
    layer, head = int(rows["layer"].iloc[row]) - 1, int(rows["head"].iloc[row]) - 1
    st.session_state[STATS_LAYER.name], st.session_state[STATS_HEAD.name] = layer, head
    st.caption(f"The chosen row: layer {layer + 1}, head {head + 1}. {CHOSEN_HEAD_HELP}")
    column = controls.statistic_selector(st, STAT, offered, lambda c: STATISTIC_BY_COLUMN[c].label)
    n_keys = len(trace.axis_tokens(kind)[1])
    state.plot_row(
        [
            (
                heatmap(
                    trace,
                    kind,
                    layer,
                    head,
                    presentation=ctx.presentation,
                    max_width=state.main_width_px(ctx.presentation),
                ),
                "heads_selected_heatmap",
            ),
            (statistic_grid(table, kind, column, n_keys, ctx.presentation), "heads_statistic_grid"),
        ]
    )
    st.caption("Colour scale: " + STATISTIC_BY_COLUMN[column].explanation + ".")


def _row_of(rows, layer: int, head: int) -> int:
    """The position in the statistics table of the row of (0-based) `layer`, `head`."""
    match = (rows["layer"] == layer + 1) & (rows["head"] == head + 1)
    return int(match.to_numpy().argmax())


def _rollout_section(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    layer = controls.layer_selector(
        st, ROLLOUT_LAYER, trace.n_layers, "Rollout through layer", default=trace.n_layers - 1
    )
    # side by side where they fit, else one under the other; a text too long for the page
    # has its labels thinned (the hover names every cell)
    page_width = state.main_width_px(ctx.presentation)
    state.plot_row(
        [
            (rollout_figure(trace, layer, ctx.presentation, page_width), "rollout_heatmap"),
            (
                heatmap(
                    trace,
                    trace.kinds[0],
                    layer,
                    None,
                    presentation=ctx.presentation,
                    max_width=page_width,
                ),
                "rollout_raw_heatmap",
            ),
        ]
    )


LANGUAGE_MODEL_HELP = (
    "Three kinds of head that language models are known for, measured here. An **attention "
    "sink** puts its weight on the first token whatever it is, a place to park attention when "
    "there is nothing to read (Xiao et al., 2023): score = mean weight on token 1. A "
    "**previous-token head** reads the token just before: score = mean weight on it. An "
    "**induction head** finds the earlier occurrence of the current token and reads the token "
    "that *followed* it, so the model can copy what came next (Olsson et al., 2022): the standard "
    "test repeats a sequence of random tokens, and the score is the mean weight from each token "
    "of the second copy to the token after its first occurrence. The first two are measured on "
    "this text, the third on the test's random tokens; every scale runs from 0 to 1."
)


def _language_model_section(ctx: state.ViewContext, words: FirstUse) -> None:
    trace = ctx.trace
    weights = trace.attention[trace.kinds[0]]
    study = state.get_induction_ablation(ctx.name)
    grids = [
        (lm_heads.sink_scores(weights), "attention sink", "weight on token 1", "lm_sinks"),
        (
            lm_heads.previous_token_scores(weights),
            "previous-token heads",
            "weight on the token before",
            "lm_previous",
        ),
        (
            study.intact.scores,
            "induction heads (repeated random tokens)",
            "induction score",
            "lm_induction",
        ),
    ]
    state.plot_row(
        [
            (head_grid(scores.tolist(), title, bar, ctx.presentation), key)
            for scores, title, bar, key in grids
        ]
    )
    for scores, title, _, _ in grids:
        st.markdown(f"**Strongest {title}:** " + lm_heads.named(lm_heads.strongest(scores, 3)))
    test, k = study.intact, len(study.strongest)
    induction = (
        f"**The induction test, ablated.** Over {test.sequences} sequences of {test.period} "
        f"random tokens shown twice, the model's loss is {test.loss_first:.2f} nats a token on "
        f"the first copy (it cannot guess random tokens) and {test.loss_second:.2f} on the "
        f"second (it copies). With the {k} strongest induction heads ablated (set to zero "
        f"before W^O) the second copy's loss rises to **{study.ablated.loss_second:.2f}**; "
        f"ablating {k} heads that score under 0.1 instead ("
        + ", ".join(f"L{a + 1} H{b + 1}" for a, b in study.control_heads)
        + f") gives {study.control.loss_second:.2f}. Ablate any head yourself in the "
        "Ablation tab."
    )
    st.markdown(induction)
    words.after(st, induction)


def render(ctx: state.ViewContext) -> None:
    words = FirstUse()
    if ctx.trace.prompt_length:
        st.subheader("Sinks, previous-token heads and induction heads")
        st.markdown(LANGUAGE_MODEL_HELP)
        words.after(st, LANGUAGE_MODEL_HELP)
        _language_model_section(ctx, words)
    st.subheader("What each head does")
    st.markdown(STATISTICS_HELP)
    words.after(st, STATISTICS_HELP)
    _statistics_section(ctx)
    stack = "encoder" if ctx.trace.kinds[0] == "encoder_self" else "decoder"
    st.subheader(f"Attention rollout through the {stack}")
    st.markdown(ROLLOUT_HELP)
    words.after(st, ROLLOUT_HELP)
    _rollout_section(ctx)
