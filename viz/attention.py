"""Attention figures: one head as a heatmap, and every layer and head of one kind at once.

Queries (the positions attending) run down, keys (the positions attended to) run across, as in
the matrix softmax(QK^T / sqrt(d_k)) of Eq. (1), Section 3.2.1.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np
import plotly.graph_objects as go

from runtime.trace import Trace

from .style import (
    ATTENTION_COLORSCALE,
    GOLD_COLOR,
    KIND_LABELS,
    MASKED_COLOR,
    TITLE_LINE_CHARS,
    apply_layout,
    cell_gap,
    fit_title,
    grid_size,
    label_step,
    labels_lie_level,
    presentation_rows,
    safe,
    safe_all,
    top_label_angle,
)

# The overview draws layers × heads blocks; beyond this many tokens each cell would be
# too small to read and the figure too large to send, so it shows the first tokens only.
OVERVIEW_MAX_TOKENS = 48
MASKED_EXPLANATION = (
    "Grey cells are masked: in decoder self-attention a position may not look at later "
    "positions (Section 3.2.3), so those weights do not exist; they are not weights of 0."
)
# A heatmap of this many rows or fewer labels its colour bar at the ends and the middle only.
SHORT_COLORBAR_ROWS = 3
_INVISIBLE = "\u200b"  # zero-width space: makes repeated tokens distinct categories, unseen
_BLOCK_MARK = "\u2060"  # word joiner, also unseen: tells the blocks of a mosaic axis apart
CELL_HOVER = "query '%{y}' → key '%{x}': %{z:.4f}<extra></extra>"
MASKED_HOVER = "query '%{y}' → key '%{x}': masked (a later position)<extra></extra>"
# A decoder row's category names the token it writes, then the token it reads (`row_names`).
DECODER_CELL_HOVER = "row writing %{y} → key '%{x}': %{z:.4f}<extra></extra>"
DECODER_MASKED_HOVER = "row writing %{y} → key '%{x}': masked (a later position)<extra></extra>"


def head_weights(trace: Trace, kind: str, layer: int, head: int | None) -> np.ndarray:
    """[query, key] weights of one head, or the mean over heads when head is None."""
    weights = trace.attention[kind][layer]
    return weights.mean(axis=0) if head is None else weights[head]


def with_mask(kind: str, weights: np.ndarray, folded: bool = False) -> np.ndarray:
    """Weights to draw: the future a causal mask hides becomes NaN (a gap), not 0. With the
    prompt's start `folded` into a first column (`fold_prefix`), row i's future starts one
    column later."""
    shown = np.array(weights, dtype=np.float32)  # float32 keeps figures compact
    if kind == "decoder_self":
        rows, cols = np.triu_indices(shown.shape[-2], k=2 if folded else 1, m=shown.shape[-1])
        shown[..., rows, cols] = np.nan
    return shown


def system_label(n: int) -> str:
    """The column a folded system turn becomes."""
    return f"[system prompt: {n} tokens]"


def fold_prefix(queries, keys, weights: np.ndarray, n: int):
    """The first `n` positions of a causal self-attention (a chat template's system turn) as one
    key column holding their summed weight, and their rows left out: every weight shown is
    still exact, and each row still sums to 1 (every row after them may read all of them)."""
    w = np.asarray(weights, dtype=np.float64)
    folded = np.concatenate([w[..., n:, :n].sum(axis=-1, keepdims=True), w[..., n:, n:]], axis=-1)
    return tuple(queries[n:]), (system_label(n), *keys[n:]), folded


def token_categories(tokens) -> list[str]:
    """Escaped tokens made unique with invisible suffixes, for categorical axes.

    Tokens repeat ("the ... the"); as distinct categories the hover can name the token directly
    (`%{x}`) without a per-cell copy of the labels in the figure.
    """
    seen: dict[str, int] = {}
    labels = []
    for token in tokens:
        label = safe(token)
        labels.append(label + _INVISIBLE * seen.get(label, 0))
        seen[label] = seen.get(label, 0) + 1
    return labels


READ_COLOR = "#8a8a8a"
DECODER_ROWS_AXIS = f"token written (<span style='color:{READ_COLOR}'>token read</span>)"


def decoder_row_labels(trace: Trace, rows: Sequence[int]) -> list[str]:
    """Labels of decoder rows: the token each row writes, then in grey the token it reads.

    Row t of decoder self- and cross-attention reads token t and chooses token t + 1, so a row
    labelled by what it reads looks off by one against the translation ("Buch" dark on
    "reads"). Labels are escaped: the tokens come from typed text.
    """
    return [
        f"{safe(trace.steps[t].token)} <span style='color:{READ_COLOR}'>"
        f"{safe(trace.steps[t].query_token)}</span>"
        for t in rows
    ]


def has_decoder_rows(trace: Trace, kind: str) -> bool:
    """Whether the rows of `kind` are decoder steps, each writing a token (see `decoder_row_labels`)."""
    return kind != "encoder_self" and len(trace.steps) == len(trace.target_tokens)


def row_tokens(trace: Trace, kind: str) -> list[str]:
    """The token each query row of `kind` stands for: the token written by a decoder row, the
    token read by an encoder row."""
    if not has_decoder_rows(trace, kind):
        return list(trace.axis_tokens(kind)[0])
    return [step.token for step in trace.steps]


def row_names(trace: Trace, kind: str) -> list[str]:
    """Plain-text names of the query rows of `kind`, for hovers and choosers (not escaped).

    A decoder row is named by the token it writes, then the token it reads: "'Buch' (reading
    'das')", as its tick label shows them; an encoder row by its token: "'it'".
    """
    written = [f"'{token}'" for token in row_tokens(trace, kind)]
    if not has_decoder_rows(trace, kind):
        return written
    return [f"{w} (reading '{step.query_token}')" for w, step in zip(written, trace.steps)]


def head_label(head: int | None) -> str:
    return "mean over heads" if head is None else f"head {head + 1}"


def head_title(kind: str, layer: int, head: int | None, run_label: str | None = None) -> str:
    """What a figure of one head shows, in one line; the model's name is in the page header.
    `run_label` names the run when several are compared (a scale, positions off)."""
    title = f"{KIND_LABELS[kind]} · layer {layer + 1}, {head_label(head)}"
    return f"{safe(run_label)} · {title}" if run_label else title


def token_axis(title: str, categories: list[str], **extra) -> dict:
    """An axis labelled with the tokens themselves (escaped), one tick per token.

    The tick angle is Plotly's automatic one unless given: level labels when they fit, turned
    by 30° or 90° when the cells are narrower than the words, decided in the browser at the
    width the figure is drawn."""
    return {
        "title": {"text": title},
        "type": "category",
        "tickvals": categories,
        "ticktext": [label.rstrip(_INVISIBLE) for label in categories],
        "showgrid": False,
        **extra,
    }


def without_tokens(queries, keys, weights: np.ndarray, hidden: Collection[str]):
    """Drop the rows and columns of `hidden` tokens and renormalise each row to sum to 1.

    A row whose every visible key was hidden has nothing left to show and becomes NaN. When the
    text has nothing but hidden tokens, nothing is dropped.
    """
    keep_q = [i for i, t in enumerate(queries) if t not in hidden]
    keep_k = [j for j, t in enumerate(keys) if t not in hidden]
    if not keep_q or not keep_k:
        return tuple(queries), tuple(keys), weights
    kept = np.asarray(weights, dtype=np.float64)[np.ix_(keep_q, keep_k)]
    totals = kept.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        kept = np.where(totals > 0, kept / totals, np.nan)
    return tuple(queries[i] for i in keep_q), tuple(keys[j] for j in keep_k), kept


def masked_layer(masked: np.ndarray, x, y, hovertemplate=MASKED_HOVER, **options) -> go.Heatmap:
    """The decoder's masked future as its own grey layer, so its hover says "masked", not a
    number; hoverongaps=False leaves every other cell's hover to the weights."""
    return go.Heatmap(
        z=np.where(masked, 1.0, np.nan).astype(np.float32),
        x=x,
        y=y,
        colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]],
        showscale=False,
        hoverongaps=False,
        hovertemplate=hovertemplate,
        **options,
    )


