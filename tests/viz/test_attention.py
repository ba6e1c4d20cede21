"""Attention figures against the Trace they draw and against independent computations.

One real encoder-decoder Trace (the paper's untrained base model) is made per module; expected
values come from the Trace's arrays and numpy, never from the figure code under test.
"""

import dataclasses
import html
import io
import itertools
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
import torch

from runtime import registry
from runtime.reference import CorefLink, Reference
from runtime.trace import run
from viz import export
from viz.attention import coreference_cells, heatmap, overview
from viz.breakdown import breakdown_figure, breakdown_table
from viz.decoding import alternatives_figure, gold_alignment, step_figure
from viz.links import links_figure, select_lines, select_links, two_column_figure

TEXT = "the small dog sees the old man ."
KINDS = ("encoder_self", "decoder_self", "cross")


@pytest.fixture(scope="module")
def trace():
    loaded = registry.load("paper-untrained", torch.device("cpu"))
    return run(loaded, TEXT)


def _visible(labels):
    """What a category label shows: without the invisible suffixes that make labels distinct."""
    return [label.replace("\u200b", "").replace("\u2060", "") for label in labels]


@pytest.mark.parametrize("kind", KINDS)
def test_heatmap_axes_name_the_right_tokens(trace, kind):
    fig = heatmap(trace, kind, 2, 3)
    expected_queries = {"encoder_self": trace.source_tokens}.get(kind, trace.target_tokens)
    expected_keys = {"cross": trace.source_tokens, "decoder_self": trace.target_tokens}.get(
        kind, trace.source_tokens
    )
    # Queries run down (y), keys across (x): the cross-attention rows are the decoder's inputs,
    # each named (for the hover) by the token it writes, then the token it reads.
    if kind == "encoder_self":
        assert _visible(fig.data[0].y) == [html.escape(t) for t in expected_queries]
        assert list(fig.layout.yaxis.ticktext) == [html.escape(t) for t in expected_queries]
    else:
        written = [step.token for step in trace.steps]
        assert _visible(fig.data[0].y) == [
            html.escape(f"'{w}' (reading '{r}')", quote=False)
            for w, r in zip(written, expected_queries)
        ]
    assert list(fig.layout.xaxis.ticktext) == [html.escape(t) for t in expected_keys]
    assert _visible(fig.data[0].x) == list(fig.layout.xaxis.ticktext)
    assert len(set(fig.data[0].x)) == len(expected_keys)  # repeated tokens stay distinct columns
    assert "layer 3, head 4" in fig.layout.title.text


def test_decoder_self_attention_has_target_tokens_on_both_axes(trace):
    fig = heatmap(trace, "decoder_self", 0, 0)
    assert [re.search(r"reading '(.*)'", y).group(1) for y in _visible(fig.data[0].y)] == list(
        fig.layout.xaxis.ticktext
    )
    assert fig.layout.xaxis.ticktext[0] == "&lt;s&gt;"
    assert len(fig.layout.xaxis.ticktext) == len(trace.target_tokens) != len(trace.source_tokens)


@pytest.mark.parametrize("kind", ["decoder_self", "cross"])
def test_decoder_rows_are_labelled_by_the_token_they_write(trace, kind):
    """Row t reads target token t and writes token t + 1 (the next decoder input): the label
    shows the written token first and the read one in grey after it."""
    ticks = list(heatmap(trace, kind, 0, 0).layout.yaxis.ticktext)
    read, written = trace.target_tokens[:-1], trace.target_tokens[1:]
    for tick, w, r in zip(ticks, written, read):
        shown, grey = re.fullmatch(r"(.*) <span style='color:[^']+'>(.*)</span>", tick).groups()
        assert (shown, grey) == (html.escape(w), html.escape(r))
    assert len(ticks) == len(trace.target_tokens)
    assert "token written" in fig_title_free(heatmap(trace, kind, 0, 0).layout.yaxis.title.text)


def fig_title_free(text: str) -> str:
    """An axis title without its colour markup."""
    return re.sub(r"<[^>]+>", "", text)


