"""server.py's start-up work (`ui.state.preload`): the first visitor's page finds the default
model and its run on the opening text already in the shared caches, and the objects loaded by
then are left out of the garbage collection Streamlit runs after every page."""

import gc
import os
import subprocess
import sys

import pytest

from runtime import registry
from ui import state


@pytest.fixture
def _unfreeze():
    yield
    gc.unfreeze()  # the rest of the test run collects as usual


def test_after_preload_the_opening_page_runs_nothing(monkeypatch, _unfreeze):
    state.preload()
    assert gc.get_freeze_count() > 0  # what was loaded is no longer walked by every collection
    monkeypatch.setattr(state, "run", lambda *args, **kwargs: pytest.fail("the model ran"))
    monkeypatch.setattr(registry, "load", lambda *args: pytest.fail("a model was loaded"))
    trace = state.get_trace(registry.default_model_name(), state.DEFAULT_TEXT)
    assert trace.model == registry.default_model_name()
    assert state.get_model(registry.default_model_name()).name == trace.model


def test_preload_loads_the_model_even_when_its_opening_trace_is_cached(monkeypatch, _unfreeze):
    # A Trace outlives its model's cache entry (a test or an admin clears get_model alone);
    # the first page still asks for the model by name, and must not wait for it.
    name = registry.default_model_name()
    state.get_trace(name, state.DEFAULT_TEXT)
    state.get_model.clear()
    state.preload()
    monkeypatch.setattr(registry, "load", lambda *args: pytest.fail("a model was loaded"))
    assert state.get_model(name).name == name


def test_preload_names_the_models_a_class_will_open(monkeypatch):
    monkeypatch.setenv(state.PRELOAD_ENV, " minilm-l6 ,paper-untrained,minilm-l6,")
    default = registry.default_model_name()
    expected = [default] + [m for m in ("minilm-l6", "paper-untrained") if m != default]
    assert state.preloaded_models() == expected
    monkeypatch.setenv(state.PRELOAD_ENV, "smollm-2")
    with pytest.raises(SystemExit, match="'smollm-2' is no model here; choose from .*smollm2-135m"):
        state.preloaded_models()
    monkeypatch.delenv(state.PRELOAD_ENV)
    assert state.preloaded_models() == [default]


def test_preload_runs_every_named_model_once(monkeypatch, _unfreeze):
    monkeypatch.setenv(state.PRELOAD_ENV, "paper-untrained")
    state.preload()
    monkeypatch.setattr(state, "run", lambda *args, **kwargs: pytest.fail("the model ran"))
    monkeypatch.setattr(registry, "load", lambda *args: pytest.fail("a model was loaded"))
    assert state.get_trace("paper-untrained", state.DEFAULT_TEXT).model == "paper-untrained"


def test_the_server_gives_numpy_one_blas_thread():
    """The head atlas's PCA runs in numpy's BLAS, whose threads spin against the server's other
    work (ui.state.get_model): once a model is loaded, BLAS has one thread, even where the
    environment asks OpenBLAS for four (it takes at most one a core)."""
    script = (
        "from threadpoolctl import threadpool_info\n"
        "from ui import state\n"
        "def blas(): return sorted({p['num_threads'] for p in threadpool_info()"
        " if p['user_api'] == 'blas'})\n"
        "print(blas())\n"
        "state.get_model('paper-untrained')\n"
        "print(blas())\n"
    )
    env = dict(os.environ, OPENBLAS_NUM_THREADS="4")
    before, after = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    ).stdout.split()
    assert before == str([min(4, os.cpu_count() or 1)])  # numpy starts with the environment's
    assert after == "[1]"
