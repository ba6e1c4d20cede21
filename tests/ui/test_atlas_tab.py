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
    at = open_tab("en-de", atlas_view="head", atlas_kind="cross", atlas_layer="1", atlas_head="6")
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


def test_one_head_by_tsne_with_a_named_token_in_colour():
    at = open_tab(
        "minilm-l6",
        atlas_view="head",
        atlas_layer="2",
        atlas_head="3",
        atlas_projection="tsne",
        atlas_colour="token",
        atlas_token="It",
    )
    (figure,) = charts(at)
    queries, keys, named_queries, named_keys = figure["data"]
    title = figure["layout"]["title"]["text"].replace("<br>", " ")
    drawn = int(title.split("the first ")[1].split(" of 200")[0])
    loaded = load("minilm-l6", torch.device("cpu"))
    corpus = run_corpus(loaded, built_in_corpus(loaded)[:drawn])
    tokens = [t for s in corpus.sentences for t in s.tokens["encoder_self"][0]]
    assert len(plotly_array(queries["x"])) == len(tokens) <= 2_500  # t-SNE's 5,000 points
    assert "(t-SNE)" in title and figure["layout"]["xaxis"]["title"]["text"].startswith("t-SNE")
    hits = tokens.count("it")
    assert hits > 10
    assert f"In colour: {hits} queries and {hits} keys of this token." in [
        c.value for c in at.caption
    ]
    assert len(plotly_array(named_queries["x"])) == len(plotly_array(named_keys["x"])) == hits
    named_at = plotly_array(named_queries["customdata"]).astype(int)
    assert [tokens[i] for i in named_at] == ["it"] * hits
    at.text_input(key="atlas_token").input("zzzz").run()
    assert any("No drawn query or key is this token" in w.value for w in at.warning)