def test_heatmap_values_are_the_weights_and_the_hover_names_token_and_value(trace):
    fig = heatmap(trace, "encoder_self", 1, 5)
    z = np.asarray(fig.data[0].z, dtype=float)
    np.testing.assert_array_equal(z, trace.attention["encoder_self"][1, 5])
    template = fig.data[0].hovertemplate
    # Fill in Plotly's template by hand for one cell, as the browser does.
    q, k = 3, 2
    shown = (
        template.replace("%{y}", fig.data[0].y[q])
        .replace("%{x}", fig.data[0].x[k])
        .replace("%{z:.4f}", f"{z[q, k]:.4f}")
    )
    expected = f"query '{trace.source_tokens[q]}' → key '{trace.source_tokens[k]}': "
    assert shown.replace("\u200b", "").startswith(expected)
    assert f"{trace.attention['encoder_self'][1, 5, q, k]:.4f}" in shown
    assert (fig.data[0].zmin, fig.data[0].zmax) == (0.0, 1.0)


@pytest.mark.parametrize("kind", ["decoder_self", "cross"])
def test_decoder_hover_names_the_token_written_then_the_token_read(trace, kind):
    fig = heatmap(trace, kind, 1, 5)
    q, k = 2, 1
    shown = (
        fig.data[0]
        .hovertemplate.replace("%{y}", fig.data[0].y[q])
        .replace("%{x}", fig.data[0].x[k])
        .replace("%{z:.4f}", f"{trace.attention[kind][1, 5, q, k]:.4f}")
    )
    written, read = trace.steps[q].token, trace.target_tokens[q]
    key = trace.axis_tokens(kind)[1][k]
    expected = f"row writing '{written}' (reading '{read}') → key '{key}': "
    assert _visible([shown])[0].startswith(html.escape(expected, quote=False))
    if kind == "decoder_self":  # the masked layer names the row the same way
        assert fig.data[1].hovertemplate.startswith("row writing %{y}")


def test_decoder_self_masked_cells_are_gaps_not_zeros(trace):
    fig = heatmap(trace, "decoder_self", 4, 2)
    z = np.asarray(fig.data[0].z, dtype=float)
    n = len(trace.target_tokens)
    for q in range(n):
        for k in range(n):
            if k > q:
                assert math.isnan(z[q, k])
            else:
                assert z[q, k] == pytest.approx(float(trace.attention["decoder_self"][4, 2, q, k]))
    # A separate grey layer covers exactly the masked cells, and its hover says so.
    mask = np.asarray(fig.data[1].z, dtype=float)
    np.testing.assert_array_equal(~np.isnan(mask), np.isnan(z))
    assert "masked" in fig.data[1].hovertemplate


def test_mean_over_heads_is_the_numpy_mean(trace):
    fig = heatmap(trace, "encoder_self", 5, None)
    expected = np.mean(np.asarray(trace.attention["encoder_self"][5], dtype=np.float64), axis=0)
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), expected, atol=1e-6)
    assert "mean over heads" in fig.layout.title.text


def test_stretch_maps_the_head_maximum(trace):
    fig = heatmap(trace, "encoder_self", 0, 0, stretch=True)
    assert fig.data[0].zmax == pytest.approx(float(trace.attention["encoder_self"][0, 0].max()))


def test_typed_html_is_escaped_in_labels(trace):
    typed = dataclasses.replace(trace, source_tokens=("<b>x</b>",) + trace.source_tokens[1:])
    fig = heatmap(typed, "encoder_self", 0, 0)
    assert fig.layout.xaxis.ticktext[0] == "&lt;b&gt;x&lt;/b&gt;"
    assert "<b>" not in json.dumps([fig.data[0].x, fig.data[0].y])
    links = links_figure(typed, "encoder_self", 0, [0])
    assert "<b>" not in json.dumps([t.text for t in links.data if t.text is not None])


