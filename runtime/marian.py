"""Marian's tokenizer (opus-mt): SentencePiece pieces of the source language (source.spm) looked up
in the shared vocabulary (vocab.json), </s> appended, as transformers' MarianTokenizer reads a
text; the output's pieces joined by the target language's SentencePiece model (target.spm)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from model.tokenization import Tokenized

from .loaded import ModelUnavailable
from .smollm2 import readable

SPACE = "\u2581"  # SentencePiece's mark of a word's start


class MarianTokenizer:
    """The app's tokenizer protocol over Marian's files; tokens are shown with a space where
    SentencePiece writes ▁."""

    def __init__(self, folder: Path, max_length: int):
        try:
            import sentencepiece as spm

            self._source = spm.SentencePieceProcessor(model_file=str(folder / "source.spm"))
            self._target = spm.SentencePieceProcessor(model_file=str(folder / "target.spm"))
            self.vocab: dict[str, int] = json.loads((folder / "vocab.json").read_text("utf-8"))
        except (OSError, RuntimeError, ValueError) as err:
            raise ModelUnavailable(f"Marian's tokenizer does not load ({err})") from None
        by_id = {i: piece for piece, i in self.vocab.items()}
        if sorted(by_id) != list(range(len(by_id))):
            raise ModelUnavailable("vocab.json's ids are not 0, 1, 2, …")
        self.itos = [by_id[i] for i in range(len(by_id))]  # every piece, by id
        self.max_length = max_length
        self.unk_id, self.eos_id = self.vocab.get("<unk>", 1), self.vocab.get("</s>", 0)
        self.special = frozenset(p for p in ("</s>", "<unk>", "<pad>") if p in self.vocab)

    def __len__(self) -> int:
        return len(self.vocab)

    def _pieces(self, text: str) -> list[tuple[str, int, int]]:
        """(piece, start, end) of each SentencePiece piece of `text`."""
        proto = self._source.encode(text, out_type="proto")
        return [(p.piece, p.begin, p.end) for p in proto.pieces]

    def encode(self, text: str, max_tokens: int = 512) -> Tokenized:
        pieces = [piece for piece, _, _ in self._pieces(text)]
        room = min(max_tokens, self.max_length) - 1  # and </s>
        ids = [self.vocab.get(p, self.unk_id) for p in pieces]
        unknown = tuple(dict.fromkeys(p.lstrip(SPACE) for p in pieces if p not in self.vocab))
        kept = [*ids[:room], self.eos_id]
        return Tokenized(
            ids=tuple(kept),
            tokens=tuple(self.tokens(kept)),
            unknown=unknown,
            truncated_from=len(ids) + 1 if len(ids) > room else None,
        )

    def offsets(self, text: str, max_tokens: int = 512) -> tuple[tuple[int, int], ...]:
        room = min(max_tokens, self.max_length) - 1
        return (*((start, end) for _, start, end in self._pieces(text)[:room]), (0, 0))

    def tokens(self, ids: Iterable[int]) -> list[str]:
        out = []
        for i in ids:
            if not 0 <= int(i) < len(self.itos):
                raise IndexError(f"{i} is not an id of Marian's vocabulary")
            piece = self.itos[int(i)]
            out.append(piece if piece in self.special else readable(piece.replace(SPACE, " ")))
        return out

    def decode(self, ids: Iterable[int]) -> str:
        pieces = [self.itos[int(i)] for i in ids]
        pieces = [piece for piece in pieces if piece not in self.special]
        return str(self._target.decode_pieces(pieces))
