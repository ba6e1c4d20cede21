"""The held-out table of attention against gradients: its Spearman against pandas', its
per-head AER against model/evaluate.py's own head table on the same sentences, and the command
writing it into a copy of the shipped sidecar."""

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import torch

from model.evaluate import head_tables, held_out_examples
from model.subword import SubwordTokenizer
from model.weights import WEIGHTS_DIR, load_checked_model
from runtime.attribution_table import heldout_table, main, spearman


def test_spearman_is_pandas_spearman_ties_included():
    rng = np.random.default_rng(0)
    for _ in range(5):
        a = rng.integers(0, 4, size=(3, 5)).astype(float)  # many ties
        b = rng.normal(size=(3, 5))
        expected = pd.Series(a.ravel()).corr(pd.Series(b.ravel()), method="spearman")
        assert spearman(a, b) == pytest.approx(expected)
    assert np.isnan(spearman(np.ones((2, 2)), np.arange(4.0)))


@pytest.fixture(scope="module")
def shipped():
    model, sidecar = load_checked_model(WEIGHTS_DIR / "en-de.safetensors")
    model.eval().requires_grad_(False)
    return model, SubwordTokenizer.from_json(json.dumps(sidecar["tokenizer"]))


def test_the_heads_aer_is_model_evaluates_on_the_same_sentences(shipped):
    model, tokenizer = shipped
    examples = held_out_examples(3, 2)
    table = heldout_table(model, tokenizer, examples, steps=8)
    with torch.inference_mode():
        expected = head_tables(model, tokenizer, examples, [])["alignment_error_rate"]
    np.testing.assert_allclose(table["aer_per_head"], expected["per_head"], atol=1e-4)
    best = expected["best"]
    assert table["aer"][f"best head L{best['layer']} H{best['head']}"] == pytest.approx(
        best["value"], abs=1e-4
    )
    assert table["best"]["aer"] == min(table["aer"].values())
    assert set(table["spearman"]) == {
        f"best head L{best['layer']} H{best['head']}",
        f"best layer mean L{int(np.argmin(table['aer_per_layer_mean'])) + 1}",
    }


def test_the_command_writes_the_table_into_the_sidecar_and_keeps_the_rest(tmp_path):
    for suffix in (".safetensors", ".json"):
        shutil.copy(WEIGHTS_DIR / f"en-de{suffix}", tmp_path / f"en-de{suffix}")
    before = json.loads((tmp_path / "en-de.json").read_text())
    main(["--weights", str(tmp_path / "en-de.safetensors"), "--sentences", "2", "--steps", "4"])
    after = json.loads((tmp_path / "en-de.json").read_text())
    assert after["metrics"]["attribution_alignment"]["sentences"] == 2
    assert after["metrics"]["beam4"] == before["metrics"]["beam4"]
    assert after["sha256"] == before["sha256"]
    load_checked_model(tmp_path / "en-de.safetensors")  # the weights still match their sidecar
