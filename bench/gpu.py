"""The translator's forward pass on a device: every attention captured (what the views need)
against the same weights through torch's fused scaled_dot_product_attention, side by side.

    python -m bench.gpu [--device cuda] [--lengths 16 128 512] [--out timings.json]

One teacher-forced encoder and decoder pass over n source and n target tokens (one sentence),
under inference mode, for each n; the two variants interleaved (bench/timing.py), the device
synchronised before each clock reading. scripts/gpu-run.sh runs it on the GPU machine; on the
CPU it runs too (`--device cpu`), which is how the script is tried before a GPU is lent.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

from bench.timing import interleaved, machine, paired_ratio
from model.transformer import (
    DEFAULT_SETTINGS,
    EncoderDecoder,
    RunSettings,
    padding_mask,
    subsequent_mask,
)
from runtime.registry import load

FUSED = RunSettings(capture=False)


def forward_timings(device: torch.device, lengths: list[int], repeats: int) -> list[dict]:
    loaded = load("en-de", device)
    return [time_length(loaded.model, len(loaded.tokenizer), n, device, repeats) for n in lengths]


def time_length(
    model: EncoderDecoder, vocab: int, n: int, device: torch.device, repeats: int
) -> dict:
    generator = torch.Generator().manual_seed(n)
    src = torch.randint(4, vocab, (1, n), generator=generator).to(device)
    tgt = torch.randint(4, vocab, (1, n), generator=generator).to(device)
    src_mask, tgt_mask = padding_mask(src, 0), subsequent_mask(n, device)

    def forward(settings: RunSettings) -> None:
        with torch.inference_mode():
            model(src, tgt, src_mask, tgt_mask, settings)
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    stats = interleaved(
        {"captured": lambda: forward(DEFAULT_SETTINGS), "fused": lambda: forward(FUSED)},
        repeats=repeats,
        warmup=3,
    )
    return {
        "tokens": n,
        "captured_ms": stats["captured"].median * 1e3,
        "fused_ms": stats["fused"].median * 1e3,
        "captured_over_fused": paired_ratio(stats["captured"], stats["fused"]),
        "runs": repeats,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--lengths", type=int, nargs="+", default=[16, 128, 512])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    rows = forward_timings(device, args.lengths, args.repeats)
    facts = machine(torch.get_num_threads())
    if device.type == "cuda":
        facts["gpu"] = torch.cuda.get_device_name(device)
    print(f"en-de forward on {facts.get('gpu', facts['cpu'])}, one sentence, median of runs:")
    print(f"{'tokens':>7} {'captured ms':>12} {'fused ms':>9} {'captured/fused':>15}")
    for row in rows:
        print(
            f"{row['tokens']:>7} {row['captured_ms']:>12.2f} {row['fused_ms']:>9.2f} "
            f"{row['captured_over_fused']:>15.2f}"
        )
    if args.out:
        args.out.write_text(json.dumps({"machine": facts, "forward": rows}, indent=1))


if __name__ == "__main__":
    main()
