"""A Llama-family model in a GGUF file (llama.cpp's format): its metadata, its tensors dequantized
with `gguf` (llama.cpp's own reader) and renamed into our decoder-only blocks, and its byte-level
BPE tokenizer rebuilt with `tokenizers`. The shipped SmolLM2 (runtime/smollm2.py) is read this
way, and so is a GGUF file found on the machine (runtime/local.py).

Architectures: `llama` (Llama, Mistral, SmolLM) and `qwen2` (q, k and v with biases). Tokenizers:
byte-level BPE (`tokenizer.ggml.model` "gpt2") split as the file's `tokenizer.ggml.pre` says:
SmolLM's, Llama 3's or Qwen2's; a SentencePiece vocabulary ("llama": Llama 2, Mistral 7B) is
refused with that reason.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

from model.decoder_only import DecoderOnlyConfig

from .loaded import ModelUnavailable

ARCHITECTURES = ("llama", "qwen2")
_LAYER = {
    "attn_norm": "attention_norm",
    "attn_q": "self_attn.w_q",
    "attn_k": "self_attn.w_k",
    "attn_v": "self_attn.w_v",
    "attn_output": "self_attn.w_o",
    "ffn_norm": "ffn_norm",
    "ffn_gate": "feed_forward.w_gate",
    "ffn_up": "feed_forward.w_up",
    "ffn_down": "feed_forward.w_down",
}
# The text splits before the byte-level BPE, by `tokenizer.ggml.pre` (llama.cpp's names): the
# regular expressions the vocabularies' merges were learned on.
_LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SPLITS = {"llama-bpe": _LLAMA3_SPLIT, "llama3": _LLAMA3_SPLIT, "qwen2": _QWEN2_SPLIT}
CONTROL = 3  # llama.cpp's token type of <|im_start|>, <|endoftext|>, ...


class GGUFModel:
    """One file's metadata, read once (the file is memory-mapped: nothing else is read yet)."""

    def __init__(self, path: Path):
        from gguf import GGUFReader

        self.path = Path(path)
        try:
            self.reader = GGUFReader(self.path)
        except Exception as err:  # gguf raises ValueError, struct errors, ... for a bad file
            raise ModelUnavailable(f"{self.path.name} cannot be read as GGUF ({err})") from None
        self.architecture = str(self.field("general.architecture"))

    def field(self, key: str, default: Any = ...) -> Any:
        found = self.reader.fields.get(key)
        if found is None:
            if default is not ...:
                return default
            raise ModelUnavailable(f"{self.path.name} has no metadata field {key}")
        return found.contents()

    def arch(self, key: str) -> Any:
        return self.field(f"{self.architecture}.{key}")

    @property
    def names(self) -> set[str]:
        return {t.name for t in self.reader.tensors}

    def config(self) -> DecoderOnlyConfig:
        """Our config from the file's metadata; refuses what our blocks cannot hold."""
        if self.architecture not in ARCHITECTURES:
            raise ModelUnavailable(
                f"a GGUF file of architecture {self.architecture!r}; this app reads "
                f"{', '.join(ARCHITECTURES)} (Llama, Mistral, SmolLM, Qwen2)"
            )
        d_model = int(self.arch("embedding_length"))
        h = int(self.arch("attention.head_count"))
        rope_dims = int(self.field(f"{self.architecture}.rope.dimension_count", d_model // h))
        if rope_dims != d_model // h:
            raise ModelUnavailable("RoPE on part of a head's dimensions is not supported")
        vocab = self.field(f"{self.architecture}.vocab_size", None)
        return DecoderOnlyConfig(
            vocab=int(vocab if vocab is not None else len(self.field("tokenizer.ggml.tokens"))),
            N=int(self.arch("block_count")),
            d_model=d_model,
            d_ff=int(self.arch("feed_forward_length")),
            h=h,
            h_kv=int(self.field(f"{self.architecture}.attention.head_count_kv", h)),
            rope_base=float(self.field(f"{self.architecture}.rope.freq_base", 10_000.0)),
            norm_eps=float(self.arch("attention.layer_norm_rms_epsilon")),
            max_len=int(self.arch("context_length")),
            tie_embeddings="output.weight" not in self.names,
            qkv_bias=self.architecture == "qwen2",
        )

    def mapping(self, config: DecoderOnlyConfig) -> dict[str, str]:
        """GGUF tensor name -> our parameter name (both store a matrix as [out, in])."""
        mapping = {"token_embd.weight": "tokens.weight", "output_norm.weight": "norm.weight"}
        if not config.tie_embeddings:
            mapping["output.weight"] = "output.weight"
        for i in range(config.N):
            for theirs, ours in _LAYER.items():
                mapping[f"blk.{i}.{theirs}.weight"] = f"layers.{i}.{ours}.weight"
            if config.qkv_bias:
                for x in "qkv":
                    mapping[f"blk.{i}.attn_{x}.bias"] = f"layers.{i}.self_attn.w_{x}.bias"
        names = self.names
        if names != set(mapping):
            raise ModelUnavailable(
                f"{self.path.name} does not fit the model: unused "
                f"{sorted(names - set(mapping))[:5]}, missing {sorted(set(mapping) - names)[:5]}"
            )
        return mapping

    def parameters(self) -> int:
        return sum(int(np.prod(t.shape)) for t in self.reader.tensors)

    def state(
        self, config: DecoderOnlyConfig, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, torch.Tensor]:
        """Every tensor as float32, renamed; W_q and W_k rows in Hugging Face's order.
        `progress(done, total)` after each tensor (a big file takes minutes)."""
        from gguf.quants import dequantize

        mapping = self.mapping(config)
        # llama.cpp's converter interleaves a Llama's q and k rows for its rotation; Qwen2's
        # (rotated as Hugging Face rotates) it writes as they are
        permuted = self.architecture == "llama"
        state = {}
        for tensor in self.reader.tensors:
            weight = np.asarray(dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
            if permuted and tensor.name.endswith("attn_q.weight"):
                weight = unpermute_rope_rows(weight, config.h)
            elif permuted and tensor.name.endswith("attn_k.weight"):
                weight = unpermute_rope_rows(weight, config.h_kv)
            state[mapping[tensor.name]] = torch.tensor(weight)  # a copy: the reader's is read-only
            if progress is not None:
                progress(len(state), len(self.reader.tensors))
        return state

    def tokenizer(self) -> Tokenizer:
        """The byte-level BPE of the file's vocabulary and merges, split as its pre-tokenizer
        names; the control tokens are special."""
        kind = self.field("tokenizer.ggml.model")
        if kind != "gpt2":
            raise ModelUnavailable(
                f"its tokenizer is {kind!r} (SentencePiece); this app rebuilds only byte-level "
                "BPE tokenizers from a GGUF file"
            )
        pre = self.field("tokenizer.ggml.pre", "default")
        if pre == "smollm":  # each digit alone, then GPT-2's regex
            split = pre_tokenizers.Sequence(
                [
                    pre_tokenizers.Digits(individual_digits=True),
                    pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
                ]
            )
        elif pre in SPLITS:
            split = pre_tokenizers.Sequence(
                [
                    pre_tokenizers.Split(Regex(SPLITS[pre]), behavior="isolated"),
                    pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
                ]
            )
        else:
            raise ModelUnavailable(
                f"its tokenizer splits text as {pre!r}, which this app does not rebuild "
                f"(it rebuilds smollm, {', '.join(SPLITS)})"
            )
        tokens = list(self.field("tokenizer.ggml.tokens"))
        types = list(self.field("tokenizer.ggml.token_type"))
        merges = [tuple(m.split(" ", 1)) for m in self.field("tokenizer.ggml.merges")]
        tokenizer = Tokenizer(
            models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges, fuse_unk=False)
        )
        tokenizer.pre_tokenizer = split
        tokenizer.decoder = decoders.ByteLevel()
        tokenizer.add_special_tokens([t for t, kind in zip(tokens, types) if kind == CONTROL])
        return tokenizer

    def check(self) -> DecoderOnlyConfig:
        """Everything that can be checked before dequantizing: the config, the tensors' names and
        the tokenizer."""
        config = self.config()
        self.mapping(config)
        self.tokenizer()
        return config


def unpermute_rope_rows(weight: np.ndarray, n_heads: int) -> np.ndarray:
    """Undo the row order llama.cpp's converter writes W_q and W_k in.

    Hugging Face's Llama rotates the pairs (x_i, x_{i + d_k/2}) of each head; llama.cpp rotates
    adjacent pairs (x_2i, x_2i+1), so its converter interleaves each head's two halves (row i of
    the first half goes to row 2i, row i of the second to row 2i + 1). This puts the rows back."""
    rows = weight.shape[0]
    d_k = rows // n_heads
    return (
        weight.reshape(n_heads, d_k // 2, 2, *weight.shape[1:]).swapaxes(1, 2).reshape(weight.shape)
    )
