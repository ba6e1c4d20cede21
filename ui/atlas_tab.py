"""The Head atlas tab: what every head does over a whole corpus (the built-in sentences or lines
the user pastes), after AttentionViz's joint picture of queries and keys, live on any model."""

from __future__ import annotations

import streamlit as st

from runtime.atlas import (
    LIMITS,
    MAX_LINE_CHARS,
    MAX_SENTENCES,
    PROJECTIONS,
    TSNE_MAX_POINTS,
    built_in_corpus,
    corpus_lines,
    point_origin,
)
from runtime.trace import InputError
from viz.atlas import (
    COLOUR_BY,
    GOLD_STATISTICS,
    MATRIX_POINTS,
    ROLE_HELP,
    head_scatter,
    matrix_figure,
    named_token_counts,
)
from viz.stats import STATISTICS, statistic_grid

from . import controls, state, url
from .paper_tab import ATTENTION_TAB
from .url import UrlKey, counted

TAB_LABEL = "Head atlas"
ATLAS_CORPUS = UrlKey("atlas_corpus")
ATLAS_VIEW = UrlKey("atlas_view")
ATLAS_KIND = UrlKey("atlas_kind")
ATLAS_LAYER = counted("atlas_layer")
ATLAS_HEAD = counted("atlas_head")
ATLAS_STAT = UrlKey("atlas_stat")
ATLAS_COLOUR = UrlKey("atlas_colour")
ATLAS_PROJECTION = UrlKey("atlas_projection")
ATLAS_TOKEN = UrlKey("atlas_token")
GOLD_COLUMNS = {s.column for s in GOLD_STATISTICS}
PASTED_KEY = "atlas_pasted"
SCATTER_KEY = "atlas_head_scatter"  # a pasted corpus is too long for a link: not in the URL

CORPORA = {"built-in": "Built-in sentences", "pasted": "Paste your own"}
VIEWS = {
    "roles": "Head roles over the corpus",
    "head": "One head: queries and keys",
    "matrix": "Every head side by side",
}
INTRO = (
    "Every other tab shows one sentence. Here a whole corpus runs through the model, and each "
    "head is summed up over all of it: is a head *always* on the previous word, or only in "
    "one sentence?"
)
BUILT_IN_NOTES = {
    True: "held-out sentences of the model's own corpus (never seen in training); the decoder "
    "reads each reference translation, so cross-attention rows line up with the gold alignment",
    False: "English sentences written for this project and checked by hand: questions, "
    "negation, relative clauses, pronouns, numbers, names, short and long sentences",
}
PICTURE_HELP = (
    "Each point is one token of the corpus, once as a **query** (circle) and once as a **key** "
    "(diamond), in this head's own vector space (d_k dimensions) flattened to 2-D by PCA. "
    "Before the projection, as AttentionViz (Yeh et al., 2023) does, the keys are moved so that "
    "their mean is the queries' mean and the two are scaled by c and 1/c to one mean length: "
    "neither changes any attention weight (a shift adds the same number to every score of a "
    "softmax row; c·q · k/c = q·k). So a query lies near the keys it attends to most. Hover a "
    "point for its token in its sentence."
)
PROJECTION_HELP = {
    "pca": "PCA: the two directions along which the points vary most; instant, and distances "
    "mean what they say.",
    "tsne": f"t-SNE (openTSNE): keeps each point's nearest neighbours near it, so groups show "
    f"more clearly than in PCA; the axes, the size of a group and the distances between groups "
    f"mean nothing. A few seconds the first time; at most {TSNE_MAX_POINTS:,} queries and keys "
    f"(whole sentences from the corpus's start).",
}


def _corpus(ctx: state.ViewContext) -> tuple[str, ...] | None:
    source = controls.url_radio(st, "Corpus", ATLAS_CORPUS, CORPORA, "built-in")
    if source == "built-in":
        lines = built_in_corpus(ctx.loaded)
        st.caption(
            f"{len(lines)} {BUILT_IN_NOTES[ctx.loaded.held_out is not None]}. "
            "The link to this page keeps the corpus."
        )
        return lines
    text = st.text_area(
        "Sentences, one per line",
        key=PASTED_KEY,
        height=180,
        max_chars=MAX_SENTENCES * (MAX_LINE_CHARS + 1),
        placeholder="The cat sat on the mat.\nWhere did the dog go?",
        help=f"Limits: {LIMITS}. A pasted corpus is not kept in the link to this page.",
    )
    if not text.strip():
        st.info(f"Paste sentences to see what every head does over them ({LIMITS}).")
        return None
    try:
        return corpus_lines(text)
    except InputError as err:
        st.error(str(err))
        return None


