"""Find the tests that fail by chance (issue 68): the suite run N times, each on a fresh clone,
every failure reported with its test id, how often it failed and what it printed.

    .venv/bin/python scripts/flaky.py --runs 5                 # make test's pytest, 5 times
    .venv/bin/python scripts/flaky.py --runs 10 --load tests/e2e  # the browser tests, busy CPU
    make flaky FLAKY_ARGS="--runs 3 --load"

Each run clones HEAD into a fresh folder (only what is committed), borrows this checkout's
.venv (the clone's own code is imported: pytest runs in the clone) and runs pytest as `make
test` does: two workers for the tests not marked serial, then the serial ones alone (or the
paths given, on two workers). `--load` keeps one CPU-bound process running beside each run, as
CI's machine is not always idle. A failed browser test's report carries the end of the app
server's log and every server thread's stack, dumped on SIGUSR1 as the test failed
(tests/e2e/conftest.py); they go into the report here through JUnit XML.

The report (`--out`, default /tmp/flaky) is report.md: per failing test id, the runs it failed
in and the first failure's text; and each run's JUnit XML and console output. Exit status 1
when any run failed. Nothing here retries a failed test: it is there to be read.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What make test runs (Makefile): the parallel part, then the serial part alone.
PHASES = (
    ("parallel", ["-n", "2", "-m", "not serial and not lecture_hall"]),
    ("serial", ["-m", "serial and not lecture_hall"]),
)


def _spin(stop_at: float) -> None:
    """One core's worth of arithmetic until `stop_at` (the --load process)."""
    x = 0
    while time.time() < stop_at:
        for i in range(100_000):
            x = (x * 31 + i) % 1_000_003


def failures(junit: Path) -> list[tuple[str, str]]:
    """(test id, text) of every failed or erroring test case in a JUnit XML file."""
    if not junit.exists():
        return [("(no report: pytest did not finish)", "")]
    out = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        if bad is None:
            continue
        name = f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"
        parts = [bad.get("message", ""), bad.text or ""]
        parts += [(case.findtext(tag) or "") for tag in ("system-out", "system-err")]
        out.append((name, "\n".join(p for p in parts if p)))
    return out


def console_block(log: Path, name: str) -> str:
    """The failure's block of pytest's console output: between the "____ test ____" line of
    `name` and the next such line. It holds the report sections JUnit leaves out (the app
    server's log and thread stacks, the page's state: tests/e2e/conftest.py)."""
    if not log.exists():
        return ""
    test = name.split("::")[-1]
    lines = log.read_text(errors="replace").splitlines()
    start = next(
        (i for i, ln in enumerate(lines) if f" {test} " in ln and ln.startswith("_")), None
    )
    if start is None:
        return ""
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith(("____", "====="))),
        len(lines),
    )
    return "\n".join(lines[start:end])


def run_once(n: int, paths: list[str], out: Path, load: bool) -> list[tuple[str, str]]:
    """One fresh clone, the suite (or `paths`) run in it; its failures."""
    clone = Path(tempfile.mkdtemp(prefix=f"flaky-{n}-"))
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    (clone / ".venv").symlink_to(ROOT / ".venv")
    phases = [("paths", ["-n", "2", *paths])] if paths else list(PHASES)
    spinner = None
    if load:
        spinner = multiprocessing.Process(target=_spin, args=(time.time() + 6 * 3600,))
        spinner.start()
    found: list[tuple[str, str]] = []
    try:
        for phase, args in phases:
            junit = out / f"run{n}-{phase}.xml"
            log = out / f"run{n}-{phase}.log"
            command = [str(ROOT / ".venv/bin/python"), "-m", "pytest", "-q", *args]
            command += [
                "--junitxml",
                str(junit),
                "-o",
                "junit_logging=all",
                "-p",
                "no:cacheprovider",
            ]
            if phase == "serial":
                command += sorted(
                    str(p.relative_to(clone))
                    for p in (clone / "tests").rglob("test_*.py")
                    if "mark.serial" in p.read_text()
                )
            started = time.monotonic()
            with open(log, "w") as f:
                rc = subprocess.run(
                    command, cwd=clone, stdout=f, stderr=subprocess.STDOUT
                ).returncode
            print(f"run {n} {phase}: exit {rc} in {time.monotonic() - started:.0f} s", flush=True)
            if rc not in (0, 5):
                found += [
                    (name, text + "\n" + console_block(log, name)) for name, text in failures(junit)
                ]
    finally:
        if spinner is not None:
            spinner.terminate()
        shutil.rmtree(clone, ignore_errors=True)
    return found


def report(runs: int, seen: dict[str, list[tuple[int, str]]], load: bool) -> str:
    lines = [
        f"# Flaky-test report: {runs} fresh-clone runs"
        + (", one CPU-bound process beside" if load else ""),
        "",
    ]
    if not seen:
        return "\n".join(lines + ["Every run passed."]) + "\n"
    lines += ["| test | failed in runs | of |", "| --- | --- | --- |"]
    for name, hits in sorted(seen.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"| `{name}` | {', '.join(str(n) for n, _ in hits)} | {runs} |")
    for name, hits in seen.items():
        lines += ["", f"## {name}", "", "```", hits[0][1][-20000:], "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/flaky.py", description=__doc__.split("\n")[0])
    p.add_argument("paths", nargs="*", help="test paths (default: make test's whole suite)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--load", action="store_true", help="a CPU-bound process beside each run")
    p.add_argument("--out", type=Path, default=Path("/tmp/flaky"))
    args = p.parse_args(argv)
    if not (ROOT / ".venv/bin/python").exists():
        p.error("no .venv here: run `make test` once first")
    args.out.mkdir(parents=True, exist_ok=True)
    seen: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for n in range(1, args.runs + 1):
        for name, text in run_once(n, args.paths, args.out, args.load):
            seen[name].append((n, text))
        (args.out / "report.md").write_text(report(n, seen, args.load))
    print((args.out / "report.md").read_text())
    return 1 if seen else 0


if __name__ == "__main__":
    sys.exit(main())
