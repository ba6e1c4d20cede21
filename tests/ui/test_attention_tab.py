"""The Attention tab in a headless Streamlit session: every view renders, the URL holds the view,
and the figures show the typed text's tokens."""

import html
import importlib
import json
import pkgutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import ui
from runtime.registry import MODELS
from tests.linked import linked
from tests.plotly_data import plotly_array
from ui.attention_tab import flat_cross_attention_note
from ui.controls import HEAD_ROW_COLUMNS
from viz.style import KIND_LABELS

APP = str(Path(__file__).resolve().parents[2] / "app.py")
EN_DE_WEIGHTS = Path(__file__).resolve().parents[2] / "model" / "weights" / "en-de.safetensors"
ALL_VIEWS = ("heatmap", "overview", "find", "links", "breakdown", "decoding")
PAPER_SENTENCE = "The animal didn't cross the street because it was too tired."


@pytest.fixture(autouse=True, scope="module")
def only_the_attention_tab():
    """The other tabs draw their own figures on every rerun and have their own tests; here they
    draw nothing, so these tests time and check the Attention tab alone."""
    patcher = pytest.MonkeyPatch()
    for info in pkgutil.iter_modules(ui.__path__):
        if info.name.endswith("_tab") and info.name != "attention_tab":
            patcher.setattr(importlib.import_module(f"ui.{info.name}"), "render", lambda ctx: [])
    yield
    patcher.undo()


def _model_params():
    en_de = pytest.param(
        "en-de",
        marks=pytest.mark.skipif(
            "en-de" not in MODELS or not EN_DE_WEIGHTS.exists(),
            reason="the trained en-de model is not registered or its weights are not there yet",
        ),
    )
    return ["paper-untrained", "minilm-l6", en_de]