def heatmap(
    trace: Trace,
    kind: str,
    layer: int,
    head: int | None,
    run_label: str | None = None,
    stretch: bool = False,
    presentation: bool = False,
    hidden: Collection[str] = (),
    marks: Collection[tuple[int, int]] = (),
    max_width: int | None = None,
    fold_system: bool = False,
    drawn_width: int | None = None,
) -> go.Figure:
    """Queries down, keys across. Causally masked cells are left empty (grey), not drawn as 0.

    A page narrower than the cells need (`max_width` px, a long text) gets the heatmap at that
    width with every n-th key labelled (`style.label_step`), so labels never overprint; the
    hover names every cell's tokens.

    The colour scale is fixed to 0..1 so heads can be compared; `stretch` maps 0..max instead.
    Tokens in `hidden` (e.g. [CLS], [SEP]) are left out and the rows renormalised, as the title says.
    `marks` (query, key) cells are outlined in red: the gold antecedent of a pronoun.
    `fold_system` draws a chat prompt's system turn (`trace.system_length` tokens) as one key
    column of its summed weight, without its rows (`fold_prefix`). `drawn_width`, where the page
    is known to draw the figure that wide (across its column), tells whether the column labels
    can be turned by 30° rather than upright (`top_label_angle`).
    """
    queries, keys = trace.axis_tokens(kind)
    weights = head_weights(trace, kind, layer, head)
    title = head_title(kind, layer, head, run_label)
    folded = trace.system_length if fold_system and kind == "decoder_self" else 0
    positions = list(range(len(queries)))  # each row's position in the run
    if folded:
        queries, keys, weights = fold_prefix(queries, keys, weights, folded)
        positions = positions[folded:]
        marks = ()
        title += " · system prompt folded into one column"
    kept_q = [positions[i] for i, t in enumerate(queries) if t not in set(hidden)]
    kept_k = [j for j, t in enumerate(keys) if t not in set(hidden)]
    if not kept_q or not kept_k:  # nothing but hidden tokens: `without_tokens` keeps them all
        kept_q, kept_k = positions, list(range(len(keys)))
    present = sorted({t for t in queries + keys if t in set(hidden)})
    if present:
        queries, keys, weights = without_tokens(queries, keys, weights, set(present))
        title += f" · {', '.join(safe(t) for t in present)} hidden, rows renormalised"
    shown = with_mask(kind, weights, folded=bool(folded))
    decoder_rows = has_decoder_rows(trace, kind)
    names = row_names(trace, kind)
    q_labels = token_categories([names[i] for i in kept_q] if decoder_rows else queries)
    k_labels = token_categories(keys)
    zmax = float(np.nanmax(shown)) if stretch else 1.0
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=k_labels,
            y=q_labels,
            hovertemplate=DECODER_CELL_HOVER if decoder_rows else CELL_HOVER,
            colorscale=ATTENTION_COLORSCALE,
            zmin=0.0,
            zmax=zmax,
            colorbar={"title": {"text": "weight" + (" (stretched)" if stretch else " (0–1)")}},
            xgap=cell_gap(len(keys)),
            ygap=cell_gap(len(queries)),
        )
    )
    if kind == "decoder_self":
        fig.add_trace(
            masked_layer(
                np.isnan(shown),
                k_labels,
                q_labels,
                DECODER_MASKED_HOVER if decoder_rows else MASKED_HOVER,
                xgap=cell_gap(len(keys)),
                ygap=cell_gap(len(queries)),
            )
        )
    for q, k in marks:
        if q in kept_q and k in kept_k:
            row, column = kept_q.index(q), kept_k.index(k)
            fig.add_shape(
                type="rect",
                x0=column - 0.5,
                x1=column + 0.5,
                y0=row - 0.5,
                y1=row + 0.5,
                line={"color": GOLD_COLOR, "width": 3},
                fillcolor="rgba(0,0,0,0)",
            )
    row_texts = (
        [f"{trace.steps[t].token} {trace.steps[t].query_token}" for t in kept_q]
        if decoder_rows
        else queries
    )
    size = grid_size(row_texts, len(keys), presentation)
    key_axis = token_axis("key (attended to)", k_labels, side="top")
    fit_width(size, key_axis, "key (attended to)", k_labels, row_texts, max_width, presentation)
    angle = top_label_angle(
        key_axis["ticktext"], row_texts, size["width"], drawn_width or size["width"], presentation
    )
    apply_layout(
        fig,
        title,
        presentation,
        **size,
        plot_bgcolor="white",
        xaxis=key_axis,
        yaxis=token_axis("query (attending)", q_labels, autorange="reversed"),
    )
    if decoder_rows:
        fig.update_yaxes(
            title={"text": DECODER_ROWS_AXIS}, ticktext=decoder_row_labels(trace, kept_q)
        )
    fit_title(fig, keys, angle=angle)
    return presentation_rows(fig, len(q_labels)) if presentation else fig


