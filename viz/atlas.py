"""The head atlas's figures and tables: every head's statistics over a corpus, one head's
queries and keys in one picture, and all heads side by side (runtime/atlas.py runs the corpus
and projects the points)."""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from runtime.atlas import PROJECTIONS, CorpusRun, HeadMap, head_map, head_points

from .stats import STATISTICS, Statistic, attention_statistics, visible_key_counts
from .style import HEAD_COLORS, KIND_LABELS, apply_layout, fit_title, font_px, legend_below, safe

QUERY_COLOR, KEY_COLOR = HEAD_COLORS[0], HEAD_COLORS[3]  # blue queries, orange keys
POSITION_COLORSCALE = "Viridis"
COLOUR_BY = {
    "role": "query or key",
    "position": "position in the sentence",
    "token": "a token you name",
}
FADED_COLOR = "#cfcfcf"  # points that are not the named token

# Scored against what the corpus knows (the translator's built-in sentences): NaN elsewhere.
GOLD_STATISTICS = (
    Statistic(
        "aer",
        "AER against the gold alignment",
        "1 − 2·|A∩G| / (|A| + |G|) with A each row's largest weight: 0 = every German token's "
        "largest weight on an English token the gold alignment links it to, 1 = none",
        short="AER",
    ),
    Statistic(
        "antecedent_share",
        "pronoun → antecedent",
        "share of the corpus's pronouns whose row puts its largest weight on a token of the "
        "noun phrase the pronoun stands for (gold coreference): 0 = none, 1 = all",
        short="antecedent",
    ),
)
ALIGNMENT_THRESHOLD = 0.5  # AER at most this: a head that aligns words
ANTECEDENT_THRESHOLD = 0.4  # share at least this: a head that finds a pronoun's antecedent
MIN_LINKS = 10  # ... over at least this many pronouns
# A head's named role: the share it puts on one kind of key, where that share passes the
# threshold over the whole corpus; else "broad" where its rows are near uniform.
ROLE_SHARES = (
    ("previous_share", "previous token"),
    ("next_share", "next token"),
    ("self_share", "the token itself"),
    ("special_share", "special tokens"),
    ("punctuation_share", "punctuation"),
)
ROLE_SHARE_THRESHOLD = 0.5
BROAD_THRESHOLD = 0.85  # normalised entropy
ROLE_HELP = (
    f"A head is named by the kind of key it puts most of its weight on where that share, "
    f"averaged over every query of the corpus, is at least {ROLE_SHARE_THRESHOLD:.0%}; else "
    f"'broad' where its rows are near uniform (normalised entropy at least {BROAD_THRESHOLD:.2f}: "
    f"a row's largest weight is then chance); else, where the corpus knows gold links, 'word "
    f"alignment' for a cross-attention head with an AER of at most {ALIGNMENT_THRESHOLD} and "
    f"'pronoun → antecedent' for a head whose pronoun rows find the antecedent at least "
    f"{ANTECEDENT_THRESHOLD:.0%} of the time (over at least {MIN_LINKS} pronouns); '—' where "
    f"no statistic passes its threshold."
)
MATRIX_POINTS = 100  # queries and as many keys per head in the matrix view (a fixed sample)
MATRIX_GAP = 0.15  # between the matrix's cells, in cells
MATRIX_CELL_FILL = 0.92  # the share of its cell a head's points span


def _rows_counted(column: str, kind: str, n_queries: int, n_keys: int) -> int:
    """How many query rows a sentence's mean of `column` averages (viz.stats's conventions)."""
    if column in ("previous_share", "next_share"):
        return max(n_queries - 1, 0)
    if column == "entropy_normalised":
        return int((visible_key_counts(kind, n_queries, n_keys) > 1).sum())
    return n_queries


