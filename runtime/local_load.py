"""Loading a model found on this machine (runtime/local.py) into our blocks: a Hugging Face folder
(runtime/families.py says what it holds) or a GGUF file (runtime/gguf_file.py), each with its own
tokenizer, after a check that the memory it needs is free. Nothing is downloaded or written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import torch
from safetensors.torch import load_file

from model.decoder_only import CausalLM, DecoderOnlyConfig
from model.transformer import EncoderDecoder, TransformerConfig

from .causal import run_causal
from .families import Checkpoint, check_blob, inspect, position_offset
from .gguf_file import GGUFModel
from .loaded import LoadedModel, ModelUnavailable, prepare
from .marian import MarianTokenizer
from .pretrained import WordPieceTokenizer
from .smollm2 import ByteLevelTokenizer

# Told how far a load has come (0 to 1) and what it is doing: the page's progress bar.
Progress = Callable[[float, str], None]


def silent(fraction: float, what: str) -> None:
    """No progress bar (the command line, the tests)."""


# What a language model of ours reads in one page run (as SmolLM2's MAX_TOKENS).
CAUSAL_MAX_TOKENS = 128
ENCODER_MAX_TOKENS = 512


def memory_needed(parameters: int) -> int:
    """Bytes the loaded model takes: float32 weights, read once more while they are copied."""
    return parameters * 4 * 2


def memory_free() -> int | None:
    """Bytes the kernel says it can give (MemAvailable), None where it does not say."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def check_memory(parameters: int, free: int | None = None) -> None:
    free = memory_free() if free is None else free
    needed = memory_needed(parameters)
    if free is not None and needed > free:
        raise ModelUnavailable(
            f"it needs {needed / 2**30:.1f} GiB to load ({parameters / 1e6:,.0f}M parameters as "
            f"float32, read once more while copied), and {free / 2**30:.1f} GiB are free"
        )


def build(checkpoint: Checkpoint, progress: Progress = silent) -> EncoderDecoder | CausalLM:
    """Our blocks holding the checkpoint's weights (on the CPU)."""
    files = len(checkpoint.weights)
    for i, path in enumerate(checkpoint.weights):
        progress(0.4 * i / files, f"checking {path.name}'s checksum")
        check_blob(path)
    tensors: dict[str, torch.Tensor] = {}
    for i, path in enumerate(checkpoint.weights):
        progress(0.4 + 0.5 * i / files, f"reading {path.name} ({i + 1} of {files})")
        try:
            tensors.update(load_file(str(path)))  # safetensors: no pickle, no code
        except Exception as err:
            raise ModelUnavailable(f"{path.name} cannot be read ({err})") from None
    progress(0.9, "putting the weights into our blocks")
    state = {ours: tensors[theirs].float() for theirs, ours in checkpoint.mapping.items()}
    if checkpoint.family.convert is not None:
        state = checkpoint.family.convert(state)
    config = checkpoint.model_config
    if isinstance(config, TransformerConfig) and config.positions == "learned":
        offset = position_offset(checkpoint.config)
        key = "src_embed.positions.table.weight"
        state[key] = state[key][offset:]
        with torch.device("meta"):
            model: EncoderDecoder | CausalLM = EncoderDecoder(config)
    elif isinstance(config, TransformerConfig):  # the sinusoids are a buffer the model computes
        model = EncoderDecoder(config)
    else:
        with torch.device("meta"):
            model = CausalLM(config)
    ours = model.state_dict()
    if set(ours) != set(state):
        raise ModelUnavailable(
            f"parameters not filled: {sorted(set(ours) - set(state))[:3]}; "
            f"unknown: {sorted(set(state) - set(ours))[:3]}"
        )
    for name, tensor in state.items():
        if ours[name].shape != tensor.shape:
            raise ModelUnavailable(
                f"{name}: the checkpoint has shape {tuple(tensor.shape)}, "
                f"our blocks {tuple(ours[name].shape)}"
            )
    model.load_state_dict(state, strict=True, assign=True)
    return model


def chat_template(folder: Path) -> tuple[str, dict[str, str]]:
    """The model's chat template (chat_template.jinja or tokenizer_config.json; "" for none) and
    the tokens a template names (bos_token, eos_token)."""
    settings = _json_or_empty(folder / "tokenizer_config.json")
    tokens = {
        key: value if isinstance(value, str) else value.get("content", "")
        for key in ("bos_token", "eos_token")
        if isinstance(value := settings.get(key), str | dict)
    }
    jinja = folder / "chat_template.jinja"
    if jinja.is_file():
        return jinja.read_text(encoding="utf-8"), tokens
    template = settings.get("chat_template")
    return (template if isinstance(template, str) else ""), tokens


def stop_ids(folder: Path, config: Mapping[str, Any]) -> frozenset[int]:
    """The tokens that end what the model writes: eos_token_id of its configs."""
    ids: set[int] = set()
    for source in (config, _json_or_empty(folder / "generation_config.json")):
        eos = source.get("eos_token_id")
        ids.update([eos] if isinstance(eos, int) else [i for i in eos or [] if isinstance(i, int)])
    return frozenset(ids)


