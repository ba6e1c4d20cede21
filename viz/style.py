"""One style for every figure: fonts large enough for the back of a lecture hall, fixed colour
scales, and escaping of every user-typed string that reaches a figure."""

from __future__ import annotations

import html
import math
import textwrap
import unicodedata
from collections.abc import Sequence

import plotly.graph_objects as go
import plotly.io as pio

FONT_SIZE = 18
TITLE_SIZE = 22
PRESENTATION_SCALE = 1.4
# Titles wrap at this many characters, so a figure fits half the page at the usual title size.
TITLE_LINE_CHARS = 44
# ... and at this many for a figure across the page's main area on a 1280 px laptop.
FULL_PAGE_TITLE_CHARS = 60
# ... and at this many for one of two figures side by side (a 401 px column at 1280 px): a line of
# 42 characters ("change in attention per layer and head (16") drew 440 px, cut at both ends.
HALF_PAGE_TITLE_CHARS = 34
# Attention weights are probabilities: one fixed sequential scale from 0 to 1, white to dark blue.
# Gold links from the corpus (word alignment, a pronoun's antecedent) are outlined in this red.
GOLD_COLOR = "#d62728"
ATTENTION_COLORSCALE = "Blues"
# Signed quantities (positional encodings, dot products): diverging, white at zero.
SIGNED_COLORSCALE = "RdBu_r"
MASKED_COLOR = "#d0d0d0"  # cells a mask forbids: no weight at all, not a weight of 0
# One clearly different colour per head or series, none of them grey: a line drawn at opacity
# 0.2 over white is mostly white, so greys and dark colours all fade to the same light grey.
# Saturated hues (CIELAB chroma >= 25, tested in tests/viz/test_attention.py) in an order whose
# first colours differ most, so two or three series are always blue, red, green.
HEAD_COLORS = (
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#8f3fbf", "#17becf",
    "#f032e6", "#9a9a00", "#8c564b", "#1b1b9e", "#e6ab02", "#f58ea8",
)  # fmt: skip

KIND_LABELS = {
    "encoder_self": "encoder self-attention",
    "decoder_self": "decoder masked self-attention",
    "cross": "encoder-decoder (cross) attention",
}


# A small white template: Plotly copies and validates the template of every new figure, and
# its full built-in ones cost about 15 ms a figure, a large share of a page's redraw.
pio.templates["atlas"] = go.layout.Template(
    layout={
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "colorway": list(HEAD_COLORS),
        # x tick labels a little away from the axis: the first one of x and the lowest of y
        # otherwise meet in the corner.
        "xaxis": {
            "gridcolor": "#ebebeb",
            "zeroline": False,
            "automargin": True,
            "ticklabelstandoff": 6,
        },
        "yaxis": {"gridcolor": "#ebebeb", "zeroline": False, "automargin": True},
        "hovermode": "closest",
    },
    # A colour bar's title runs along the bar, so it cannot print over the bar's top tick label.
    data={"heatmap": [go.Heatmap(colorbar={"title": {"side": "right"}})]},
)
pio.templates.default = "atlas"


def outline_columns(fig: go.Figure, columns, n_rows: int) -> None:
    """Outline whole heatmap columns in the gold colour (a gold link, over every row), drawn in
    cell coordinates so the outlines keep to their cells at any size."""
    for column in columns:
        fig.add_shape(
            type="rect",
            x0=column - 0.5,
            x1=column + 0.5,
            y0=-0.5,
            y1=n_rows - 0.5,
            line={"color": GOLD_COLOR, "width": 3},
            fillcolor="rgba(0,0,0,0)",
        )


def safe(text: str) -> str:
    """Text for a Plotly label: Plotly renders a subset of HTML, so typed text is escaped."""
    return html.escape(str(text), quote=False)


def safe_all(tokens) -> list[str]:
    return [safe(t) for t in tokens]


def apply_layout(fig: go.Figure, title: str, presentation: bool = False, **layout) -> go.Figure:
    """Title and fonts shared by all figures; `presentation` makes everything larger."""
    factor = font_scale(presentation)
    fig.update_layout(
        title={"text": title, "font": {"size": round(TITLE_SIZE * factor)}},
        font={"size": round(FONT_SIZE * factor)},
        hoverlabel={"font_size": round(FONT_SIZE * factor)},
        **layout,
    )
    return fig


LEGEND_ROW_PX = 30
# The smallest heatmap cell at FONT_SIZE: neighbouring tick labels turned by 45° lie 0.7 cell
# apart and need about 1.2 font sizes. Presentation mode enlarges cells by less than the fonts
# (PRESENTATION_CELL_SCALE) so that a 15-token heatmap and its controls still fit 1080 px.
CELL_PX = 34
PRESENTATION_CELL_SCALE = 1.25
# Average glyph width of the figure font, in font sizes: to estimate the room labels take.
CHAR_WIDTH = 0.6


