"""Timing and machine facts shared by every benchmark in bench/run.py.

Each figure is the median of several runs after a warm-up, with min and max. Competing calls are
interleaved (A, B, A, B, ...) in one process, so a slow spell of the shared machine hits both
sides alike: absolute times drift between runs, their ratios hold.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Stats:
    """Summary of repeated wall-clock measurements, in seconds."""

    runs: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def min(self) -> float:
        return min(self.runs)

    @property
    def max(self) -> float:
        return max(self.runs)

    def to_json(self) -> dict:
        return {
            "median_s": self.median,
            "min_s": self.min,
            "max_s": self.max,
            "runs_s": list(self.runs),
        }


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def interleaved(calls: dict[str, Callable[[], object]], repeats: int, warmup: int = 1):
    """Run every call `warmup` times, then `repeats` rounds of A, B, C, ...; Stats per name."""
    for _ in range(warmup):
        for call in calls.values():
            call()
    runs: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            runs[name].append(timed(call))
    return {name: Stats(tuple(values)) for name, values in runs.items()}


def ratio(ours: Stats, theirs: Stats) -> float:
    """Ours over theirs, of the medians (< 1: we are faster)."""
    return ours.median / theirs.median


def paired_ratio(ours: Stats, theirs: Stats) -> float:
    """Median of the round-by-round ratios: each pair ran back to back, under the same load."""
    return statistics.median(a / b for a, b in zip(ours.runs, theirs.runs))


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def machine(threads: int) -> dict:
    """What the numbers were measured on; the load average says how busy the machine was."""
    import torch

    versions = {"python": platform.python_version(), "torch": torch.__version__}
    for package in ("transformers", "bertviz", "streamlit", "plotly", "playwright"):
        try:
            from importlib.metadata import version

            versions[package] = version(package)
        except Exception:  # not installed: the measurement that needs it says so
            versions[package] = None
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "torch_threads": threads,
        "nice": os.nice(0),
        "load_average_at_start": load_average(),
        "versions": versions,
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }
