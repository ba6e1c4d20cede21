"""The view in the URL: each session key declared once (`UrlKey`), seeded from the URL when a
session starts and mirrored back into it after every run, so a reload or a shared link reopens
what was on screen.

Streamlit's own `bind="query-params"` (used for the tab bar, app.py) does not serve the other
widgets here: it drops a widget's parameter whenever the widget is not drawn in a run (only the
open tab runs, so a tab switch would drop the other tabs' views), drops default values, writes
a select box's shown label ("head 3") instead of its value, cannot hold keys that are plain
session state (the ablated heads, the Heads tab's chosen row), and forbids setting the
parameter through `st.query_params` (the demo scenes do). Hence this small layer.

The mirror is derived from the declarations: every key seeded in a run (`UrlKey.seed`) is
written back at its end (`mirror`), so no list of keys is kept by hand. A shared link holds
only what differs from what the page would show by itself: a key at its default is left out
(the model and the text always stay: they are what a link is about), and so is every key of a
view this run did not draw (another tab's, from earlier in the session).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.state.common import user_key_from_element_id

# Every declared key by name: what tests/ui/test_url_roundtrip.py opens the tabs with.
DECLARED: dict[str, UrlKey] = {}

# The session key holding the keys seeded in the current run, each with its default (tests
# read it too).
SEEDED_THIS_RUN = "url_keys_this_run"
# The URL's values of the keys whose widget values the browser sent (see UrlKey.seed).
FALLBACKS_THIS_RUN = "url_fallbacks_this_run"
# The values of keys whose widgets a run that stopped early did not draw (see keep_undrawn).
KEPT = "url_kept_undrawn"
# The widget values a callback set to move the view (see `switch`), until a run has finished.
SWITCHED = "url_switched_until_drawn"


def parse_bool(raw: str) -> bool:
    if raw not in ("0", "1"):
        raise ValueError(raw)
    return raw == "1"


def parse_int_list(raw: str) -> list[int]:
    """A list of integers as `mirror` writes it ("[0, 2]"), or typed by hand ("0,2")."""
    return [int(part) for part in raw.strip("[]").replace(" ", "").split(",") if part]


def url_text(value: Any) -> str:
    """A session value as the URL holds it (the inverse of the key's parser)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def parse_counted(raw: str) -> int:
    """A layer or head as the screen counts it, from 1 ("3"), to the index the page uses (2)."""
    return int(raw) - 1


def counted_text(value: int) -> str:
    """A layer or head index as the URL holds it: counted from 1, as on screen."""
    return str(value + 1)


def parse_counted_list(raw: str) -> list[int]:
    """Heads counted from 1 ("1,3"), to their indices ([0, 2])."""
    return [n - 1 for n in parse_int_list(raw)]


def counted_list_text(value: list[int]) -> str:
    return ",".join(str(n + 1) for n in value)


def _always(_value: Any) -> bool:
    return True


@dataclass(frozen=True)
class UrlKey:
    """A session key mirrored in the URL under the same name. `parse` reads the URL's text
    (raising ValueError or TypeError on a malformed one) and `text` writes it; `in_url` says
    whether a value is written to the URL at all (a text too long for a URL is not). Layers and
    heads are counted from 1 in the URL, as on screen (`counted`), from 0 in the session."""

    name: str
    parse: Callable[[str], Any] = str
    in_url: Callable[[Any], bool] = _always
    always: bool = False  # written even at its default
    text: Callable[[Any], str] = url_text  # the inverse of `parse`

    def __post_init__(self) -> None:
        if self.name in DECLARED:
            raise ValueError(f"URL key {self.name!r} is declared twice")
        DECLARED[self.name] = self

    def current(self) -> Any:
        """The key's value in this run, also where its widget is not drawn (yet)."""
        if self.name in st.session_state:
            return st.session_state[self.name]
        return st.session_state[FALLBACKS_THIS_RUN][self.name]

    def _from_url(self, default: Any) -> Any:
        raw = st.query_params.get(self.name)
        if raw is None:
            return default
        try:
            return self.parse(raw)
        except (TypeError, ValueError):
            return default

    def seed(self, default: Any, valid: Callable[[Any], bool] | None = None) -> None:
        """Give the session key its value from the URL once a session (a malformed or invalid
        one falls back to `default`), and mirror it in the URL at the end of this run.

        Call it before the widget with `key=self.name` is drawn. A value the browser sent for
        that widget wins over the URL: after a server failover the browser's first request
        opens a fresh session carrying the student's latest change, which the URL (one run
        behind) would otherwise overwrite.
        """
        _seeded_this_run()[self.name] = default
        kept = st.session_state.get(KEPT, {})
        if self.name in kept:
            # Its widget was not drawn in the last run (see `keep_undrawn`): set through the API,
            # so the widget the browser draws anew shows the value the views use.
            value = kept.pop(self.name)
            st.session_state[self.name] = value if valid is None or valid(value) else default
            return
        known = self.name in st.session_state
        value = st.session_state[self.name] if known else self._from_url(default)
        if valid is not None and not valid(value):
            # From a bad URL, or left over from another model (a kind or layer it does not have).
            value = default
        elif known:
            if not _sent_by_browser(self.name):
                # Its widget is not on the browser's page (a model without it was shown): the
                # browser draws it anew with its first option unless the value is sent with it,
                # which Streamlit does only for a value set in this run. The kind box showed
                # "encoder self-attention" while the figure drew decoder_self (issue 66, item 1).
                st.session_state[self.name] = value
            return
        if not known and _sent_by_browser(self.name):
            # The widget takes the browser's value when it is drawn; until then (or if this run
            # does not draw it) `current` falls back to the URL's.
            st.session_state[FALLBACKS_THIS_RUN][self.name] = value
        else:
            st.session_state[self.name] = value


def counted(name: str) -> UrlKey:
    """A layer or head key: its index in the session, counted from 1 in the URL as on screen."""
    return UrlKey(name, parse_counted, text=counted_text)


def counted_list(name: str) -> UrlKey:
    """A key holding a list of heads: indices in the session, "1,3" in the URL."""
    return UrlKey(name, parse_counted_list, text=counted_list_text)


def start_run() -> None:
    """Forget the keys seeded by the last run (call it first thing in the page script), and set
    again what a callback switched (`switch`) in a run that did not finish."""
    st.session_state[SEEDED_THIS_RUN] = {}
    st.session_state[FALLBACKS_THIS_RUN] = {}
    for name, value in st.session_state.get(SWITCHED, {}).items():
        st.session_state[name] = value


def switch(session: MutableMapping[str, Any] | None = None, **values: Any) -> None:
    """Move the view from a callback: set these widgets' values (the open tab, the Attention
    view, kind, layer, head, ...) so that the browser shows them.

    Streamlit sends a widget a value set from code only in the run that set it. A callback runs
    at the start of a run; when that run is cut short by the next event (the demo list's popover
    closing as a scene is chosen) before it drew the widget, the next run drew the widget without
    the value: the server drew the Compare tab while the browser kept showing an empty Attention
    tab, and a demo hung (issue 68). So the values are set again at the start of every run
    (`start_run`) until one finishes (`mirror`)."""
    session = st.session_state if session is None else session
    session.update(values)
    pending = dict(session.get(SWITCHED, {}))
    pending.update(values)
    session[SWITCHED] = pending


def keep_undrawn() -> None:
    """Keep the value of every declared key this run did not seed, for a run that stops before
    the views draw their widgets (an empty text). Streamlit forgets the state of a widget that a
    run does not draw, while the browser may still send its last value: the next run's views
    then read layer 4 while the re-drawn slider showed layer 1 (issue 45, item 2)."""
    kept = st.session_state.setdefault(KEPT, {})
    seeded = _seeded_this_run()
    for name in DECLARED:
        if name not in seeded and name in st.session_state:
            kept[name] = st.session_state[name]


def mirror() -> None:
    """Write the current value of every key seeded in this run that differs from its default
    to the query string, in the order the page seeded them (a new key is added at the URL's
    end); drop the declared keys this run left at their default or did not draw. The last call
    of a run that finished: what callbacks switched has been drawn."""
    st.session_state[SWITCHED] = {}
    seeded = _seeded_this_run()
    for name in DECLARED:
        if name not in seeded and name in st.query_params:
            del st.query_params[name]
    for name, default in seeded.items():
        if name not in st.session_state:
            continue  # the browser's value, taken when the widget is drawn: the URL's stays
        value = st.session_state[name]
        key = DECLARED[name]
        if not key.in_url(value) or (value == default and not key.always):
            if name in st.query_params:
                del st.query_params[name]
            continue
        text = key.text(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text


def _seeded_this_run() -> dict[str, Any]:
    """The keys seeded in this run, in order, each with its default."""
    return st.session_state.setdefault(SEEDED_THIS_RUN, {})


def _sent_by_browser(name: str) -> bool:
    """Whether this run's request carried a value for the widget with user key `name` (its
    element id ends with the key: streamlit.runtime.state.common)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return False
    return any(
        user_key_from_element_id(widget.id) == name
        for widget in ctx.session_state.get_widget_states()
    )


# Longer texts stay out of the URL, which browsers cap in length.
URL_TEXT_LIMIT = 2000


def fits_in_url(text: str) -> bool:
    return len(text) <= URL_TEXT_LIMIT


# The page's own keys (app.py's sidebar; a page script runs again every run, so they are
# declared here, once).
MODEL = UrlKey("model", always=True)
TEXT = UrlKey("text", in_url=fits_in_url, always=True)
PRESENT = UrlKey("present", parse_bool)
DECODING = UrlKey("decoding")
ANSWER = UrlKey("answer", int)  # a language model's longest answer, in tokens


def tidy_text() -> None:
    """The text box's callback: Enter in it starts a new line, which travelled into the shared
    URL as %0A (issue 66, item 8); the text's ends are trimmed as it changes. A new line inside
    a pasted paragraph stays."""
    value = st.session_state.get(TEXT.name)
    if isinstance(value, str) and value != value.strip():
        st.session_state[TEXT.name] = value.strip()
