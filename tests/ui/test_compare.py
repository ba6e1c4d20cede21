"""Compare mode: two runs of one head side by side and B − A where their tokens line up.

The pure part (viz/compare.py) is checked against Eq. (1) recomputed with numpy from each run's
own queries and keys, and against alignments worked out by hand; the tab is driven with
Streamlit's AppTest, from the URL a shared link or a demo scene would open.
"""

import importlib
import json
import pkgutil
from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

import ui
from model.transformer import RunSettings
from runtime import registry
from runtime.trace import run
from tests.linked import linked
from tests.plotly_data import plotly_array
from ui import compare_tab, state
from viz.compare import compare, difference_figure, largest_change, matched_pairs

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIRED = "The animal didn't cross the street because it was too tired."
WIDE = "The animal didn't cross the street because it was too wide."
CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def untrained():
    return registry.load("paper-untrained", CPU)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


# --- viz/compare.py ---------------------------------------------------------------------------


def test_matched_pairs_skip_the_changed_word():
    a = ["the", "animal", "was", "too", "tired", "."]
    b = ["the", "animal", "was", "too", "wide", "."]
    assert matched_pairs(a, b) == ((0, 0), (1, 1), (2, 2), (3, 3), (5, 5))
    assert matched_pairs(a, ["the", "old", "animal"]) == ((0, 0), (1, 2))
    assert matched_pairs(a, ["nothing", "shared"]) == ()


def test_a_long_text_keeps_its_frequent_tokens_matched():
    """difflib's autojunk would drop "the" (over 1% of 200+ tokens) from the matching."""
    a = ["the", "dog", ",", "the", "cat", "."] * 40
    b = list(a)
    b[120] = "new"
    pairs = matched_pairs(a, b)
    assert len(pairs) == len(a) - 1 and (120, 120) not in pairs
    assert all(a[i] == b[j] for i, j in pairs)


def test_scaled_and_unscaled_runs_are_eq_1_with_and_without_the_scale(untrained):
    """A is softmax(QKᵀ/√d_k), B is softmax(QKᵀ): recomputed from each run's own Q and K."""
    text = "the dog sees the old man ."
    scaled = run(untrained, text)
    unscaled = run(untrained, text, RunSettings(scale=1.0))
    layer, head = 2, 5
    result = compare(scaled, unscaled, "encoder_self", layer, head)
    assert result.complete and result.a.shape == (len(scaled.source_tokens),) * 2

    def by_hand(trace, scale):
        q = trace.queries["encoder_self"][layer, head].astype(np.float64)
        k = trace.keys["encoder_self"][layer, head].astype(np.float64)
        return _softmax(q @ k.T * scale)

    np.testing.assert_allclose(result.a, by_hand(scaled, 1 / np.sqrt(scaled.d_k)), atol=1e-5)
    np.testing.assert_allclose(result.b, by_hand(unscaled, 1.0), atol=1e-5)
    np.testing.assert_allclose(result.difference, result.b - result.a)
    assert np.abs(result.difference).max() > 1e-3  # the scale does change this head


def test_two_texts_compare_the_cells_of_the_shared_tokens(untrained):
    a = run(untrained, "the dog sees the man .")
    b = run(untrained, "the old dog sees the man .")
    old = b.source_tokens.index("old")
    keep = [i for i in range(len(b.source_tokens)) if i != old]
    result = compare(a, b, "encoder_self", 1, 3)
    assert result.unmatched_a == () and result.unmatched_b == (f"old (token {old + 1})",)
    np.testing.assert_array_equal(result.a, a.attention["encoder_self"][1, 3])
    np.testing.assert_array_equal(result.b, b.attention["encoder_self"][1, 3][np.ix_(keep, keep)])
    # The mean over heads is compared the same way.
    mean = compare(a, b, "encoder_self", 1, None)
    np.testing.assert_allclose(mean.a, a.attention["encoder_self"][1].mean(axis=0), atol=1e-6)


