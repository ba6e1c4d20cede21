"""The Attention tab: who attends to whom, in five views of the same cached Trace.

Every choice (view, kind, layer, head, options) is a session key mirrored in the URL, and every
figure is drawn from `ctx.trace`, so changing them never runs the model again.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from runtime.loaded import held_out_best_head, supervised_head_note
from viz import export
from viz.attention import (
    MASKED_EXPLANATION,
    OVERVIEW_MAX_TOKENS,
    clicked_head,
    coreference_cells,
    heatmap,
    overview,
    pronoun_of_row,
    row_names,
    row_tokens,
)
from viz.breakdown import breakdown_figure, breakdown_table
from viz.decoding import alternatives_figure, gold_alignment, step_figure, step_title
from viz.find_head import MaskedKeyError, rank_heads, ranking_grid
from viz.links import MAX_LINES, MAX_TOKENS, MIN_WEIGHT, links_figure, select_links
from viz.style import fit_title

from . import controls, state, url
from .controls import HEAD_MEAN
from .glossary import FirstUse
from .text import escape_markdown
from .url import UrlKey, counted_list, parse_bool

FIGURE_SHARE = 0.8  # of the page's width: the figure's column, beside the explanation
# In presentation mode the column beside the figure holds the view and head selectors too: wide
# enough for "encoder-decoder (cross) attention" at the lecture screen's font (321 px).
PRESENTING_FIGURE_SHARE = 0.74


def figure_share(presentation: bool) -> float:
    return PRESENTING_FIGURE_SHARE if presentation else FIGURE_SHARE


ALL_TOKENS = "all"  # the token-links focus that shows every token's lines

VIEWS = {
    "heatmap": "Head heatmap",
    "overview": "Model overview",
    "find": "Find the head",
    "links": "Token links",
    "breakdown": "Query–key breakdown",
    "decoding": "Decoding step by step",
}

VIEW = UrlKey("view")
STRETCH = UrlKey("stretch", parse_bool)
HIDE_SPECIAL = UrlKey("hide_special", parse_bool)
SHOW_SYSTEM = UrlKey("show_system", parse_bool)
QUERY = UrlKey("query", int)  # a position, not a word: tokens repeat ("the … the")
KEY_TOKEN = UrlKey("key_token", int)
HEADS = counted_list("heads")
FOCUS = UrlKey("focus")
STEP = UrlKey("step", int)

EXPLANATIONS = {
    "heatmap": """**What am I looking at?** One attention head as a table of weights. Each row is
a *query* token, the position that is building its new representation; each column is a *key*
token it may read. A row sums to 1: it is the softmax in Eq. (1) of Section 3.2.1, saying how much
of each token's value vector the query mixes in. Dark = much, white = nothing. The colours run
from 0 to 1 for every head, so heads can be compared; *stretch* maps 0 to this head's largest
weight instead, to see faint patterns.""",
    "overview": """**What am I looking at?** Every head of every layer of one attention kind at
once (Section 3.2.2: h heads in each of the N layers, each with its own projections W^Q, W^K,
W^V). Each small square is one head's heatmap, queries down and keys across. Look for families:
heads that look at the previous token (a diagonal just off the middle), at the first or last
token (a dark column), or spread evenly (uniform grey-blue). Click a square to open that head.""",
    "find": """**What am I looking at?** One number from every head: the weight the chosen
*query* token gives the chosen *key* token, the entry (query, key) of each head's softmax in
Eq. (1) of Section 3.2.1, for all h heads of all N layers (Section 3.2.2). The grid shows it per
layer and head; the table ranks the heads, strongest first. *Place* says whether the key is
the query's strongest key in that head (1) or only its second, third… Click a cell or a row to
open that head.""",
    "links": """**What am I looking at?** The same weights as lines: queries on the left, keys
