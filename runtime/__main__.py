"""Command line: `attention-atlas --list`, `attention-atlas --model NAME --text "..." [--json PATH]`
(installed by `pip install -e .`; `python -m runtime` is the same). `--models DIR` adds a folder
of models to those found on this machine (runtime/local.py), as ATLAS_MODEL_DIRS does."""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn

from model.transformer import RunSettings
from model.weights import WeightsError

from .loaded import ModelUnavailable
from .local import add_model_dirs
from .registry import all_models, load, unrunnable_models
from .trace import DECODING_METHODS, InputError, run
from .verdict import reference_for, verdict


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments get one line on stderr, not a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see --help)\n")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="attention-atlas", description="Run a model of Attention Atlas on a text."
    )
    parser.add_argument("--list", action="store_true", help="print the model names, one a line")
    parser.add_argument(
        "--models",
        metavar="DIR",
        action="append",
        default=[],
        help="a folder of models (or a folder of such folders) to offer besides the Hugging Face "
        "cache; may be given more than once",
    )
    parser.add_argument("--model", help="which model to run (see --list)")
    parser.add_argument("--text", help="the text to run the model on")
    parser.add_argument("--scale", type=float, help="attention logit scale (default 1/sqrt(d_k))")
    parser.add_argument("--decoding", choices=DECODING_METHODS, default="greedy")
    parser.add_argument("--json", metavar="PATH", help="write the Trace as JSON to PATH")
    args = parser.parse_args(argv)
    add_model_dirs(args.models)
    if args.list:
        print("\n".join(all_models()))
        for found in unrunnable_models():
            print(f"cannot run: {found.title} ({found.folder}): {found.reason}", file=sys.stderr)
        return 0
    if not args.model or args.text is None:
        parser.error("--model and --text are needed (or --list)")
    try:
        settings = RunSettings(scale=args.scale)
        loaded = load(args.model)
        trace = run(loaded, args.text, settings, decoding=args.decoding)
        said = verdict(loaded, trace, args.text, reference_for(loaded, args.text))
        if args.json:
            record = trace.to_json_dict()
            if said is not None:
                record["verdict"] = said.to_json()
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(record, f, ensure_ascii=False)
    except (InputError, ModelUnavailable, WeightsError, ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print("source tokens:", " ".join(trace.source_tokens))
    if trace.target_tokens:
        print("target tokens:", " ".join(trace.target_tokens))
        print("output:", trace.output)
    if said is not None:
        print(f"verdict: {said.title}. {said.reason}")
    for notice in trace.notices:
        print("note:", notice)
    return 0


if __name__ == "__main__":
    sys.exit(main())
