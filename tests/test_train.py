"""Training per Section 5: the learning-rate schedule, a tiny run that learns, exact resumption,
and the shipped-weights checks."""

import json
import shutil

import pytest
import torch
from safetensors.torch import load_file

from corpus.v1.grammar import MAX_SENTENCE_TOKENS
from model.evaluate import main as evaluate_main
from model.registry import ModelUnavailable, load_trained
from model.train import main, rate

TINY = [
    "--train-size", "300", "--test-size", "4", "--long-size", "2", "--N", "1", "--h", "2",
    "--d-model", "16", "--d-ff", "32", "--batch-tokens", "400", "--warmup", "4",
    "--lr-factor", "1.0", "--threads", "1", "--log-every", "5",
]  # fmt: skip


@pytest.mark.parametrize("step", [1, 10, 4000, 4001, 100_000])
def test_rate_is_eq_3(step):
    d_model, warmup = 512, 4000
    expected = d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)
    assert rate(step, d_model, warmup) == pytest.approx(expected, rel=1e-12)


def test_rate_rises_linearly_during_warmup_then_decays():
    assert rate(200, 128, 400) == pytest.approx(2 * rate(100, 128, 400))
    assert rate(1600, 128, 400) == pytest.approx(rate(400, 128, 400) / 2)


def run_tiny(tmp_path, name, steps, every):
    main(TINY + ["--name", name, "--steps", str(steps), "--checkpoint-every", str(every),
                 "--run-dir", str(tmp_path / "runs"), "--out-dir", str(tmp_path / "weights")])  # fmt: skip
    return tmp_path / "weights" / f"{name}.safetensors"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("train")
    whole = run_tiny(tmp, "whole", 40, 40)
    run_tiny(tmp, "resumed", 20, 20)  # stops at step 20, as if interrupted
    resumed = run_tiny(tmp, "resumed", 40, 20)
    return tmp, whole, resumed


def test_a_tiny_run_lowers_the_loss(runs):
    _, whole, _ = runs
    history = json.loads(whole.with_suffix(".json").read_text())["training"]["loss_history"]
    first, last = history[0][1], history[-1][1]
    assert last < first - 0.5, history  # nats per token


def test_resuming_from_a_checkpoint_gives_the_uninterrupted_result(runs):
    _, whole, resumed = runs
    a, b = load_file(str(whole)), load_file(str(resumed))
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key


def test_shipped_weights_load_and_a_changed_byte_is_rejected(runs):
    tmp, whole, _ = runs
    loaded = load_trained(torch.device("cpu"), whole)
    assert loaded.model.config.d_model == 16
    damaged = tmp / "damaged" / "whole.safetensors"
    damaged.parent.mkdir()
    shutil.copy(whole.with_suffix(".json"), damaged.with_suffix(".json"))
    data = bytearray(whole.read_bytes())
    data[-3] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with pytest.raises(ModelUnavailable, match="damaged"):
        load_trained(torch.device("cpu"), damaged)


def test_rescoring_rewrites_the_metrics_and_leaves_the_weights_loadable(runs, capsys):
    tmp, whole, _ = runs
    copy = tmp / "rescored" / "whole.safetensors"
    copy.parent.mkdir()
    shutil.copy(whole, copy)
    shutil.copy(whole.with_suffix(".json"), copy.with_suffix(".json"))
    before = json.loads(copy.with_suffix(".json").read_text())
    evaluate_main(
        ["--weights", str(copy), "--test-size", "3", "--long-size", "2", "--threads", "1"]
    )
    after = json.loads(copy.with_suffix(".json").read_text())
    assert after["sha256"] == before["sha256"] and after["training"] == before["training"]
    metrics = after["metrics"]
    assert metrics["test_set"]["size"] == 3
    assert metrics["two_clauses"]["size"] == metrics["longer_than_training"]["size"] == 2
    assert metrics["longer_than_training"]["longest_training_sentence"] == MAX_SENTENCE_TOKENS
    assert "exact_match" in json.loads(capsys.readouterr().out)["beam4"]
    load_trained(torch.device("cpu"), copy)  # the sha256 still matches
