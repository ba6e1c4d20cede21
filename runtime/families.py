"""Models people already have on disk, the families our blocks hold: a Hugging Face folder
(config.json, safetensors weights, tokenizer.json) described for the paper's encoder (BERT,
RoBERTa, DistilBERT) or for the decoder-only blocks (GPT-2, Llama, Mistral, Qwen2, SmolLM), so
every run setting (the scale, ablated heads, the window r, positions off) and every view works on
them as on the shipped ones. What a folder holds is checked here without loading a weight;
runtime/local_load.py loads it.

Weights are read from safetensors only: a folder with only pickle files (`pytorch_model.bin`) is
refused, as unpickling can run code. In the Hugging Face cache a weights file is a link to a blob
named by its sha256, which is checked before the file is read. Nothing is downloaded or written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open

from model.decoder_only import DecoderOnlyConfig
from model.transformer import TransformerConfig
from model.weights import sha256_of

from .loaded import ModelUnavailable
from .pretrained import bert_to_ours

PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
SUPPORTED = "BERT, RoBERTa, XLM-RoBERTa, DistilBERT, GPT-2, Llama, Mistral, Qwen2 (SmolLM), Marian (opus-mt)"


@dataclass(frozen=True)
class Family:
    """One kind of checkpoint: the name people know it by, our config from its config.json, its
    tensor names -> ours, and what its tensors need besides a new name (GPT-2's fused, transposed
    matrices)."""

    title: str
    kind: str  # "encoder", "decoder" or "encoder-decoder"
    config: Callable[[Mapping[str, Any]], TransformerConfig | DecoderOnlyConfig]
    names: Callable[[Mapping[str, Any], set[str]], dict[str, str]]
    positions: str
    convert: Callable[[dict[str, torch.Tensor]], dict[str, torch.Tensor]] | None = None
    # the files its tokenizer is read from
    tokenizer_files: tuple[str, ...] = ("tokenizer.json",)


def _get(c: Mapping[str, Any], key: str) -> Any:
    if key not in c:
        raise ModelUnavailable(f"config.json has no {key!r}")
    return c[key]


def _require(c: Mapping[str, Any], key: str, allowed: tuple[Any, ...], default: Any) -> None:
    value = c.get(key, default)
    if value not in allowed:
        raise ModelUnavailable(
            f"config.json has {key}={value!r}; our blocks run {' or '.join(map(repr, allowed))}"
        )


# --- Encoders (the paper's encoder stack, post-norm, as BERT) --------------------------------------


def bert_config(c: Mapping[str, Any]) -> TransformerConfig:
    """BERT and RoBERTa: post-norm layers, GELU (erf), learned positions, a LayerNorm after the
    embeddings. RoBERTa numbers positions from pad_token_id + 1: its first rows are never read."""
    _require(c, "hidden_act", ("gelu",), "gelu")
    _require(c, "position_embedding_type", ("absolute",), "absolute")
    offset = position_offset(c)
    return TransformerConfig(
        src_vocab=_get(c, "vocab_size"),
        N=_get(c, "num_hidden_layers"),
        d_model=_get(c, "hidden_size"),
        d_ff=_get(c, "intermediate_size"),
        h=_get(c, "num_attention_heads"),
        dropout=0.0,
        max_len=_get(c, "max_position_embeddings") - offset,
        share_embeddings=False,
        activation="gelu",
        positions="learned",
        type_vocab=c.get("type_vocab_size", 2),
        scale_embeddings=False,
        embedding_norm=True,
        layer_norm_eps=c.get("layer_norm_eps", 1e-12),
        pad_id=c.get("pad_token_id", 0) or 0,
    )


def position_offset(c: Mapping[str, Any]) -> int:
    """RoBERTa's position of the first token is pad_token_id + 1 (BERT's is 0)."""
    if c.get("model_type") in ("roberta", "xlm-roberta"):
        return int(c.get("pad_token_id", 1)) + 1
    return 0


def bert_names(c: Mapping[str, Any], tensors: set[str]) -> dict[str, str]:
    prefix = _prefix(tensors, ("bert.", "roberta."), "embeddings.word_embeddings.weight")
    return {prefix + theirs: ours for theirs, ours in bert_to_ours(c["num_hidden_layers"]).items()}


def distilbert_config(c: Mapping[str, Any]) -> TransformerConfig:
    """DistilBERT: BERT's layers without token types, its sizes under other names."""
    _require(c, "activation", ("gelu",), "gelu")
    return TransformerConfig(
        src_vocab=_get(c, "vocab_size"),
        N=_get(c, "n_layers"),
        d_model=_get(c, "dim"),
        d_ff=_get(c, "hidden_dim"),
        h=_get(c, "n_heads"),
        dropout=0.0,
        max_len=_get(c, "max_position_embeddings"),
        share_embeddings=False,
        activation="gelu",
        positions="learned",  # a sinusoidal table, where used, is stored as a learned one
        scale_embeddings=False,
        embedding_norm=True,
        layer_norm_eps=1e-12,  # fixed in DistilBERT's code
        pad_id=c.get("pad_token_id", 0) or 0,
    )


