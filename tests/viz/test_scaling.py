"""The 1/√d_k lab: Monte Carlo estimates within the error their sample size implies, softmax
statistics of known distributions, the Jacobian norm against autograd, and live runs with another
scale against softmax(s·QKᵀ) computed by hand from the captured queries and keys."""

import math

import numpy as np
import pytest
import torch

from model.transformer import RunSettings
from runtime.trace import run
from viz import scaling
from viz.stats import entropy

TEXT = "the small dog sees the old man ."


def test_monte_carlo_variance_is_d_k_within_its_sampling_error():
    samples = 2000
    table = scaling.variance_table(scaling.DK_GRID, samples, seed=11)
    assert table["d_k"].tolist() == list(scaling.DK_GRID)
    assert table["d_k"].iloc[0] == 1 and table["d_k"].iloc[-1] == 1024
    # Var(s²) = σ⁴(2/(n−1) + κ/n), σ² = d_k, κ = 6/d_k: 4.5 s.d. over 21 d_k values fails by
    # chance with probability about 1e-4.
    sd = np.array([d * math.sqrt(2 / (samples - 1) + 6 / (d * samples)) for d in table["d_k"]])
    z = (table["Var(q·k), Monte Carlo"] - table["d_k"]) / sd
    assert np.abs(z).max() < 4.5
    np.testing.assert_allclose(table["± 1 s.d. of the estimate"], sd, rtol=1e-12)


@pytest.mark.parametrize("d_k", [1, 4, 64])
def test_the_stated_spread_of_the_sample_variance_is_the_observed_one(d_k):
    rng = np.random.default_rng(5)
    samples, repeats = 200, 600
    estimates = [scaling.dot_products(d_k, samples, rng).var(ddof=1) for _ in range(repeats)]
    # The s.d. of a s.d. estimate from 600 repeats is about 1/√(2·600) ≈ 3% (more for heavy tails).
    assert np.std(estimates, ddof=1) == pytest.approx(
        scaling.sample_variance_sd(d_k, samples), rel=0.15
    )


