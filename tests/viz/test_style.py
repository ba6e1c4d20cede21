"""Heatmap sizing shared by the figures: the cell gaps and the height of token-row figures."""

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from viz import paper, style
from viz.style import cell_gap, font_scale


def test_cells_keep_a_gap_up_to_64_a_side_and_none_beyond():
    assert [cell_gap(n) for n in (1, 64, 65, 512)] == [1, 1, 0, 0]


@pytest.mark.parametrize("presentation", [False, True])
def test_token_row_figures_grow_26_px_a_token_between_320_and_640(presentation):
    """Figure 2's heads and their projected output: one row a token, 26 px each, between a
    least and a most height (5 tokens and fewer, 19 and more: 170 px go to the title and axes), all
    scaled with the presentation font; the title's room is the same for every length."""

    def heights(n_tokens):
        tokens = [f"w{i}" for i in range(n_tokens)]
        heads = paper.multi_head_figure(np.zeros((2, n_tokens, 3)), tokens, "h", presentation)
        output = paper.projected_figure(np.zeros((n_tokens, 4)), tokens, "o", presentation)
        return np.array([heads.layout.height, output.layout.height])

    step = 26 * font_scale(presentation)
    assert (heights(11) - heights(10)) == pytest.approx([step, step], abs=1)
    assert (heights(18) - heights(6)) == pytest.approx([12 * step, 12 * step], abs=1)
    assert (heights(2) == heights(5)).all() and (heights(19) == heights(100)).all()
    assert (heights(6) > heights(5)).all() and (heights(19) > heights(18)).all()


@pytest.mark.parametrize(
    ("low", "high"), [(0.05, 3.0), (0.3, 0.45), (0.011, 12.0), (0.0007, 900.0), (1.0, 1.0)]
)
def test_log_ticks_cover_the_values_and_never_crowd(low, high):
    ticks = style.log_ticks(low, high)
    bottom, top = ticks["range"]
    assert 10**bottom <= low * 1.0001 and high <= 10**top * 1.0001 and bottom < top
    logs = np.log10(ticks["tickvals"])
    assert len(logs) >= 2 and bottom - 1e-9 <= logs.min() and logs.max() <= top + 1e-9
    assert (
        np.diff(logs).min() >= math.log10(2.5 / 2) - 1e-9
    )  # 2 and 2.5 would crowd; 1-2-5 does not
    assert len(ticks["tickvals"]) <= 8
    assert [float(t) for t in ticks["ticktext"]] == pytest.approx(ticks["tickvals"])


def test_log_ticks_fall_back_to_decades_over_a_wide_range():
    ticks = style.log_ticks(0.0007, 900.0)
    assert ticks["ticktext"] == ["0.0001", "0.001", "0.01", "0.1", "1", "10", "100", "1000"]


def test_wide_characters_count_twice_in_a_labels_width():
    """A Chinese character or an emoji takes a full square, a Latin letter about 0.6 of one."""
    assert style.text_width_fonts("dog") == pytest.approx(3 * style.CHAR_WIDTH)
    assert style.text_width_fonts("狗") == pytest.approx(2 * style.CHAR_WIDTH)
    assert style.text_width_fonts("👍") == pytest.approx(2 * style.CHAR_WIDTH)


def test_labels_lie_level_only_where_neighbours_leave_each_other_room():
    """Plotly turns a category axis's labels once two neighbours' boxes meet: eight short words
    across a laptop's figure lie level; the same number of 12-letter words, or of 6-character
    Chinese labels, in the same width would meet."""
    rows = ["The", "small", "dog"]
    short = ["The", "small", "dog", "sees", "the", "old", "man", "."]
    assert style.labels_lie_level(short, rows, 652, presentation=False)
    assert not style.labels_lie_level(["extraordinary"] * 8, rows, 652, presentation=False)
    assert not style.labels_lie_level(["注意力机制模型"] * 8, rows, 652, presentation=False)
    # at the width the boxes need exactly, and one pixel short of it
    font = style.font_px(False)
    needed = (style.text_width_fonts("small") * font + 2) * 8
    width = needed + style.row_label_room(rows, False) + style.colorbar_room(False)
    assert style.labels_lie_level(["small"] * 8, rows, width, presentation=False)
    assert not style.labels_lie_level(["small"] * 8, rows, width - 8, presentation=False)


def test_level_labels_shorten_the_margin_and_the_figure_alike():
    """The room fit_title keeps above a top axis of level or 30°-turned labels is shorter than
    for upright ones, level shortest, and the figure by as much: the plot between the margins
    keeps its height; the axis is set to 30° where the room was made for that."""
    tokens = ["The", "small", "dog", "sees", "children"]

    def fitted(angle):
        fig = go.Figure(go.Heatmap(z=[[0, 1]]))
        style.apply_layout(fig, "a title", height=400)
        fig.update_xaxes(side="top")
        return style.fit_title(fig, tokens, angle=angle)

    upright, turned, level = fitted(90), fitted(30), fitted(0)
    assert level.layout.margin.t < turned.layout.margin.t < upright.layout.margin.t
    for shorter in (turned, level):
        assert upright.layout.height - shorter.layout.height == (
            upright.layout.margin.t - shorter.layout.margin.t
        )
    assert level.layout.margin.t >= round(style.FONT_SIZE * 4.4) + round(1.3 * style.TITLE_SIZE)
    assert (upright.layout.xaxis.tickangle, turned.layout.xaxis.tickangle) == (None, -30)
    assert level.layout.xaxis.tickangle is None  # Plotly still turns them where they must


def test_labels_are_turned_30_degrees_as_plotly_turns_them():
    """Plotly.js (src/plots/cartesian/axes.js, autoTickAngles) takes the first angle θ of 0, 30,
    90 with |cos θ| <= spacing / hypot(spacing, 1.25 × font size): 30° once the columns are
    1.25 × font / tan 30° apart, else 90°. Checked here at columns just wider and just narrower
    than that, written from the formula, not from the code under test."""
    rows = ["a row"]
    font = style.font_px(False)
    least = 1.25 * font / math.tan(math.radians(30))  # 38.97 px at 18 px
    rooms = style.row_label_room(rows, False) + style.colorbar_room(False)
    labels = ["children"] * 10  # too long to lie level in columns this narrow

    def angle(column_px):
        width = column_px * len(labels) + rooms
        return style.top_label_angle(labels, rows, width, width, presentation=False)

    assert angle(least + 1) == 30
    assert angle(least - 1) == 90
    short = ["a"] * 10
    width = 40 * len(short) + rooms
    assert style.top_label_angle(short, rows, width, width, presentation=False) == 0


def test_presentation_rows_fit_a_twelve_word_sentence_on_the_lecture_screen():
    """In presentation mode a heatmap's rows share 460 px, a row never lower than a line of its
    labels (1.25 × the 25.2 px font: a 12-word sentence's 16 rows of German pieces take 504 px)
    nor higher than a cell (34 × 1.25 px), and nothing is below the plot but 16 px."""
    for n_rows, row in ((16, 31.5), (8, 42.5), (40, 31.5)):
        fig = go.Figure(go.Heatmap(z=[[0, 1]]))
        fig.update_layout(margin={"t": 200})
        style.presentation_rows(fig, n_rows)
        assert fig.layout.margin.b == 16
        assert fig.layout.height == round(row * n_rows + 200 + 16)
