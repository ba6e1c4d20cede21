"""The model's confidence in what it wrote, and why it may be unsure (issue 45, item 3)."""

import math

import pytest
import torch

from model.tokenization import BOS_ID
from model.transformer import padding_mask, subsequent_mask
from runtime.confidence import LOW_CONFIDENCE, confidence
from runtime.reference import unseen_words
from runtime.trace import run


def test_the_sentence_figure_is_the_geometric_mean_of_the_model_s_own_probabilities(translator):
    """Recomputed from the network directly: one teacher-forced pass over what it wrote."""
    trace = run(translator, "The small dog sees the old man.")
    sure = confidence(trace)
    ids = list(trace.output_ids)
    model = translator.model
    src = torch.tensor([trace.source_ids])
    tgt = torch.tensor([[BOS_ID, *ids[:-1]]])
    with torch.inference_mode():
        memory = model.encode(src, padding_mask(src, 0)).memory
        out = model.decode(memory, padding_mask(src, 0), tgt, subsequent_mask(len(ids))).output
        log_probs = torch.log_softmax(model.generator.proj(out[0]).float(), -1)
    chosen = log_probs[torch.arange(len(ids)), torch.tensor(ids)]
    assert sure.sentence == pytest.approx(math.exp(chosen.mean().item()), rel=1e-4)
    assert len(sure.tokens) == len(ids) and sure.tokens[-1] == "</s>"
    assert not sure.low and sure.sentence > 0.9


def test_a_sentence_the_grammar_never_writes_is_called_probably_wrong_and_why(translator):
    text = "Attention is all you need."
    sure = confidence(run(translator, text))
    assert sure.low and sure.sentence < LOW_CONFIDENCE


def test_words_the_corpus_never_writes_are_named(translator):
    assert unseen_words("The dog sees 42 zeppelins.") == ("zeppelins",)
    assert unseen_words("My sister reads a long book.") == ()
    # v2.1 writes comparatives and a first lesson's phrases: words v2 never did
    text = "Thank you. My name is Anna and my brother is older than Tom."
    assert unseen_words(text) == ("older", "than")
    assert unseen_words(text, "v2.1") == ()
    assert unseen_words("The quixotic dog sees a zeppelin.") == ("quixotic", "zeppelin")


def test_models_without_a_corpus_and_teacher_forced_runs_give_no_verdict(minilm, translator):
    assert confidence(run(minilm, "The cat sat on the mat.")) is None
    forced = run(translator, "The dog sleeps.", target=[10, 11])
    assert confidence(forced) is None


def test_a_text_in_capitals_throughout_gets_a_notice(translator, minilm):
    assert any("capitals throughout" in n for n in run(translator, "THE DOG SLEEPS.").notices)
    assert not any("capitals" in n for n in run(translator, "The dog sleeps in NASA.").notices)
    assert not any("capitals" in n for n in run(minilm, "THE DOG SLEEPS.").notices)
