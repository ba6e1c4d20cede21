"""Attention rollout (Abnar & Zuidema, 2020) against a computation done by hand."""

import numpy as np
import plotly.graph_objects as go
import pytest

from viz.attention import token_heatmap
from viz.rollout import residual_attention, rollout
from viz.style import apply_layout, fit_title


def test_two_layer_rollout_by_hand():
    # Layer 1, two heads on two tokens; their mean is [[0.6, 0.4], [0.2, 0.8]].
    layer_1 = np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.2, 0.8], [0.4, 0.6]]])
    # Layer 2, two heads; mean [[0.5, 0.5], [1.0, 0.0]].
    layer_2 = np.array([[[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0]]])
    attention = np.stack([layer_1, layer_2])  # [layer, head, query, key]

    # Ã = 0.5 mean + 0.5 I (rows already sum to 1):
    tilde_1 = np.array([[0.8, 0.2], [0.1, 0.9]])
    tilde_2 = np.array([[0.75, 0.25], [0.5, 0.5]])
    # Ã_2 Ã_1 by hand: [0.75*0.8 + 0.25*0.1, 0.75*0.2 + 0.25*0.9] = [0.625, 0.375]
    #                  [0.5*0.8 + 0.5*0.1,   0.5*0.2 + 0.5*0.9]   = [0.45, 0.55]
    expected_2 = np.array([[0.625, 0.375], [0.45, 0.55]])

    result = rollout(attention)
    np.testing.assert_allclose(residual_attention(attention), [tilde_1, tilde_2], atol=1e-12)
    np.testing.assert_allclose(result[0], tilde_1, atol=1e-12)
    np.testing.assert_allclose(result[1], expected_2, atol=1e-12)
    np.testing.assert_allclose(result[1], tilde_2 @ tilde_1, atol=1e-12)


def test_rows_are_renormalised_when_attention_rows_do_not_sum_to_one():
    attention = np.array([[[[2.0, 0.0], [0.0, 0.0]]]])  # not a distribution
    # 0.5*[2, 0] + 0.5*[1, 0] = [1.5, 0] -> [1, 0];  0.5*[0, 0] + 0.5*[0, 1] -> [0, 1]
    np.testing.assert_allclose(residual_attention(attention)[0], np.eye(2))


def test_rows_of_a_random_rollout_sum_to_one_and_the_order_is_last_layer_first():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4, 3, 5, 5))
    attention = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    result = rollout(attention)
    np.testing.assert_allclose(result.sum(-1), 1.0, atol=1e-12)
    assert (result >= 0).all()
    tilde = [0.5 * a.mean(0) + 0.5 * np.eye(5) for a in attention]
    expected = tilde[3] @ tilde[2] @ tilde[1] @ tilde[0]
    np.testing.assert_allclose(result[3], expected, atol=1e-12)
    # Matrix products do not commute: the reversed order is a different matrix.
    assert not np.allclose(result[3], tilde[0] @ tilde[1] @ tilde[2] @ tilde[3])


@pytest.mark.parametrize("n", [1, 3])
def test_identity_attention_rolls_out_to_identity(n):
    attention = np.broadcast_to(np.eye(n), (2, 4, n, n))
    np.testing.assert_allclose(rollout(attention), np.broadcast_to(np.eye(n), (2, n, n)))


def test_fit_title_wraps_every_word_into_short_lines_and_makes_room():
    figure = apply_layout(go.Figure(), "Model label with several words · kind · layer 2, head 3")
    figure.update_layout(height=500, margin={"t": 80})
    fit_title(figure, top_axis_tokens=["[CLS]", "extraordinarily"], max_chars=12)
    lines = figure.layout.title.text.split("<br>")
    assert all(len(line) <= 12 for line in lines)
    words = [word for word in " ".join(lines).split() if word != "·"]
    assert words == "Model label with several words kind layer 2, head 3".split()
    title_room = len(lines) * figure.layout.title.font.size
    assert figure.layout.height >= 500 + title_room
    # Room for the lines and for the 15-character tokens of the top axis.
    assert figure.layout.margin.t >= title_room + 15 * 0.4 * figure.layout.font.size


def test_a_title_that_fits_the_heatmaps_width_stays_on_one_line():
    tokens = ["the", "cat", "sat"]
    figure = token_heatmap(np.eye(3), tokens, tokens, "kind · layer 1, head 1", "w")
    assert figure.layout.title.text == "kind · layer 1, head 1"
    assert list(figure.layout.xaxis.ticktext) == tokens


def test_a_title_wider_than_its_heatmap_is_broken_between_its_parts():
    tokens = ["the", "cat", "sat"]
    long_title = "positions off, shuffled and put back in order · encoder self-attention · layer 1"
    figure = token_heatmap(np.eye(3), tokens, tokens, long_title, "w")
    lines = figure.layout.title.text.split("<br>")
    # 0.6 font sizes a character (viz.style.CHAR_WIDTH): every line fits the figure's width.
    assert all(
        len(line) * 0.6 * figure.layout.title.font.size <= figure.layout.width for line in lines
    )
    assert len(lines) > 1
    words = [word for word in " ".join(lines).split() if word != "·"]
    assert words == [word for word in long_title.split() if word != "·"]