def test_difference_figure_hovers_a_b_and_their_difference(untrained):
    a = run(untrained, "the dog sees the man .")
    b = run(untrained, "the old dog sees the man .")
    result = compare(a, b, "encoder_self", 0, 0)
    fig = difference_figure(result, a).to_plotly_json()
    heat = fig["data"][0]
    z, custom = plotly_array(heat["z"]), plotly_array(heat["customdata"])
    np.testing.assert_allclose(z, result.b - result.a, atol=1e-6)
    np.testing.assert_allclose(custom[..., 0], result.a, atol=1e-6)
    np.testing.assert_allclose(custom[..., 1], result.b, atol=1e-6)
    assert (heat["zmin"], heat["zmax"]) == (-1.0, 1.0)
    for value in ("A: %{customdata[0]", "B: %{customdata[1]", "B − A: %{z"):
        assert value in heat["hovertemplate"]
    assert list(fig["layout"]["xaxis"]["ticktext"]) == list(a.source_tokens)
    title = fig["layout"]["title"]["text"]
    assert "B − A" in title and "layer 1, head 1" in title and "tokens in both" in title


def test_decoder_self_attention_keeps_its_mask(untrained):
    a = run(untrained, "the dog .")
    b = run(untrained, "the dog .", RunSettings(scale=1.0))
    result = compare(a, b, "decoder_self", 0, 0)
    masked = np.isnan(result.difference)
    # Row t may read positions 0..t only (Section 3.2.3): the cells above the diagonal.
    expected = np.triu(np.ones_like(masked, dtype=bool), k=1)
    assert np.array_equal(masked, expected[: masked.shape[0], : masked.shape[1]])
    fig = difference_figure(result, a)
    assert any("masked" in (trace.hovertemplate or "") for trace in fig.data)


def test_largest_change_is_signed_and_named():
    class Stub:  # just what largest_change reads of a run
        def axis_tokens(self, kind):
            return ("x", "y"), ("x", "y")

    from viz.compare import Comparison

    result = Comparison(
        "encoder_self",
        0,
        0,
        ((0, 0), (1, 1)),
        ((0, 0), (1, 1)),
        np.array([[0.9, 0.1], [0.5, 0.5]]),
        np.array([[0.2, 0.6], [0.6, 0.4]]),
        (),
        (),
    )
    change, query, key = largest_change(result, Stub())
    assert change == pytest.approx(-0.7) and (query, key) == ("x", "x")


# --- the tab, in AppTest --------------------------------------------------------------------


@pytest.fixture(autouse=True, scope="module")
def only_the_compare_tab():
    """The other tabs have their own tests; here they draw nothing."""
    patcher = pytest.MonkeyPatch()
    for info in pkgutil.iter_modules(ui.__path__):
        if info.name.endswith("_tab") and info.name != "compare_tab":
            patcher.setattr(importlib.import_module(f"ui.{info.name}"), "render", lambda ctx: [])
    yield
    patcher.undo()


def _app(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in {"tab": "Compare", **params}.items():
        at.query_params[key] = value
    return at.run()


def _tab(at):
    return next(tab for tab in at.tabs if tab.label == "Compare")


def _figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in _tab(at).get("plotly_chart")]


