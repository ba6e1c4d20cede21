"""Train the paper's encoder-decoder on the generated English→German corpus (Section 5).

    python -m model.train --help

Adam (beta1=0.9, beta2=0.98, eps=1e-9), the learning rate of Eq. (3) with warm-up, label
smoothing 0.1, dropout 0.1, batches by token count, a fixed seed. Checkpoints are safetensors
plus JSON (no pickle) and a run resumes from the last one. At the end the model is evaluated on a
held-out test set and shipped as `model/weights/<name>.safetensors` with its JSON sidecar.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from dataclasses import asdict
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch.nn import functional as F
from tqdm import tqdm

from corpus.v1 import grammar as corpus

from .evaluate import evaluate
from .registry import corpus_tokenizer
from .tokenizers import BOS_ID, EOS_ID, PAD_ID, WordTokenizer
from .transformer import TransformerConfig, make_model, padding_mask, subsequent_mask
from .weights import save_weights

WEIGHTS_DIR = Path(__file__).parent / "weights"


def rate(step: int, d_model: int, warmup: int, factor: float = 1.0) -> float:
    """Eq. (3): lrate = d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5)."""
    step = max(step, 1)
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def encode_pairs(examples, tokenizer: WordTokenizer) -> list[tuple[list[int], list[int]]]:
    """(source ids, [BOS] + target ids + [EOS]) for every example."""
    stoi = tokenizer.stoi
    return [
        ([stoi[w] for w in ex.english], [BOS_ID] + [stoi[w] for w in ex.german] + [EOS_ID])
        for ex in examples
    ]


def token_batches(pairs, batch_tokens: int, seed: int) -> list[list[int]]:
    """Indices grouped so that (longest sequence x count) stays under batch_tokens (Section 5.1)."""
    order = list(range(len(pairs)))
    random.Random(seed).shuffle(order)
    batches = []
    pool = 100 * max(1, batch_tokens // 20)  # sort within pools: similar lengths, still shuffled
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda i: len(pairs[i][1]))
        batch, longest = [], 0
        for i in chunk:
            longest_if_added = max(longest, len(pairs[i][0]), len(pairs[i][1]))
            if batch and longest_if_added * (len(batch) + 1) > batch_tokens:
                batches.append(batch)
                batch, longest_if_added = [], max(len(pairs[i][0]), len(pairs[i][1]))
            batch.append(i)
            longest = longest_if_added
        if batch:
            batches.append(batch)
    random.Random(seed + 1).shuffle(batches)
    return batches


def collate(pairs, batch: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    def pad(seqs):
        width = max(len(s) for s in seqs)
        return torch.tensor([s + [PAD_ID] * (width - len(s)) for s in seqs])

    return pad([pairs[i][0] for i in batch]), pad([pairs[i][1] for i in batch])


def smoothed_loss_floor(vocab_size: int, smoothing: float) -> float:
    """The lowest label-smoothed cross-entropy any model can reach: the entropy of the smoothed
    target, (1 - ε) on the right token plus ε spread evenly over all V tokens (Section 5.4, as
    torch's `label_smoothing` spreads it)."""
    right = 1 - smoothing + smoothing / vocab_size
    other = smoothing / vocab_size
    return -(right * math.log(right) + (vocab_size - 1) * other * math.log(other))


def loss_on_batch(model, src, tgt, smoothing: float) -> tuple[torch.Tensor, int]:
    """Label-smoothed cross-entropy (Section 5.4) of predicting tgt[1:] from tgt[:-1]."""
    decoder_input, gold = tgt[:, :-1], tgt[:, 1:]
    src_mask = padding_mask(src, PAD_ID)
    tgt_mask = padding_mask(decoder_input, PAD_ID) & subsequent_mask(decoder_input.size(1))
    out = model(src, decoder_input, src_mask, tgt_mask)
    logits = model.generator.proj(out.output)
    loss = F.cross_entropy(
        logits.reshape(-1, logits.size(-1)),
        gold.reshape(-1),
        ignore_index=PAD_ID,
        label_smoothing=smoothing,
    )
    return loss, int((gold != PAD_ID).sum())


# --- Checkpoints: safetensors for tensors, JSON for the rest, so resuming never unpickles. ----


def save_checkpoint(path: Path, model, optimizer, progress: dict) -> None:
    path.mkdir(parents=True, exist_ok=True)
    tensors = {f"model.{k}": v.contiguous() for k, v in model.state_dict().items()}
    opt = optimizer.state_dict()
    for index, state in opt["state"].items():
        for key, value in state.items():
            tensors[f"optim.{index}.{key}"] = torch.as_tensor(value).contiguous()
    # Dropout's random state too, so a resumed run continues exactly as an uninterrupted one.
    tensors["rng.torch"] = torch.get_rng_state()
    # Tied weights appear under several names; safetensors stores each storage once.
    tensors = {k: v.clone() for k, v in tensors.items()}
    save_file(tensors, str(path / "checkpoint.tmp"))
    (path / "checkpoint.tmp").replace(path / "checkpoint.safetensors")
    meta = dict(progress, param_groups=opt["param_groups"])
    (path / "checkpoint.json").write_text(json.dumps(meta, indent=1))


def load_checkpoint(path: Path, model, optimizer) -> dict | None:
    if not (path / "checkpoint.json").exists():
        return None
    meta = json.loads((path / "checkpoint.json").read_text())
    tensors = load_file(str(path / "checkpoint.safetensors"))
    model.load_state_dict({k[6:]: v for k, v in tensors.items() if k.startswith("model.")})
    state: dict[int, dict] = {}
    for name, value in tensors.items():
        if name.startswith("optim."):
            _, index, key = name.split(".", 2)
            state.setdefault(int(index), {})[key] = value
    optimizer.load_state_dict({"state": state, "param_groups": meta.pop("param_groups")})
    if "rng.torch" in tensors:  # absent from checkpoints written before it was recorded
        torch.set_rng_state(tensors["rng.torch"])
    return meta


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m model.train", description=__doc__.split("\n")[0])
    p.add_argument("--name", default="en-de", help="weights are written as model/weights/NAME.*")
    p.add_argument("--train-size", type=int, default=200_000, help="generated training pairs")
    p.add_argument("--data-seed", type=int, default=1)
    p.add_argument("--test-seed", type=int, default=2, help="seed of the held-out test set")
    p.add_argument("--test-size", type=int, default=2000)
    p.add_argument("--long-size", type=int, default=300, help="two-clause sentences to test")
    p.add_argument("--seed", type=int, default=0, help="seed of initialisation and batch order")
    p.add_argument("--steps", type=int, default=6000)
    p.add_argument("--batch-tokens", type=int, default=3000)
    p.add_argument("--warmup", type=int, default=1000)
    p.add_argument("--lr-factor", type=float, default=2.0)
    p.add_argument("--N", type=int, default=6)
    p.add_argument("--h", type=int, default=8)
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--d-ff", type=int, default=512)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--smoothing", type=float, default=0.1)
    p.add_argument("--checkpoint-every", type=int, default=200)
    p.add_argument("--log-every", type=int, default=50, help="steps between loss reports")
    p.add_argument("--run-dir", type=Path, default=Path("runs"), help="where checkpoints live")
    p.add_argument("--out-dir", type=Path, default=WEIGHTS_DIR)
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    tokenizer = corpus_tokenizer()
    config = TransformerConfig(
        src_vocab=len(tokenizer),
        tgt_vocab=len(tokenizer),
        N=args.N,
        d_model=args.d_model,
        d_ff=args.d_ff,
        h=args.h,
        dropout=args.dropout,
        max_len=512,
    )
    model = make_model(config, seed=args.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler_rate = lambda step: rate(step, args.d_model, args.warmup, args.lr_factor)  # noqa: E731
    run_dir = args.run_dir / args.name
    progress = load_checkpoint(run_dir, model, optimizer) or {
        "step": 0,
        "epoch": 0,
        "batch_in_epoch": 0,
        "seconds": 0.0,
        "tokens": 0,
        "loss_history": [],
    }
    if progress["step"]:
        print(f"resuming from step {progress['step']} ({run_dir})", flush=True)

    examples = corpus.generate(args.train_size, seed=args.data_seed)
    pairs = encode_pairs(examples, tokenizer)
    print(
        f"{len(pairs)} training pairs, vocabulary {len(tokenizer)}, "
        f"{sum(p.numel() for p in model.parameters()):,} parameters",
        flush=True,
    )
    model.train()
    bar = tqdm(total=args.steps, initial=progress["step"], mininterval=10, unit="step")
    window_loss, window_tokens, window_started = 0.0, 0, time.perf_counter()
    while progress["step"] < args.steps:
        batches = token_batches(pairs, args.batch_tokens, args.seed + progress["epoch"])
        for batch in batches[progress["batch_in_epoch"] :]:
            if progress["step"] >= args.steps:
                break
            started = time.perf_counter()
            step = progress["step"] + 1
            for group in optimizer.param_groups:
                group["lr"] = scheduler_rate(step)
            src, tgt = collate(pairs, batch)
            loss, n_tokens = loss_on_batch(model, src, tgt, args.smoothing)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            progress["step"] = step
            progress["batch_in_epoch"] += 1
            progress["tokens"] += n_tokens
            progress["seconds"] += time.perf_counter() - started
            window_loss += loss.item() * n_tokens
            window_tokens += n_tokens
            bar.update(1)
            if step % args.log_every == 0:
                elapsed = time.perf_counter() - window_started
                bar.set_postfix(
                    loss=f"{window_loss / window_tokens:.3f}",
                    tok_s=f"{window_tokens / elapsed:.0f}",
                    lr=f"{scheduler_rate(step):.2e}",
                )
                progress["loss_history"].append([step, round(window_loss / window_tokens, 4)])
                window_loss, window_tokens, window_started = 0.0, 0, time.perf_counter()
            if step % args.checkpoint_every == 0 or step == args.steps:
                save_checkpoint(run_dir, model, optimizer, progress)
        else:
            progress["epoch"] += 1
            progress["batch_in_epoch"] = 0
    bar.close()
    save_checkpoint(run_dir, model, optimizer, progress)

    model.eval()
    print("evaluating on the held-out test set ...", flush=True)
    metrics = evaluate(model, tokenizer, args.test_size, args.test_seed, args.long_size)
    sidecar = {
        "name": args.name,
        "config": asdict(config),
        "vocabulary": tokenizer.itos,
        "training": {
            "data_seed": args.data_seed,
            "train_size": args.train_size,
            "seed": args.seed,
            "steps": progress["step"],
            "epochs": round(progress["step"] / max(1, len(batches)), 2),
            "batch_tokens": args.batch_tokens,
            "warmup": args.warmup,
            "lr_factor": args.lr_factor,
            "label_smoothing": args.smoothing,
            "target_tokens_seen": progress["tokens"],
            "wall_time_minutes": round(progress["seconds"] / 60, 1),
            "threads": torch.get_num_threads(),
            "loss_history": progress["loss_history"],
        },
        "metrics": metrics,
    }
    save_weights(model.state_dict(), args.out_dir / f"{args.name}.safetensors", sidecar)
    print(json.dumps(metrics, indent=1), flush=True)


if __name__ == "__main__":
    main()
