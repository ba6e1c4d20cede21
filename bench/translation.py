"""Measurement 4: translation speed, and what computing the encoder output once saves.

`model.decoding`'s greedy_decode and beam_search take the encoder memory computed once per
sentence. The variant without that cache re-encodes the source at every step: it is the same
decoding code handed a model whose `decode` first runs the encoder again (bench-only).
"""

from __future__ import annotations

from functools import partial

import torch

from corpus.generator import generate
from model.decoding import beam_search, greedy_decode
from model.tokenization import BOS_ID, EOS_ID
from model.transformer import DEFAULT_SETTINGS, padding_mask
from runtime import registry

from . import floor
from .timing import interleaved, paired_ratio, ratio


def translation_model() -> str:
    """The trained en-de model once its weights exist, else the untrained paper model."""
    return "en-de" if (registry.WEIGHTS_DIR / "en-de.safetensors").exists() else "paper-untrained"


class ReencodingModel:
    """A model whose every decoder call first re-runs the encoder on the source: no memory cache."""

    def __init__(self, model, src, src_mask):
        self.model, self.src, self.src_mask = model, src, src_mask
        self.generator = model.generator

    def decode(self, memory, src_mask, tgt, tgt_mask, settings):
        fresh = self.model.encode(self.src, self.src_mask, settings).memory
        return self.model.decode(
            fresh.expand(memory.size(0), -1, -1), src_mask, tgt, tgt_mask, settings
        )


def decode_sentence(model, ids: list[int], method, cache: bool, **extra) -> list[int]:
    """Encode and decode one sentence as trace.run does (same length limit)."""
    src = torch.tensor([ids])
    src_mask = padding_mask(src, model.config.pad_id)
    memory = model.encode(src, src_mask).memory
    stepper = model if cache else ReencodingModel(model, src, src_mask)
    max_len = min(2 * len(ids) + 10, model.config.max_len - 1)
    return method(stepper, memory, src_mask, DEFAULT_SETTINGS, max_len, BOS_ID, EOS_ID, **extra)


def decode_all(model, sentences: list[list[int]], method, cache: bool, extra: dict) -> list:
    return [decode_sentence(model, ids, method, cache, **extra) for ids in sentences]


def greedy_flops(config, source: int, generated: int, cache: bool) -> int:
    """Greedy decoding's matrix FLOPs: step t runs the decoder over a prefix of t tokens."""
    steps = sum(
        config.N * floor.decoder_layer_flops(config.d_model, config.d_ff, t, source)
        + floor.generator_flops(config, 1)
        for t in range(1, generated + 1)
    )
    encodes = 1 + (generated if not cache else 0)
    return steps + encodes * floor.encoder_flops(config, source)


def translation(sentences: int, repeats: int, matmul_gflops: float) -> dict:
    """Per decoding method: cached memory vs re-encoding, over the same sentences, interleaved."""
    name = translation_model()
    loaded = registry.load(name, torch.device("cpu"))
    model = loaded.model
    examples = generate(sentences, seed=7)
    ids = [
        list(loaded.tokenizer.encode(e.english_text, loaded.max_source_tokens).ids)
        for e in examples
    ]
    methods = {"greedy": (greedy_decode, {}), "beam-4": (beam_search, {"beam_size": 4})}
    rows = []
    with torch.inference_mode():
        for label, (method, extra) in methods.items():
            outputs = decode_all(model, ids, method, True, extra)
            uncached = decode_all(model, ids, method, False, extra)
            if outputs != uncached:
                raise AssertionError(f"{label}: re-encoding changed the output")
            generated = sum(len(o) for o in outputs)
            stats = interleaved(
                {
                    "cached": partial(decode_all, model, ids, method, True, extra),
                    "re-encode": partial(decode_all, model, ids, method, False, extra),
                },
                repeats,
                warmup=0,  # the output check above was the warm-up
            )
            row = {
                "method": label,
                "sentences": len(ids),
                "source_tokens": sum(len(s) for s in ids),
                "generated_tokens": generated,
                "stats": stats,
                "per_sentence_s": {k: s.median / len(ids) for k, s in stats.items()},
                "tokens_per_s": {k: generated / s.median for k, s in stats.items()},
                "saving": 1 - ratio(stats["cached"], stats["re-encode"]),
                "paired_saving": 1 - paired_ratio(stats["cached"], stats["re-encode"]),
                "example": {
                    "source": examples[0].english_text,
                    "output": loaded.tokenizer.decode(outputs[0]),
                },
            }
            if label == "greedy":
                flops = sum(
                    greedy_flops(model.config, len(s), len(o), cache=True)
                    for s, o in zip(ids, outputs)
                )
                row["floor"] = floor.fraction_of_floor(flops, stats["cached"].median, matmul_gflops)
            rows.append(row)
    return {"model": name, "label": loaded.label, "rows": rows}
