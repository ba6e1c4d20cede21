"""A lecture hall at once: a hundred students open the app on one server within a minute.

Each simulated student is a real client of the server, speaking Streamlit's own websocket
protocol (harness/streamlit_client.py; a hundred Chromium pages on 2 cores would measure
Chromium more than the server). Each one opens the page at `?model=minilm-l6`, types its own
sentence into the text area (key `text`), waits for the Attention tab's heatmap of that sentence,
then moves the layer slider (`layer`), picks a head (`head`) and opens another tab (`tab`), each
student its own layer, head and tab. Asserted: every student sees its own heatmap, every change
draws a new figure with the right title and the student's tokens, no run shows an exception or an
error, no student ever receives another student's tokens, the 95th percentile of open → own
heatmap stays under a stated bound and so does the server's peak memory.

Why `?model=minilm-l6` and not the default model: the default is the en-de translator only once
its trained weights meet the quality bar (`runtime.registry.default_model_name`), so it changes
with training; MiniLM-L6 is fixed, every word of `harness.load_sentences` is in its vocabulary,
and its tokens can be computed by an independent tokenizer (transformers' pure-Python WordPiece
on the published vocab.txt). It is also the heavier of the two per sentence (6 layers × 12 heads,
d_model 384), and what tests/e2e/test_load.py uses, so the figures compare. The server preloads
the default model; the first MiniLM student pays for loading MiniLM (about a second).

    make lecture-hall     # the 100-student run (marker lecture_hall, not in `make test`)
    make lecture-hall HALL_MODEL=smollm2-135m   # the same hall on the chat model (below)
    pytest tests/e2e/test_lecture_hall.py -k smoke   # 10 students, part of `make test`

With `ATLAS_HALL_MODEL=smollm2-135m` (what `HALL_MODEL` sets) each student's sentence is a
prompt SmolLM2 continues (up to runtime.causal.MAX_NEW_TOKENS tokens) and the heatmap's axes are
the prompt's tokens followed by what the model wrote: the checks then ask that the axes begin
with the student's own prompt tokens (the app's byte-level tokenizer, checked against
transformers' in tests/runtime/test_smollm2.py). Every run generates, so a student costs the
server several times MiniLM's CPU and the time bound is that model's own (HALL_P95_LIMIT_S).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import harness
from harness.streamlit_client import Chart, Run, StreamlitSession
from ui.state import TRACE_CACHE_BYTES

MODEL = os.environ.get("ATLAS_HALL_MODEL", "minilm-l6")
LANGUAGE_MODEL = "smollm2-135m"
if MODEL not in ("minilm-l6", LANGUAGE_MODEL):
    raise ValueError(f"ATLAS_HALL_MODEL={MODEL!r}: the hall runs minilm-l6 or {LANGUAGE_MODEL}")
HEATMAP_KEY = "attention_heatmap"  # ui/attention_tab.py: the Head heatmap view's chart
# The tab each student opens last (in turn), and a chart of it that shows the student's tokens
# on both axes (ui/heads_tab.py, compare_tab.py, positional_tab.py, scaling_tab.py).
TAB_CHARTS = {
    "Heads & rollout": "heads_selected_heatmap",
    "Compare": "compare_a",
    "Positional encoding": "pos_attention_00",
    "Scaling 1/√d_k": "scaling_live_0",
}
if MODEL == LANGUAGE_MODEL:  # its positional tab is the RoPE lab, on its own short example
    del TAB_CHARTS["Positional encoding"]

# harness.load_sentences gives student i a sentence ending "on day <i + 1> .": in any message
# (a chart, the text area, the Compare tab's text, a query string), as typed or URL-encoded.
READING = re.compile(r"^.* \(reading '(.*)'\)$", re.DOTALL)
DAY = re.compile(rb"on(?: |\+|%20)day(?: |\+|%20)(\d+)")
DAY_ENCODED = re.compile(rb"on(?:\+|%20)day(?:\+|%20)(\d+)")

SESSIONS = 100
RAMP_S = 60.0  # every session opens within this; student i at i * RAMP_S / SESSIONS
SMOKE_SESSIONS = 10
SMOKE_RAMP_S = 5.0

# Open → own heatmap, 95th percentile. One server process runs one script thread at a time, so
# a student waits behind the runs of those before: at about 0.5 s of server CPU a student, a
# hundred in a minute keep up (measured p95 0.37 s, see docs/benchmarks.md, "A lecture hall");
# at 1.5 s a student (before the server froze its start-up objects out of Streamlit's garbage
# collection after every run) they queued to a p95 of 55 s. The bound leaves room for a busy
# machine.
# SmolLM2 at a hundred students a minute is far over this machine's floor: a new text is a
# generation of up to 32 tokens with every attention kept (2.5 s of the server's CPU, measured
# with AppTest), and the tab a student opens may run the model again (the Scaling lab's other
# scales, Compare's second text): 5-8 s of model work a student, 500-800 s for the hall,
# however the runs are queued on one process. Measured 2026-11-29 (docs/benchmarks.md, "A
# lecture hall"): p95 658 s. Its bounds are that queue with room for a busy machine; what the LM
# hall checks hard is the rest (own tokens, no cross-talk, no error).
HALL_P95_LIMIT_S = {LANGUAGE_MODEL: (1200.0, 120.0)}  # (the hall, the smoke run)
P95_LIMIT_S, SMOKE_P95_LIMIT_S = HALL_P95_LIMIT_S.get(MODEL, (5.0, 5.0))

# Peak resident memory of the server (and any child process) above its memory once started
# (Python, torch, Streamlit and the default model, preloaded by server.py): MiniLM's weights
# (counted twice: the file is read, then copied into the model), the shared Trace cache's
# bound (ui/state.py: TRACE_CACHE_BYTES, 1 GiB, all sessions' Traces together) and, per session,
# what Streamlit keeps for each (harness.PER_SESSION_BYTES).
# SmolLM2: its float32 safetensors cache (~540 MB: 135M parameters), counted twice the same way.
MODEL_BYTES = {"minilm-l6": 2 * 87 * 2**20, LANGUAGE_MODEL: 2 * 540 * 2**20}[MODEL]
# ... and a session of the chat model keeps larger figures (prompt and answer: 40-70 tokens,
# 270 heads in the overview): measured 3,026 MiB above the start for 100 students, about 9.2
# MiB a student over the weights and the cache; bounded at 16.
SESSION_BYTES = {LANGUAGE_MODEL: 16 * 2**20}.get(MODEL, harness.PER_SESSION_BYTES)


def rss_growth_limit(sessions: int) -> int:
    return MODEL_BYTES + TRACE_CACHE_BYTES + sessions * SESSION_BYTES


@dataclass
class Student:
    """What one simulated student saw."""

    index: int
    sentence: str
    tokens: list[str]
    first_heatmap_s: float | None = None  # session open -> first heatmap of its own tokens
    change_s: dict[str, float] = field(default_factory=dict)  # layer/head/tab: request -> done
    problems: list[str] = field(default_factory=list)
    cross_talk: list[str] = field(default_factory=list)
    opened_s: float | None = None
    charts: int = 0
    messages: int = 0


def labels(chart: Chart, axis: str = "x") -> list[str]:
    """A chart's tokens along an axis: its tick labels; for the language model every category
    (a prompt and its continuation are too long to label every token), and along the rows the
    token each row reads ("' sat' (reading ' cat')": viz.attention.row_names)."""
    if MODEL != LANGUAGE_MODEL:
        return chart.axis_labels(axis)
    categories = chart.categories(axis)
    if axis == "y":
        return [READING.sub(r"\1", row) for row in categories]
    return categories


def shows(axis_tokens: list[str], tokens: list[str] | tuple[str, ...]) -> bool:
    """Whether an axis shows a student's `tokens`: exactly, or for the language model as the
    prompt its continuation follows."""
    if MODEL == LANGUAGE_MODEL:
        return list(axis_tokens[: len(tokens)]) == list(tokens)
    return list(axis_tokens) == list(tokens)


def reference_tokens(sentences: list[str]) -> list[list[str]]:
    """Each sentence's tokens as the hall's model reads them."""
    if MODEL == LANGUAGE_MODEL:
        from runtime.smollm2 import ByteLevelTokenizer, load_model

        sidecar = load_model()[1]
        tokenizer = ByteLevelTokenizer(json.dumps(sidecar["tokenizer"]), sidecar["chat_template"])
        return [list(tokenizer.encode(sentence).tokens) for sentence in sentences]
    return harness.minilm_reference_tokens(sentences)


def check_chart(run: Run, key: str, tokens: list[str], title: str | None = None) -> list[str]:
    """What is wrong with the run's chart `key`: missing, not on the student's tokens (both
    axes), or without `title` in its title."""
    if run.status != "finished":
        return [f"run {run.index} ended {run.status}"]
    charts = [chart for chart in run.charts if chart.key == key]
    if not charts:
        return [f"run {run.index}: no chart {key!r} (got {[c.key for c in run.charts]})"]
    chart = charts[-1]
    problems = []
    for axis in ("x", "y"):
        if not shows(labels(chart, axis), tokens):
            problems.append(f"chart {key!r} {axis} labels {labels(chart, axis)} != {tokens}")
    if title is not None and title not in chart.title:
        problems.append(f"chart {key!r} title {chart.title!r} lacks {title!r}")
    return problems


async def attend(
    url: str, student: Student, delay_s: float, owners: dict[tuple[str, ...], int]
) -> None:
    """One student's visit: open, type, wait for the own heatmap, change layer, head, tab.
    `owners` maps every student's tokens to that student, to recognise cross-talk."""
    await asyncio.sleep(delay_s)
    i, tokens = student.index, student.tokens

    # The language model writes text of its own, "on day 12" among it: for it only the
    # URL-encoded form (a query string) counts, and the axes' prompt check (cross_talk) does
    # the rest.
    days = DAY_ENCODED if MODEL == LANGUAGE_MODEL else DAY

    def foreign_days(frame: bytes) -> None:
        for day in days.findall(frame):
            if int(day) != i + 1:
                student.cross_talk.append(f"a message holds student {int(day) - 1}'s sentence")

    session = StreamlitSession(url, f"model={MODEL}", on_frame=foreign_days)
    try:
        async with session:
            student.opened_s = session.opened_s
            await session.rerun()  # the page as it opens, on the opening text
            run = await session.set_text("text", student.sentence)
            own = next(
                (c for c in run.charts if c.key == HEATMAP_KEY and shows(labels(c), tokens)),
                None,
            )
            if own is not None:
                student.first_heatmap_s = own.received_s - session.opened_s
            student.problems += check_chart(run, HEATMAP_KEY, tokens, "layer 1, head 1")

            layers = list(session.widget("layer").options)  # "1" .. "6"
            layer = layers[1 + i % (len(layers) - 1)]  # never the layer shown
            heads = [h for h in session.widget("head").options if re.fullmatch(r"head \d+", h)]
            head = heads[1 + i % (len(heads) - 1)]  # never "head 1", the one shown
            tab = list(TAB_CHARTS)[i % len(TAB_CHARTS)]
            steps = [  # (what, action, widget key, value, chart to check, its title's part)
                ("layer", session.slide_to, "layer", layer, HEATMAP_KEY, f"layer {layer}, head 1"),
                ("head", session.choose, "head", head, HEATMAP_KEY, f"layer {layer}, {head}"),
                ("tab", session.choose, "tab", tab, TAB_CHARTS[tab], None),
            ]
            for name, act, widget, value, key, title in steps:
                started = time.monotonic()
                run = await act(widget, value)
                student.change_s[name] = time.monotonic() - started
                student.problems += [f"{name}: {p}" for p in check_chart(run, key, tokens, title)]
    except Exception as err:  # one student's failure is reported with the others', not raised
        student.problems.append(f"{type(err).__name__}: {err}")
    student.problems += session.problems
    student.charts, student.messages = len(session.charts), session.messages
    student.cross_talk += cross_talk(session.charts, i, owners)