def fit_width(
    size: dict,
    axis: dict,
    axis_title: str,
    labels: Sequence,
    row_texts: Sequence[str],
    max_width: int | None,
    presentation: bool,
) -> None:
    """A heatmap wider than `max_width` px is drawn at that width with every n-th column
    labelled (`style.label_step`), so labels never overprint; the hover names every cell."""
    if max_width is None or size["width"] <= max_width:
        return
    size["width"] = max_width
    step = label_step(row_texts, len(labels), max_width, presentation)
    if step > 1:
        axis.update(
            title={"text": f"{axis_title}, 1 in {step} labelled: hover for all"},
            tickvals=list(labels)[::step],
            ticktext=axis["ticktext"][::step],
        )


def coreference_cells(trace: Trace, kind: str, reference) -> list[tuple[int, int]]:
    """(query, key) cells where a pronoun meets the noun phrase it stands for, from the model's
    `reference` (a `runtime.reference.Reference`): the English pronoun's row in encoder
    self-attention; in cross-attention the row that wrote the German pronoun, when the model
    wrote it where the reference has it."""
    if reference is None:
        return []
    cells = []
    for link in reference.coreference:
        if kind == "encoder_self":
            rows = list(link.source_pronoun)
        elif kind == "cross":
            rows = [
                j
                for j in link.target_pronoun
                if j < len(trace.steps) and trace.steps[j].token == reference.target_tokens[j]
            ]
        else:
            rows = []
        cells += [(q, k) for q in rows for k in link.source_antecedent]
    return cells


