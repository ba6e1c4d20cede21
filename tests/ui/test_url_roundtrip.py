"""Every key of the view round-trips through the URL: a shared link with every key set to a
value other than its default reopens each widget on that value, and the URL the page writes
back still holds each key.

The keys come from the declarations (`ui.url.DECLARED`, filled by the page's modules): a screen
below that draws a key it gives no value for fails, and so does a declared key no screen draws,
so a new widget cannot go untested. An independent list of today's keys (TODAY_KEYS) catches a
declaration dropped from the code.
"""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui import url
from ui.paper_tab import TAB_LABEL as PAPER_TAB

# The last two tests read what the screens before them collected: with two workers (make test)
# the whole file runs on one of them, in order (tests/conftest.py, WHOLE_FILES).

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TEXT = "the small dog sees the old man ."  # not the page's default text
ANOTHER = "another option"  # a value other than the default, from the drawn widget's options
WIDGET_TYPES = (
    "selectbox",
    "radio",
    "select_slider",
    "slider",
    "toggle",
    "checkbox",
    "text_input",
    "text_area",
    "multiselect",
)

# Written by hand, not read from the code: every key the page mirrored in the URL when the
# declarations were introduced.
TODAY_KEYS = {
    "model", "text", "present", "decoding", "scene",
    "view", "kind", "layer", "head", "stretch", "hide_special", "query", "key_token", "heads",
    "focus", "step",
    "stats_kind", "stats_layer", "stats_head", "stat", "rollout_layer",
    "ablate", "ablation_kind",
    "compare_mode", "compare_text",
    "pos_n", "pos_d", "pos_k", "pos_first", "pos_layer", "pos_head",
    "scaling_dk", "scaling_n", "scaling_T", "scaling_kind", "scaling_layer", "scaling_head",
    "vocab_search",
    "paper_view", "paper_kind", "paper_layer", "paper_head", "paper_r",
    "paper_hfig", "paper_htext", "paper_hword", "paper_hante", "paper_hlayer", "paper_hheads",
    "paper_hall",
    "attr_layer", "attr_head", "attr_steps", "attr_text", "attr_word",
    "atlas_corpus", "atlas_view", "atlas_kind", "atlas_layer", "atlas_head", "atlas_stat",
    "atlas_colour", "atlas_projection", "atlas_token",
    "answer", "show_system",
}  # fmt: skip


ENCODER_DECODER = "paper-untrained"  # not the default model; 6 layers of 8 heads, d_model 512
TEXT_B = "the old dog sees the small man ."
ATTENTION_KEYS = {"stretch": "1", "hide_special": "1"}  # every Attention view seeds them
PAPER_KEYS = {"paper_kind": "cross", "paper_layer": "3", "paper_head": "4", "paper_r": "3"}
HEADS_FIGURE_KEYS = {"paper_hlayer": ANOTHER, "paper_hheads": ANOTHER, "paper_hall": "1"}