def _json_or_empty(path: Path) -> dict[str, Any]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def load_folder(
    folder: Path,
    name: str,
    title: str,
    source: str,
    device: torch.device,
    progress: Progress = silent,
) -> LoadedModel:
    """The model in `folder` in our blocks, with its own tokenizer; `title` names it on the page,
    `source` says where it was found, `progress` hears how far the load has come."""
    checkpoint = inspect(folder)
    check_memory(checkpoint.parameters)
    try:
        tokenizer_json = (folder / "tokenizer.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        tokenizer_json = ""  # Marian's tokenizer is other files (inspect checked them)
    except (OSError, UnicodeDecodeError) as err:
        raise ModelUnavailable(f"tokenizer.json cannot be read ({err})") from None
    model = build(checkpoint, progress)
    config = checkpoint.model_config
    family = checkpoint.family
    about = _about(title, family.title, config, checkpoint.parameters, family.kind)
    info = {"description": about, "source": source, "tokenizer": "its own tokenizer.json"}
    label = f"{title} ({family.title}, {_size(config)})"
    if family.kind == "encoder-decoder":  # Marian: its SentencePiece files, its own start token
        c = checkpoint.config
        marian = MarianTokenizer(folder, config.max_len)
        info["tokenizer"] = "its own SentencePiece models (source.spm, target.spm) and vocab.json"
        loaded = _loaded(name, label, model, marian, info, frozenset(), device)
        start = c.get("decoder_start_token_id", c["pad_token_id"])
        return replace(loaded, bos_id=start, eos_id=c["eos_token_id"], pad_id=c["pad_token_id"])
    try:
        if isinstance(model, CausalLM):
            tokenizer: Any = ByteLevelTokenizer(tokenizer_json, *chat_template(folder))
        else:
            tokenizer = WordPieceTokenizer(folder / "tokenizer.json", config.max_len)
    except Exception as err:  # `tokenizers` raises its own Exception type for a bad file
        raise ModelUnavailable(f"tokenizer.json does not load ({err})") from None
    stops = stop_ids(folder, checkpoint.config)
    return _loaded(name, label, model, tokenizer, info, stops, device)


def load_gguf(
    path: Path,
    name: str,
    title: str,
    source: str,
    device: torch.device,
    progress: Progress = silent,
) -> LoadedModel:
    """A Llama-family GGUF file in our decoder-only blocks, dequantized to float32
    (runtime/gguf_file.py), with the tokenizer and chat template the file holds."""
    progress(0.0, f"checking {path.name}'s checksum")
    check_blob(path)
    file = GGUFModel(path)
    config = file.check()
    check_memory(file.parameters())
    with torch.device("meta"):
        model = CausalLM(config)
    state = file.state(config, lambda done, total: progress(
        min(1.0, 0.1 + 0.9 * done / total), f"dequantizing tensor {done} of {total}"
    ))  # fmt: skip
    model.load_state_dict(state, strict=True, assign=True)
    tokens = list(file.field("tokenizer.ggml.tokens"))
    named = {
        f"{key}_token": tokens[int(file.field(f"tokenizer.ggml.{key}_token_id"))]
        for key in ("bos", "eos")
        if file.field(f"tokenizer.ggml.{key}_token_id", None) is not None
    }
    template = str(file.field("tokenizer.chat_template", ""))
    tokenizer = ByteLevelTokenizer(file.tokenizer().to_str(), template, named)
    eos = file.field("tokenizer.ggml.eos_token_id", None)
    stops = frozenset([int(eos)] if eos is not None else [])
    architecture = {"llama": "Llama", "qwen2": "Qwen2"}[file.architecture]
    about = _about(title, f"{architecture} (GGUF)", config, file.parameters(), "decoder")
    info = {"description": about, "source": source, "tokenizer": "rebuilt from the GGUF file"}
    return _loaded(
        name, f"{title} ({architecture}, {_size(config)})", model, tokenizer, info, stops, device
    )


def _size(config: TransformerConfig | DecoderOnlyConfig) -> str:
    return f"{config.N} layers × {config.h} heads"


def _about(
    title: str,
    family: str,
    config: TransformerConfig | DecoderOnlyConfig,
    parameters: int,
    kind: str,
) -> str:
    return (
        f"{title}: a {family} model found on this machine ({_size(config)}, d_model "
        f"{config.d_model}, {parameters / 1e6:,.1f}M parameters), run in this project's own "
        f"{kind} blocks."
    )


def _loaded(
    name: str,
    label: str,
    model: EncoderDecoder | CausalLM,
    tokenizer: Any,
    info: dict[str, str],
    stops: frozenset[int],
    device: torch.device,
) -> LoadedModel:
    device = torch.device(device)
    if isinstance(model, CausalLM):
        return LoadedModel(
            name=name,
            label=label,
            model=prepare(model, device),
            tokenizer=tokenizer,
            device=device,
            info=MappingProxyType(info),
            max_source_tokens=min(CAUSAL_MAX_TOKENS, model.config.max_len),
            special_tokens=frozenset(tokenizer.special),
            stop_ids=stops,
            runner=run_causal,
        )
    return LoadedModel(
        name=name,
        label=label,
        model=prepare(model, device),
        tokenizer=tokenizer,
        device=device,
        info=MappingProxyType(info),
        max_source_tokens=min(ENCODER_MAX_TOKENS, model.config.max_len),
        special_tokens=frozenset(tokenizer.special),
    )
