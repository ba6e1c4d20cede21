"""Training in float32 against bfloat16 autocast, side by side in one run.

    python -m bench.train_precision [--recipe configs/en-de.toml] [--steps 200]

1. Throughput: the same batches, one training step in float32, one under
   `torch.autocast("cpu", dtype=torch.bfloat16)`, interleaved; medians of target tokens a second
   and their ratio.
2. Quality of a short run: two copies of the recipe's model from one initialisation train the
   same `--steps` batches, one in each precision (Eq. (3) warming up over half the run to a
   peak of 1e-3); their label-smoothed loss on held-out pairs (computed in float32) and greedy
   exact match on them.
Writes bench/train_precision.json.
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

import torch

from model.decoding import greedy_decode
from model.subword import SubwordTokenizer
from model.tokenization import BOS_ID, EOS_ID, PAD_ID
from model.train import (
    Recipe,
    build,
    collate,
    encode_pairs,
    loss_on_batch,
    rate,
    target_tokens,
    token_batches,
    training_texts,
)
from model.transformer import DEFAULT_SETTINGS, padding_mask

from .timing import interleaved, machine, paired_ratio

OUT = Path(__file__).parent / "train_precision.json"


def held_out(model, pairs, smoothing: float) -> float:
    model.eval()
    total, tokens = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(pairs), 50):
            batch = list(range(start, min(start + 50, len(pairs))))
            src, tgt = collate(pairs, batch)
            loss = loss_on_batch(model, src, tgt, smoothing, bf16=False)
            n = target_tokens(tgt)
            total, tokens = total + loss.item() * n, tokens + n
    model.train()
    return total / tokens


def exact_match(model, pairs) -> float:
    model.eval()
    hits = 0
    with torch.no_grad():
        for src_ids, tgt_ids in pairs:
            src = torch.tensor([src_ids])
            mask = padding_mask(src, PAD_ID)
            memory = model.encode(src, mask).memory
            out = greedy_decode(
                model, memory, mask, DEFAULT_SETTINGS, len(tgt_ids) + 8, BOS_ID, EOS_ID
            )
            hits += out == tgt_ids[1:]
    model.train()
    return hits / len(pairs)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.train_precision")
    p.add_argument("--recipe", type=Path, default=Path("configs/en-de.toml"))
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--pairs", type=int, default=40000)
    args = p.parse_args(argv)
    recipe = Recipe.read(args.recipe)
    torch.set_num_threads(recipe.threads)
    texts = training_texts(args.pairs, recipe.data_seed)
    held = training_texts(300, recipe.test_seed, workers=1)
    tokenizer = SubwordTokenizer.train([t for pair in texts for t in pair], recipe.vocab_size)
    pairs, held_pairs = encode_pairs(texts, tokenizer), encode_pairs(held, tokenizer)
    batches = token_batches(pairs, recipe.batch_tokens, recipe.seed)
    _, base = build(recipe, len(tokenizer))
    models = {"fp32": base, "bf16": copy.deepcopy(base)}
    optimizers = {
        k: torch.optim.Adam(m.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
        for k, m in models.items()
    }
    # a short run's own schedule: Eq. (3) with warm-up over half the run, peaking at 1e-3
    warmup = max(1, args.steps // 2)
    factor = 1e-3 / rate(warmup, recipe.d_model, warmup)
    position = {"fp32": 0, "bf16": 0}
    tokens = {"fp32": [], "bf16": []}

    def step(kind: str) -> None:
        model, optimizer = models[kind], optimizers[kind]
        i = position[kind]
        src, tgt = collate(pairs, batches[i % len(batches)])
        for group in optimizer.param_groups:
            group["lr"] = rate(i + 1, recipe.d_model, warmup, factor)
        loss = loss_on_batch(model, src, tgt, recipe.smoothing, bf16=kind == "bf16")
        n = target_tokens(tgt)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        position[kind] += 1
        tokens[kind].append(n)

    stats = interleaved(
        {"fp32": lambda: step("fp32"), "bf16": lambda: step("bf16")}, repeats=args.steps - 1
    )
    # both ran the same batches in the same order, so tokens per step pair up
    per_step = tokens["fp32"][1:]
    tok_s = {
        k: sorted(n / t for n, t in zip(per_step, stats[k].runs))[len(per_step) // 2] for k in stats
    }
    result = {
        "recipe": str(args.recipe),
        "steps": args.steps,
        "training_pairs": args.pairs,
        "median_target_tokens_per_s": tok_s,
        "bf16_time_over_fp32": paired_ratio(stats["bf16"], stats["fp32"]),
        "held_out_loss": {k: held_out(m, held_pairs, recipe.smoothing) for k, m in models.items()},
        "held_out_exact_greedy": {k: exact_match(m, held_pairs[:100]) for k, m in models.items()},
        "machine": machine(recipe.threads),
    }
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=1))


if __name__ == "__main__":
    main()
