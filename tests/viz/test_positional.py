"""The positional-encoding lab against the formulas of Section 3.5 computed here with numpy, and
the order-blindness of self-attention without positions, checked on whole Traces."""

import math

import numpy as np
import pytest

from model.transformer import RunSettings, sinusoidal_table
from runtime.probes import input_parts, position_table, shuffle_words
from runtime.trace import run
from viz import positional

TEXT = "the small dog sees the old man ."
NO_POSITIONS = RunSettings(use_positions=False)


def numpy_pe(n_positions: int, d_model: int) -> np.ndarray:
    """Section 3.5, written out: PE(pos, 2i) = sin(pos/10000^(2i/d)), PE(pos, 2i+1) = cos(...)."""
    pe = np.zeros((n_positions, d_model))
    for pos in range(n_positions):
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            pe[pos, 2 * i] = math.sin(angle)
            pe[pos, 2 * i + 1] = math.cos(angle)
    return pe


@pytest.mark.parametrize("d_model", [4, 20, 128])
def test_the_table_the_lab_draws_is_the_papers_formula(d_model):
    ours = sinusoidal_table(300, d_model).numpy()
    np.testing.assert_allclose(ours, numpy_pe(300, d_model), atol=2e-7)


@pytest.mark.parametrize("d_model", [4, 20, 512])
def test_wavelengths_follow_the_formula_and_are_the_period_of_each_pair(d_model):
    lam = positional.wavelengths(d_model)
    i = np.arange(d_model // 2)
    np.testing.assert_allclose(lam, 2 * np.pi * 10000 ** (2 * i / d_model), rtol=1e-12)
    assert lam[0] == pytest.approx(2 * np.pi)
    # Geometric progression: a constant ratio 10000^(2/d_model) between neighbours.
    np.testing.assert_allclose(lam[1:] / lam[:-1], 10000 ** (2 / d_model), rtol=1e-12)
    # Dimension 2i is sin(2π pos / λ_i): the formula's angle, so λ_i is its period.
    pe = numpy_pe(50, d_model)
    pos = np.arange(50)[:, None]
    np.testing.assert_allclose(pe[:, 0::2], np.sin(2 * np.pi * pos / lam), atol=1e-9)


@pytest.mark.parametrize("d_model", [4, 16, 512])
@pytest.mark.parametrize("k", [1, 7, 250])
def test_a_shift_is_one_fixed_linear_map(d_model, k):
    pe = numpy_pe(400, d_model)
    m = positional.shift_matrix(k, d_model)
    np.testing.assert_allclose(pe[:-k] @ m.T, pe[k:], atol=1e-10)
    # Block-diagonal rotations: orthogonal, nothing outside the 2×2 blocks, M_a M_b = M_(a+b).
    np.testing.assert_allclose(m @ m.T, np.eye(d_model), atol=1e-12)
    blocks = np.kron(np.eye(d_model // 2), np.ones((2, 2)))
    assert np.all(m[blocks == 0] == 0)
    np.testing.assert_allclose(
        positional.shift_matrix(3, d_model) @ m, positional.shift_matrix(k + 3, d_model), atol=1e-12
    )
    # On the float32 table the app stores, the residual is float32 rounding.
    residual = positional.shift_residual(sinusoidal_table(400, d_model).numpy(), k)
    assert residual.shape == (400 - k,) and residual.max() < 1e-6


def test_a_wrong_shift_leaves_a_residual():
    table = sinusoidal_table(100, 32).numpy()
    wrong = table[:-4] @ positional.shift_matrix(3, 32).T  # M_3 applied, 4 positions compared
    assert np.abs(wrong - table[4:]).max() > 0.01


def test_sinusoid_similarity_depends_on_the_offset_only():
    d_model = 64
    profile = positional.offset_profile(sinusoidal_table(200, d_model).numpy())
    omega = 10000 ** (-2 * np.arange(d_model // 2) / d_model)
    expected = np.cos(np.outer(profile["offset"], omega)).sum(axis=1)
    np.testing.assert_allclose(profile["mean"], expected, atol=1e-4)
    assert (profile["highest"] - profile["lowest"]).max() < 1e-4
    assert profile["mean"][0] == pytest.approx(d_model / 2, abs=1e-4)
    random_profile = positional.offset_profile(np.random.default_rng(0).normal(size=(200, 64)))
    assert (random_profile["highest"] - random_profile["lowest"]).max() > 1


@pytest.mark.parametrize("model", ["untrained", "minilm"])
def test_input_parts_add_up_to_the_encoder_input(model, request):
    loaded = request.getfixturevalue(model)
    parts = input_parts(loaded, TEXT)
    trace = run(loaded, TEXT)
    assert parts.tokens == trace.source_tokens
    np.testing.assert_allclose(parts.total, trace.encoder_hidden_states[0], atol=1e-5)
    n = len(parts.tokens)
    if model == "untrained":
        assert list(parts.parts) == ["token embedding × √d_model", "positional encoding"]
        np.testing.assert_allclose(parts.parts["positional encoding"], numpy_pe(n, 512), atol=2e-7)
        embedding = loaded.model.src_embed.tokens.lut.weight.numpy()
        ids = [loaded.tokenizer.itos.index(t) for t in parts.tokens]
        np.testing.assert_allclose(
            parts.parts["token embedding × √d_model"], embedding[ids] * math.sqrt(512), rtol=1e-6
        )
        assert not parts.normalised
    else:
        assert list(parts.parts) == ["word embedding", "token type", "learned position"]
        summed = sum(parts.parts.values())
        mean = summed.mean(axis=1, keepdims=True)
        by_hand = (summed - mean) / np.sqrt(summed.var(axis=1, keepdims=True) + 1e-12)
        norm = loaded.model.src_embed.norm
        by_hand = by_hand * norm.weight.numpy() + norm.bias.numpy()
        np.testing.assert_allclose(parts.total, by_hand, atol=1e-4)
        np.testing.assert_array_equal(position_table(loaded, n), parts.parts["learned position"])
        assert parts.normalised


def test_the_input_parts_are_of_the_tokens_the_run_reads(translator):
    """ "the" at the start is read as "The" by the translator's runs: the lab's parts too."""
    text = "the small dog sees the old man."
    parts = input_parts(translator, text)
    assert parts.tokens == run(translator, text).source_tokens
    assert parts.tokens[0] == "The"


def _permuted(attention: np.ndarray, permutation) -> np.ndarray:
    p = np.asarray(permutation)
    return attention[:, :, p][:, :, :, p]


@pytest.mark.parametrize(
    ("model", "text", "seed"),
    [
        ("untrained", TEXT, 3),
        ("minilm", TEXT, 3),
        # the app's default sentence; seed 0 draws "dog" to the front, which the translator
        # would read as "Do ##g" (it raises a small first letter)
        ("translator", "The small dog sees the old man.", 0),
        ("translator", "the small dog sees the old man.", 1),
        # read with a full stop it was typed without: the stop stays at the end
        ("translator", "the small dog sees the old man", 2),
    ],
)
def test_without_positions_a_permuted_input_gives_permuted_attention(model, text, seed, request):
    loaded = request.getfixturevalue(model)
    shuffled = shuffle_words(loaded, text, seed=seed)
    assert shuffled is not None
    permutation = np.asarray(shuffled.permutation)
    n = permutation.size
    assert sorted(permutation) == list(range(n)) and not np.array_equal(permutation, np.arange(n))
    intact_off = run(loaded, text, NO_POSITIONS)
    shuffled_off = run(loaded, shuffled.text, NO_POSITIONS)
    tokens = intact_off.source_tokens
    assert shuffled_off.source_tokens == tuple(tokens[i] for i in permutation)
    if model == "minilm":  # [CLS] and [SEP] stay in place
        assert permutation[0] == 0 and permutation[-1] == n - 1
    kind = "encoder_self"
    np.testing.assert_allclose(
        shuffled_off.attention[kind], _permuted(intact_off.attention[kind], permutation), atol=1e-5
    )
    back = positional.unshuffled(shuffled_off, shuffled.permutation)
    assert back.source_tokens == tokens
    np.testing.assert_allclose(back.attention[kind], intact_off.attention[kind], atol=1e-5)
    # With positions the same comparison fails: the encoder now sees the order.
    intact_on = run(loaded, text)
    shuffled_on = run(loaded, shuffled.text)
    gap = np.abs(shuffled_on.attention[kind] - _permuted(intact_on.attention[kind], permutation))
    assert gap.max() > 1e-2


def test_learned_table_colours_are_not_set_by_one_outlier_dimension():
    """MiniLM's learned vectors: one dimension reaches 1.87 where almost all lie within ±0.08.
    The scale ends where 99% of the values lie (the rest take the end colours), not at 1.87."""
    rng = np.random.default_rng(0)
    table = rng.normal(0, 0.03, size=(40, 200)).astype(np.float32)
    table[:, 7] = 1.8  # one outlier dimension
    heat = positional.encoding_heatmap(table, "learned", learned=True).data[0]
    inside = np.mean(np.abs(table) <= heat.zmax)
    assert 0.99 <= inside < 1.0  # the outlier column (1 value in 200) lies beyond
    assert heat.zmin == -heat.zmax and heat.zmax < 0.2
    fig = positional.encoding_heatmap(table, "learned", learned=True)
    assert "fastest" not in fig.layout.xaxis.title.text  # learned dimensions have no wave order
    sinusoid = positional.encoding_heatmap(table, "sinusoids").data[0]
    assert sinusoid.zmax == pytest.approx(1.8)  # formula tables keep the full range


@pytest.mark.parametrize("presentation", [False, True])
def test_the_shift_figure_reads_the_residual_against_rounding_and_the_values(presentation):
    """The residual panel's log axis runs from 1 (a PE value's size) down past float32's rounding
    with a labelled tick every decade, and the panel titles are as large as the figure's text."""
    table = sinusoidal_table(200, 64).numpy()
    fig = positional.shift_figure(table, 5, presentation)
    axis = fig.layout.yaxis2
    assert axis.type == "log" and axis.dtick == 1 and axis.exponentformat == "power"
    low, high = axis.range
    assert high >= 0 and low <= np.log10(2.0**-24) - 1
    residual = positional.shift_residual(table, 5)
    assert low <= np.log10(max(residual.max(), 1e-10)) <= high
    size = 18 * (1.4 if presentation else 1.0)
    titles = [a for a in fig.layout.annotations if "M_5" in a.text]
    assert len(titles) == 2 and all(a.font.size >= round(size) for a in titles)
    (rounding,) = [a for a in fig.layout.annotations if "float32" in a.text]
    assert rounding.font.size >= round(size)
