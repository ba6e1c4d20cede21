"""Models found on this machine in the real page script: tiny models of every family in a
temporary Hugging Face cache and a configured folder (tests/tiny_models.py) are listed in the
model box, every tab opens on each, and what cannot run is listed with its reason."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from runtime import local
from tests.tiny_models import (
    ENCODERS,
    FAMILIES,
    cache_layout,
    write_gguf,
    write_marian,
    write_model,
)

pytest.importorskip("transformers")

APP = Path(__file__).resolve().parents[2] / "app.py"
TABS = [
    "Attention",
    "Heads & rollout",
    "Head atlas",
    "Ablation",
    "Compare",
    "Attention vs gradients",
    "Positional encoding",
    "Scaling 1/√d_k",
    "Model",
    "The paper, live",
]
# one family of each kind from the cache, the others from a configured folder
NAMES = {f: f"hf:org/tiny-{f}" if f in ("bert", "llama") else f"dir:tiny-{f}" for f in FAMILIES}
NAMES["gguf"] = "gguf:tiny-qwen2.gguf"  # a GGUF file in the configured folder
NAMES["marian"] = "dir:tiny-marian"  # the paper's encoder-decoder


@pytest.fixture(scope="module", autouse=True)
def machine(tmp_path_factory):
    root = tmp_path_factory.mktemp("machine")
    folder = root / "models"
    for i, family in enumerate(FAMILIES):
        if NAMES[family].startswith("hf:"):
            write_model(family, root / "src" / family, seed=i)
            cache_layout(root / "hub", f"org/tiny-{family}", root / "src" / family)
        else:
            write_model(family, folder / f"tiny-{family}", seed=i)
    write_gguf("qwen2", folder / "tiny-qwen2.gguf", seed=11)
    write_marian(folder / "tiny-marian", seed=12)
    broken = folder / "broken <i>model"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"model_type": "gpt_neox"}))
    patch = pytest.MonkeyPatch()
    patch.setenv("HF_HUB_CACHE", str(root / "hub"))
    patch.setenv(local.MODEL_DIRS_ENV, str(folder))
    yield
    patch.undo()


def _app(name: str, tab: str = "Attention") -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params.update(model=name, text="The small dog sees the old man.", tab=tab)
    return at.run()


def test_the_model_box_lists_them_after_the_shipped_models():
    at = _app("minilm-l6")
    labels = at.sidebar.selectbox(key="model").options  # as the box shows them
    assert labels[:4] == [
        "English→German, trained here",
        "Paper base model, untrained",
        "MiniLM-L6, pretrained encoder",
        "SmolLM2-135M, a chat model",
    ]
    assert labels[4:6] == ["org/tiny-bert (on this machine)", "org/tiny-llama (on this machine)"]
    assert "tiny-qwen2 (on this machine)" in labels[6:]


def test_what_cannot_run_is_counted_with_its_reason_as_text():
    at = _app("minilm-l6")
    [note] = [e for e in at.sidebar.expander if "cannot run" in e.label]
    assert note.label == "1 model on this machine cannot run"
    [line] = [t.value for t in note.text]
    assert line.startswith("broken <i>model (gpt_neox): gpt_neox is not an architecture")


@pytest.mark.parametrize("family", list(NAMES))
@pytest.mark.parametrize("tab", TABS)
def test_every_tab_opens_on_every_family(family, tab):
    at = _app(NAMES[family], tab)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    labels = [t.label for t in at.tabs]
    if family not in (*ENCODERS, "marian") and tab in (
        "Attention vs gradients",
        "The paper, live",
    ):
        assert tab not in labels  # the paper's models' alone, as for SmolLM2
        return
    assert tab in labels
    caption = at.sidebar.caption[0].value
    assert "layers × 4 heads" in caption


def test_gpt2s_positional_tab_shows_its_own_learned_table():
    at = _app(NAMES["gpt2"], "Positional encoding")
    assert not at.exception
    texts = " ".join(m.value for m in at.markdown)
    assert "tiny-gpt2 (GPT-2, 2 layers × 4 heads) learned one vector per position" in texts


def test_a_found_model_loads_once_with_a_progress_bar_then_comes_from_the_cache():
    from ui import state

    name = NAMES["distilbert"]
    state.get_model.clear()
    state._loaded_names.discard(name)
    heard = []
    state.load_with_progress(name, lambda fraction, what: heard.append(what))
    assert "reading model.safetensors (1 of 1)" in heard
    loaded = state.get_model(name)
    assert loaded.name == name and not state._handoff  # handed over, not loaded twice
    state.load_with_progress(name, lambda fraction, what: heard.append("again"))
    assert "again" not in heard
    assert state.get_model(name) is loaded
