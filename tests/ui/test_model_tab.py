"""The Model tab's pieces: the scores table, the per-head alignment-error figure, the vocabulary
search, and the reference translation beside the output."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from corpus.hand_checked import pairs
from runtime.registry import WEIGHTS_DIR
from ui.model_tab import architecture_table, open_head, vocabulary_table
from ui.url import SWITCHED
from viz.metrics import (
    alignment_error_grid,
    metrics_table,
    phenomenon_table,
    typed_sentences_table,
)

METRICS = {
    "test_set": {"size": 2000, "seed": 2},
    "beam4": {"exact_match": 0.9712, "bleu": 97.1},
    "greedy": {"exact_match": 0.9511, "bleu": 96.0},
    "two_clauses": {"size": 300, "exact_match": 0.5, "bleu": 80.4},
    "longer_than_training": {"size": 120, "exact_match": 0.25, "bleu": 70.2},
}


def test_metrics_table_has_one_row_per_evaluation_with_percentages():
    table = metrics_table(METRICS)
    assert list(table["sentences"]) == [2000, 2000, 300, 120]
    assert list(table["exact match"]) == ["97.1%", "95.1%", "50.0%", "25.0%"]
    assert list(table["BLEU (sacrebleu)"]) == ["97.10", "96.00", "80.40", "70.20"]


V2_METRICS = {
    "test_set": {"size": 3000},
    "beam4": {"exact_match": 0.97, "bleu": 95.5},
    "two_clauses": {"size": 300, "exact_match": 0.9},
    "coreference": {"size": 500, "exact_match": 0.8, "pronoun_right": 0.985},
    "names_and_digits_copied": 0.995,
    "per_phenomenon": {
        "past": {"n": 900, "exact_match": 0.99},
        "relative_object": {"n": 80, "exact_match": 0.85},
        "copula": {"n": 700, "exact_match": 0.99},
    },
}


def test_metrics_table_reads_corpus_v2_scores_without_bleu_where_there_is_none():
    table = metrics_table(V2_METRICS)
    assert list(table["exact match"]) == ["97.0%", "90.0%", "80.0%", "98.5%", "99.5%"]
    assert list(table["BLEU (sacrebleu)"]) == ["95.50", "", "", "", ""]
    assert list(table["sentences"]) == [3000, 300, 500, 500, 3000]


def test_metrics_table_has_a_row_for_each_hand_checked_file_of_the_shipped_sidecar(translator):
    """The three files written by hand (v2, v2.1, v1), each with its size and the figure the
    evaluation recorded in the sidecar."""
    metrics = translator.info["metrics"]
    table = metrics_table(metrics).set_index("evaluation")
    for key, corpus in (("hand_checked_v2", "v2"), ("hand_checked_v2_1", "v2.1")):
        [row] = [r for label, r in table.iterrows() if f"(corpus {corpus})" in label]
        assert row["sentences"] == metrics[key]["size"] == len(pairs(corpus))
        assert row["exact match"] == f"{100 * metrics[key]['exact_match']:.1f}%"
    [v1] = [r for label, r in table.iterrows() if "first corpus" in label]
    assert v1["sentences"] == len(pairs("v1"))


def test_phenomenon_table_puts_the_weakest_construction_first():
    table = phenomenon_table(V2_METRICS)
    assert list(table["phenomenon"]) == ["relative_object", "copula", "past"]
    assert list(table["exact match"]) == [85.0, 99.0, 99.0]


def test_open_head_sets_the_attention_tabs_view_with_zero_based_widgets(monkeypatch):
    state: dict = {}
    monkeypatch.setattr("ui.model_tab.st.session_state", state)
    open_head("encoder_self", 5, 3)
    switched = state.pop(SWITCHED)  # set again until a run has drawn them (url.switch)
    assert (
        state
        == switched
        == {
            "tab": "Attention",
            "view": "heatmap",
            "kind": "encoder_self",
            "layer": 4,
            "head": 2,
        }
    )


def test_alignment_error_grid_shows_the_values_on_a_fixed_scale():
    aer = np.random.default_rng(0).uniform(size=(6, 8)).round(4).tolist()
    figure = json.loads(alignment_error_grid(aer).to_json())
    trace = figure["data"][0]
    z = trace["z"]
    if isinstance(z, dict):  # plotly's typed-array encoding
        import base64

        z = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(6, 8)
    np.testing.assert_allclose(np.asarray(z, dtype=float), aer)
    assert (trace["zmin"], trace["zmax"]) == (0.0, 1.0)
    assert figure["layout"]["xaxis"]["title"]["text"] == "head"


def test_vocabulary_search_is_a_case_insensitive_substring_match(untrained):
    words = vocabulary_table(untrained, " HUND ")
    expected = [w for w in untrained.tokenizer.itos if "hund" in w.lower()]
    assert list(words["word"]) == expected and "Hund" in expected
    assert len(vocabulary_table(untrained, "")) == len(untrained.tokenizer.itos)


def test_architecture_table_counts_the_parameters(untrained):
    table = dict(architecture_table(untrained).values)
    assert table["heads h"] == "8" and table["d_k = d_v = d_model / h"] == "64"
    expected = sum(p.numel() for p in untrained.model.parameters())
    assert table["parameters"] == f"{expected:,}"


def test_the_grammar_s_verdict_is_shown_for_the_trained_model():
    """Typed as a class types it (lower case, spaced full stop): the grammar writes it, and the
    model wrote the grammar's German (written by hand here)."""
    at = AppTest.from_file("../../app.py", default_timeout=300)
    at.query_params["model"] = "en-de"
    at.query_params["text"] = "the small dog sees the old man ."
    at.run()
    assert not at.exception
    output = [m.value.replace("\\", "") for m in at.markdown if m.value.startswith("#### Output")]
    assert output == ["#### Output: Der kleine Hund sieht den alten Mann."]
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert badges == [":green-badge[:material/check_circle: As the grammar writes it]"]