def _kind(corpus) -> str:
    """The attention kind to show: chosen where the model has more than one."""
    if len(corpus.kinds) == 1:
        return corpus.kinds[0]
    return controls.kind_selector(st, ATLAS_KIND, list(corpus.kinds))


def _roles(ctx: state.ViewContext, corpus, lines: tuple[str, ...]) -> None:
    kind = _kind(corpus)
    table = state.get_corpus_statistics(ctx.name, lines, corpus)
    gold = [s for s in GOLD_STATISTICS if table[table["kind"] == kind][s.column].notna().any()]
    described = {s.column: s for s in (*STATISTICS, *gold)}
    offered = [s.column for s in (*STATISTICS, *gold) if not (s.positional and kind == "cross")]
    rows = table[table["kind"] == kind][["layer", "head", "role", *offered]]
    rows = rows.reset_index(drop=True)
    st.markdown(ROLE_HELP)
    controls.seed_layer(ATLAS_LAYER, corpus.n_layers)
    controls.seed_head(ATLAS_HEAD, corpus.n_heads)
    table_key = f"atlas_table_{kind}"

    def open_head() -> None:
        """A click on a row opens that head's picture (a callback: before the page is drawn)."""
        chosen = st.session_state[table_key].selection.rows
        if chosen:
            row = rows.iloc[chosen[0]]
            st.session_state[ATLAS_LAYER.name] = int(row["layer"]) - 1
            st.session_state[ATLAS_HEAD.name] = int(row["head"]) - 1
            st.session_state[ATLAS_VIEW.name] = "head"

    st.caption(f"Click a row to open that head in **{VIEWS['head']}**; a column header sorts.")
    st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        height=320,
        column_config={
            "role": st.column_config.TextColumn("role", help=ROLE_HELP),
            **{
                column: st.column_config.NumberColumn(
                    described[column].short, help=described[column].tooltip, format="%.3f"
                )
                for column in offered
            },
        },
        on_select=open_head,
        selection_mode="single-row",
        key=table_key,
    )
    st.download_button(
        "Statistics of every head (CSV)",
        table.to_csv(index=False),
        file_name=f"head-atlas-{ctx.name}.csv",
        mime="text/csv",
        on_click="ignore",
    )
    column = controls.statistic_selector(st, ATLAS_STAT, offered, lambda c: described[c].label)
    longest = max(len(s.tokens[kind][1]) for s in corpus.sentences)
    figure = statistic_grid(
        table, kind, column, longest, ctx.presentation, statistic=described[column]
    )
    state.plot(figure, key="atlas_statistic_grid")
    over = (
        f"over the {sum(s.reference is not None for s in corpus.sentences)} sentences whose "
        "gold links the corpus knows"
        if column in GOLD_COLUMNS
        else f"a mean over every query row of the {len(corpus.sentences)} sentences"
    )
    st.caption(f"Colour scale: {described[column].explanation}; {over}.")


def _colour_by(options: tuple[str, ...] = tuple(COLOUR_BY)) -> str:
    offered = {option: COLOUR_BY[option] for option in options}
    return controls.url_radio(st, "Colour by", ATLAS_COLOUR, offered, "role")


