"""The sentences people type (corpus/data/typed_sentences.tsv, issue 65 item 2): what the file
promises, checked on the file itself."""

import re
from collections import Counter

from corpus.hand_checked import TypedSentence, typed_sentences

KINDS = {
    "everyday",
    "classroom",
    "subject",
    "names",
    "numbers",
    "dates_times",
    "questions",
    "pronoun_animate",
    "pronoun_inanimate",
    "relative",
    "long",
}


def test_at_least_300_sentences_of_every_kind_the_issue_names():
    sentences = typed_sentences()
    assert len(sentences) >= 300
    counts = Counter(s.kind for s in sentences)
    assert set(counts) == KINDS
    assert min(counts.values()) >= 25, counts


def test_each_english_sentence_once_and_each_translation_once_per_line():
    sentences = typed_sentences()
    english = Counter(s.english for s in sentences)
    assert [e for e, n in english.items() if n > 1] == []
    assert all(len(set(s.german)) == len(s.german) for s in sentences)


def test_long_sentences_have_twenty_words_or_more():
    for s in typed_sentences():
        if s.kind == "long":
            assert len(re.findall(r"[\w']+", s.english)) >= 20, s.english


def test_every_translation_is_a_whole_german_sentence():
    for s in typed_sentences():
        for german in s.german:
            assert german[0].isupper() and german[-1] in ".?!", (s.english, german)
            assert german.count("|") == 0 and "  " not in german, german
            # German spelling, not a keyboard's stand-ins for umlauts and ß
            assert not re.search(r"\b(fuer|ueber|koennen|muessen|gross)\b", german), german


def test_questions_are_translated_as_questions():
    for s in typed_sentences():
        if s.english.endswith("?"):
            assert all(g.endswith("?") for g in s.german), s.english


def test_a_translation_is_accepted_whatever_its_spacing_and_nothing_else_is():
    s = TypedSentence("everyday", "I like coffee.", ("Ich mag Kaffee.", "Ich trinke gern Kaffee."))
    assert s.accepts("Ich  mag Kaffee.") and s.accepts("Ich trinke gern Kaffee.")
    assert not s.accepts("Ich mag Kaffee") and not s.accepts("Ich mag Tee.")