_DISTILBERT_LAYER = {
    "attention.q_lin": "self_attn.w_q",
    "attention.k_lin": "self_attn.w_k",
    "attention.v_lin": "self_attn.w_v",
    "attention.out_lin": "self_attn.w_o",
    "sa_layer_norm": "sublayer.0.norm",
    "ffn.lin1": "feed_forward.w_1",
    "ffn.lin2": "feed_forward.w_2",
    "output_layer_norm": "sublayer.1.norm",
}


def distilbert_names(c: Mapping[str, Any], tensors: set[str]) -> dict[str, str]:
    p = _prefix(tensors, ("distilbert.",), "embeddings.word_embeddings.weight")
    mapping = {
        f"{p}embeddings.word_embeddings.weight": "src_embed.tokens.lut.weight",
        f"{p}embeddings.position_embeddings.weight": "src_embed.positions.table.weight",
        f"{p}embeddings.LayerNorm.weight": "src_embed.norm.weight",
        f"{p}embeddings.LayerNorm.bias": "src_embed.norm.bias",
    }
    for i in range(c["n_layers"]):
        for theirs, ours in _DISTILBERT_LAYER.items():
            for kind in ("weight", "bias"):
                mapping[f"{p}transformer.layer.{i}.{theirs}.{kind}"] = (
                    f"encoder.layers.{i}.{ours}.{kind}"
                )
    return mapping


# --- Decoders (model/decoder_only.py: pre-norm, RoPE, grouped-query attention, SwiGLU) -------------