def _head(ctx: state.ViewContext, corpus, lines: tuple[str, ...]) -> None:
    kind, layer, head = controls.head_row(
        corpus, keys=(ATLAS_KIND, ATLAS_LAYER, ATLAS_HEAD), head_choice="one"
    )
    method = controls.url_radio(st, "Projection", ATLAS_PROJECTION, PROJECTIONS, "pca")
    colour_by = _colour_by()
    named = ""
    if colour_by == "token":
        ATLAS_TOKEN.seed("it" if kind != "cross" else "es", valid=lambda v: len(v) <= 50)
        named = st.text_input(
            "Token to show in colour (case aside; a word piece without its ##)",
            key=ATLAS_TOKEN.name,
            max_chars=50,
        )
    st.markdown(PICTURE_HELP + " " + PROJECTION_HELP[method])
    mapped = state.get_head_map(ctx.name, lines, corpus, (kind, layer, head), method)
    if colour_by == "token":
        queries, keys = named_token_counts(mapped, corpus, kind, named)
        if not named.strip():
            st.info("Type a token above to see where its queries and keys lie.")
        elif queries + keys == 0:
            st.warning("No drawn query or key is this token; every point is grey.")
        else:
            st.caption(f"In colour: {queries:,} queries and {keys:,} keys of this token.")
    figure = head_scatter(corpus, kind, layer, head, colour_by, ctx.presentation, mapped, named)
    state.plot(
        figure,
        key=SCATTER_KEY,
        on_select=lambda: _open_sentence(corpus, kind, layer, head),
        selection_mode="points",
    )
    st.caption("Click a point to open its sentence on this head in the Attention tab.")


def _open_sentence(corpus, kind: str, layer: int, head: int) -> None:
    """A click on a point of the head's picture: its sentence becomes the page's text, shown on
    this head in the Attention tab's heatmap (a callback: it runs before the page is drawn).
    Trace 0 of the picture holds the queries and trace 1 the keys, each in corpus order; traces
    2 and 3 a named token's queries and keys, each point's place in trace 0 or 1 its customdata."""
    event = st.session_state.get(SCATTER_KEY)
    points = event.selection.points if event is not None else []
    if not points:
        return
    curve, index = points[0].get("curve_number"), points[0].get("point_index")
    if curve in (2, 3):
        index = points[0].get("customdata")
        index = index[0] if isinstance(index, list) and index else index
    if curve not in (0, 1, 2, 3) or not isinstance(index, int):
        return
    side = curve % 2
    origin = point_origin(corpus, kind, side, index)
    if origin is None:
        return
    sentence_index = origin[0]
    url.switch(
        text=corpus.sentences[sentence_index].text,
        tab=ATTENTION_TAB,
        view="heatmap",
        kind=kind,
        layer=layer,
        head=head,
    )


def _matrix(ctx: state.ViewContext, corpus) -> None:
    kind = _kind(corpus)
    st.markdown(
        f"Each small picture is one head (rows: layers, columns: heads), drawn as in "
        f"**{VIEWS['head']}**, with the same {MATRIX_POINTS} queries and {MATRIX_POINTS} keys "
        "of the corpus in every head. Heads that look alike work alike: coloured by position, "
        "rings and curves ordered by position are positional heads; keys gathered in one spot "
        "are a sink (a special token or punctuation that takes the weight when there is "
        "nothing to attend to). A point's hover names its token, sentence and position; "
        f"**{VIEWS['head']}** shows the words around it."
    )
    colour_by = _colour_by(("role", "position"))
    figure = matrix_figure(
        corpus, kind, ctx.presentation, colour_by, state.main_width_px(ctx.presentation)
    )
    state.plot(figure, key="atlas_matrix")


def render(ctx: state.ViewContext) -> None:
    st.markdown(INTRO)
    lines = _corpus(ctx)
    if lines is None:
        return
    try:
        corpus = state.get_corpus_run(ctx.name, lines)
    except InputError as err:
        st.error(str(err))
        return
    tokens = sum(len(s.tokens[corpus.kinds[0]][1]) for s in corpus.sentences)
    forced = sum(s.reference is not None for s in corpus.sentences)
    own = len(corpus.sentences) - forced
    decoder = ""
    if "cross" in corpus.kinds:
        decoder = "; the decoder read " + " and ".join(
            part
            for count, part in (
                (forced, f"the reference translation of {forced}"),
                (own, f"its own greedy translation of {own}"),
            )
            if count
        )
    if ctx.loaded.model.config.is_encoder_decoder and "cross" not in corpus.kinds:
        decoder = (
            "; the encoder's heads alone: this model has no corpus of its own, so no "
            "translation for its decoder to read (its own would be noise)"
        )
    st.caption(f"{len(corpus.sentences)} sentences, {tokens:,} tokens{decoder}.")
    view = controls.url_radio(st, "View", ATLAS_VIEW, VIEWS, "roles")
    if view == "roles":
        _roles(ctx, corpus, lines)
    elif view == "head":
        _head(ctx, corpus, lines)
    else:
        _matrix(ctx, corpus)