# (model, tab, the keys that choose what is drawn, the other keys' values). The page's own keys
# are set on every screen (`_page`).
SCREENS = [
    (
        ENCODER_DECODER,
        "Attention",
        {"view": "heatmap"},
        {"present": "1", "kind": "decoder_self", "layer": "2", "head": "mean"} | ATTENTION_KEYS,
    ),
    (
        ENCODER_DECODER,
        "Attention",
        {"view": "heatmap"},
        {"kind": "cross", "layer": "3", "head": "4"} | ATTENTION_KEYS,
    ),
    (
        "minilm-l6",
        "Attention",
        {"view": "heatmap", "kind": "encoder_self"},
        {"layer": "6", "head": "12"} | ATTENTION_KEYS,
    ),
    (
        ENCODER_DECODER,
        "Attention",
        {},
        {"view": "overview", "kind": "cross", "layer": "4", "head": "mean"} | ATTENTION_KEYS,
    ),
    (
        ENCODER_DECODER,
        "Attention",
        {"view": "links"},
        {"kind": "decoder_self", "layer": "3", "head": "4", "heads": "1,3", "focus": "q1"}
        | ATTENTION_KEYS,
    ),
    (
        ENCODER_DECODER,
        "Attention",
        {"view": "find"},
        {"kind": "decoder_self", "layer": "4", "head": "mean", "query": "2", "key_token": "1"}
        | ATTENTION_KEYS,
    ),
    (
        ENCODER_DECODER,
        "Attention",
        {"view": "breakdown"},
        {"kind": "cross", "layer": "2", "head": "5", "query": "1"} | ATTENTION_KEYS,
    ),
    (
        ENCODER_DECODER,
        "Attention",
        {"view": "decoding"},
        {"kind": "cross", "layer": "5", "head": "3", "step": "2"} | ATTENTION_KEYS,
    ),
    (
        ENCODER_DECODER,
        "Heads & rollout",
        {},
        {
            "stats_kind": "decoder_self",
            "stats_layer": "2",
            "stats_head": "3",
            "stat": "mean_distance",
            "rollout_layer": "1",
        },
    ),  # fmt: skip
    (ENCODER_DECODER, "Ablation", {"ablate": "encoder_self:1:2"}, {"ablation_kind": "cross"}),
    (
        ENCODER_DECODER,
        "Compare",
        {"compare_mode": "texts"},
        {"compare_text": TEXT_B, "kind": "cross", "layer": "2", "head": "mean"},
    ),
    (
        ENCODER_DECODER,
        "Compare",
        {"compare_mode": "ablate"},
        {"ablate": "encoder_self:2:3", "compare_text": TEXT_B, "kind": "decoder_self"}
        | {"layer": "3", "head": "4"},
    ),
    (
        ENCODER_DECODER,
        "Compare",
        {},
        {"compare_mode": "scale", "compare_text": TEXT_B, "kind": "cross", "layer": "4"}
        | {"head": "2"},
    ),
    (
        ENCODER_DECODER,
        "Positional encoding",
        {},
        {
            "pos_n": "50",
            "pos_d": "64",
            "pos_k": "3",
            "pos_first": "shift",
            "pos_layer": "2",
            "pos_head": "3",
        },
    ),  # fmt: skip
    (
        "smollm2-135m",
        "Positional encoding",
        {},
        {"rope_layer": "6", "rope_head": "3", "rope_query": "3", "rope_key": "1"}
        | {"pos_n": "40", "pos_d": "32", "pos_k": "4", "pos_first": "shift", "answer": "16"},
    ),
    (
        # a question: its chat template's system turn, folded unless shown (issue 66, item 5)
        "smollm2-135m",
        "Attention",
        {"view": "heatmap", "kind": "decoder_self", "text": "What is the capital of France?"},
        {"layer": "2", "head": "3", "answer": "8", "show_system": "1"} | ATTENTION_KEYS,
    ),
    (
        ENCODER_DECODER,
        "Scaling 1/√d_k",
        {},
        {
            "scaling_dk": "128",
            "scaling_n": "32",
            "scaling_T": "0.5",
            "scaling_kind": "cross",
            "scaling_layer": "2",
            "scaling_head": "3",
        },
    ),  # fmt: skip
    (ENCODER_DECODER, "Model", {}, {"vocab_search": "dog"}),
    (
        # the trained translator, not the untrained one: that decodes to its length limit (2n +
        # 10 tokens), and integrating the gradients of every step it wrote took 24 s of this file
        "en-de",
        "Attention vs gradients",
        {},
        {"attr_layer": "3", "attr_head": "4", "attr_steps": "16", "attr_word": ANOTHER},
    ),
    ("minilm-l6", "Attention vs gradients", {}, {"attr_text": "A cat sat.", "attr_steps": "64"}),
    (
        "en-de",
        "Head atlas",
        {},
        {"atlas_corpus": "built-in", "atlas_view": "roles", "atlas_kind": "cross"}
        | {"atlas_layer": "3", "atlas_head": "4", "atlas_stat": "aer"},
    ),
    (
        "minilm-l6",
        "Head atlas",
        {"atlas_view": "head"},
        {"atlas_corpus": "built-in", "atlas_layer": "5", "atlas_head": "11"}
        | {"atlas_colour": "position", "atlas_projection": "pca"},
    ),
    (
        "minilm-l6",
        "Head atlas",
        {"atlas_view": "head", "atlas_colour": "token"},
        {"atlas_corpus": "built-in", "atlas_layer": "1", "atlas_head": "3"}
        | {"atlas_projection": "tsne", "atlas_token": "the"},
    ),
    (
        "en-de",
        "Head atlas",
        {"atlas_view": "matrix"},
        {"atlas_corpus": "built-in", "atlas_kind": "decoder_self", "atlas_colour": "position"},
    ),
    ("minilm-l6", "Head atlas", {}, {"atlas_corpus": "pasted"}),
    (
        ENCODER_DECODER,
        PAPER_TAB,
        {},
        {"paper_view": "fig2", "paper_kind": "decoder_self", "paper_layer": "2"}
        | {"paper_head": "3", "paper_r": "3"},
    ),
    (
        ENCODER_DECODER,
        PAPER_TAB,
        {"paper_view": "restricted"},
        {"paper_kind": "decoder_self", "paper_layer": "5", "paper_head": "6", "paper_r": "1"},
    ),
    (
        ENCODER_DECODER,
        PAPER_TAB,
        {"paper_view": "fig3-5", "paper_hfig": "4", "paper_htext": "paper"},
        {"paper_hword": ANOTHER, "paper_hante": ANOTHER} | HEADS_FIGURE_KEYS | PAPER_KEYS,
    ),
    (
        ENCODER_DECODER,
        PAPER_TAB,
        {"paper_view": "fig3-5"},
        {"paper_hfig": "5", "paper_htext": "sidebar"} | HEADS_FIGURE_KEYS | PAPER_KEYS,
    ),
]


