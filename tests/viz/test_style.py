"""Heatmap sizing shared by the figures: the cell gaps and the height of token-row figures."""

import numpy as np
import pytest

from viz import paper
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
