"""The held-out sets and the model's attention on their gold pairs: what `model.evaluate` scores
and what the runtime's held-out attribution table (runtime/attribution_table.py) scores too,
without the evaluation's packages (BLEU), which the app does not carry."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from corpus.generator import generate
from corpus.grammar import Example

from .subword import PieceLink, SubwordTokenizer, piece_alignment, piece_links
from .tokenization import BOS_ID, PAD_ID
from .transformer import EncoderDecoder, padding_mask, subsequent_mask


def held_out_examples(
    n: int, seed: int, keep: Callable[[Example], bool] = lambda ex: True
) -> list[Example]:
    """`n` generated examples that `keep` accepts (drawn in rounds with seeds from `seed`)."""
    out: list[Example] = []
    round_ = 0
    while len(out) < n:
        batch = generate(max(100, 2 * (n - len(out))), seed=seed * 1000 + round_)
        out += [ex for ex in batch if keep(ex)]
        round_ += 1
    return out[:n]


def attention_on_gold(
    model: EncoderDecoder, tokenizer: SubwordTokenizer, example: Example
) -> tuple[Tensor, Tensor, list[tuple[int, ...]], list[PieceLink]]:
    """Encoder self-attention [layer, head, en piece, en piece] and cross-attention
    [layer, head, de piece, en piece] on the gold pair (row j produces German piece j), with
    the word alignment and coreference mapped onto pieces."""
    src_ids, src_words = tokenizer.encode_words(example.english)
    tgt_ids, tgt_words = tokenizer.encode_words(example.german)
    src = torch.tensor([src_ids])
    tgt = torch.tensor([[BOS_ID, *tgt_ids]])
    src_mask = padding_mask(src, PAD_ID)
    encoded = model.encode(src, src_mask)
    decoded = model.decode(encoded.memory, src_mask, tgt, subsequent_mask(tgt.size(1)))
    encoder = torch.stack([r.captured()[0] for r in encoded.attention])
    # decoder row j reads piece j-1 (row 0 reads <s>) and produces piece j
    cross = torch.stack([r.captured()[0] for r in decoded.cross_attention])[:, :, : len(tgt_ids)]
    alignment = piece_alignment(src_words, tgt_words, example.alignment)
    links = piece_links(src_words, tgt_words, example.coreference)
    return encoder, cross, alignment, links


def argmax_hits(cross: Tensor, alignment: list[tuple[int, ...]]) -> tuple[Tensor, int, int]:
    """The terms of the alignment error rate on one sentence, per cross-attention head
    [layer, head]: how many German pieces have their largest weight on an English piece the gold
    alignment links them to; and the counts of linked German pieces and of gold links.
    AER = 1 - 2 * hits / (linked + links) over a corpus."""
    argmax = cross.argmax(dim=-1)  # [layer, head, german piece]
    hits = torch.zeros(argmax.shape[:2])
    linked = links = 0
    for j, sources in enumerate(alignment):
        if sources:
            linked += 1
            links += len(sources)
            hits += torch.isin(argmax[..., j], torch.tensor(sources)).float()
    return hits, linked, links