def _app(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def _figures(at) -> list[dict]:
    """The Attention tab's figures as Plotly JSON."""
    return [json.loads(chart.proto.spec) for chart in at.tabs[0].get("plotly_chart")]


@pytest.mark.parametrize("model", _model_params())
def test_every_view_renders(model):
    at = _app(model=model)
    assert not at.exception
    views = at.radio(key="view").options
    has_decoder = model != "minilm-l6"
    assert len(views) == (6 if has_decoder else 5)
    for view in ALL_VIEWS[: len(views)]:
        at.radio(key="view").set_value(view).run()
        assert not at.exception, (view, at.exception)
        assert linked(at, "view") == view
        figures = _figures(at)
        assert figures and all(f["layout"]["title"]["text"] for f in figures)
    if has_decoder:
        at.radio(key="view").set_value("heatmap").run()
        for kind in ("encoder_self", "decoder_self", "cross"):
            at.selectbox(key="kind").set_value(kind).run()
            assert not at.exception, (kind, at.exception)


def test_url_sets_the_view():
    at = _app(model="paper-untrained", view="links", kind="cross", layer="3", focus="q1")
    assert not at.exception
    assert at.radio(key="view").value == "links"
    title = _figures(at)[0]["layout"]["title"]["text"]
    assert "encoder-decoder (cross) attention" in title and "layer 3, heads 1, 2" in title
    assert at.selectbox(key="focus").value == "q1"
    at.radio(key="view").set_value("breakdown").run()
    assert at.query_params["view"] == "breakdown"
    assert "layer 3, head 1<br>query" in _figures(at)[0]["layout"]["title"]["text"]


def test_bad_url_values_fall_back():
    at = _app(model="minilm-l6", view="decoding", layer="100", head="x")
    assert not at.exception
    assert at.radio(key="view").value == "heatmap"  # MiniLM has no decoder
    assert "layer 1, head 1" in _figures(at)[0]["layout"]["title"]["text"]


def test_typed_sentence_labels_the_heatmap_and_layer_head_redraw():
    text = "a cat and a dog see the man ."
    at = _app(model="paper-untrained", view="heatmap")
    at.sidebar.text_area(key="text").set_value(text).run()
    first = _figures(at)[0]
    tokens = text.split()  # every word is one piece of the translator's vocabulary
    assert first["layout"]["xaxis"]["ticktext"] == tokens
    assert first["layout"]["yaxis"]["ticktext"] == tokens
    at.select_slider(key="layer").set_value(3).run()
    at.selectbox(key="head").set_value(5).run()
    second = _figures(at)[0]
    assert "layer 4, head 6" in second["layout"]["title"]["text"]
    assert at.query_params["layer"] == "4" and at.query_params["head"] == "6"  # as on screen
    assert not np.array_equal(
        plotly_array(first["data"][0]["z"]), plotly_array(second["data"][0]["z"])
    )


def test_typed_html_is_escaped_end_to_end():
    at = _app(model="minilm-l6", text="the <b>x</b> dog")
    ticktext = _figures(at)[0]["layout"]["xaxis"]["ticktext"]
    assert html.escape("<") in ticktext and "/" in ticktext
    assert not any("<" in label for label in ticktext)


def test_presentation_mode_is_larger_and_sparer():
    normal = _app(model="paper-untrained")
    shown = _app(model="paper-untrained", present="1")
    assert not shown.exception
    big, small = _figures(shown)[0]["layout"], _figures(normal)[0]["layout"]
    assert big["font"]["size"] > small["font"]["size"] and big["height"] > small["height"]
    explanation = "What am I looking at?"
    assert any(explanation in m.value for m in normal.tabs[0].markdown)
    assert not any(explanation in m.value for m in shown.tabs[0].markdown)
    # ... but a one-sentence explanation stays beside the figure.
    assert any("Each **row** is a token reading" in m.value for m in shown.tabs[0].markdown)
    # In front of a class: the slide images only (no CSV, JSON or HTML downloads).
    assert all(b.label.startswith("Slide") for b in shown.tabs[0].get("download_button"))


def test_the_untrained_models_output_says_what_it_is():
    untrained, trained = _app(model="paper-untrained"), _app(model="en-de")
    assert any("never been trained" in box.value for box in untrained.info)
    assert not any("never been trained" in box.value for box in trained.info)


@pytest.mark.parametrize("kind, explained", [("cross", True), ("encoder_self", False)])
def test_decoder_rows_are_explained_as_named_by_the_word_they_write(kind, explained):
    """The explanation says what the heatmap shows: the written word first, the read one after."""
    at = _app(model="en-de", kind=kind)
    assert not at.exception
    texts = " ".join(m.value for m in at.markdown)
    assert ("named by the word the row *writes*" in texts) == explained
    if explained:
        ticks = _figures(at)[0]["layout"]["yaxis"]["ticktext"]
        assert ticks[0].endswith("&lt;s&gt;</span>")  # row 1 reads <s>, written first


def _position(tokens, token):
    return [str(i) for i, t in enumerate(tokens) if t == token][0]


def test_find_the_head_ranks_every_minilm_head_for_it_and_animal(minilm):
    from runtime.trace import run
    from viz.find_head import rank_heads

    tokens = run(minilm, PAPER_SENTENCE).source_tokens
    query, key = _position(tokens, "it"), _position(tokens, "animal")
    at = _app(model="minilm-l6", text=PAPER_SENTENCE, view="find", query=query, key_token=key)
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="query").value == int(query)
    assert at.selectbox(key="key_token").value == int(key)
    grid = _figures(at)[0]
    assert grid["layout"]["title"]["text"] == "'it' → 'animal' · encoder self-attention"
    # The ranking, strongest first, is numpy's order of the weights over every head.
    attention = np.asarray(run(minilm, PAPER_SENTENCE).attention["encoder_self"], dtype=float)
    per_head = attention[:, :, int(query), int(key)]
    table = at.tabs[0].dataframe[0].value
    assert len(table) == 72 and table["weight"].is_monotonic_decreasing
    best = np.unravel_index(per_head.argmax(), per_head.shape)
    assert (table["layer"][0], table["head"][0]) == (best[0] + 1, best[1] + 1)
    assert table["weight"][0] == pytest.approx(per_head.max(), abs=1e-6)
    pd_expected = rank_heads(attention, "encoder_self", int(query), int(key))
    assert list(table["head"]) == list(pd_expected["head"])
    # The tokens stay in the URL, as positions; choosing another key re-ranks.
    assert (at.query_params["query"], at.query_params["key_token"]) == (query, key)
    at.selectbox(key="key_token").set_value(int(_position(tokens, "street"))).run()
    assert at.query_params["key_token"] == _position(tokens, "street")
    assert "'it' → 'street'" in _figures(at)[0]["layout"]["title"]["text"]


def test_find_the_head_refuses_a_masked_key_of_the_decoder():
    at = _app(model="en-de", view="find", kind="decoder_self", query="1", key_token="4")
    assert not at.exception, [e.value for e in at.exception]
    assert any("after the query" in box.value for box in at.info)
    assert not _figures(at)
    at.selectbox(key="key_token").set_value(1).run()  # the row's own token: not masked
    assert not at.info or not any("after the query" in box.value for box in at.info)
    title = _figures(at)[0]["layout"]["title"]["text"]
    written = at.selectbox(key="query").options[1].split("'")[1]  # "2: 'kleine' (reading …)"
    assert title.startswith(f"'{written}' → ")


def test_find_the_head_names_decoder_rows_by_the_token_written():
    at = _app(model="en-de", view="find", kind="cross", query="1", key_token="1")
    assert not at.exception, [e.value for e in at.exception]
    option = at.selectbox(key="query").options[1]
    assert "(reading '" in option


