"""When did the shipped translator's cross-attention stop aligning? Issue 47's first look.

    python -m bench.align_history [--sentences 100] [--threads 2]

The recipe's run (configs/en-de.toml) left its checkpoints in git history (the commits that
changed checkpoints/en-de/checkpoint.safetensors, steps 1,118 to 21,000); this reads each one
straight from git, loads its weights (no optimiser) and measures it as bench/align_measures.py
says, on the same held-out pairs, then the shipped weights. Writes bench/align_history.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import torch
from safetensors.torch import load_file

from model.gold import held_out_examples
from model.subword import SubwordTokenizer
from model.train import Recipe, build
from model.weights import WEIGHTS_DIR, load_checked_model, load_tied

from .align_measures import measure

ROOT = Path(__file__).parent.parent
OUT = Path(__file__).parent / "align_history.json"
CHECKPOINT = "checkpoints/en-de/checkpoint.safetensors"


def checkpoint_commits() -> list[str]:
    """The commits that wrote a checkpoint file (not the one that removed it), oldest first."""
    log = subprocess.run(
        ["git", "log", "--reverse", "--diff-filter=AM", "--format=%H", "--", CHECKPOINT],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return log


def git_show(commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "show", f"{commit}:{path}"], cwd=ROOT, check=True, capture_output=True
    ).stdout


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--weights", type=Path, help="measure only these weights and print their row (no history)"
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    recipe = Recipe.read(ROOT / "configs" / "en-de.toml")
    examples = held_out_examples(args.sentences, recipe.test_seed)
    if args.weights:
        model, sidecar = load_checked_model(args.weights)
        tokenizer = SubwordTokenizer.from_json(json.dumps(sidecar["tokenizer"]))
        print(json.dumps(measure(model, tokenizer, examples)))
        return
    rows = []
    for commit in checkpoint_commits():
        started = time.perf_counter()
        progress = json.loads(git_show(commit, "checkpoints/en-de/progress.json"))
        tokenizer = SubwordTokenizer.from_json(
            git_show(commit, "checkpoints/en-de/tokenizer.json").decode()
        )
        _, model = build(recipe, len(tokenizer))
        with tempfile.NamedTemporaryFile(suffix=".safetensors") as f:
            f.write(git_show(commit, CHECKPOINT))
            f.flush()
            tensors = load_file(f.name)
        load_tied(model, {k[6:]: v for k, v in tensors.items() if k.startswith("model.")})
        row = {
            "step": progress["step"],
            "commit": commit[:7],
            **measure(model, tokenizer, examples),
        }
        rows.append(row)
        print(json.dumps(row), f"({time.perf_counter() - started:.0f} s)", flush=True)
    model, sidecar = load_checked_model(WEIGHTS_DIR / "en-de.safetensors")
    tokenizer = SubwordTokenizer.from_json(json.dumps(sidecar["tokenizer"]))
    row = {
        "step": sidecar["training"]["steps"],
        "commit": "shipped",
        **measure(model, tokenizer, examples),
    }
    rows.append(row)
    print(json.dumps(row), flush=True)
    OUT.write_text(json.dumps({"sentences": args.sentences, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
