"""Training per Section 5: the learning-rate schedule, recipes, a tiny run that learns, exact and
compact resumption, shipping, and re-scoring."""

import json
import random
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

import model.train as training
from corpus.hand_checked import pairs
from model.evaluate import main as evaluate_main
from model.evaluate import quick_look
from model.subword import SubwordTokenizer
from model.train import (
    Padder,
    Phase,
    Recipe,
    collate,
    encode_aligned,
    native_bf16,
    plan_budget,
    rate,
    recipe_texts,
    ship,
    target_tokens,
    train,
    training_texts,
)
from model.transformer import TransformerConfig, make_model
from model.weights import WeightsError
from runtime.registry import ModelUnavailable, load_trained

ROOT = Path(__file__).resolve().parents[2]

TINY = Recipe(
    name="tiny",
    train_size=300,
    vocab_size=300,
    N=1,
    h=2,
    d_model=16,
    d_ff=32,
    batch_tokens=400,
    warmup=4,
    autocast="fp32",
    threads=1,
    moments="fp32",
    checkpoint_minutes=1000.0,
    log_every=1,
    phases=(Phase(20, 1.0), Phase(40, 0.5)),
)


@pytest.mark.parametrize("step", [1, 10, 4000, 4001, 100_000])
def test_rate_is_eq_3(step):
    d_model, warmup = 512, 4000
    expected = d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)
    assert rate(step, d_model, warmup) == pytest.approx(expected, rel=1e-12)


def test_rate_rises_linearly_during_warmup_then_decays():
    assert rate(200, 128, 400) == pytest.approx(2 * rate(100, 128, 400))
    assert rate(1600, 128, 400) == pytest.approx(rate(400, 128, 400) / 2)


def test_phases_set_the_learning_rate_factor():
    assert [TINY.lr_factor(s) for s in (1, 20, 21, 40, 41)] == [1.0, 1.0, 0.5, 0.5, 0.5]
    assert TINY.steps == 40


def test_a_cool_down_phase_falls_linearly_to_its_end_factor():
    recipe = replace(TINY, phases=(Phase(10, 1.0), Phase(20, 0.5, lr_factor_end=0.0)))
    # steps 11..20 are the cool-down's 10 steps: 0.5 at the first, 0 at the last, by 0.5/9 a step
    assert recipe.lr_factor(10) == 1.0
    assert recipe.lr_factor(11) == pytest.approx(0.5)
    assert recipe.lr_factor(15) == pytest.approx(0.5 * 5 / 9)
    assert recipe.lr_factor(20) == 0.0
    assert recipe.lr_factor(25) == 0.0  # past the recipe's end, its last factor
    rising = replace(TINY, phases=(Phase(5, 0.2, lr_factor_end=1.0),))
    assert [rising.lr_factor(s) for s in (1, 3, 5)] == pytest.approx([0.2, 0.6, 1.0])


def test_the_shipped_recipe_ends_in_a_cool_down_to_zero():
    recipe = Recipe.read(ROOT / "configs" / "en-de.toml")
    last, held = recipe.phases[-1], recipe.phases[-2]
    assert (last.lr_factor, last.lr_factor_end) == (held.lr_factor, 0.0)
    assert recipe.lr_factor(held.until_step + 1) == held.lr_factor
    assert recipe.lr_factor(recipe.steps) == 0.0


def test_the_shipped_recipe_is_the_papers_model_within_the_issues_sizes():
    recipe = Recipe.read(ROOT / "configs" / "en-de.toml")
    assert (recipe.N, recipe.h, recipe.smoothing, recipe.dropout) == (6, 8, 0.1, 0.1)
    assert recipe.d_model <= 256 and recipe.d_ff <= 1024
    assert [p.until_step for p in recipe.phases] == sorted(p.until_step for p in recipe.phases)


