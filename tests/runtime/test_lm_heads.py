"""Sink, previous-token and induction scores on hand-made weights, and the induction test on
SmolLM2 (Olsson et al., 2022): its strongest induction heads, ablated, undo most of what the
repetition taught it, while as many weak heads ablated do not."""

import numpy as np
import pytest
import torch

from runtime import lm_heads
from runtime.registry import MODELS


def _causal(n: int) -> np.ndarray:
    """Uniform weights under the causal mask: row i puts 1/(i+1) on keys 0..i."""
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def test_sink_and_previous_token_scores_read_the_right_cells():
    n = 5
    weights = np.stack([_causal(n), np.eye(n), np.eye(n, k=-1)])[None]  # 1 layer, 3 heads
    weights[0, 2, 0, 0] = 1.0  # row 0 of the previous-token head: only key 0 exists
    sink = lm_heads.sink_scores(weights)
    previous = lm_heads.previous_token_scores(weights)
    # uniform causal rows 1..4 put 1/2, 1/3, 1/4, 1/5 on token 1
    assert sink[0, 0] == pytest.approx(np.mean([1 / 2, 1 / 3, 1 / 4, 1 / 5]))
    assert sink[0, 1] == 0.0 and previous[0, 1] == 0.0  # attends to itself
    assert previous[0, 2] == 1.0 and sink[0, 2] == pytest.approx(1 / 4)  # row 1's previous is 0


def test_the_induction_score_is_the_weight_on_the_token_after_the_first_occurrence():
    period = 4
    n = 2 * period
    induction = np.zeros((n, n))
    for i in range(period - 1):  # token T + i reads token i + 1
        induction[period + i, i + 1] = 1.0
    weights = np.stack([induction, np.eye(n, k=-1)])[None, None]  # 1 sequence, 1 layer, 2 heads
    scores = lm_heads.induction_scores(weights, period)
    assert scores.shape == (1, 2)
    assert scores[0, 0] == 1.0 and scores[0, 1] == 0.0
    [best] = lm_heads.strongest(scores, 1)
    assert (best.layer, best.head, best.score) == (0, 0, 1.0)


def test_the_random_sequence_is_repeated_once():
    ids = lm_heads.repeated_random_tokens(6, 3, seed=1, vocab=5000)
    assert ids.shape == (3, 12)
    assert (ids[:, :6] == ids[:, 6:]).all() and (ids >= 1000).all()


@pytest.fixture(scope="module")
def study():
    loaded = MODELS["smollm2-135m"].load(torch.device("cpu"))
    return lm_heads.induction_ablation(loaded, k=3, sequences=2)


def test_smollm2_has_induction_heads_and_they_do_the_copying(study):
    intact = study.intact
    assert study.strongest[0].score > 0.6  # a head that reads where copying needs it to
    assert intact.loss_first > 10  # random tokens: near ln(49,152) = 10.8 or worse
    assert intact.loss_second < 4  # the second copy is copied
    assert study.ablated.loss_second > intact.loss_second + 2
    assert study.ablated.loss_second > study.control.loss_second + 1.5
