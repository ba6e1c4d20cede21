"""Benchmarks against the peers: speed and memory, measured side by side in one run.

    python -m bench.run [--quick] [--threads 1] [--only encoder visualisation ...]
    make bench            (installs requirements-bench.txt into .venv, then the full run)

1. encoder: MiniLM-L6 text -> all attention, ours vs transformers' BertModel
2. visualisation: text -> browser-ready view, ours (Plotly JSON) vs bertviz (HTML)
3. capture: paper base model forward with every attention tensor vs without vs nn.Transformer
4. translation: greedy and beam-4, encoder output cached vs re-encoded at every step
5. scaling: MiniLM-L6 trace.run time and peak memory from 16 to 512 tokens
6. app: AppTest rerun times; server start -> first heatmap in headless Chromium, cold and warm
   (the default model, MiniLM and SmolLM2)
7. floor: FLOPs of each figure against this machine's measured matmul rate
11. tabs: what a class waits for in Chromium: each tab's first view, a model switch, a demo
    scene and a shared link, each on a fresh server

Writes bench/results.json (every raw number) and bench/results.md (the tables); --readme also
puts the tables into docs/benchmarks.md (between its bench:begin and bench:end markers; the
README links to it). Run it on a quiet machine if you can, and
under `nice -n 19` if something more important shares it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench.timing import Stats, load_average, machine

ROOT = Path(__file__).resolve().parents[1]

MEASUREMENTS = (
    "encoder",
    "visualisation",
    "capture",
    "translation",
    "scaling",
    "app",
    "attribution",
    "atlas",
    "smollm2",
    "tabs",
    "local",
    "floor",
)
LANGUAGE_MODEL = "smollm2-135m"  # its first visitor, with and without ATLAS_PRELOAD
README_BEGIN = "<!-- bench:begin (written by `python -m bench.run --readme`) -->"
README_END = "<!-- bench:end -->"


# Repetitions and sizes: the full run, and --quick for development (every path, fewer numbers).
FULL = {
    "repeats": 7,
    "encoder_lengths": [16, 64, 256, 512],
    # bertviz writes every weight as JSON text into its HTML: ~0.4 GB per view at 512 tokens.
    "visualisation_lengths": [16, 64, 256],
    "capture_lengths": [16, 64, 128],
    "sentences": 6,
    "translation_repeats": 5,
    "scaling_lengths": [16, 32, 64, 128, 256, 512],
    "reruns": 10,
    "cold_starts": 2,
    "warm_pages": 3,
    "matmul_size": 2048,
    "visits": 5,
}
QUICK = FULL | {
    "repeats": 2,
    "encoder_lengths": [16, 64],
    "visualisation_lengths": [16],
    "capture_lengths": [16],
    "sentences": 2,
    "translation_repeats": 1,
    "scaling_lengths": [16, 64],
    "reruns": 2,
    "cold_starts": 1,
    "warm_pages": 1,
    "matmul_size": 1024,
    "visits": 1,
}


def to_json(value):
    """Results with Stats as {median, min, max, runs}, ready for json.dumps."""
    if isinstance(value, Stats):
        return value.to_json()
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def measure(only: set[str], plan: dict, threads: int) -> dict:
    import torch

    from bench import floor

    results: dict = {"plan": plan}
    log(f"matmul {plan['matmul_size']}² for the floor")
    gflops, matmul_stats = floor.matmul_throughput(plan["matmul_size"], max(3, plan["repeats"]))
    results["floor"] = {
        "size": plan["matmul_size"],
        "gflops_per_s": gflops,
        "stats": matmul_stats,
        "threads": threads,
    }
    if only & {"encoder", "visualisation"}:
        from bench import peers
        from runtime import registry

        loaded = registry.load("minilm-l6", torch.device("cpu"))
        hf_tokenizer, bert = peers.transformers_minilm()
        if "encoder" in only:
            log(f"1. encoder at {plan['encoder_lengths']} tokens")
            results["encoder"] = peers.encoder(
                loaded, hf_tokenizer, bert, plan["encoder_lengths"], plan["repeats"], gflops
            )
        if "visualisation" in only:
            log(f"2. visualisation at {plan['visualisation_lengths']} tokens")
            results["visualisation"] = peers.visualisation(
                loaded, hf_tokenizer, bert, plan["visualisation_lengths"], plan["repeats"]
            )
        del loaded, bert
    if "capture" in only:
        from bench import peers

        log(f"3. capture at {plan['capture_lengths']} tokens")
        results["capture"] = peers.capture(plan["capture_lengths"], plan["repeats"], gflops)
    if "translation" in only:
        from bench import translation

        log(f"4. translation with {translation.translation_model()}")
        results["translation"] = translation.translation(
            plan["sentences"], plan["translation_repeats"], gflops
        )
    if "scaling" in only:
        from bench import scaling

        log(f"5. scaling at {plan['scaling_lengths']} tokens")
        results["scaling"] = scaling.scaling(plan["scaling_lengths"], plan["repeats"], threads)
    if "app" in only:
        results["app"] = measure_app(plan)
    if "attribution" in only:
        from bench import attribution

        log("8. gradient attributions of a translation")
        results["attribution"] = attribution.attribution(plan["repeats"])
    if "atlas" in only:
        from bench import atlas

        log("9. the head atlas over the built-in corpus")
        results["atlas"] = atlas.atlas(max(3, plan["repeats"] // 3))
    if "smollm2" in only:
        from bench.smollm2 import smollm2_bench

        log("10. SmolLM2-135M: the captured forward beside transformers, generation, a start")
        results["smollm2"] = smollm2_bench(plan["repeats"] < 3, plan["repeats"])
    if "tabs" in only:
        from bench import tabs

        log("11. each tab's first view, a model switch, a scene, a shared link, in Chromium")
        results["tabs"] = tabs.tabs(plan["visits"])
    if "local" in only:
        from bench.local_models import local_models_bench

        log("12. a model found on the machine: load and captured forward beside transformers")
        results["local"] = local_models_bench(plan["repeats"] < 3, plan["repeats"])
    return results


def measure_app(plan: dict) -> dict:
    from bench import app_timing
    from bench.translation import translation_model

    app: dict = {"reruns": {}, "browser": {}, "skipped": {}}
    for model in ("minilm-l6", translation_model()):
        log(f"6. app reruns with {model}")
        app["reruns"][model] = app_timing.reruns(model, plan["reruns"])
    pages = ((None, False), ("minilm-l6", False), (LANGUAGE_MODEL, False), (LANGUAGE_MODEL, True))
    for model, preload in pages:
        page = (f"/?model={model}" if model else "/ (default model)") + (
            " (ATLAS_PRELOAD)" if preload else ""
        )
        log(f"6. browser {page}")
        try:
            app["browser"][page] = app_timing.browser(
                model, plan["cold_starts"], plan["warm_pages"], preload
            )
        except FileNotFoundError as missing:  # no Chromium: say so in the results, go on
            app["skipped"][page] = str(missing)
    return app


def update_readme(markdown: str) -> None:
    """Replace the table between the markers of docs/benchmarks.md."""
    readme = ROOT / "docs" / "benchmarks.md"
    text = readme.read_text()
    if README_BEGIN not in text or README_END not in text:
        raise SystemExit(f"docs/benchmarks.md has no {README_BEGIN} … {README_END} block to update")
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    body = markdown.replace("## Benchmarks against the peers\n\n", "", 1)
    readme.write_text(f"{head}{README_BEGIN}\n{body}{README_END}{tail}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and lengths")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1)")
    parser.add_argument("--only", nargs="+", choices=MEASUREMENTS, default=list(MEASUREMENTS))
    parser.add_argument("--out", type=Path, default=ROOT / "bench", help="where results go")
    parser.add_argument(
        "--readme", action="store_true", help="also update docs/benchmarks.md's table"
    )
    args = parser.parse_args(argv)

    # Before torch starts: every process of the run (server, memory probes) uses these threads.
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch

    torch.set_num_threads(args.threads)
    from bench import report

    started = time.perf_counter()
    info = machine(args.threads) | {
        "mode": "quick" if args.quick else "full",
        "command": " ".join(["python -m bench.run", *(argv if argv is not None else sys.argv[1:])]),
    }
    results = measure(set(args.only), QUICK if args.quick else FULL, args.threads)
    info |= {"load_average_at_end": load_average(), "duration_s": time.perf_counter() - started}
    results["machine"] = info
    markdown = report.markdown(results)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(to_json(results), indent=1) + "\n")
    (args.out / "results.md").write_text(markdown)
    if args.readme:
        update_readme(markdown)
    print(markdown)
    log(f"done in {info['duration_s'] / 60:.1f} min; wrote {args.out}/results.md and .json")


if __name__ == "__main__":
    main()
