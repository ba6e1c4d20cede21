"""Figures 3–5's statistics: words from WordPiece pieces, and each statistic against a hand
computation (loops over the definition) or an attention pattern whose answer is known."""

import numpy as np
import pytest

from runtime.trace import run
from viz import paper_heads
from viz.paper_heads import (
    FAR_WORDS,
    antecedent_weight,
    group_words,
    long_distance_mass,
    offset_share,
    pick_heads,
    ranking_frame,
    score_heatmap,
    word_attention,
)

SPECIAL = {"[CLS]", "[SEP]"}
TOKENS = ("[CLS]", "the", "fav", "##our", "##ite", "dog", "s", "##nor", "##kel", ".", "[SEP]")
SPLIT_TEXT = "Its unaffordability hurts the snorkelers who lobbied."


def _stochastic(rng, *shape):
    """Random attention weights: each row a probability distribution (a softmax's output)."""
    return rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])


def test_pieces_join_into_words_and_specials_stay_alone():
    words = group_words(TOKENS, SPECIAL)
    assert words.text == ("[CLS]", "the", "favourite", "dog", "snorkel", ".", "[SEP]")
    assert words.pieces == ((0,), (1,), (2, 3, 4), (5,), (6, 7, 8), (9,), (10,))
    assert words.special == (True, False, False, False, False, False, True)
    assert words.ordinary == [1, 2, 3, 4, 5]
    assert words.index("DOG") == 3 and words.index("cat") is None


def test_word_weights_sum_key_pieces_and_average_query_pieces():
    rng = np.random.default_rng(0)
    words = group_words(TOKENS, SPECIAL)
    tokens = _stochastic(rng, 2, 3, len(TOKENS), len(TOKENS))
    got = word_attention(tokens, words)
    assert got.shape == (2, 3, 7, 7)
    np.testing.assert_allclose(got.sum(axis=-1), 1.0, atol=1e-12)  # rows still sum to 1
    for a, query_pieces in enumerate(words.pieces):  # the definition, as loops
        for b, key_pieces in enumerate(words.pieces):
            expected = np.mean([tokens[..., i, key_pieces].sum(-1) for i in query_pieces], axis=0)
            np.testing.assert_allclose(got[..., a, b], expected, atol=1e-12)


def test_word_rows_sum_to_one_on_minilm_with_split_words(minilm):
    trace = run(minilm, SPLIT_TEXT)
    words = group_words(trace.source_tokens, minilm.special_tokens)
    assert len(words.text) < len(trace.source_tokens)  # WordPiece did split words here
    assert "unaffordability" in words.text and "snorkelers" in words.text
    weights = word_attention(trace.attention["encoder_self"], words)
    assert weights.shape == (6, 12, len(words.text), len(words.text))
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-5)


def _one_hot_rows(keys_of_query, n, n_heads=1):
    """[1, head, n, n] attention: query i puts all its weight on key keys_of_query(head, i)."""
    weights = np.zeros((1, n_heads, n, n))
    for head in range(n_heads):
        for i in range(n):
            weights[0, head, i, keys_of_query(head, i)] = 1.0
    return weights


def test_long_distance_mass_counts_words_far_from_the_query():
    words = group_words(["[CLS]"] + [f"w{i}" for i in range(1, 11)] + ["[SEP]"], SPECIAL)
    n, query = 12, 5
    # head 0: on the word FAR_WORDS away; head 1: its neighbour; head 2: [SEP], far but no word
    targets = {0: query + FAR_WORDS, 1: query + 1, 2: 11}
    weights = _one_hot_rows(lambda h, i: targets[h], n, 3)
    np.testing.assert_allclose(long_distance_mass(weights, words, query)[0], [1.0, 0.0, 0.0])
    rng = np.random.default_rng(1)
    weights = _stochastic(rng, 2, 4, n, n)
    expected = np.zeros((2, 4))
    for j in range(1, 11):  # ordinary words only
        if abs(j - query) >= FAR_WORDS:
            expected += weights[:, :, query, j]
    np.testing.assert_allclose(long_distance_mass(weights, words, query), expected)


