"""Forward-pass time of the paper's base model (N=6, d_model=512, h=8) on a 20-token sentence.

    .venv/bin/python -m bench.forward_base [--threads N] [--runs R]

One encoder pass over 20 source tokens and one decoder pass over 20 target tokens, every
attention tensor captured, on the CPU; prints the median, min and max of R runs after a warm-up.
"""

import argparse
import statistics
import time

import torch

from model.transformer import DEFAULT_SETTINGS, subsequent_mask
from runtime.registry import load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    loaded = load("paper-untrained", torch.device("cpu"))
    src = torch.randint(
        4, len(loaded.tokenizer), (1, 20), generator=torch.Generator().manual_seed(0)
    )
    tgt = torch.randint(
        4, len(loaded.tokenizer), (1, 20), generator=torch.Generator().manual_seed(1)
    )
    times = []
    with torch.inference_mode():
        for run in range(args.runs + 1):
            started = time.perf_counter()
            loaded.model(src, tgt, None, subsequent_mask(20), DEFAULT_SETTINGS)
            if run:  # the first run is the warm-up
                times.append((time.perf_counter() - started) * 1e3)
    print(
        f"base model, 20+20 tokens, {args.threads} thread(s), {args.runs} runs: median "
        f"{statistics.median(times):.1f} ms (min {min(times):.1f}, max {max(times):.1f})"
    )


if __name__ == "__main__":
    main()
