"""Quality of a trained English→German model on held-out generated pairs.

Exact match and corpus BLEU (sacrebleu) of beam-search and greedy translations; exact match on
sentences of two clauses joined by "and", of any length and longer than any seen in training (the
grammar writes training sentences of at most `corpus.MAX_SENTENCE_TOKENS` English tokens); and for
every cross-attention head the alignment error rate (AER, Och & Ney 2003) of its argmax alignment
against the gold alignment.

`python -m model.evaluate` re-scores shipped weights and rewrites the metrics in their sidecar.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import sacrebleu
import torch

from corpus.v1 import grammar as corpus

from .decoding import beam_search, greedy_decode
from .registry import WEIGHTS_DIR, load_trained
from .tokenizers import BOS_ID, EOS_ID, WordTokenizer
from .transformer import DEFAULT_SETTINGS, EncoderDecoder, padding_mask, subsequent_mask
from .weights import read_sidecar, write_sidecar


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
    two_clauses = corpus.generate(long_size, seed=test_seed + 1, max_clauses=2)
    longer = corpus.generate(
        long_size, seed=test_seed + 2, max_clauses=2, longer_than=corpus.MAX_SENTENCE_TOKENS
    )
    aer = head_alignment_errors(model, tokenizer, test[:500])
    best = min(((a, lay, h) for lay, row in enumerate(aer) for h, a in enumerate(row)))
    return {
        "test_set": {"size": len(test), "seed": test_seed},
        "beam4": score(model, tokenizer, test, "beam"),
        "greedy": score(model, tokenizer, test, "greedy"),
        "two_clauses": {"size": len(two_clauses), **score(model, tokenizer, two_clauses, "beam")},
        "longer_than_training": {
            "size": len(longer),
            "longest_training_sentence": corpus.MAX_SENTENCE_TOKENS,
            **score(model, tokenizer, longer, "beam"),
        },
        "alignment_error_rate": {
            "per_head": aer,
            "sentences": min(500, len(test)),
            "best": {"layer": best[1], "head": best[2], "aer": best[0]},
        },
    }


def main(argv: list[str] | None = None) -> None:
    """Re-score a trained model and rewrite the metrics in its sidecar (the weights stay as they are)."""
    p = argparse.ArgumentParser(prog="python -m model.evaluate", description=main.__doc__)
    p.add_argument("--weights", type=Path, default=WEIGHTS_DIR / "en-de.safetensors")
    p.add_argument("--test-size", type=int, default=2000)
    p.add_argument("--test-seed", type=int, default=2)
    p.add_argument("--long-size", type=int, default=300)
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = load_trained(torch.device("cpu"), args.weights)
    metrics = evaluate(
        loaded.model, loaded.tokenizer, args.test_size, args.test_seed, args.long_size
    )
    write_sidecar(args.weights, dict(read_sidecar(args.weights), metrics=metrics))
    print(json.dumps({k: v for k, v in metrics.items() if k != "alignment_error_rate"}, indent=1))


if __name__ == "__main__":
    main()
