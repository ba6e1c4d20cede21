"""English→German pairs people actually write, translated by hand (issue 65, item 4).

`data/natural/*.tsv` (`english	german`, one pair a line): everyday English on four groups of
topics (daily life; school, university and the lecture's subject; travel, work, times and
numbers; stories, pronouns and clauses), each file written by one writer and every German line
checked by a second, who fixed or dropped what was wrong. The conventions are the grammar's
(du/ihr, the English simple past as Präteritum, the progressive as a simple tense, digits kept),
so that a fine-tune that mixes them with the grammar's pairs teaches one way of writing. No
English sentence of the test set of sentences people type (`hand_checked.typed_sentences`) is
among them: a test holds the two apart.
"""

from __future__ import annotations

from functools import cache

from corpus.lexicon import DATA_DIR, read_rows

NATURAL_DIR = DATA_DIR / "natural"


@cache
def pairs() -> tuple[tuple[str, str], ...]:
    """Every natural pair, file by file in name order."""
    return tuple(
        (row["english"], row["german"])
        for path in sorted(NATURAL_DIR.glob("*.tsv"))
        for row in read_rows(path.name, NATURAL_DIR)
    )
