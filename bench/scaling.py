"""Measurement 5: MiniLM-L6 `trace.run` from 16 to 512 tokens, time and peak memory.

tracemalloc does not see torch's allocations, so memory is the process's resident set (RSS):
each length runs in a fresh process (`python -m bench.scaling TOKENS`) that loads the model, warms
up, resets the kernel's peak-RSS mark (/proc/self/clear_refs, "5"), runs once and reads the new
peak (VmHWM). A fresh process per length keeps memory freed by one run from being reused by the
next, which would hide part of its peak.

Self-attention keeps an n × n matrix per head (Eq. (1)), so the Trace's attention array is
layers · heads · n² · 4 bytes (float32): 6 · 12 · n² · 4 for MiniLM-L6.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from functools import partial
from pathlib import Path

import torch

from runtime import registry
from runtime.trace import run
from viz.attention import heatmap

from .peers import text_of_length
from .timing import interleaved

ROOT = Path(__file__).resolve().parents[1]
MODEL = "minilm-l6"
# Where an interactive view stops being interactive: a lecturer waits this long at most.
INTERACTIVE_BUDGET_S = 1.0


def _status_kib(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M).group(1))


def attention_bytes(layers: int, heads: int, n: int) -> int:
    return layers * heads * n * n * 4


def measure_memory_here(n_tokens: int) -> dict:
    """In this process: RSS before, peak during and RSS after one trace.run of n_tokens."""
    loaded = registry.load(MODEL, torch.device("cpu"))
    run(loaded, text_of_length(loaded.tokenizer, 16))  # warm-up: lazy initialisation, not the run
    text = text_of_length(loaded.tokenizer, n_tokens)
    before = _status_kib("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # peak RSS := current RSS
    trace = run(loaded, text)
    peak = _status_kib("VmHWM")
    after = _status_kib("VmRSS")  # the Trace is still alive: what a cache entry keeps
    arrays = [*trace.attention.values(), *trace.queries.values(), *trace.keys.values()]
    return {
        "tokens": len(trace.source_tokens),
        "rss_before_bytes": before * 1024,
        "peak_delta_bytes": (peak - before) * 1024,
        "retained_delta_bytes": (after - before) * 1024,
        "trace_attention_bytes": int(trace.attention["encoder_self"].nbytes),
        "trace_arrays_bytes": int(
            sum(a.nbytes for a in arrays) + trace.encoder_hidden_states.nbytes
        ),
    }


def measure_memory(n_tokens: int, threads: int) -> dict:
    """measure_memory_here in a fresh process (same threads, same niceness)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), HF_HUB_OFFLINE="1")
    result = subprocess.run(
        [sys.executable, "-m", "bench.scaling", str(n_tokens), str(threads)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def growth_exponent(lengths: list[int], values: list[float]) -> list[float | None]:
    """log-log slope between consecutive lengths: 2 means the value grows as n²."""
    slopes: list[float | None] = [None]
    for (n0, v0), (n1, v1) in zip(zip(lengths, values), zip(lengths[1:], values[1:])):
        slopes.append(math.log(v1 / v0) / math.log(n1 / n0) if v0 > 0 and v1 > 0 else None)
    return slopes


def scaling(lengths, repeats: int, threads: int) -> dict:
    loaded = registry.load(MODEL, torch.device("cpu"))
    config = loaded.model.config
    rows = []
    for n in lengths:
        text = text_of_length(loaded.tokenizer, n)
        stats = interleaved({"trace_run": partial(run, loaded, text)}, repeats)["trace_run"]
        memory = measure_memory(n, threads)
        expected = attention_bytes(config.N, config.h, n)
        if memory["trace_attention_bytes"] != expected:
            raise AssertionError(f"{n} tokens: attention {memory['trace_attention_bytes']} B")
        heatmap_json = heatmap(run(loaded, text), "encoder_self", 0, 0, loaded.label).to_json()
        rows.append(
            {"tokens": n, "stats": stats, "memory": memory, "heatmap_bytes": len(heatmap_json)}
        )
    peaks = [r["memory"]["peak_delta_bytes"] for r in rows]
    times = [r["stats"].median for r in rows]
    for row, peak_slope, time_slope in zip(
        rows, growth_exponent(list(lengths), peaks), growth_exponent(list(lengths), times)
    ):
        row["peak_growth_exponent"] = peak_slope
        row["time_growth_exponent"] = time_slope
    within_budget = [r["tokens"] for r in rows if r["stats"].median <= INTERACTIVE_BUDGET_S]
    return {
        "model": MODEL,
        "layers": config.N,
        "heads": config.h,
        "model_limit_tokens": loaded.max_source_tokens,
        "interactive_budget_s": INTERACTIVE_BUDGET_S,
        "longest_within_budget": max(within_budget) if within_budget else None,
        "rows": rows,
    }


if __name__ == "__main__":
    torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    print(json.dumps(measure_memory_here(int(sys.argv[1]))))
