"""Restricted self-attention (RunSettings.window, Section 4) against torch's own
scaled_dot_product_attention with the same band mask, the maximum path length against a
brute-force reachability count over the model's band masks, and Table 1's operation counts against
torch's FLOP counter."""

import math

import numpy as np
import pytest
import torch
from torch.nn import functional as F
from torch.utils.flop_counter import FlopCounterMode

from model.transformer import (
    DEFAULT_SETTINGS,
    RunSettings,
    TransformerConfig,
    attention,
    band_mask,
    make_model,
    subsequent_mask,
)
from runtime.paper import (
    attention_module,
    crossover,
    flop_counts,
    max_path_length,
    output_projection,
    path_lengths,
    predicted_crossover,
    time_sublayers,
    timing_lengths,
)
from runtime.trace import run

TEXT = "the small dog sees the old man ."


@pytest.fixture(scope="module")
def small():
    """A small encoder-decoder with random weights, in eval mode."""
    config = TransformerConfig(src_vocab=40, tgt_vocab=40, N=2, d_model=32, d_ff=64, h=4)
    return make_model(config, seed=1).eval()


def reference_band(n_q: int, n_k: int, window: int, causal: bool) -> torch.Tensor:
    """The mask written out cell by cell, independently of model.transformer."""
    mask = torch.zeros(n_q, n_k, dtype=torch.bool)
    for i in range(n_q):
        for j in range(n_k):
            mask[i, j] = abs(i - j) <= window and (j <= i or not causal)
    return mask