def _page(model: str, tab: str) -> dict[str, str]:
    """The sidebar's keys, on every screen: all but presentation mode set to another value."""
    page = {"model": model, "text": TEXT, "tab": tab, "scene": "2", "present": "0"}
    # decoding is the translators' only (a language model writes greedily)
    return page | ({"decoding": "beam"} if model not in ("minilm-l6", "smollm2-135m") else {})


def _open(params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=600)
    at.query_params.update(params)
    return at.run()


_opened: dict[tuple, AppTest] = {}


def _baseline(params: dict[str, str]) -> AppTest:
    """A fresh session from these parameters, opened once for the whole module."""
    key = tuple(sorted(params.items()))
    if key not in _opened:
        _opened[key] = _open(params)
    return _opened[key]


def _widget(at: AppTest, key: str):
    """The drawn widget with this key, or None (a key that is plain session state)."""
    for kind in WIDGET_TYPES:
        for widget in at.get(kind):
            if widget.key == key:
                return widget
    return None


def _another_option(at: AppTest, key: str):
    """An option of the drawn integer-valued widget `key` other than its current value."""
    widget = _widget(at, key)
    assert widget is not None, f"{key}: no widget to take another option from"
    values = []
    for candidate in range(1000):  # the option values are positions, layers or heads
        try:
            label = widget.format_func(candidate)
        except (IndexError, KeyError, ValueError):
            continue
        if label in widget.options:
            values.append(candidate)
    current = widget.value
    if isinstance(current, list):  # a multiselect: a different set of options
        return [values[0]] if current != [values[0]] else [values[1]]
    return next(v for v in values if v != current)


checked: set[str] = set()  # every key a screen restored, for the coverage tests below
checked_not_default: set[str] = set()  # ... from a value other than its default
seeded_by_screens: set[str] = set()