def run(tmp: Path, name: str, recipe: Recipe, stop_at: int | None = None, look=None):
    return train(recipe, tmp / name, stop_at=stop_at, workers=1, cache=tmp / "data", look=look)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("train")
    whole = run(tmp, "whole", TINY)
    run(tmp, "resumed", TINY, stop_at=20)  # stops at step 20, as if the session ended
    resumed = run(tmp, "resumed", TINY)
    compact = replace(TINY, moments="bf16")
    run(tmp, "compact", compact, stop_at=20)
    compacted = run(tmp, "compact", compact)
    return tmp, whole, resumed, compacted


def test_a_tiny_run_lowers_the_loss(runs):
    _, whole, _, _ = runs
    history = whole[2]["loss_history"]
    first, last = history[0][1], history[-1][1]
    assert last < first - 0.5, history  # nats per token


def test_resuming_from_a_checkpoint_gives_the_uninterrupted_result(runs):
    _, whole, resumed, _ = runs
    a, b = whole[0].state_dict(), resumed[0].state_dict()
    for key in a:
        assert torch.equal(a[key], b[key]), key
    assert resumed[2]["sessions"] == [
        {"from_step": 0, "autocast": "fp32", "device": "cpu", "to_step": 20},
        {"from_step": 20, "autocast": "fp32", "device": "cpu", "to_step": 40},
    ]


def test_a_checkpoint_of_another_recipe_is_refused_before_any_data_is_made(runs, monkeypatch):
    """A checkpoint left by another recipe of the same name was resumed without a word: its
    finished step count ended the new recipe at once, and the old model was evaluated as the new
    one. Only what makes the run another run counts: threads and budget may change."""
    tmp, _, _, _ = runs

    def no_data(*args, **kwargs):
        raise AssertionError("made data before the checkpoint was checked")

    monkeypatch.setattr(training, "recipe_texts", no_data)
    other = replace(TINY, data_seed=TINY.data_seed + 1, warmup=8)
    with pytest.raises(ValueError, match=r"another run \(data_seed: .*warmup: 4 there, 8 here"):
        train(other, tmp / "whole", workers=1, cache=tmp / "data")
    with pytest.raises(ValueError, match="another run"):
        training.checkpoint_model(other, tmp / "whole")
    # the same run on more threads, or with a budget, is the same run
    training.check_same_run(replace(TINY, threads=2, budget_minutes=5.0), tmp / "whole")


def test_batches_grouped_in_another_process_give_the_same_run(runs, tmp_path):
    """`prefetch` (a GPU's default): each next epoch's batches come from a spawned process, and
    the run is the uninterrupted run, weight for weight."""
    _, whole, _, _ = runs
    prefetched = train(TINY, tmp_path / "p", workers=1, cache=tmp_path / "data", prefetch=True)
    assert prefetched[2]["epoch"] >= 1  # the second epoch trained on batches grouped there
    a, b = whole[0].state_dict(), prefetched[0].state_dict()
    for key in a:
        assert torch.equal(a[key], b[key]), key


def test_every_checkpoint_records_the_session_so_far(tmp_path, monkeypatch):
    """A long run ends a working session by being stopped right after a periodic save; the
    session must already be in that checkpoint's history."""
    saved: list[list[dict]] = []
    real_save = training.save_checkpoint

    def spy(path, model, optimizer, progress, tokenizer, moments):
        saved.append(json.loads(json.dumps(progress["sessions"])))
        real_save(path, model, optimizer, progress, tokenizer, moments)

    monkeypatch.setattr(training, "save_checkpoint", spy)
    every_step = replace(TINY, checkpoint_minutes=0.0)
    train(every_step, tmp_path / "ck", stop_at=3, workers=1, cache=tmp_path / "data")
    assert saved[0] == [{"from_step": 0, "autocast": "fp32", "device": "cpu", "to_step": 1}]
    assert saved[-1] == [{"from_step": 0, "autocast": "fp32", "device": "cpu", "to_step": 3}]
    train(every_step, tmp_path / "ck", stop_at=5, workers=1, cache=tmp_path / "data")
    assert saved[-1] == [
        {"from_step": 0, "autocast": "fp32", "device": "cpu", "to_step": 3},
        {"from_step": 3, "autocast": "fp32", "device": "cpu", "to_step": 5},
    ]


