"""Hiding [CLS]/[SEP] from a heatmap: their rows and columns go, the other weights of each row
are renormalised, and the title says so."""

import base64
import json

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from runtime.registry import load
from runtime.trace import run
from viz.attention import heatmap, without_tokens


def figure_z(figure: dict) -> np.ndarray:
    z = figure["data"][0]["z"]
    if isinstance(z, dict):  # plotly's typed-array encoding
        flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"])
        return flat.reshape([int(n) for n in z["shape"].split(",")]).astype(float)
    return np.asarray(z, dtype=float)


def test_without_tokens_renormalises_the_kept_block():
    weights = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    tokens = ("[CLS]", "dog", "[SEP]")
    q, k, kept = without_tokens(tokens, tokens, weights, {"[CLS]", "[SEP]"})
    assert q == k == ("dog",)
    np.testing.assert_allclose(kept, [[1.0]])
    q, k, kept = without_tokens(tokens, tokens, weights, {"[SEP]"})
    np.testing.assert_allclose(kept, [[0.5 / 0.8, 0.3 / 0.8], [0.1 / 0.7, 0.6 / 0.7]])
    assert without_tokens(("[CLS]",), ("[CLS]",), np.ones((1, 1)), {"[CLS]"})[0] == ("[CLS]",)


@pytest.fixture(scope="module")
def minilm_trace():
    return run(load("minilm-l6", torch.device("cpu")), "the cat sat on the mat")


def test_heatmap_hides_special_tokens_of_the_pretrained_encoder(minilm_trace):
    fig = json.loads(
        heatmap(minilm_trace, "encoder_self", 2, 5, "m", hidden={"[CLS]", "[SEP]"}).to_json()
    )
    ticks = fig["layout"]["xaxis"]["ticktext"]
    assert ticks == ["the", "cat", "sat", "on", "the", "mat"]
    assert "[CLS], [SEP] hidden, rows renormalised" in fig["layout"]["title"]["text"].replace(
        "<br>", " "
    )
    block = minilm_trace.attention["encoder_self"][2, 5, 1:-1, 1:-1].astype(float)
    np.testing.assert_allclose(figure_z(fig), block / block.sum(-1, keepdims=True), atol=1e-6)
    plain = json.loads(heatmap(minilm_trace, "encoder_self", 2, 5, "m").to_json())
    assert plain["layout"]["xaxis"]["ticktext"][0] == "[CLS]"


def test_the_switch_in_the_page_hides_them():
    at = AppTest.from_file("../../app.py", default_timeout=300)
    at.query_params["model"] = "minilm-l6"
    at.query_params["text"] = "the cat sat"
    at.run()
    at.toggle(key="hide_special").set_value(True).run()
    assert not at.exception
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert fig["layout"]["xaxis"]["ticktext"] == ["the", "cat", "sat"]
    assert at.query_params["hide_special"] in ("1", ["1"])