def legend_below(
    fig: go.Figure,
    presentation: bool,
    plot_height: int | None = None,
    per_row: int = 1,
    axis_px: int = 110,
) -> dict:
    """Layout for a legend in the bottom margin (container coordinates), `per_row` entries a
    row, so it covers neither the plot nor the x axis (its tick labels and title: `axis_px` at
    the normal font size, 0 for a figure with none): the legend and margin settings for
    `apply_layout`, and with `plot_height` a figure height that adds the legend's rows to it."""
    factor = font_scale(presentation)
    entries = sum(1 for trace in fig.data if trace.showlegend is not False)
    rows = -(-entries // per_row) + (1 if per_row > 1 else 0)  # + the title's row
    legend_px = round(rows * LEGEND_ROW_PX * factor)
    layout = {
        "legend": {
            "yref": "container",
            "y": 0,
            "yanchor": "bottom",
            "x": 0,
            "xanchor": "left",
            "orientation": "h" if per_row > 1 else "v",
            "entrywidth": 1 / per_row if per_row > 1 else None,
            "entrywidthmode": "fraction",
        },
        "margin": {"b": legend_px + round(axis_px * factor)},
    }
    if plot_height is not None:
        layout["height"] = plot_height + legend_px
    return layout


def font_scale(presentation: bool) -> float:
    """How much larger every font is in presentation mode."""
    return PRESENTATION_SCALE if presentation else 1.0


def size_scale(presentation: bool) -> float:
    """How much larger cells and figure heights are in presentation mode (less than the fonts,
    so that a heatmap and its controls still fit a 1080 px screen)."""
    return PRESENTATION_CELL_SCALE if presentation else 1.0


def font_px(presentation: bool) -> float:
    """The figures' body font size in pixels."""
    return FONT_SIZE * font_scale(presentation)


def row_label_room(row_labels: Sequence[str], presentation: bool) -> float:
    """Pixels left of a heatmap for its row labels and the axis title."""
    longest = max((len(label) for label in row_labels), default=1)
    return (CHAR_WIDTH * min(longest, 24) + 2.5) * font_px(presentation)


def colorbar_room(presentation: bool) -> float:
    """Pixels right of a heatmap for its colour bar, tick labels and title."""
    return 4.5 * font_px(presentation) + 40


def log_ticks(low: float, high: float, most: int = 8) -> dict:
    """Range, tick values and labels for a log axis that shows [low, high]: the axis runs from
    the 1-2-5 value at or below `low` to the one at or above `high`, with a labelled tick at each
    where at most `most` fit, else from decade to decade with one a decade. (Plotly's own minor
    labels, 2, 3, 5 … of every decade, crowd each other near each power of ten.)"""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    ticks = [m * 10.0**e for e in range(first - 1, last + 1) for m in (1, 2, 5)]
    bottom = max(t for t in ticks if t <= low * 1.0001)
    top = min(t for t in ticks if t >= high / 1.0001)
    if top <= bottom:  # one value: the axis runs to the next tick
        top = min(t for t in ticks if t > bottom)
    shown = [t for t in ticks if bottom <= t <= top]
    if len(shown) > most:
        bottom, top = 10.0**first, 10.0**last
        shown = [10.0**e for e in range(first, last + 1)]
    return {
        "range": [math.log10(bottom), math.log10(top)],
        "tickvals": shown,
        "ticktext": [f"{t:g}" for t in shown],
    }


def layer_head_axes(layers: Sequence[int], heads: Sequence[int]) -> dict:
    """Axes of a grid with one cell per head: heads across, layers down from layer 1 (the
    numbers as people read them, 1-based)."""
    return {
        "xaxis": {"title": {"text": "head"}, "tickvals": list(heads), "showgrid": False},
        "yaxis": {
            "title": {"text": "layer"},
            "tickvals": list(layers),
            "autorange": "reversed",
            "showgrid": False,
        },
    }


def column_px(row_labels: Sequence[str], n_columns: int, width: float, presentation: bool) -> float:
    """The width of one column of a heatmap drawn `width` px wide (`grid_size`'s rooms for row
    labels and colour bar taken off)."""
    plot_px = width - row_label_room(row_labels, presentation) - colorbar_room(presentation)
    return max(plot_px, 1) / max(n_columns, 1)


def label_step(row_labels: Sequence[str], n_columns: int, width: float, presentation: bool) -> int:
    """Label every n-th column when a heatmap must be drawn `width` px wide, narrower than
    `grid_size` asks: 1 while every column has room for an upright label (a line's height,
    1.3 font sizes), else the smallest step that gives each labelled column that much room."""
    cell = column_px(row_labels, n_columns, width, presentation)
    return max(1, math.ceil(1.3 * font_px(presentation) / cell))


def text_width_fonts(text: str) -> float:
    """A label's estimated width in font sizes: CHAR_WIDTH a character, twice that for a wide
    one (Chinese, Japanese, Korean, most emoji), which takes a full square."""
    return sum(
        2 * CHAR_WIDTH if unicodedata.east_asian_width(c) in "WF" else CHAR_WIDTH for c in text
    )


# Plotly turns a category axis's labels to the first of its autotickangles (0°, 30°, 90°) at
# which neighbours do not meet: 30° once the columns are at least this many label lines apart
# (plotly.js axes.js: |cos θ| <= spacing / hypot(spacing, 1.25 font sizes), so spacing >=
# 1.25 font sizes / tan 30°).
TURNED_30_FONTS = 1.25 / math.tan(math.radians(30))


def top_label_angle(
    labels: Sequence[str],
    row_labels: Sequence[str],
    least_width: float,
    drawn_width: float,
    presentation: bool,
) -> int:
    """The angle (0, 30 or 90°) a heatmap's column labels are drawn at: level where they lie
    level at the least width the page draws it at (`labels_lie_level`), else 30° where the
    columns at the width the page is laid out for are far enough apart (TURNED_30_FONTS), else
    upright. `fit_title` makes room for that angle and the axis is set to it."""
    if labels_lie_level(labels, row_labels, least_width, presentation):
        return 0
    cell = column_px(row_labels, len(labels), drawn_width, presentation)
    return 30 if cell >= TURNED_30_FONTS * font_px(presentation) else 90


def labels_lie_level(
    labels: Sequence[str], row_labels: Sequence[str], width: float, presentation: bool
) -> bool:
    """Whether Plotly draws these column labels of a heatmap `width` px wide level: it turns
    them once two neighbours' boxes (each 2 px wider than its text) would meet, which is read
    here with the labels' estimated widths. The page draws a figure at its container's width,
    which is not narrower than the width a heatmap asks for on the screens it is laid out for
    (`ui.state.main_width_px`)."""
    font = font_px(presentation)
    cell = column_px(row_labels, len(labels), width, presentation)
    widths = [text_width_fonts(label) * font + 2 for label in labels]
    return all((a + b) / 2 <= cell for a, b in zip(widths, widths[1:]))


# Presentation mode: the rows of a heatmap of tokens share this many px ...
PRESENTATION_ROWS_PX = 460
# ... but a row is never lower than a line of its labels (1.25 font sizes: 31.5 px), so that a
# 12-word sentence's 16 rows of German pieces take 504 px and, below the page's heading,
# output and tab bar and the figure's title and top labels, are whole on a 1080 px lecture
# screen (issue 66, item 3); and never higher than a cell.
ROW_LINE_FONTS = 1.25
# Nothing stands below a heatmap whose column labels are at its top: Plotly's default bottom
# margin (80 px) was a blank band.
BOTTOM_PX = 16


def presentation_rows(fig: go.Figure, n_rows: int) -> go.Figure:
    """Size a heatmap's rows for the lecture screen (PRESENTATION_ROWS_PX) once its title and
    top axis have their room (`fit_title`): the figure's height is its rows, its top margin
    and BOTTOM_PX."""
    font = font_px(True)
    row = max(
        ROW_LINE_FONTS * font,
        min(CELL_PX * PRESENTATION_CELL_SCALE, PRESENTATION_ROWS_PX / max(n_rows, 1)),
    )
    top = fig.layout.margin.t or 0
    fig.update_layout(margin={"b": BOTTOM_PX}, height=round(row * n_rows + top + BOTTOM_PX))
    return fig


def grid_size(
    row_labels: Sequence[str],
    n_columns: int,
    presentation: bool,
    colorbar: bool = True,
    cell_text_chars: int = 0,
    least_plot_fonts: float = 24,
) -> dict:
    """Width and height (layout settings) of a heatmap whose cells are at least CELL_PX, with
    room on the left for the row labels and the axis title, and on the right for a colour bar.

    The page draws a figure at its container's width; the width here is the least its cells
    need, which `ui.state.plot_row` keeps to lay comparisons side by side. Cells that print
    their value get room for `cell_text_chars` characters. The plot is at least
    `least_plot_fonts` font sizes wide (a one-line title over a few cells; fewer where a
    two-line title will do).
    """
    scale = size_scale(presentation)
    font = font_px(presentation)
    cell = max(CELL_PX * scale, (CHAR_WIDTH * cell_text_chars + 0.8) * font)
    left = row_label_room(row_labels, presentation)
    right = colorbar_room(presentation) if colorbar else font
    n_rows = len(row_labels)
    return {
        # At least 24 font sizes of plot: a one-line title fits above a heatmap of few tokens.
        "width": round(max(cell * n_columns, least_plot_fonts * font) + left + right),
        "height": round(max(CELL_PX * scale * n_rows, 8 * font) + 120 * scale),
    }


# Up to this many cells across (or down), a heatmap keeps a 1 px white gap between them; beyond,
# the gaps would take most of each cell.
GAPPED_CELLS = 64


def cell_gap(n_cells: int) -> int:
    """The gap in px between a heatmap's cells along an axis of `n_cells` (its xgap or ygap)."""
    return 1 if n_cells <= GAPPED_CELLS else 0


def token_rows_height(n_rows: int, presentation: bool, least: int = 320, most: int = 640) -> int:
    """Height of a figure with one row a token over a wide axis of numbers (dimensions, heads):
    26 px a row and room for the title and axes, kept between `least` and `most` px (both
    before the presentation font scale)."""
    return round(max(least, min(most, 26 * n_rows + 170)) * font_scale(presentation))


def _title_lines(title: str, width: int) -> list[str]:
    """The title's " · "-separated parts packed into as few lines of `width` characters as
    they fit in (a part longer than a line is wrapped at spaces); "<br>" always breaks."""
    lines = []
    for paragraph in title.split("<br>"):
        line = ""
        for part in paragraph.split(" · "):
            joined = f"{line} · {part}" if line else part
            if len(joined) <= width:
                line = joined
                continue
            if line:
                lines.append(line)
            *full, line = textwrap.wrap(part, width) or [""]
            lines += full
        lines.append(line)
    return lines


# Room above the plot for a top axis whose labels lie level, in font sizes: the axis title and a
# line of labels with their gaps (measured in Chromium: the axis title's top stands 4.4-4.7 font
# sizes above the plot, at 1280 px and in presentation mode at 1920).
LEVEL_AXIS_FONTS = 4.9
# A turned label's rise (its length × sin of its angle) that the level axis's room already holds.
TURNED_RISE_FONTS = 1.5


def fit_title(
    fig: go.Figure,
    top_axis_tokens: Sequence[str] = (),
    max_chars: int = TITLE_LINE_CHARS,
    top_room: int | None = None,
    angle: int = 90,
) -> go.Figure:
    """Wrap the title into as few lines as fit (at " · ", else at spaces) and make room for it
    at the top.

    Plotly neither wraps titles nor leaves room for a title of several lines above a token axis
    drawn at the top, so the top margin is computed here from the line count and the tokens
    (upright), or is given as `top_room` pixels for what else stands above the plot. Tokens
    known to be drawn at a smaller `angle` (`top_label_angle`: 0 level, or 30°) take only the
    height they need at that angle, and the axis is set to it: the margin and the figure are
    both shorter by the rest, so the plot keeps its size, no blank band parts it from its
    title, and a first screen shows more of it.
    """
    title_size = fig.layout.title.font.size
    if fig.layout.width:  # a figure of known width: as many characters as fit in it
        width = int((fig.layout.width - 40) / (CHAR_WIDTH * title_size))
    else:
        width = round(max_chars * TITLE_SIZE / title_size)  # fewer in presentation mode
    lines = _title_lines(fig.layout.title.text, width)
    line_height = round(1.3 * title_size)
    # The title hangs half a line below the top edge; half a line more keeps it off the plot.
    title_room = line_height * (len(lines) + 1)
    axis_room = top_room or 0
    saved = 0
    if top_axis_tokens:
        # Axis title plus tick labels, which Plotly may turn upright: up to CHAR_WIDTH font sizes
        # of height per character.
        longest = CHAR_WIDTH * min(max(len(token) for token in top_axis_tokens), 24)
        font = fig.layout.font.size
        axis_room = round(font * (3.2 + longest))
        if angle != 90:
            # Turned by 30°, Plotly sets each label beside its tick more than above it: the
            # axis title's top stood 4.8 font sizes above the plot for 8-letter words (measured
            # in Chromium, presentation mode at 1920), about a level axis's room: that room and
            # the part of a longer label's rise past 1.5 font sizes.
            rise = longest * math.sin(math.radians(angle))
            need = LEVEL_AXIS_FONTS + max(0.0, rise - TURNED_RISE_FONTS)
            saved = max(0, axis_room - round(font * need))
            axis_room -= saved
            if angle:  # turned as foreseen; level labels stay Plotly's to turn if they must
                fig.update_xaxes(tickangle=-angle)
    fig.update_layout(
        title={
            "text": "<br>".join(lines),
            "y": 1,
            "yref": "container",
            "yanchor": "top",
            # Plotly centres a title of several lines on where one line would stand, so each
            # line past the first lifts it half a line (measured in Chromium with two lines and
            # three): without that much more padding it is cut at the top.
            "pad": {"t": line_height // 2 + (len(lines) - 1) * line_height // 2},
        },
        margin={"t": title_room + axis_room},
        height=(fig.layout.height or 450) + title_room - saved,
    )
    return fig
