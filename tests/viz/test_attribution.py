"""Attention beside attributions: AER worked by hand, rollout through the decoder against a case
computed by hand and against the residual bookkeeping it implies, and the small multiple."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from runtime.attribution import alignment_error_rate
from runtime.registry import load
from runtime.trace import run
from viz.attribution import (
    aer_table,
    agreement,
    attention_panels,
    comparison_figure,
    decoder_rollout,
    panel_columns,
    row_normalised,
)
from viz.decoding import GoldAlignment, gold_alignment
from viz.metrics import attribution_alignment

TEXT = "The animal didn't cross the street because it was too wide."


def test_alignment_error_rate_worked_by_hand():
    # row 0: argmax 0, gold {0}: a hit; row 1: argmax 2, gold {1}: a miss; row 2: argmax 1,
    # gold {1, 2}: a hit. |A| = 3, |G| = 1 + 1 + 2 = 4, |A ∩ G| = 2: AER = 1 - 4/7 = 3/7.
    scores = np.array([[0.9, 0.05, 0.05], [0.1, 0.3, 0.6], [0.2, 0.5, 0.3]])
    assert alignment_error_rate(scores, [(0,), (1,), (1, 2)]) == pytest.approx(3 / 7)
    # rows without gold links are left out: one row, a hit, |A| = |G| = 1: AER 0
    assert alignment_error_rate(np.array([[0.0, 1.0], [0.7, 0.3]]), [None, (0,)]) == 0.0
    assert alignment_error_rate(np.eye(2), [None, ()]) is None


def test_rollout_through_the_decoder_worked_by_hand():
    """One layer, one head. Encoder A = [[.5, .5], [.5, .5]]: with the residual R = [[.75, .25],
    [.25, .75]]. The decoder's one row attends to itself (M = [[1]]) and puts [.2, .8] on the
    encoder: X = 0.5·[.2, .8]·R = 0.5·[.35, .65]; the other half of the row is the target input."""
    trace = SimpleNamespace(
        attention={
            "encoder_self": np.full((1, 1, 2, 2), 0.5),
            "decoder_self": np.ones((1, 1, 1, 1)),
            "cross": np.array([[[[0.2, 0.8]]]]),
        }
    )
    np.testing.assert_allclose(decoder_rollout(trace), [[0.175, 0.325]])


@pytest.fixture(scope="module")
def translated():
    loaded = load("en-de", torch.device("cpu"))
    trace = run(loaded, TEXT)
    return loaded, trace, gold_alignment(trace, loaded.reference(TEXT))


def test_rollout_rows_keep_one_minus_half_to_the_n_on_the_source(translated):
    """Each layer halves what a row holds of the target inputs (self-attention's mixing keeps it,
    cross-attention's residual halves it), so after N layers the source share is 1 - 2^-N."""
    _, trace, _ = translated
    shares = decoder_rollout(trace)
    assert shares.shape == (len(trace.steps), len(trace.source_tokens))
    np.testing.assert_allclose(shares.sum(axis=1), 1 - 0.5**6)
    assert (shares >= 0).all()


def test_row_normalised_rows_sum_to_one_and_zero_rows_stay_zero():
    out = row_normalised(np.array([[1.0, 3.0], [0.0, 0.0]]))
    np.testing.assert_allclose(out, [[0.25, 0.75], [0.0, 0.0]])


def test_agreement_is_one_for_the_same_ranking_and_minus_one_for_the_reverse():
    a = np.array([[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]])
    table = agreement([("attention", a)], [("same", a * 2), ("reversed", 10 - a)])
    assert table.loc["attention", "same"] == pytest.approx(1.0)
    assert table.loc["attention", "reversed"] < 0


def test_the_small_multiple_draws_every_panel_with_gold_outlines_and_its_aer(translated):
    loaded, trace, gold = translated
    assert gold is not None and gold.exact
    panels = attention_panels(trace, 3, 1, (0, 5))
    assert [name for name, _ in panels] == [
        "head L4 H2",
        "L4 mean of heads",
        "held-out best L1 H6",
        "rollout via decoder",
    ]
    fig = comparison_figure(trace, panels, gold, width=1200)
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    assert len(heatmaps) == 4
    for heatmap, (_, matrix) in zip(heatmaps, panels):
        np.testing.assert_allclose(np.asarray(heatmap.z).sum(axis=1), 1.0)
        np.testing.assert_allclose(heatmap.z, row_normalised(matrix))
    links = sum(len(rows) for rows in gold.rows if rows)
    assert len(fig.layout.shapes) == 4 * links
    titles = [a.text for a in fig.layout.annotations]
    expected = alignment_error_rate(row_normalised(panels[0][1]), gold.rows)
    assert titles[0] == f"head L4 H2<br>AER {expected:.2f}"
    assert fig.layout.width <= 1200
    assert fig.layout.coloraxis.cmin == 0 and fig.layout.coloraxis.cmax == 1


def test_without_gold_there_is_no_aer_and_no_outline(translated):
    _, trace, _ = translated
    panels = attention_panels(trace, 0, 0, None)
    assert len(panels) == 3  # no held-out best head without held-out figures
    fig = comparison_figure(trace, panels, None, width=900)
    assert not fig.layout.shapes and "AER" not in " ".join(a.text for a in fig.layout.annotations)
    assert aer_table(panels, None) is None
    no_links = GoldAlignment(tuple(None for _ in trace.steps), (), False)
    assert aer_table(panels, no_links) is None


def test_panels_side_by_side_as_the_width_allows():
    assert panel_columns(13, 820, False, left=185) == 2  # 2 x 13 cells of 22 px and a gap
    assert panel_columns(13, 600, False, left=185) == 1
    assert panel_columns(5, 4000, False, left=185) == 4  # never more than 4 across


def test_the_model_tabs_table_reads_the_held_out_attribution_figures():
    metrics = {
        "attribution_alignment": {
            "sentences": 3,
            "aer": {"saliency": 0.5, "integrated gradients": 0.3, "best head L1 H6": 0.8},
            "spearman": {"best head L1 H6": {"saliency": 0.1, "integrated gradients": 0.2}},
        }
    }
    aer, agreement, summary = attribution_alignment(metrics)
    assert list(aer["method"]) == ["integrated gradients", "saliency", "best head L1 H6"]
    assert agreement.loc[0, "attention"] == "best head L1 H6"
    assert agreement.loc[0, "integrated gradients"] == 0.2
    assert "by a gradient method: integrated gradients AER 0.300" in summary
    assert "0.800 for the best head L1 H6" in summary
    metrics["attribution_alignment"]["aer"]["best head L1 H6"] = 0.1
    assert "by attention" in attribution_alignment(metrics)[2]
    assert attribution_alignment({}) is None