def test_compact_checkpoint_halves_the_moments_and_resumes_closely(runs):
    tmp, whole, _, compacted = runs
    full = load_file(str(tmp / "whole" / "checkpoint.safetensors"))
    small = load_file(str(tmp / "compact" / "checkpoint.safetensors"))
    moments = [k for k in full if k.endswith("exp_avg_sq")]
    assert moments and all(small[k].dtype == torch.bfloat16 for k in moments)
    assert all(small[k].dtype == torch.float32 for k in small if k.startswith("model."))
    a, b = whole[0].state_dict(), compacted[0].state_dict()
    assert any(not torch.equal(a[k], b[k]) for k in a)  # rounded moments change the path ...
    last = [run[2]["loss_history"][-5:] for run in (whole, compacted)]
    losses = [sum(loss for _, loss in h) / len(h) for h in last]
    assert abs(losses[0] - losses[1]) < 0.05, last  # ... but not where it leads


def test_the_checkpoint_holds_each_tied_matrix_once(runs):
    """The shared embedding matrix (Section 3.4) is one parameter and one set of Adam moments:
    the checkpoint holds exactly the distinct parameters torch lists, once each."""
    tmp, whole, _, _ = runs
    stored = load_file(str(tmp / "whole" / "checkpoint.safetensors"))
    weights = {k.removeprefix("model.") for k in stored if k.startswith("model.")}
    assert weights == {name for name, _ in whole[0].named_parameters()}
    n_parameters = len(list(whole[0].parameters()))
    assert {k for k in stored if k.endswith(".exp_avg")} == {
        f"optim.{i}.exp_avg" for i in range(n_parameters)
    }


@pytest.mark.parametrize("damage", ["a changed byte", "no recorded sha256"])
def test_a_damaged_checkpoint_is_refused_before_it_is_read(runs, tmp_path, damage):
    tmp, _, _, _ = runs
    copy = tmp_path / "ck"
    shutil.copytree(tmp / "whole", copy)
    if damage == "a changed byte":
        data = bytearray((copy / "checkpoint.safetensors").read_bytes())
        data[-3] ^= 0xFF
        (copy / "checkpoint.safetensors").write_bytes(bytes(data))
        expected = "damaged"
    else:
        meta = json.loads((copy / "progress.json").read_text())
        del meta["checkpoint_sha256"]
        (copy / "progress.json").write_text(json.dumps(meta))
        expected = "records no sha256"
    with pytest.raises(WeightsError, match=expected):
        run(tmp_path, "ck", TINY)


def test_a_stopped_run_records_a_held_out_look_and_goes_on_as_if_it_had_not_looked(runs):
    tmp, whole, _, _ = runs

    def look(model, tokenizer):
        return quick_look(model, tokenizer, TINY.test_seed, size=4, coref_size=2)

    stopped = run(tmp, "looked", TINY, stop_at=20, look=look)
    (record,) = stopped[2]["looks"]
    assert record["step"] == 20 and record["sentences"] == 4 and record["pronoun_sentences"] == 2
    assert 0 <= record["greedy_exact_match"] <= 1 and 0 <= record["pronoun_right"] <= 1
    finished = run(tmp, "looked", TINY, look=look)
    assert len(finished[2]["looks"]) == 1  # the recipe's last step gets the full evaluation
    assert stopped[0].training  # looking left the model in training mode
    a, b = whole[0].state_dict(), finished[0].state_dict()
    for key in a:
        assert torch.equal(a[key], b[key]), key


def test_the_checkpoint_keeps_the_tokenizer(runs):
    tmp, whole, _, _ = runs
    stored = SubwordTokenizer.from_json((tmp / "whole" / "tokenizer.json").read_text())
    assert stored.itos == whole[1].itos


