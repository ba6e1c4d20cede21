"""server.py's start-up work (`ui.state.preload`): the first visitor's page finds the default
model and its run on the opening text already in the shared caches, and the objects loaded by
then are left out of the garbage collection Streamlit runs after every page."""

import gc

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
