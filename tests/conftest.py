"""Shared test set-up: one torch thread, and the models loaded once per test session."""

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
