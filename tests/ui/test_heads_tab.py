"""The Heads & rollout tab in a headless Streamlit session: the chosen table row is kept in the
URL as its layer and head, and a reload (a new session from that URL) restores it."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TAB = "Heads & rollout"


def _app(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in {"tab": TAB, **params}.items():
        at.query_params[key] = value
    return at.run()


def _panel(at):
    return next(tab for tab in at.tabs if tab.label == TAB)


def _selected_head_title(at) -> str:
    """The title of the tab's first figure: the chosen head's heatmap."""
    return json.loads(_panel(at).get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]


def test_a_chosen_row_goes_into_the_url_and_a_reload_restores_it():
    at = _app(model="minilm-l6")
    assert not at.exception, [e.value for e in at.exception]
    table = next(df.value for df in _panel(at).dataframe if "entropy_normalised" in df.value)
    n_heads = table["head"].max()
    # What the browser sends when a person clicks the row of layer 4, head 8 (rows: layer-major).
    row = 3 * n_heads + 7
    assert (table["layer"][row], table["head"][row]) == (4, 8)
    at.session_state["heads_table_encoder_self"] = {"selection": {"rows": [row]}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert (at.query_params["stats_layer"], at.query_params["stats_head"]) == (
        "4",
        "8",
    )  # as on screen
    assert "layer 4, head 8" in _selected_head_title(at)

    reloaded = _app(**{k: at.query_params[k] for k in ("model", "stats_layer", "stats_head")})
    assert not reloaded.exception
    assert "layer 4, head 8" in _selected_head_title(reloaded)
    assert any("The chosen row: layer 4, head 8" in c.value for c in _panel(reloaded).caption)
    # The table itself shows the row as chosen: the URL's row is its default selection.
    proto = next(df.proto for df in _panel(reloaded).dataframe if "entropy_normalised" in df.value)
    assert json.loads(proto.selection_default)["selection"]["rows"] == [row]


@pytest.mark.parametrize("layer, head", [("99", "0"), ("x", "-1")])
def test_a_bad_row_in_the_url_falls_back_to_the_first(layer, head):
    at = _app(model="minilm-l6", stats_layer=layer, stats_head=head)
    assert not at.exception, [e.value for e in at.exception]
    assert "layer 1, head 1" in _selected_head_title(at)