def test_the_typed_sentences_table_reads_all_and_each_kind():
    metrics = {
        "typed_sentences": {
            "sentences": 4,
            "right": 0.5,
            "wrong_unwarned": 1,
            "right_warned": 1,
            "per_kind": {
                "questions": {
                    "sentences": 3,
                    "right": 2 / 3,
                    "wrong_unwarned": 1,
                    "right_warned": 1,
                },
                "long": {"sentences": 1, "right": 0.0, "wrong_unwarned": 0, "right_warned": 0},
            },
        }
    }
    table = typed_sentences_table(metrics)
    assert list(table["kind"]) == ["all", "questions", "20 words and more"]
    assert list(table["right %"]) == [50.0, 66.7, 0.0]
    assert list(table["wrong, no warning"]) == [1, 1, 0]
    assert typed_sentences_table({}) is None


def test_the_model_tab_shows_the_sentences_people_type():
    at = AppTest.from_file("../../app.py", default_timeout=300)
    at.query_params["model"] = "en-de"
    at.query_params["tab"] = "Model"
    at.run()
    assert not at.exception
    assert "On sentences people type" in [h.value for h in at.subheader]
    typed = json.loads((WEIGHTS_DIR / "en-de.json").read_text())["metrics"]["typed_sentences"]
    (table,) = [t.value for t in at.dataframe if "wrong, no warning" in t.value.columns]
    assert table.iloc[0]["sentences"] == typed["sentences"]
    assert table.iloc[0]["wrong, no warning"] == typed["wrong_unwarned"]


@pytest.mark.parametrize(
    "sidecar,expected",
    [
        ({"sha256": "0", "metrics": {"beam4": {"exact_match": 0.8, "bleu": 85.0}}}, "en-de"),
        ("{not json", "minilm-l6"),
        (None, "minilm-l6"),
    ],
)
def test_the_page_opens_on_the_shipped_translator_else_the_pretrained_encoder(
    tmp_path, monkeypatch, sidecar, expected
):
    """Shipped weights open the page whatever their score (a model ships once it beats the one
    before it); missing or unreadable ones leave the page to MiniLM."""
    from runtime import registry

    monkeypatch.setattr(registry, "WEIGHTS_DIR", tmp_path)
    (tmp_path / "en-de.safetensors").write_bytes(b"weights")
    if sidecar is not None:
        text = sidecar if isinstance(sidecar, str) else json.dumps(sidecar)
        (tmp_path / "en-de.json").write_text(text)
    assert registry.default_model_name() == expected


