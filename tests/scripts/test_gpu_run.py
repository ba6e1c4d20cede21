"""scripts/gpu-run.sh, tried on the CPU through the same code path as on the GPU machine: a tiny
recipe with a measured budget (its phases, as written, far longer than the budget: the plan
shrinks them, as on the GPU), the CUDA checks (skipped here), the timings, the weights split
into parts under 16 MiB, and scripts/gpu-collect.sh joining them into loadable weights."""

import json
import os
import subprocess
from pathlib import Path

import torch

from runtime.registry import load_trained

ROOT = Path(__file__).resolve().parents[2]

TINY_RECIPE = """
name = "tiny"
device = "cpu"
fused_attention = true
train_size = 300
vocab_size = 300
N = 1
h = 2
d_model = 16
d_ff = 32
batch_tokens = 400
warmup = 4
autocast = "auto"
threads = 1
moments = "fp32"
log_every = 5
budget_minutes = 0.1
calibrate_steps = 15
[[phases]]
until_step = 20000
lr_factor = 1.0
[[phases]]
until_step = 40000
lr_factor = 1.0
lr_factor_end = 0.0
"""


def test_the_gpu_run_works_through_on_a_cpu_and_its_weights_come_back_whole(tmp_path):
    recipe = tmp_path / "tiny.toml"
    recipe.write_text(TINY_RECIPE)
    out = tmp_path / "out"
    python = str(Path(os.sys.executable))
    env = dict(
        os.environ,
        OUT=str(out),
        PYTHON=python,
        GPU_RUN_DEVICE="cpu",
        GPU_RUN_RECIPE=str(recipe),
        GPU_RUN_LENGTHS="16",
        GPU_RUN_REPEATS="3",
        TRAIN_DATA_CACHE=str(tmp_path / "data"),  # not the repository's runs/data
    )
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "gpu-run.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    log = (out / "run.log").read_text()
    for phase in ("machine", "cuda-checks", "timings", "training"):
        assert f"== {phase}: exit 0" in log, log
    assert "skipped" in (out / "cuda-tests.log").read_text()  # no GPU here
    timings = json.loads((out / "timings.json").read_text())["forward"]
    assert [row["tokens"] for row in timings] == [16] and timings[0]["fused_ms"] > 0
    # what comes back: at most 8 files, none of 16 MiB or more
    files = sorted(p.name for p in out.iterdir())
    assert len(files) <= 8 and "tiny.safetensors.part-00" in files, files
    assert all(p.stat().st_size < 16 * 2**20 for p in out.iterdir())
    sidecar = json.loads((out / "tiny.json").read_text())
    planned = sidecar["training"]["recipe"]["phases"][-1]["until_step"]
    assert sidecar["training"]["steps"] == planned < 40000
    assert 0 <= sidecar["metrics"]["quick_look"]["greedy_exact_match"] <= 1

    dest = tmp_path / "joined"
    subprocess.run(
        ["bash", str(ROOT / "scripts" / "gpu-collect.sh"), str(out), str(dest)],
        env=dict(os.environ, PYTHON=python),
        check=True,
        capture_output=True,
        timeout=120,
    )
    loaded = load_trained(torch.device("cpu"), dest / "tiny.safetensors")
    assert loaded.model.config.d_model == 16


def test_collect_refuses_parts_that_do_not_join_into_the_recorded_file(tmp_path):
    """A part lost or changed on the way is caught by the sidecar's sha256."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "tiny.safetensors.part-00").write_bytes(b"not the weights")
    (out / "tiny.json").write_text(json.dumps({"sha256": "0" * 64, "file": "tiny.safetensors"}))
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "gpu-collect.sh"), str(out), str(tmp_path / "j")],
        env=dict(os.environ, PYTHON=str(Path(os.sys.executable))),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "sha256" in done.stderr, done.stderr