@pytest.fixture(scope="module")
def shipped(runs):
    tmp, whole, _, _ = runs
    model, tokenizer, progress, config = whole
    return ship(TINY, model, tokenizer, progress, config, tmp / "weights", {"note": "none"})


def test_shipped_weights_load_and_a_changed_byte_is_rejected(shipped, tmp_path):
    loaded = load_trained(torch.device("cpu"), shipped)
    assert loaded.model.config.d_model == 16
    assert isinstance(loaded.tokenizer, SubwordTokenizer)
    sidecar = json.loads(shipped.with_suffix(".json").read_text())
    assert sidecar["training"]["recipe"]["phases"] == [
        {"until_step": 20, "lr_factor": 1.0, "lr_factor_end": None},
        {"until_step": 40, "lr_factor": 0.5, "lr_factor_end": None},
    ]
    damaged = tmp_path / "tiny.safetensors"
    shutil.copy(shipped.with_suffix(".json"), damaged.with_suffix(".json"))
    data = bytearray(shipped.read_bytes())
    data[-3] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with pytest.raises(ModelUnavailable, match="damaged"):
        load_trained(torch.device("cpu"), damaged)


def test_rescoring_rewrites_the_metrics_and_leaves_the_weights_loadable(shipped, tmp_path, capsys):
    copy = tmp_path / "tiny.safetensors"
    shutil.copy(shipped, copy)
    shutil.copy(shipped.with_suffix(".json"), copy.with_suffix(".json"))
    before = json.loads(copy.with_suffix(".json").read_text())
    evaluate_main(
        ["--weights", str(copy), "--test-size", "4", "--set-size", "2", "--coref-size", "2"]
        + ["--hand-size", "3", "--threads", "1"]
    )
    after = json.loads(copy.with_suffix(".json").read_text())
    assert after["sha256"] == before["sha256"] and after["training"] == before["training"]
    metrics = after["metrics"]
    assert metrics["test_set"]["size"] == 4
    assert metrics["two_clauses"]["size"] == metrics["longer_than_median"]["size"] == 2
    assert metrics["hand_checked_v2"]["size"] == metrics["hand_checked_v2_1"]["size"] == 3
    aer = metrics["alignment_error_rate"]["per_head"]
    assert len(aer) == 1 and len(aer[0]) == 2 and all(0 <= v <= 1 for v in aer[0])
    heads = metrics["coreference_heads"]
    assert heads["links"] >= 2 and len(heads["encoder_self_attention"][0]) == 2
    assert "exact_match" in json.loads(capsys.readouterr().out)["beam4"]
    load_trained(torch.device("cpu"), copy)  # the sha256 still matches


def test_rescoring_the_hand_checked_files_alone_keeps_the_other_figures(shipped, tmp_path):
    """`--hand-checked-only`: v2, v2.1 and v1 scored, each with its misses against the German
    written by hand; the held-out figures and the weights stay as they were."""
    copy = tmp_path / "tiny.safetensors"
    shutil.copy(shipped, copy)
    before = json.loads(shipped.with_suffix(".json").read_text())
    before["metrics"] = {"beam4": {"exact_match": 0.25}, "coreference": {"size": 2}}
    copy.with_suffix(".json").write_text(json.dumps(before))
    evaluate_main(["--weights", str(copy), "--hand-size", "3", "--hand-checked-only"])
    after = json.loads(copy.with_suffix(".json").read_text())
    metrics = after["metrics"]
    assert after["sha256"] == before["sha256"] and metrics["beam4"] == {"exact_match": 0.25}
    for key, version in (("hand_checked_v2", "v2"), ("hand_checked_v2_1", "v2.1")) + (
        ("hand_checked_v1", "v1"),
    ):
        hand = {p.english: p.german for p in pairs(version)[:3]}
        scored = metrics[key]
        assert scored["size"] == 3
        # a tiny model trained for seconds writes none of them right
        assert [m[:2] for m in scored["misses"]] == [[e, g] for e, g in hand.items()]
        assert scored["exact_match"] == 0.0
    assert metrics["coreference"]["size"] == 2
    assert "hand_written_pronoun_pairs" in metrics["coreference"]
    # weights shipped with no figures at all (--no-look) get the hand-checked ones alone
    before["metrics"] = {}
    copy.with_suffix(".json").write_text(json.dumps(before))
    evaluate_main(["--weights", str(copy), "--hand-size", "2", "--hand-checked-only"])
    metrics = json.loads(copy.with_suffix(".json").read_text())["metrics"]
    assert sorted(metrics) == ["hand_checked_v1", "hand_checked_v2", "hand_checked_v2_1"]


