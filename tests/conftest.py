"""Shared test set-up: one torch thread, and the models loaded once per test session."""

import os
import re
import sys
import tempfile

import pytest
import torch
from threadpoolctl import threadpool_limits

from runtime.local import MODEL_DIRS_ENV
from runtime.registry import load

# The models a developer's machine holds (its Hugging Face cache, its model folders) are not the
# suite's: every test, and every server it starts, sees an empty cache and no folder unless it
# makes its own (tests/tiny_models.py).
os.environ["HF_HUB_CACHE"] = tempfile.mkdtemp(prefix="atlas-empty-hf-cache-")
os.environ.pop(MODEL_DIRS_ENV, None)

# CI has two cores, and the app server and browser need the other; two spinning torch threads on
# a busy machine were measured 30x slower than one.
torch.set_num_threads(1)
# numpy's BLAS likewise (ui/state.get_model says why; the app's tests run here, not in its server)
threadpool_limits(1, user_api="blas")


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


# Test files whose tests read what earlier tests of the same file collected, or share a costly
# module fixture (test_smollm2.py: two 135M models, ~40 s to load): each runs whole, in order,
# on one worker of `pytest -n 2` (make test); every other test is scheduled on its own.
# (xdist 3.8's own `--dist loadgroup` groups nothing under pytest 9.2: it renames a test by
# setting `item._nodeid`, which pytest 9 no longer reads. A fresh-clone run split
# test_url_roundtrip.py between the workers and failed its summary tests.)
WHOLE_FILES = {"tests/ui/test_url_roundtrip.py", "tests/runtime/test_smollm2.py"}
# The layout check reads each page at both screens (tests/e2e/test_layout.py's SCREENS, the last
# part of the id): both go to one worker, one after the other, so the second reads what that
# worker's server cached for the first (SmolLM2's head atlas took ~50 s on each worker's server).
SCREEN_OF_A_PAGE = re.compile(
    r"^(tests/e2e/test_layout\.py::\w+\[.+)-(lecture-1920|laptop-1280)\]$"
)


def scope(nodeid: str) -> str:
    """The unit `pytest -n 2` hands a worker whole: a file of WHOLE_FILES, a layout page at
    every screen, or else the test alone."""
    path = nodeid.split("::", 1)[0]
    if path in WHOLE_FILES:
        return path
    page = SCREEN_OF_A_PAGE.match(nodeid)
    return page.group(1) + "]" if page else nodeid


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class Scheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope(nodeid)

    return Scheduling(config, log)


# `make test` runs the serial tests in a pytest of their own over the files whose text marks
# tests serial (the Makefile's SERIAL_FILES, a grep for this pattern), not over every file.
SERIAL_MARK = re.compile(r"mark\.serial")


def pytest_collection_modifyitems(config, items):
    """A test marked serial where the Makefile's grep would not see it (a mark given by a
    conftest or a helper) would run in neither of `make test`'s runs: fail the run instead."""
    unseen = sorted(
        {
            str(item.path)
            for item in items
            if item.get_closest_marker("serial") and not SERIAL_MARK.search(item.path.read_text())
        }
    )
    if unseen:
        raise pytest.UsageError(
            f"tests marked serial in files whose text has no 'mark.serial': {unseen}"
        )
