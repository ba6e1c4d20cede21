"""The paper tab in the real page script: every view renders for every model, is one click away
(the sidebar links, Figure 1's blocks), is kept in the URL, and survives bad URLs."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from runtime import registry
from tests.linked import linked
from ui import paper_tab

APP = Path(__file__).resolve().parents[2] / "app.py"
EN_DE_WEIGHTS = APP.parent / "model" / "weights" / "en-de.safetensors"
TEXT = "the dog sees the old man ."
EN_DE = pytest.param(
    "en-de",
    marks=pytest.mark.skipif(not EN_DE_WEIGHTS.exists(), reason="en-de weights are not trained"),
)
MODELS = ["paper-untrained", "minilm-l6", EN_DE]
CHARTS = {
    "fig1": {"paper_fig1_0"},
    "fig2": {
        "paper_f2_inputs",
        "paper_f2_diagram",
        "paper_f2_step_matmul",
        "paper_f2_step_scale",
        "paper_f2_step_mask",
        "paper_f2_step_softmax",
        "paper_f2_step_output",
        "paper_f2_heads",
        "paper_f2_output",
    },
    "restricted": {"paper_r_full", "paper_r_band", "paper_r_paths", "paper_r_growth"},
    "table1": set(),  # the timings are drawn once measured (below)
    "projections": {"paper_p_raw", "paper_p_learned", "paper_p_diagonal"},
    "fig3-5": {"paper_h_links", "paper_h_scores"},
}


def page(**params) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params.update({"text": TEXT, "tab": paper_tab.TAB_LABEL, **params})
    return at.run()


def charts(at: AppTest) -> dict[str, dict]:
    """Chart key -> figure. Streamlit ids end with the key given to st.plotly_chart."""
    return {
        chart.proto.id.rsplit("-", 1)[-1]: json.loads(chart.proto.spec)
        for chart in at.get("plotly_chart")
    }


def param(at: AppTest, key: str) -> str | None:
    return linked(at, key)


def open_tab(at: AppTest) -> str:
    """The open tab, as the URL says; the first tab ("Attention") is the default, left out."""
    return param(at, "tab") if "tab" in at.query_params else paper_tab.ATTENTION_TAB


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("view", list(paper_tab.VIEWS))
def test_every_view_renders_for_every_model(model, view):
    at = page(model=model, paper_view=view)
    assert_clean(at)
    assert paper_tab.TAB_LABEL in [t.label for t in at.tabs]
    assert CHARTS[view] <= set(charts(at))
    assert param(at, "paper_view") == view


def test_the_tabs_figure1_opens_are_the_pages_tabs():
    at = page(model="paper-untrained")
    labels = [t.label for t in at.tabs]
    for label in (paper_tab.ATTENTION_TAB, paper_tab.POSITIONAL_TAB, paper_tab.SCALING_TAB):
        assert label in labels


def test_the_view_is_kept_in_the_url_and_restored_from_it():
    at = page(
        model="paper-untrained",
        paper_view="restricted",
        paper_kind="decoder_self",
        paper_layer="3",
        paper_head="4",
        paper_r="3",
    )
    assert_clean(at)
    assert at.slider(key="paper_r").value == 3
    assert at.selectbox(key="paper_kind").value == "decoder_self"
    assert at.selectbox(key="paper_head").value == 3
    band = charts(at)["paper_r_band"]
    assert "layer 3, head 4" in band["layout"]["title"]["text"]
    assert "window r = 3" in band["layout"]["title"]["text"]
    before = charts(at)
    at.slider(key="paper_r").set_value(1).run()
    assert_clean(at)
    after = charts(at)
    assert after["paper_r_band"] != before["paper_r_band"]
    assert after["paper_r_full"] == before["paper_r_full"]  # the page's own run, unchanged
    assert param(at, "paper_r") == "1"
    assert (param(at, "paper_kind"), param(at, "paper_layer")) == ("decoder_self", "3")  # as shown


@pytest.mark.parametrize(
    "bad",
    [
        {"paper_view": "nowhere"},
        {"paper_r": "abc"},
        {"paper_r": "999"},
        {"paper_r": "0"},
        {"paper_layer": "-1", "paper_head": "100"},
        {"paper_kind": "cross", "paper_view": "restricted"},
        {"paper_kind": "cross", "model": "minilm-l6"},
    ],
)
def test_a_bad_url_falls_back_to_defaults(bad):
    at = page(**{"model": "paper-untrained", **bad})
    assert_clean(at)
    assert param(at, "paper_view") in paper_tab.VIEWS


@pytest.mark.parametrize("view", list(paper_tab.VIEWS))
def test_the_sidebar_opens_each_view_in_one_click(view):
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params.update({"model": "paper-untrained", "text": TEXT})
    at.run()
    assert open_tab(at) == paper_tab.ATTENTION_TAB
    at.pills(key="paper_jump").set_value(view).run()
    assert_clean(at)
    assert open_tab(at) == paper_tab.TAB_LABEL
    assert param(at, "paper_view") == view
    assert CHARTS[view] <= set(charts(at))
    assert at.pills(key="paper_jump").value is None  # a link, not a lasting choice


@pytest.mark.parametrize(
    ("target", "tab", "key", "value"),
    [
        ("attention:cross", "Attention", "kind", "cross"),
        ("scaling:decoder_self", "Scaling 1/√d_k", "scaling_kind", "decoder_self"),
        ("positional", "Positional encoding", None, None),
        ("fig2:cross", paper_tab.TAB_LABEL, "paper_kind", "cross"),
        ("restricted:decoder_self", paper_tab.TAB_LABEL, "paper_view", "restricted"),
        ("table1", paper_tab.TAB_LABEL, "paper_view", "table1"),
        ("projections", paper_tab.TAB_LABEL, "paper_view", "projections"),
    ],
)
def test_figure1_opens_each_blocks_view(target, tab, key, value):
    at = page(model="paper-untrained", paper_view="fig1")
    at.selectbox(key="paper_fig1_target").set_value(target)
    at.button(key="paper_fig1_open").click().run()
    assert_clean(at)
    assert open_tab(at) == tab
    if key is not None:
        assert param(at, key) == value
    if target == "attention:cross":
        title = charts(at)["attention_heatmap"]["layout"]["title"]["text"]
        assert "cross" in title


def test_figure1_click_callback_opens_the_clicked_block(monkeypatch):
    """The chart's selection (what a click on a block sends) is read and followed."""
    state = {"paper_fig1_0": {"selection": {"points": [{"customdata": "attention:decoder_self"}]}}}
    monkeypatch.setattr(paper_tab.st, "session_state", state)
    paper_tab._on_figure1_select("paper_fig1_0")
    assert state["tab"] == paper_tab.ATTENTION_TAB and state["kind"] == "decoder_self"
    assert state["paper_fig1_nav"] == 1  # the next chart is a fresh one
    state["paper_fig1_1"] = {"selection": {"points": [{"customdata": "evil:<b>"}]}}
    paper_tab._on_figure1_select("paper_fig1_1")  # an unknown target is ignored
    assert state["tab"] == paper_tab.ATTENTION_TAB


