"""The translator on sentences people type, with the page's verdict beside each output.

    python -m runtime.typed_set [--weights model/weights/en-de.safetensors] [--write]

Every sentence of corpus/data/typed_sentences.tsv (written by hand, apart from the grammar, and
never trained on) is translated as the page translates it (greedy decoding of the text as typed)
and judged twice: by the German written by hand (right: the output is one of the accepted
translations) and by the verdict the page shows beside it (runtime/verdict.py). What a class
meets is counted per kind: right, wrong with no warning (the verdict said "as the grammar writes
it" and the output is wrong), right but warned. `--write` puts the figures into the weights'
sidecar (`metrics.typed_sentences`), which the Model tab and the README show. It is the
runtime's command, not part of `python -m model.evaluate`: the verdict is the runtime's, and
model/ imports nothing above it.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from corpus.hand_checked import TypedSentence, typed_sentences
from model.weights import WEIGHTS_DIR, read_sidecar, write_sidecar

from .loaded import LoadedModel
from .registry import default_device, load_trained
from .trace import run
from .verdict import reference_for, verdict


def judge(loaded: LoadedModel, sentence: TypedSentence) -> dict[str, Any]:
    """One sentence as the page shows it: the output, whether it is right, and the verdict."""
    trace = run(loaded, sentence.english)
    said = verdict(loaded, trace, sentence.english, reference_for(loaded, sentence.english))
    if said is None:
        raise ValueError(f"{loaded.label} gives no verdict: it has no corpus of its own")
    return {
        "kind": sentence.kind,
        "english": sentence.english,
        "output": trace.output,
        "right": sentence.accepts(trace.output),
        "level": said.level,
        "warned": said.warns,
        "hand": sentence.german[0],
    }


def _counts(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    right = [r for r in rows if r["right"]]
    return {
        "sentences": len(rows),
        "right": round(len(right) / len(rows), 4),
        "wrong_unwarned": sum(not r["right"] and not r["warned"] for r in rows),
        "right_warned": sum(r["right"] and r["warned"] for r in rows),
        "right_warned_share": round(sum(r["warned"] for r in right) / len(right), 4)
        if right
        else 0.0,
    }


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The figures of `rows` (judge's records): in all and per kind, the verdict's levels, and
    the sentences a class would be misled by (wrong with no warning), each listed."""
    kinds = sorted({r["kind"] for r in rows})
    return {
        **_counts(rows),
        "decoding": "greedy",
        "levels": dict(Counter(r["level"] for r in rows)),
        "per_kind": {k: _counts([r for r in rows if r["kind"] == k]) for k in kinds},
        "wrong_unwarned_list": [
            [r["english"], r["output"], r["hand"]]
            for r in rows
            if not r["right"] and not r["warned"]
        ],
        "wrong": [
            [r["english"], r["output"], r["hand"], r["level"]] for r in rows if not r["right"]
        ],
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m runtime.typed_set", description=__doc__.split("\n")[0]
    )
    p.add_argument("--weights", type=Path, default=WEIGHTS_DIR / "en-de.safetensors")
    p.add_argument("--write", action="store_true", help="put the figures into the sidecar")
    p.add_argument("--limit", type=int, help="only the first N sentences (a quick look)")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = load_trained(default_device(), args.weights)
    started = time.perf_counter()
    rows = [judge(loaded, s) for s in typed_sentences()[: args.limit]]
    table = summarize(rows) | {"minutes": round((time.perf_counter() - started) / 60, 1)}
    if args.write:
        sidecar = read_sidecar(args.weights)
        metrics = dict(sidecar.get("metrics", {}), typed_sentences=table)
        write_sidecar(args.weights, dict(sidecar, metrics=metrics))
    brief = {k: v for k, v in table.items() if k not in ("wrong", "wrong_unwarned_list")}
    print(json.dumps(brief, indent=1))
    for english, output, hand in table["wrong_unwarned_list"]:
        print(f"wrong, no warning: {english} -> {output} (hand: {hand})")


if __name__ == "__main__":
    main()
