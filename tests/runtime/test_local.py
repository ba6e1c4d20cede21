"""Models found on this machine: a temporary Hugging Face cache and configured folders holding
tiny models of every family (tests/tiny_models.py), listed with their size or their reason, and
loaded by name through the registry."""

import json
import os

import pytest
import torch

from runtime import local, registry
from runtime.loaded import ModelUnavailable
from tests.tiny_models import FAMILIES, cache_layout, write_model

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    """A Hugging Face cache with every family, and a folder of folders with one model more and
    three that cannot run."""
    root = tmp_path_factory.mktemp("machine")
    cache = root / "hf" / "hub"
    for i, family in enumerate(FAMILIES):
        write_model(family, root / "src" / family, seed=i)
        cache_layout(cache, f"tiny-org/tiny-{family}", root / "src" / family)
    models = root / "models"
    write_model("bert", models / "course" / "my-bert", seed=9)
    pickled = models / "pickled"
    pickled.mkdir(parents=True)
    (pickled / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (pickled / "pytorch_model.bin").write_bytes(b"never unpickled")
    bare = models / "bare"
    bare.mkdir()
    (bare / "model.safetensors").write_bytes(
        (root / "src" / "bert" / "model.safetensors").read_bytes()
    )
    t5 = models / "t5-small"
    t5.mkdir()
    (t5 / "config.json").write_text(json.dumps({"model_type": "t5", "architectures": ["T5Model"]}))
    return {"HF_HOME": str(root / "hf"), local.MODEL_DIRS_ENV: str(models), "root": root}


@pytest.fixture
def configured(machine, monkeypatch):
    for key in ("HF_HUB_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HF_HOME", machine["HF_HOME"])
    monkeypatch.setenv(local.MODEL_DIRS_ENV, machine[local.MODEL_DIRS_ENV])
    return machine


def by_name(found):
    return {f.name: f for f in found}


def test_the_cache_follows_huggingface_hubs_own_rules(tmp_path):
    assert local.hub_cache({"HF_HUB_CACHE": "/a/hub", "HF_HOME": "/b"}) == local.Path("/a/hub")
    assert local.hub_cache({"HF_HOME": "/b"}) == local.Path("/b/hub")
    assert local.hub_cache({"XDG_CACHE_HOME": "/c"}) == local.Path("/c/huggingface/hub")
    dirs = local.model_dirs({local.MODEL_DIRS_ENV: f"/x{os.pathsep}/y{os.pathsep}"})
    assert dirs == (local.Path("/x"), local.Path("/y"))


def test_every_family_in_the_cache_is_found_with_its_size(configured):
    found = by_name(local.found())
    for family in FAMILIES:
        entry = found[f"hf:tiny-org/tiny-{family}"]
        assert entry.runnable, entry.reason
        assert entry.source == local.HF_SOURCE
        assert (entry.layers, entry.heads) == (2, 4)
        assert 20_000 < entry.parameters < 60_000
    assert found["dir:my-bert"].runnable  # two levels down a configured folder


def test_what_cannot_run_is_listed_with_its_reason(configured):
    found = by_name(local.found())
    assert "pickle files only" in found["dir:pickled"].reason
    assert "no config.json" in found["dir:bare"].reason
    assert "t5 is not an architecture this app runs" in found["dir:t5-small"].reason
    assert found["dir:t5-small"].architecture == "T5Model"
    assert {f.name for f in registry.unrunnable_models()} == {
        "dir:pickled",
        "dir:bare",
        "dir:t5-small",
    }


def test_the_registry_offers_and_loads_them_after_the_shipped_models(configured):
    models = registry.all_models()
    assert list(models)[: len(registry.MODELS)] == list(registry.MODELS)
    assert "hf:tiny-org/tiny-qwen2" in models and "dir:pickled" not in models
    entry = models["hf:tiny-org/tiny-llama"]
    assert entry.local and entry.positions == "rotary"
    assert "Hugging Face cache" in entry.summary and "2 layers × 4 heads" in entry.summary
    loaded = registry.load("hf:tiny-org/tiny-llama", torch.device("cpu"))
    assert loaded.model.config.N == 2 and loaded.label.startswith("tiny-org/tiny-llama")


def test_loading_from_the_cache_writes_nothing_into_it(configured):
    cache = local.hub_cache()
    before = sorted((p, p.stat().st_mtime_ns) for p in cache.rglob("*"))
    registry.load("hf:tiny-org/tiny-bert", torch.device("cpu"))
    assert sorted((p, p.stat().st_mtime_ns) for p in cache.rglob("*")) == before


def test_a_damaged_blob_is_refused_by_its_checksum(tmp_path, monkeypatch):
    source = write_model("bert", tmp_path / "src")
    snapshot = cache_layout(tmp_path / "hub", "org/damaged", source)
    blob = (snapshot / "model.safetensors").resolve()
    data = bytearray(blob.read_bytes())
    data[-1] ^= 0xFF  # one byte of a weight: the file still reads, its checksum does not
    blob.write_bytes(bytes(data))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.delenv(local.MODEL_DIRS_ENV, raising=False)
    entry = registry.all_models()["hf:org/damaged"]  # listed: its header is whole
    with pytest.raises(ModelUnavailable, match="does not match the checksum .*damaged download"):
        entry.load(torch.device("cpu"))
    assert registry.load("minilm-l6").name == "minilm-l6"  # the others keep working


def test_an_empty_or_missing_configuration_finds_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "none"))
    monkeypatch.setenv(local.MODEL_DIRS_ENV, str(tmp_path / "missing"))
    assert local.found() == ()
    assert list(registry.all_models()) == list(registry.MODELS)


def test_the_command_line_lists_and_runs_them_and_says_why_not(machine, monkeypatch, capsys):
    from runtime.__main__ import main

    for key in ("HF_HUB_CACHE", "HF_HOME", local.MODEL_DIRS_ENV):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(machine["root"] / "empty"))
    models = machine[local.MODEL_DIRS_ENV]
    assert main(["--models", models, "--list"]) == 0
    out, err = capsys.readouterr()
    assert out.split()[-1] == "dir:my-bert" and "hf:" not in out
    assert "cannot run: t5-small" in err and "pickle files only" in err
    assert main(["--models", models, "--model", "dir:my-bert", "--text", "The dog sees."]) == 0
    assert capsys.readouterr().out.startswith("source tokens: [CLS] the dog sees . [SEP]")
    assert main(["--models", models, "--model", "dir:pickled", "--text", "Hi."]) == 1
    assert "pickle files only" in capsys.readouterr().err


def test_a_load_tells_its_progress(configured):
    heard = []
    registry.load(
        "hf:tiny-org/tiny-gpt2", torch.device("cpu"), lambda f, what: heard.append((f, what))
    )
    fractions = [f for f, _ in heard]
    assert fractions == sorted(fractions) and 0 <= fractions[0] and fractions[-1] <= 1
    assert "checking model.safetensors's checksum" in [what for _, what in heard]
    assert "reading model.safetensors (1 of 1)" in [what for _, what in heard]


def test_two_folders_of_one_name_are_told_apart_by_their_parent(tmp_path, monkeypatch):
    write_model("bert", tmp_path / "models" / "a" / "my-bert")
    write_model("bert", tmp_path / "models" / "b" / "my-bert", seed=1)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "none"))
    monkeypatch.setenv(local.MODEL_DIRS_ENV, str(tmp_path / "models"))
    found = {f.name: f.folder for f in local.found()}
    assert found == {
        "dir:my-bert": tmp_path / "models" / "a" / "my-bert",
        "dir:b/my-bert": tmp_path / "models" / "b" / "my-bert",
    }
