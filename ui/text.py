"""Showing typed text safely: as text, never as Markdown, LaTeX or HTML."""

from __future__ import annotations

import string
from collections.abc import Sequence

_MARKDOWN_SPECIAL = set(string.punctuation)


def escape_markdown(text: str) -> str:
    """Backslash-escape every ASCII punctuation character, so st.markdown shows it literally.

    CommonMark lets any ASCII punctuation be escaped; Streamlit's `$` maths is escaped the same way.
    Newlines become spaces so a typed text cannot start a heading, list or table.
    """
    flat = " ".join(text.split())
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in flat)


def unknown_words_markdown(unknown: Sequence[str], model_label: str) -> str:
    """The typed words a model reads as <unk>, as Markdown (every word escaped: they come from
    the person typing)."""
    # quoted, not bold: the page wraps nothing the person typed in markup of its own
    words = ", ".join(f"“{escape_markdown(word)}”" for word in unknown)
    reads = escape_markdown(f"{model_label} reads these as <unk>, a character in them it never")
    return f"{reads} saw in training: {words}"