def pronoun_of_row(trace: Trace, kind: str, row: int) -> str:
    """The pronoun a `coreference_cells` row stands for: in encoder self-attention the English
    pronoun the row reads; in cross-attention the German pronoun the row writes (the row reads
    the token before it: "aber" is read where "er" is written)."""
    if kind == "encoder_self":
        return trace.source_tokens[row]
    return trace.steps[row].token


def mosaic(blocks: np.ndarray) -> np.ndarray:
    """[rows, cols, n, m] blocks laid out as one 2-D array, one NaN row or column between blocks.

    Block (r, c) starts at row r * (n + 1) and column c * (m + 1).
    """
    rows, cols, n, m = blocks.shape
    laid = np.full((rows, n + 1, cols, m + 1), np.nan, dtype=np.float32)
    laid[:, :n, :, :m] = blocks.transpose(0, 2, 1, 3)
    return laid.reshape(rows * (n + 1), cols * (m + 1))[:-1, :-1]


def mosaic_categories(tokens, n_blocks: int) -> list[str]:
    """Category labels along one mosaic axis: each block's tokens, then a gap, all distinct.

    Repeats within a block differ as in `token_categories`; the labels of block b end in b + 1
    invisible word joiners, so no two blocks share a label and no label reads as a number (which
    Plotly would take for the numeric position of a tick).
    """
    labels = token_categories([*tokens, ""])
    return [label + _BLOCK_MARK * (b + 1) for b in range(n_blocks) for label in labels][:-1]


