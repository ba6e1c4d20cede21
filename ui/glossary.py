"""Terms a first course has not met, each said in one plain line where a tab first uses it
(issue 66, item 7: a lecturer's class met nats, excess kurtosis, Jacobian norm, AER, Spearman's
ρ, integrated gradients and rollout with no word of what they are).

The tabs' own texts keep the precise definitions (formulas, papers); these lines are for the
student who reads the page without them.
"""

from __future__ import annotations

import re

# term -> (what finds the term in a tab's text, the plain line)
TERMS: dict[str, tuple[str, str]] = {
    "nats": (
        r"\bnats?\b",
        "**nats**: the unit of entropy and loss measured with the natural logarithm "
        "(1 nat ≈ 1.44 bits); 0 means certain, more means more spread out or more surprised.",
    ),
    "excess kurtosis": (
        r"\bkurtosis\b",
        "**excess kurtosis**: how much heavier a distribution's tails are than a bell curve's "
        "(0 for a bell curve): more of it means more rare, extreme values.",
    ),
    "Jacobian": (
        r"\bJacobian\b",
        "**Jacobian**: how much each output of the softmax moves when each score moves; a "
        "Jacobian near zero means the layers below get almost no gradient to learn from.",
    ),
    "AER": (
        r"\bAER\b",
        "**AER** (alignment error rate): how far a head's strongest links are from the word "
        "pairs a person marked as translations of each other; 0 = all agree, 1 = none.",
    ),
    "Spearman's ρ": (
        r"\bSpearman",
        "**Spearman's ρ**: how alike two rankings are, from −1 (reversed) through 0 "
        "(unrelated) to 1 (the same order).",
    ),
    "integrated gradients": (
        r"\bintegrated gradients\b",
        "**integrated gradients**: how much each input word moves the output, added up "
        "while the input fades in from a blank one to the real one.",
    ),
    "rollout": (
        r"\brollout\b",
        "**attention rollout**: the layers' attention multiplied together, to trace what each "
        "position draws on back to the words that went in.",
    ),
}


def used_in(text: str) -> list[str]:
    """The terms `text` uses, in the glossary's order."""
    return [term for term, (pattern, _) in TERMS.items() if re.search(pattern, text, re.I)]


def plain_words(*terms: str) -> str:
    """One Markdown line saying each term plainly, for a caption beside its first use."""
    return "In plain words: " + " · ".join(TERMS[term][1] for term in terms)


class FirstUse:
    """The terms one tab has said plainly in this run: each tab makes one, and each text it
    shows is followed by the plain line of the terms it uses for the first time."""

    def __init__(self) -> None:
        self.said: set[str] = set()

    def new_terms(self, text: str) -> list[str]:
        terms = [term for term in used_in(text) if term not in self.said]
        self.said.update(terms)
        return terms

    def after(self, where, text: str) -> None:
        """The plain line of the terms `text` (just shown in `where`) uses first, as a caption."""
        terms = self.new_terms(text)
        if terms:
            where.caption(plain_words(*terms))
