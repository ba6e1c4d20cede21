"""What `make app` shows a newcomer: one line a step and the address to open, not pages of pip's
and setuptools' output (issue 45, item 12). Checked by running make with the steps' commands
replaced by ones that print what pip prints, so nothing is installed."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_make_app_prints_a_line_a_step_and_the_address(tmp_path):
    # a stand-in for the virtual environment whose pip writes noise and whose streamlit says
    # where it serves, as the real ones do
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for tool, text in {
        "pip": "BuildBackendWarning: Package 'model.weights' is absent\\n********",
        "streamlit": "  URL: http://localhost:8599",
        "python": "",
    }.items():
        script = venv / "bin" / tool
        script.write_text(f'#!/bin/sh\nprintf "{text}\\n"\n')
        script.chmod(0o755)
    result = subprocess.run(
        ["make", "--no-print-directory", "app", f"VENV={venv}", "PORT=8599"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    lines = result.stdout.splitlines()
    assert "BuildBackendWarning" not in result.stdout + result.stderr
    assert "pip install" not in result.stdout
    assert lines[0].startswith("Installing the app's packages")
    assert any(line.startswith("Starting the app: open http://localhost:8599") for line in lines)
    assert lines[-1] == "  URL: http://localhost:8599"
    assert len(lines) <= 6, lines
    assert "BuildBackendWarning" in (venv / "pip.log").read_text()  # kept, for a failure


def test_a_failing_step_shows_pip_s_own_words(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("#!/bin/sh\n")
    (venv / "bin" / "pip").write_text('#!/bin/sh\necho "ERROR: No matching distribution"\nexit 1\n')
    for tool in ("python", "pip"):
        (venv / "bin" / tool).chmod(0o755)
    result = subprocess.run(
        ["make", "--no-print-directory", "app", f"VENV={venv}"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode != 0
    assert "ERROR: No matching distribution" in result.stdout