@pytest.mark.parametrize("window", [1, 2, 4])
@pytest.mark.parametrize("scale", [None, 1.0, 0.05])
@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self"])
def test_restricted_attention_equals_torch_sdpa_with_the_band_mask(small, window, scale, kind):
    """One multi-head sub-layer with the window: output and weights equal torch's fused attention
    given the same band (and causal) mask and the same scale, then W^O."""
    torch.manual_seed(0)
    n = 9
    x = torch.randn(1, n, 32)
    mha = attention_module(small, kind, 1)
    causal = kind == "decoder_self"
    model_mask = subsequent_mask(n) if causal else None
    settings = RunSettings(scale=scale, window=window)
    with torch.inference_mode():
        out, record = mha(x, x, x, model_mask, settings)
        q, k, v = record.queries, record.keys, record.values
        allowed = reference_band(n, n, window, causal)
        s = scale if scale is not None else 1 / math.sqrt(8)
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, scale=s)
        expected_out = mha.w_o(expected.transpose(1, 2).reshape(1, n, 32))
        logits = (q @ k.transpose(-1, -2) * s).masked_fill(~allowed, float("-inf"))
        expected_weights = logits.softmax(-1)
    torch.testing.assert_close(out, expected_out, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(record.weights, expected_weights, atol=1e-6, rtol=1e-5)
    assert (record.weights[..., ~allowed] == 0).all()
    # The projections do not depend on the window: Q, K, V are those of the full run.
    with torch.inference_mode():
        _, full = mha(x, x, x, model_mask, RunSettings(scale=scale))
    torch.testing.assert_close(full.values, v)


def test_cross_attention_is_not_restricted(small):
    torch.manual_seed(0)
    src = torch.randint(3, 40, (1, 10))
    tgt = torch.randint(3, 40, (1, 7))
    with torch.inference_mode():
        full = small(src, tgt, None, subsequent_mask(7), DEFAULT_SETTINGS)
        banded = small(src, tgt, None, subsequent_mask(7), RunSettings(window=1))
    for layer in range(2):
        weights = banded.cross_attention[layer].weights[0]
        assert (weights[:, 0, 9] > 0).all()  # first target row reads the last source token
        self_weights = banded.self_attention[layer].weights[0]
        assert (self_weights[:, 4, :3] == 0).all()  # row 4 sees keys 3 and 4 only
    # window=None is the paper's full attention, bit for bit.
    with torch.inference_mode():
        again = small(src, tgt, None, subsequent_mask(7), RunSettings(window=None))
    torch.testing.assert_close(again.output, full.output, atol=0, rtol=0)


def test_a_window_covering_the_sentence_is_full_attention(untrained):
    full = run(untrained, TEXT)
    longest = max(len(full.source_tokens), len(full.target_tokens))
    wide = run(untrained, TEXT, RunSettings(window=longest))
    assert wide.output == full.output
    for kind in full.kinds:
        np.testing.assert_allclose(wide.attention[kind], full.attention[kind], atol=1e-6)


def test_windowed_runs_leave_the_shared_model_as_it_was(untrained):
    before = run(untrained, TEXT)
    restricted = run(untrained, TEXT, RunSettings(window=1))
    after = run(untrained, TEXT)
    for kind in before.kinds:
        np.testing.assert_array_equal(before.attention[kind], after.attention[kind])
    n = len(restricted.source_tokens)
    outside = ~reference_band(n, n, 1, causal=False).numpy()
    assert (restricted.attention["encoder_self"][..., outside] == 0).all()
    assert restricted.settings.window == 1
    m = len(restricted.target_tokens)
    outside = ~reference_band(m, m, 1, causal=True).numpy()
    assert (restricted.attention["decoder_self"][..., outside] == 0).all()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_a_bad_window_is_refused_with_a_message(bad):
    with pytest.raises(ValueError, match="window r"):
        RunSettings(window=bad)


def brute_force_path_lengths(n: int, window: int | None, causal: bool) -> np.ndarray:
    """Smallest L with (A^L)[i, j] > 0, A the layer's mask (band, causal) with the diagonal:
    information at key j reaches query i after L layers. inf where it never does."""
    if window is None:
        allowed = torch.ones(n, n, dtype=torch.bool)
    else:
        allowed = band_mask(n, n, window)[0]
    if causal:
        allowed = allowed & subsequent_mask(n)[0]
    step = allowed.to(torch.int64)
    reach = torch.eye(n, dtype=torch.int64)
    layers = np.full((n, n), np.inf)
    layers[np.eye(n, dtype=bool)] = 0
    for depth in range(1, n + 1):
        reach = ((step @ reach) > 0).to(torch.int64)
        newly = (reach.numpy() > 0) & np.isinf(layers)
        layers[newly] = depth
    return layers


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("window", [None, 1, 2, 3, 5])
@pytest.mark.parametrize("n", [1, 2, 5, 9, 16])
def test_path_length_formula_against_reachability_over_the_band_masks(n, window, causal):
    expected = brute_force_path_lengths(n, window, causal)
    np.testing.assert_array_equal(path_lengths(n, window, causal), expected)
    finite = expected[np.isfinite(expected)]
    assert max_path_length(n, window) == int(finite.max())


def test_band_mask_is_the_neighbourhood_of_size_r():
    for n_q, n_k, r in [(5, 5, 1), (7, 7, 3), (4, 6, 2)]:
        torch.testing.assert_close(band_mask(n_q, n_k, r)[0], reference_band(n_q, n_k, r, False))


def flops_of(call) -> int:
    counter = FlopCounterMode(display=False)
    with counter:
        call()
    return counter.get_total_flops()


@pytest.mark.parametrize("n", [5, 33])
def test_operation_counts_match_torchs_flop_counter(small, n):
    layer = small.encoder.layers[0]
    mha = layer.self_attn
    x = torch.randn(1, n, 32)
    counts = flop_counts(n, 32, 64)
    with torch.inference_mode():
        q, k, v = (mha.split_heads(f(x)) for f in (mha.w_q, mha.w_k, mha.w_v))
        assert flops_of(lambda: attention(q, k, v)) == counts["eq1"]
        projections = flops_of(lambda: [f(x) for f in (mha.w_q, mha.w_k, mha.w_v, mha.w_o)])
        assert projections == counts["projections"]
        assert flops_of(lambda: mha(x, x, x, None, DEFAULT_SETTINGS)) == counts["attention"]
        assert flops_of(lambda: layer.feed_forward(x)) == counts["ffn"]


def test_predicted_crossovers_solve_the_operation_counts():
    for d, d_ff in [(96, 384), (384, 1536), (512, 2048)]:
        for part in ("eq1", "attention"):
            n = predicted_crossover(d, d_ff, part)
            counts = flop_counts(round(n), d, d_ff)
            assert counts[part] == counts["ffn"]


def test_crossover_interpolates_on_log_log_axes():
    lengths = [16, 32, 64, 128, 256]
    assert crossover(lengths, [n / 100 for n in lengths]) == pytest.approx(100.0)
    assert crossover(lengths, [(n / 50) ** 2 for n in lengths]) == pytest.approx(50.0)
    assert crossover(lengths, [2.0] * 5) is None
    assert crossover(lengths, [0.5] * 5) is None


def test_timings_are_medians_per_length_and_leave_the_model_unchanged(small):
    before = {key: value.clone() for key, value in small.state_dict().items()}
    timings = time_sublayers(small, lengths=(8, 16, 32), rounds=3)
    assert timings.lengths == (8, 16, 32) and timings.rounds == 3
    assert set(timings.medians_ms) == {"eq1", "projections", "attention", "ffn"}
    for values in timings.medians_ms.values():
        assert len(values) == 3 and all(v > 0 for v in values)
    np.testing.assert_allclose(
        timings.ratio("eq1"),
        np.array(timings.medians_ms["eq1"]) / np.array(timings.medians_ms["ffn"]),
    )
    for key, value in small.state_dict().items():
        assert torch.equal(value, before[key]), key
    # Lengths whose h·n² float32 weights would pass 256 MiB are left out.
    assert timing_lengths(8, (1024, 2048, 4096)) == (1024, 2048)


def test_output_projection_is_the_modules_w_o(small):
    x = torch.randn(3, 32)
    weight, bias = output_projection(small, "cross", 1)
    with torch.inference_mode():
        expected = small.decoder.layers[1].src_attn.w_o(x).numpy()
    np.testing.assert_allclose(x.numpy() @ weight.T + bias, expected, atol=1e-5)
    encoder_only = make_model(TransformerConfig(src_vocab=10, N=1, d_model=8, d_ff=8, h=2))
    with pytest.raises(ValueError, match="encoder-only"):
        attention_module(encoder_only, "cross", 0)
