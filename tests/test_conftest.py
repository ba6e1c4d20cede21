"""The test set-up's own guard: `make test` runs serial tests only from files whose text marks
them (the Makefile's grep), so a serial mark given elsewhere must fail the run, not skip it."""

from types import SimpleNamespace

import pytest

from tests.conftest import pytest_collection_modifyitems


def _item(path, serial: bool):
    return SimpleNamespace(path=path, get_closest_marker=lambda name: serial or None)


def test_a_serial_test_in_a_file_without_the_mark_fails_the_run(tmp_path):
    marked = tmp_path / "test_marked.py"
    marked.write_text("pytestmark = [pytest.mark.serial]\n")
    hidden = tmp_path / "test_hidden.py"
    hidden.write_text("pytestmark = SLOW_MARKS  # serial, but through a name\n")
    pytest_collection_modifyitems(None, [_item(marked, True), _item(hidden, False)])
    with pytest.raises(pytest.UsageError, match="test_hidden.py"):
        pytest_collection_modifyitems(None, [_item(marked, True), _item(hidden, True)])


def test_the_makefile_greps_for_the_pattern_the_guard_checks():
    from pathlib import Path

    from tests.conftest import SERIAL_MARK

    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    assert f"SERIAL_MARK := {SERIAL_MARK.pattern}" in makefile


def test_a_layout_page_goes_to_one_worker_at_both_screens_and_other_tests_alone():
    from tests.conftest import scope
    from tests.e2e.test_layout import PAGES, SCREENS

    layout = "tests/e2e/test_layout.py::test_figures_readable"
    page, other = PAGES[0][0], PAGES[1][0]
    ids = {s.name: f"{layout}[{page}-{s.name}]" for s in SCREENS}
    assert len({scope(i) for i in ids.values()}) == 1
    assert scope(f"{layout}[{other}-{SCREENS[0].name}]") != scope(ids[SCREENS[0].name])
    alone = "tests/e2e/test_browser.py::test_tour_of_every_control_and_tab"
    assert scope(alone) == alone
    assert scope("tests/runtime/test_smollm2.py::test_a[x]") == "tests/runtime/test_smollm2.py"