def _block(z, layer, head, n, m):
    """Block (layer, head) of an overview mosaic of n × m blocks with one cell between blocks."""
    return z[layer * (n + 1) : layer * (n + 1) + n, head * (m + 1) : head * (m + 1) + m]


def _gaps(shape, n, m):
    """Cells of a mosaic of n × m blocks that lie between blocks."""
    rows, cols = np.indices(shape)
    return (rows % (n + 1) == n) | (cols % (m + 1) == m)


def test_overview_is_one_mosaic_of_every_layer_and_head(trace):
    fig = overview(trace, "decoder_self")
    grey, weights, _ = fig.data  # the masked future is painted first, underneath the weights
    attention = np.asarray(trace.attention["decoder_self"], dtype=float)
    n_layers, n_heads, n, m = attention.shape
    z = np.asarray(weights.z, dtype=float)
    assert z.shape == (n_layers * (n + 1) - 1, n_heads * (m + 1) - 1)
    future = np.triu(np.ones((n, m), dtype=bool), k=1)
    for layer in range(n_layers):
        for head in range(n_heads):
            block = _block(z, layer, head, n, m)
            np.testing.assert_array_equal(block[~future], attention[layer, head][~future])
            assert np.isnan(block[future]).all()  # masked: no weight, not a weight of 0
    gaps = _gaps(z.shape, n, m)
    assert np.isnan(z[gaps]).all()
    # Grey covers exactly the masked cells, not the gaps, which stay on a white background.
    painted = ~np.isnan(np.asarray(grey.z, dtype=float))
    assert painted.sum() == n_layers * n_heads * future.sum()
    np.testing.assert_array_equal(painted, np.isnan(z) & ~gaps)
    assert not grey.showscale
    assert fig.layout.plot_bgcolor == "white"
    # The cells leave the hover to the click layer, which names each block's head.
    assert weights.hoverinfo == "skip" and grey.hoverinfo == "skip"
    assert (weights.zmin, weights.zmax) == (0.0, 1.0)
    assert weights.colorbar.title.text == "weight"


@pytest.mark.parametrize("kind", KINDS)
def test_overview_ticks_name_each_block(trace, kind):
    fig = overview(trace, kind)
    n_layers, n_heads, n, m = trace.attention[kind].shape
    xaxis, yaxis = fig.layout.xaxis, fig.layout.yaxis
    assert (xaxis.title.text, yaxis.title.text) == ("head", "layer")
    assert list(xaxis.ticktext) == [f"head {h}" for h in range(1, n_heads + 1)]
    assert list(yaxis.ticktext) == [f"layer {layer}" for layer in range(1, n_layers + 1)]
    # Each tick sits in the middle of its block: between the block's first and last cell.
    for h, tick in enumerate(xaxis.tickvals):
        assert tick == pytest.approx((h * (m + 1) + h * (m + 1) + m - 1) / 2)
    for layer, tick in enumerate(yaxis.tickvals):
        assert tick == pytest.approx((layer * (n + 1) + layer * (n + 1) + n - 1) / 2)
    assert yaxis.autorange == "reversed"  # layer 1 at the top
    # The categories behind the cells name the tokens of every block, each one distinct.
    queries, keys = trace.axis_tokens(kind)
    x, y = fig.data[-2].x, fig.data[-2].y
    assert len(set(x)) == len(x) and len(set(y)) == len(y)
    assert _visible(x[-m:]) == [html.escape(t) for t in keys]
    assert _visible(y[(n_layers - 1) * (n + 1) :]) == [html.escape(t) for t in queries]


@pytest.mark.parametrize("kind", KINDS)
def test_overview_has_one_click_point_per_head_in_the_middle_of_its_block(trace, kind):
    fig = overview(trace, kind)
    cells, clicks = fig.data[-2], fig.data[-1]
    n_layers, n_heads, n, m = trace.attention[kind].shape
    assert clicks.type == "scatter" and clicks.marker.opacity == 0
    assert len(clicks.x) == n_layers * n_heads
    assert fig.layout.hoverdistance == -1  # the point nearest the mouse: the block under it
    for layer in range(n_layers):
        for head in range(n_heads):
            i = layer * n_heads + head
            assert list(clicks.customdata[i]) == [layer, head]
            column, row = list(cells.x).index(clicks.x[i]), list(cells.y).index(clicks.y[i])
            assert column == head * (m + 1) + m // 2 and row == layer * (n + 1) + n // 2


