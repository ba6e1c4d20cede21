"""Head ablation: a per-call setting that changes later layers only and never the model.

The real runs use the untrained paper model on a short sentence (its decoder runs to the length
limit, 2 * 3 + 10 steps); the app is driven with Streamlit's AppTest.
"""

import base64
import dataclasses
import json
import math

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from model.transformer import RunSettings
from runtime import registry
from runtime.trace import DecodingStep, run
from ui.ablation_tab import format_ablation, parse_ablation
from viz.ablation import (
    attention_change,
    comparable_rows,
    hidden_similarity,
    shared_prefix,
    step_comparison,
)

TEXT = "the dog ."
HEAD = 3
ABLATE = frozenset({("encoder_self", 0, HEAD)})
CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def loaded():
    return registry.load("paper-untrained", CPU)


@pytest.fixture(scope="module")
def runs(loaded):
    """Intact, ablated, intact again, with the parameters before and after, in that order."""
    before = {k: v.clone() for k, v in loaded.model.state_dict().items()}
    intact = run(loaded, TEXT)
    ablated = run(loaded, TEXT, RunSettings(ablate=ABLATE))
    again = run(loaded, TEXT)
    after = loaded.model.state_dict()
    return {"intact": intact, "ablated": ablated, "again": again, "params": (before, after)}


def test_the_ablated_layer_is_unchanged_and_every_later_layer_changes(runs):
    intact, ablated = runs["intact"], runs["ablated"]
    before, after = intact.attention["encoder_self"], ablated.attention["encoder_self"]
    # Ablation zeroes the head's output after its weights are computed: layer 1 is untouched.
    np.testing.assert_array_equal(before[0], after[0])
    for layer in range(1, before.shape[0]):
        assert np.abs(before[layer] - after[layer]).max() > 1e-4, f"layer {layer + 1}"
    # Layer 1's hidden states (the output of the ablated layer) change too.
    np.testing.assert_array_equal(intact.encoder_hidden_states[0], ablated.encoder_hidden_states[0])
    assert not np.array_equal(intact.encoder_hidden_states[1], ablated.encoder_hidden_states[1])


def test_the_decoder_output_probabilities_change(runs):
    intact, ablated = runs["intact"], runs["ablated"]
    # Step 1 reads "<s>" in both runs: the same context, so the probabilities are comparable.
    first_intact, first_ablated = intact.steps[0], ablated.steps[0]
    assert first_intact.query_token == first_ablated.query_token == "<s>"
    assert dict(first_intact.alternatives) != dict(first_ablated.alternatives)
    # Row 1 of cross attention reads "<s>" in both runs, but the encoder output it reads changed.
    assert not np.array_equal(
        intact.attention["cross"][:, :, 0], ablated.attention["cross"][:, :, 0]
    )


def test_a_run_without_ablation_is_bit_identical_before_and_after_an_ablated_run(runs):
    intact, again = runs["intact"], runs["again"]
    assert intact.settings.ablate == frozenset()
    assert intact.target_tokens == again.target_tokens and intact.output == again.output
    assert intact.steps == again.steps
    for kind in intact.kinds:
        np.testing.assert_array_equal(intact.attention[kind], again.attention[kind])
        np.testing.assert_array_equal(intact.queries[kind], again.queries[kind])
    np.testing.assert_array_equal(intact.encoder_hidden_states, again.encoder_hidden_states)


def test_the_model_parameters_are_bit_identical_after_ablated_runs(runs):
    before, after = runs["params"]
    assert before.keys() == after.keys()
    for name, tensor in before.items():
        assert torch.equal(tensor, after[name]), name


def test_attention_change_is_zero_where_nothing_changed(runs):
    intact, ablated = runs["intact"], runs["ablated"]
    change = attention_change(intact, ablated, "encoder_self")
    assert change.shape == (6, 8)
    assert (change[0] == 0).all()
    assert (change[1:] > 0).all()
    assert (change <= 1).all()
    for kind in intact.kinds:
        assert (attention_change(intact, intact, kind) == 0).all()
    np.testing.assert_allclose(hidden_similarity(intact, intact), 1.0, atol=1e-6)
    similarity = hidden_similarity(intact, ablated)
    np.testing.assert_allclose(similarity[0], 1.0, atol=1e-6)  # the embeddings
    assert (similarity[-1] < 1 - 1e-6).all()


def test_attention_change_is_the_mean_total_variation_distance(runs):
    intact = runs["intact"]
    # Swap in a hand-made layer 1, head 1: two rows of uniform vs one-hot weights.
    n = len(intact.source_tokens)
    modified = np.array(intact.attention["encoder_self"])
    modified[0, 0] = np.eye(n)
    intact_uniform = np.array(intact.attention["encoder_self"])
    intact_uniform[0, 0] = 1.0 / n
    a = dataclasses.replace(intact, attention={"encoder_self": intact_uniform})
    b = dataclasses.replace(intact, attention={"encoder_self": modified})
    # Each row: ½ (|1 − 1/n| + (n − 1)/n) = (n − 1)/n.
    assert attention_change(a, b, "encoder_self")[0, 0] == pytest.approx((n - 1) / n)