def test_a_rewritten_sidecar_is_read_again(tmp_path, monkeypatch):
    """The page asks on every run, so the answer is kept per version of the sidecar file."""
    from runtime import registry

    monkeypatch.setattr(registry, "WEIGHTS_DIR", tmp_path)
    (tmp_path / "en-de.safetensors").write_bytes(b"weights")
    sidecar = tmp_path / "en-de.json"
    sidecar.write_text(json.dumps({"sha256": "0"}))
    assert registry.default_model_name() == "en-de"
    sidecar.write_text(json.dumps({"config": {}}))  # no checksum: not shipped
    stat = sidecar.stat()
    os.utime(sidecar, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert registry.default_model_name() == "minilm-l6"


def test_the_model_tab_draws_the_translators_training_loss_down_to_its_floor():
    at = AppTest.from_file("../../app.py", default_timeout=300)
    at.query_params["model"] = "en-de"
    at.query_params["tab"] = "Model"  # only the open tab runs
    at.run()
    assert not at.exception
    figures = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    # the shipped model is a fine-tune: the curve of each run it started from, oldest first,
    # then its own
    curves = [f for f in figures if "training loss" in f["layout"]["title"]["text"]]
    training = json.loads((WEIGHTS_DIR / "en-de.json").read_text())["training"]
    runs = [training]
    while "fine_tuned_from" in runs[-1]:
        runs.append(runs[-1]["fine_tuned_from"])
    histories = [run["loss_history"] for run in reversed(runs)]
    assert len(curves) == len(histories) >= 2
    for loss, history in zip(curves, histories):
        assert list(loss["data"][0]["x"]) == [step for step, _ in history]
        np.testing.assert_allclose(loss["data"][0]["y"], [value for _, value in history])
        (floor_line,) = loss["layout"]["shapes"]
        assert 0.9 < floor_line["y0"] == floor_line["y1"] < min(value for _, value in history)
        assert loss["layout"]["xaxis"]["title"]["text"] == "training step"
    captions = " ".join(c.value for c in at.caption)
    assert f"from scratch for {runs[-1]['steps']:,} steps" in captions
    assert f"then fine-tuned for {runs[-2]['steps']:,} (the second curve)" in captions


def test_a_fine_tune_of_a_fine_tune_names_each_run_in_order():
    from ui.model_tab import stages_caption, training_stages

    first = {"steps": 21400}
    second = {"steps": 1741, "fine_tuned_from": first}
    third = {"steps": 1277, "fine_tuned_from": second}
    assert training_stages(third) == [first, second, third]
    assert stages_caption(training_stages(third)) == (
        "First trained from scratch for 21,400 steps; then fine-tuned for 1,741 (the second "
        "curve); then for 1,277 (the third curve)."
    )


def test_a_shared_link_reopens_the_vocabulary_search():
    at = AppTest.from_file("../../app.py", default_timeout=300)
    at.query_params["model"] = "en-de"
    at.query_params["tab"] = "Model"
    at.query_params["vocab_search"] = "dog"
    at.run()
    assert not at.exception
    assert at.text_input(key="vocab_search").value == "dog"
    (words,) = [t.value["word"].tolist() for t in at.dataframe if "word" in t.value.columns]
    assert words and all("dog" in word.lower() for word in words)


def test_the_model_tab_imports_no_training_stack():
    """The loss floor comes from model.label_smoothing: the app does not load model.train and
    its evaluation packages (sacrebleu) to draw one line."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, ui.model_tab; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("'")
    assert "model.label_smoothing" in loaded
    assert "model.train" not in loaded and "sacrebleu" not in loaded


def test_the_model_tab_says_whether_attention_or_gradients_explain_the_translations_best():
    """The shipped sidecar's held-out table (python -m runtime.attribution_table), best first."""
    at = AppTest.from_file("../../app.py", default_timeout=300)
    at.query_params["model"] = "en-de"
    at.query_params["tab"] = "Model"
    at.run()
    assert not at.exception
    table = json.loads((WEIGHTS_DIR / "en-de.json").read_text())["metrics"]
    table = table["attribution_alignment"]
    (said,) = [m.value for m in at.markdown if "Attention or gradients?" in m.value]
    assert f"Over {table['sentences']} held-out sentences" in said
    (aer,) = [t.value for t in at.dataframe if list(t.value.columns) == ["method", "AER"]]
    assert list(aer["AER"]) == sorted(table["aer"].values())
    assert aer.iloc[0]["method"] == table["best"]["method"]


def test_the_model_tab_names_the_cross_attention_head_trained_to_align():
    """Beside the AER grid: which head alignment supervision trained (the sidecar's recipe) and
    the best held-out AER of the heads that learned without it."""
    at = AppTest.from_file("../../app.py", default_timeout=300)
    at.query_params["model"] = "en-de"
    at.query_params["tab"] = "Model"
    at.run()
    assert not at.exception
    sidecar = json.loads((WEIGHTS_DIR / "en-de.json").read_text())
    layer, head = sidecar["training"]["recipe"]["align_head"]
    (said,) = [m.value for m in at.markdown if "trained to align" in m.value]
    assert said.startswith(f"Layer {layer}, head {head} was trained to align")
    per_head = sidecar["metrics"]["alignment_error_rate"]["per_head"]
    assert f"AER {per_head[layer - 1][head - 1]:.3f} over 500 held-out sentences" in said