def test_overview_hover_names_the_head_and_its_strongest_weights_exactly(trace):
    """Cross attention: rows named by the token written, then the one read; the weights are
    the head's three largest, found here with numpy."""
    fig = overview(trace, "cross")
    clicks = fig.data[-1]
    n_heads = trace.attention["cross"].shape[1]
    layer, head = 3, 5
    hover = clicks.hovertext[layer * n_heads + head]
    weights = np.asarray(trace.attention["cross"][layer, head], dtype=float)
    assert hover.startswith("layer 4, head 6 · click to open it")
    lines = hover.split("<br>")[2:]
    cells = sorted(np.ndindex(weights.shape), key=lambda c: -weights[c])[:3]
    for line, (q, k) in zip(lines, cells, strict=True):
        written, read = trace.steps[q].token, trace.target_tokens[q]
        key = trace.source_tokens[k]
        assert line == html.escape(
            f"'{written}' (reading '{read}') → '{key}': {weights[q, k]:.4f}", quote=False
        )


def test_overview_escapes_typed_tokens_and_keeps_numbers_off_the_ticks(trace):
    n = trace.attention["encoder_self"].shape[2]
    centre = str((n - 1) // 2)  # a token that reads as the number of a tick's position
    typed = ("<b>x</b>", centre) + trace.source_tokens[2:]
    fig = overview(dataclasses.replace(trace, source_tokens=typed), "encoder_self")
    labels = list(fig.data[0].x) + list(fig.data[0].y)
    assert "<b>" not in json.dumps(labels)
    assert _visible(fig.data[0].x[:2]) == ["&lt;b&gt;x&lt;/b&gt;", centre]
    for label in labels:
        with pytest.raises(ValueError):
            float(label)  # Plotly would place a tick at a category that reads as its number


def test_overview_draws_only_the_first_tokens_and_says_so(trace):
    fig = overview(trace, "cross", max_tokens=5, stretch=True)
    attention = np.asarray(trace.attention["cross"], dtype=float)
    n_layers, n_heads = attention.shape[:2]
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z.shape == (n_layers * 6 - 1, n_heads * 6 - 1)
    np.testing.assert_array_equal(_block(z, 2, 7, 5, 5), attention[2, 7, :5, :5])
    assert "(first 5 tokens)" in fig.layout.title.text
    assert fig.data[0].zmax == pytest.approx(attention[:, :, :5, :5].max())
    assert "first" not in overview(trace, "cross").layout.title.text


def test_breakdown_recomputes_eq1(trace):
    for kind, layer, head, query in (("encoder_self", 2, 1, 3), ("cross", 4, 6, 5)):
        table = breakdown_table(trace, kind, layer, head, query)
        q = np.asarray(trace.queries[kind][layer, head, query], dtype=np.float64)
        keys = np.asarray(trace.keys[kind][layer, head], dtype=np.float64)
        dots = np.array([sum(q[i] * key[i] for i in range(len(q))) for key in keys])
        np.testing.assert_allclose(table["q·k"], dots, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(table["scaled logit"], dots / math.sqrt(trace.d_k), atol=1e-9)
        np.testing.assert_allclose(
            table["softmax"], trace.attention[kind][layer, head, query], atol=1e-6
        )


def test_breakdown_of_decoder_self_masks_the_future(trace):
    query = 3
    table = breakdown_table(trace, "decoder_self", 1, 0, query)
    assert table["masked"].tolist() == [k > query for k in range(len(trace.target_tokens))]
    assert table.loc[table["masked"], "scaled logit"].isna().all()
    np.testing.assert_allclose(
        table["softmax"], trace.attention["decoder_self"][1, 0, query], atol=1e-6
    )
    fig = breakdown_figure(trace, "decoder_self", 1, 0, query)
    np.testing.assert_allclose(fig.data[-1].x, table["softmax"])


def test_link_opacities_are_the_weights(trace):
    fig = links_figure(trace, "encoder_self", 1, [0, 3])
    lines = [t for t in fig.data if t.mode == "lines" and t.showlegend is False]
    assert lines
    weights = trace.attention["encoder_self"][1]
    n = len(trace.source_tokens)
    for line in lines:
        head = int(re.match(r"head (\d+)", line.name).group(1)) - 1
        query, key = n - 1 - round(line.y[0]), n - 1 - round(line.y[1])
        assert line.opacity == pytest.approx(float(weights[head, query, key]))
    expected = int((weights[[0, 3]] >= 0.01).sum())
    assert len(lines) == min(expected, 400)


def _lab(hex_colour: str, alpha: float = 1.0) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour drawn at `alpha` over white, from the standard formulas."""
    rgb = np.array([int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    rgb = alpha * rgb + (1 - alpha)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array(
        [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
    )
    xyz = to_xyz @ linear / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_twelve_heads_get_twelve_distinct_colours_none_grey():
    weights = np.random.default_rng(0).dirichlet(np.ones(5), size=(12, 5))  # MiniLM's 12 heads
    tokens = ("a", "b", "c", "d", "e")
    fig = two_column_figure(tokens, tokens, range(12), select_lines(weights, range(12)), "t")
    swatches = [t for t in fig.data if t.showlegend is not False]
    assert [s.name for s in swatches] == [f"head {h}" for h in range(1, 13)]
    assert all(s.opacity in (None, 1) for s in swatches)  # the legend shows the full colour
    colours = [s.line.color for s in swatches]
    lab = [_lab(c) for c in colours]
    assert min(np.hypot(a, b) for _, a, b in lab) >= 25  # saturated: no grey, no near-black
    # Pairwise colour difference (CIE76 ΔE): 2.3 is just noticeable; 25 is another colour.
    assert min(np.linalg.norm(x - y) for x, y in itertools.combinations(lab, 2)) >= 25
    for line in (t for t in fig.data if t.mode == "lines" and t.showlegend is False):
        assert line.line.color == colours[int(line.name.split()[1]) - 1]


def test_two_heads_on_the_same_tokens_draw_two_lines():
    weights = np.zeros((2, 3, 3))
    weights[:, :, 2] = 1.0  # both heads: every query on the last key
    fig = two_column_figure(
        ("a", "b", "c"), ("a", "b", "c"), [0, 1], select_lines(weights, [0, 1]), "t"
    )
    lines = [t for t in fig.data if t.mode == "lines" and t.showlegend is False]
    ends = {(line.name, line.y) for line in lines}
    assert len(lines) == 6 and len({y for _, y in ends}) == 6  # side by side, not on top
    assert all(abs(y - round(y)) <= 0.25 for _, ys in ends for y in ys)  # near their tokens


def test_link_focus_keeps_only_that_tokens_lines(trace):
    chosen = select_links(trace, "cross", 2, [1, 2], focus=("query", 4))
    assert chosen.links and all(link.query == 4 for link in chosen.links)
    everything = trace.attention["cross"][2][[1, 2], 4]
    assert len(chosen.links) == int((everything >= 0.01).sum())
    arriving = select_links(trace, "cross", 2, [1], focus=("key", 0))
    assert arriving.links and all(link.key == 0 for link in arriving.links)


def test_links_are_capped(trace):
    capped = select_links(trace, "encoder_self", 0, list(range(8)), max_lines=10)
    assert len(capped.links) == 10
    weights = sorted(trace.attention["encoder_self"][0].ravel(), reverse=True)
    assert [link.weight for link in capped.links] == pytest.approx(weights[:10])


def test_csv_round_trips_to_the_tensor(trace):
    text = export.attention_csv(trace, "cross", [1, 3], [0, 7])
    frame = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert list(frame.columns) == export.CSV_COLUMNS
    rebuilt = np.zeros((2, 2, len(trace.target_tokens), len(trace.source_tokens)))
    for row in frame.itertuples():
        # Layers and heads are written from 1, as people read them: arrays 1, 3 and 0, 7.
        rebuilt[[2, 4].index(row.layer), [1, 8].index(row.head), row.query_index, row.key_index] = (
            row.weight
        )
        assert row.query_token == trace.target_tokens[row.query_index]
        assert row.key_token == trace.source_tokens[row.key_index]
    np.testing.assert_allclose(rebuilt, trace.attention["cross"][np.ix_([1, 3], [0, 7])], rtol=1e-7)


def test_csv_of_decoder_self_leaves_out_the_masked_future(trace):
    frame = pd.read_csv(io.StringIO(export.attention_csv(trace, "decoder_self", [0], [0])))
    n = len(trace.target_tokens)
    assert len(frame) == n * (n + 1) // 2
    assert (frame["key_index"] <= frame["query_index"]).all()


def test_html_export_works_offline(trace):
    page = export.figure_html(heatmap(trace, "encoder_self", 0, 0))
    assert "<html>" in page and "Plotly.newPlot" in page
    assert not re.search(r"<script[^>]*src=[\"']https?:", page)
    assert len(page) > 1_000_000  # plotly.js itself is inside


def test_trace_json_is_the_trace(trace):
    data = json.loads(export.trace_json(trace))
    np.testing.assert_allclose(data["attention"]["cross"], trace.attention["cross"])
    assert data["source_tokens"] == list(trace.source_tokens)


def test_decoding_step_figure_and_alternatives(trace):
    step = 2
    fig = step_figure(trace, 3, step)
    np.testing.assert_array_equal(
        np.asarray(fig.data[0].z), trace.attention["cross"][3, :, step, :]
    )
    assert _visible(fig.data[0].x) == list(trace.source_tokens)
    assert trace.steps[step].token in fig.layout.title.text
    bars = alternatives_figure(trace, step).data[0]
    assert list(bars.x[: len(trace.steps[step].alternatives)]) == [
        p for _, p in trace.steps[step].alternatives
    ]


# The reference for TEXT, written by hand: word for word, each German word aligned to the
# English word in the same place.
HAND_REFERENCE = Reference(
    "Der kleine Hund sieht den alten Mann.",
    ("der", "kleine", "Hund", "sieht", "den", "alten", "Mann", "."),
    tuple((i,) for i in range(8)),
)


def test_no_gold_alignment_without_a_reference(trace):
    assert gold_alignment(trace, None) is None


def test_gold_alignment_exact_when_the_reference_was_written(trace):
    # The reference for TEXT, written by hand: word-for-word, "der kleine Hund sieht den alten
    # Mann ." (each German word aligned to the English word in the same place).
    german = ("der", "kleine", "Hund", "sieht", "den", "alten", "Mann", ".", "</s>")
    steps = tuple(
        dataclasses.replace(trace.steps[0], query_token=q, token=t)
        for q, t in zip(("<s>",) + german[:-1], german)
    )
    perfect = dataclasses.replace(trace, steps=steps)
    gold = gold_alignment(perfect, HAND_REFERENCE)
    assert gold.exact
    assert gold.rows == tuple((i,) for i in range(8)) + (None,)
    fig = step_figure(perfect, 0, 2, gold)
    # One outline around the column of "dog" (source position 2), over every head's row.
    (mark,) = fig.layout.shapes
    assert (mark.x0, mark.x1) == (1.5, 2.5) and trace.source_tokens[2] == "dog"
    assert (mark.y0, mark.y1) == (-0.5, trace.n_heads - 0.5)
    assert fig.data[1].name == "gold alignment"


def test_gold_alignment_by_matching_when_the_output_differs(trace):
    written = ("der", "Mann", "</s>")
    steps = tuple(
        dataclasses.replace(trace.steps[0], query_token=q, token=t)
        for q, t in zip(("<s>",) + written[:-1], written)
    )
    gold = gold_alignment(dataclasses.replace(trace, steps=steps), HAND_REFERENCE)
    assert not gold.exact
    assert gold.rows == ((0,), (6,), None)  # "Mann" borrows the reference's link to "man"


# "the small dog sees the old man ." with a made-up pronoun link, written by hand: query 2
# ("dog") stands for keys 5-6 ("old man"); the German pronoun is reference token 2.
COREF_REFERENCE = Reference(
    "Der kleine Hund sieht den alten Mann.",
    ("der", "kleine", "Hund", "sieht", "den", "alten", "Mann", "."),
    tuple((i,) for i in range(8)),
    (CorefLink((2,), (5, 6), (2,)),),
)


def test_coreference_cells_of_the_encoder_are_the_pronoun_row_on_the_antecedent(trace):
    assert coreference_cells(trace, "encoder_self", COREF_REFERENCE) == [(2, 5), (2, 6)]
    assert coreference_cells(trace, "decoder_self", COREF_REFERENCE) == []
    assert coreference_cells(trace, "encoder_self", None) == []


def test_cross_attention_marks_only_the_row_that_wrote_the_reference_pronoun(trace):
    german = COREF_REFERENCE.target_tokens + ("</s>",)
    steps = tuple(
        dataclasses.replace(trace.steps[0], query_token=q, token=t)
        for q, t in zip(("<s>",) + german[:-1], german)
    )
    wrote_it = dataclasses.replace(trace, steps=steps)
    assert coreference_cells(wrote_it, "cross", COREF_REFERENCE) == [(2, 5), (2, 6)]
    other = steps[:2] + (dataclasses.replace(steps[2], token="Katze"),) + steps[3:]
    assert (
        coreference_cells(dataclasses.replace(trace, steps=other), "cross", COREF_REFERENCE) == []
    )


def test_heatmap_outlines_the_marked_cells_exactly(trace):
    fig = heatmap(trace, "encoder_self", 0, 0, marks=[(2, 5), (2, 6)])
    boxes = sorted((s.x0, s.x1, s.y0, s.y1) for s in fig.layout.shapes if s.type == "rect")
    assert boxes == [(4.5, 5.5, 1.5, 2.5), (5.5, 6.5, 1.5, 2.5)]
    # with "the" hidden, "dog" is row 1 and "old", "man" are columns 3 and 4
    fig = heatmap(trace, "encoder_self", 0, 0, hidden={"the"}, marks=[(2, 5), (2, 6)])
    boxes = sorted((s.x0, s.y0) for s in fig.layout.shapes if s.type == "rect")
    assert boxes == [(2.5, 0.5), (3.5, 0.5)]


@pytest.mark.parametrize("presentation, page_px", [(False, 656), (True, 1344)])
def test_a_long_text_on_a_narrow_page_labels_every_nth_key_without_overprinting(
    presentation, page_px
):
    """41 words on the Attention tab's figure column: the heatmap keeps to the page and labels
    1 key in n, n the least that gives each labelled column an upright label's height
    (1.3 font sizes: 18 px text, 25.2 px in presentation mode)."""
    loaded = registry.load("paper-untrained", torch.device("cpu"))
    words = (
        "the old man sees the small dog near the house and the young woman reads a book " * 3
    ).split()[:41]
    trace = run(loaded, " ".join(words))
    fig = heatmap(trace, "encoder_self", 0, 0, presentation=presentation, max_width=page_px)
    assert fig.layout.width == page_px
    keys = list(fig.data[0].x)
    labelled = list(fig.layout.xaxis.tickvals)
    step = keys.index(labelled[1])
    assert step > 1 and labelled == keys[::step]  # evenly, from the first key
    # Each labelled column is at least an upright label's line high: even spread over the
    # whole page (more than the plot gets) the step must give 1.3 font sizes.
    font = 18 * (1.4 if presentation else 1.0)
    assert page_px / len(keys) * step >= 1.3 * font
    assert page_px / len(keys) * (step - 1) < 1.3 * font * 1.6  # and not much sparser
    assert f"1 in {step} labelled" in fig.layout.xaxis.title.text
    short = heatmap(trace, "encoder_self", 0, 0, presentation=presentation, max_width=100_000)
    assert len(short.layout.xaxis.tickvals) == len(keys)  # room enough: every key labelled


@pytest.mark.parametrize("kind", ["cross", "decoder_self"])
def test_decoder_queries_in_token_links_are_the_tokens_written(trace, kind):
    """Row t of the decoder reads target token t and writes token t + 1: the left column names
    the word written first, the word read after it (grey), as the heatmap's rows do."""
    fig = links_figure(trace, kind, 0, [0])
    left = next(t for t in fig.data if t.mode == "text" and t.x[0] < 0.5)
    target = list(trace.target_tokens)  # <s> first: what each row reads
    written = [step.token for step in trace.steps]  # the decoder's output, one per row
    assert len(left.text) == len(target)
    for label, read, wrote in zip(left.text, target, written):
        plain = re.sub(r"<[^>]+>", "", label)
        assert plain == f"{html.escape(wrote)} {html.escape(read)}"
        assert label.startswith(html.escape(wrote))  # written first, in the plain colour
    assert fig.layout.xaxis.ticktext[0] == "written (read)"


def test_strongest_links_are_the_largest_weights_in_reading_order_among_ties(trace):
    """Against a full stable sort of the head's weights (the reference), on the real weights
    and on a head rewritten with ties across the cut-off."""
    from viz.attention import strongest_links

    kind = "encoder_self"
    queries, keys = trace.axis_tokens(kind)
    weights = trace.attention[kind]
    tied = np.zeros_like(weights)
    tied[0, 0, -1, 0] = tied[0, 0, 0, 1] = tied[0, 0, 1, 0] = tied[0, 0, 0, 0] = 0.25
    for attention in (weights, tied):
        tested = dataclasses.replace(trace, attention={**trace.attention, kind: attention})
        head = attention[0, 0]
        order = np.argsort(-head, axis=None, kind="stable")[:3]
        expected = [
            f"'{queries[q]}' → '{keys[k]}': {head[q, k]:.4f}"
            for q, k in zip(*np.unravel_index(order, head.shape))
        ]
        assert strongest_links(tested, kind, 0, 0) == expected


def test_a_folded_system_turn_is_one_column_of_its_summed_weight_without_its_rows(trace):
    """Issue 66, item 5: a chat prompt's system turn folded (here the first 3 decoder tokens of
    the untrained model's run stand for it). Expected values from the Trace's own array."""
    n = 3
    chat = dataclasses.replace(trace, system_length=n)
    fig = heatmap(chat, "decoder_self", 1, 2, fold_system=True)
    weights = np.asarray(trace.attention["decoder_self"][1, 2], dtype=np.float64)
    z = np.asarray(fig.data[0].z, dtype=np.float64)
    rows = len(trace.target_tokens) - n
    assert z.shape == (rows, rows + 1)
    assert _visible(fig.data[0].x)[0] == "[system prompt: 3 tokens]"
    assert _visible(fig.data[0].x)[1:] == [html.escape(t) for t in trace.target_tokens[n:]]
    np.testing.assert_allclose(z[:, 0], weights[n:, :n].sum(axis=1), atol=1e-6)
    for i in range(rows):  # row i is position n + i: it reads keys up to n + i, no further
        seen = z[i, 1 : i + 2]
        np.testing.assert_allclose(seen, weights[n + i, n : n + i + 1], atol=1e-6)
        assert np.isnan(z[i, i + 2 :]).all()
        assert np.nansum(z[i]) == pytest.approx(1.0, abs=1e-5)
    assert "system prompt folded" in fig.layout.title.text
    # shown (the default), nothing is folded
    whole = heatmap(chat, "decoder_self", 1, 2)
    assert np.asarray(whole.data[0].z).shape == (rows + n, rows + n)