def llama_config(c: Mapping[str, Any]) -> DecoderOnlyConfig:
    """Llama, Mistral, Qwen2: one decoder-only design; Qwen2 adds biases to q, k and v."""
    _require(c, "hidden_act", ("silu",), "silu")
    _require(c, "mlp_bias", (False,), False)
    rope = c.get("rope_parameters") or c.get("rope_scaling") or {}
    _require(rope, "rope_type", ("default",), rope.get("type", "default"))
    d_model, h = _get(c, "hidden_size"), _get(c, "num_attention_heads")
    if c.get("head_dim") not in (None, d_model // h):
        raise ModelUnavailable(
            f"config.json has head_dim={c['head_dim']}, not hidden_size / heads = {d_model // h}"
        )
    # Qwen2 always has q, k and v biases; Llama's attention_bias puts one on o as well, which
    # our blocks lack: such a checkpoint is refused by its names (an o_proj.bias unused)
    qkv_bias = c.get("model_type") == "qwen2" or bool(c.get("attention_bias", False))
    return DecoderOnlyConfig(
        vocab=_get(c, "vocab_size"),
        N=_get(c, "num_hidden_layers"),
        d_model=d_model,
        d_ff=_get(c, "intermediate_size"),
        h=h,
        h_kv=c.get("num_key_value_heads") or h,
        rope_base=float(rope.get("rope_theta", c.get("rope_theta", 10_000.0))),
        norm_eps=float(c.get("rms_norm_eps", 1e-6)),
        max_len=int(c.get("max_position_embeddings", 2048)),
        tie_embeddings=bool(c.get("tie_word_embeddings", False)),
        qkv_bias=qkv_bias,
    )


_LLAMA_LAYER = {
    "input_layernorm.weight": "attention_norm.weight",
    "self_attn.q_proj.weight": "self_attn.w_q.weight",
    "self_attn.k_proj.weight": "self_attn.w_k.weight",
    "self_attn.v_proj.weight": "self_attn.w_v.weight",
    "self_attn.o_proj.weight": "self_attn.w_o.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "feed_forward.w_gate.weight",
    "mlp.up_proj.weight": "feed_forward.w_up.weight",
    "mlp.down_proj.weight": "feed_forward.w_down.weight",
}


def llama_names(c: Mapping[str, Any], tensors: set[str]) -> dict[str, str]:
    config = llama_config(c)
    mapping = {"model.embed_tokens.weight": "tokens.weight", "model.norm.weight": "norm.weight"}
    if not config.tie_embeddings:
        mapping["lm_head.weight"] = "output.weight"
    for i in range(config.N):
        layer = {theirs: ours for theirs, ours in _LLAMA_LAYER.items()}
        if config.qkv_bias:
            for x in "qkv":
                layer[f"self_attn.{x}_proj.bias"] = f"self_attn.w_{x}.bias"
        for theirs, ours in layer.items():
            mapping[f"model.layers.{i}.{theirs}"] = f"layers.{i}.{ours}"
    return mapping


def gpt2_config(c: Mapping[str, Any]) -> DecoderOnlyConfig:
    """GPT-2: pre-norm LayerNorm blocks, learned positions, a GELU (tanh) network, biases."""
    _require(c, "activation_function", ("gelu_new", "gelu_pytorch_tanh"), "gelu_new")
    _require(c, "scale_attn_by_inverse_layer_idx", (False,), False)
    _require(c, "reorder_and_upcast_attn", (False,), False)
    _require(c, "scale_attn_weights", (True,), True)
    d_model, h = _get(c, "n_embd"), _get(c, "n_head")
    return DecoderOnlyConfig(
        vocab=_get(c, "vocab_size"),
        N=_get(c, "n_layer"),
        d_model=d_model,
        d_ff=c.get("n_inner") or 4 * d_model,
        h=h,
        h_kv=h,
        norm_eps=float(c.get("layer_norm_epsilon", 1e-5)),
        max_len=_get(c, "n_positions"),
        tie_embeddings=bool(c.get("tie_word_embeddings", True)),
        qkv_bias=True,
        norm="layer",
        positions="learned",
        ffn="gelu",
        out_bias=True,
    )


_GPT2_LAYER = {
    "ln_1": "attention_norm",
    "attn.c_attn": "self_attn.w_qkv",  # W_q, W_k, W_v side by side: split by gpt2_convert
    "attn.c_proj": "self_attn.w_o",
    "ln_2": "ffn_norm",
    "mlp.c_fc": "feed_forward.w_1",
    "mlp.c_proj": "feed_forward.w_2",
}


def gpt2_names(c: Mapping[str, Any], tensors: set[str]) -> dict[str, str]:
    p = _prefix(tensors, ("transformer.",), "wte.weight")
    mapping = {
        f"{p}wte.weight": "tokens.weight",
        f"{p}wpe.weight": "positions.weight",
        f"{p}ln_f.weight": "norm.weight",
        f"{p}ln_f.bias": "norm.bias",
    }
    if not c.get("tie_word_embeddings", True):
        mapping["lm_head.weight"] = "output.weight"
    for i in range(c["n_layer"]):
        for theirs, ours in _GPT2_LAYER.items():
            for kind in ("weight", "bias"):
                mapping[f"{p}h.{i}.{theirs}.{kind}"] = f"layers.{i}.{ours}.{kind}"
    return mapping


def gpt2_convert(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """GPT-2 stores its layers' matrices as [in, out] (its Conv1D), ours as [out, in]; and its
    q, k and v as one matrix, [W_q | W_k | W_v]."""
    converted = {}
    for name, tensor in state.items():
        if name.startswith("layers.") and tensor.dim() == 2:
            tensor = tensor.T  # a view: the matrix products read it transposed, nothing copied
        if ".w_qkv." in name:
            for part, chunk in zip("qkv", tensor.chunk(3, dim=0)):
                converted[name.replace(".w_qkv.", f".w_{part}.")] = chunk
        else:
            converted[name] = tensor
    return converted


def marian_config(c: Mapping[str, Any]) -> TransformerConfig:
    """Marian (opus-mt): the paper's encoder-decoder itself: post-norm, sinusoids (their halves
    side by side), embeddings times sqrt(d_model) shared by both sides and the output, plus a
    bias on the logits; Swish in the feed-forward networks."""
    activations = {"swish": "silu", "silu": "silu", "gelu": "gelu", "relu": "relu"}
    _require(c, "activation_function", tuple(activations), "gelu")
    _require(c, "static_position_embeddings", (True,), True)
    _require(c, "normalize_before", (False,), False)
    _require(c, "share_encoder_decoder_embeddings", (True,), True)
    for side in ("decoder_layers", "decoder_attention_heads", "decoder_ffn_dim"):
        other = side.replace("decoder", "encoder")
        if c.get(side, c.get(other)) != c.get(other):
            raise ModelUnavailable(f"config.json has {side} ≠ {other}: our two stacks are alike")
    vocab = _get(c, "vocab_size")
    return TransformerConfig(
        src_vocab=vocab,
        tgt_vocab=vocab,
        N=_get(c, "encoder_layers"),
        d_model=_get(c, "d_model"),
        d_ff=_get(c, "encoder_ffn_dim"),
        h=_get(c, "encoder_attention_heads"),
        dropout=0.0,
        max_len=_get(c, "max_position_embeddings"),
        share_embeddings=True,
        activation=activations[c.get("activation_function", "gelu")],
        scale_embeddings=bool(c.get("scale_embedding", False)),
        sinusoids="halves",
        pad_id=_get(c, "pad_token_id"),
    )


_MARIAN_LAYER = {
    "self_attn.q_proj": "self_attn.w_q",
    "self_attn.k_proj": "self_attn.w_k",
    "self_attn.v_proj": "self_attn.w_v",
    "self_attn.out_proj": "self_attn.w_o",
    "self_attn_layer_norm": "sublayer.0.norm",
    "fc1": "feed_forward.w_1",
    "fc2": "feed_forward.w_2",
}


def marian_names(c: Mapping[str, Any], tensors: set[str]) -> dict[str, str]:
    mapping = {
        "model.shared.weight": "src_embed.tokens.lut.weight",  # and tgt_embed's, the output's
        "final_logits_bias": "generator.proj.bias",
    }
    for i in range(c["encoder_layers"]):
        layer = {**_MARIAN_LAYER, "final_layer_norm": "sublayer.1.norm"}
        for theirs, ours in layer.items():
            for kind in ("weight", "bias"):
                mapping[f"model.encoder.layers.{i}.{theirs}.{kind}"] = (
                    f"encoder.layers.{i}.{ours}.{kind}"
                )
    for i in range(c["encoder_layers"]):
        layer = {
            **_MARIAN_LAYER,
            "encoder_attn.q_proj": "src_attn.w_q",
            "encoder_attn.k_proj": "src_attn.w_k",
            "encoder_attn.v_proj": "src_attn.w_v",
            "encoder_attn.out_proj": "src_attn.w_o",
            "encoder_attn_layer_norm": "sublayer.1.norm",
            "final_layer_norm": "sublayer.2.norm",
        }
        for theirs, ours in layer.items():
            for kind in ("weight", "bias"):
                mapping[f"model.decoder.layers.{i}.{theirs}.{kind}"] = (
                    f"decoder.layers.{i}.{ours}.{kind}"
                )
    return mapping


def marian_convert(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """One embedding matrix for the source, the target and the output (Section 3.4); the logits'
    bias is stored as [1, vocab]."""
    shared = state["src_embed.tokens.lut.weight"]
    return {
        **state,
        "tgt_embed.tokens.lut.weight": shared,
        "generator.proj.weight": shared,
        "generator.proj.bias": state["generator.proj.bias"].reshape(-1),
    }


FAMILIES: dict[str, Family] = {
    "bert": Family("BERT", "encoder", bert_config, bert_names, "learned"),
    "roberta": Family("RoBERTa", "encoder", bert_config, bert_names, "learned"),
    "xlm-roberta": Family("XLM-RoBERTa", "encoder", bert_config, bert_names, "learned"),
    "distilbert": Family("DistilBERT", "encoder", distilbert_config, distilbert_names, "learned"),
    "llama": Family("Llama", "decoder", llama_config, llama_names, "rotary"),
    "mistral": Family("Mistral", "decoder", llama_config, llama_names, "rotary"),
    "qwen2": Family("Qwen2", "decoder", llama_config, llama_names, "rotary"),
    "gpt2": Family("GPT-2", "decoder", gpt2_config, gpt2_names, "learned", gpt2_convert),
    "marian": Family(
        "Marian",
        "encoder-decoder",
        marian_config,
        marian_names,
        "sinusoidal",
        marian_convert,
        ("source.spm", "target.spm", "vocab.json"),
    ),
}
# Tensors a checkpoint may hold that our blocks have no place for, on purpose: task heads on top
# of the encoder (the attention never sees them) and constant buffers our code computes.
IGNORED_PREFIXES = (
    "cls.", "lm_head.", "pooler.", "bert.pooler.", "roberta.pooler.", "classifier.",
    "qa_outputs.", "pre_classifier.", "vocab_transform.", "vocab_layer_norm.", "vocab_projector.",
)  # fmt: skip
IGNORED_SUFFIXES = (
    "position_ids",
    "token_type_ids",
    "rotary_emb.inv_freq",
    "masked_bias",
    ".attn.bias",
)


def _prefix(tensors: set[str], prefixes: tuple[str, ...], probe: str) -> str:
    """The prefix a task model puts before its base model's names (BertForMaskedLM: "bert.")."""
    return next((p for p in prefixes if p + probe in tensors), "")


# --- A folder ------------------------------------------------------------------------------------


def read_config(folder: Path) -> dict[str, Any]:
    path = folder / "config.json"
    if not path.is_file():
        raise ModelUnavailable(f"{folder} has no config.json, so its architecture is unknown")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelUnavailable(f"{path} cannot be read as JSON ({err})") from None
    if not isinstance(config, dict):
        raise ModelUnavailable(f"{path} holds no JSON object")
    return config


def family_of(config: Mapping[str, Any]) -> Family:
    model_type = config.get("model_type")
    if model_type in FAMILIES:
        return FAMILIES[model_type]
    arch = ", ".join(config.get("architectures") or []) or "no architecture named"
    raise ModelUnavailable(
        f"{model_type or arch} is not an architecture this app runs ({SUPPORTED})"
    )


def weight_files(folder: Path) -> list[Path]:
    """The folder's safetensors files (one, or the shards its index names); refuses pickle."""
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        try:
            shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise ModelUnavailable(f"{index.name} cannot be read ({err})") from None
        files = [folder / name for name in shards]
        missing = [f.name for f in files if not f.is_file()]
        if missing:
            raise ModelUnavailable(f"{folder.name}: shards missing: {', '.join(missing[:3])}")
        return files
    if (folder / "model.safetensors").is_file():
        return [folder / "model.safetensors"]
    pickles = sorted(p.name for p in folder.iterdir() if p.suffix in PICKLE_SUFFIXES)
    if pickles:
        raise ModelUnavailable(
            f"its weights are pickle files only ({', '.join(pickles[:2])}), which this app never "
            "loads (unpickling can run code); save them as safetensors: "
            "model.save_pretrained(folder, safe_serialization=True)"
        )
    raise ModelUnavailable("no model.safetensors in the folder")


def tensor_shapes(files: list[Path]) -> dict[str, tuple[int, ...]]:
    """Every tensor's shape, from the files' headers (nothing else is read); a truncated or
    damaged file is refused here."""
    shapes: dict[str, tuple[int, ...]] = {}
    for path in files:
        try:
            with safe_open(str(path), framework="pt") as f:
                for key in f.keys():
                    shapes[key] = tuple(f.get_slice(key).get_shape())
        except Exception as err:  # safetensors raises several types for a damaged file
            raise ModelUnavailable(
                f"{path.name} cannot be read (truncated or damaged? {err})"
            ) from None
    return shapes


def check_blob(path: Path) -> None:
    """A Hugging Face cache names each large file's blob by its sha256: compare."""
    target = path.resolve()
    name = target.name
    if path.is_symlink() and len(name) == 64 and all(ch in "0123456789abcdef" for ch in name):
        actual = sha256_of(target)
        if actual != name:
            raise ModelUnavailable(
                f"{path.name} does not match the checksum the Hugging Face cache records for it "
                f"(sha256 {actual[:12]}…, expected {name[:12]}…): a damaged download"
            )


@dataclass(frozen=True)
class Checkpoint:
    """What a folder holds, read without loading a weight: enough to list it and to refuse it."""

    folder: Path
    config: dict[str, Any]
    family: Family
    model_config: TransformerConfig | DecoderOnlyConfig
    weights: list[Path]
    mapping: dict[str, str]
    parameters: int


def inspect(folder: Path) -> Checkpoint:
    """Everything about a folder's model that can be checked before loading it."""
    config = read_config(folder)
    family = family_of(config)
    weights = weight_files(folder)
    try:
        model_config = family.config(config)
    except (TypeError, ValueError) as err:
        raise ModelUnavailable(
            f"config.json does not describe a model our blocks can hold ({err})"
        ) from None
    missing = [name for name in family.tokenizer_files if not (folder / name).is_file()]
    if missing:
        raise ModelUnavailable(
            f"no {' or '.join(missing)} beside the weights: its tokenizer cannot be read"
        )
    shapes = tensor_shapes(weights)
    mapping = family.names(config, set(shapes))
    unused = sorted(
        k
        for k in set(shapes) - set(mapping)
        if not k.startswith(IGNORED_PREFIXES) and not k.endswith(IGNORED_SUFFIXES)
    )
    missing = sorted(set(mapping) - set(shapes))
    if unused or missing:
        raise ModelUnavailable(
            f"the weights do not fit our {family.title} blocks: unused {unused[:3]}, "
            f"missing {missing[:3]}"
        )
    parameters = sum(_numel(shapes[k]) for k in mapping)
    return Checkpoint(folder, config, family, model_config, weights, mapping, parameters)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for size in shape:
        n *= size
    return n
