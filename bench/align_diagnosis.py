"""Which change to the recipe lets cross-attention align? Issue 47's short runs.

    python -m bench.align_diagnosis --variant baseline [--steps 1200] [--every 400]
    python -m bench.align_diagnosis --variant norm_first=1
    python -m bench.align_diagnosis --variant embedding_init=normal
    python -m bench.align_diagnosis --variant lr_factor=0.25
    python -m bench.align_diagnosis --table   # docs/translator.md's table from what the runs wrote

A small model (d_model 128, N = 3, the recipe's other settings: post-norm, h = 8, shared BPE
vocabulary, label smoothing 0.1, Eq. (3), bf16 autocast where native) on 100,000 corpus-v2 pairs,
in batches of 3,000 tokens with 400 warm-up steps (the recipe's 6,000 and 3,000 would not leave a
short run past its warm-up), with one recipe field changed by `--variant field=value` (or none for
`baseline`), from the same seed and batches. Every `--every` steps the model is measured as
bench/align_measures.py says (best cross-attention head AER, mean cross-attention entropy per
layer, the encoder's spread across positions, held-out NLL) on 100 held-out pairs. One JSON line a
measurement goes to bench/align_diagnosis.jsonl, so runs on separate processes add up.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import fields, replace
from pathlib import Path

import torch

from model.gold import held_out_examples
from model.train import DATA_CACHE, Recipe, train

from .align_measures import measure
from .timing import machine

ROOT = Path(__file__).parent.parent
OUT = Path(__file__).parent / "align_diagnosis.jsonl"


def small_recipe() -> Recipe:
    recipe = Recipe.read(ROOT / "configs" / "en-de.toml")
    return replace(
        recipe, name="align-diagnosis", train_size=100_000, N=3, d_model=128, d_ff=512,
        batch_tokens=3000, warmup=400, threads=1, checkpoint_minutes=1000.0, log_every=50,
    )  # fmt: skip


def with_variant(recipe: Recipe, variant: str) -> Recipe:
    if variant == "baseline":
        return recipe
    key, value = variant.split("=", 1)
    kinds = {f.name: type(getattr(recipe, f.name)) for f in fields(recipe)}
    if key == "lr_factor":
        return replace(
            recipe, phases=tuple(replace(p, lr_factor=float(value)) for p in recipe.phases)
        )
    if key not in kinds:
        raise SystemExit(f"no recipe field {key!r}")
    kind = kinds[key]
    return replace(recipe, **{key: value in ("1", "true") if kind is bool else kind(value)})


def table(rows: list[dict]) -> str:
    """The measurements as docs/translator.md's Markdown table, a row a variant and step."""
    lines = [
        "| variant | step | encoder spread: input, each layer's output | cross-attention "
        "entropy per layer | best head AER | held-out NLL |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    order = list(dict.fromkeys(row["variant"] for row in rows))  # as first run
    for row in sorted(rows, key=lambda r: (order.index(r["variant"]), r["step"])):
        spread = " → ".join(f"{v:.3g}" for v in row["encoder_spread"])
        entropy = ", ".join(f"{v:.2f}" for v in row["cross_entropy_per_layer"])
        layer, head = row["best_head"]
        lines.append(
            f"| {row['variant']} | {row['step']:,} | {spread} | {entropy} | "
            f"{row['best_aer']:.2f} (L{layer} H{head}) | {row['nll']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--table", action="store_true", help="print docs/translator.md's table and stop"
    )
    parser.add_argument("--variant", default="baseline")
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--every", type=int, default=400)
    parser.add_argument("--checkpoints", type=Path, default=ROOT / "runs" / "align-diagnosis")
    args = parser.parse_args(argv)
    if args.table:
        print(table([json.loads(line) for line in OUT.read_text().splitlines()]))
        return
    recipe = with_variant(small_recipe(), args.variant)
    torch.set_num_threads(recipe.threads)
    examples = held_out_examples(100, recipe.test_seed)
    folder = args.checkpoints / args.variant.replace("=", "-")
    started = time.perf_counter()
    for stop in range(args.every, args.steps + 1, args.every):
        model, tokenizer, progress, _ = train(
            recipe, folder, stop_at=stop, workers=2, cache=DATA_CACHE
        )
        row = {
            "variant": args.variant,
            "step": progress["step"],
            "minutes": round((time.perf_counter() - started) / 60, 1),
            "train_loss": progress["loss_history"][-1][1],
            **measure(model, tokenizer, examples),
            "machine": machine(recipe.threads),
        }
        with OUT.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