def test_decoder_rows_are_compared_only_while_the_tokens_agree(runs):
    intact = runs["intact"]
    other = dataclasses.replace(intact, target_tokens=intact.target_tokens[:2] + ("x",) * 3)
    assert shared_prefix(("<s>", "a", "b"), ("<s>", "a", "c")) == 2
    assert comparable_rows(intact, other, "decoder_self") == 2
    assert comparable_rows(intact, other, "cross") == 2
    assert comparable_rows(intact, other, "encoder_self") == len(intact.source_tokens)


def test_step_comparison_by_hand(runs):
    def step(token, p, alternatives):
        return DecodingStep("q", token, p, tuple(alternatives))

    intact = dataclasses.replace(
        runs["intact"], steps=(step("a", 0.5, [("a", 0.5)]), step("b", 0.4, [("b", 0.4)]))
    )
    ablated = dataclasses.replace(
        runs["intact"],
        steps=(
            step("a", 0.3, [("a", 0.3)]),
            step("c", 0.6, [("c", 0.6), ("b", 0.2)]),
            step("d", 0.9, [("d", 0.9)]),
        ),
    )
    table = step_comparison(intact, ablated)
    assert table["same context"].tolist() == [True, True, False]
    assert table["ablated token"].tolist() == ["a", "c", "d"]
    assert table["ablated p of intact token"].iloc[0] == pytest.approx(0.3)
    assert table["ablated p of intact token"].iloc[1] == pytest.approx(0.2)  # from the top 5
    assert table["Δp of intact token"].iloc[1] == pytest.approx(0.2 - 0.4)
    assert math.isnan(table["ablated p of intact token"].iloc[2])
    assert table["intact token"].iloc[2] == ""


def test_parse_ablation_keeps_valid_heads_and_ignores_the_rest(runs):
    trace = runs["intact"]  # 6 layers, 8 heads, three kinds
    # counted from 1, as on screen: layer 6 head 4 of cross-attention is ("cross", 5, 3)
    raw = "cross:6:4, encoder_self:1:2,x:99:99,<script>,encoder_self:7:1,decoder_self:1:9,,:::"
    assert parse_ablation(raw, trace) == (("cross", 5, 3), ("encoder_self", 0, 1))
    for bad in ("", "encoder_self:0:1", "encoder_self:1:0", "encoder_self:-1:1"):
        assert parse_ablation(bad, trace) == ()
    for bad in ("encoder_self:٣:1", "encoder_self:1:2:3", "None"):
        assert parse_ablation(bad, trace) == ()
    heads = (("encoder_self", 0, 1), ("cross", 5, 3))
    assert parse_ablation(format_ablation(heads), trace) == tuple(sorted(heads))
    assert format_ablation(heads) == "cross:6:4,encoder_self:1:2"


# --- The tabs in the app -------------------------------------------------------------------------


def en_de_available() -> bool:
    return "en-de" in registry.MODELS and (registry.WEIGHTS_DIR / "en-de.safetensors").exists()


MODEL_PARAMS = [
    "paper-untrained",
    "minilm-l6",
    pytest.param(
        "en-de",
        marks=pytest.mark.skipif(
            not en_de_available(), reason="model/weights/en-de.safetensors is not trained yet"
        ),
    ),
]


def app(model: str, tab: str = "Ablation", **query) -> AppTest:
    at = AppTest.from_file("../../app.py", default_timeout=300)
    at.query_params["model"] = model
    at.query_params["tab"] = tab  # only the open tab runs
    at.query_params["text"] = TEXT
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def chart_titles(at: AppTest) -> list[str]:
    """The figures' titles as words: titles are wrapped to fit, at their " · " separators or
    at spaces, so line breaks and separators both read as a space."""
    return [
        " ".join(figure["layout"]["title"]["text"].replace("<br>", " ").replace("·", " ").split())
        for figure in figures(at)
    ]


def chart(at: AppTest, title_part: str) -> dict:
    (figure,) = [f for f, title in zip(figures(at), chart_titles(at)) if title_part in title]
    return figure


def values(data) -> np.ndarray:
    """A figure's numbers: a list, or Plotly's typed array {dtype, bdata (base64), shape}."""
    if isinstance(data, dict):
        array = np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"])
        shape = [int(n) for n in str(data.get("shape", len(array))).split(",")]
        return array.reshape(shape).astype(float)
    return np.asarray(data, dtype=float)


