"""One style for every figure: fonts large enough for the back of a lecture hall, fixed colour
scales, and escaping of every user-typed string that reaches a figure."""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Sequence

import plotly.graph_objects as go
import plotly.io as pio

FONT_SIZE = 18
TITLE_SIZE = 22
PRESENTATION_SCALE = 1.4
# Titles wrap at this many characters, so a figure fits half the page at the usual title size.
TITLE_LINE_CHARS = 44
# Attention weights are probabilities: one fixed sequential scale from 0 to 1, white to dark blue.
# Gold links from the corpus (word alignment, a pronoun's antecedent) are outlined in this red.
GOLD_COLOR = "#d62728"
ATTENTION_COLORSCALE = "Blues"
# Signed quantities (positional encodings, dot products): diverging, white at zero.
SIGNED_COLORSCALE = "RdBu_r"
MASKED_COLOR = "#d0d0d0"  # cells a mask forbids: no weight at all, not a weight of 0
HEAD_COLORS = (
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
    "#e377c2", "#8c564b", "#bcbd22", "#7f7f7f", "#393b79", "#637939",
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
        "xaxis": {"gridcolor": "#ebebeb", "zeroline": False, "automargin": True},
        "yaxis": {"gridcolor": "#ebebeb", "zeroline": False, "automargin": True},
        "hovermode": "closest",
    }
)
pio.templates.default = "atlas"


def safe(text: str) -> str:
    """Text for a Plotly label: Plotly renders a subset of HTML, so typed text is escaped."""
    return html.escape(str(text), quote=False)


def safe_all(tokens) -> list[str]:
    return [safe(t) for t in tokens]


def apply_layout(fig: go.Figure, title: str, presentation: bool = False, **layout) -> go.Figure:
    """Title and fonts shared by all figures; `presentation` makes everything larger."""
    factor = PRESENTATION_SCALE if presentation else 1.0
    fig.update_layout(
        title={"text": title, "font": {"size": round(TITLE_SIZE * factor)}},
        font={"size": round(FONT_SIZE * factor)},
        hoverlabel={"font_size": round(FONT_SIZE * factor)},
        **layout,
    )
    return fig


def fit_title(
    fig: go.Figure, top_axis_tokens: Sequence[str] = (), max_chars: int = TITLE_LINE_CHARS
) -> go.Figure:
    """Wrap the title into lines (at " · " and spaces) and make room for it at the top.

    Plotly neither wraps titles nor leaves room for a title of several lines above a token axis
    drawn at the top, so the top margin is computed here from the line count and the tokens.
    """
    title_size = fig.layout.title.font.size
    width = round(max_chars * TITLE_SIZE / title_size)  # fewer characters in presentation mode
    parts = re.split(r" · |<br>", fig.layout.title.text)
    lines = [line for part in parts for line in textwrap.wrap(part, width)]
    line_height = round(1.3 * title_size)
    title_room = line_height * len(lines) + line_height // 2
    axis_room = 0
    if top_axis_tokens:
        # Axis title plus tick labels turned by 45°: about 0.4 font sizes of height per character.
        longest = min(max(len(token) for token in top_axis_tokens), 24)
        axis_room = round(fig.layout.font.size * (2.5 + 0.4 * longest))
    fig.update_layout(
        title={
            "text": "<br>".join(lines),
            "y": 1,
            "yref": "container",
            "yanchor": "top",
            "pad": {"t": line_height},
        },
        margin={"t": title_room + axis_room},
        height=(fig.layout.height or 450) + title_room,
    )
    return fig
