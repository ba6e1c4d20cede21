"""SmolLM2 in the real page script: every tab it offers renders, the paper-only tabs are left
out, its answer and its next-token choices stand above the tabs, and the Heads tab measures its
sinks, previous-token and induction heads."""

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui import attribution_tab, paper_tab

APP = Path(__file__).resolve().parents[2] / "app.py"
QUESTION = "What is the capital of France?"
TABS = [
    "Attention",
    "Heads & rollout",
    "Head atlas",
    "Ablation",
    "Compare",
    "Positional encoding",
    "Scaling 1/√d_k",
    "Model",
]


def _app(tab: str, text: str = QUESTION, **params: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params.update(model="smollm2-135m", text=text, tab=tab, **params)
    return at.run()


def _written(at: AppTest) -> list[str]:
    """The tokens the model wrote, from the table under its answer."""
    [choices] = [e for e in at.expander if "tokens it wrote" in e.label]
    # a short table is a data frame, a longer one a static table (ui/tables.py)
    [table] = [*choices.dataframe, *choices.table]
    return list(table.value["wrote"])


@pytest.mark.parametrize("tab", TABS)
def test_every_tab_it_offers_renders(tab):
    at = _app(tab)
    assert not at.exception, at.exception
    assert not at.error
    labels = [t.label for t in at.tabs]
    assert labels[: len(TABS)] == TABS
    for paper_only in (attribution_tab.TAB_LABEL, paper_tab.TAB_LABEL):
        assert paper_only not in labels


def test_the_answer_and_its_next_token_choices_stand_above_the_tabs():
    at = _app("Model")
    assert any("Output: The capital of France is Paris" in m.value for m in at.markdown)
    [choices] = [e for e in at.expander if "tokens it wrote" in e.label]
    table = choices.dataframe[0].value
    # it stopped at the end of its answer, well under the page's 32 tokens, and says what it cost
    assert at.select_slider(key="answer").value == 32
    assert any(c.value.startswith("This answer: 8 tokens in ") for c in at.sidebar.caption)
    assert list(table["wrote"]) == [
        "The",
        " capital",
        " of",
        " France",
        " is",
        " Paris",
        ".",
        "<|im_end|>",
    ]
    assert list(table["after"])[:2] == ["↵", "The"]  # each row read the token before
    assert all(0 < p <= 1 for p in table["probability"])
    assert table["top 5 next tokens"].iloc[5].startswith(" Paris")


def test_the_heads_tab_measures_sinks_previous_token_and_induction_heads():
    at = _app("Heads & rollout", "The cat sat on the mat. The cat sat on the")
    charts = {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    titles = [spec["layout"]["title"]["text"] for spec in charts.values()]
    for title in ("attention sink", "previous-token heads", "induction heads"):
        assert any(title in t for t in titles), titles
    text = " ".join(m.value for m in at.markdown)
    assert "Strongest induction heads" in text and "L19 H7" in text
    assert "ablated" in text


def test_the_attention_tab_says_which_heads_share_keys_and_values():
    at = _app("Attention")
    [note] = [c.value for c in at.caption if "Grouped-query" in c.value]
    assert "heads 1–3 read key/value head 1" in note and "heads 7–9 read key/value head 3" in note


def test_the_positional_lab_draws_rope_on_the_models_own_queries_and_keys():
    at = _app("Positional encoding", "The cat sat on the mat. The cat sat on the")
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert any("RoPE" in t for t in titles)
    assert any("at every pair of positions" in t for t in titles)
    assert any("Sinusoidal positional encoding" in t for t in titles)  # the paper's, after it
    [caption] = [c.value for c in at.caption if "every diagonal" in c.value]
    spread = float(re.search(r"to within ([0-9.e+-]+)", caption).group(1))
    assert spread < 1e-3


def test_a_deployments_lower_limit_reaches_the_page(monkeypatch):
    """ATLAS_MAX_NEW_TOKENS=3 (docs/deploy.md): the page's answer stops after three tokens and
    says why; the same question at the page's own limit is answered whole (test above), so the
    limit is part of what the shared Trace cache is keyed by."""
    monkeypatch.setenv("ATLAS_MAX_NEW_TOKENS", "3")
    at = _app("Model")
    assert not at.exception, at.exception
    assert any("Output: The capital of" in m.value for m in at.markdown)
    assert not any("Paris" in m.value for m in at.markdown)
    assert any("wrote 3 tokens" in w.value for w in [*at.warning, *at.info, *at.caption])


LONG_QUESTION = "Why is the sky blue?"


def _heatmap_axes(at: AppTest) -> tuple[list[str], list[str]]:
    """The Attention tab's heatmap: its key labels and its row labels, as shown."""
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    shown = [[s.replace("\u200b", "").replace("\u2060", "") for s in spec["data"][0][axis]]
             for axis in ("x", "y")]  # fmt: skip
    return shown[0], shown[1]


def test_the_system_prompt_is_one_folded_column_until_the_reader_shows_it():
    """Issue 66, item 5: ~20 rows of the template's system line filled the top of every figure."""
    keys, rows = _heatmap_axes(_app("Attention"))
    assert keys[0] == "[system prompt: 21 tokens]"
    assert not any("helpful" in row for row in rows) and " helpful" not in keys
    assert any("Paris" in row for row in rows)
    keys, rows = _heatmap_axes(_app("Attention", show_system="1"))
    assert " helpful" in keys and "[system prompt: 21 tokens]" not in keys
    assert len(keys) == len(rows) and any("helpful" in row for row in rows)


def test_a_longer_answer_can_be_asked_for_and_a_shorter_one_stops_where_asked():
    """Issue 66, item 5: answers stopped at 32 tokens mid-sentence with no way to read on."""
    short = _written(_app("Model", LONG_QUESTION))
    assert len(short) == 32 and short[-1] != "<|im_end|>"  # cut short at the page's default
    at = _app("Model", LONG_QUESTION, answer="96")
    assert not at.exception, at.exception
    longer = _written(at)
    assert longer[:32] == short  # the same greedy answer, read on
    assert len(longer) > 32
    assert at.select_slider(key="answer").value == 96
    at = _app("Model", LONG_QUESTION, answer="8")
    assert len(_written(at)) == 8
    assert any("wrote 8 tokens" in w.value for w in at.warning)


def test_only_a_language_model_has_an_answer_length():
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params.update(model="en-de", tab="Model")
    at.run()
    assert not at.exception
    assert not [s for s in at.select_slider if s.key == "answer"]


def test_switching_to_the_chat_model_asks_it_a_question_unless_a_text_was_typed():
    """Issue 66, item 5: the chat model kept the translator's opening sentence and wrote "He is
    a small dog." five times. An opening text follows the model; a typed one stays."""
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params.update(model="en-de", tab="Model")
    at.run()
    assert at.text_area(key="text").value == "The small dog sees the old man."
    at.selectbox(key="model").set_value("smollm2-135m").run()
    assert not at.exception
    assert at.text_area(key="text").value == QUESTION
    at.selectbox(key="model").set_value("en-de").run()
    assert at.text_area(key="text").value == "The small dog sees the old man."
    at.text_area(key="text").set_value("My sister reads a long book.").run()
    at.selectbox(key="model").set_value("minilm-l6").run()
    assert at.text_area(key="text").value == "My sister reads a long book."