def cross_talk(charts: list[Chart], index: int, owner_of: dict[tuple[str, ...], int]) -> list[str]:
    """Charts of this student whose axis shows exactly another student's tokens."""
    found = []
    for chart in charts:
        for axis in ("x", "y"):
            axis_tokens = labels(chart, axis)
            owners = (
                {owner for tokens, owner in owner_of.items() if shows(axis_tokens, tokens)}
                if MODEL == LANGUAGE_MODEL
                else {owner_of.get(tuple(axis_tokens))}
            )
            for owner in owners - {None, index}:
                found.append(f"chart {chart.key!r} shows student {owner}'s tokens on {axis}")
    return found


@dataclass
class HallResult:
    students: list[Student]
    wall_s: float
    rss_start: int
    rss_peak: int
    rss_samples: int
    open_spread_s: float  # first session open -> last session open
    server_cpu_s: float
    client_cpu_s: float  # all the simulated students together, and the memory sampler

    def seconds(self) -> list[float]:
        return [s.first_heatmap_s for s in self.students if s.first_heatmap_s is not None]

    def report(self) -> str:
        seconds = self.seconds()
        changes = [t for s in self.students for t in s.change_s.values()]
        lines = [
            f"{len(self.students)} sessions opened within {self.open_spread_s:.1f} s, "
            f"all done after {self.wall_s:.1f} s",
            f"open -> own heatmap: p50 {statistics.median(seconds):.2f} s, "
            f"p95 {harness.percentile(seconds, 0.95):.2f} s, max {max(seconds):.2f} s "
            f"(n={len(seconds)})"
            if seconds
            else "open -> own heatmap: none seen",
            f"layer/head/tab change -> run done: p50 {statistics.median(changes):.2f} s, "
            f"p95 {harness.percentile(changes, 0.95):.2f} s"
            if changes
            else "no changes done",
            f"server RSS: {self.rss_start / 2**20:.0f} MiB at start, peak "
            f"{self.rss_peak / 2**20:.0f} MiB ({self.rss_samples} samples; bound: start + "
            f"{rss_growth_limit(len(self.students)) / 2**20:.0f} MiB)",
            f"CPU: server {self.server_cpu_s:.1f} s, client (every student) "
            f"{self.client_cpu_s:.1f} s; charts received {sum(s.charts for s in self.students)}, "
            f"messages {sum(s.messages for s in self.students)}",
        ]
        return "\n".join(lines)


