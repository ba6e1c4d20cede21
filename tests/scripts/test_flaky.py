"""scripts/flaky.py reads what pytest wrote: every failed or erroring test of a JUnit report, with
the server's log and thread stacks a browser test attached, and counts them over the runs."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("flaky", ROOT / "scripts" / "flaky.py")
flaky = importlib.util.module_from_spec(spec)
spec.loader.exec_module(flaky)

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" tests="3">
<testcase classname="tests.e2e.test_demos" name="test_scene[i]" time="300.1">
<failure message="TimeoutError: no chart in 300 s">Traceback ...</failure>
<system-out>app server threads
Thread 0x7f (most recent call first):
  File "ui/state.py", line 207 in make</system-out>
</testcase>
<testcase classname="tests.ui.test_text" name="test_ok" time="1.0"/>
<testcase classname="tests.model.test_train" name="test_data" time="2.0">
<error message="fixture failed">OSError</error></testcase>
</testsuite></testsuites>
"""


def test_failed_and_erroring_tests_are_read_with_what_they_attached(tmp_path):
    junit = tmp_path / "run1.xml"
    junit.write_text(JUNIT)
    found = dict(flaky.failures(junit))
    assert set(found) == {
        "tests/e2e/test_demos.py::test_scene[i]",
        "tests/model/test_train.py::test_data",
    }
    hang = found["tests/e2e/test_demos.py::test_scene[i]"]
    assert "no chart in 300 s" in hang and "most recent call first" in hang
    assert "OSError" in found["tests/model/test_train.py::test_data"]


def test_a_run_that_left_no_report_is_a_failure_too(tmp_path):
    assert flaky.failures(tmp_path / "missing.xml")[0][0].startswith("(no report")


def test_the_report_counts_each_test_s_failed_runs():
    seen = {"tests/a.py::t": [(1, "first"), (3, "again")], "tests/b.py::u": [(2, "once")]}
    text = flaky.report(3, seen, load=True)
    assert "| `tests/a.py::t` | 1, 3 | 3 |" in text and "| `tests/b.py::u` | 2 | 3 |" in text
    assert text.index("tests/a.py::t") < text.index("tests/b.py::u")  # most often first
    assert "one CPU-bound process beside" in text
    assert flaky.report(5, {}, load=False).endswith("Every run passed.\n")
