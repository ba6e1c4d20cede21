"""viz/atlas.py: every head's statistics over a corpus of two sentences, worked out by hand
here; AER and the antecedent hit rate against hand-made gold links; the named roles; and the
pictures (points, hover text escaped, one small scatter per head)."""

import json
import math
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest

from runtime.atlas import CorpusRun, HeadMap, SentenceRun, first_sentences, head_map
from runtime.reference import CorefLink, Reference
from viz.atlas import (
    FADED_COLOR,
    KEY_COLOR,
    MATRIX_GAP,
    MATRIX_POINTS,
    QUERY_COLOR,
    corpus_statistics,
    head_role,
    head_scatter,
    matrix_figure,
    named_token_counts,
)


def sentence(text, kind, query_tokens, key_tokens, weights, reference=None, d_k=2):
    weights = np.asarray(weights, dtype=np.float32)
    layers, heads, n, m = weights.shape
    rng = np.random.default_rng(len(text))
    return SentenceRun(
        text=text,
        tokens=MappingProxyType({kind: (tuple(query_tokens), tuple(key_tokens))}),
        attention=MappingProxyType({kind: weights}),
        queries=MappingProxyType({kind: rng.normal(size=(layers, heads, n, d_k))}),
        keys=MappingProxyType({kind: rng.normal(size=(layers, heads, m, d_k))}),
        reference=reference,
    )


def corpus_of(kind, *sentences):
    layers, heads = sentences[0].attention[kind].shape[:2]
    return CorpusRun("hand", tuple(sentences), (kind,), layers, heads, 1 / math.sqrt(2))


# Sentence A: [CLS] a b; sentence B: x . — one layer, one head of encoder self-attention.
A = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 1.0, 0.0]]
B = [[0.0, 1.0], [1.0, 0.0]]
HAND = corpus_of(
    "encoder_self",
    sentence("A", "encoder_self", ["[CLS]", "a", "b"], ["[CLS]", "a", "b"], [[A]]),
    sentence("B", "encoder_self", ["x", "."], ["x", "."], [[B]]),
)


def test_statistics_over_a_corpus_are_means_over_all_its_query_rows():
    (row,) = corpus_statistics(HAND, {"[CLS]"}).to_dict("records")
    # rows with a previous token: A1 0.5, A2 1, B1 1
    assert row["previous_share"] == pytest.approx((0.5 + 1 + 1) / 3)
    # rows with a next token: A0 0, A1 0, B0 1
    assert row["next_share"] == pytest.approx(1 / 3)
    assert row["self_share"] == pytest.approx((1 + 0.5 + 0 + 0 + 0) / 5)
    assert row["special_share"] == pytest.approx((1 + 0.5) / 5)  # on [CLS]
    assert row["punctuation_share"] == pytest.approx(1 / 5)  # B0 on "."
    assert row["mean_distance"] == pytest.approx((0 + 0.5 + 1 + 1 + 1) / 5)
    assert row["entropy_nats"] == pytest.approx(math.log(2) / 5)  # A1 alone is not focused
    assert row["entropy_normalised"] == pytest.approx(math.log(2) / math.log(3) / 5)
    assert row["max_weight"] == pytest.approx((1 + 0.5 + 1 + 1 + 1) / 5)
    assert math.isnan(row["aer"]) and math.isnan(row["antecedent_share"])  # no gold here
    assert row["role"] == "previous token"


def test_aer_and_antecedent_hits_against_hand_made_gold_links():
    """Cross attention, one layer, two heads, keys 'she' 'Anna'. Rows: <s> writes piece 0,
    'Sie' writes piece 1, then </s>. Gold: piece 0 ← source 1, piece 1 ← source 0; the pronoun
    (source 0, German piece 1) stands for 'Anna' (source 1)."""
    head_right = [[0.1, 0.9], [0.8, 0.2], [0.5, 0.5]]  # links 1, 0: both gold
    head_wrong = [[0.9, 0.1], [0.3, 0.7], [0.5, 0.5]]  # links 0, 1: neither
    reference = Reference(
        text="Sie …",
        target_tokens=("Anna", "Sie"),
        alignment=((1,), (0,)),
        coreference=(CorefLink((0,), (1,), (1,)),),
    )
    tokens = (["<s>", "Anna", "Sie"], ["she", "Anna"])
    corpus = corpus_of(
        "cross", sentence("s", "cross", *tokens, [[head_right, head_wrong]], reference)
    )
    table = corpus_statistics(corpus, {"<s>"})
    assert table["aer"].tolist() == pytest.approx([0.0, 1.0])  # 1 − 2·|A∩G| / (|A| + |G|)
    # row 1 writes the German pronoun: head_right looks at 'she', head_wrong at 'Anna'
    assert table["antecedent_share"].tolist() == pytest.approx([0.0, 1.0])
    assert table["pronoun_links"].tolist() == [1, 1]
    assert table["role"].tolist()[0] == "word alignment"
    assert table["role"].tolist()[1] != "pronoun → antecedent"  # one pronoun is too few


