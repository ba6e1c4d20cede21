"""How sure the model was of what it wrote: the probability it gave each output token, and one
figure for the sentence (their geometric mean, the per-token perplexity's inverse).

A translator trained on a grammar writes fluent German for sentences the grammar never writes
("Attention is all you need." -> "Um 1 seid ihr."); its own probabilities are one warning sign,
which runtime.verdict weighs with what the grammar knows about the sentence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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
