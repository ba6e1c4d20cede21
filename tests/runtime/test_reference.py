"""What a translator's corpus knows about a typed sentence, mapped onto the model's tokens."""

import torch

from corpus.generator import generate
from model.subword import SubwordTokenizer
from runtime import registry
from runtime.reference import subword_reference


def test_the_translators_reference_is_the_hand_checked_german_word_for_word():
    loaded = registry.load("en-de", torch.device("cpu"))
    ref = loaded.reference("The small dog sees the old man.")
    assert ref.text == "Der kleine Hund sieht den alten Mann."  # checked by hand
    assert ref.alignment == tuple((i,) for i in range(8))


def _tokenizer() -> SubwordTokenizer:
    texts = [t for ex in generate(800, seed=9) for t in (ex.english_text, ex.german_text)]
    return SubwordTokenizer.train(texts, vocab_size=400)


def test_sub_word_reference_maps_words_onto_pieces():
    tokenizer = _tokenizer()
    text = "The animal didn't cross the street because it was too wide."
    ref = subword_reference(text, tokenizer, 64)
    src = tokenizer.encode(text).tokens
    assert ref.text == "Das Tier überquerte die Straße nicht, weil sie zu breit war."
    # every German piece of "Straße" is aligned to exactly the pieces of "street"
    start = text.index("street")
    offsets = tokenizer.offsets(text)
    street = [i for i, (a, b) in enumerate(offsets) if start <= a and b <= start + len("street")]
    german = list(ref.target_tokens)
    first, last = german.index("die") + 1, german.index("nicht")
    assert "".join(p.removeprefix("##") for p in german[first:last]) == "Straße"
    assert all(ref.alignment[j] == tuple(street) for j in range(first, last))
    (link,) = ref.coreference
    assert [src[i] for i in link.source_pronoun] == ["it"]
    assert "".join(src[i].removeprefix("##") for i in link.source_antecedent) == "thestreet"
    assert [german[j] for j in link.target_pronoun] == ["sie"]


def test_a_missing_full_stop_is_left_unaligned():
    tokenizer = _tokenizer()
    ref = subword_reference("The dog is happy", tokenizer, 64)
    assert ref.text == "Der Hund ist glücklich."
    assert ref.target_tokens[-1] == "." and ref.alignment[-1] == ()


def test_no_reference_where_the_grammar_has_none():
    assert subword_reference("Colourless green ideas sleep furiously.", _tokenizer(), 64) is None


def test_the_reference_is_the_corpus_the_shipped_translator_learned():
    """Corpus v2.1 asks a du-question of the past in the perfect ("Hast du den Hund gesehen?",
    as corpus/data/hand_checked_v2_1.tsv writes it); the shipped translator learned v2's
    Präteritum, and its page measures it against v2's German until a v2.1 model ships."""
    from corpus.lexicon import load_version
    from corpus.parser import translate

    tokenizer = _tokenizer()
    text = "Did you see the dog?"
    assert translate(text, load_version("v2.1")).german_text == "Hast du den Hund gesehen?"
    assert subword_reference(text, tokenizer, 64).text == "Sahst du den Hund?"
    # a translator trained on v2.1 (its sidecar's corpus) is measured against v2.1's German
    assert subword_reference(text, tokenizer, 64, "v2.1").text == "Hast du den Hund gesehen?"