def lecture_hall(server: harness.Server, sessions: int, ramp_s: float) -> HallResult:
    """Run `sessions` students against `server`, opening within `ramp_s` seconds."""
    sentences = harness.load_sentences(sessions)
    tokens = reference_tokens(sentences)
    assert len({tuple(t) for t in tokens}) == sessions, "the sentences must differ in tokens"
    owners = {tuple(t): i for i, t in enumerate(tokens)}
    days = [DAY.findall(sentence.encode()) for sentence in sentences]
    assert days == [[str(i + 1).encode()] for i in range(sessions)], "no day marks: see DAY"
    students = [Student(i, s, t) for i, (s, t) in enumerate(zip(sentences, tokens))]

    async def everyone() -> None:
        await asyncio.gather(
            *(attend(server.url, s, s.index * ramp_s / sessions, owners) for s in students)
        )

    rss_start = harness.rss_bytes(server.pid)
    server_cpu, client_cpu = cpu_seconds(server.pid), time.process_time()
    started = time.monotonic()
    with harness.PeakRSS(server.pid) as rss:
        harness.run_async(everyone())
    opened = [s.opened_s for s in students if s.opened_s is not None]
    return HallResult(
        students,
        wall_s=time.monotonic() - started,
        rss_start=rss_start,
        rss_peak=rss.peak,
        rss_samples=rss.samples,
        open_spread_s=max(opened) - min(opened) if opened else float("nan"),
        server_cpu_s=cpu_seconds(server.pid) - server_cpu,
        client_cpu_s=time.process_time() - client_cpu,
    )


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (/proc/<pid>/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def check_hall(
    result: HallResult, server: harness.Server, sessions: int, ramp_s: float, p95_limit_s: float
) -> None:
    print("\n" + result.report())
    problems = [f"student {s.index}: {p}" for s in result.students for p in s.problems]
    assert problems == [], "\n".join(problems[:40])
    crossed = [f"student {s.index}: {c}" for s in result.students for c in s.cross_talk]
    assert crossed == [], "\n".join(crossed[:40])
    missing = [s.index for s in result.students if s.first_heatmap_s is None]
    assert missing == [], f"students without their own heatmap: {missing}"
    assert result.open_spread_s <= ramp_s, f"sessions opened over {result.open_spread_s:.1f} s"
    p95 = harness.percentile(result.seconds(), 0.95)
    assert p95 < p95_limit_s, f"p95 open -> own heatmap {p95:.1f} s >= {p95_limit_s} s"
    growth = result.rss_peak - result.rss_start
    limit = rss_growth_limit(sessions)
    assert growth < limit, (
        f"server peak RSS {result.rss_peak / 2**20:.0f} MiB: {growth / 2**20:.0f} MiB above its "
        f"start, bound {limit / 2**20:.0f} MiB"
    )
    assert "Traceback" not in server.log(), server.log()[-4000:]


@pytest.mark.serial  # its p95 time limit holds with nothing else running
def test_lecture_hall_smoke(tmp_path):
    """Ten students in five seconds: the client and the checks, on every `make test`."""
    with harness.running_server(tmp_path) as server:
        result = lecture_hall(server, SMOKE_SESSIONS, SMOKE_RAMP_S)
        check_hall(result, server, SMOKE_SESSIONS, SMOKE_RAMP_S, SMOKE_P95_LIMIT_S)


@pytest.mark.lecture_hall
def test_lecture_hall(tmp_path):
    """A hundred students within a minute on one server (`make lecture-hall`)."""
    with harness.running_server(tmp_path) as server:
        result = lecture_hall(server, SESSIONS, RAMP_S)
        check_hall(result, server, SESSIONS, RAMP_S, P95_LIMIT_S)


def _chart(key: str, x: list[str], title: str = "encoder self-attention · layer 1, head 1"):
    spec = {"data": [{"type": "heatmap", "x": x, "y": x}], "layout": {"title": {"text": title}}}
    return Chart(key, spec, run=0, received_s=0.0)


def test_the_checks_see_cross_talk_and_wrong_titles():
    """The checks above can fail: another student's tokens, a wrong title, a missing chart."""
    mine, theirs = ["[CLS]", "a", "[SEP]"], ["[CLS]", "b", "[SEP]"]
    owners = {tuple(mine): 0, tuple(theirs): 1}
    assert cross_talk([_chart(HEATMAP_KEY, mine)], 0, owners) == []
    assert len(cross_talk([_chart(HEATMAP_KEY, theirs)], 0, owners)) == 2  # x and y
    run = Run(index=3, started_s=0.0, status="finished", charts=[_chart(HEATMAP_KEY, mine)])
    assert check_chart(run, HEATMAP_KEY, mine, "layer 1, head 1") == []
    assert check_chart(run, HEATMAP_KEY, mine, "layer 2, head 1") != []
    assert check_chart(run, HEATMAP_KEY, theirs) != []
    assert check_chart(run, "compare_a", mine) != []
    assert DAY.findall(b"text=the+teacher+reads+on+day+17+.") == [b"17"]