def mosaic_axis(name: str, n_blocks: int, block: int, **extra) -> dict:
    """A mosaic axis titled `name`, ticked "name 1" … at the centre of each block of `block` cells."""
    return {
        "title": {"text": name},
        "type": "category",
        "tickvals": [b * (block + 1) + (block - 1) / 2 for b in range(n_blocks)],
        "ticktext": [f"{name} {b + 1}" for b in range(n_blocks)],
        "ticks": "",
        "ticklabelstandoff": 6,
        "showgrid": False,
        "zeroline": False,
        **extra,
    }


def strongest_links(trace: Trace, kind: str, layer: int, head: int, count: int = 3) -> list[str]:
    """The `count` largest weights of one head as plain text lines, "'it' → 'animal': 0.6123",
    decoder rows named by the token they write (`row_names`)."""
    weights = trace.attention[kind][layer, head]
    names, keys = row_names(trace, kind), trace.axis_tokens(kind)[1]
    flat = weights.ravel()
    # The `count` largest in reading order among ties, as a stable sort of all n² would give, at
    # the cost of one pass: a full sort of every head made the overview of a 256-token text
    # take 0.6 s.
    count = min(count, flat.size)
    threshold = np.partition(flat, flat.size - count)[flat.size - count]
    candidates = np.flatnonzero(flat >= threshold)
    order = candidates[np.argsort(-flat[candidates], kind="stable")][:count]
    return [
        f"{names[q]} → '{keys[k]}': {weights[q, k]:.4f}"
        for q, k in zip(*np.unravel_index(order, weights.shape))
    ]


def click_layer(x, y, layer_head: np.ndarray, hover: list[str]) -> go.Scatter:
    """Invisible points that report clicks: Plotly heatmaps cannot be selected, so Streamlit
    never hears of a click on one; a scatter point can. `layer_head` holds each point's
    0-based (layer, head), read back by `clicked_head`; `hover` is Plotly text, escaped.

    With the layout's `hoverdistance=-1` the point nearest the mouse takes the hover and the
    click: on a regular grid of points that is the point of the block under the mouse.
    """
    return go.Scatter(
        x=x,
        y=y,
        mode="markers",
        marker={"size": 12, "opacity": 0},
        selected={"marker": {"opacity": 0}},
        unselected={"marker": {"opacity": 0}},
        # Plain lists: a typed array would reach Streamlit as an object, not a pair of numbers.
        customdata=np.asarray(layer_head, dtype=int).tolist(),
        hovertext=hover,
        hoverinfo="text",
        showlegend=False,
    )


def clicked_head(points) -> tuple[int, int] | None:
    """The (layer, head) of the first clicked point of a `click_layer`, from Streamlit's
    selection state; None when the selection holds no such point."""
    for point in points:
        data = point.get("customdata")
        if isinstance(data, list | tuple) and len(data) == 2:
            return int(data[0]), int(data[1])
    return None