def corpus_statistics(corpus: CorpusRun, special_tokens: Collection[str]) -> pd.DataFrame:
    """viz.stats's statistics of every head, averaged over every query row of the corpus (each
    sentence's mean weighted by its rows), and a named `role` per head (ROLE_HELP)."""
    tables = []
    for kind in corpus.kinds:
        total: dict[str, np.ndarray] = {}
        rows: dict[str, np.ndarray] = {}
        for sentence in corpus.sentences:
            query_tokens, key_tokens = sentence.tokens[kind]
            table = attention_statistics(
                sentence.attention[kind], kind, query_tokens, key_tokens, special_tokens
            )
            for s in STATISTICS:
                values = table[s.column].to_numpy(dtype=np.float64)
                count = _rows_counted(s.column, kind, len(query_tokens), len(key_tokens))
                weight = np.where(np.isnan(values), 0.0, float(count))
                total[s.column] = total.get(s.column, 0.0) + np.nan_to_num(values) * weight
                rows[s.column] = rows.get(s.column, 0.0) + weight
        columns = {
            c: np.divide(total[c], rows[c], out=np.full_like(total[c], np.nan), where=rows[c] > 0)
            for c in total
        } | gold_scores(corpus, kind)
        layer, head = np.meshgrid(
            np.arange(corpus.n_layers), np.arange(corpus.n_heads), indexing="ij"
        )
        tables.append(
            pd.DataFrame(
                {"kind": kind, "layer": layer.ravel() + 1, "head": head.ravel() + 1}
                | {c: values.ravel() for c, values in columns.items()}
            )
        )
    table = pd.concat(tables, ignore_index=True)
    table["role"] = [head_role(row) for _, row in table.iterrows()]
    return table


def gold_scores(corpus: CorpusRun, kind: str) -> dict[str, np.ndarray]:
    """Per head [layer, head], over the sentences with a reference: the AER of the argmax link of
    every cross-attention row the gold alignment covers (pooled, as model/evaluate.py's head
    tables), and the share of gold pronouns whose row's argmax lies in the antecedent (encoder:
    the English pronoun's row; cross: the row that writes the German pronoun)."""
    shape = (corpus.n_layers, corpus.n_heads)
    hits, links = np.zeros(shape), 0
    aligned, predicted, gold = np.zeros(shape), 0, 0
    for sentence in corpus.sentences:
        reference = sentence.reference
        if reference is None or kind == "decoder_self":
            continue
        argmax = np.asarray(sentence.attention[kind]).argmax(axis=-1)  # [layer, head, row]
        if kind == "cross":
            for row, sources in enumerate(reference.alignment):
                if sources and row < argmax.shape[-1]:
                    predicted += 1
                    gold += len(sources)
                    aligned += np.isin(argmax[..., row], sources)
        for link in reference.coreference:
            row = (link.target_pronoun if kind == "cross" else link.source_pronoun) or (None,)
            if row[0] is None or row[0] >= argmax.shape[-1] or not link.source_antecedent:
                continue
            hits += np.isin(argmax[..., row[0]], link.source_antecedent)
            links += 1
    nan = np.full(shape, np.nan)
    return {
        "aer": 1 - 2 * aligned / (predicted + gold) if predicted else nan,
        "antecedent_share": hits / links if links else nan,
        "pronoun_links": np.full(shape, float(links)),
    }


def head_role(row: pd.Series) -> str:
    """The named role of one row of `corpus_statistics` (ROLE_HELP)."""
    shares = [(row[column], name) for column, name in ROLE_SHARES if row[column] >= 0]
    passed = [(value, name) for value, name in shares if value >= ROLE_SHARE_THRESHOLD]
    if passed:
        return max(passed)[1]
    # a near-uniform row's largest weight is chance: such a head is broad, whatever it hits
    if row["entropy_normalised"] >= BROAD_THRESHOLD:
        return "broad"
    if row["aer"] <= ALIGNMENT_THRESHOLD:
        return "word alignment"
    if row["antecedent_share"] >= ANTECEDENT_THRESHOLD and row["pronoun_links"] >= MIN_LINKS:
        return "pronoun → antecedent"
    return "—"


def _context(tokens: tuple[str, ...], position: int, around: int = 6) -> str:
    """The token at `position` bracketed among its neighbours, escaped for a hover label."""
    start, end = max(0, position - around), min(len(tokens), position + around + 1)
    words = [safe(t) for t in tokens[start:end]]
    words[position - start] = f"⟦{words[position - start]}⟧"
    return ("… " if start else "") + " ".join(words) + (" …" if end < len(tokens) else "")


