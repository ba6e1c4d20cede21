"""A shared English–German sub-word vocabulary, and word annotations carried over to its pieces.

Section 5.1 of "Attention Is All You Need": the English–German sentences "were encoded using
byte-pair encoding, which has a shared source-target vocabulary of about 37000 tokens". Here one
BPE vocabulary (Hugging Face `tokenizers`) is learnt from English and German texts together,
so one embedding matrix can serve encoder, decoder and output layer (Section 3.4).

Word-internal pieces carry the continuation marker "##" ("München" -> "Mün", "##chen"): the
marker, not a space, says where words begin, so decoding glues the pieces back into words, and
a heatmap label shows which pieces make up one word. Case is kept (German nouns are
capitalised), and words with an apostrophe (didn't, can't) stay whole words; only `. , ? !`
are split off, and decoding attaches them to the word before, as `corpus.grammar.join_tokens`
writes them.

The corpus annotates words (`Example.alignment`, `Example.coreference`); `word_spans`,
`piece_words`, `piece_alignment` and `piece_links` carry those annotations over to pieces.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from tokenizers import (
    Encoding,
    Regex,
    Tokenizer,
    decoders,
    models,
    pre_tokenizers,
    trainers,
)

from .tokenization import EOS_ID, SPECIALS, UNK_ID, Tokenized

PREFIX = "##"  # the continuation marker of word-internal pieces
PUNCTUATION = frozenset({".", ",", "?", "!"})  # split off, and attached to the word before


def _pre_tokenizer() -> pre_tokenizers.PreTokenizer:
    """Whitespace splits words; `. , ? !` become words of their own; apostrophes stay inside."""
    return pre_tokenizers.Sequence(
        [
            pre_tokenizers.WhitespaceSplit(),
            pre_tokenizers.Split(Regex("[.,?!]"), behavior="isolated"),
        ]
    )


def _decoder() -> decoders.Decoder:
    """WordPiece decoding ("##" glues, others get a space), then `. , ? !` attach to the left.

    The WordPiece decoder's own `cleanup` is off: it also glues pieces such as "'s" and "n't"
    that start a word ("Peter 's" -> "Peter's"), which join_tokens never does.
    """
    return decoders.Sequence(
        [decoders.WordPiece(prefix=PREFIX, cleanup=False)]
        + [decoders.Replace(" " + mark, mark) for mark in sorted(PUNCTUATION)]
    )


def _alphabet(texts: Sequence[str]) -> list[str]:
    """Every character of `texts` that can occur inside a word, sorted."""
    chars = set().union(*texts)
    split = pre_tokenizers.WhitespaceSplit()
    return sorted(c for c in chars if split.pre_tokenize_str(c))


def train_tokenizer(texts: Iterable[str], vocab_size: int = 8000) -> Tokenizer:
    """Learn one BPE vocabulary (Section 5.1: shared by source and target) from `texts`.

    Pass English and German sentences together. Ids 0-3 are `<pad> <unk> <s> </s>` (PAD_ID,
    UNK_ID, BOS_ID, EOS_ID of model/tokenizers.py). Every character of the texts is a piece both
    at the start of a word and, as "##c", inside one, so only characters never seen are `<unk>`.
    Merges are learnt in order of frequency (pairs seen at least twice), so frequent words end
    up as single pieces and rare words (rare names and numbers too) are spelt with several.
    `vocab_size` counts all pieces, specials and both forms of each character included (a
    smaller one leaves just those).

    The same texts always give the same vocabulary. (The `tokenizers` trainer numbers the "##c"
    pieces in hash-map order, which decides ties between equally frequent merges:
    huggingface/tokenizers#1794. Here they are handed to the trainer up front, as special tokens
    so they get fixed ids, and are then turned back into ordinary pieces.)
    """
    texts = list(texts)
    alphabet = _alphabet(texts)
    continuations = [PREFIX + c for c in alphabet]
    tokenizer = Tokenizer(models.BPE(unk_token=SPECIALS[UNK_ID], continuing_subword_prefix=PREFIX))
    tokenizer.pre_tokenizer = _pre_tokenizer()
    tokenizer.decoder = _decoder()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=list(SPECIALS) + continuations,
        initial_alphabet=alphabet,
        continuing_subword_prefix=PREFIX,
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    data = json.loads(tokenizer.to_str())
    data["added_tokens"] = [t for t in data["added_tokens"] if t["content"] in SPECIALS]
    return Tokenizer.from_str(json.dumps(data, ensure_ascii=False))


class SubwordTokenizer:
    """A trained `tokenizers.Tokenizer` behind the app's tokenizer interface
    (`runtime.loaded.ModelTokenizer`).

    Pieces are shown as the vocabulary spells them: "Mün", "##chen". `encode` adds no `<s>` or
    `</s>`; it cuts after `max_tokens` pieces, which may cut a word.
    """

    def __init__(self, tokenizer: Tokenizer):
        for i, special in enumerate(SPECIALS):
            if tokenizer.token_to_id(special) != i:
                raise ValueError(f"the tokenizer must have {special} at id {i}")
        self._tokenizer = tokenizer
        vocab = tokenizer.get_vocab()
        self.itos = [""] * len(vocab)
        for piece, i in vocab.items():
            self.itos[i] = piece
        if "" in self.itos:
            raise ValueError("the tokenizer's ids are not 0..n-1")

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int = 8000) -> SubwordTokenizer:
        return cls(train_tokenizer(texts, vocab_size))

    def __len__(self) -> int:
        return len(self.itos)

    def to_json(self) -> str:
        return self._tokenizer.to_str()

    @classmethod
    def from_json(cls, text: str) -> SubwordTokenizer:
        return cls(Tokenizer.from_str(text))

    def encoding(self, text: str) -> Encoding:
        """The `tokenizers` Encoding of the whole `text` (ids, tokens, character offsets)."""
        return self._tokenizer.encode(text, add_special_tokens=False)

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """Piece ids of many texts at once (the training data), in parallel."""
        return [e.ids for e in self._tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def encode(self, text: str, max_tokens: int | None = None) -> Tokenized:
        encoding = self.encoding(text)
        total = len(encoding.ids)
        cut = total if max_tokens is None else min(total, max_tokens)
        ids = tuple(encoding.ids[:cut])
        unknown: dict[str, None] = {}
        if UNK_ID in ids:
            words = self._tokenizer.pre_tokenizer.pre_tokenize_str(text)
            for i, word in zip(ids, encoding.word_ids):
                if i == UNK_ID:
                    unknown[words[word][0]] = None
        return Tokenized(
            ids, tuple(encoding.tokens[:cut]), tuple(unknown), total if total > cut else None
        )

    def offsets(self, text: str, max_tokens: int | None = None) -> tuple[tuple[int, int], ...]:
        """Character span of each piece of `encode(text, max_tokens)` in `text`."""
        offsets = self.encoding(text).offsets
        return tuple((start, end) for start, end in offsets[:max_tokens])

    def encode_words(self, words: Sequence[str]) -> tuple[list[int], list[int]]:
        """Ids of the pieces of the text `join_tokens(words)` writes, and each piece's word."""
        encoding = self.encoding(join_words(words))
        return list(encoding.ids), piece_words(encoding.offsets, word_spans(words))

    def tokens(self, ids: Iterable[int]) -> list[str]:
        return [self.itos[int(i)] for i in ids]

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> text, stopping at the end symbol and leaving out the other specials."""
        kept = []
        for i in map(int, ids):
            if i == EOS_ID:
                break
            if i >= len(SPECIALS):
                kept.append(i)
        return self._tokenizer.decode(kept, skip_special_tokens=True)


# --- Word annotations on pieces -----------------------------------------------------------------


def join_words(words: Sequence[str]) -> str:
    """The rule of `corpus.grammar.join_tokens`: spaces between words, none before `. , ? !`."""
    out = ""
    for word in words:
        out += word if (word in PUNCTUATION or not out) else " " + word
    return out


def word_spans(words: Sequence[str]) -> list[tuple[int, int]]:
    """The (start, end) character span of each word in the text `join_tokens(words)` writes."""
    spans, length = [], 0
    for word in words:
        if length and word not in PUNCTUATION:
            length += 1  # the space before the word
        spans.append((length, length + len(word)))
        length += len(word)
    return spans


def piece_words(
    encoding_offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]
) -> list[int]:
    """For each piece (its character offsets, `tokenizer.encode(text).offsets`), the index of
    the word (`spans`, from `word_spans`) it lies in. Raises ValueError for a piece that lies in
    no word (the text was not written by join_tokens from these words)."""
    words = [(start, end, i) for i, (start, end) in enumerate(spans) if end > start]
    starts = [start for start, _, _ in words]
    out = []
    for start, end in encoding_offsets:
        k = bisect_right(starts, start) - 1
        if k < 0 or end > words[k][1]:
            raise ValueError(f"the piece at characters {start}:{end} lies in no single word")
        out.append(words[k][2])
    return out


def _pieces_of(piece_words: Sequence[int]) -> dict[int, list[int]]:
    pieces: dict[int, list[int]] = {}
    for piece, word in enumerate(piece_words):
        pieces.setdefault(word, []).append(piece)
    return pieces


def piece_alignment(
    src_piece_words: Sequence[int],
    tgt_piece_words: Sequence[int],
    alignment: Sequence[Sequence[int]],
) -> list[tuple[int, ...]]:
    """The word alignment (`Example.alignment`: per German word, its English words) on pieces.

    Per target piece: the indices, ascending, of every source piece of every English word its
    German word is aligned to. All pieces of one German word share one entry.
    """
    src = _pieces_of(src_piece_words)
    return [
        tuple(sorted(p for w in set(alignment[word]) for p in src.get(w, ())))
        for word in tgt_piece_words
    ]


class WordCoreference(Protocol):
    """A coreference link on words, as `corpus.grammar.Coreference` holds one (model/ reads
    the corpus only to train and to evaluate, so the shape is spelt out here)."""

    @property
    def pronoun(self) -> int: ...
    @property
    def antecedent(self) -> Sequence[int]: ...
    @property
    def german_pronoun(self) -> int: ...


@dataclass(frozen=True)
class PieceLink:
    """A `corpus.grammar.Coreference` on pieces: the source pieces of the English pronoun and
    of its antecedent noun phrase, and the target pieces of the German pronoun (usually one
    piece each for the pronouns)."""

    pronoun: tuple[int, ...]
    antecedent: tuple[int, ...]
    german_pronoun: tuple[int, ...]


def piece_links(
    src_piece_words: Sequence[int],
    tgt_piece_words: Sequence[int],
    coreference: Iterable[WordCoreference],
) -> list[PieceLink]:
    """Each coreference link (`Example.coreference`) with its word indices replaced by piece
    indices: English pronoun and antecedent as source pieces, German pronoun as target pieces."""
    src, tgt = _pieces_of(src_piece_words), _pieces_of(tgt_piece_words)
    return [
        PieceLink(
            pronoun=tuple(src.get(link.pronoun, ())),
            antecedent=tuple(sorted(p for w in set(link.antecedent) for p in src.get(w, ()))),
            german_pronoun=tuple(tgt.get(link.german_pronoun, ())),
        )
        for link in coreference
    ]