def test_the_lecture_scene_opens_two_sentences_side_by_side():
    at = _app(model="minilm-l6", text=TIRED, compare_text=WIDE, layer="4", head="2", present="1")
    assert not at.exception, [e.value for e in at.exception]
    a, b, difference = _figures(at)
    assert a["layout"]["title"]["text"].startswith("text A · encoder self-attention · layer 4")
    assert b["layout"]["title"]["text"].startswith("text B · encoder self-attention · layer 4")
    assert (
        "tired" in a["layout"]["xaxis"]["ticktext"] and "wide" in b["layout"]["xaxis"]["ticktext"]
    )
    # Side by side on the 1,680 px of a 1920 px projector.
    width = a["layout"]["width"] + b["layout"]["width"] + compare_tab.ROW_GAP_PX
    assert width <= state.main_width_px(True)
    assert "tired" not in difference["layout"]["xaxis"]["ticktext"]
    caption = " ".join(c.value for c in _tab(at).caption)
    assert "only in A: “tired" in caption and "only in B: “wide" in caption
    # it → animal: the weight falls from A to B, and the hover's B − A says by how much.
    tokens = list(difference["layout"]["xaxis"]["ticktext"])
    it, animal = tokens.index("it"), tokens.index("animal")
    custom = plotly_array(difference["data"][0]["customdata"])
    assert custom[it, animal, 1] < custom[it, animal, 0]
    assert at.query_params["compare_text"] == WIDE and linked(at, "compare_mode") == "texts"


def test_heatmaps_that_must_stack_take_the_presentation_size():
    """Side by side where the usual size allows it; stacked ones are drawn larger."""
    long = "the dog sees the man and the old cat sees the small woman . " * 3
    for text, side_by_side in (("the dog sees the man .", True), (long, False)):
        normal = _figures(_app(model="paper-untrained", text=text, compare_text=text))
        shown = _figures(_app(model="paper-untrained", text=text, compare_text=text, present="1"))
        width = shown[0]["layout"]["width"] + shown[1]["layout"]["width"]
        assert (width + compare_tab.ROW_GAP_PX <= state.main_width_px(True)) == side_by_side
        larger = shown[0]["layout"]["font"]["size"] > normal[0]["layout"]["font"]["size"]
        assert larger == (not side_by_side)


def test_modes_and_head_are_kept_in_the_url():
    at = _app(model="paper-untrained", compare_mode="scale", layer="2", head="3")
    assert not at.exception, [e.value for e in at.exception]
    titles = [f["layout"]["title"]["text"] for f in _figures(at)]
    assert "no scaling" in titles[1] and "layer 2, head 3" in titles[0]
    at.selectbox(key="head").set_value(4).run()
    assert at.query_params["head"] == "5"
    assert all("layer 2, head 5" in f["layout"]["title"]["text"] for f in _figures(at))
    at.radio(key="compare_mode").set_value("ablate").run()
    assert not at.exception
    assert any("Choose heads above" in box.value for box in at.info)
    at = _app(model="paper-untrained", compare_mode="ablate", ablate="encoder_self:1:2", layer="3")
    assert not at.exception, [e.value for e in at.exception]
    assert _figures(at)[1]["layout"]["title"]["text"].startswith("B: L1 H2 off")
    assert at.query_params["ablate"] == "encoder_self:1:2"


@pytest.mark.parametrize(
    "text_b, message",
    [
        ("   ", "Type a second text (B)"),
        ("\x00\x00", "Text B cannot be run"),
        ("dog " * 60, "only the first 48 are shown"),
    ],
    ids=["empty", "nothing-to-run", "too-long"],
)
def test_bad_second_text_is_a_warning_not_a_traceback(text_b, message):
    at = _app(model="paper-untrained")
    at.text_input(key="compare_text").set_value(text_b).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(message in box.value for box in at.warning), [w.value for w in at.warning]


def test_typed_html_is_escaped():
    """B's unknown word is named in a caption, a warning and the figure, as text only."""
    at = _app(
        model="paper-untrained",
        text="the dog sees the man .",
        compare_text="the <b>dog</b> sees the man .",
    )
    assert not at.exception
    b = _figures(at)[1]
    assert "&lt;unk&gt;" in b["layout"]["xaxis"]["ticktext"]
    assert not any("<" in label for label in b["layout"]["xaxis"]["ticktext"])
    caption = " ".join(c.value for c in _tab(at).caption)
    assert "only in B: “\\<unk\\>" in caption and "<unk>" not in caption
    warning = " ".join(w.value for w in at.warning)
    assert "\\<b\\>dog" in warning and "<b>" not in warning