def test_table1_measures_when_asked_and_keeps_the_result():
    model = "en-de" if EN_DE_WEIGHTS.exists() else "paper-untrained"  # the smaller d_model
    at = page(model=model, paper_view="table1")
    assert_clean(at)
    assert at.dataframe[0].value["Layer Type"].tolist()[0] == "Self-Attention"
    at.button(key="paper_measure").click().run()
    assert_clean(at)
    drawn = charts(at)
    assert {"paper_t1_time", "paper_t1_ratio"} <= set(drawn)
    names = [trace.get("name", "") for trace in drawn["paper_t1_time"]["data"]]
    assert any(name.startswith("n = d = ") for name in names)
    # Another session sees the measurement without measuring again.
    again = page(model=model, paper_view="table1")
    assert {"paper_t1_time", "paper_t1_ratio"} <= set(charts(again))


# --- Figures 3–5 on MiniLM -------------------------------------------------------------------------


def links_title(at: AppTest) -> str:
    return charts(at)["paper_h_links"]["layout"]["title"]["text"]


def test_figures_3_to_5_draw_the_statistics_pick_until_another_is_chosen():
    at = page(model="paper-untrained", paper_view="fig3-5", paper_hfig="4")
    assert_clean(at)
    # The statistic, on MiniLM whatever the sidebar's model: the weight from "its" to "law".
    assert "weight from" in " ".join(m.value for m in at.markdown)
    layer, head = int(param(at, "paper_hlayer")) - 1, state_heads(at)[0]  # from 1 in the URL
    scores = charts(at)["paper_h_scores"]["data"][0]["z"]
    assert scores[layer][head] == max(max(row) for row in scores)
    assert f"layer {layer + 1}, heads {head + 1}" in links_title(at)
    assert "lines from 'its'" in links_title(at)
    at.multiselect(key="paper_hheads").set_value([0, 5]).run()
    assert_clean(at)
    assert param(at, "paper_hheads") == "1,6" and "heads 1, 6" in links_title(at)
    at.button(key="paper_hrestore").click().run()
    assert state_heads(at)[0] == head
    at.radio(key="paper_hfig").set_value("5").run()  # another figure: its own pick
    assert_clean(at)
    assert "fixed-offset share" in " ".join(m.value for m in at.markdown)
    assert "lines from every word" in links_title(at)


