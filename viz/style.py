"""One style for every figure: fonts large enough for the back of a lecture hall, fixed colour
scales, and escaping of every user-typed string that reaches a figure."""

from __future__ import annotations

import html

import plotly.graph_objects as go
import plotly.io as pio

FONT_SIZE = 18
TITLE_SIZE = 22
PRESENTATION_SCALE = 1.4
# Attention weights are probabilities: one fixed sequential scale from 0 to 1, white to dark blue.
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
