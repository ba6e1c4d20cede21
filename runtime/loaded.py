"""A loaded model, the shape every model the app offers takes once it is ready to run.

Both the registry (which names the models) and the loaders (pretrained.py) build one, so it lives
apart from both and neither imports the other's module to get it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

import torch

from model.tokenization import Tokenized
from model.transformer import EncoderDecoder

from .reference import Reference


class ModelUnavailable(RuntimeError):
    """This model cannot be loaded here; the message says why and what to do."""


class ModelTokenizer(Protocol):
    """What the app asks of a model's tokenizer (the translator's BPE or MiniLM's WordPiece, both
    marking a word's inner pieces with "##")."""

    def encode(self, text: str, max_tokens: int) -> Tokenized: ...
    def offsets(self, text: str, max_tokens: int) -> tuple[tuple[int, int], ...]: ...
    def tokens(self, ids: Iterable[int]) -> list[str]: ...
    def decode(self, ids: Iterable[int]) -> str: ...


@dataclass(frozen=True)
class LoadedModel:
    """A model ready to run, in eval mode, shared read-only by every caller."""

    name: str
    label: str
    model: EncoderDecoder
    tokenizer: ModelTokenizer
    device: torch.device
    max_source_tokens: int
    special_tokens: frozenset[str] = frozenset()
    info: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # what the model's corpus knows about a typed text (reference translation, gold links)
    reference: Callable[[str], Reference | None] | None = None
    # what a reader must know to read this model's output (shown beside it)
    output_note: str | None = None
    # n English sentences of the model's own corpus held out from its training (the head atlas's
    # built-in corpus); None where the model has no corpus of its own
    held_out: Callable[[int], Sequence[str]] | None = None
    # every sentence the model learned from begins with a capital letter: a typed text's first
    # letter is read as one (`read_as`), and the Trace says so
    capitalised: bool = False
    # the typed words the model's corpus never writes (words it never saw in training)
    unseen_words: Callable[[str], tuple[str, ...]] | None = None


@dataclass(frozen=True)
class HeldOutBest:
    """The cross-attention head with the lowest alignment error rate over the model's held-out
    evaluation (its sidecar's figures): 0-based layer and head, its AER, over how many sentences."""

    layer: int
    head: int
    aer: float
    sentences: int


def held_out_best_head(loaded: LoadedModel) -> HeldOutBest | None:
    """The sidecar's best-AER cross-attention head; None for a model evaluated without one."""
    table = (loaded.info.get("metrics") or {}).get("alignment_error_rate", {})
    best = table.get("best")
    if not best:
        return None
    return HeldOutBest(
        int(best["layer"]) - 1,
        int(best["head"]) - 1,
        float(best["value"]),
        int(table.get("sentences", 0)),
    )


def read_as(loaded: LoadedModel, text: str) -> str:
    """`text` as `loaded` reads it: with its first letter upper-cased where the model learned
    only sentences that begin with a capital. The translator wrote "Charlotte saß auf der
    Matte." for "the cat sat on the mat." and "Die Katze saß auf der Matte." for "The cat …"."""
    if not loaded.capitalised:
        return text
    start = len(text) - len(text.lstrip())
    return text[:start] + text[start : start + 1].upper() + text[start + 1 :]


def prepare(model: EncoderDecoder, device: torch.device) -> EncoderDecoder:
    """The model on `device`, in eval mode, its parameters frozen: ready to be shared."""
    model = model.to(device).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model