def _hover(corpus: CorpusRun, kind: str, origin: np.ndarray, side: int, what: str) -> list[str]:
    labels = []
    for sentence_index, position in origin:
        tokens = corpus.sentences[sentence_index].tokens[kind][side]
        labels.append(
            f"{what} “{safe(tokens[position])}” · sentence {sentence_index + 1}, "
            f"position {position + 1}<br>{_context(tokens, position)}"
        )
    return labels


def token_matches(token: str, named: str) -> bool:
    """Whether a model token is the token a user named: case aside, and a WordPiece
    continuation ('##erte') matches its text ('erte')."""
    return token.removeprefix("##").casefold() == named.strip().casefold()


def _named_hits(
    corpus: CorpusRun, kind: str, origin: np.ndarray, side: int, named: str
) -> np.ndarray:
    """[points] bool: which points (sentence, position) of `side` are the token `named`."""
    tokens = (corpus.sentences[i].tokens[kind][side][p] for i, p in origin)
    return np.fromiter((token_matches(t, named) for t in tokens), dtype=bool, count=len(origin))


def named_token_counts(
    mapped: HeadMap, corpus: CorpusRun, kind: str, named: str
) -> tuple[int, int]:
    """How many of the drawn queries and keys are the token `named` (token_matches)."""
    points = mapped.points
    queries = _named_hits(corpus, kind, points.query_origin, 0, named)
    keys = _named_hits(corpus, kind, points.key_origin, 1, named)
    return int(queries.sum()), int(keys.sum())


def head_scatter(
    corpus: CorpusRun,
    kind: str,
    layer: int,
    head: int,
    colour_by: str = "role",
    presentation: bool = False,
    mapped: HeadMap | None = None,
    named: str = "",
) -> go.Figure:
    """Every query and key of one head over the corpus in one plane (normalised, then PCA or
    t-SNE, `mapped`): queries as circles, keys as diamonds; coloured by query/key, by position,
    or with every point faded and the token `named` drawn over them in colour. Trace 0 holds the
    queries and trace 1 the keys, in `head_points` order (runtime.atlas.point_origin); traces 2
    and 3 the named token's queries and keys, each point's index in trace 0 or 1 its
    customdata."""
    mapped = mapped or head_map(corpus, kind, layer, head)
    points = mapped.points
    longest = int(max(points.query_origin[:, 1].max(), points.key_origin[:, 1].max())) + 1
    fig = go.Figure()
    sides = (
        ("queries", mapped.query_xy, points.query_origin, 0, QUERY_COLOR, "circle"),
        ("keys", mapped.key_xy, points.key_origin, 1, KEY_COLOR, "diamond"),
    )
    size = 7 * (1.3 if presentation else 1.0)
    hits = []
    for name, xy, origin, side, colour, symbol in sides:
        marker: dict = {"size": size, "symbol": symbol, "opacity": 0.75}
        if colour_by == "position":
            marker |= {
                "color": origin[:, 1] + 1,
                "colorscale": POSITION_COLORSCALE,
                "cmin": 1,
                "cmax": longest,
                "showscale": side == 0,
                "colorbar": {"title": {"text": "position in the sentence", "side": "right"}},
            }
        elif colour_by == "token":
            marker["color"] = FADED_COLOR
            hits.append((name, xy, origin, side, colour, symbol))
        else:
            marker["color"] = colour
        labels = _hover(corpus, kind, origin, side, name[:-1].replace("querie", "query"))
        fig.add_trace(
            # SVG, not WebGL: a click on a point must reach the page on every browser
            go.Scatter(
                x=xy[:, 0],
                y=xy[:, 1],
                mode="markers",
                name=f"{name} ({len(xy):,})",
                marker=marker,
                hovertext=labels,
                hoverinfo="text",
            )
        )
    # The named token's points drawn again over the grey ones (traces 2 and 3), each with its
    # index among all queries or keys as customdata, so that a click on it finds its sentence.
    for name, xy, origin, side, colour, symbol in hits:
        index = np.flatnonzero(_named_hits(corpus, kind, origin, side, named))
        what = name[:-1].replace("querie", "query")
        fig.add_trace(
            go.Scatter(
                x=xy[index, 0],
                y=xy[index, 1],
                mode="markers",
                name=f"“{safe(named.strip())}” as a {what} ({len(index):,})",
                marker={"size": size * 1.6, "symbol": symbol, "color": colour, "opacity": 0.95},
                customdata=index,
                hovertext=_hover(corpus, kind, origin[index], side, what),
                hoverinfo="text",
            )
        )
    drawn = (
        f"{len(corpus.sentences)} sentences"
        if mapped.sentences in (0, len(corpus.sentences))
        else f"the first {mapped.sentences} of {len(corpus.sentences)} sentences"
    )
    title = (
        f"{KIND_LABELS[kind]} · layer {layer + 1}, head {head + 1} · queries and keys of "
        f"{drawn} ({PROJECTIONS[mapped.method]})"
    )
    if mapped.explained is not None:
        x_share, y_share = mapped.explained
        x_title = f"principal component 1 ({x_share:.0%} of the variance)"
        y_title = f"principal component 2 ({y_share:.0%})"
    else:  # t-SNE's axes have no unit: only who is near whom means something
        x_title, y_title = "t-SNE axis 1 (no unit)", "t-SNE axis 2 (no unit)"
    height = round(620 * (1.25 if presentation else 1.0))
    apply_layout(
        fig,
        title,
        presentation,
        xaxis={
            "title": {"text": x_title},
            # below half a label's height: the lowest y label may sit in the corner
            "ticklabelstandoff": round(0.6 * font_px(presentation)),
        },
        yaxis={"title": {"text": y_title}, "scaleanchor": "x", "scaleratio": 1},
        **legend_below(fig, presentation, plot_height=height, per_row=2),
    )
    return fit_title(fig, max_chars=60)


