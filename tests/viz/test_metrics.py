"""viz.metrics: the Model tab's training figures."""

from viz.metrics import loss_curve


def test_the_floor_is_labelled_under_its_line_where_no_loss_can_be():
    floor = 1.25
    history = [[step, floor + 6.0 / step**0.5] for step in range(1, 2000, 50)]
    fig = loss_curve(history, floor)
    [line] = fig.layout.shapes
    [label] = fig.layout.annotations
    assert line.y0 == line.y1 == floor and label.y == floor
    assert "1.250" in label.text
    # the label hangs from the line (its top on it), at the right where the curve runs close
    assert label.yanchor == "top" and label.xanchor == "right"
    assert min(loss for _, loss in history) > floor