def test_offset_share_finds_a_previous_word_head():
    words = group_words(["[CLS]"] + [f"w{i}" for i in range(1, 9)] + ["[SEP]"], SPECIAL)
    n = 10
    # head 0: every word reads the word before (the first one itself); head 1: uniform
    weights = _one_hot_rows(lambda h, i: max(i - 1, 1), n, 2)
    weights[0, 1] = 1.0 / n
    scores, offsets = offset_share(weights, words)
    assert scores[0, 0] == pytest.approx(1.0) and offsets[0, 0] == -1
    assert scores[0, 1] == pytest.approx(1.0 / n)
    # By hand for random weights: the best offset's mean weight over the words that have it.
    rng = np.random.default_rng(2)
    weights = _stochastic(rng, 1, 3, n, n)
    scores, offsets = offset_share(weights, words)
    for head in range(3):
        by_offset = {
            d: np.mean([weights[0, head, i, i + d] for i in range(1, 9) if 1 <= i + d <= 8])
            for d in (-2, -1, 1, 2)
        }
        best = max(by_offset, key=by_offset.get)
        assert scores[0, head] == pytest.approx(by_offset[best]) and offsets[0, head] == best


def test_pick_takes_the_best_heads_layer_and_its_strong_heads():
    scores = np.array([[0.9, 0.1, 0.2], [0.3, 0.95, 0.5]])
    assert pick_heads(scores) == (1, [1, 2])  # 0.5 >= half of 0.95, 0.3 is not
    many = np.array([[0.6, 0.7, 0.8, 0.9, 1.0, 0.55]])
    assert pick_heads(many) == (0, [4, 3, 2, 1])  # at most PICK_MOST


def test_ranking_is_best_first_and_numbered_from_one():
    scores = np.array([[0.2, 0.7], [0.9, 0.1]])
    frame = ranking_frame(scores, "s", top=3)
    assert frame.to_dict("list") == {"layer": [2, 1, 1], "head": [1, 2, 1], "s": [0.9, 0.7, 0.2]}


def test_the_score_heatmap_frames_the_drawn_heads():
    scores = np.linspace(0, 1, 72).reshape(6, 12)
    fig = score_heatmap(scores, "far weight", "far weight of every head", (2, [1, 10]))
    heatmap = fig.data[0]
    np.testing.assert_allclose(heatmap.z, scores)
    assert (heatmap.zmin, heatmap.zmax) == (0.0, 1.0)
    frames = [((s.x0 + s.x1) / 2, (s.y0 + s.y1) / 2) for s in fig.layout.shapes]
    # Numbers on the head axis: a frame's centre is the head's own x, its layer's row index.
    assert frames == [(heatmap.x[1], 2), (heatmap.x[10], 2)] == [(2, 2), (11, 2)]


# --- The paper's sentences on MiniLM ------------------------------------------------------------


@pytest.fixture(scope="module")
def paper_runs(minilm):
    return {figure: run(minilm, sentence) for figure, (sentence, *_) in paper_heads.FIGURES.items()}


def test_figure4_statistic_is_the_raw_weight_from_its_to_law(minilm, paper_runs):
    trace = paper_runs["4"]
    words = group_words(trace.source_tokens, minilm.special_tokens)
    weights = word_attention(trace.attention["encoder_self"], words)
    its, law = words.index("its"), words.index("law")
    scores = antecedent_weight(weights, its, law)
    # No word of this sentence is split, so words are tokens: the Trace's own weights.
    raw = trace.attention["encoder_self"][:, :, trace.source_tokens.index("its")]
    np.testing.assert_allclose(scores, raw[:, :, trace.source_tokens.index("law")], atol=1e-6)
    layer, heads = pick_heads(scores)
    assert scores[layer, heads[0]] == pytest.approx(
        raw[..., trace.source_tokens.index("law")].max()
    )
    # The head found puts more weight on "law" than on any other word of the sentence.
    row = weights[layer, heads[0], its]
    assert int(np.argmax(row)) == law


def test_figure3_pick_reads_far_from_making(minilm, paper_runs):
    trace = paper_runs["3"]
    words = group_words(trace.source_tokens, minilm.special_tokens)
    weights = word_attention(trace.attention["encoder_self"], words)
    making = words.index("making")
    scores = long_distance_mass(weights, words, making)
    layer, heads = pick_heads(scores)
    assert scores[layer, heads[0]] == pytest.approx(scores.max())
    # The best head's weight from "making" falls mostly on "more difficult", 6–7 words on.
    phrase = [words.index("more"), words.index("difficult")]
    assert weights[layer, heads[0], making, phrase].sum() > 0.5
