"""What a link to a page opens a URL key at (tests only): a link leaves out every key at its
default (ui/url.py), so a key missing from the query string is read as the default the page's
run seeded it with."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui import url


def linked(at: AppTest, key: str) -> str | None:
    value = at.query_params.get(key)
    if isinstance(value, list):
        value = value[0]
    seeded = at.session_state[url.SEEDED_THIS_RUN]
    if value is None and key in seeded:
        return url.DECLARED[key].text(seeded[key])
    return value
