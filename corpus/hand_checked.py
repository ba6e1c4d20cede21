"""English→German pairs written by hand, independently of the grammar, and checked as German:
the reference the grammar's parser and the trained translator are both measured against.

`data/hand_checked.tsv` (corpus v2: at least ten pairs of every construction, tagged),
`data/hand_checked_v2_1.tsv` (corpus v2.1: what a lecturer types in a first class, tagged by
construction, written by someone who did not read the grammar) and `data/hand_checked_v1.tsv`
(the first corpus's pairs, kept to show nothing regressed).

`data/typed_sentences.tsv` is of another kind: sentences a lecturer or a student types in a first
class, written apart from the grammar (most of them it cannot write), each with every German
translation a careful speaker accepts; the translator is measured on them and never trained on
them (issue 65).
"""

from __future__ import annotations

from dataclasses import dataclass

from corpus.lexicon import DATA_DIR, read_rows


@dataclass(frozen=True)
class HandPair:
    construction: str  # "" for the v1 pairs, which are not tagged
    english: str
    german: str


_FILES = {"v1": "hand_checked_v1.tsv", "v2": "hand_checked.tsv", "v2.1": "hand_checked_v2_1.tsv"}


@dataclass(frozen=True)
class TypedSentence:
    kind: str  # everyday, classroom, subject, names, numbers, dates_times, questions, ...
    english: str
    german: tuple[str, ...]  # every accepted translation, the project's convention first

    def accepts(self, output: str) -> bool:
        """Whether `output` is one of the accepted translations (spaces aside)."""
        return " ".join(output.split()) in {" ".join(g.split()) for g in self.german}


TYPED_FILE = "typed_sentences.tsv"


def typed_sentences() -> list[TypedSentence]:
    """The sentences people type, with their accepted German (" | " between translations)."""
    return [
        TypedSentence(r["kind"], r["english"], tuple(g.strip() for g in r["german"].split(" | ")))
        for r in read_rows(TYPED_FILE, DATA_DIR)
    ]


def pairs(version: str = "v2") -> list[HandPair]:
    name = _FILES[version]
    return [
        HandPair(r.get("construction", ""), r["english"], r["german"])
        for r in read_rows(name, DATA_DIR)
    ]