def overview(
    trace: Trace,
    kind: str,
    stretch: bool = False,
    presentation: bool = False,
    max_tokens: int = OVERVIEW_MAX_TOKENS,
) -> go.Figure:
    """Every layer (rows) × head (columns) of one kind as one mosaic heatmap.

    Section 3.2.2: each of the h heads attends with its own projections, in each of the N layers.
    Layer l, head h is the block at rows l * (n + 1)… and columns h * (m + 1)… (see `mosaic`),
    with an empty cell between blocks. Only the first `max_tokens` queries and keys are drawn.
    A click on a block reports its (layer, head) (`click_layer`), whose hover names the
    head's strongest weights exactly.
    """
    queries, keys = trace.axis_tokens(kind)
    shown = with_mask(kind, trace.attention[kind][:, :, :max_tokens, :max_tokens])
    n_layers, n_heads, n, m = shown.shape
    z = mosaic(shown)
    y = mosaic_categories(queries[:n], n_layers)
    x = mosaic_categories(keys[:m], n_heads)
    zmax = float(np.nanmax(shown)) if stretch else 1.0
    fig = go.Figure()
    if kind == "decoder_self":
        # Painted underneath the weights; the gaps between blocks are not masked and stay white.
        fig.add_trace(masked_layer(mosaic(np.isnan(shown)) == 1, x, y, hoverinfo="skip"))
    fig.add_trace(
        go.Heatmap(
            z=z,
            x=x,
            y=y,
            colorscale=ATTENTION_COLORSCALE,
            zmin=0.0,
            zmax=zmax,
            colorbar={"title": {"text": "weight"}},
            hoverinfo="skip",  # the click layer's hover speaks for the whole block
        )
    )
    # One point per block, on the block's middle cell.
    layers, heads = (a.ravel() for a in np.indices((n_layers, n_heads)))
    hover = [
        f"layer {layer + 1}, head {head + 1} · click to open it<br>strongest weights:<br>"
        + "<br>".join(safe_all(strongest_links(trace, kind, layer, head)))
        for layer, head in zip(layers, heads)
    ]
    fig.add_trace(
        click_layer(
            [x[head * (m + 1) + m // 2] for head in heads],
            [y[layer * (n + 1) + n // 2] for layer in layers],
            np.stack([layers, heads], axis=-1),
            hover,
        )
    )
    cut = len(queries) > max_tokens or len(keys) > max_tokens
    title = f"{KIND_LABELS[kind]} · all layers and heads"
    if cut:
        title += f" (first {max_tokens} tokens)"
    apply_layout(
        fig,
        title,
        presentation,
        height=round((150 if presentation else 115) * n_layers + 120),
        plot_bgcolor="white",
        xaxis=mosaic_axis("head", n_heads, m, side="top"),
        yaxis=mosaic_axis("layer", n_layers, n, autorange="reversed"),
        margin={"t": 110},
        hoverdistance=-1,
        dragmode=False,
    )
    return fig


def token_heatmap(
    z: np.ndarray,
    row_tokens: Sequence[str],
    column_tokens: Sequence[str],
    title: str,
    value_label: str,
    zmin: float = 0.0,
    zmax: float = 1.0,
    colorscale: str = ATTENTION_COLORSCALE,
    row_axis: str = "query (attending)",
    column_axis: str = "key (attended to)",
    presentation: bool = False,
    max_width: int | None = None,
    drawn_width: int | None = None,
    title_chars: int = TITLE_LINE_CHARS,
) -> go.Figure:
    """A [row, column] matrix with tokens on both axes, a fixed colour scale and exact hovers;
    at most `max_width` px wide (`fit_width`). `drawn_width`, where the page is known to draw
    the figure that wide (across its main area), tells whether the column labels lie level;
    `title_chars` is the title's line length where the figure stands in a narrower column.
    A matrix of a few rows has a short colour bar: it is labelled at its ends and middle only
    (five labels overprinted each other on a one-row difference of the Ablation tab)."""
    rows, columns = token_categories(row_tokens), token_categories(column_tokens)
    colorbar: dict = {"title": {"text": value_label}}
    if len(rows) <= SHORT_COLORBAR_ROWS:
        colorbar["tickvals"] = [zmin, (zmin + zmax) / 2, zmax]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=columns,
            y=rows,
            hovertemplate=f"'%{{y}}' → '%{{x}}'<br>{value_label}: %{{z:.4f}}<extra></extra>",
            colorscale=colorscale,
            zmin=zmin,
            zmax=zmax,
            colorbar=colorbar,
            xgap=1,
            ygap=1,
        )
    )
    size = grid_size(row_tokens, len(columns), presentation)
    column_axis_layout = token_axis(column_axis, columns, side="top")
    fit_width(size, column_axis_layout, column_axis, columns, row_tokens, max_width, presentation)
    # level or upright: a matrix beside another is drawn at a width this cannot know, and
    # labels turned by 30° there met their neighbours
    level = labels_lie_level(
        column_axis_layout["ticktext"], row_tokens, drawn_width or size["width"], presentation
    )
    apply_layout(
        fig,
        title,
        presentation,
        **size,
        xaxis=column_axis_layout,
        yaxis=token_axis(row_axis, rows, autorange="reversed"),
    )
    return fit_title(fig, column_tokens, title_chars, angle=0 if level else 90)
