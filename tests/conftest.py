"""Shared test set-up: one torch thread, and the models loaded once per test session."""

import sys

import pytest
import torch

from runtime.registry import load

# CI has two cores, and the app server and browser need the other; two spinning torch threads on
# a busy machine were measured 30x slower than one.
torch.set_num_threads(1)


@pytest.fixture(scope="session")
def untrained():
    """The paper's base model with seeded random weights (read-only: shared by many tests)."""
    return load("paper-untrained", torch.device("cpu"))


@pytest.fixture(scope="session")
def minilm():
    """The pretrained MiniLM-L6 encoder in our blocks."""
    return load("minilm-l6", torch.device("cpu"))


@pytest.fixture(scope="session")
def translator():
    """The shipped English→German translator (read-only: shared by many tests)."""
    return load("en-de", torch.device("cpu"))


@pytest.fixture(autouse=True)
def _keep_main_module():
    """Streamlit's AppTest runs app.py as `__main__` and leaves it in sys.modules: a process
    spawned afterwards in the same test process (training's batch grouper) then re-ran the whole
    app as its main module and died. Each test starts and ends with the real one."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main
