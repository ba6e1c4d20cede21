"""ui.trace_cache: the server's shared Traces stay under a bound in bytes, whatever is typed,
evicting the least recently used; and Trace.nbytes is what its arrays hold."""

import numpy as np
import pytest

from runtime.trace import run
from ui.trace_cache import TraceCache

WORDS = "the small dog sees the old man and the young woman reads a book".split()


def _text(n_words: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    return " ".join(rng.choice(WORDS, size=n_words)) + " ."


def test_trace_nbytes_is_the_size_of_its_arrays_by_their_shapes(minilm):
    """MiniLM-L6 (N = 6, h = 12, d_k = 32, d_model = 384), float32: for n tokens, the weights
    6·12·n·n, queries, keys and values 3·6·12·n·32, hidden states (N + 1)·n·384, 4 bytes each."""
    trace = run(minilm, _text(30, 0))
    n = len(trace.source_tokens)
    expected = 4 * (6 * 12 * n * n + 3 * 6 * 12 * n * 32 + 7 * n * 384)
    assert trace.nbytes == expected


def test_a_stream_of_distinct_long_texts_stays_under_the_bound(minilm):
    """Twelve distinct 200-word texts through a cache bounded at three of them: after every
    one, the cache holds at most the bound, and the newest Trace is the one kept last."""
    one = run(minilm, _text(200, 100)).nbytes
    cache = TraceCache(max_bytes=3 * one)
    peak = 0
    for seed in range(12):
        text = _text(200, seed)
        trace = cache.get(("minilm-l6", text), lambda text=text: run(minilm, text))
        peak = max(peak, cache.nbytes)
        assert cache.get(("minilm-l6", text), pytest.fail) is trace  # kept, not made again
    assert peak <= cache.max_bytes
    assert 2 <= len(cache) <= 3


def test_least_recently_used_goes_first(untrained):
    texts = [_text(8, seed) for seed in range(3)]
    traces = [run(untrained, t) for t in texts]
    # room for "a" and either other one (the untrained model's outputs differ in length)
    cache = TraceCache(max_bytes=traces[0].nbytes + max(t.nbytes for t in traces[1:]))
    cache.get("a", lambda: traces[0])
    cache.get("b", lambda: traces[1])
    cache.get("a", pytest.fail)  # a hit: "a" is now the most recent
    cache.get("c", lambda: traces[2])
    assert cache.get("a", pytest.fail) is traces[0]
    made = []
    cache.get("b", lambda: made.append(1) or traces[1])
    assert made == [1]  # "b" was evicted and is made again


def test_one_trace_above_the_bound_is_still_kept():
    class Big:
        nbytes = 10

    cache = TraceCache(max_bytes=5)
    big = Big()
    assert cache.get("big", lambda: big) is big
    assert len(cache) == 1 and cache.nbytes == 10


def test_the_page_runs_at_most_max_text_chars_of_a_pasted_text(untrained):
    """Two pasted texts that differ only after the first MAX_TEXT_CHARS characters are one run
    (one cache entry, one key of bounded size), and it reads the same tokens as the text cut by
    hand: a model reads at most 512 tokens, each at least one character."""
    from ui import state

    head = _text(1200, 7)  # ~5,000+ characters of words: more than the cut
    assert len(head) > state.MAX_TEXT_CHARS
    first = state.get_trace("paper-untrained", head + " first ending")
    second = state.get_trace("paper-untrained", head + " another ending")
    assert second is first
    by_hand = run(untrained, head[: state.MAX_TEXT_CHARS])
    assert first.source_tokens == by_hand.source_tokens
    assert len(first.source_tokens) == untrained.max_source_tokens


def test_a_runs_status_line_names_what_runs():
    """The status line a cache miss shows at once (ui.state.working) says which run this is:
    the Scaling and Positional tabs run the same text under other settings."""
    from model.transformer import RunSettings
    from ui.state import _running

    assert _running(RunSettings(), "greedy", False) == "Running the model…"
    assert _running(RunSettings(), "greedy", True) == "Running the encoder…"
    assert _running(RunSettings(scale=1.0), "greedy", False) == (
        "Running the model with the scale s = 1…"
    )
    assert _running(RunSettings(use_positions=False), "greedy", True) == (
        "Running the encoder without positional encodings…"
    )
    ablated = RunSettings(ablate=frozenset({("cross", 4, 0), ("cross", 5, 1)}), window=3)
    assert _running(ablated, "beam", False) == (
        "Running the model with 2 heads switched off, with self-attention restricted to r = 3, "
        "by beam search…"
    )
