"""Scoring the sentences people type (runtime/typed_set.py): the counts, on rows made by hand,
and a sentence judged end to end as the page judges it."""

import json

from corpus.hand_checked import TypedSentence, typed_sentences
from runtime.registry import WEIGHTS_DIR
from runtime.typed_set import judge, summarize


def _row(kind, right, level):
    return {
        "kind": kind,
        "english": f"{kind} {right} {level}",
        "output": "o",
        "right": right,
        "level": level,
        "warned": level != "grammar",
        "hand": "h",
    }


def test_the_counts_a_class_meets():
    rows = [
        _row("questions", True, "grammar"),  # right, no warning: as it should be
        _row("questions", True, "outside"),  # right, but warned
        _row("questions", False, "grammar"),  # wrong and nothing said: the one to avoid
        _row("long", False, "differs"),  # wrong, and warned
    ]
    table = summarize(rows)
    assert (table["sentences"], table["right"]) == (4, 0.5)
    assert (table["wrong_unwarned"], table["right_warned"]) == (1, 1)
    assert table["right_warned_share"] == 0.5
    assert table["per_kind"]["questions"]["wrong_unwarned"] == 1
    assert table["per_kind"]["long"] == {
        "sentences": 1,
        "right": 0.0,
        "wrong_unwarned": 0,
        "right_warned": 0,
        "right_warned_share": 0.0,
    }
    assert table["wrong_unwarned_list"] == [["questions False grammar", "o", "h"]]
    assert table["levels"] == {"grammar": 2, "outside": 1, "differs": 1}


def test_a_sentence_is_judged_as_the_page_judges_it(translator):
    sentence = TypedSentence(
        "everyday", "The small dog sees the old man.", ("Der kleine Hund sieht den alten Mann.",)
    )
    row = judge(translator, sentence)
    assert row["right"] and row["level"] == "grammar" and not row["warned"]
    wrong = TypedSentence(
        "everyday", "The small dog sees the old man.", ("Der kleine Hund sieht die alte Frau.",)
    )
    assert not judge(translator, wrong)["right"]


def test_the_shipped_sidecar_was_scored_on_the_file_as_it_is():
    """A sentence added to or taken from the file needs `python -m runtime.typed_set --write`."""
    sidecar = json.loads((WEIGHTS_DIR / "en-de.json").read_text())
    typed = sidecar["metrics"]["typed_sentences"]
    sentences = typed_sentences()
    assert typed["sentences"] == len(sentences)
    wrong = {english for english, *_ in typed["wrong"]}
    assert wrong <= {s.english for s in sentences}
    assert round(1 - len(wrong) / len(sentences), 4) == typed["right"]


def test_the_readme_quotes_the_sidecar_s_figures():
    """The README's figures follow the model that ships (issue 65, item 6)."""
    typed = json.loads((WEIGHTS_DIR / "en-de.json").read_text())["metrics"]["typed_sentences"]
    readme = (WEIGHTS_DIR.parents[1] / "README.md").read_text()
    assert f"**{typed['right']:.1%} right**" in readme
    assert f"**{typed['wrong_unwarned']} of {typed['sentences']} wrong with no warning**" in readme
