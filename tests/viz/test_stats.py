"""Head statistics against values computed by hand on small synthetic attention matrices."""

import math

import numpy as np
import pytest

from viz.stats import attention_statistics, is_punctuation

TOKENS = ("the", "dog", "runs", "fast")


def stats_of(matrix, kind="encoder_self", queries=TOKENS, keys=TOKENS, special=()):
    """The one row of statistics of a single [query, key] matrix (1 layer, 1 head)."""
    weights = np.asarray(matrix, dtype=float)[None, None]
    table = attention_statistics(weights, kind, queries, keys, special)
    assert len(table) == 1
    return table.iloc[0]


def test_uniform_rows_have_entropy_log_n():
    row = stats_of(np.full((4, 4), 0.25))
    assert row["entropy_nats"] == pytest.approx(math.log(4))
    assert row["entropy_normalised"] == pytest.approx(1.0)
    assert row["max_weight"] == pytest.approx(0.25)
    # |i - j| over a 4 x 4 grid: row 0: 0+1+2+3, row 1: 1+0+1+2, row 2: 2+1+0+1, row 3: 3+2+1+0.
    assert row["mean_distance"] == pytest.approx((6 + 4 + 4 + 6) / 4 / 4)
    assert row["self_share"] == pytest.approx(0.25)
    assert row["previous_share"] == pytest.approx(0.25)


def test_identity_is_all_self_and_zero_entropy():
    row = stats_of(np.eye(4))
    assert row["self_share"] == 1.0
    assert row["entropy_nats"] == 0.0
    assert row["entropy_normalised"] == 0.0
    assert row["mean_distance"] == 0.0
    assert row["previous_share"] == 0.0
    assert row["max_weight"] == 1.0


def test_shifted_identity_is_all_previous_token_at_distance_one():
    # Row i reads key i-1; the first token has no previous one and reads the next instead.
    matrix = np.zeros((4, 4))
    matrix[0, 1] = 1.0
    matrix[1, 0] = matrix[2, 1] = matrix[3, 2] = 1.0
    row = stats_of(matrix)
    assert row["previous_share"] == 1.0
    assert row["mean_distance"] == 1.0
    assert row["self_share"] == 0.0
    assert row["entropy_nats"] == 0.0


def test_causal_uniform_rows_have_normalised_entropy_one():
    # Row t of the decoder sees keys 0..t, each with weight 1/(t+1).
    n = 5
    matrix = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    row = stats_of(matrix, kind="decoder_self", queries=("<s>", *"abcd"), keys=("<s>", *"abcd"))
    assert row["entropy_normalised"] == pytest.approx(1.0)
    assert row["entropy_nats"] == pytest.approx(sum(math.log(t) for t in range(1, n + 1)) / n)


def test_special_and_punctuation_shares_by_hand():
    tokens = ("[CLS]", "hello", ",", "world", "!", "[SEP]")
    matrix = np.array(
        [
            [0.5, 0.1, 0.1, 0.1, 0.1, 0.1],
            [0.0, 0.2, 0.3, 0.0, 0.0, 0.5],
            [0.2, 0.2, 0.2, 0.2, 0.2, 0.0],
            [0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
            [0.1, 0.0, 0.4, 0.0, 0.4, 0.1],
            [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        ]
    )
    row = stats_of(matrix, queries=tokens, keys=tokens, special={"[CLS]", "[SEP]"})
    special = [0.6, 0.5, 0.2, 0.0, 0.2, 1.0]  # columns 0 and 5
    punctuation = [0.2, 0.3, 0.4, 0.0, 0.8, 0.0]  # columns 2 and 4
    assert row["special_share"] == pytest.approx(sum(special) / 6)
    assert row["punctuation_share"] == pytest.approx(sum(punctuation) / 6)
    assert row["max_weight"] == pytest.approx((0.5 + 0.5 + 0.2 + 1.0 + 0.4 + 1.0) / 6)


def test_unknown_token_counts_as_special():
    tokens = ("<unk>", "dog")
    row = stats_of([[0.3, 0.7], [0.9, 0.1]], queries=tokens, keys=tokens)
    assert row["special_share"] == pytest.approx((0.3 + 0.9) / 2)


def test_cross_attention_has_no_positional_statistics():
    row = stats_of(np.full((2, 4), 0.25), kind="cross", queries=("<s>", "der"), keys=TOKENS)
    assert math.isnan(row["mean_distance"])
    assert math.isnan(row["self_share"])
    assert math.isnan(row["previous_share"])
    assert row["entropy_normalised"] == pytest.approx(1.0)


def test_rows_are_numbered_from_one_per_layer_and_head():
    weights = np.zeros((2, 3, 2, 2))
    weights[..., 0] = 1.0
    weights[1, 2] = np.eye(2)  # layer 2, head 3 is the only head on itself
    table = attention_statistics(weights, "encoder_self", ("a", "b"), ("a", "b"), ())
    assert list(zip(table["layer"], table["head"])) == [
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 1),
        (2, 2),
        (2, 3),
    ]
    assert table["self_share"].tolist() == [0.5] * 5 + [1.0]


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        (".", True),
        ("—", True),
        ("##,", True),
        ("?!", True),
        ("<s>", False),
        ("dog", False),
        ("a.", False),
    ],
)
def test_punctuation_tokens(token, expected):
    assert is_punctuation(token) is expected