def matrix_figure(
    corpus: CorpusRun,
    kind: str,
    presentation: bool = False,
    colour_by: str = "role",
    width: int = 820,
) -> go.Figure:
    """Every layer × head of one attention kind as a small query/key scatter (normalised, PCA;
    MATRIX_POINTS of each side drawn per head, the same tokens in every head), so heads that
    behave alike are seen at once; coloured by query/key or by position.

    All heads share one pair of axes, each in its own square cell (rows: layers, columns:
    heads), each scaled to fill its cell: two traces in all, so that 270 heads (SmolLM2) draw in
    seconds where a subplot each took Plotly minutes."""
    rows, cols = corpus.n_layers, corpus.n_heads
    rng = np.random.default_rng(0)
    points: dict[int, list[np.ndarray]] = {0: [], 1: []}
    origins = head_points(corpus, kind, 0, 0)  # the same tokens, in order, for every head
    picks, tokens, positions, where = {}, {}, {}, {}
    heads = np.array([(layer + 1, head + 1) for layer in range(rows) for head in range(cols)])
    for side, origin in ((0, origins.query_origin), (1, origins.key_origin)):
        picks[side] = np.sort(rng.choice(len(origin), min(MATRIX_POINTS, len(origin)), False))
        chosen = origin[picks[side]]
        tokens[side] = [safe(corpus.sentences[s].tokens[kind][side][p]) for s, p in chosen]
        positions[side] = chosen[:, 1] + 1
        # hover numbers as customdata (sent as binary), the token as text: a label written out
        # per point repeated the same sentence context in all 270 heads of SmolLM2 (10 MB)
        where[side] = np.column_stack(
            [np.repeat(heads, len(chosen), axis=0), np.tile(chosen + 1, (rows * cols, 1))]
        ).astype(np.int16)
    for layer in range(rows):
        for head in range(cols):
            mapped = head_map(corpus, kind, layer, head)
            drawn = {0: mapped.query_xy[picks[0]], 1: mapped.key_xy[picks[1]]}
            placed = _in_cell(np.concatenate([drawn[0], drawn[1]]), layer, head, rows)
            points[0].append(placed[: len(picks[0])])
            points[1].append(placed[len(picks[0]) :])
    font = font_px(presentation)
    right = 8 * font if colour_by == "position" else 2 * font
    longest = max(len(s.tokens[kind][side]) for s in corpus.sentences for side in (0, 1))
    fig = go.Figure()
    for side, colour, name, symbol, what in (
        (0, QUERY_COLOR, "queries", "circle", "query"),
        (1, KEY_COLOR, "keys", "diamond", "key"),
    ):
        xy = np.concatenate(points[side]).astype(np.float32)
        marker: dict = {"size": 3, "color": colour, "opacity": 0.7}
        if colour_by == "position":
            marker |= {
                "color": np.tile(positions[side], rows * cols),
                "colorscale": POSITION_COLORSCALE,
                "cmin": 1,
                "cmax": longest,
                "showscale": side == 0,
                "colorbar": {"title": {"text": "position in the sentence", "side": "right"}},
                "symbol": symbol,
            }
        fig.add_trace(
            go.Scattergl(
                x=xy[:, 0],
                y=xy[:, 1],
                mode="markers",
                marker=marker,
                name=name,
                text=tokens[side] * (rows * cols),
                customdata=where[side],
                hovertemplate=(
                    f"layer %{{customdata[0]}}, head %{{customdata[1]}} · {what} “%{{text}}”"
                    "<br>sentence %{customdata[2]}, position %{customdata[3]}<extra></extra>"
                ),
            )
        )
    step = 1 + MATRIX_GAP
    fig.update_layout(
        shapes=[
            {
                "type": "rect",
                "x0": head * step,
                "x1": head * step + 1,
                "y0": (rows - 1 - layer) * step,
                "y1": (rows - 1 - layer) * step + 1,
                "line": {"width": 1, "color": FADED_COLOR},
                "layer": "below",
            }
            for layer in range(rows)
            for head in range(cols)
        ]
    )
    span = (-MATRIX_GAP / 2, cols * step - MATRIX_GAP / 2)
    fig.update_xaxes(
        range=span,
        tickvals=[head * step + 0.5 for head in range(cols)],
        ticktext=[f"H{head + 1}" for head in range(cols)],
        side="top",
        showgrid=False,
        zeroline=False,
    )
    fig.update_yaxes(
        range=(-MATRIX_GAP / 2, rows * step - MATRIX_GAP / 2),
        tickvals=[(rows - 1 - layer) * step + 0.5 for layer in range(rows)],
        ticktext=[f"L{layer + 1}" for layer in range(rows)],
        showgrid=False,
        zeroline=False,
        scaleanchor="x",
        scaleratio=1,
    )
    # square cells across `width` (the page's), room left for the labels and colour bar
    left = 3 * font
    cell = (width - right - left) / (cols * step)
    title = (
        f"{KIND_LABELS[kind]} · every layer and head · queries and keys of "
        f"{len(corpus.sentences)} sentences (PCA of each head)"
    )
    # no axis under the plot: the legend follows the last row (a gap of one line)
    layout = legend_below(
        fig, presentation, plot_height=round(rows * step * cell), per_row=2, axis_px=20
    )
    layout["legend"]["itemsizing"] = "constant"  # the small plots' dots are too small to read
    apply_layout(
        fig,
        title,
        presentation,
        width=width,
        margin={"l": round(left), "r": round(right), "b": layout.pop("margin")["b"]},
        **layout,
    )
    return fit_title(fig, top_room=round(2 * font))


def _in_cell(xy: np.ndarray, layer: int, head: int, rows: int) -> np.ndarray:
    """A head's points scaled (one factor for both axes, keeping the PCA plane's shape) and
    moved into its cell of the matrix: columns are heads, rows are layers from the top."""
    low, high = xy.min(axis=0), xy.max(axis=0)
    extent = float((high - low).max()) or 1.0
    step = 1 + MATRIX_GAP
    centre = np.array([head * step + 0.5, (rows - 1 - layer) * step + 0.5])
    return (xy - (low + high) / 2) * (MATRIX_CELL_FILL / extent) + centre
