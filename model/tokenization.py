"""What every tokenizer returns, and the special symbols of the models trained here.

The translator's shared BPE vocabulary is `subword.py`; the pretrained encoder's WordPiece lives
with its loader in `runtime/pretrained.py`. Both return a `Tokenized`, so the Trace builder does
not care which one it has.
"""

from __future__ import annotations

from dataclasses import dataclass

SPECIALS = ("<pad>", "<unk>", "<s>", "</s>")
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(len(SPECIALS))


@dataclass(frozen=True)
class Tokenized:
    """A text as the model sees it. `unknown` lists input words the vocabulary lacks."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    unknown: tuple[str, ...] = ()
    truncated_from: int | None = None  # the untruncated length, when the text was cut