def test_the_overview_has_no_layer_slider_and_its_cells_report_clicks():
    at = _app(model="minilm-l6", view="overview", layer="4")
    assert not at.exception
    assert not at.tabs[0].get("select_slider")  # every layer is shown: nothing to choose
    overview_figure = _figures(at)[0]
    clicks = overview_figure["data"][-1]
    assert clicks["type"] == "scatter" and len(clicks["hovertext"]) == 72
    # Clicks reach Streamlit: the chart is a selectable widget.
    chart = at.tabs[0].get("plotly_chart")[0].proto
    assert list(chart.selection_mode)
    # The URL's layer is kept for the other views.
    assert at.query_params["layer"] == "4"
    at.radio(key="view").set_value("heatmap").run()
    assert at.select_slider(key="layer").value == 3


@pytest.mark.parametrize(
    "model, kinds",
    [("minilm-l6", []), ("paper-untrained", ["encoder_self", "decoder_self", "cross"])],
)
def test_a_kind_selector_only_when_there_is_a_choice_and_no_empty_column(model, kinds):
    """An encoder-only model has one kind: no select box for it, and the layer slider and head
    box keep their widths at the left of the row instead of after a blank column."""
    at = _app(model=model, view="heatmap")
    assert not at.exception
    offered = [list(box.options) for box in at.tabs[0].get("selectbox") if box.key == "kind"]
    assert offered == ([[KIND_LABELS[k] for k in kinds]] if kinds else [])
    columns = at.tabs[0].columns  # depth first: the row's columns follow one another
    layer = next(
        i
        for i, column in enumerate(columns)
        if any(child.type == "select_slider" for child in column.children.values())
    )
    start = layer - 1 if kinds else layer
    widths = [c.weight for c in columns[start : start + 3]]
    kind_width, layer_width, head_width = (w / sum(HEAD_ROW_COLUMNS) for w in HEAD_ROW_COLUMNS)
    if kinds:
        assert widths == pytest.approx([kind_width, layer_width, head_width])
    else:  # the spacer is last: what the kind box would have taken
        assert widths == pytest.approx([layer_width, head_width, kind_width])


# The(0) animal(1) didn't(2) cross(3) the(4) street(5) because(6) it(7): counted by hand.
@pytest.mark.parametrize(("adjective", "antecedent"), [("tired", (0, 1)), ("wide", (4, 5))])
def test_the_translator_outlines_the_gold_antecedent_and_focuses_the_pronoun(adjective, antecedent):
    """On the shipped translator, a sentence its grammar writes gets red squares in the row of
    'it' on the noun phrase it stands for, and one click opens that row in the token-links view."""
    text = f"The animal didn't cross the street because it was too {adjective}."
    at = _app(model="en-de", text=text, kind="encoder_self", layer="3", head="1")
    assert not at.exception
    figure = _figures(at)[0]
    squares = [s for s in figure["layout"]["shapes"] if s["type"] == "rect"]
    cells = sorted((round(s["y0"] + 0.5), round(s["x0"] + 0.5)) for s in squares)
    assert cells == [(7, antecedent[0]), (7, antecedent[1])]
    at.button(key="focus_pronoun").click().run()
    assert at.session_state["view"] == "links" and at.session_state["focus"] == "q7"


def test_cross_attention_s_pronoun_note_names_the_pronoun_written_not_the_token_read():
    """Issue 66, item 2: the row that writes "er" reads "aber" (the token before it); the note
    and its button named "aber". German written by hand: "Anna rief ihren Bruder an, aber er
    antwortete nicht." — the pronoun is "er"."""
    text = "Anna called her brother, but he did not answer."
    at = _app(model="en-de", text=text, kind="cross", layer="5", head="1")
    assert not at.exception
    notes = [c.value for c in at.caption if c.value.startswith("Red squares")]
    assert len(notes) == 1 and "the pronoun “er”" in notes[0], notes
    assert at.button(key="focus_pronoun").label == "Focus the row of “er” (token links)"


def test_a_translator_whose_cross_attention_does_not_align_is_said_not_to():
    """Issue 47: the explanation beside a grid of 0.1s must not leave a reader looking for an
    alignment that is not there (the figures the step-21,400 translator's sidecar gave)."""
    flat = SimpleNamespace(
        info={"metrics": {"alignment_error_rate": {
            "sentences": 500, "best": {"layer": 1, "head": 6, "value": 0.893},
        }}}
    )  # fmt: skip
    note = flat_cross_attention_note(flat)
    assert "does not align" in note and "(layer 1, head 6) scores AER 0.893" in note
    aligned = SimpleNamespace(
        info={"metrics": {"alignment_error_rate": {
            "sentences": 500, "best": {"layer": 5, "head": 1, "value": 0.09},
        }}}
    )  # fmt: skip
    assert flat_cross_attention_note(aligned) is None


