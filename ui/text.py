"""Showing typed text safely: as text, never as Markdown, LaTeX or HTML."""

from __future__ import annotations

import string

_MARKDOWN_SPECIAL = set(string.punctuation)


def escape_markdown(text: str) -> str:
    """Backslash-escape every ASCII punctuation character, so st.markdown shows it literally.

    CommonMark lets any ASCII punctuation be escaped; Streamlit's `$` maths is escaped the same way.
    Newlines become spaces so a typed text cannot start a heading, list or table.
    """
    flat = " ".join(text.split())
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in flat)
