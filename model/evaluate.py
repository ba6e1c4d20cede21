"""Quality of a trained English→German model on held-out generated pairs.

Exact match and corpus BLEU (sacrebleu) of beam-search and greedy translations, exact match on
two-clause sentences longer than any seen in training, and for every cross-attention head the
alignment error rate (AER, Och & Ney 2003) of its argmax alignment against the gold alignment.
"""

from __future__ import annotations

import sacrebleu
import torch

from . import corpus
from .decoding import beam_search, greedy_decode
from .tokenizers import BOS_ID, EOS_ID, WordTokenizer
from .transformer import DEFAULT_SETTINGS, EncoderDecoder, padding_mask, subsequent_mask


def translate(model: EncoderDecoder, tokenizer: WordTokenizer, english, method: str) -> list[str]:
    """German tokens for English tokens (no end symbol)."""
    src = torch.tensor([[tokenizer.stoi.get(w, 1) for w in english]])
    mask = padding_mask(src, 0)
    memory = model.encode(src, mask).memory
    decode = beam_search if method == "beam" else greedy_decode
    ids = decode(model, memory, mask, DEFAULT_SETTINGS, 2 * len(english) + 10, BOS_ID, EOS_ID)
    return tokenizer.tokens([i for i in ids if i != EOS_ID])


def cross_attention_on_gold(model, tokenizer, example) -> torch.Tensor:
    """[layer, head, german token, english token]: row j is the step that produces german[j]."""
    src = torch.tensor([[tokenizer.stoi[w] for w in example.english]])
    tgt = torch.tensor([[BOS_ID] + [tokenizer.stoi[w] for w in example.german]])
    out = model(src, tgt, padding_mask(src, 0), subsequent_mask(tgt.size(1)))
    return torch.stack([record.weights[0] for record in out.cross_attention])


def alignment_error_rate(predicted: set, gold: set) -> float:
    """AER with every gold link counted as sure: 1 - 2|A ∩ S| / (|A| + |S|)."""
    if not predicted and not gold:
        return 0.0
    return 1 - 2 * len(predicted & gold) / (len(predicted) + len(gold))


def head_alignment_errors(model, tokenizer, examples) -> list[list[float]]:
    """Corpus-level AER of each head's argmax alignment, [layer][head].

    German tokens with no gold link (nothing in English to align to) are left out of both sides.
    """
    config = model.config
    hits = torch.zeros(config.N, config.h)
    predicted_total, gold_total = 0, 0
    for example in examples:
        weights = cross_attention_on_gold(model, tokenizer, example)
        argmax = weights.argmax(dim=-1)  # [layer, head, german]
        for j, links in enumerate(example.alignment):
            if not links:
                continue
            predicted_total += 1
            gold_total += len(links)
            hits += torch.isin(argmax[..., j], torch.tensor(links)).float()
    aer = 1 - 2 * hits / (predicted_total + gold_total)
    return [[round(v, 4) for v in row] for row in aer.tolist()]


def score(model, tokenizer, examples, method: str) -> dict:
    hypotheses = [translate(model, tokenizer, ex.english, method) for ex in examples]
    exact = sum(h == list(ex.german) for h, ex in zip(hypotheses, examples))
    bleu = sacrebleu.corpus_bleu(
        [corpus.detokenize_german(h) for h in hypotheses], [[ex.german_text for ex in examples]]
    )
    return {"exact_match": round(exact / len(examples), 4), "bleu": round(bleu.score, 2)}


@torch.inference_mode()
def evaluate(model, tokenizer, test_size: int, test_seed: int, long_size: int = 300) -> dict:
    model.eval()
    test = corpus.generate(test_size, seed=test_seed)
    long = corpus.generate(long_size, seed=test_seed + 1, max_clauses=2)
    long = [ex for ex in long if len(ex.english) > max(len(t.english) for t in test)]
    aer = head_alignment_errors(model, tokenizer, test[:500])
    best = min(((a, lay, h) for lay, row in enumerate(aer) for h, a in enumerate(row)))
    return {
        "test_set": {"size": len(test), "seed": test_seed},
        "beam4": score(model, tokenizer, test, "beam"),
        "greedy": score(model, tokenizer, test, "greedy"),
        "longer_than_training": {"size": len(long), **score(model, tokenizer, long, "beam")},
        "alignment_error_rate": {
            "per_head": aer,
            "sentences": min(500, len(test)),
            "best": {"layer": best[1], "head": best[2], "aer": best[0]},
        },
    }
