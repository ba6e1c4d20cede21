"""Find the head: the ranking against loops over every head written out by hand, the causal mask,
and the figure's cells, hovers and click points against the Trace."""

import numpy as np
import pytest

from runtime.trace import run
from viz.attention import clicked_head
from viz.find_head import MaskedKeyError, rank_heads, ranking_grid

PAPER_SENTENCE = "The animal didn't cross the street because it was too tired."


def _softmax_rows(logits):
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _by_hand(weights, query, key, visible):
    """(layer, head, weight, place) of every head, sorted strongest first, by plain loops."""
    found = []
    for layer in range(weights.shape[0]):
        for head in range(weights.shape[1]):
            w = float(weights[layer, head, query, key])
            stronger = sum(1 for j in range(visible) if float(weights[layer, head, query, j]) > w)
            found.append((layer + 1, head + 1, w, stronger + 1))
    return sorted(found, key=lambda row: (-row[2], row[0], row[1]))


def test_every_head_is_ranked_by_the_weight_from_query_to_key():
    weights = _softmax_rows(np.random.default_rng(3).normal(size=(4, 6, 7, 7)) * 3)
    table = rank_heads(weights, "encoder_self", 5, 2)
    expected = _by_hand(weights, 5, 2, 7)
    assert list(table["rank"]) == list(range(1, 25))
    assert list(zip(table["layer"], table["head"])) == [(r[0], r[1]) for r in expected]
    np.testing.assert_array_equal(table["weight"], [r[2] for r in expected])
    assert list(table["place"]) == [r[3] for r in expected]
    assert table["weight"].is_monotonic_decreasing


def test_equal_weights_keep_layer_then_head_order():
    weights = np.full((2, 3, 2, 2), 0.5)
    table = rank_heads(weights, "encoder_self", 0, 1)
    assert list(zip(table["layer"], table["head"])) == [
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 1),
        (2, 2),
        (2, 3),
    ]
    assert (table["place"] == 1).all()  # a tie with the other key: nothing is stronger


def test_cross_attention_ranks_a_target_query_against_a_source_key():
    weights = _softmax_rows(np.random.default_rng(4).normal(size=(2, 2, 3, 5)))
    table = rank_heads(weights, "cross", 2, 4)
    assert [(r.layer, r.head) for r in table.itertuples()] == [
        (r[0], r[1]) for r in _by_hand(weights, 2, 4, 5)
    ]


def test_decoder_self_attention_respects_the_causal_mask():
    """A later key has no weight at all: asking for it is refused. For an earlier key, the place
    counts only the keys the row may see, whatever the array holds beyond the mask."""
    rng = np.random.default_rng(5)
    weights = rng.uniform(size=(2, 3, 4, 4))
    weights[..., np.triu_indices(4, k=1)[0], np.triu_indices(4, k=1)[1]] = 9.0  # not weights
    with pytest.raises(MaskedKeyError, match="after the query"):
        rank_heads(weights, "decoder_self", 1, 3)
    table = rank_heads(weights, "decoder_self", 2, 1)
    expected = _by_hand(weights, 2, 1, visible=3)
    assert list(table["place"]) == [r[3] for r in expected]
    assert table["place"].max() <= 3
    # The same key under an encoder (no mask) counts the large values as stronger keys.
    assert rank_heads(weights, "encoder_self", 2, 1)["place"].min() >= 2


@pytest.mark.parametrize("query, key", [(-1, 0), (0, 4), (4, 0)])
def test_positions_outside_the_text_are_refused(query, key):
    with pytest.raises(ValueError, match="outside"):
        rank_heads(np.zeros((1, 1, 4, 4)), "encoder_self", query, key)


@pytest.fixture(scope="module")
def paper_trace(minilm):
    return run(minilm, PAPER_SENTENCE)


def test_minilm_it_to_animal(paper_trace):
    """The paper's anaphora sentence: the best head is numpy's argmax over every head."""
    tokens = paper_trace.source_tokens
    query, key = tokens.index("it"), tokens.index("animal")
    attention = np.asarray(paper_trace.attention["encoder_self"], dtype=np.float64)
    table = rank_heads(attention, "encoder_self", query, key)
    per_head = attention[:, :, query, key]
    best = np.unravel_index(per_head.argmax(), per_head.shape)
    assert (table["layer"][0], table["head"][0]) == (best[0] + 1, best[1] + 1)
    assert table["weight"][0] == pytest.approx(per_head.max())
    assert len(table) == per_head.size == 72


def test_the_grid_shows_every_weight_hovers_it_exactly_and_reports_clicked_heads(paper_trace):
    tokens = paper_trace.source_tokens
    query, key = tokens.index("it"), tokens.index("animal")
    attention = paper_trace.attention["encoder_self"]
    table = rank_heads(attention, "encoder_self", query, key)
    fig = ranking_grid(table, "encoder_self", "it", "animal")
    cells, clicks = fig.data
    np.testing.assert_allclose(np.asarray(cells.z, dtype=float), attention[:, :, query, key])
    assert (cells.zmin, cells.zmax) == (0.0, 1.0)
    # The five strongest heads are marked in their cells, by rank; the others stay plain.
    marks = np.asarray(cells.text)
    for rank, row in enumerate(table.itertuples(), start=1):
        assert marks[row.layer - 1, row.head - 1] == (f"#{rank}" if rank <= 5 else "")
    assert list(fig.layout.xaxis.tickvals) == list(range(1, 13))  # heads numbered from 1
    assert list(fig.layout.yaxis.tickvals) == list(range(1, 7))
    assert "'it' → 'animal'" in fig.layout.title.text
    best = table.iloc[0]
    point = int((best["layer"] - 1) * 12 + best["head"] - 1)
    assert (clicks.x[point], clicks.y[point]) == (best["head"], best["layer"])
    assert f"{best['weight']:.4f}" in clicks.hovertext[point]
    assert "rank 1 of 72" in clicks.hovertext[point]
    # A click reports this point's 0-based head, as Streamlit hands it back.
    selected = [
        {"curve_number": 1, "point_index": point, "customdata": list(clicks.customdata[point])}
    ]
    assert clicked_head(selected) == (best["layer"] - 1, best["head"] - 1)
    assert clicked_head([{"curve_number": 0, "point_index": 3}]) is None


def test_typed_tokens_are_escaped_in_the_grid(paper_trace):
    table = rank_heads(paper_trace.attention["encoder_self"], "encoder_self", 1, 2)
    fig = ranking_grid(table, "encoder_self", "<b>x</b>", "<i>y</i>")
    assert "<b>" not in fig.layout.title.text and "<i>" not in " ".join(fig.data[1].hovertext)
    assert "&lt;b&gt;" in fig.layout.title.text
