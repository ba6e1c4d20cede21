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


def unknown_words_markdown(unknown: dict[str, list[str]], model_label: str) -> str:
    """The typed words a model lacks, each with the known words nearest to it, as Markdown
    (every word escaped: they come from the person typing)."""
    parts = []
    for word, close in unknown.items():
        hint = " / ".join(escape_markdown(c) for c in close) if close else "no known word is close"
        parts.append(f"**{escape_markdown(word)}** → {hint}")
    return f"{escape_markdown(model_label)} does not know: " + "; ".join(parts)
