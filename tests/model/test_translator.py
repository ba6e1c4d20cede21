"""The shipped English→German weights (corpus v2) open the page, translate sentences written by
hand apart from the grammar, and carry their per-head tables.

The floors sit a little under what the shipped weights measured (docs/translator.md, "How well
en-de translates"), so a model that translates worse than the one shipped fails here before it
reaches users."""

import numpy as np
import pytest

from corpus.hand_checked import pairs
from runtime import registry, trace

SENTENCE = "The small dog sees the old man."
# Measured on the step-21,400 weights: 345 of 389 v2 pairs (88.7%), 82 of 89 v1 pairs (92.1%);
# the floors keep a later model from shipping worse than that.
MIN_HAND_CHECKED_V2 = 0.88
MIN_HAND_CHECKED_V1 = 0.90
# v2.1, what a first class types: 66 of 243 (27.2%) for the first fine-tune, which never saw it,
# 166 (68.3%) for the v2.1 fine-tune, 170 (70.0%) for the shipped one, refined on the CPU; a
# later model must keep what it learned
MIN_HAND_CHECKED_V2_1 = 0.67


def test_the_shipped_weights_are_scored_on_the_held_out_sets_and_open_the_page(translator):
    metrics = translator.info["metrics"]
    assert metrics["test_set"]["size"] >= 3000
    assert metrics["beam4"]["exact_match"] >= 0.85 and metrics["beam4"]["bleu"] >= 89
    assert registry.default_model_name() == "en-de"


def test_the_issue_sentence_is_translated_correctly(translator):
    expected = "Der kleine Hund sieht den alten Mann."  # checked by hand
    for decoding in ("beam", "greedy"):
        assert trace.run(translator, SENTENCE, decoding=decoding).output == expected


# (sidecar key, corpus version, floor): the files written by hand apart from the grammar
HAND_CHECKED = [
    ("hand_checked_v2", "v2", MIN_HAND_CHECKED_V2),
    ("hand_checked_v1", "v1", MIN_HAND_CHECKED_V1),
    ("hand_checked_v2_1", "v2.1", MIN_HAND_CHECKED_V2_1),
]


@pytest.mark.parametrize("key, version, floor", HAND_CHECKED, ids=[h[1] for h in HAND_CHECKED])
def test_the_hand_checked_figures_are_the_shipped_weights_own(translator, key, version, floor):
    """The sidecar's exact match on each hand-checked file is over today's pairs and above the
    floor, and it is these weights': every fifth pair, run through the page's path (beam
    search), comes out as the sidecar recorded it (the German written by hand, or the miss it
    lists). The whole files are re-measured when weights are shipped (model.evaluate);
    re-running them here took 49 s for v2 and 18 s for v1."""
    recorded = translator.info["metrics"][key]
    hand = pairs(version)
    assert recorded["size"] == len(hand), f"{key} changed: re-evaluate the weights"
    assert recorded["exact_match"] >= floor
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
