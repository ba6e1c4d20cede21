"""A shared server: many people at once on one shared model, each with their own settings.

Every concurrent call must give exactly (bit for bit) what the same call gives alone, and the
shared model's parameters must be bit-identical afterwards: nothing a caller chooses may be left
on the model or leak into another caller's run.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import torch

from model.transformer import RunSettings, TransformerConfig, make_model
from runtime import registry
from runtime.registry import LoadedModel
from runtime.trace import Trace, run

WORKERS = 8
CALLS = 24
TEXTS = [
    "the small dog sees the old man .",
    "the old man sees the small dog .",
    "a teacher reads the book .",
    "the dog sleeps .",
    "my sister sees the cat and the dog .",
    "the man does not see the woman .",
]


def settings_for(i: int, kinds: tuple[str, ...], n_layers: int, n_heads: int) -> RunSettings:
    """Call i's own scale, temperature and ablated heads (some calls share settings, most not)."""
    scales = [None, 0.05, 0.5, 1.0, 1 / (2.0 * 8)]
    ablate = set()
    if i % 3:
        kind = kinds[i % len(kinds)]
        ablate = {(kind, i % n_layers, h) for h in range(i % n_heads + 1)}
    return RunSettings(
        scale=scales[i % len(scales)], ablate=frozenset(ablate), use_positions=i % 4 != 3
    )


def tiny_translator() -> LoadedModel:
    """A small encoder-decoder (all three attention kinds) with the translator's vocabulary."""
    tokenizer = registry.translator_tokenizer()
    config = TransformerConfig(
        src_vocab=len(tokenizer), tgt_vocab=len(tokenizer), N=2, d_model=32, d_ff=64, h=4
    )
    return LoadedModel(
        name="tiny",
        label="tiny",
        model=registry.prepare(make_model(config, seed=1), torch.device("cpu")),
        tokenizer=tokenizer,
        device=torch.device("cpu"),
        max_source_tokens=32,
    )


def snapshot(loaded: LoadedModel) -> dict[str, torch.Tensor]:
    state = {k: v.detach().clone() for k, v in loaded.model.state_dict().items()}
    return state


def same_trace(a: Trace, b: Trace) -> bool:
    arrays = ("attention", "queries", "keys")
    return (
        a.source_tokens == b.source_tokens
        and a.target_tokens == b.target_tokens
        and a.output == b.output
        and a.settings == b.settings
        and a.scale == b.scale
        and all(
            a_map.keys() == b_map.keys() and all(np.array_equal(a_map[k], b_map[k]) for k in a_map)
            for a_map, b_map in ((getattr(a, n), getattr(b, n)) for n in arrays)
        )
        and np.array_equal(a.encoder_hidden_states, b.encoder_hidden_states)
        and [s.token for s in a.steps] == [s.token for s in b.steps]
        and [s.probability for s in a.steps] == [s.probability for s in b.steps]
    )


MODELS = {
    "minilm-l6": lambda: registry.load("minilm-l6", torch.device("cpu")),
    "tiny encoder-decoder": tiny_translator,
}
if (registry.WEIGHTS_DIR / "en-de.safetensors").exists():
    MODELS["en-de"] = lambda: registry.load("en-de", torch.device("cpu"))


@pytest.mark.parametrize("name", list(MODELS))
def test_concurrent_calls_equal_single_calls_and_leave_the_model_unchanged(name):
    loaded = MODELS[name]()
    config = loaded.model.config
    kinds = (
        ("encoder_self", "decoder_self", "cross")
        if config.is_encoder_decoder
        else ("encoder_self",)
    )
    before = snapshot(loaded)
    calls = [
        (TEXTS[i % len(TEXTS)], settings_for(i, kinds, config.N, config.h)) for i in range(CALLS)
    ]
    alone = [run(loaded, text, s) for text, s in calls]
    # The settings really change the result, so a leak between calls could not go unnoticed.
    distinct = {(c[0], c[1]) for c in calls}
    assert len(distinct) == CALLS
    for (ta, sa), (tb, sb), a, b in zip(calls, calls[1:], alone, alone[1:]):
        if ta == tb and sa != sb:
            assert not same_trace(a, b)

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        # Every call twice, shuffled across workers, so calls with different settings overlap.
        order = list(itertools.chain(range(CALLS), reversed(range(CALLS))))
        together = list(pool.map(lambda i: (i, run(loaded, *calls[i])), order))
    for i, trace in together:
        assert same_trace(trace, alone[i]), f"call {i} differs when run alongside others"
    after = loaded.model.state_dict()
    assert before.keys() == after.keys()
    for key, value in before.items():
        assert torch.equal(value, after[key]), f"{key} changed"
    assert not loaded.model.training
    assert all(not p.requires_grad for p in loaded.model.parameters())