def test_ship_now_ships_a_stopped_runs_checkpoint_as_it_stands(runs, tmp_path, monkeypatch):
    """`--ship-now` trains no further: the shipped tensors are the checkpoint's, at its step, and
    the sidecar holds what `evaluate` returned for that model."""
    tmp, _, _, _ = runs
    stopped = run(tmp, "ship-now", TINY, stop_at=20)
    recipe_file = tmp_path / "tiny.toml"
    recipe_file.write_text(  # TINY as a recipe file
        'name = "tiny"\ntrain_size = 300\nvocab_size = 300\nN = 1\nh = 2\nd_model = 16\n'
        "d_ff = 32\nbatch_tokens = 400\nwarmup = 4\nthreads = 1\n"
        "[[phases]]\nuntil_step = 20\nlr_factor = 1.0\n"
        "[[phases]]\nuntil_step = 40\nlr_factor = 0.5\n"
    )
    scored = []

    def evaluate(model, tokenizer, test_seed):
        scored.append(model.training)
        return {"beam4": {"exact_match": 0.5}}

    monkeypatch.setattr("model.evaluate.evaluate", evaluate)
    training.main(
        ["--recipe", str(recipe_file), "--checkpoint-dir", str(tmp / "ship-now")]
        + ["--out-dir", str(tmp_path), "--ship-now"]
    )
    assert scored == [False]  # scored in eval mode (no dropout)
    loaded = load_trained(torch.device("cpu"), tmp_path / "tiny.safetensors")
    sidecar = json.loads((tmp_path / "tiny.json").read_text())
    assert sidecar["training"]["steps"] == 20 and sidecar["metrics"]["beam4"]["exact_match"] == 0.5
    expected = stopped[0].state_dict()
    for key, value in loaded.model.state_dict().items():
        assert torch.equal(value, expected[key].half().float()), key  # fp16 on disk


def test_auto_precision_uses_bfloat16_only_where_the_cpu_computes_it():
    """ "auto" autocast: bfloat16 where the CPU has AMX tiles or AVX-512 BF16 (as the kernel
    lists its flags), float32 elsewhere (emulated bfloat16 was 20x slower than float32)."""
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists():
        pytest.skip("the CPU's flags are read from Linux's /proc/cpuinfo")
    flags = set(cpuinfo.read_text().split())
    assert native_bf16() == bool(flags & {"amx_tile", "avx512_bf16"})


def test_a_recipe_scaled_to_a_step_count_keeps_its_shape():
    recipe = replace(TINY, phases=(Phase(2700, 0.8), Phase(4000, 0.8, lr_factor_end=0.0)))
    scaled = recipe.scaled_to(6000)
    assert [p.until_step for p in scaled.phases] == [4050, 6000]  # 2700 x 1.5, 4000 x 1.5
    assert scaled.lr_factor(4050) == 0.8 and scaled.lr_factor(6000) == 0.0
    assert scaled.warmup == recipe.warmup  # Eq. (3)'s warm-up is not stretched
    assert [p.until_step for p in recipe.scaled_to(1).phases] == [1, 2]  # never an empty phase


