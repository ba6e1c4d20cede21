"""What the registry says a model offers, before loading it, and how a view finds a model by it."""

import pytest

from runtime import registry


def test_the_pretrained_encoder_is_the_model_that_learned_its_positions_and_from_real_text():
    learned = registry.find_model(lambda entry: entry.positions == "learned")
    real_text = registry.find_model(lambda entry: entry.real_text)
    assert learned is not None and learned.name == "minilm-l6"
    assert real_text is not None and real_text.name == "minilm-l6"


def test_a_model_no_entry_offers_is_not_found():
    assert registry.find_model(lambda entry: entry.positions == "alibi") is None


def test_find_model_takes_the_first_entry_that_offers_it(monkeypatch):
    first, second = registry.MODELS["paper-untrained"], registry.MODELS["en-de"]
    monkeypatch.setattr(registry, "MODELS", {second.name: second, first.name: first})
    assert registry.find_model(lambda entry: entry.positions == "sinusoidal") is second


@pytest.mark.parametrize("fixture", ["untrained", "minilm"])
def test_each_entry_declares_the_positional_encoding_its_loaded_model_has(fixture, request):
    loaded = request.getfixturevalue(fixture)
    assert registry.MODELS[loaded.name].positions == loaded.model.config.positions


def test_the_held_out_sentences_are_drawn_once_per_process():
    """The head atlas asks for the translator's 200 held-out sentences on every rerun of its tab;
    the grammar took ~0.85 s to draw them each time. The same draw is kept: the same object,
    equal to the evaluation's own held-out set."""
    from model.gold import held_out_examples
    from runtime.registry import held_out_sentences

    first = held_out_sentences(12, seed=7)
    assert held_out_sentences(12, seed=7) is first
    assert list(first) == [example.english_text for example in held_out_examples(12, 7)]
    assert held_out_sentences(12, seed=8) != first