on the right, one line from a query to each key it reads, as opaque as its weight. Several
heads are drawn at once, one colour each, so you can see whether they agree. Choose a token to
see only the lines leaving it (as a query) or arriving at it (as a key). Section 3.2.1, Eq. (1).""",
    "breakdown": """**What am I looking at?** Eq. (1) of Section 3.2.1 computed on this model's
numbers, for one query token and one head. The query vector *q* (top) is compared with each
key vector *k* by a dot product q·k; the products are multiplied by the scale 1/√d_k (so large
d_k does not push the softmax into regions with tiny gradients) and the softmax turns them into
weights that sum to 1. These weights are exactly the row of the head heatmap.""",
    "decoding": """**What am I looking at?** The decoder writing the translation one token at a
time. At each step its encoder-decoder attention (Section 3.2.3) lets every head look at all
source tokens: each row is a head, each column a source word. On the right: the token the model
wrote and the other tokens it found probable (the softmax of Section 3.4). Red squares mark the
corpus's gold word alignment, the source words a careful translator links to this word.""",
}

# Presentation mode: the same explanations in one sentence each, in large type beside the figure.
SHORT_EXPLANATIONS = {
    "heatmap": """Each **row** is a token reading (the *query*), each **column** a token it
reads (a *key*). A row is a softmax (Eq. 1): it sums to 1. Dark = much.""",
    "overview": """Every head of every layer at once: one small heatmap each, queries down,
keys across. Look for diagonals and dark columns. Click a square to open it.""",
    "find": """The weight from one query token to one key token in **every head**, strongest
first. Click a cell or a row to open that head.""",
    "links": """Queries on the left, keys on the right: a line's darkness is the weight, one
colour per head.""",
    "breakdown": """Eq. (1) for one query: q·k for every key, × 1/√d_k, softmax: the bars on
the right are the row of the heatmap.""",
    "decoding": """The decoder writing one word: each row is a head, each column a source word
it may look at. Red squares: the gold alignment.""",
}

# The decoder's rows are easy to misread by one: row t reads the word before the one it writes.
DECODER_ROWS = """Decoder rows are named by the word the row *writes*, then in grey the word it
has just *read*: the decoder reads `<s>` and writes "Der", reads "Der" and writes "alte", … So in
the translation "Der alte Mann" a head that aligns has row "Der" dark on "the" and row "alte"
dark on "old"."""

# A language model's rows: the same one-off reading, over its prompt and what it wrote.
LANGUAGE_MODEL_ROWS = """Rows are named by the token the row *predicts*, then in grey the token
it has just *read*: each row sees only the tokens up to its own (the causal mask, Section 3.2.3),
so the triangle above the diagonal is empty. Over the prompt a row's name is the text's next
token; from the prompt's last token on, it is the token the model wrote. Many heads put most of
their weight on the first token, whatever it is: an *attention sink*, a head's way of attending
to nothing in particular."""


def grouped_query_note(config) -> str:
    """Which query heads share a key/value head (grouped-query attention), in words."""
    groups = [
        f"heads {g * config.group + 1}–{(g + 1) * config.group} read key/value head {g + 1}"
        for g in range(config.h_kv)
    ]
    return (
        f"Grouped-query attention: {config.h} query heads share {config.h_kv} key/value heads; "
        + ", ".join(groups)
        + ". Heads of one group score the same keys with their own queries, so their rows "
        "differ; what they mix is the same values."
    )


def available_views(kinds) -> list[str]:
    """Decoding steps exist only for a model with a decoder."""
    return [v for v in VIEWS if v != "decoding" or "cross" in kinds]


