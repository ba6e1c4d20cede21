"""Run a model on a text and record everything the views need in an immutable `Trace`.

A Trace depends only on (model, text, settings, decoding), so it can be cached and every view
re-drawn from it without running the model again.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from model.decoding import beam_search, greedy_decode
from model.transformer import DEFAULT_SETTINGS, AttentionRecord, RunSettings, subsequent_mask

from .loaded import capitalised_as, paper_model, read_as

if TYPE_CHECKING:
    from .loaded import LoadedModel

DECODING_METHODS = ("greedy", "beam")
TEACHER_FORCED = "reference"  # a Trace's `decoding` where the decoder read a given translation
MAX_OUTPUT_TOKENS = 64  # bounds the decoder's work for one request on a shared server
TOP_ALTERNATIVES = 5
# The tokens a language model writes on a page unless the reader asks for more (runtime/causal.py):
# about 2 s on 2 cores.
MAX_NEW_TOKENS = 32
# The most a page may ask for (the sidebar's "Longest answer"): bounds one request's work on a
# shared server; ATLAS_MAX_NEW_TOKENS lowers it (causal.new_token_limit). A model's window
# (SmolLM2's page reads 128 tokens) may stop an answer sooner.
LONGEST_ANSWER = 96


class InputError(ValueError):
    """Input the model cannot run on; the message tells the user what to do."""


@dataclass(frozen=True)
class DecodingStep:
    """What the decoder did at one position: read `query_token`, produced `token`."""

    query_token: str
    token: str
    probability: float
    alternatives: tuple[tuple[str, float], ...]  # the most probable tokens, best first


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _stack(records: list[AttentionRecord], field_name: str) -> np.ndarray:
    """Per-layer [1, h, n, m] tensors -> one read-only [layer, h, n, m] float32 array."""
    tensors = [getattr(record, field_name)[0] for record in records]
    return _frozen(torch.stack(tensors).float().cpu().numpy())


def _weights(stack: Tensor | None) -> np.ndarray:
    """The model's [layer, 1, h, n, m] weight stack as a read-only [layer, h, n, m] array: a view
    of what the softmax wrote (no copy on the CPU)."""
    if stack is None:  # the stack is kept only without autograd, as run() calls the model
        raise RuntimeError("the model kept no attention weights: run it under inference mode")
    return _frozen(stack[:, 0].float().cpu().numpy())


@dataclass(frozen=True)
class Trace:
    """One run: tokens, output, and for each attention kind a [layer, head, query, key] array.

    `target_tokens` are the decoder's inputs: the start symbol, then the generated tokens. Row t of
    decoder attention reads target_tokens[t] and produces steps[t].token.
    """

    model: str
    device: str
    settings: RunSettings
    scale: float  # the scale the attention logits were multiplied by
    d_k: int
    source_tokens: tuple[str, ...]
    target_tokens: tuple[str, ...]
    output: str
    attention: MappingProxyType[str, np.ndarray]  # kind -> [layer, head, query, key]
    queries: MappingProxyType[str, np.ndarray]  # kind -> [layer, head, query, d_k]
    keys: MappingProxyType[str, np.ndarray]  # kind -> [layer, head, key, d_k]
    encoder_hidden_states: np.ndarray  # [N + 1, source, d_model]: input embedding, then each layer
    steps: tuple[DecodingStep, ...] = ()
    decoding: str | None = None
    unknown_words: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()  # for the reader: a cut text, unknown words
    vocabulary_notice: str | None = None  # the notice about unknown words, also in `notices`
    timings_ms: MappingProxyType[str, float] = field(default_factory=lambda: MappingProxyType({}))
    # kind -> [layer, head, key, d_k], like keys
    values: MappingProxyType[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))
    # the ids the model read and wrote (what gradient attributions differentiate through)
    source_ids: tuple[int, ...] = ()
    output_ids: tuple[int, ...] = ()
    # a decoder-only model's run (runtime/causal.py): the prompt's tokens lead `target_tokens`,
    # and the rows from prompt_length - 1 on wrote the output; 0 for the paper's models
    prompt_length: int = 0
    # a question's chat template: the system turn's tokens at the prompt's start (a figure may
    # fold them into one column); 0 where there is none
    system_length: int = 0

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.attention)

    @property
    def nbytes(self) -> int:
        """Bytes of its arrays (weights, queries, keys, values, hidden states): what a cache of
        Traces holds (a 512-token MiniLM Trace: about 86 MiB)."""
        arrays = [self.encoder_hidden_states]
        for mapping in (self.attention, self.queries, self.keys, self.values):
            arrays += list(mapping.values())
        return sum(array.nbytes for array in arrays)

    @property
    def n_layers(self) -> int:
        return int(next(iter(self.attention.values())).shape[0])

    @property
    def n_heads(self) -> int:
        return int(next(iter(self.attention.values())).shape[1])

    def axis_tokens(self, kind: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(query tokens, key tokens) of an attention kind."""
        if kind == "encoder_self":
            return self.source_tokens, self.source_tokens
        if kind == "decoder_self":
            return self.target_tokens, self.target_tokens
        return self.target_tokens, self.source_tokens

    def to_json_dict(self) -> dict[str, Any]:
        """The command line's stable JSON format."""
        return {
            "model": self.model,
            "device": self.device,
            "scale": self.scale,
            "source_tokens": list(self.source_tokens),
            "target_tokens": list(self.target_tokens),
            "output": self.output,
            "attention": {kind: weights.tolist() for kind, weights in self.attention.items()},
        }


