"""The Head atlas tab, driven with Streamlit's AppTest from the URL a shared link opens: the
statistics table and chart are those of the corpus run (recomputed here from the runtime), one
head's picture holds every token of the corpus twice, and a pasted corpus that breaks a limit
gets its message, not a traceback."""

import json
from pathlib import Path

import numpy as np
import torch
from streamlit.testing.v1 import AppTest

from runtime.atlas import built_in_corpus, run_corpus
from runtime.registry import load
from tests.plotly_data import plotly_array
from viz.atlas import corpus_statistics

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TAB = "Head atlas"


def open_tab(model: str, **params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in {"model": model, "tab": TAB, **params}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def charts(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def test_the_roles_view_shows_every_head_over_the_built_in_corpus():
    at = open_tab("minilm-l6", atlas_stat="previous_share")
    (table,) = [t.value for t in at.dataframe if "role" in t.value.columns]
    assert len(table) == 6 * 12
    loaded = load("minilm-l6", torch.device("cpu"))
    expected = corpus_statistics(run_corpus(loaded, built_in_corpus(loaded)), loaded.special_tokens)
    np.testing.assert_allclose(table["previous_share"], expected["previous_share"], rtol=1e-6)
    assert table["role"].tolist() == expected["role"].tolist()
    (grid,) = charts(at)
    z = plotly_array(grid["data"][0]["z"])
    np.testing.assert_allclose(z.ravel(), expected["previous_share"], rtol=1e-6)
    assert "previous token" in grid["layout"]["title"]["text"]
    assert any("200 sentences" in c.value for c in at.caption)


def test_one_head_shows_every_query_and_key_of_the_translators_corpus():
    at = open_tab("en-de", atlas_view="head", atlas_kind="cross", atlas_layer="0", atlas_head="5")
    (figure,) = charts(at)
    queries, keys = figure["data"]
    said = " ".join(c.value for c in at.caption)
    tokens = int(said.split(" sentences, ")[1].split(" tokens")[0].replace(",", ""))
    # keys: the English tokens; queries: the German ones the decoder read
    assert len(plotly_array(keys["x"])) == tokens
    assert len(plotly_array(queries["x"])) > len(plotly_array(keys["x"])) * 0.8
    assert "the reference translation of 200" in said
    assert "layer 1, head 6" in figure["layout"]["title"]["text"]


def test_a_pasted_corpus_breaking_a_limit_gets_its_message():
    at = open_tab("minilm-l6", atlas_corpus="pasted")
    assert any("Paste sentences" in i.value for i in at.info)
    at.text_area(key="atlas_pasted").input("too long " * 200).run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "Line 1 has 1,799 characters; a line may have at most 1,000 (one sentence per line)."
    ]
    at.text_area(key="atlas_pasted").input("<b>bold</b> words.\nA second line.").run()
    assert not at.exception and not at.error
    assert any("2 sentences" in c.value for c in at.caption)