@pytest.mark.parametrize("model", MODEL_PARAMS)
def test_tabs_render_and_ablation_changes_results_and_url(model):
    at = app(model, "Heads & rollout")
    assert not at.exception, [e.value for e in at.exception]
    labels = [tab.label for tab in at.tabs]
    assert "Heads & rollout" in labels and "Ablation" in labels
    titles = chart_titles(at)
    assert any("attention rollout through layers 1–6" in t for t in titles)
    assert any("entropy (normalised), per layer and head" in t for t in titles)
    statistics = [df.value for df in at.dataframe if "entropy_normalised" in df.value.columns]
    assert statistics and len(statistics[0]) == 6 * len(statistics[0]["head"].unique())

    # Choosing the table's row of layer 2, head 3 (rows are layer-major) opens that head.
    n_heads = len(statistics[0]["head"].unique())
    at.session_state["heads_table_encoder_self"] = {
        "selection": {"rows": [n_heads + 2], "columns": []}
    }
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("encoder self-attention layer 2, head 3" in t for t in chart_titles(at))

    at.session_state["tab"] = at.query_params["tab"] = "Ablation"
    at.run()
    at.multiselect(key="ablate_encoder_self").set_value(["L1 H2"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["ablate"] in ("encoder_self:1:2", ["encoder_self:1:2"])
    grid = chart(at, "change in attention")
    z = values(grid["data"][0]["z"])
    assert (z[0] == 0).all() and (z[1:] > 0).any()
    similarity = values(chart(at, "cosine similarity, intact vs ablated")["data"][0]["y"])
    assert min(similarity) < 1 - 1e-6
    if model != "minilm-l6":
        steps = [df.value for df in at.dataframe if "ablated p of intact token" in df.value.columns]
        assert steps and not np.allclose(steps[0]["intact p"], steps[0]["ablated p"])

    at.multiselect(key="ablate_encoder_self").set_value([]).run()
    assert not at.exception
    assert "ablate" not in at.query_params  # no head ablated: the default, left out of a link
    assert not any("ablated − intact" in t for t in chart_titles(at))


def test_the_url_seeds_the_ablation():
    at = app("paper-untrained", ablate="encoder_self:1:2,cross:6:4")
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key="ablate_encoder_self").value == ["L1 H2"]
    assert at.multiselect(key="ablate_cross").value == ["L6 H4"]
    assert at.multiselect(key="ablate_decoder_self").value == []
    assert any("ablated − intact" in t for t in chart_titles(at))


def test_a_bad_ablate_value_in_the_url_is_ignored():
    at = app("minilm-l6", ablate="x:99:99,<script>")
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key="ablate_encoder_self").value == []
    assert not any("ablated − intact" in t for t in chart_titles(at))
    assert "ablate" not in at.query_params  # no head ablated: the default, left out of a link


def test_the_tab_opens_on_the_first_kind_the_ablation_changes():
    """A cross-attention head of layer 1 switched off leaves the encoder as it was: the page
    opens on decoder self-attention, whose later layers read the changed decoder states."""
    at = app("paper-untrained", ablate="cross:1:4")
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="ablation_kind").value == "decoder_self"
    z = values(chart(at, "change in attention")["data"][0]["z"])
    assert np.nanmax(z) > 0

    # Another head switched off while a kind without change is on screen: it follows too.
    at.selectbox(key="ablation_kind").set_value("encoder_self").run()
    at.multiselect(key="ablate_cross").set_value(["L1 H4", "L2 H1"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="ablation_kind").value == "decoder_self"


def test_a_whole_layer_is_one_choice_and_comes_back_from_the_url():
    at = app("paper-untrained")
    at.multiselect(key="ablate_encoder_self").set_value(["L2: all 8 heads", "L3 H1"]).run()
    assert not at.exception, [e.value for e in at.exception]
    expected = ",".join([f"encoder_self:2:{h}" for h in range(1, 9)] + ["encoder_self:3:1"])
    assert at.query_params["ablate"] in (expected, [expected])
    # Layer 2's heads all changed nothing in layer 1 and changed every later layer.
    z = values(chart(at, "change in attention")["data"][0]["z"])
    assert (z[:2] == 0).all() and (z[2:] > 0).all()

    reopened = app("paper-untrained", ablate=expected)
    assert reopened.multiselect(key="ablate_encoder_self").value == ["L2: all 8 heads", "L3 H1"]


def test_a_step_with_no_number_reads_as_a_dash_not_none():
    """Both upper cross-attention layers off: the translation changes at its first token, so
    the ablated run's probability of the intact token is unknown from step 2 on (its contexts
    differ) and where 'Der' is not among its top five. The grid printed "None" there (issue 45,
    item 7); the table now says "—" where it has no number, and its numbers as rounded."""
    heads = ",".join(f"cross:{layer}:{head}" for layer in (5, 6) for head in range(1, 9))
    at = app("en-de", ablate=heads)
    assert not at.exception, [e.value for e in at.exception]
    [table] = [df for df in at.dataframe if "ablated p of intact token" in df.value.columns]
    shown = table.value
    unknown = shown["ablated p of intact token"]
    assert list(unknown).count("—") >= 2, list(unknown)
    for text in [*unknown, *shown["ablated p"]]:
        assert text == "—" or 0 <= float(text) <= 1, text
    assert shown["step"].dtype.kind == "i"  # a column with no gap keeps its numbers
    assert not shown.isna().any().any(), "a missing value would print as None"