@pytest.mark.parametrize(
    ("values", "role"),
    [
        ({"previous_share": 0.6, "self_share": 0.3}, "previous token"),
        ({"previous_share": 0.55, "special_share": 0.7}, "special tokens"),
        ({"punctuation_share": 0.49, "entropy_normalised": 0.9}, "broad"),
        ({"antecedent_share": 0.45, "pronoun_links": 40}, "pronoun → antecedent"),
        ({"antecedent_share": 0.45, "pronoun_links": 9}, "—"),
        ({"antecedent_share": 0.9, "pronoun_links": 40, "entropy_normalised": 0.99}, "broad"),
        ({"aer": 0.5}, "word alignment"),
        ({"aer": 0.51, "entropy_normalised": 0.5}, "—"),
    ],
)
def test_a_head_is_named_where_one_statistic_passes_its_threshold(values, role):
    row = {
        "previous_share": 0.0,
        "next_share": 0.0,
        "self_share": 0.0,
        "special_share": 0.0,
        "punctuation_share": 0.0,
        "entropy_normalised": 0.5,
        "aer": np.nan,
        "antecedent_share": np.nan,
        "pronoun_links": 0,
    }
    assert head_role(pd.Series(row | values)) == role


def test_the_head_picture_has_every_query_and_key_with_typed_text_escaped():
    weights = [[[[0.5, 0.5], [0.5, 0.5]]]]
    corpus = corpus_of(
        "encoder_self",
        sentence("1", "encoder_self", ["<b>", "x"], ["<b>", "x"], weights),
        sentence("2", "encoder_self", ["y", "z"], ["y", "z"], weights),
    )
    figure = head_scatter(corpus, "encoder_self", 0, 0, "position")
    queries, keys = figure.data
    assert len(queries.x) == len(keys.x) == 4
    assert queries.marker.cmin == 1 and queries.marker.cmax == 2  # positions, fixed scale
    assert "&lt;b&gt;" in queries.hovertext[0] and "<b>" not in queries.hovertext[0]
    assert "sentence 1, position 1" in queries.hovertext[0]
    assert "layer 1, head 1" in figure.layout.title.text
    assert "variance" in figure.layout.xaxis.title.text
    json.loads(figure.to_json())  # serialisable as the page sends it


def test_a_named_token_is_drawn_in_colour_and_every_other_point_faded():
    weights = [[[[0.5, 0.5], [0.5, 0.5]]]]
    corpus = corpus_of(
        "encoder_self",
        sentence("1", "encoder_self", ["It", "rained"], ["It", "rained"], weights),
        sentence("2", "encoder_self", ["sp", "##it"], ["sp", "##it"], weights),
    )
    figure = head_scatter(corpus, "encoder_self", 0, 0, "token", named=" it ")
    queries, keys, named_queries, named_keys = figure.data
    assert queries.marker.color == keys.marker.color == FADED_COLOR
    # 'It' (case aside) and the word piece '##it' are the token; 'rained' and 'sp' are not:
    # drawn again on top, with their places among all queries or keys
    assert list(named_queries.customdata) == list(named_keys.customdata) == [0, 3]
    assert named_queries.marker.color == QUERY_COLOR and named_keys.marker.color == KEY_COLOR
    assert list(named_queries.x) == [queries.x[0], queries.x[3]]
    assert named_queries.name == "“it” as a query (2)"
    assert "sentence 2, position 2" in named_keys.hovertext[1]
    marked = head_scatter(corpus, "encoder_self", 0, 0, "token", named="<b>")
    assert marked.data[2].name == "“&lt;b&gt;” as a query (0)"  # typed text stays text
    mapped = head_map(corpus, "encoder_self", 0, 0)
    assert named_token_counts(mapped, corpus, "encoder_self", "IT") == (2, 2)
    assert named_token_counts(mapped, corpus, "encoder_self", "") == (0, 0)


