"""Time one forward pass of MiniLM-L6 with every attention map captured: our encoder blocks
(`model.encode`, which always returns the weights) beside transformers' BertModel (eager,
output_attentions=True) on the same ids. Median of 5 runs each, interleaved, after a warm-up.
Also prints the largest absolute difference between the two. Not a test.

    .venv/bin/python bench/pretrained_vs_transformers.py [--threads N]

On a machine shared with other jobs, set --threads below the number of cores: torch's
intra-op threads wait for each other at every operation, and one starved thread slows the
whole pass down many times over (seen here: 20 tokens in ~12 ms with 1 thread, ~600 ms with 2
while another job held one of the 2 cores).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch
import transformers

from model.transformer import padding_mask
from runtime import pretrained
from runtime.trace import run

REPEATS = 5
WORDS = (
    "attention maps show which words each position reads when it builds its representation "
    "and some heads track the previous token while others follow syntax"
).split()


def text_of(n_tokens: int, tokenizer) -> tuple[str, list[int]]:
    """A text whose tokenization has exactly n_tokens ids ([CLS] and [SEP] included)."""
    words = []
    while True:
        words.append(WORDS[len(words) % len(WORDS)])
        ids = tokenizer.encode(" ".join(words), 512).ids
        if len(ids) >= n_tokens:
            return " ".join(words), list(ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    device = torch.device("cpu")
    loaded = pretrained.load_minilm(device)
    bert = transformers.BertModel.from_pretrained(
        str(pretrained.minilm_files().directory), attn_implementation="eager", local_files_only=True
    ).eval()

    def ours(ids):
        return loaded.model.encode(ids, padding_mask(ids, 0))

    def theirs(ids):
        return bert(input_ids=ids, attention_mask=torch.ones_like(ids), output_attentions=True)

    print(
        f"torch {torch.__version__}, transformers {transformers.__version__}, "
        f"{torch.get_num_threads()} threads, median of {REPEATS} (interleaved)\n"
    )
    header = f"{'tokens':>6}  {'ours ms':>8}  {'transformers ms':>15}  {'ratio':>5}  {'trace.run ms':>12}  {'max |diff|':>10}"
    print(header)
    print("-" * len(header))
    for n in (20, 500):
        text, id_list = text_of(n, loaded.tokenizer)
        ids = torch.tensor([id_list])
        with torch.inference_mode():
            a, b = ours(ids), theirs(ids)  # warm-up, and the comparison
            diff = max(
                (x.weights - y).abs().max().item() for x, y in zip(a.attention, b.attentions)
            )
            diff = max(diff, (a.memory - b.last_hidden_state).abs().max().item())
            times = {"ours": [], "theirs": [], "trace": []}
            for _ in range(REPEATS):
                for key, call in (("ours", ours), ("theirs", theirs)):
                    started = time.perf_counter()
                    call(ids)
                    times[key].append((time.perf_counter() - started) * 1e3)
        for _ in range(REPEATS):  # the app's whole path: tokenize, encode, copy to numpy
            started = time.perf_counter()
            run(loaded, text)
            times["trace"].append((time.perf_counter() - started) * 1e3)
        m = {k: statistics.median(v) for k, v in times.items()}
        print(
            f"{len(id_list):>6}  {m['ours']:>8.1f}  {m['theirs']:>15.1f}  "
            f"{m['ours'] / m['theirs']:>5.2f}  {m['trace']:>12.1f}  {diff:>10.2g}"
        )


if __name__ == "__main__":
    main()
