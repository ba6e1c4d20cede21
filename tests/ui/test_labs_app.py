"""The Positional-encoding and Scaling tabs in the real page script: they render for every model,
and their controls change what the figures show."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "app.py"
EN_DE_WEIGHTS = APP.parent / "model" / "weights" / "en-de.safetensors"
TEXT = "the dog sees the old man ."
LAB_TABS = ("Positional encoding", "Scaling 1/√d_k")
POSITION_CHARTS = (
    "pos_heatmap",
    "pos_curves",
    "pos_waves",
    "pos_similarity",
    "pos_profile",
    "pos_shift",
    "pos_input_norms",
    "pos_attention_00",
    "pos_attention_01",
    "pos_attention_10",
    "pos_attention_11",
    "pos_learned_heatmap",
    "pos_learned_profile",
)
SCALING_CHARTS = (
    "scaling_variance",
    "scaling_histograms",
    "scaling_softmax",
)
# The three scales: one figure when it fits a laptop's page (this text on the translator and
# the untrained model), else a heatmap each (MiniLM's [CLS] and [SEP] make it too wide).
LIVE_CHARTS = {"en-de": ["scaling_live"], "paper-untrained": ["scaling_live"]}
LIVE_CHARTS["minilm-l6"] = ["scaling_live_0", "scaling_live_1", "scaling_live_2"]
MODELS = [
    "paper-untrained",
    "minilm-l6",
    pytest.param(
        "en-de",
        marks=pytest.mark.skipif(
            not EN_DE_WEIGHTS.exists(), reason="model/weights/en-de.safetensors is not trained yet"
        ),
    ),
]


def charts(at: AppTest) -> dict[str, str]:
    """Chart key -> figure JSON. Streamlit ids end with the key given to st.plotly_chart."""
    return {chart.proto.id.rsplit("-", 1)[-1]: chart.proto.spec for chart in at.get("plotly_chart")}


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("tab", LAB_TABS)
def test_lab_tabs_render_and_follow_their_controls(model, tab):
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params["model"] = model
    at.query_params["text"] = TEXT
    at.query_params["tab"] = tab  # only the open tab runs
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert set(LAB_TABS) <= {t.label for t in at.tabs}
    before = charts(at)
    scaling = tab == "Scaling 1/√d_k"
    live = LIVE_CHARTS[model]
    assert set([*SCALING_CHARTS, *live] if scaling else POSITION_CHARTS) <= set(before)
    unrelated = "scaling_variance" if scaling else "pos_input_norms"

    changes = [
        (lambda: at.select_slider(key="scaling_dk").set_value(512), ["scaling_histograms"]),
        (lambda: at.slider(key="scaling_n").set_value(64), ["scaling_softmax"]),
        (lambda: at.select_slider(key="scaling_T").set_value(0.25), [live[-1]]),
    ]
    if not scaling:
        changes = [
            (lambda: at.slider(key="pos_n").set_value(300), ["pos_heatmap", "pos_profile"]),
            (lambda: at.slider(key="pos_k").set_value(40), ["pos_shift"]),
            (lambda: at.button(key="pos_reshuffle").click(), ["pos_attention_01"]),
            (lambda: at.slider(key="pos_d").set_value(64), ["pos_heatmap", "pos_waves"]),
        ]
    for change, changed in changes:
        change().run()
        assert not at.exception, [e.value for e in at.exception]
        after = charts(at)
        for key in changed:
            assert after[key] != before[key], f"{key} did not change"
        # Unrelated figures are redrawn identically (no hidden randomness).
        assert after[unrelated] == before[unrelated]
        before = after
    if scaling:
        assert at.query_params["scaling_dk"] in (["512"], "512")