def test_a_budgeted_run_measures_its_speed_and_ends_its_scaled_recipe(tmp_path):
    """With `budget_minutes`, the step count follows from the speed of the first steps: the run
    ends where its scaled phases end (cool-down included), and the plan and the measured speed
    are kept in the checkpoint and in the shipped sidecar."""
    recipe = replace(TINY, budget_minutes=0.1, calibrate_steps=15, log_every=5)
    model, tokenizer, progress, config = run(tmp_path, "budget", recipe)
    planned = [p["until_step"] for p in progress["phases"]]
    assert planned[-1] == progress["step"] > 15
    assert planned == [p.until_step for p in recipe.scaled_to(progress["step"]).phases]
    # 0.1 min at the measured speed is the plan, give or take the steps before the timing
    assert progress["step"] * progress["step_seconds_measured"] == pytest.approx(6, rel=0.5)
    path = ship(recipe, model, tokenizer, progress, config, tmp_path / "w", {})
    sidecar = json.loads(path.with_suffix(".json").read_text())
    assert [p["until_step"] for p in sidecar["training"]["recipe"]["phases"]] == planned


def test_the_padder_pads_a_batch_as_collate_does_and_counts_its_target_tokens():
    """The training loop's Padder against `collate` (one sentence at a time) on ragged pairs,
    batches in any order, the longest pair included."""
    rng = random.Random(3)
    pairs = [
        ([rng.randrange(4, 50) for _ in range(rng.randrange(1, 9))],
         [1, *(rng.randrange(4, 50) for _ in range(rng.randrange(0, 12))), 2])
        for _ in range(200)
    ]  # fmt: skip
    padder = Padder(pairs)
    for batch in ([0], [5, 3, 199], rng.sample(range(200), 64), list(range(200))):
        src, tgt, n = padder(batch)
        want_src, want_tgt = collate(pairs, batch)
        assert torch.equal(src, want_src) and torch.equal(tgt, want_tgt)
        assert n == target_tokens(want_tgt) == sum(len(pairs[i][1]) - 1 for i in batch)


def test_a_budget_shrinks_to_end_training_by_the_deadline_it_is_given():
    """`--finish-by`: 100 steps timed over 1 s (10 ms a step) and 3 s left before the deadline
    plan about 300 more steps, not the 10 minutes (60,000 steps) of `budget_minutes`."""
    recipe = replace(TINY, budget_minutes=10.0)
    started = time.perf_counter() - 1.0
    progress: dict = {"step": 110}
    near = plan_budget(recipe, progress, (10, started), started, finish_by=time.time() + 3.0)
    assert near.steps == pytest.approx(110 + 300, abs=40)
    far = plan_budget(recipe, dict(progress), (10, started), started, finish_by=None)
    assert far.steps == pytest.approx(110 + 59_900, rel=0.02)


def test_training_with_fused_attention_learns_as_the_captured_path_does(tmp_path):
    """What the GPU recipe trains with (`fused_attention`): the same tiny run lowers its loss as
    far as the captured path's does (the same function; dropout draws differ)."""
    fused = run(tmp_path, "fused", replace(TINY, fused_attention=True))
    captured = run(tmp_path, "captured", TINY)
    first, last = fused[2]["loss_history"][0][1], fused[2]["loss_history"][-1][1]
    assert last < first - 0.5
    assert last == pytest.approx(captured[2]["loss_history"][-1][1], abs=0.3)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message where no GPU is")
def test_a_recipe_for_a_gpu_is_refused_with_a_message_where_there_is_none(tmp_path):
    with pytest.raises(SystemExit, match="sees no GPU"):
        run(tmp_path, "gpu", replace(TINY, device="cuda"))