def test_a_tsne_picture_says_its_axes_have_no_unit_and_which_sentences_it_draws():
    weights = [[[[0.5, 0.5], [0.5, 0.5]]]]
    corpus = corpus_of(
        "encoder_self",
        *(sentence(str(i), "encoder_self", ["a", "b"], ["a", "b"], weights) for i in range(4)),
    )
    mapped = head_map(corpus, "encoder_self", 0, 0, "tsne")
    figure = head_scatter(corpus, "encoder_self", 0, 0, mapped=mapped)
    assert figure.layout.xaxis.title.text == "t-SNE axis 1 (no unit)"
    assert "4 sentences (t-SNE)" in figure.layout.title.text
    points, drawn = first_sentences(mapped.points, 8)  # 2 queries and 2 keys a sentence
    first_two = HeadMap(mapped.query_xy[:4], mapped.key_xy[:4], points, None, 1.0, "tsne", drawn)
    titled = head_scatter(corpus, "encoder_self", 0, 0, mapped=first_two)
    assert "the first 2 of 4 sentences (t-SNE)" in titled.layout.title.text


def test_the_matrix_draws_every_head_in_its_own_cell():
    weights = np.full((2, 3, 2, 2), 0.5)
    corpus = corpus_of(
        "encoder_self",
        sentence("1", "encoder_self", ["a", "b"], ["a", "b"], weights),
        sentence("2", "encoder_self", ["c", "d"], ["c", "d"], weights),
    )
    figure = matrix_figure(corpus, "encoder_self")
    assert [trace.name for trace in figure.data] == ["queries", "keys"]
    step = 1 + MATRIX_GAP
    for trace in figure.data:
        assert len(trace.x) == 2 * 3 * 4  # every head draws the corpus's 4 tokens of each side
        for index, (x, y) in enumerate(zip(trace.x, trace.y)):
            layer, head = divmod(index // 4, 3)
            assert head * step <= x <= head * step + 1  # head's column, from the left
            assert (1 - layer) * step <= y <= (1 - layer) * step + 1  # layer 1 on top
            # hover: layer, head, sentence and position (from 1) as customdata, the token as text
            sentence_no, position = divmod(index % 4, 2)
            assert list(trace.customdata[index]) == [
                layer + 1,
                head + 1,
                sentence_no + 1,
                position + 1,
            ]
            assert trace.text[index] == "abcd"[index % 4]
        assert "layer %{customdata[0]}, head %{customdata[1]}" in trace.hovertemplate
    assert list(figure.layout.xaxis.ticktext) == ["H1", "H2", "H3"]
    assert list(figure.layout.yaxis.ticktext) == ["L1", "L2"]
    assert figure.layout.yaxis.tickvals[0] > figure.layout.yaxis.tickvals[1]  # L1 above L2
    assert len(figure.layout.shapes) == 6  # a frame per head
    by_position = matrix_figure(corpus, "encoder_self", colour_by="position")
    assert list(by_position.data[0].marker.color[:4]) == [1, 2, 1, 2]  # positions, from 1
    assert sum(bool(t.marker.showscale) for t in by_position.data) == 1  # one colour bar


def test_the_matrix_of_a_large_model_stays_small_and_escapes_tokens():
    """SmolLM2's 30 x 9 heads: a label written out per point made a 10 MB figure; the token is
    sent once a point and the numbers as binary customdata. A typed token is never markup."""
    layers, heads, n, d_k = 30, 9, 8, 64
    words = ["<b>bold</b>", "a", "b", "c", "d", "e", "f", "g"]
    weights = np.full((layers, heads, n, n), 1 / n)
    corpus = corpus_of(
        "encoder_self",
        *(sentence(str(i), "encoder_self", words, words, weights, d_k=d_k) for i in range(30)),
    )
    figure = matrix_figure(corpus, "encoder_self")
    assert len(figure.to_json()) < 2_500_000
    queries = figure.data[0]
    assert len(queries.x) == layers * heads * MATRIX_POINTS
    assert "&lt;b&gt;bold&lt;/b&gt;" in queries.text and "<b>bold</b>" not in queries.text
