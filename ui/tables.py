"""Tables readable in a lecture hall.

`st.dataframe` draws on a canvas at Streamlit's own 14 px whatever the page's root font, so in
presentation mode (24 px root font, ui/presentation.css) a table is drawn as HTML with
`st.table`, whose text scales with the page. On a laptop the interactive grid (sorting,
scrolling, column resizing) stays.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from .state import main_width_px

# The grid's 14 px font: 6.5 px a character and 16 px of padding a cell estimate its tables a
# little wider than Chromium draws them (the Scaling tab's table of runs: 1,454 px estimated,
# 1,287 drawn); at 7.5 px, Table 1 (798 px estimated, fits 818) left the grid for no reason.
GRID_CHAR_PX = 6.5
GRID_PADDING_PX = 16
# A value a table has no number for (a token not among a run's top five, a step one run never
# took): the grid printed "None" and the HTML table "nan" (issue 45, item 7).
MISSING = "—"


def grid_width_px(data: Any) -> float:
    """The width Streamlit's grid gives `data`: each column as wide as its header or its
    longest value, whichever is longer (it sizes columns so, and never wraps a header)."""
    frame = pd.DataFrame(data)
    return sum(
        max(len(str(text)) for text in [name, *frame[name].head(500).tolist()]) * GRID_CHAR_PX
        + GRID_PADDING_PX
        for name in frame.columns
    )


def _short(v: float) -> str:
    """A number as rounded beforehand, in its shortest form: 21.9, not "21.9000"."""
    return format(v, ".12g")


def shown(data: Any) -> pd.DataFrame:
    """`data` as a table draws it: a column with missing values becomes text, MISSING there and
    its numbers as rounded beforehand, in their shortest form. (Streamlit's grid prints a
    missing number as "None" whatever a Styler says; text it prints as it is.)"""
    frame = pd.DataFrame(data)
    for name in frame.columns:
        if frame[name].isna().any():
            frame[name] = [
                MISSING if pd.isna(v) else (_short(v) if isinstance(v, float) else str(v))
                for v in frame[name]
            ]
    return frame


def _html(frame: pd.DataFrame) -> Any:
    """`frame` for st.table, its numbers in their shortest form: the HTML table prints every
    float column with four decimals ("21.9000 ms" in the Model tab's "This run")."""
    floats = [name for name in frame.columns if pd.api.types.is_float_dtype(frame[name])]
    return frame.style.format(_short, subset=floats) if floats else frame


def column_px(share: float) -> int:
    """The width of a page column taking `share` of a laptop's main area (less its gap)."""
    return round(main_width_px(False) * share) - 16


def table(
    data: Any,
    presentation: bool,
    where=None,
    height: int | None = None,
    width_px: int | None = None,
    **options,
) -> None:
    """`data` (a DataFrame or a dict of columns) without its index, `height` px tall at most
    (it scrolls beyond); `options` go to st.dataframe only (column_config and the like), so
    numbers meant for both are rounded beforehand.

    A table wider than its place (`width_px`: the page's main area on a laptop, by default)
    is drawn as HTML too, whose headers wrap: the grid would cut its last columns off behind a
    scroll bar (issue 45, item 9)."""
    place = where or st
    if presentation or grid_width_px(data) > (width_px or main_width_px(False)):
        place.table(_html(shown(data)), hide_index=True, height=height or "content")
    else:
        place.dataframe(
            shown(data), hide_index=True, width="stretch", height=height or "auto", **options
        )