@pytest.mark.parametrize("n", [2, 7, 100])
def test_uniform_and_one_hot_rows(n):
    uniform = np.full(n, 1 / n)
    assert entropy(uniform) == pytest.approx(math.log(n))
    assert scaling.largest_weight(uniform) == pytest.approx(1 / n)
    one_hot = np.eye(n)[n // 2]
    assert entropy(one_hot) == 0.0
    assert scaling.largest_weight(one_hot) == 1.0
    assert scaling.softmax_jacobian_norm(one_hot) == pytest.approx(0.0, abs=1e-12)
    # diag(1/n) − 11ᵀ/n²: diagonal (1/n − 1/n²), off-diagonal −1/n².
    expected = math.sqrt(n * (1 / n - 1 / n**2) ** 2 + n * (n - 1) / n**4)
    assert scaling.softmax_jacobian_norm(uniform) == pytest.approx(expected)


@pytest.mark.parametrize("n", [2, 3, 6])
def test_jacobian_norm_equals_autograd(n):
    torch.manual_seed(n)
    for logits in torch.randn(5, n, dtype=torch.float64) * 3:
        jacobian = torch.autograd.functional.jacobian(lambda z: z.softmax(-1), logits)
        p = logits.softmax(-1).numpy()
        assert scaling.softmax_jacobian_norm(p) == pytest.approx(
            torch.linalg.matrix_norm(jacobian).item(), rel=1e-10
        )


def test_softmax_statistics_match_drawing_every_key():
    """The table draws logits as ‖q‖·z; drawing n keys outright gives the same means."""
    d_k, n, trials = 16, 8, 4000
    table = scaling.softmax_table([d_k], n, trials, seed=1).iloc[0]
    rng = np.random.default_rng(2)
    q = rng.standard_normal((trials, 1, d_k))
    keys = rng.standard_normal((trials, n, d_k))
    logits = (q * keys).sum(-1)
    for label, scale in (("unscaled", 1.0), ("scaled 1/√d_k", 1 / 4)):
        p = scaling.softmax(logits * scale)
        for column, values in (
            ("largest weight", scaling.largest_weight(p)),
            ("entropy (nats)", entropy(p)),
            ("‖Jacobian‖", scaling.softmax_jacobian_norm(p)),
        ):
            # Two independent means of `trials` draws: 5 standard errors of their difference.
            tolerance = 5 * values.std() * math.sqrt(2 / trials)
            assert table[f"{column}, {label}"] == pytest.approx(values.mean(), abs=tolerance)


def test_without_scaling_the_softmax_saturates_as_d_k_grows():
    table = scaling.softmax_table([1, 1024], 16, 1000, seed=0)
    small, large = table.iloc[0], table.iloc[1]
    assert large["largest weight, unscaled"] > 0.9 > small["largest weight, unscaled"]
    assert large["‖Jacobian‖, unscaled"] < 0.2 * small["‖Jacobian‖, unscaled"]
    # Scaled logits are N(0, ‖q‖²/d_k) ≈ N(0, 1) whatever d_k: the statistics stay put.
    assert large["entropy (nats), scaled 1/√d_k"] == pytest.approx(
        small["entropy (nats), scaled 1/√d_k"], rel=0.25
    )


def _softmax_by_hand(queries, keys, scale, causal):
    logits = scale * np.einsum("lhqd,lhkd->lhqk", queries.astype(np.float64), keys)
    if causal:
        n_q, n_k = logits.shape[-2:]
        logits = np.where(np.tril(np.ones((n_q, n_k), bool)), logits, -np.inf)
    return scaling.softmax(logits)


@pytest.mark.parametrize("model", ["untrained", "minilm"])
def test_live_runs_with_another_scale_are_softmax_of_scaled_logits(model, request):
    loaded = request.getfixturevalue(model)
    default = run(loaded, TEXT)
    paper = run(loaded, TEXT, RunSettings(scale=1 / math.sqrt(default.d_k)))
    for kind in default.kinds:
        np.testing.assert_array_equal(paper.attention[kind], default.attention[kind])
    assert paper.output == default.output
    for scale in (1.0, 1 / (4 * math.sqrt(default.d_k))):
        other = run(loaded, TEXT, RunSettings(scale=scale))
        assert other.scale == scale
        for kind in other.kinds:
            if kind == "cross":
                continue  # same formula without a mask; self-attention covers both cases
            by_hand = _softmax_by_hand(
                other.queries[kind], other.keys[kind], scale, causal=kind == "decoder_self"
            )
            np.testing.assert_allclose(other.attention[kind], by_hand, atol=2e-5)
        assert (
            np.abs(other.attention["encoder_self"] - default.attention["encoder_self"]).max() > 1e-3
        )


def test_entropy_and_largest_weight_and_output_change_of_runs(minilm):
    runs = {
        "paper": run(minilm, TEXT),
        "unscaled": run(minilm, TEXT, RunSettings(scale=1.0)),
    }
    table = scaling.entropy_and_largest_weight_by_run(runs, "encoder_self")
    assert len(table) == 6 * 12
    row = table[(table["layer"] == 2) & (table["head"] == 5)].iloc[0]
    weights = runs["unscaled"].attention["encoder_self"][1, 4].astype(np.float64)
    by_hand = -(weights * np.log(weights)).sum(-1).mean()
    assert row["entropy, unscaled"] == pytest.approx(by_hand, rel=1e-6)
    assert row["largest weight, unscaled"] == pytest.approx(weights.max(-1).mean(), rel=1e-6)
    change = scaling.output_change(runs, "paper").set_index("run")
    assert change.loc["paper", "mean cosine to reference"] == pytest.approx(1.0)
    final = [r.encoder_hidden_states[-1].astype(np.float64) for r in runs.values()]
    cosine = (
        (final[0] * final[1]).sum(-1)
        / np.linalg.norm(final[0], axis=-1)
        / np.linalg.norm(final[1], axis=-1)
    )
    assert change.loc["unscaled", "lowest cosine to reference"] == pytest.approx(cosine.min())


def test_scale_comparison_draws_each_runs_head_with_one_query_axis_and_one_colour_bar(minilm):
    runs = {
        "paper": run(minilm, TEXT),
        "unscaled": run(minilm, TEXT, RunSettings(scale=1.0)),
        "T = 2": run(minilm, TEXT, RunSettings(scale=1 / (2 * math.sqrt(32)))),
    }
    assert scaling.same_axes(runs, "encoder_self")
    fig = scaling.scale_comparison(runs, "encoder_self", 2, 4)
    assert len(fig.data) == 3
    for panel, trace in zip(fig.data, runs.values()):
        np.testing.assert_array_equal(
            np.asarray(panel.z, dtype=np.float32), trace.attention["encoder_self"][2, 4]
        )
        assert (panel.zmin, panel.zmax) == (0.0, 1.0)  # one fixed scale for every panel
    assert [panel.showscale for panel in fig.data] == [True, False, False]
    assert [a.text for a in fig.layout.annotations] == [f"<b>{label}</b>" for label in runs]
    assert fig.layout.yaxis2.matches == "y" and fig.layout.yaxis3.matches == "y"
    assert "layer 3, head 5" in fig.layout.title.text
    # Runs whose tokens differ cannot share an axis.
    other = run(minilm, TEXT + " Again.")
    assert not scaling.same_axes({"a": runs["paper"], "b": other}, "encoder_self")
