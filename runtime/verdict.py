"""A verdict beside every translation, in words a class can read (issue 65, item 1).

The translator's own confidence misses many wrong outputs of sentences people type ("Where is the
train station?" -> "Wo ist der Zug?" at 95%), so the verdict does not rest on it alone. It asks
what is known about the typed sentence, in this order:

- **as the grammar writes it**: the grammar the model learned from writes this English, and the
  output is the grammar's German word for word;
- **differs from the grammar's German**: the grammar writes this English, and the output is
  something else (the page shows the grammar's German beside it);
- **outside what it learned**: the grammar cannot write the sentence, and the verdict says what
  else is known: words the model never saw, an output much shorter than the input, a confidence
  under the threshold.

Only a translator with a corpus of its own gets a verdict: a language model's or an encoder's
output has no reference to be held against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .confidence import LOW_CONFIDENCE, confidence
from .loaded import LoadedModel, read_as
from .reference import Reference
from .trace import Trace

GRAMMAR = "grammar"
DIFFERS = "differs"
OUTSIDE = "outside"

# What the page and the command line call each level.
TITLES = {
    GRAMMAR: "As the grammar writes it",
    DIFFERS: "Differs from the grammar's German",
    OUTSIDE: "Outside what it learned",
}

# An output with fewer words than this share of the input's has left something out. German takes
# about as many words as English (the grammar's held-out pairs: 0.8 to 1.3 times as many), and a
# translation that drops a clause falls far below ("... the students went to a restaurant after
# their exams ..." -> half its words).
SHORT_OUTPUT = 0.6
# Below this many words a missing one or two is no sign of a lost clause.
SHORT_OUTPUT_MIN_WORDS = 6

_WORD = re.compile(r"\w+(?:['’]\w+)?")


@dataclass(frozen=True)
class Verdict:
    level: str  # GRAMMAR, DIFFERS or OUTSIDE
    reason: str  # why, in a sentence for the class
    reference: str | None = None  # the grammar's German, where the grammar writes the English

    @property
    def title(self) -> str:
        return TITLES[self.level]

    @property
    def warns(self) -> bool:
        return self.level != GRAMMAR

    def to_json(self) -> dict[str, Any]:
        """The command line's `verdict` object."""
        out: dict[str, Any] = {"level": self.level, "reason": self.reason}
        if self.reference is not None:
            out["reference"] = self.reference
        return out


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def _quoted(items: tuple[str, ...]) -> str:
    return ", ".join(f"“{item}”" for item in items)


def reference_for(loaded: LoadedModel, text: str) -> Reference | None:
    """What the model's corpus knows about the typed `text`, read as the model reads it
    (capitalised, with its full stop); None where the grammar cannot write it or the model has
    no corpus."""
    return loaded.reference(read_as(loaded, text)) if loaded.reference is not None else None


def verdict(
    loaded: LoadedModel, trace: Trace, text: str, reference: Reference | None
) -> Verdict | None:
    """The verdict on `trace`'s output for the typed `text`, whose `reference_for` is
    `reference` (the page passes its cached one); None for a model without a corpus (no
    reference to hold the output against) and for a run that did not decode its own output
    (teacher-forced on a reference)."""
    sure = confidence(trace)
    if sure is None or loaded.reference is None:
        return None
    typed = read_as(loaded, text)
    if reference is not None:
        if reference.text == trace.output:
            return Verdict(
                GRAMMAR,
                "The grammar the model learned from writes this sentence, and the model wrote "
                "the grammar's German word for word.",
            )
        return Verdict(
            DIFFERS,
            f"The grammar the model learned from writes this sentence otherwise: “{reference.text}”",
            reference.text,
        )
    reasons = []
    unseen = loaded.unseen_words(typed) if loaded.unseen_words is not None else ()
    if unseen:
        reasons.append(
            f"it never saw {'this word' if len(unseen) == 1 else 'these words'} in training: "
            + _quoted(unseen)
        )
    else:
        reasons.append(
            "it knows every word, but the grammar it learned from never writes a sentence built "
            "like this one"
        )
    typed_words, output_words = len(words(typed)), len(words(trace.output))
    if typed_words >= SHORT_OUTPUT_MIN_WORDS and output_words < SHORT_OUTPUT * typed_words:
        reasons.append(
            f"its output has {output_words} words for the input's {typed_words}: it probably "
            "left something out"
        )
    if sure.low:
        reasons.append(f"its confidence is {sure.sentence:.0%}, under {LOW_CONFIDENCE:.0%}")
    return Verdict(OUTSIDE, "Check this output: " + "; ".join(reasons) + ".")