def render(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    kinds = list(trace.kinds)
    views = available_views(kinds)
    VIEW.seed("heatmap", valid=lambda v: v in views)
    # Kept in the URL for the views that do not draw them (the overview has no layer).
    first_kind, first_layer, first_head = controls.opening_head(ctx.loaded) or (kinds[0], 0, 0)
    controls.seed_kind(controls.KIND, kinds, first_kind)
    controls.seed_layer(controls.LAYER, trace.n_layers, first_layer)
    controls.seed_head(controls.HEAD, trace.n_heads, mean=True, default=first_head)
    STRETCH.seed(False)
    HIDE_SPECIAL.seed(False)
    if trace.system_length:  # a question to a chat model
        SHOW_SYSTEM.seed(False)
    if ctx.presentation:
        # The figure column starts at the top of the panel, every control in the column beside
        # it: a row of views and a row of selectors above it pushed a 12-word sentence's
        # heatmap off the lecture screen (issue 66, item 3).
        share = figure_share(True)
        figure_column, text_column = st.columns([share, 1 - share])
        view = text_column.selectbox("View", views, format_func=VIEWS.get, key=VIEW.name)
    else:
        view = st.radio(
            "View",
            views,
            format_func=VIEWS.get,
            horizontal=True,
            key=VIEW.name,
            label_visibility="collapsed",
        )
        figure_column, text_column = st.columns([FIGURE_SHARE, 1 - FIGURE_SHARE])
    with figure_column:
        if view == "heatmap":  # in presentation mode its selectors stand beside it, too
            _draw_heatmap(ctx, text_column.container() if ctx.presentation else None)
        else:
            _DRAW[view](ctx)
    with text_column:
        shown = (controls.KIND.current(), controls.LAYER.current(), controls.HEAD.current())
        why = controls.why_this_head(ctx.loaded, ctx.presentation)
        if why and view == "heatmap" and shown == controls.opening_head(ctx.loaded):
            st.markdown(why)  # issue 66, item 4: the head the translator opens on, and why
        st.markdown((SHORT_EXPLANATIONS if ctx.presentation else EXPLANATIONS)[view])
        if controls.KIND.current() != "encoder_self" and view in (
            "heatmap",
            "overview",
            "find",
            "links",
        ):
            st.markdown(LANGUAGE_MODEL_ROWS if trace.prompt_length else DECODER_ROWS)
        if trace.prompt_length:
            st.caption(grouped_query_note(ctx.loaded.model.config))
        if controls.KIND.current() == "cross" or view == "decoding":
            words = FirstUse()
            for note in (flat_cross_attention_note(ctx.loaded), supervised_head_note(ctx.loaded)):
                if note:
                    st.caption(note)
                    words.after(st, note)


def flat_cross_attention_note(loaded) -> str | None:
    """What a reader must know before looking for alignment in this model's cross-attention:
    where even its best head does not align over the held-out set, that it does not, and why."""
    best = held_out_best_head(loaded)
    if best is None or best.aer <= controls.FLAT_AER:
        return None
    return (
        f"This model's cross-attention does not align: every head is near uniform, the best "
        f"(layer {best.layer + 1}, head {best.head + 1}) scores AER {best.aer:.3f} against the "
        f"gold alignment over {best.sentences} held-out sentences, no better than "
        "even weights. Its post-norm encoder hands cross-attention nearly the same vector at "
        "every source position, so each German word is written from a summary of the sentence "
        '(docs/translator.md, "Why the first translator\'s cross-attention was blank").'
    )


def _stretch_control(ctx: state.ViewContext, where) -> bool:
    if ctx.presentation:  # a secondary control: kept as the URL set it, not shown
        return bool(STRETCH.current())
    return where.toggle(
        "Stretch colours",
        key=STRETCH.name,
        help="Colours from 0 to this figure's largest weight instead of 0 to 1, to see faint "
        "patterns.",
    )


def _chart(
    ctx: state.ViewContext,
    fig,
    key: str,
    top_tokens=(),
    line_chars: int = 70,
    top_room: int | None = None,
    **options,
) -> None:
    """Wrap the title to the figure's width (a heatmap has done so itself) above the room its
    top axis needs. `options` go to st.plotly_chart."""
    if not fig.layout.width:
        fit_title(fig, top_tokens, line_chars, top_room)
    state.plot(fig, key=key, **options)


def _downloads(ctx: state.ViewContext, file_name: str, kind: str, layers, heads) -> None:
    """The weights the view shows as CSV, made only when the button is pressed. The figure's
    own buttons (slide PNG/SVG, HTML) sit under it; the whole run is in the page's Download."""
    if ctx.presentation:
        return
    st.download_button(
        "Weights shown (CSV)",
        lambda: export.attention_csv(ctx.trace, kind, layers, heads),
        file_name=f"{file_name}.csv",
        mime="text/csv",
        on_click="ignore",
        key=f"csv_{file_name}",
        icon=":material/download:",
        type="tertiary",
        help="Columns: layer and head (from 1), query_index and key_index (positions, from "
        "0), query_token, key_token and weight.",
    )


def _hidden_tokens(ctx: state.ViewContext, kind: str, where) -> frozenset[str]:
    """The special tokens to leave out of the heatmap, when the user switches them off."""
    queries, keys = ctx.trace.axis_tokens(kind)
    specials = sorted(ctx.loaded.special_tokens & set(queries + keys))
    if not specials:
        return frozenset()
    hide = where.toggle(
        f"Hide {', '.join(specials)}",
        key=HIDE_SPECIAL.name,
        help="Leave these tokens out of the figure; the other weights of each row are "
        "renormalised to sum to 1 (the title says so).",
    )
    return frozenset(specials) if hide else frozenset()


def _fold_system(ctx: state.ViewContext, where) -> bool:
    """Whether to fold a chat prompt's system turn into one column (issue 66, item 5: ~20 rows
    of "You are a helpful AI assistant …" filled the top of every figure, the answer's rows at
    the bottom). Folded unless the reader shows it."""
    n = ctx.trace.system_length
    if not n:
        return False
    show = where.toggle(
        f"Show the system prompt ({n} tokens)",
        key=SHOW_SYSTEM.name,
        help="The chat template's system line and its markers. Folded, they are one column "
        "holding the weight each row puts on all of them together, and their rows are left out.",
    )
    return not show


def _draw_heatmap(ctx: state.ViewContext, controls_in=None) -> None:
    """One head's heatmap; its selectors in a row above it, or stacked in `controls_in`."""
    kind, layer, head = controls.head_row(
        ctx.trace,
        head_choice="one_or_mean",
        opening=controls.opening_head(ctx.loaded),
        stacked_in=controls_in,
    )
    # The figure first, its toggles in one row under it (read before it is drawn): above it they
    # pushed the opening heatmap's last rows off a laptop's first screen.
    figure_slot = st.container()
    toggles = st.container(horizontal=True, wrap=True, gap="medium")
    stretch = _stretch_control(ctx, toggles)
    hidden = _hidden_tokens(ctx, kind, toggles)
    fold = _fold_system(ctx, toggles)
    one_head = None if head == HEAD_MEAN else head
    reference = state.get_reference(ctx.name, ctx.text)
    marks = coreference_cells(ctx.trace, kind, reference)
    column = round(state.main_width_px(ctx.presentation) * figure_share(ctx.presentation))
    fig = heatmap(
        ctx.trace,
        kind,
        layer,
        one_head,
        None,
        stretch,
        ctx.presentation,
        hidden,
        marks,
        max_width=column,
        drawn_width=column,  # the figure is drawn across its column
        fold_system=fold,
    )
    name = f"{ctx.name}-{kind}-layer{layer + 1}-" + (
        "mean" if one_head is None else f"head{head + 1}"
    )
    with figure_slot:
        _chart(ctx, fig, "attention_heatmap", top_tokens=ctx.trace.axis_tokens(kind)[1])
    if kind == "decoder_self":
        st.caption(MASKED_EXPLANATION)
    if marks:
        _coreference_note(ctx, kind, reference, marks)
    heads = range(ctx.trace.n_heads) if one_head is None else [one_head]
    _downloads(ctx, name, kind, [layer], heads)


def _focus_row(kind: str, row: int) -> None:
    url.switch(view="links", kind=kind, focus=f"q{row}")


def _coreference_note(ctx: state.ViewContext, kind: str, reference, marks) -> None:
    """Say what the red squares are, and offer the pronoun's row in the token-links view."""
    keys = ctx.trace.axis_tokens(kind)[1]
    row = marks[0][0]
    pronoun = pronoun_of_row(ctx.trace, kind, row)
    antecedent = " ".join(keys[k] for q, k in marks if q == row)
    where = "" if kind == "encoder_self" else " (in the row that writes it)"
    st.caption(
        f"Red squares: the words the pronoun “{escape_markdown(pronoun)}” stands for "
        f"(“{escape_markdown(antecedent)}”){where}, as the grammar that wrote the training data "
        "knows it. A head that resolves the pronoun puts its weight there."
    )
    st.button(
        f"Focus the row of “{pronoun}” (token links)",
        on_click=_focus_row,
        args=(kind, row),
        key="focus_pronoun",
    )


def _open_head(kind: str, layer: int, head: int) -> None:
    """Show one head in the Head heatmap view (a callback: the rerun that follows draws it)."""
    url.switch(view="heatmap", kind=kind, layer=layer, head=head)


def _open_clicked(chart_key: str, kind: str) -> None:
    """The chart's click callback: open the head of the clicked cell (`viz.attention.click_layer`)."""
    head = clicked_head(st.session_state[chart_key].selection.points)
    if head is not None:
        _open_head(kind, *head)


def _open_chosen_row(table_key: str, kind: str, ranking) -> None:
    """The ranking table's selection callback: open the head of the chosen row."""
    rows = st.session_state[table_key].selection.rows
    if rows:
        chosen = ranking.iloc[rows[0]]
        _open_head(kind, int(chosen["layer"]) - 1, int(chosen["head"]) - 1)


def _csv_layers(ctx: state.ViewContext, kind: str):
    """The layers a download of every head holds: all, unless the CSV would be too large."""
    if ctx.trace.attention[kind].size > export.TRACE_JSON_MAX_WEIGHTS:
        return [controls.LAYER.current()]  # the current layer
    return range(ctx.trace.n_layers)


def _draw_overview(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    # Every layer is drawn: a layer slider here would choose nothing, so there is none.
    kind, _, _ = controls.head_row(
        ctx.trace, head_choice="none", layer_choice=False, opening=controls.opening_head(ctx.loaded)
    )
    stretch = _stretch_control(ctx, st)
    fig = overview(trace, kind, stretch, ctx.presentation)
    name = f"{ctx.name}-{kind}-all-heads"
    # The "head 1" … ticks run along the top, under the title: fit_title leaves room for them.
    _chart(
        ctx,
        fig,
        "attention_overview",
        top_tokens=fig.layout.xaxis.ticktext,
        on_select=partial(_open_clicked, "attention_overview", kind),
        selection_mode="points",
    )
    queries, keys = trace.axis_tokens(kind)
    if max(len(queries), len(keys)) > OVERVIEW_MAX_TOKENS:
        st.caption(
            f"Only the first {OVERVIEW_MAX_TOKENS} tokens are drawn here, so the figure stays "
            "readable and small; the head heatmap shows every token."
        )
    if kind == "decoder_self":
        st.caption(MASKED_EXPLANATION)
    _downloads(ctx, name, kind, _csv_layers(ctx, kind), range(trace.n_heads))


def _draw_find(ctx: state.ViewContext) -> None:
    """Every head ranked by the weight from one query token to one key token."""
    trace = ctx.trace
    kind, _, _ = controls.head_row(
        ctx.trace, head_choice="none", layer_choice=False, opening=controls.opening_head(ctx.loaded)
    )
    queries, keys = trace.axis_tokens(kind)
    names = row_names(trace, kind)
    QUERY.seed(0, valid=lambda q: 0 <= q < len(queries))
    KEY_TOKEN.seed(0, valid=lambda k: 0 <= k < len(keys))
    columns = st.columns(2)
    query = columns[0].selectbox(
        "Query token (the row that reads)",
        range(len(queries)),
        format_func=lambda i: f"{i + 1}: {names[i]}",
        key=QUERY.name,
    )
    key = columns[1].selectbox(
        "Key token (the token read)",
        range(len(keys)),
        format_func=lambda j: f"{j + 1}: '{keys[j]}'",
        key=KEY_TOKEN.name,
    )
    try:
        ranking = rank_heads(trace.attention[kind], kind, query, key)
    except MaskedKeyError as err:
        st.info(str(err))
        return
    fig = ranking_grid(ranking, kind, row_tokens(trace, kind)[query], keys[key], ctx.presentation)
    name = f"{ctx.name}-{kind}-query{query + 1}-key{key + 1}-every-head"
    _chart(
        ctx,
        fig,
        "find_head_grid",
        on_select=partial(_open_clicked, "find_head_grid", kind),
        selection_mode="points",
    )
    st.dataframe(
        ranking,
        hide_index=True,
        width="stretch",
        height=240 if ctx.presentation else 320,
        column_config={
            "rank": st.column_config.NumberColumn("rank", format="%d"),
            "layer": st.column_config.NumberColumn("layer", format="%d"),
            "head": st.column_config.NumberColumn("head", format="%d"),
            "weight": st.column_config.ProgressColumn(
                "weight", format="%.4f", min_value=0.0, max_value=1.0
            ),
            "place": st.column_config.NumberColumn(
                "key's place in the row",
                help="1 = the key is the query's strongest key in this head; 2 = its second…",
                format="%d",
            ),
        },
        on_select=partial(_open_chosen_row, "find_head_table", kind, ranking),
        selection_mode="single-row",
        key="find_head_table",
    )
    st.caption("Click a cell of the grid or a row of the table to open that head.")
    _downloads(ctx, name, kind, _csv_layers(ctx, kind), range(trace.n_heads))


def _focus_options(trace, kind: str) -> list[str]:
    queries, keys = trace.axis_tokens(kind)
    return (
        [ALL_TOKENS]
        + [f"q{i}" for i in range(min(len(queries), MAX_TOKENS))]
        + [f"k{j}" for j in range(min(len(keys), MAX_TOKENS))]
    )


def _draw_links(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    kind, layer, _ = controls.head_row(
        ctx.trace, head_choice="none", opening=controls.opening_head(ctx.loaded)
    )
    all_heads = list(range(trace.n_heads))
    HEADS.seed(all_heads, valid=lambda hs: all(0 <= h < trace.n_heads for h in hs))
    focus_options = _focus_options(trace, kind)
    FOCUS.seed(ALL_TOKENS, valid=lambda f: f in focus_options)
    queries, keys = trace.axis_tokens(kind)
    columns = st.columns([3, 2])
    heads = columns[0].multiselect(
        "Heads (one colour each)",
        all_heads,
        format_func=lambda h: f"head {h + 1}",
        key=HEADS.name,
    )
    focus_key = columns[1].selectbox(
        "Token",
        focus_options,
        format_func=lambda f: (
            "all tokens"
            if f == ALL_TOKENS
            else (
                f"query {int(f[1:]) + 1}: {queries[int(f[1:])]}"
                if f[0] == "q"
                else f"key {int(f[1:]) + 1}: {keys[int(f[1:])]}"
            )
        ),
        key=FOCUS.name,
    )
    focus = (
        None
        if focus_key == ALL_TOKENS
        else ("query" if focus_key[0] == "q" else "key", int(focus_key[1:]))
    )
    selection = select_links(trace, kind, layer, sorted(heads), focus)
    fig = links_figure(trace, kind, layer, sorted(heads), focus, ctx.presentation, selection)
    name = f"{ctx.name}-{kind}-layer{layer + 1}-links"
    # The column headers "query" and "key" stand above the plot: a line and a half of room.
    _chart(ctx, fig, "attention_links", top_room=round(2.6 * fig.layout.font.size))
    bounds = [f"lines under {MIN_WEIGHT} are left out ({selection.dropped_light:,} of them)"]
    if selection.dropped_over_cap:
        bounds.append(
            f"only the {MAX_LINES} heaviest are drawn ({selection.dropped_over_cap:,} more hidden)"
        )
    if max(len(queries), len(keys)) > MAX_TOKENS:
        bounds.append(f"only the first {MAX_TOKENS} tokens are shown")
    st.caption("To keep the figure readable: " + "; ".join(bounds) + ".")
    _downloads(ctx, name, kind, [layer], sorted(heads))


def _draw_breakdown(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    kind, layer, head = controls.head_row(
        ctx.trace, head_choice="one", opening=controls.opening_head(ctx.loaded)
    )
    queries, _ = trace.axis_tokens(kind)
    QUERY.seed(0, valid=lambda q: 0 <= q < len(queries))
    query = st.selectbox(
        "Query token",
        range(len(queries)),
        format_func=lambda i: f"{i + 1}: {queries[i]}",
        key=QUERY.name,
    )
    fig = breakdown_figure(trace, kind, layer, head, query, ctx.presentation)
    name = f"{ctx.name}-{kind}-layer{layer + 1}-head{head + 1}-query{query + 1}"
    # The panel titles ("query vector q", …) stand above the plot: a line of room for them.
    _chart(ctx, fig, "attention_breakdown", top_room=round(1.6 * fig.layout.font.size))
    if kind == "decoder_self":
        st.caption("Later keys are masked (Section 3.2.3): they get no logit and weight 0.")
    if not ctx.presentation:
        st.dataframe(
            breakdown_table(trace, kind, layer, head, query),
            hide_index=True,
            width="stretch",
            column_config={
                "q·k": st.column_config.NumberColumn(format="%.4f"),
                "scaled logit": st.column_config.NumberColumn(format="%.4f"),
                "softmax": st.column_config.NumberColumn(format="%.4f"),
            },
        )
    _downloads(ctx, name, kind, [layer], [head])


def _draw_decoding(ctx: state.ViewContext) -> None:
    trace = ctx.trace
    _, layer, _ = controls.head_row(
        ctx.trace, ["cross"], head_choice="none", opening=controls.opening_head(ctx.loaded)
    )
    steps = trace.steps
    STEP.seed(0, valid=lambda s: 0 <= s < len(steps))
    step = st.select_slider(
        "Output step",
        options=list(range(len(steps))),
        format_func=lambda t: f"{t + 1}: {steps[t].token}",
        key=STEP.name,
    )
    gold = gold_alignment(trace, state.get_reference(ctx.name, ctx.text))
    name = f"{ctx.name}-cross-layer{layer + 1}-step{step + 1}"
    # One under the other: side by side, both were too narrow for their labels on a laptop.
    st.markdown("**" + step_title(trace, step, escape_markdown) + "**")
    fig = step_figure(trace, layer, step, gold, ctx.presentation)
    _chart(ctx, fig, "decoding_attention")
    top = alternatives_figure(trace, step, ctx.presentation)
    _chart(ctx, top, "decoding_top")
    if gold is None:
        st.caption("No gold alignment: the corpus grammar does not cover this English sentence.")
    elif gold.exact:
        st.caption("Red squares: the corpus's gold alignment (the model wrote the reference).")
    else:
        st.caption(
            "The gold alignment belongs to the reference translation "
            f"“{escape_markdown(' '.join(gold.reference))}”, which the model did not write "
            "exactly; red squares mark it for generated words that also occur in the reference."
        )
    _downloads(ctx, name, "cross", [layer], range(trace.n_heads))


_DRAW = {
    "heatmap": _draw_heatmap,
    "overview": _draw_overview,
    "find": _draw_find,
    "links": _draw_links,
    "breakdown": _draw_breakdown,
    "decoding": _draw_decoding,
}