def test_the_gpu_recipe_is_the_shipped_model_on_a_gpu_within_its_budget():
    """configs/en-de-gpu.toml trains the shipped architecture (so its weights can replace the
    shipped ones) with N(0, 1/d_model) token embeddings (issue 47: with Glorot's, the run's
    cross-attention never aligned), on the GPU, with flash attention, filling a measured budget
    that leaves scripts/gpu-run.sh's checks and data generation room in one 9-minute command."""
    cpu = Recipe.read(ROOT / "configs" / "en-de.toml")
    gpu = Recipe.read(ROOT / "configs" / "en-de-gpu.toml")
    architecture = ("name", "N", "h", "d_model", "d_ff", "dropout", "vocab_size", "test_seed")
    architecture += ("norm_first",)
    assert [getattr(gpu, a) for a in architecture] == [getattr(cpu, a) for a in architecture]
    assert (gpu.device, gpu.fused_attention, gpu.autocast) == ("cuda", True, "auto")
    assert (gpu.embedding_init, cpu.embedding_init) == ("normal", "xavier")
    assert not gpu.norm_first
    assert gpu.budget_minutes is not None and gpu.budget_minutes <= 7
    assert gpu.phases[-1].lr_factor_end == 0.0 and gpu.warmup < gpu.phases[0].until_step


def test_the_gpu_fine_tune_redraws_real_parts_of_the_shipped_model():
    """configs/en-de-finetune-gpu.toml starts from the shipped weights: its architecture is the
    shipped one, every `reinit` prefix names parameters of it (encoder layers 4-6 and each
    decoder layer's encoder-decoder attention, nothing else), and the supervised head is a
    cross-attention head of the penultimate decoder layer (Garg et al., 2019)."""
    tune = Recipe.read(ROOT / "configs" / "en-de-finetune-gpu.toml")
    shipped = json.loads((ROOT / tune.init_from).with_suffix(".json").read_text())
    config = TransformerConfig(**shipped["config"])
    assert (tune.N, tune.h, tune.d_model, tune.d_ff) == (
        config.N, config.h, config.d_model, config.d_ff
    )  # fmt: skip
    names = list(make_model(config).state_dict())
    for prefix in tune.reinit:
        assert any(n.startswith(prefix) for n in names), prefix
    redrawn = {n for n in names if n.startswith(tune.reinit)}
    assert {n.split(".")[0] for n in redrawn} == {"encoder", "decoder"}
    assert all(".src_attn." in n for n in redrawn if n.startswith("decoder."))
    assert {n.split(".")[2] for n in redrawn if n.startswith("encoder.")} == {"3", "4", "5"}
    assert tune.align_head is not None and tune.align_head[0] == config.N - 1
    assert 1 <= tune.align_head[1] <= config.h and tune.fused_attention


def test_the_v2_1_fine_tune_goes_on_from_the_shipped_model_on_corpus_v2_1():
    """configs/en-de-v2.1-finetune-gpu.toml: the shipped architecture and tokenizer size, no
    part drawn afresh, the supervised head kept; its pairs are corpus v2.1's, which holds
    sentences corpus v2's grammar cannot read ("My name is Anna.") beside v2's own."""
    from corpus.lexicon import load_version
    from corpus.parser import translate

    tune = Recipe.read(ROOT / "configs" / "en-de-v2.1-finetune-gpu.toml")
    shipped = json.loads((ROOT / tune.init_from).with_suffix(".json").read_text())
    config = TransformerConfig(**shipped["config"])
    # the CPU's recipe of the same run (configs/en-de-v2.1-finetune.toml) differs in its batch,
    # rate and budget only
    cpu = Recipe.read(ROOT / "configs" / "en-de-v2.1-finetune.toml")
    for recipe in (tune, cpu):
        assert (recipe.N, recipe.h, recipe.d_model, recipe.d_ff) == (
            config.N, config.h, config.d_model, config.d_ff
        )  # fmt: skip
        assert recipe.corpus == "v2.1" and not recipe.reinit and recipe.align_head == (5, 1)
        assert recipe.init_from == tune.init_from
    texts = training_texts(200, tune.data_seed, workers=1, corpus=tune.corpus)
    v2 = load_version("v2")
    unread = [en for en, _ in texts if translate(en, v2) is None]
    assert 10 <= len(unread) <= 190, unread[:5]
    assert texts != training_texts(200, tune.data_seed, workers=1)  # v2's draw differs


