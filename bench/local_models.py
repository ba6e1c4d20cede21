"""Measurement 12: a model found on the machine (issue 67), read from its folder into our blocks
beside transformers reading the same folder: the load (config, safetensors, our blocks; theirs:
`from_pretrained`) and one forward pass with every attention weight captured (theirs: eager,
`output_attentions=True`) at 128 and 512 tokens, interleaved, one thread. Random weights of two
shapes written by transformers itself: a BERT-base-shaped encoder, a GPT-2-small-shaped and a
Llama-shaped decoder.

    .venv/bin/python -m bench.local_models [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch

from runtime import families

from .timing import Stats, interleaved, paired_ratio

# BERT-base (110M) and a Llama of 12 layers (d_model 768, 12 query heads over 4 key/value heads)
SHAPES = {
    "BERT-base-shaped encoder": (
        "BertModel",
        dict(
            vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            intermediate_size=3072, max_position_embeddings=512,
        ),
    ),
    "GPT-2-small-shaped decoder": (
        "GPT2LMHeadModel",
        dict(vocab_size=50257, n_embd=768, n_layer=12, n_head=12, n_positions=1024),
    ),
    "Llama-shaped decoder": (
        "LlamaForCausalLM",
        dict(
            vocab_size=32000, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            num_key_value_heads=4, intermediate_size=2048, max_position_embeddings=2048,
        ),
    ),
}  # fmt: skip


def write(folder: Path, architecture: str, sizes: dict) -> None:
    import transformers
    from tokenizers import Tokenizer, models

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    config_class = {
        "BertModel": transformers.BertConfig,
        "GPT2LMHeadModel": transformers.GPT2Config,
        "LlamaForCausalLM": transformers.LlamaConfig,
    }[architecture]
    torch.manual_seed(0)
    getattr(transformers, architecture)(config_class(**sizes)).save_pretrained(folder)
    # the forward is timed on ids; the loader only needs a tokenizer that loads
    Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]")).save(
        str(folder / "tokenizer.json")
    )


def one_shape(label: str, architecture: str, sizes: dict, lengths: list[int], repeats: int) -> dict:
    import transformers

    auto = (
        transformers.AutoModel if architecture == "BertModel" else transformers.AutoModelForCausalLM
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write(folder, architecture, sizes)
        cpu = torch.device("cpu")
        holder: dict = {}

        def ours_load():
            holder["ours"] = families.load_folder(folder, "bench", label, tmp, cpu)

        def theirs_load():
            holder["theirs"] = auto.from_pretrained(str(folder), attn_implementation="eager").eval()

        load = interleaved(
            {"ours": ours_load, "transformers": theirs_load}, repeats=max(3, repeats // 2)
        )
        loaded, reference = holder["ours"], holder["theirs"]
        rows = []
        for n in lengths:
            ids = torch.randint(
                5, sizes["vocab_size"], (1, n), generator=torch.Generator().manual_seed(n)
            )

            def ours(ids=ids):
                with torch.inference_mode():
                    if architecture == "BertModel":
                        loaded.model.encode(ids, None)
                    else:
                        loaded.model(ids)

            def theirs(ids=ids):
                with torch.inference_mode():
                    reference(input_ids=ids, output_attentions=True)

            stats = interleaved({"ours": ours, "transformers": theirs}, repeats=repeats)
            rows.append(
                {
                    "tokens": n,
                    "ours": stats["ours"],
                    "transformers": stats["transformers"],
                    "ratio": paired_ratio(stats["ours"], stats["transformers"]),
                }
            )
    return {
        "shape": label,
        "parameters": sum(p.numel() for p in loaded.model.parameters()),
        "load": {"ours": load["ours"], "transformers": load["transformers"]},
        "load_ratio": paired_ratio(load["ours"], load["transformers"]),
        "forward": rows,
    }


def local_models_bench(quick: bool, repeats: int) -> list[dict]:
    lengths = [128] if quick else [128, 512]
    return [
        one_shape(label, arch, sizes, lengths, repeats) for label, (arch, sizes) in SHAPES.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--shape", choices=list(SHAPES), help="only this shape")
    args = parser.parse_args()
    if args.shape:
        for other in set(SHAPES) - {args.shape}:
            del SHAPES[other]
    torch.set_num_threads(1)
    results = local_models_bench(args.quick, 3 if args.quick else 7)
    print(
        json.dumps(
            results, default=lambda s: s.median if isinstance(s, Stats) else str(s), indent=1
        )
    )


if __name__ == "__main__":
    main()
