"""Measurement 10: SmolLM2-135M (issue 46). Our decoder-only forward with every attention weight
captured beside transformers' eager Llama with output_attentions=True on the same weights and
ids (16, 128 and 512 tokens), interleaved; greedy generation in tokens per second (our key/value
cache, nothing captured) and the page's whole run (`trace.run`: generation, then the captured
forward); a start from the cached safetensors (checksum included).

    .venv/bin/python -m bench.smollm2 [--quick] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch

from runtime import registry, smollm2
from runtime.causal import MAX_NEW_TOKENS
from runtime.trace import run

from .timing import Stats, interleaved, paired_ratio, timed

PROSE = (
    "Attention lets every token of a sentence read every earlier one, and a language model "
    "learns from a great deal of text which earlier tokens are worth reading. "
)
QUESTION = "Why is the sky blue?"


def _reference():
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    folder = str(smollm2.gguf_path().parent)
    return transformers.AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=smollm2.GGUF_NAME, attn_implementation="eager", dtype=torch.float32
    ).eval()


def forward(loaded, reference, lengths: list[int], repeats: int) -> list[dict]:
    tokenizer = loaded.tokenizer
    ids = tokenizer.ids(PROSE * 40)
    rows = []
    for n in lengths:
        x = torch.tensor([ids[:n]])

        def ours(x=x):
            with torch.inference_mode():
                loaded.model(x)

        def theirs(x=x):
            with torch.inference_mode():
                reference(x, output_attentions=True)

        stats = interleaved({"ours": ours, "transformers": theirs}, repeats=repeats)
        rows.append(
            {
                "tokens": n,
                "ours": stats["ours"],
                "transformers": stats["transformers"],
                "ratio": paired_ratio(stats["ours"], stats["transformers"]),
            }
        )
    return rows


def generation(loaded, repeats: int) -> dict:
    prompt = loaded.tokenizer.ids(loaded.tokenizer.chat(QUESTION))
    tokens = MAX_NEW_TOKENS  # no stop token: every round writes the same number

    stats = interleaved(
        {
            "generate": lambda: loaded.model.generate(prompt, tokens),
            "page run": lambda: run(loaded, QUESTION),
        },
        repeats=repeats,
    )
    written = len(run(loaded, QUESTION).output_ids)
    return {
        "prompt_tokens": len(prompt),
        "tokens": tokens,
        "page_tokens": written,
        "generate": stats["generate"],
        "page run": stats["page run"],
        "tokens_per_s": tokens / stats["generate"].median,
    }


def start(repeats: int) -> Stats:
    files = smollm2.cached_files()
    smollm2.load_model(files)  # made once if missing
    return Stats(tuple(timed(lambda: smollm2.read_cache(files)) for _ in range(repeats)))


def smollm2_bench(quick: bool, repeats: int) -> dict:
    loaded = registry.load("smollm2-135m", torch.device("cpu"))
    reference = _reference()
    lengths = [16, 128] if quick else [16, 128, 512]
    return {
        "forward": forward(loaded, reference, lengths, repeats),
        "generation": generation(loaded, max(2, repeats // 2)),
        "start": start(max(2, repeats // 2)),
    }


def main(argv: list[str] | None = None) -> None:
    from .run import to_json

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    print(json.dumps(to_json(smollm2_bench(args.quick, args.repeats)), indent=1))


if __name__ == "__main__":
    main()