def test_the_shipped_translators_cross_attention_names_the_head_trained_to_align():
    """Issue 47: beside cross-attention the page says which head alignment supervision trained
    (the sidecar's recipe) and what the best of the others scores; nothing says the heads do
    not align. Encoder self-attention gets neither note."""
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in {"model": "en-de", "kind": "cross", "text": "The dog sleeps."}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    sidecar = json.loads((Path(APP).parent / "model" / "weights" / "en-de.json").read_text())
    layer, head = sidecar["training"]["recipe"]["align_head"]
    captions = [c.value for c in at.caption]
    (note,) = [c for c in captions if "trained to align" in c]
    assert note.startswith(f"Layer {layer}, head {head} was trained to align")
    per_head = sidecar["metrics"]["alignment_error_rate"]["per_head"]
    others = [v for i, row in enumerate(per_head) for j, v in enumerate(row)
              if (i + 1, j + 1) != (layer, head)]  # fmt: skip
    assert f"scores AER {min(others):.3f}." in note
    assert not [c for c in captions if "does not align" in c]
    other = AppTest.from_file(APP, default_timeout=300)
    for key, value in {"model": "en-de", "kind": "encoder_self"}.items():
        other.query_params[key] = value
    other.run()
    assert not [c.value for c in other.caption if "trained to align" in c.value]


@pytest.mark.skipif(not EN_DE_WEIGHTS.exists(), reason="the trained en-de model is not there")
def test_the_translator_opens_on_its_aligned_cross_attention_head_and_says_why():
    """Issue 66, item 4: the picture the paper is famous for, cross-attention lining German up
    with English, was three actions away. The shipped translator's aligned head is layer 5,
    head 1 (AER 0.097 over 500 held-out sentences, its sidecar; README)."""
    at = _app(model="en-de")  # no kind, layer or head in the link: what a newcomer opens
    assert not at.exception
    title = _figures(at)[0]["layout"]["title"]["text"]
    assert title.startswith(KIND_LABELS["cross"]) and "layer 5, head 1" in title
    (why,) = [m.value for m in at.markdown if m.value.startswith("**Why this head:**")]
    assert "German word" in why and "AER 0.097" in why and "500 held-out" in why
    # the opening view is the default: a link to it stays short, and another view is written
    assert not {"kind", "layer", "head"} & set(at.query_params)
    at.selectbox(key="kind").set_value("encoder_self").run()
    assert at.query_params["kind"] == "encoder_self"
    assert not [m for m in at.markdown if m.value.startswith("**Why this head:**")]
    at.selectbox(key="kind").set_value("cross").run()
    at.selectbox(key="head").set_value(2).run()  # another head: no reason to give for it
    assert not [m for m in at.markdown if m.value.startswith("**Why this head:**")]
    # on a lecture screen, the short of it
    at = _app(model="en-de", present="1")
    (short,) = [m.value for m in at.markdown if m.value.startswith("**Why this head:**")]
    assert "AER 0.097" in short and len(short) < len(why) * 0.6


@pytest.mark.parametrize("model", ["paper-untrained", "minilm-l6"])
def test_a_model_with_no_aligned_head_opens_on_its_first_kind_layer_1_head_1(model):
    at = _app(model=model)
    assert not at.exception
    title = _figures(at)[0]["layout"]["title"]["text"]
    assert title.startswith(KIND_LABELS["encoder_self"]) and "layer 1, head 1" in title
    assert not [m for m in at.markdown if m.value.startswith("**Why this head:**")]


@pytest.mark.skipif(not EN_DE_WEIGHTS.exists(), reason="the trained en-de model is not there")
def test_a_head_nobody_chose_follows_the_model_and_a_chosen_one_stays():
    """The translator opens on layer 5, head 1 of cross-attention; switched to MiniLM, the page
    kept layer 5 (found by the browser tour). Left at a model's opening, the view moves to the
    next model's; chosen by the reader, it stays where the next model has it."""
    at = _app(model="en-de")
    at.selectbox(key="model").set_value("minilm-l6").run()
    assert not at.exception
    assert "encoder self-attention · layer 1, head 1" in _figures(at)[0]["layout"]["title"]["text"]
    at.selectbox(key="model").set_value("en-de").run()
    title = _figures(at)[0]["layout"]["title"]["text"]
    assert title.startswith(KIND_LABELS["cross"]) and "layer 5, head 1" in title
    at.selectbox(key="head").set_value(3).run()  # the reader's choice: layer 5, head 4
    at.selectbox(key="model").set_value("paper-untrained").run()
    assert "layer 5, head 4" in _figures(at)[0]["layout"]["title"]["text"]
