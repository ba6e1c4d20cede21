"""Each term a first course has not met is said in plain words on the tab that uses it (issue
66, item 7), checked on the real page script: whatever a tab's text uses, its plain line is
there too, and the tab says it once."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.glossary import TERMS, FirstUse, plain_words, used_in

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_each_term_is_found_in_text_written_by_hand_and_not_elsewhere():
    assert used_in("every head scores AER 0.097 against the gold links") == ["AER"]
    assert used_in("the loss is 2.31 nats a token") == ["nats"]
    assert used_in("Spearman's ρ between them, then attention rollout") == [
        "Spearman's ρ",
        "rollout",
    ]
    assert used_in("Integrated gradients with 32 points") == ["integrated gradients"]
    # words that merely contain a term's letters
    assert used_in("the aerial view of rolling signatures, and gradients alone") == []


def test_a_plain_line_is_one_line_and_says_what_the_term_is_not_its_formula():
    for term, (_, line) in TERMS.items():
        said = plain_words(term)
        assert "\n" not in said and len(line) < 220, term
        assert said.startswith("In plain words: **"), said
        assert not any(sign in line for sign in ("√", "Σ", "∂", "κ =")), term


def test_a_tab_says_a_term_once_however_often_it_uses_it():
    words = FirstUse()
    assert words.new_terms("AER of every panel, then nats") == ["nats", "AER"]
    assert words.new_terms("again AER, and now rollout") == ["rollout"]
    assert words.new_terms("AER, nats and rollout once more") == []


def _texts(panel) -> list[str]:
    return (
        [m.value for m in panel.markdown]
        + [c.value for c in panel.caption]
        + [e.label for e in panel.expander]
    )


# Each tab with the terms it must use (and so explain), between them every term.
TABS = [
    ("en-de", "Model", {}, {"AER", "Spearman's ρ"}),
    ("en-de", "Scaling 1/√d_k", {}, {"excess kurtosis", "Jacobian"}),
    ("minilm-l6", "Heads & rollout", {}, {"nats", "rollout"}),
    ("minilm-l6", "Attention vs gradients", {"attr_steps": "8"}, {"integrated gradients"}),
    ("en-de", "Attention", {"kind": "cross"}, {"AER"}),  # the cross-attention head's note
]


def test_the_tabs_checked_use_every_term_between_them():
    assert set().union(*(terms for *_, terms in TABS)) == set(TERMS)


@pytest.mark.parametrize("model, tab, params, terms", TABS, ids=[f"{t[0]}-{t[1]}" for t in TABS])
def test_every_term_a_tab_uses_is_said_plainly_on_it(model, tab, params, terms):
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in {"model": model, "tab": tab, **params}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    panel = next(t for t in at.tabs if t.label == tab)
    used = used_in(" ".join(_texts(panel)))
    assert terms <= set(used), used
    captions = [c.value for c in panel.caption]
    for term in used:
        line = TERMS[term][1]
        assert sum(line in c for c in captions) == 1, (tab, term)
