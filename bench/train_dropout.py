"""A training step with the model's own Dropout against torch.nn.Dropout, side by side in one run.

    python -m bench.train_dropout [--recipe configs/en-de.toml] [--steps 20]

Two copies of the recipe's model, from the committed training checkpoint, differ only in their
dropout modules (model.transformer.Dropout, whose mask is torch.rand >= p, against nn.Dropout's
Bernoulli sampler). They train the same batches in the recipe's precision on this machine,
interleaved step by step; the medians of target tokens a second, the median of the per-step time
ratios, and each copy's mean training loss over the run (the same distribution of masks should
train alike). Writes bench/train_dropout.json.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
from pathlib import Path

import torch
from torch import nn

from model.train import (
    Recipe,
    build,
    checkpoint_tokenizer,
    collate,
    encode_pairs,
    load_checkpoint,
    loss_on_batch,
    native_bf16,
    rate,
    target_tokens,
    token_batches,
    training_texts,
)
from model.transformer import Dropout

from .timing import interleaved, machine, paired_ratio

ROOT = Path(__file__).parent.parent
OUT = Path(__file__).parent / "train_dropout.json"


def with_torch_dropout(model: nn.Module) -> nn.Module:
    """A copy of `model` whose Dropout modules are torch.nn.Dropout with the same p."""
    twin = copy.deepcopy(model)
    for parent in list(twin.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, Dropout):
                setattr(parent, name, nn.Dropout(child.p))
    return twin


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.train_dropout")
    p.add_argument("--recipe", type=Path, default=ROOT / "configs" / "en-de.toml")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--pairs", type=int, default=20000)
    args = p.parse_args(argv)
    recipe = Recipe.read(args.recipe)
    torch.set_num_threads(recipe.threads)
    checkpoint = ROOT / "checkpoints" / recipe.name
    tokenizer = checkpoint_tokenizer(checkpoint)
    if tokenizer is None:
        raise SystemExit(f"no training checkpoint in {checkpoint}")
    pairs = encode_pairs(training_texts(args.pairs, recipe.data_seed), tokenizer)
    batches = token_batches(pairs, recipe.batch_tokens, recipe.seed)
    _, ours = build(recipe, len(tokenizer))
    optimizer = torch.optim.Adam(ours.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    progress = load_checkpoint(checkpoint, ours, optimizer) or {"step": 0}
    theirs = with_torch_dropout(ours)
    models = {"ours": ours.train(), "torch": theirs.train()}
    optimizers = {"ours": optimizer, "torch": torch.optim.Adam(theirs.parameters())}
    optimizers["torch"].load_state_dict(optimizer.state_dict())
    bf16 = recipe.autocast == "bf16" or (recipe.autocast == "auto" and native_bf16())
    position = {"ours": 0, "torch": 0}
    tokens: dict[str, list[int]] = {"ours": [], "torch": []}
    losses: dict[str, list[float]] = {"ours": [], "torch": []}

    def step(kind: str) -> None:
        model, opt = models[kind], optimizers[kind]
        i = position[kind]
        src, tgt = collate(pairs, batches[i % len(batches)])
        for group in opt.param_groups:
            group["lr"] = rate(
                progress["step"] + i + 1,
                recipe.d_model,
                recipe.warmup,
                recipe.lr_factor(progress["step"] + i + 1),
            )
        loss = loss_on_batch(model, src, tgt, recipe.smoothing, bf16)
        n = target_tokens(tgt)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        position[kind] += 1
        tokens[kind].append(n)
        losses[kind].append(loss.item())

    stats = interleaved({k: (lambda k=k: step(k)) for k in models}, repeats=args.steps - 1)
    per_step = tokens["ours"][1:]  # both ran the same batches, so the counts pair up
    result = {
        "recipe": str(args.recipe.relative_to(ROOT) if args.recipe.is_absolute() else args.recipe),
        "from_step": progress["step"],
        "steps": args.steps,
        "precision": "bf16" if bf16 else "fp32",
        "median_target_tokens_per_s": {
            k: statistics.median(n / t for n, t in zip(per_step, stats[k].runs)) for k in stats
        },
        "ours_time_over_torch": paired_ratio(stats["ours"], stats["torch"]),
        "mean_training_loss": {k: statistics.fmean(v) for k, v in losses.items()},
        "machine": machine(recipe.threads),
    }
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=1))


if __name__ == "__main__":
    main()
