"""The shipped English→German weights (corpus v2) open the page, translate sentences written by
hand apart from the grammar, and carry their per-head tables.

The floors sit a little under what the shipped weights measured (README, "How well en-de
translates"), so a model that translates worse than the one shipped fails here before it
reaches users."""

import numpy as np

from corpus.hand_checked import pairs
from runtime import registry, trace

SENTENCE = "The small dog sees the old man."
# Measured on the step-21,400 weights: 345 of 389 v2 pairs (88.7%), 82 of 89 v1 pairs (92.1%);
# the floors keep a later model from shipping worse than that.
MIN_HAND_CHECKED_V2 = 0.88
MIN_HAND_CHECKED_V1 = 0.90
# v2.1, what a first class types: 66 of 243 (27.2%) for the shipped weights, which never saw it
MIN_HAND_CHECKED_V2_1 = 0.25


def test_the_shipped_weights_are_scored_on_the_held_out_sets_and_open_the_page(translator):
    metrics = translator.info["metrics"]
    assert metrics["test_set"]["size"] >= 3000
    assert metrics["beam4"]["exact_match"] >= 0.85 and metrics["beam4"]["bleu"] >= 89
    assert registry.default_model_name() == "en-de"


def test_the_issue_sentence_is_translated_correctly(translator):
    expected = "Der kleine Hund sieht den alten Mann."  # checked by hand
    for decoding in ("beam", "greedy"):
        assert trace.run(translator, SENTENCE, decoding=decoding).output == expected


def test_the_hand_checked_figures_are_the_shipped_weights_own(translator):
    """The sidecar's exact match on the v2 pairs is over today's pairs and above the floor, and it
    is these weights': every fifth pair, run through the page's path (beam search), comes out as
    the sidecar recorded it (the German written by hand, or the miss it lists). The whole set is
    re-measured when weights are shipped (model.evaluate); re-running it here took 49 s."""
    recorded = translator.info["metrics"]["hand_checked_v2"]
    hand = pairs("v2")
    assert recorded["size"] == len(hand), "hand_checked.tsv changed: re-evaluate the weights"
    assert recorded["exact_match"] >= MIN_HAND_CHECKED_V2
    _assert_a_sample_comes_out_as_recorded(translator, hand, recorded)


def test_the_first_corpus_figures_are_the_shipped_weights_own(translator):
    """The sidecar's exact match on the first corpus's pairs is over today's pairs and above the
    floor, and every fifth pair comes out as recorded (re-running all 89 took 18 s)."""
    recorded = translator.info["metrics"]["hand_checked_v1"]
    hand = pairs("v1")
    assert recorded["size"] == len(hand), "hand_checked_v1.tsv changed: re-evaluate the weights"
    assert recorded["exact_match"] >= MIN_HAND_CHECKED_V1
    _assert_a_sample_comes_out_as_recorded(translator, hand, recorded)


def test_the_first_class_figures_are_the_shipped_weights_own(translator):
    """The same for corpus v2.1's hand-checked pairs (issue 47's sentences of a first class)."""
    recorded = translator.info["metrics"]["hand_checked_v2_1"]
    hand = pairs("v2.1")
    assert recorded["size"] == len(hand), "hand_checked_v2_1.tsv changed: re-evaluate the weights"
    assert recorded["exact_match"] >= MIN_HAND_CHECKED_V2_1
    _assert_a_sample_comes_out_as_recorded(translator, hand, recorded)


def _assert_a_sample_comes_out_as_recorded(translator, hand, recorded) -> None:
    """Every fifth hand-checked pair, run through the page's path (beam search), gives the German
    written by hand or the miss the sidecar lists for it; the misses agree with the figure."""
    misses = {english: output for english, _, output in recorded["misses"]}
    assert len(misses) == round((1 - recorded["exact_match"]) * len(hand))
    sample = hand[::5]
    expected = [misses.get(p.english, p.german) for p in sample]
    got = [trace.run(translator, p.english, decoding="beam").output for p in sample]
    assert got == expected


def test_the_head_tables_name_the_best_head_of_each(translator):
    """AER (lower is better) and the coreference hit rate (higher is better) over every head,
    with the best one named by the numbers people read (layers and heads from 1)."""
    metrics = translator.info["metrics"]
    aer = np.array(metrics["alignment_error_rate"]["per_head"])
    assert aer.shape == (6, 8) and ((aer >= 0) & (aer <= 1)).all()
    best = metrics["alignment_error_rate"]["best"]
    assert aer[best["layer"] - 1, best["head"] - 1] == aer.min() == best["value"]
    coref = metrics["coreference_heads"]
    hits = np.array(coref["encoder_self_attention"])
    encoder = coref["best_encoder"]
    assert hits[encoder["layer"] - 1, encoder["head"] - 1] == hits.max() == encoder["value"]
    assert coref["links"] >= 500