@pytest.mark.parametrize(
    ("model", "tab", "selectors", "values"),
    SCREENS,
    ids=[
        f"{tab}-{'-'.join(sel.values()) or model}-{i}"
        for i, (model, tab, sel, _) in enumerate(SCREENS)
    ],
)
def test_every_key_on_screen_round_trips(model, tab, selectors, values):
    page = _page(model, tab)
    screen = _baseline(page | selectors)  # what is drawn, with the other keys' defaults
    chosen = {
        key: _another_option(screen, key) if value == ANOTHER else url.DECLARED[key].parse(value)
        for key, value in values.items()
    }
    link = page | selectors | {key: url.DECLARED[key].text(value) for key, value in chosen.items()}

    at = _open(link)

    assert not at.exception, [e.value for e in at.exception]
    seeded = set(at.session_state[url.SEEDED_THIS_RUN])
    untested = seeded - set(link)
    assert not untested, f"drawn on this screen but given no value here: {sorted(untested)}"
    if tab != "Attention":  # the default tab is left out of the URL (Streamlit's own binding)
        assert at.session_state["tab"] == tab and at.query_params["tab"] == tab
    for key in sorted(set(link) - {"tab"}):
        expected = url.DECLARED[key].parse(link[key])
        assert at.session_state[key] == expected, f"{key} not restored from the URL"
        widget = _widget(at, key)
        if widget is not None:
            assert widget.value == expected, f"the widget {key} shows {widget.value!r}"
        # Its default: in the page as it first opens, in this tab, or on this screen.
        baseline = _baseline({} if key in page else page if key in selectors else page | selectors)
        if key in baseline.session_state and baseline.session_state[key] != expected:
            checked_not_default.add(key)
    # The default each key was seeded with in this run (it may depend on the other keys: the
    # Heads figure's layer is the statistic's pick for the chosen words).
    defaults = at.session_state[url.SEEDED_THIS_RUN]
    at_default = {
        key
        for key in set(link) - {"tab"}
        if key in defaults
        and not url.DECLARED[key].always
        and url.DECLARED[key].parse(link[key]) == defaults[key]
    }
    # The mirror: with the URL emptied (the session keeps the view), the next run writes every
    # key back that differs from its default, and leaves out those at their default.
    at.query_params.clear()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    for key in sorted(set(link) - {"tab"}):
        if key in at_default:
            assert key not in at.query_params, f"{key} is at its default yet in the URL"
        else:
            assert at.query_params.get(key) == link[key], f"{key} not written back to the URL"
    checked.update(set(link) - {"tab"})
    seeded_by_screens.update(seeded)


def test_every_declared_key_round_trips_from_a_value_not_its_default():
    """Runs after the screens (pytest keeps the file's order)."""
    assert seeded_by_screens, "run with the screens above"
    declared = set(url.DECLARED)
    assert declared - seeded_by_screens == set(), "declared keys no screen draws"
    assert declared - checked_not_default == set(), "declared keys never set to another value"


def test_todays_keys_are_still_declared_and_round_trip():
    assert checked, "run with the screens above"
    assert TODAY_KEYS - set(url.DECLARED) == set(), "keys no longer declared"
    assert TODAY_KEYS - checked_not_default == set(), "keys no screen checked"


def test_a_link_holds_neither_defaults_nor_a_closed_tabs_view():
    """Issue 45, item 11: the Compare tab's text stayed in the URL after the tab was left, and
    every default value was written out (a link of about 1,000 characters)."""
    at = _open({"model": ENCODER_DECODER, "text": TEXT, "tab": "Compare", "compare_text": TEXT_B})
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params.get("compare_text") == TEXT_B
    at.query_params["tab"] = "Attention"
    at.session_state["tab"] = "Attention"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "compare_text" not in at.query_params  # the Compare tab is closed
    assert at.query_params.get("model") == ENCODER_DECODER and at.query_params.get("text") == TEXT
    # the Attention tab's keys at their defaults: none of them written
    assert set(at.query_params) <= {"model", "text", "tab"}, dict(at.query_params)
    at.select_slider(key="layer").set_value(3).run()
    assert at.query_params.get("layer") == "4"  # counted from 1, as on screen
