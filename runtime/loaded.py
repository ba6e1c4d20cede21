"""A loaded model, the shape every model the app offers takes once it is ready to run.

Both the registry (which names the models) and the loaders (pretrained.py) build one, so it lives
apart from both and neither imports the other's module to get it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

import torch

from model.decoder_only import CausalLM
from model.tokenization import BOS_ID, EOS_ID, PAD_ID, Tokenized
from model.transformer import EncoderDecoder, RunSettings

from .reference import Reference

M = TypeVar("M", EncoderDecoder, CausalLM)


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
    model: EncoderDecoder | CausalLM
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
    # every sentence the model learned from ends in . ! or ?: a typed text without one is read
    # with one (`read_as`), and the Trace says so
    punctuated: bool = False
    # the typed words the model's corpus never writes (words it never saw in training)
    unseen_words: Callable[[str], tuple[str, ...]] | None = None
    # a language model's tokens that end what it writes (end of turn, end of text)
    stop_ids: frozenset[int] = frozenset()
    # how a model that is not the paper's runs on a text (runtime/causal.py for a language
    # model: the text, the settings and the most tokens it may write), called by trace.run once
    # the text is checked; None: the paper's encode/decode
    runner: Callable[[LoadedModel, str, RunSettings, int], Any] | None = None
    # an encoder-decoder's decoder starts at bos_id and stops at eos_id; pad_id fills (and is
    # the gradients' baseline): the translator's <s>, </s> and <pad>, Marian's own
    bos_id: int = BOS_ID
    eos_id: int = EOS_ID
    pad_id: int = PAD_ID


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


def supervised_head(loaded: LoadedModel) -> tuple[int, int] | None:
    """The cross-attention head (0-based layer, head) that training pulled towards the gold word
    alignment (the recipe's `align_head`: alignment supervision, Garg et al., 2019), or None for
    a model whose heads all learned from translation alone."""
    recipe = (loaded.info.get("training") or {}).get("recipe") or {}
    head = recipe.get("align_head")
    return None if not head else (int(head[0]) - 1, int(head[1]) - 1)


def best_unsupervised_head(loaded: LoadedModel) -> HeldOutBest | None:
    """The lowest held-out AER among the cross-attention heads that were not supervised."""
    table = (loaded.info.get("metrics") or {}).get("alignment_error_rate", {})
    per_head = table.get("per_head")
    if not per_head:
        return None
    skip = supervised_head(loaded)
    layer, head = min(
        ((i, j) for i, row in enumerate(per_head) for j in range(len(row)) if (i, j) != skip),
        key=lambda ij: per_head[ij[0]][ij[1]],
    )
    return HeldOutBest(layer, head, float(per_head[layer][head]), int(table.get("sentences", 0)))


def supervised_head_note(loaded: LoadedModel) -> str | None:
    """Which cross-attention head was trained to align (and so is no evidence that attention
    learns alignment), beside the best of the heads that learned from translation alone."""
    supervised = supervised_head(loaded)
    best = held_out_best_head(loaded)
    if supervised is None:
        return None
    layer, head = supervised
    text = (
        f"Layer {layer + 1}, head {head + 1} was trained to align: during training its rows were "
        "pulled towards the grammar's gold word alignment (alignment supervision, Garg et al., "
        "2019)"
    )
    if best is not None and (best.layer, best.head) == supervised:
        text += f", and scores AER {best.aer:.3f} over {best.sentences} held-out sentences"
    other = best_unsupervised_head(loaded)
    if other is not None:
        text += (
            f". The other heads learned what they do from translation alone; the best of them, "
            f"layer {other.layer + 1}, head {other.head + 1}, scores AER {other.aer:.3f}"
        )
    return text + "."


# The words that open an English question the corpus writes (yes/no and wh- questions): a typed
# question without its mark is read with "?", anything else with ".".
QUESTION_OPENERS = frozenset(
    """what where who whom whose when why how which do does did don't doesn't didn't is are
    was were am isn't aren't wasn't weren't can could will would shall should may might must
    can't won't have has had""".split()
)
SENTENCE_ENDS = (".", "!", "?")


def capitalised_as(loaded: LoadedModel, text: str) -> str:
    """`text` with its first letter upper-cased where the model learned only sentences that
    begin with a capital. The translator wrote "Charlotte saß auf der Matte." for "the cat sat
    on the mat." and "Die Katze saß auf der Matte." for "The cat …"."""
    if not loaded.capitalised:
        return text
    start = len(text) - len(text.lstrip())
    return text[:start] + text[start : start + 1].upper() + text[start + 1 :]


def read_as(loaded: LoadedModel, text: str) -> str:
    """`text` as `loaded` reads it: capitalised (`capitalised_as`), and ended with "." (or "?"
    after a question's first word) where the model learned only sentences that end so. Without
    one the v2.1 translator ran on: "I like coffee" → "Ich mag Kaffee, weil ich Kaffee mag.",
    "Good morning" → "Guten Morgen Morgen Morgen Morgen."."""
    text = capitalised_as(loaded, text)
    body = text.rstrip()
    if not loaded.punctuated or not body or body.endswith(SENTENCE_ENDS):
        return text
    first = body.split()[0].lower().replace("\u2019", "'")
    return body + ("?" if first in QUESTION_OPENERS else ".")


def package_folder(package: str, missing: str) -> Path:
    """The folder of an installed package that ships a model's files, found without importing
    it (its own imports may pull in what the app does not need); `missing` is the message."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(missing)
    return Path(next(iter(spec.submodule_search_locations)))


def is_language_model(loaded: LoadedModel) -> bool:
    """A decoder-only model that writes on from a text (SmolLM2), not one of the paper's."""
    return isinstance(loaded.model, CausalLM)


def paper_model(loaded: LoadedModel) -> EncoderDecoder:
    """The loaded model as the paper's encoder(-decoder), for what only that network has (its
    input embedding, an encoder to differentiate through); a language model is refused."""
    if not isinstance(loaded.model, EncoderDecoder):
        raise ValueError(f"{loaded.label} is a decoder-only model: this view needs an encoder")
    return loaded.model


def prepare(model: M, device: torch.device) -> M:
    """The model on `device`, in eval mode, its parameters frozen: ready to be shared."""
    model = model.to(device).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model
