"""The learning-rate factor of a running recipe, side by side from one checkpoint.

    python -m bench.train_lr_factor [--checkpoint checkpoints/en-de] [--steps 120]
        [--factors 1 2 0.5 0.5:0]

From the checkpoint (weights, Adam's moments, step), one copy of the model per factor trains the
same next `--steps` batches of the recipe with Eq. (3) times that factor, dropout drawn from one
seed for all. A factor written `a:b` moves linearly from a to b over the steps (a recipe phase
with `lr_factor_end`; `0.5:0` is a cool-down). Before and after: teacher-forced NLL (no
smoothing), token accuracy and the share of sentences with every token right, on 600 held-out
pairs (the evaluation's seed), in float32. The factor with the lowest NLL after the steps learns
fastest from here; a factor that raises it is past what the model takes. Writes
bench/train_lr_factor.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from model.evaluate import held_out_examples
from model.tokenization import PAD_ID
from model.train import (
    EncodedPair,
    Phase,
    Recipe,
    build,
    checkpoint_tokenizer,
    collate,
    encode_pairs,
    load_checkpoint,
    loss_on_batch,
    native_bf16,
    phase_factor,
    rate,
    token_batches,
    training_texts,
)
from model.transformer import EncoderDecoder, padding_mask, subsequent_mask

from .timing import machine

OUT = Path(__file__).parent / "train_lr_factor.json"


@torch.inference_mode()
def held_out(model: EncoderDecoder, pairs: list[EncodedPair]) -> dict[str, float]:
    model.eval()
    nll, right, tokens, sentences = 0.0, 0, 0, 0
    for start in range(0, len(pairs), 50):
        src, tgt = collate(pairs, list(range(start, min(start + 50, len(pairs)))))
        decoder_input, gold = tgt[:, :-1], tgt[:, 1:]
        src_mask = padding_mask(src, PAD_ID)
        tgt_mask = padding_mask(decoder_input, PAD_ID) & subsequent_mask(decoder_input.size(1))
        out = model(src, decoder_input, src_mask, tgt_mask).output
        logits = model.generator.proj(out).float()
        nll += F.cross_entropy(
            logits.reshape(-1, logits.size(-1)),
            gold.reshape(-1),
            ignore_index=PAD_ID,
            reduction="sum",
        ).item()
        real = gold != PAD_ID
        hit = (logits.argmax(-1) == gold) | ~real
        right += int((hit & real).sum())
        tokens += int(real.sum())
        sentences += int(hit.all(-1).sum())
    model.train()
    return {
        "nll": round(nll / tokens, 4),
        "token_accuracy": round(right / tokens, 4),
        "sentences_all_tokens_right": round(sentences / len(pairs), 4),
    }


def factor_arm(spec: str, steps: int) -> Phase:
    """`a` (held) or `a:b` (linear from a to b) as a phase of `steps` steps from step 1."""
    start, _, end = spec.partition(":")
    return Phase(steps, float(start), float(end) if end else None)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.train_lr_factor")
    p.add_argument("--recipe", type=Path, default=Path("configs/en-de.toml"))
    p.add_argument("--checkpoint", type=Path, default=Path("checkpoints/en-de"))
    p.add_argument("--steps", type=int, default=120)
    p.add_argument("--factors", nargs="+", default=["1", "2", "0.5"])
    args = p.parse_args(argv)
    recipe = Recipe.read(args.recipe)
    torch.set_num_threads(recipe.threads)
    tokenizer = checkpoint_tokenizer(args.checkpoint)
    if tokenizer is None:
        raise SystemExit(f"no checkpoint in {args.checkpoint}")
    texts = training_texts(recipe.train_size, recipe.data_seed, cache=Path("runs/data"))
    pairs = encode_pairs(texts, tokenizer)
    held = encode_pairs(
        [(ex.english_text, ex.german_text) for ex in held_out_examples(600, recipe.test_seed)],
        tokenizer,
    )
    bf16 = recipe.autocast == "bf16" or (recipe.autocast == "auto" and native_bf16())
    arms = []
    for spec in args.factors:
        arm = factor_arm(spec, args.steps)
        _, model = build(recipe, len(tokenizer))
        optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
        progress = load_checkpoint(args.checkpoint, model, optimizer)
        assert progress is not None
        torch.manual_seed(0)  # the same dropout masks in every arm
        before = held_out(model, held)
        batches = token_batches(pairs, recipe.batch_tokens, recipe.seed + progress["epoch"])
        ahead = batches[progress["batch_in_epoch"] :][: args.steps]
        started = time.perf_counter()
        for i, batch in enumerate(ahead):
            factor = phase_factor([arm], i + 1)
            for group in optimizer.param_groups:
                group["lr"] = rate(progress["step"] + 1 + i, recipe.d_model, recipe.warmup, factor)
            src, tgt = collate(pairs, batch)
            loss = loss_on_batch(model, src, tgt, recipe.smoothing, bf16)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        arms.append(
            {
                "lr_factor": arm.lr_factor,
                "lr_factor_end": arm.lr_factor_end,
                "from_step": progress["step"],
                "steps": len(ahead),
                "held_out_before": before,
                "held_out_after": held_out(model, held),
                "seconds": round(time.perf_counter() - started),
            }
        )
        print(json.dumps(arms[-1]), flush=True)
    result = {
        "recipe": str(args.recipe),
        "autocast": "bf16" if bf16 else "fp32",
        "arms": arms,
        "machine": machine(recipe.threads),
    }
    OUT.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
