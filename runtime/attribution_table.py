"""Attention or gradients, over the held-out set: which explains the translator's choices best,
scored against the corpus's gold word alignment.

    python -m runtime.attribution_table [--weights model/weights/en-de.safetensors]
        [--sentences 500] [--steps 32]

On held-out corpus v2 sentences (the seed `model.evaluate` draws its test set from), each
teacher-forced on its gold German: the AER of saliency, input × gradient and integrated
gradients (runtime/attribution.py), of every cross-attention head and of every layer's mean over
heads, each counted over all sentences at once (1 − 2·|A ∩ G| / (|A| + |G|), the argmax link of
every German token with a gold link); and Spearman's rank correlation between the attention
variants (the best head, the best layer mean) and each attribution, over the cells of a
sentence, averaged over sentences. The table goes into the weights' sidecar
(`metrics.attribution_alignment`), which the Model tab shows. It is its own command, not part
of `python -m model.evaluate`: the attributions are the runtime's, and model/ imports nothing
above it.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from corpus.grammar import Example
from model.gold import attention_on_gold, held_out_examples
from model.subword import SubwordTokenizer
from model.transformer import EncoderDecoder
from model.weights import WEIGHTS_DIR, load_checked_model, write_sidecar

from .attribution import METHODS, alignment_counts, attribute_ids


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's ρ of two arrays' cells: Pearson's r of their ranks (ties share the mean rank)."""

    def ranks(x: np.ndarray) -> np.ndarray:
        flat = x.ravel()
        order = flat.argsort(kind="stable")
        ranked = np.empty(len(flat))
        ranked[order] = np.arange(len(flat))
        for value in np.unique(flat):  # ties: the mean of their ranks
            tied = flat == value
            ranked[tied] = ranked[tied].mean()
        return ranked

    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def heldout_table(
    model: EncoderDecoder,
    tokenizer: SubwordTokenizer,
    examples: Sequence[Example],
    steps: int = 32,
) -> dict[str, Any]:
    """The AER of every method and head, and the agreement of attention with the gradients."""
    config = model.config
    counts: dict[str, np.ndarray] = {m: np.zeros(3) for m in METHODS}
    head_counts = np.zeros((config.N, config.h, 3))
    layer_counts = np.zeros((config.N, 3))
    cells: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []
    for ex in examples:
        _, cross, alignment, _ = attention_on_gold(model, tokenizer, ex)
        cross_np = cross.float().numpy()  # [layer, head, German piece, English piece]
        src_ids, _ = tokenizer.encode_words(ex.english)
        tgt_ids, _ = tokenizer.encode_words(ex.german)
        scores = {m: attribute_ids(model, src_ids, tgt_ids, m, steps).scores for m in METHODS}
        for m, s in scores.items():
            counts[m] += alignment_counts(s, alignment)
        for layer in range(config.N):
            layer_counts[layer] += alignment_counts(cross_np[layer].mean(axis=0), alignment)
            for head in range(config.h):
                head_counts[layer, head] += alignment_counts(cross_np[layer, head], alignment)
        cells.append((cross_np, scores))

    def aer(c: np.ndarray) -> float:
        hits, predicted, gold = c
        return round(float(1 - 2 * hits / max(1.0, predicted + gold)), 4)

    heads = np.array([[aer(c) for c in row] for row in head_counts])
    layers = [aer(c) for c in layer_counts]
    best_head = np.unravel_index(int(heads.argmin()), heads.shape)
    best_layer = int(np.argmin(layers))
    methods = {METHODS[m]: aer(c) for m, c in counts.items()}
    methods[f"best head L{best_head[0] + 1} H{best_head[1] + 1}"] = float(heads[best_head])
    methods[f"best layer mean L{best_layer + 1}"] = layers[best_layer]
    head_name = f"best head L{best_head[0] + 1} H{best_head[1] + 1}"
    layer_name = f"best layer mean L{best_layer + 1}"
    attention = {
        head_name: [c[best_head[0], best_head[1]] for c, _ in cells],
        layer_name: [c[best_layer].mean(axis=0) for c, _ in cells],
    }
    agreement = {
        name: {
            METHODS[m]: round(
                float(np.nanmean([spearman(a, s[m]) for a, (_, s) in zip(matrices, cells)])), 4
            )
            for m in METHODS
        }
        for name, matrices in attention.items()
    }
    best = min(methods, key=methods.__getitem__)
    return {
        "sentences": len(examples),
        "integrated_gradient_steps": steps,
        "aer": dict(sorted(methods.items(), key=lambda kv: kv[1])),
        "best": {"method": best, "aer": methods[best]},
        "aer_per_head": heads.tolist(),
        "aer_per_layer_mean": layers,
        "spearman": agreement,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m runtime.attribution_table", description=__doc__.split("\n")[0]
    )
    p.add_argument("--weights", type=Path, default=WEIGHTS_DIR / "en-de.safetensors")
    p.add_argument("--sentences", type=int, default=500)
    p.add_argument("--steps", type=int, default=32, help="integrated-gradient points")
    p.add_argument("--test-seed", type=int, default=2)
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    model, sidecar = load_checked_model(args.weights)
    model.eval().requires_grad_(False)
    tokenizer = SubwordTokenizer.from_json(json.dumps(sidecar["tokenizer"]))
    started = time.perf_counter()
    table = heldout_table(
        model, tokenizer, held_out_examples(args.sentences, args.test_seed), args.steps
    )
    table["minutes"] = round((time.perf_counter() - started) / 60, 1)
    metrics = dict(sidecar.get("metrics", {}), attribution_alignment=table)
    write_sidecar(args.weights, dict(sidecar, metrics=metrics))
    print(json.dumps({k: v for k, v in table.items() if k != "aer_per_head"}, indent=1))


if __name__ == "__main__":
    main()