def state_heads(at: AppTest) -> list[int]:
    """The chosen heads as indices (the URL counts them from 1, as the screen does)."""
    return [int(h) - 1 for h in param(at, "paper_hheads").split(",")]


def test_figures_3_to_5_are_restored_from_the_url():
    at = page(
        model="minilm-l6", paper_view="fig3-5", paper_hfig="3", paper_hlayer="6",
        paper_hheads="9,10", paper_hall="1",
    )  # fmt: skip
    assert_clean(at)
    assert "layer 6, heads 9, 10" in links_title(at)
    assert "lines from every word" in links_title(at)


@pytest.mark.parametrize(
    "bad",
    [
        {"paper_hfig": "9", "paper_hheads": "[99]", "paper_hlayer": "8"},
        {"paper_hfig": "4", "paper_hword": "500", "paper_hante": "0", "paper_htext": "x"},
        {"paper_hheads": "abc", "paper_hall": "2"},
    ],
)
def test_figures_3_to_5_survive_a_bad_url(bad):
    at = page(model="paper-untrained", paper_view="fig3-5", **bad)
    assert_clean(at)
    assert CHARTS["fig3-5"] <= set(charts(at))


def test_figures_3_to_5_run_on_the_sidebars_text_too():
    at = AppTest.from_file(str(APP), default_timeout=300)
    text = "<b>The cat</b> sat down because it was tired."
    at.query_params.update(
        {"model": "paper-untrained", "text": text, "tab": paper_tab.TAB_LABEL,
         "paper_view": "fig3-5", "paper_hfig": "4", "paper_htext": "sidebar"}
    )  # fmt: skip
    at.run()
    assert_clean(at)
    assert "<b>" not in links_title(at)
    # No "its" or "law" here: the first word and the middle one, until chosen.
    assert at.selectbox(key="paper_hante").value == 1
    labels = {
        label.split(": ", 1)[1]: i
        for i, label in enumerate(at.selectbox(key="paper_hword").options)
    }
    at.selectbox(key="paper_hword").select_index(labels["it"])
    at.selectbox(key="paper_hante").select_index(labels["cat"]).run()
    assert_clean(at)
    assert "lines from 'it'" in links_title(at)
    assert "from \\'it\\' to \\'cat\\'" in " ".join(m.value for m in at.markdown)


def test_a_sentence_too_short_for_the_statistic_says_so():
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params.update(
        {"model": "paper-untrained", "text": "Hello there.", "tab": paper_tab.TAB_LABEL,
         "paper_view": "fig3-5", "paper_hfig": "3", "paper_htext": "sidebar"}
    )  # fmt: skip
    at.run()
    assert_clean(at)
    assert any("Every head scores 0" in w.value for w in at.warning)


def test_figures_3_to_5_run_on_the_first_model_that_learned_from_real_text(monkeypatch):
    """The tab asks the registry for a model trained on real text, not for a name: a new one
    ahead of MiniLM, with MiniLM's weights under another name and label, is the one drawn."""
    minilm = registry.MODELS["minilm-l6"]
    offered = replace(
        minilm,
        name="real-text-test",
        short_label="Test encoder",
        load=lambda device: replace(
            minilm.load(device), name="real-text-test", label="Test encoder from real text"
        ),
    )
    others = dict(registry.MODELS)
    others["minilm-l6"] = replace(minilm, real_text=False)
    monkeypatch.setattr(registry, "MODELS", {offered.name: offered, **others})
    assert paper_tab.heads_model() is offered
    at = page(model="paper-untrained", paper_view="fig3-5")
    assert_clean(at)
    assert any(
        "Encoder self-attention of Test encoder from real text" in c.value for c in at.caption
    )


def test_the_scaling_lab_says_the_scale_is_for_training():
    """Issue 66, item 6: on the trained translator "no scaling" writes the same German, and the
    page read as if the scale did not matter. The lab says what it is for, beside the output."""
    at = page(model="en-de", tab="Scaling 1/√d_k")
    assert not at.exception
    notes = [i.value for i in at.info if "is there for training" in i.value]
    assert len(notes) == 1 and "saturation" in notes[0]