def tokenizable(text: str) -> str:
    """`text` without NUL characters and with lone surrogates replaced: they are not Unicode
    text (no browser sends them) and they stop the Rust tokenizer."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text.replace("\x00", ""))


def run(
    loaded: LoadedModel,
    text: str,
    settings: RunSettings = DEFAULT_SETTINGS,
    decoding: str = "greedy",
    beam_size: int = 4,
    target: Sequence[int] | None = None,
    encoder_only: bool = False,
    max_new_tokens: int = MAX_NEW_TOKENS,
) -> Trace:
    """Tokenize `text`, run the model with `settings`, decode if it has a decoder; a fresh Trace.
    With `target` (token ids, without <s> and </s>) a decoder reads that translation instead of
    its own (teacher forcing, Section 5.4's training set-up): the decoder's rows are then those
    of a reference, and each step's probability is the one the model gives the reference token.
    `encoder_only` stops an encoder-decoder after its encoder (no translation, one attention
    kind): for a view of the encoder alone, without the decoding that takes most of a run.
    `max_new_tokens` bounds what a language model writes (runtime.causal.new_token_limit); a
    translation's length is bounded by the paper's rule instead."""
    if decoding not in DECODING_METHODS:
        raise InputError(f"decoding must be one of {', '.join(DECODING_METHODS)}")
    if not isinstance(text, str) or not text.replace("\x00", "").strip():
        raise InputError("Type a sentence first: the text is empty.")
    typed = tokenizable(text)
    text = read_as(loaded, typed)
    if loaded.runner is not None:  # a language model's own run (runtime/causal.py)
        own: Trace = loaded.runner(loaded, text, settings, max_new_tokens)
        return own
    model, device = paper_model(loaded), loaded.device
    tokenized = loaded.tokenizer.encode(text, loaded.max_source_tokens)
    if not tokenized.ids:
        raise InputError("Nothing in this text is a token the model reads: type some words.")
    notices = []
    capitalised = capitalised_as(loaded, typed)
    if capitalised != typed:
        notices.append(
            f"“{typed.split()[0]}” is read as “{capitalised.split()[0]}”: every sentence this "
            "model learned from begins with a capital letter."
        )
    if text.rstrip() != capitalised.rstrip():
        notices.append(
            f"The text is read with “{text.rstrip()[-1]}” at its end: every sentence this model "
            "learned from ends with one, and without it the translation runs on."
        )
    letters = [ch for ch in text if ch.isalpha()]
    if loaded.capitalised and len(letters) > 1 and all(ch.isupper() for ch in letters):
        notices.append(
            "The text is in capitals throughout: every sentence this model learned from is "
            "written in ordinary case, so it reads these as words it never saw. Type the "
            "sentence as it would be written (“The dog sleeps.”)."
        )
    vocabulary_notice = None
    if tokenized.truncated_from is not None:
        notices.append(
            f"The text has {tokenized.truncated_from} tokens; this model reads at most "
            f"{loaded.max_source_tokens}, so only the first {loaded.max_source_tokens} are shown."
        )
    if tokenized.unknown:
        vocabulary_notice = (
            "Not in the model's vocabulary (read as <unk>), so the output is built without "
            "them: " + ", ".join(tokenized.unknown)
        )
        notices.append(vocabulary_notice)
    timings: dict[str, float] = {}
    config = model.config
    src = torch.tensor([tokenized.ids], device=device)
    src_mask = None  # one sentence, no padding: every key is real, and no mask is cheaper
    started = time.perf_counter()
    with torch.inference_mode():
        encoded = model.encode(src, src_mask, settings)
        timings["encode"] = (time.perf_counter() - started) * 1e3
        attention = {"encoder_self": _weights(encoded.weights)}
        queries = {"encoder_self": _stack(encoded.attention, "queries")}
        keys = {"encoder_self": _stack(encoded.attention, "keys")}
        values = {"encoder_self": _stack(encoded.attention, "values")}
        hidden = _frozen(torch.stack([h[0] for h in encoded.hidden_states]).float().cpu().numpy())
        target_tokens: tuple[str, ...] = ()
        output = ""
        steps: tuple[DecodingStep, ...] = ()
        generated: list[int] = []
        if config.is_encoder_decoder and model.generator is not None and not encoder_only:
            started = time.perf_counter()
            decode = greedy_decode if decoding == "greedy" else beam_search
            extra = {"beam_size": beam_size} if decoding == "beam" else {}
            max_len = min(2 * len(tokenized.ids) + 10, MAX_OUTPUT_TOKENS, config.max_len - 1)
            if target is not None:
                generated = [*target[: config.max_len - 2], loaded.eos_id]
            else:
                generated = decode(
                    model,
                    encoded.memory,
                    src_mask,
                    settings,
                    max_len,
                    loaded.bos_id,
                    loaded.eos_id,
                    **extra,
                )
            timings["decode"] = (time.perf_counter() - started) * 1e3
            # One teacher-forced pass over the result: under the causal mask row t sees exactly
            # what the decoder saw when it produced token t.
            decoder_input = torch.tensor([[loaded.bos_id] + generated[:-1]], device=device)
            decoded = model.decode(
                encoded.memory,
                src_mask,
                decoder_input,
                subsequent_mask(decoder_input.size(1), device),
                settings,
            )
            for kind, records, weights in (
                ("decoder_self", decoded.self_attention, decoded.self_weights),
                ("cross", decoded.cross_attention, decoded.cross_weights),
            ):
                attention[kind] = _weights(weights)
                queries[kind] = _stack(records, "queries")
                keys[kind] = _stack(records, "keys")
                values[kind] = _stack(records, "values")
            log_probs = model.generator(decoded.output[0]).float().cpu()
            target_tokens = tuple(loaded.tokenizer.tokens(decoder_input[0].tolist()))
            produced = loaded.tokenizer.tokens(generated)
            steps = tuple(
                _step(loaded, target_tokens[t], produced[t], generated[t], log_probs[t])
                for t in range(len(generated))
            )
            output = loaded.tokenizer.decode(generated)
    timings["total"] = sum(timings.values())
    return Trace(
        model=loaded.name,
        device=str(device),
        settings=settings,
        scale=settings.scale if settings.scale is not None else 1 / math.sqrt(config.d_k),
        d_k=config.d_k,
        source_tokens=tokenized.tokens,
        target_tokens=target_tokens,
        output=output,
        attention=MappingProxyType(attention),
        queries=MappingProxyType(queries),
        keys=MappingProxyType(keys),
        encoder_hidden_states=hidden,
        steps=steps,
        decoding=(TEACHER_FORCED if target is not None else decoding)
        if config.is_encoder_decoder and not encoder_only
        else None,
        unknown_words=tokenized.unknown,
        notices=tuple(notices),
        vocabulary_notice=vocabulary_notice,
        timings_ms=MappingProxyType(timings),
        values=MappingProxyType(values),
        source_ids=tuple(tokenized.ids),
        output_ids=tuple(generated),
    )


def _step(
    loaded: LoadedModel, query_token: str, token: str, token_id: int, log_probs: Tensor
) -> DecodingStep:
    probs = log_probs.exp()
    top = probs.topk(TOP_ALTERNATIVES)
    alternatives = tuple(
        (loaded.tokenizer.tokens([i])[0], p)
        for p, i in zip(top.values.tolist(), top.indices.tolist())
    )
    return DecodingStep(query_token, token, float(probs[token_id]), alternatives)