def test_a_replaying_recipe_trains_on_its_corpus_and_the_replayed_one():
    """replay_size pairs of replay_corpus from replay_seed join the recipe's own: the v2.1 GPU
    fine-tune sees as many fresh v2 pairs as v2.1 pairs, every one of which v2's parser reads."""
    from corpus.generator import generate
    from corpus.lexicon import load_version
    from corpus.parser import translate

    tune = Recipe.read(ROOT / "configs" / "en-de-v2.1-finetune-gpu.toml")
    assert (tune.corpus, tune.replay_corpus) == ("v2.1", "v2")
    assert tune.replay_size == tune.train_size and tune.replay_seed != tune.data_seed
    small = replace(tune, train_size=40, replay_size=30, align_head=None)
    texts = recipe_texts(small, workers=1, cache=None)
    assert len(texts) == 70
    assert texts[:40] == training_texts(40, tune.data_seed, workers=1, corpus="v2.1")
    # one chunk of the replay seed, drawn straight from the generator
    replayed = generate(30, seed=tune.replay_seed * 1_000_003, version="v2")
    assert texts[40:] == [(ex.english_text, ex.german_text) for ex in replayed]
    v2 = load_version("v2")
    assert all(translate(en, v2) is not None for en, _ in texts[40:])
    assert recipe_texts(replace(small, replay_size=0), workers=1, cache=None) == texts[:40]


def test_natural_pairs_join_the_grammar_s_each_as_often_as_the_recipe_says():
    """corpus/natural.py's hand-written pairs, `natural_repeat` times; under alignment
    supervision as one word a side linked to nothing, so the supervised head's target rows for
    them are all zero and only the translation loss reads them."""
    from corpus.natural import pairs as natural

    small = Recipe(name="n", train_size=20, natural_repeat=2, phases=(Phase(1, 1.0),))
    texts = recipe_texts(small, workers=1, cache=None)
    hand = list(natural())
    assert len(hand) >= 1000 and texts[20:] == hand + hand
    aligned = recipe_texts(replace(small, align_head=(5, 1)), workers=1, cache=None)
    assert aligned[20:22] == [([en], [de], [[]]) for en, de in hand[:2]]
    tokenizer = SubwordTokenizer.train([t for pair in texts for t in pair], 400)
    _, alignments = encode_aligned(aligned[20:21], tokenizer)
    assert alignments[0] and all(links == () for links in alignments[0])
    gpu = Recipe.read(ROOT / "configs" / "en-de-v2.1-natural-gpu.toml")  # the next GPU run's
    assert gpu.natural_repeat == 10 and gpu.align_head == (5, 1) and gpu.device == "cuda"


def test_a_checkpoint_made_before_natural_pairs_is_the_same_run(runs, tmp_path):
    """progress.json of a run made before `natural_repeat` existed has no such key: it reads as
    the field's default (0), not as another run."""
    tmp, _, _, _ = runs
    old = shutil.copytree(tmp / "whole", tmp_path / "old")  # the shared run stays as it is
    record = json.loads((old / "progress.json").read_text())
    record["run"].pop("natural_repeat")
    (old / "progress.json").write_text(json.dumps(record))
    training.check_same_run(TINY, old)
    with pytest.raises(ValueError, match="natural_repeat: 0 there, 3 here"):
        training.check_same_run(replace(TINY, natural_repeat=3), old)


def test_pairs_with_a_character_the_vocabulary_lacks_are_left_out():
    """ "Um 7:30 Uhr": the shipped 8,000 pieces have no colon, and a pair read with <unk> would
    teach the model to write it."""
    tokenizer = SubwordTokenizer.train(["Wir essen um 7 Uhr.", "We eat at 7."], 300)
    texts = [("We eat at 7.", "Wir essen um 7 Uhr."), ("We eat at 7:30.", "Wir essen um 7:30 Uhr.")]
    pairs = training.encode_pairs(texts, tokenizer)
    kept, alignments = training.without_unknown(pairs, [[(0,)], [(1,)]])
    assert kept == pairs[:1] and alignments == [[(0,)]]
    assert training.without_unknown(pairs, []) == (pairs[:1], [])
