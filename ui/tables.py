"""Tables readable in a lecture hall.

`st.dataframe` draws on a canvas at Streamlit's own 14 px whatever the page's root font, so in
presentation mode (24 px root font, ui/presentation.css) a table is drawn as HTML with
`st.table`, whose text scales with the page. On a laptop the interactive grid (sorting,
scrolling, column resizing) stays.
"""

from __future__ import annotations

from typing import Any

import streamlit as st


def table(data: Any, presentation: bool, where=None, height: int | None = None, **options) -> None:
    """`data` (a DataFrame or a dict of columns) without its index, `height` px tall at most
    (it scrolls beyond); `options` go to st.dataframe only (column_config and the like), so
    numbers meant for both are rounded beforehand."""
    place = where or st
    if presentation:
        place.table(data, hide_index=True, height=height or "content")
    else:
        place.dataframe(data, hide_index=True, width="stretch", height=height or "auto", **options)
