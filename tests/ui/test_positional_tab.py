"""The Positional-encoding tab finds the model whose learned position vectors it shows by what the
registry says the model offers, not by its name: a new model with learned positions is found
without a change to ui/."""

import json
from dataclasses import replace
from pathlib import Path

from streamlit.testing.v1 import AppTest

from runtime import registry
from ui import positional_tab

APP = str(Path(__file__).resolve().parents[2] / "app.py")
OFFERED = "learned-positions-test"


def offering_learned_positions(monkeypatch) -> registry.ModelEntry:
    """A new model ahead of the others in MODELS, with MiniLM's weights under another name, and
    MiniLM no longer saying it has learned positions: only the new one offers them."""
    minilm = registry.MODELS["minilm-l6"]
    offered = replace(
        minilm,
        name=OFFERED,
        short_label="Test encoder",
        load=lambda device: replace(minilm.load(device), name=OFFERED),
    )
    others = dict(registry.MODELS)
    others["minilm-l6"] = replace(minilm, positions="sinusoidal")
    monkeypatch.setattr(registry, "MODELS", {OFFERED: offered, **others})
    return offered


def positional_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update(
        {"model": "paper-untrained", "text": "the dog sees the cat .", "tab": "Positional encoding"}
    )
    return at.run()


def labels(at: AppTest) -> list[str]:
    """The figures' titles (their line breaks read as spaces) and their traces' names."""
    figures = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    titles = [f["layout"].get("title", {}).get("text", "").replace("<br>", " ") for f in figures]
    return titles + [t.get("name", "") for f in figures for t in f["data"]]


def test_the_tab_shows_the_learned_positions_of_a_new_model_that_offers_them(monkeypatch):
    offered = offering_learned_positions(monkeypatch)
    assert positional_tab.learned_positions_model() is offered
    at = positional_page()
    assert not at.exception, [e.value for e in at.exception]
    shown = labels(at)
    assert any(label.startswith("Test encoder learned position vectors") for label in shown)
    assert "Test encoder learned: mean" in shown
    assert not any("MiniLM-L6" in label for label in shown)


def test_without_a_model_with_learned_positions_the_tab_says_so(monkeypatch):
    monkeypatch.setattr(
        registry,
        "MODELS",
        {name: replace(entry, positions="sinusoidal") for name, entry in registry.MODELS.items()},
    )
    at = positional_page()
    assert not at.exception, [e.value for e in at.exception]
    assert any("No model here learned its position vectors" in i.value for i in at.info)
    assert not any("learned position vectors" in label for label in labels(at))
