"""How sure the model was of what it wrote: the probability it gave each output token, and one
figure for the sentence (their geometric mean, the per-token perplexity's inverse).

A translator trained on a grammar writes fluent German for sentences the grammar never writes
("Attention is all you need." -> "Um 1 seid ihr."); its own probabilities are the warning sign
the page can show, with the likely reason: words, or a construction, it never saw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .loaded import LoadedModel
from .trace import Trace

# Below this sentence figure the page says the output is probably wrong. On the shipped
# translator, the grammar's own sentences score 0.95-0.96 (60 held-out) and mistranslations far
# from the grammar 0.23-0.67 ("THE DOG SLEEPS." 0.23, "Welcome to Berlin!" 0.56, "Attention is
# all you need." 0.67); nearer it they pass ("I speak a little German." -> "Ich spreche eine
# Decke." 0.73, "Does the train leave at nine?" -> "Verlässt der Zug um neun?" 0.91).
LOW_CONFIDENCE = 0.7


@dataclass(frozen=True)
class Confidence:
    tokens: tuple[str, ...]  # what the model wrote, </s> included
    probabilities: tuple[float, ...]  # the probability it gave each
    sentence: float  # their geometric mean

    @property
    def lowest(self) -> tuple[str, float]:
        i = min(range(len(self.probabilities)), key=self.probabilities.__getitem__)
        return self.tokens[i], self.probabilities[i]

    @property
    def low(self) -> bool:
        return self.sentence < LOW_CONFIDENCE


def confidence(trace: Trace) -> Confidence | None:
    """The model's confidence in its output; None for a model that wrote nothing (an encoder),
    for a run teacher-forced on a reference (those probabilities are of another text) and for a
    language model's continuation."""
    if not trace.steps or trace.decoding not in ("greedy", "beam") or trace.prompt_length:
        # a language model's probabilities say how usual a continuation is, not whether it is
        # right: the threshold below was set on the translator and would misread them
        return None
    probabilities = tuple(step.probability for step in trace.steps)
    log_mean = sum(math.log(max(p, 1e-12)) for p in probabilities) / len(probabilities)
    return Confidence(
        tokens=tuple(step.token for step in trace.steps),
        probabilities=probabilities,
        sentence=math.exp(log_mean),
    )


def why_unsure(loaded: LoadedModel, text: str) -> str | None:
    """The likely reason a translator is unsure of `text`, in words for the page: the typed
    words its corpus never writes, or else, when it knows every word but its grammar cannot
    write the sentence, a construction it never saw; None where the model has no corpus."""
    if loaded.unseen_words is None or loaded.reference is None:
        return None
    unseen = loaded.unseen_words(text)
    if unseen:
        quoted = ", ".join(f"“{word}”" for word in unseen)
        return f"it never saw {'this word' if len(unseen) == 1 else 'these words'} in training: {quoted}"
    if loaded.reference(text) is None:
        return (
            "it knows every word, but the grammar it learned from never writes a sentence built "
            "like this one"
        )
    return None


def output_warning(loaded: LoadedModel, trace: Trace, text: str) -> str | None:
    """What the page says beside an output it should not be trusted on, in plain words: below
    LOW_CONFIDENCE, that it is probably wrong and the likely reason; otherwise, where the text
    has words the corpus never writes, that what the model wrote for them is a guess."""
    sure = confidence(trace)
    if sure is None:
        return None
    if sure.low:
        why = why_unsure(loaded, text)
        return (
            f"The model is unsure of this output ({sure.sentence:.0%}, below "
            f"{LOW_CONFIDENCE:.0%}): it is probably wrong" + (f": {why}." if why else ".")
        )
    unseen = loaded.unseen_words(text) if loaded.unseen_words is not None else ()
    if unseen:
        quoted = ", ".join(f"“{word}”" for word in unseen)
        return (
            f"The model never saw {quoted} in training: whatever it wrote for "
            f"{'it' if len(unseen) == 1 else 'them'} is a guess, however sure it looks "
            f"({sure.sentence:.0%})."
        )
    return None
