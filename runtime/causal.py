"""A decoder-only language model's run: the text continued (or, as a question, answered through
the model's chat template) token by token, then one captured forward over everything it read and
wrote, as a `Trace` whose one attention kind is the decoder's masked self-attention.

Row t of that attention reads token t and scores the token after it (`steps[t]`): for the
prompt's rows the token that came next in the text, for the rest the token the model wrote.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

import torch

from model.decoder_only import KIND, CausalLM
from model.transformer import DEFAULT_SETTINGS, RunSettings

from .trace import (
    LONGEST_ANSWER,
    MAX_NEW_TOKENS,
    TOP_ALTERNATIVES,
    DecodingStep,
    InputError,
    Trace,
    _frozen,
    _stack,
    _weights,
)

if TYPE_CHECKING:
    from .loaded import LoadedModel


def new_token_limit(environ: Mapping[str, str] = os.environ) -> int:
    """The most tokens a page's run may write: ATLAS_MAX_NEW_TOKENS (1 to LONGEST_ANSWER) where
    a deployment sets it (a class on a slow machine waits less for each prompt; docs/deploy.md),
    else LONGEST_ANSWER. Anything else in the variable is refused with the reason."""
    raw = environ.get("ATLAS_MAX_NEW_TOKENS", "").strip()
    if not raw:
        return LONGEST_ANSWER
    if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= LONGEST_ANSWER:
        raise ValueError(
            f"ATLAS_MAX_NEW_TOKENS must be a whole number from 1 to {LONGEST_ANSWER}, got {raw!r}"
        )
    return int(raw)


# The lengths a page offers (those under the deployment's limit, and the limit itself).
ANSWER_CHOICES = (8, 16, 32, 64, LONGEST_ANSWER)


def answer_choices(limit: int) -> list[int]:
    """The "Longest answer" choices under a deployment's `limit` (new_token_limit)."""
    return [n for n in ANSWER_CHOICES if n < limit] + [limit]


def default_answer(limit: int) -> int:
    """What a page writes unless the reader asks for more: MAX_NEW_TOKENS, or the limit."""
    return min(MAX_NEW_TOKENS, limit)


def answer_cost(trace: Trace, longest: int) -> str | None:
    """What the length costs, from this run's own timing: the answer's tokens and seconds, and
    about how long `longest` tokens would take. None for a run that wrote nothing."""
    written = len(trace.output_ids)
    seconds = trace.timings_ms.get("generate", 0.0) / 1e3
    if not written or seconds <= 0:
        return None
    each = seconds / written
    said = f"This answer: {written} tokens in {seconds:.1f} s ({each * 1e3:.0f} ms a token here)"
    if written < longest:
        return said + f"; {longest} would take about {each * longest:.1f} s."
    return said + "."


def is_question(text: str) -> bool:
    """A text that ends with a question mark is asked, not continued."""
    return text.rstrip().endswith("?")


def run_causal(
    loaded: LoadedModel,
    text: str,
    settings: RunSettings = DEFAULT_SETTINGS,
    max_new_tokens: int = MAX_NEW_TOKENS,
) -> Trace:
    """`text` continued (or answered) by up to `max_new_tokens` tokens, greedily; the prompt
    keeps room for them within the model's context."""
    model = loaded.model
    if not isinstance(model, CausalLM):
        raise TypeError(f"{loaded.name} is not a decoder-only model")
    tokenizer = loaded.tokenizer
    notices = []
    # a model without a chat template (a base model) continues every text
    question = is_question(text) and bool(getattr(tokenizer, "chat_template", ""))
    prompt_text = tokenizer.chat(text) if question else text  # type: ignore[attr-defined]
    # A long prompt keeps room for the page's usual answer; a longer answer asked for takes
    # what the window has left after the prompt.
    room = loaded.max_source_tokens - min(max_new_tokens, MAX_NEW_TOKENS)
    tokenized = tokenizer.encode(prompt_text, room, special_tokens=not question)  # type: ignore[call-arg]
    if not tokenized.ids:
        raise InputError("Nothing in this text is a token the model reads: type some words.")
    if tokenized.truncated_from is not None:
        notices.append(
            f"The prompt has {tokenized.truncated_from} tokens; this page reads at most {room}, "
            f"so only the first {room} are read (the rest of its {loaded.max_source_tokens}-"
            "token window is for the answer)."
        )
    prompt = list(tokenized.ids)
    # the template's system line leads a question's prompt (a figure may fold it, issue 66)
    system = tokenizer.system_turn(text) if question else ""  # type: ignore[attr-defined]
    system_length = min(len(tokenizer.ids(system)), len(prompt)) if system else 0  # type: ignore[attr-defined]
    if question:
        notices.insert(
            0,
            "Asked as a question (the text ends with “?”): the model reads it inside its chat "
            f"template, {'a system line, ' if system else ''}your question, then the start of "
            "its own turn. Without “?” it continues the text.",
        )
    budget = min(max_new_tokens, loaded.max_source_tokens - len(prompt))
    timings: dict[str, float] = {}
    started = time.perf_counter()
    generated = model.generate(prompt, budget, loaded.stop_ids, settings)
    timings["generate"] = (time.perf_counter() - started) * 1e3
    if len(generated) == budget and generated[-1] not in loaded.stop_ids:
        why = (
            "the most asked for"
            if budget == max_new_tokens
            else f"all that the page's window of {loaded.max_source_tokens} tokens holds "
            "after the prompt"
        )
        notices.append(
            f"The model wrote {budget} tokens, {why}, and would go on: the output stops there."
        )
    sequence = prompt + generated
    started = time.perf_counter()
    with torch.inference_mode():
        out = model(torch.tensor([sequence], device=loaded.device), settings)
        log_probs = out.logits[0].float().log_softmax(-1).cpu()
    timings["forward"] = (time.perf_counter() - started) * 1e3
    tokens = tuple(tokenizer.tokens(sequence))
    steps = []
    for t in range(len(sequence)):
        following = sequence[t + 1] if t + 1 < len(sequence) else int(log_probs[t].argmax())
        probs = log_probs[t].exp()
        top = probs.topk(TOP_ALTERNATIVES)
        steps.append(
            DecodingStep(
                tokens[t],
                tokenizer.tokens([following])[0],
                float(probs[following]),
                tuple(
                    (tokenizer.tokens([i])[0], p)
                    for p, i in zip(top.values.tolist(), top.indices.tolist())
                ),
            )
        )
    hidden = _frozen(torch.stack([h[0] for h in out.hidden_states]).float().cpu().numpy())
    timings["total"] = sum(timings.values())
    config = model.config
    return Trace(
        model=loaded.name,
        device=str(loaded.device),
        settings=settings,
        scale=settings.scale if settings.scale is not None else 1 / math.sqrt(config.d_k),
        d_k=config.d_k,
        source_tokens=tokens,
        target_tokens=tokens,
        output=tokenizer.decode(generated),
        attention=MappingProxyType({KIND: _weights(out.weights)}),
        queries=MappingProxyType({KIND: _stack(out.attention, "queries")}),
        keys=MappingProxyType({KIND: _stack(out.attention, "keys")}),
        encoder_hidden_states=hidden,
        steps=tuple(steps),
        decoding="greedy",
        notices=tuple(notices),
        timings_ms=MappingProxyType(timings),
        values=MappingProxyType({KIND: _stack(out.attention, "values")}),
        source_ids=tuple(prompt),
        output_ids=tuple(generated),
        prompt_length=len(prompt),
        system_length=system_length,
    )
