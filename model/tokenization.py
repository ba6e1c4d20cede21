"""Word-level tokenization for the English→German models.

The sub-word tokenizer of the pretrained encoder lives with its loader in `pretrained.py`; both
return a `Tokenized`, so the Trace builder does not care which one it has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

SPECIALS = ("<pad>", "<unk>", "<s>", "</s>")
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(len(SPECIALS))


@dataclass(frozen=True)
class Tokenized:
    """A text as the model sees it. `unknown` lists input words the vocabulary lacks."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    unknown: tuple[str, ...] = ()
    truncated_from: int | None = None  # the untruncated length, when the text was cut


class WordTokenizer:
    """Maps words to ids of one vocabulary (shared by source and target, Section 3.4)."""

    def __init__(
        self,
        words: Iterable[str],
        split: Callable[[str], list[str]],
        join: Callable[[list[str]], str],
    ):
        self.itos = list(SPECIALS) + sorted(set(words) - set(SPECIALS))
        self.stoi = {word: i for i, word in enumerate(self.itos)}
        self.split, self.join = split, join

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, text: str, max_tokens: int) -> Tokenized:
        words = self.split(text)
        total = len(words)
        words = words[:max_tokens]
        ids = tuple(self.stoi.get(word, UNK_ID) for word in words)
        unknown = tuple(dict.fromkeys(w for w, i in zip(words, ids) if i == UNK_ID))
        tokens = tuple(w if i != UNK_ID else SPECIALS[UNK_ID] for w, i in zip(words, ids))
        return Tokenized(ids, tokens, unknown, total if total > max_tokens else None)

    def nearest(self, word: str, limit: int = 3) -> list[str]:
        """Known words closest to a word the vocabulary lacks (edit similarity, at least 60 of
        100), best first: what the person probably meant to type."""
        known = self.itos[len(SPECIALS) :]
        found = process.extract(word, known, scorer=fuzz.ratio, limit=limit, score_cutoff=60)
        return [match for match, _, _ in found]

    def tokens(self, ids: Iterable[int]) -> list[str]:
        return [self.itos[i] for i in ids]

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> text, stopping at the end symbol and leaving out the other specials."""
        words = []
        for i in ids:
            if i == EOS_ID:
                break
            if i >= len(SPECIALS):
                words.append(self.itos[i])
        return self.join(words)
