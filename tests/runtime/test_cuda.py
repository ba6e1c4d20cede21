"""The models on a GPU against the same models on the CPU: every attention weight, query, key,
value and hidden state of a Trace, and the decoded text, under the paper's settings and the
viewer's (scale, ablated heads, window r); and the model goes to the device the sidebar reports.

Marked `cuda`: skipped where torch sees no GPU (this project's CI), run by scripts/gpu-run.sh on
the GPU machine. Tolerances: float32 on both sides (TF32 stays off, torch's default for matrix
products), so differences come from summation order alone: about 1e-6 on weights, which are in
[0, 1]; hidden states are compared relative to their scale."""

import numpy as np
import pytest
import torch

from model.transformer import RunSettings
from runtime.registry import default_device, load
from runtime.trace import run

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no GPU here"),
]

SENTENCES = (
    "The animal didn't cross the street because it was too tired.",
    "The old man sees the small dog in the garden.",
)
SETTINGS = {
    "paper": RunSettings(),
    "scale-off": RunSettings(scale=1.0),
    "ablated": RunSettings(ablate=frozenset({("encoder_self", 2, 3), ("cross", 4, 1)})),
    "window-2": RunSettings(window=2),
}
WEIGHT_ATOL = 2e-5
HIDDEN_RTOL = 1e-4


@pytest.fixture(scope="module", params=["en-de", "paper-untrained"])
def pair(request):
    """(CPU, CUDA) copies of one model."""
    return load(request.param, torch.device("cpu")), load(request.param, torch.device("cuda"))


def assert_same_trace(cpu, gpu):
    assert gpu.device.startswith("cuda") and cpu.device == "cpu"
    assert gpu.source_tokens == cpu.source_tokens
    assert gpu.target_tokens == cpu.target_tokens
    assert gpu.output == cpu.output
    for name in ("attention", "queries", "keys", "values"):
        ours, theirs = getattr(gpu, name), getattr(cpu, name)
        assert ours.keys() == theirs.keys()
        for kind in theirs:
            scale = max(float(np.abs(theirs[kind]).max()), 1.0)
            atol = WEIGHT_ATOL if name == "attention" else HIDDEN_RTOL * scale
            np.testing.assert_allclose(ours[kind], theirs[kind], atol=atol, rtol=0, err_msg=kind)
    scale = float(np.abs(cpu.encoder_hidden_states).max())
    np.testing.assert_allclose(
        gpu.encoder_hidden_states, cpu.encoder_hidden_states, atol=HIDDEN_RTOL * scale, rtol=0
    )


@pytest.mark.parametrize("text", SENTENCES)
@pytest.mark.parametrize("name", SETTINGS)
def test_a_trace_on_the_gpu_equals_the_cpus(pair, text, name):
    cpu, gpu = pair
    assert next(gpu.model.parameters()).is_cuda
    assert_same_trace(run(cpu, text, SETTINGS[name]), run(gpu, text, SETTINGS[name]))


def test_beam_search_on_the_gpu_finds_the_cpus_translation(pair):
    cpu, gpu = pair
    text = SENTENCES[0]
    assert run(gpu, text, decoding="beam").output == run(cpu, text, decoding="beam").output


def test_the_app_puts_the_model_on_the_gpu_it_reports():
    """The sidebar says `default_device().type.upper()`; a model loaded as the app loads it
    (no device named) is there, and its Trace says so."""
    assert default_device().type == "cuda"
    loaded = load("en-de")
    assert loaded.device.type == "cuda"
    assert all(p.is_cuda for p in loaded.model.parameters())
    assert run(loaded, SENTENCES[1]).device.startswith("cuda")
