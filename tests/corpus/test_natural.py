"""The natural pairs written by hand (corpus/natural.py, issue 65 item 4): as many as the issue
asks, well formed, and apart from every set the translator is measured on."""

from collections import Counter

from corpus.hand_checked import pairs as hand_pairs
from corpus.hand_checked import typed_sentences
from corpus.natural import NATURAL_DIR, pairs


def _key(english: str) -> str:
    return " ".join(english.lower().split())


def test_at_least_ten_thousand_pairs():
    assert len(pairs()) >= 10_000


def test_each_file_has_two_filled_columns_and_no_english_twice():
    for path in NATURAL_DIR.glob("*.tsv"):
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[0] == "english\tgerman", path.name
        for n, line in enumerate(lines[1:], start=2):
            fields = line.split("\t")
            assert len(fields) == 2 and all(f.strip() == f and f for f in fields), (path.name, n)
    english = Counter(_key(en) for en, _ in pairs())
    assert [e for e, n in english.items() if n > 1] == []


def test_no_pair_is_one_the_translator_is_measured_on():
    """The sentences people type and the hand-checked files are test sets: a natural pair with
    the same English would be trained on."""
    measured = {_key(s.english) for s in typed_sentences()}
    for version in ("v1", "v2", "v2.1"):
        measured |= {_key(p.english) for p in hand_pairs(version)}
    assert [en for en, _ in pairs() if _key(en) in measured] == []


def test_every_german_line_is_a_sentence_with_its_end_mark():
    for english, german in pairs():
        assert german[-1] in '.?!…"“', (english, german)
        assert english[-1] in ".?!…\"”'", (english, german)
        if english.endswith("?"):
            assert german.endswith("?"), (english, german)
