"""Start the real app server and drive Debian's Chromium; shared by the e2e tests and bench/load.py.

Everything here talks only to 127.0.0.1: the server listens on a free loopback port, and every
browser request to any other host goes to a proxy that is not there (so it fails without a packet
leaving the machine, DNS included) and is recorded, so a page can never reach outside.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness.timeline import TAB_BAR_LOG, Timeline

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-gpu",
    "--no-first-run",
    "--disable-sync",
]
STARTUP_TIMEOUT_S = 120
# Generous: the first run of a session loads a model and decodes, on 2 shared cores.
RENDER_TIMEOUT_MS = 300_000  # generous: 20 pages on 2 shared cores (seen: 180 s was too short)
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
# Chromium sends every request for another host to this proxy: port 9 (discard) on loopback, where
# nothing listens, so the request fails at once. Loopback itself bypasses it. Playwright's request
# interception (`page.route`) did the same job but turns the browser's HTTP cache off, so every
# page load fetched and compiled Streamlit's scripts again.
NO_PROXY = {"server": "http://127.0.0.1:9", "bypass": "localhost,127.0.0.1/8,[::1]"}

HEATMAP = '[data-testid="stPlotlyChart"]'
ACTIVE_PANEL = '[data-testid="stTabPanel"]:not([data-st-inactive])'
EXCEPTION = '[data-testid="stException"]'
# Streamlit shows this widget while a script run is in progress.
RUNNING = '[data-testid="stStatusWidget"]'


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_bytes(pid: int) -> int:
    """Resident memory of a process: psutil when installed, else /proc/<pid>/status VmRSS."""
    try:
        import psutil
    except ImportError:
        status = Path(f"/proc/{pid}/status").read_text()
        return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1)) * 1024
    return psutil.Process(pid).memory_info().rss


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stacks(self, timeout_s: float = 5.0) -> str:
        """Every thread's stack as the server writes it on SIGUSR1 (server.py): what each is
        doing now, e.g. while a page waits for a script run that never ends."""
        start = len(self.log())
        os.kill(self.pid, signal.SIGUSR1)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            written = self.log()[start:]
            if "most recent call first" in written:
                time.sleep(0.2)  # the dump is written thread by thread; let it finish
                return self.log()[start:]
            time.sleep(0.05)  # a file another process writes: there is no event to wait on
        return self.log()[start:]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as response:
            return response.status == 200 and response.read().strip() == b"ok"
    except OSError:
        return False


@contextlib.contextmanager
def running_server(
    log_dir: Path,
    *,
    base_path: str = "",
    port: int | None = None,
    environment: dict[str, str] | None = None,
    arguments: tuple[str, ...] = (),
):
    """`streamlit run server.py` (the page app.py, the default model preloaded) headless on a
    free loopback port, `environment` added to ours, `arguments` given to server.py (after
    `--`); stopped (only this one) on exit."""
    port = port or free_port()
    url = f"http://127.0.0.1:{port}" + (f"/{base_path.strip('/')}" if base_path else "")
    log_path = Path(log_dir) / f"streamlit-{port}.log"
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "server.py",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        *(["--server.baseUrlPath", base_path.strip("/")] if base_path else []),
        *(["--", *arguments] if arguments else []),
    ]
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", **(environment or {}))
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not _healthy(url):
            if process.poll() is not None:
                raise RuntimeError(
                    f"the server exited with {process.returncode}:\n{log_path.read_text()}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"no health after {STARTUP_TIMEOUT_S} s:\n{log_path.read_text()}"
                )
            time.sleep(0.2)  # polling an HTTP endpoint: there is no event to wait on
        yield Server(url, process, log_path)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_async(coroutine):
    """`asyncio.run(coroutine)` in a thread of its own: Playwright's sync API keeps an event loop
    running in the test's thread while a browser is open (the browser tests share one for the
    session), and asyncio.run refuses to start inside a running loop."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def launch_chromium(playwright):
    if not CHROMIUM.exists():
        raise FileNotFoundError(
            f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does) to install it"
        )
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, proxy=NO_PROXY
    )


@dataclass
class PageWatch:
    """What went wrong in a page: console errors, uncaught exceptions, outside requests; and
    its websockets, to wait on a script run (`script_run`) and to tell a failed test's report
    what the page and the server said (`timeline`)."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)
    sockets: list = field(default_factory=list)  # the page's websockets, the newest last
    runs_finished: int = 0  # script runs that ended (not those cut short for a rerun)
    timeline: Timeline = field(default_factory=Timeline)

    def problems(self) -> list[str]:
        return self.console_errors + self.page_errors + self.outside_requests

    def clear(self) -> None:
        """Forget what was recorded: a page kept for many tests starts each one clean."""
        for found in (self.console_errors, self.page_errors, self.outside_requests):
            found.clear()
        self.runs_finished = 0

    def hear(self, payload) -> None:
        """A frame from the server: counted if it ends a run, and noted in the timeline."""
        if not isinstance(payload, bytes):
            return
        message = ForwardMsg()
        message.ParseFromString(payload)
        if _ends_a_run(message):
            self.runs_finished += 1
        self.timeline.received(message)


def is_loopback_url(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in ("data", "blob", "about"):
        return True
    return parsed.hostname in LOOPBACK_HOSTS or (parsed.hostname or "").startswith("127.")


def watch(page) -> PageWatch:
    """Records, from now on, what goes wrong in `page`; requests to other hosts fail by the
    browser's dead proxy (launch_chromium) and are recorded here."""
    found = PageWatch()
    page.on(
        "console",
        lambda msg: (
            found.console_errors.append(f"console: {msg.text}") if msg.type == "error" else None
        ),
    )
    page.on("pageerror", lambda err: found.page_errors.append(f"page error: {err}"))
    page.add_init_script(TAB_BAR_LOG)
    page.on("websocket", lambda socket: _watch_socket(found, socket))
    page.on(
        "request",
        lambda request: (
            None
            if is_loopback_url(request.url)
            else found.outside_requests.append(f"outside request: {request.url}")
        ),
    )
    return found


def _watch_socket(found: PageWatch, socket) -> None:
    found.sockets.append(socket)
    socket.on("framereceived", found.hear)
    socket.on("framesent", found.timeline.sent)


def wait_run_finished(page, watch: PageWatch, timeout_ms: int = RENDER_TIMEOUT_MS) -> None:
    """Until a script run of the page has ended since `watch.clear()`: after `page.goto`, the
    page's first run. Streamlit's running widget shows only some time into a run, so a page whose
    open tab is drawn before a slow step (the head atlas's PCA map) looked idle (`wait_idle`)
    while its script still ran, and its layout kept changing under the reader."""
    deadline = time.monotonic() + timeout_ms / 1000
    while watch.runs_finished == 0:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no script run of {page.url} ended within {timeout_ms} ms")
        page.wait_for_timeout(50)  # lets Playwright deliver the socket's frames


def _completes_a_run(payload) -> bool:
    """Whether a frame from Streamlit's websocket is the `script_finished` that ends a rerun
    request (not FINISHED_EARLY_FOR_RERUN, which another run follows)."""
    if not isinstance(payload, bytes):
        return False
    message = ForwardMsg()
    message.ParseFromString(payload)
    return _ends_a_run(message)


def _ends_a_run(message) -> bool:
    from harness.streamlit_client import COMPLETED

    return message.WhichOneof("type") == "script_finished" and message.script_finished in COMPLETED


@contextlib.contextmanager
def script_run(watch: PageWatch, timeout_ms: int = RENDER_TIMEOUT_MS):
    """Until the script run that the block's action starts (a click that reruns the page) has
    finished, read from the page's websocket: Streamlit shows its running widget only some time
    into a run, so a page can look idle (`wait_idle`) before the run has begun."""
    assert watch.sockets, "the page has no websocket to Streamlit yet"
    with watch.sockets[-1].expect_event(
        "framereceived", predicate=_completes_a_run, timeout=timeout_ms
    ):
        yield


def watched_page(context) -> tuple[object, PageWatch]:
    """A new page whose problems and outside requests are recorded."""
    page = context.new_page()
    return page, watch(page)


def wait_idle(page, timeout_ms: int = RENDER_TIMEOUT_MS) -> None:
    """Until Streamlit has finished the current script run (its status widget is gone)."""
    page.locator('[data-testid="stApp"]').wait_for(timeout=timeout_ms)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout_ms
    )


def wait_drawn(page, charts: int = 1, timeout_ms: int = RENDER_TIMEOUT_MS) -> None:
    """Until the page has run its script, the open tab shows at least `charts` Plotly charts, all
    drawn, and no table or chart is still a skeleton. After `page.goto` the status widget has
    not appeared yet, so the open tab's panel is awaited first."""
    page.locator(ACTIVE_PANEL).first.wait_for(timeout=timeout_ms)
    wait_idle(page, timeout_ms)
    page.wait_for_function(
        """([sel, wanted]) => {
            const panel = document.querySelector(sel);
            if (!panel) return false;
            const charts = [...panel.querySelectorAll('[data-testid="stPlotlyChart"]')];
            const tables = [...panel.querySelectorAll('[data-testid="stDataFrame"]')];
            return charts.length >= wanted && charts.every(c => c.querySelector('.main-svg'))
                // a table in a closed expander draws its canvas only once it is opened
                && tables.every(t => t.querySelector('canvas') || !t.checkVisibility())
                && !panel.querySelector('[data-testid="stSkeleton"]');
        }""",
        arg=[ACTIVE_PANEL, charts],
        timeout=timeout_ms,
    )


# What a failed browser test reports of its page (tests/e2e/conftest.py): which tab the browser
# shows, and what the open panel holds of what `wait_drawn` waits for.
_PAGE_STATE = """(sel) => {
    const panel = document.querySelector(sel);
    const tabs = [...document.querySelectorAll('[role="tab"]')];
    const count = (q) => panel ? panel.querySelectorAll(q).length : 0;
    return {
        selected_tabs: tabs.filter(t => t.getAttribute('aria-selected') === 'true')
            .map(t => t.textContent),
        open_panel: !!panel,
        charts: count('[data-testid="stPlotlyChart"]'),
        charts_drawn: panel ? [...panel.querySelectorAll('[data-testid="stPlotlyChart"]')]
            .filter(c => c.querySelector('.main-svg')).length : 0,
        tables: count('[data-testid="stDataFrame"]'),
        skeletons: count('[data-testid="stSkeleton"]'),
        running: !!document.querySelector('[data-testid="stStatusWidget"]'),
        alerts: panel ? [...panel.querySelectorAll('[data-testid="stAlert"]')]
            .map(a => a.textContent.slice(0, 200)) : [],
        exceptions: document.querySelectorAll('[data-testid="stException"]').length,
    };
}"""


def page_state(page, screenshot: Path | None = None, watch: PageWatch | None = None) -> str:
    """The page as a failed test left it, in words (and as a screenshot where one is asked for):
    a hang is told apart as the server never drawing, or the browser showing another tab than
    the one the server drew, or a figure or table that never left its skeleton. With the page's
    `watch`, also what the page and the server last said (harness.timeline)."""
    try:
        state = page.evaluate(_PAGE_STATE, ACTIVE_PANEL)
        tab_bar = page.evaluate("() => window.__tabBarLog || []")
        if screenshot is not None:
            page.screenshot(path=str(screenshot))
            state["screenshot"] = str(screenshot)
    except Exception as err:  # a closed page or browser: say so, the report still goes out
        return f"page unreadable: {err}"
    said = [f"url: {page.url}", *(f"{k}: {v}" for k, v in state.items())]
    said.append("tab bar (page ms, what it showed):")
    said += [f"  {ms:8d}  {what}" for ms, what in tab_bar[-30:]]
    if watch is not None:
        said += ["websocket (test's clock):", watch.timeline.text()]
    return "\n".join(said)


# A page is still once its fonts are in and nothing in its DOM has changed for STILL_MS: how a
# test waits for what the page exposes no event for (Plotly laying a figure out again after its
# first draw, a scroll, a re-layout for a new viewport), instead of sleeping a fixed time.
STILL_MS = 150
STILL_TIMEOUT_MS = 10_000
# Resolves to the time (performance.now) of the page's last DOM change once `quietMs` have passed
# without one. The observer stays on the page's body (new content gets a new one), so
# `changed_since` can tell whether anything changed after.
_WAIT_STILL = r"""
async ([quietMs, timeoutMs]) => {
  if (window.__harnessWatched !== document.body) {
    window.__harnessWatched = document.body;
    window.__harnessLastChange = performance.now();
    new MutationObserver(() => { window.__harnessLastChange = performance.now(); })
      .observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  const started = performance.now();
  await document.fonts.ready;
  while (performance.now() - window.__harnessLastChange < quietMs) {
    if (performance.now() - started > timeoutMs) {
      throw new Error(`the page kept changing for ${timeoutMs} ms`);
    }
    await new Promise((wake) => setTimeout(wake, 25));
  }
  return window.__harnessLastChange;
}
"""


def wait_still(page, quiet_ms: int = STILL_MS, timeout_ms: int = STILL_TIMEOUT_MS) -> float:
    """Until the page has been still for `quiet_ms` (see STILL_MS); returns when it last changed,
    for `changed_since`. A page that keeps changing for `timeout_ms` is an error."""
    return page.evaluate(_WAIT_STILL, [quiet_ms, timeout_ms])


def changed_since(page, still_since: float) -> bool:
    """Whether the page's DOM changed after the `wait_still` that returned `still_since`."""
    return page.evaluate("() => window.__harnessLastChange") != still_since


def active_panel(page):
    return page.locator(ACTIVE_PANEL)


def tick_labels(page, axis: str = "x") -> list[str]:
    """Token labels of the visible tab's first heatmap: Plotly draws them as SVG text."""
    chart = active_panel(page).locator(HEATMAP).first
    return chart.locator(f".{axis}axislayer-above .{axis}tick text").all_text_contents()


def figure_title(page) -> str:
    return active_panel(page).locator(HEATMAP).first.locator(".gtitle").first.text_content()


def wait_for_title(page, fragment: str, timeout_ms: int = RENDER_TIMEOUT_MS) -> None:
    """Until the visible tab's first heatmap title contains `fragment`."""
    page.wait_for_function(
        """([panelSelector, fragment]) => {
            const panel = document.querySelector(panelSelector);
            const title = panel && panel.querySelector('[data-testid="stPlotlyChart"] .gtitle');
            return !!title && title.textContent.includes(fragment);
        }""",
        arg=[ACTIVE_PANEL, fragment],
        timeout=timeout_ms,
    )


def type_text(page, text: str) -> None:
    """Replace the sidebar text and submit it as a person does (Ctrl+Enter)."""
    box = page.locator('[data-testid="stSidebar"] textarea').first
    box.fill(text)
    box.press("Control+Enter")


# True when the visible tab's first heatmap has exactly these tick labels on `axis`.
_TICKS_ARE = """([panelSelector, axis, expected]) => {
    const panel = document.querySelector(panelSelector);
    const chart = panel && panel.querySelector('[data-testid="stPlotlyChart"]');
    if (!chart) return false;
    const labels = [...chart.querySelectorAll('.' + axis + 'axislayer-above .' + axis + 'tick text')]
        .map(t => t.textContent);
    return JSON.stringify(labels) === JSON.stringify(expected);
}"""


def wait_for_ticks(page, expected: list[str], axis: str = "x", timeout_ms: int = RENDER_TIMEOUT_MS):
    """Until the visible heatmap's `axis` tick labels are exactly `expected`."""
    page.wait_for_function(_TICKS_ARE, arg=[ACTIVE_PANEL, axis, list(expected)], timeout=timeout_ms)


def start_render_clock(page, expected: list[str]) -> None:
    """Submit-to-heatmap timing inside the page, so many pages can be timed at once.

    A page-side poll (every 20 ms) stores in window.__renderedAfterMs the time from now until the
    heatmap shows `expected` as its key tokens.
    """
    page.evaluate(
        """([check, args]) => {
            const isDone = eval(check);
            const start = performance.now();
            window.__renderedAfterMs = null;
            const timer = setInterval(() => {
                if (isDone(args)) { window.__renderedAfterMs = performance.now() - start; clearInterval(timer); }
            }, 20);
        }""",
        [_TICKS_ARE, [ACTIVE_PANEL, "x", list(expected)]],
    )


def rendered_after_s(page, timeout_ms: int = RENDER_TIMEOUT_MS) -> float:
    page.wait_for_function("() => window.__renderedAfterMs !== null", timeout=timeout_ms)
    return page.evaluate("() => window.__renderedAfterMs") / 1e3


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))
    return ordered[index]


def summary(seconds: list[float]) -> dict[str, float]:
    return {
        "n": len(seconds),
        "median_s": statistics.median(seconds),
        "p95_s": percentile(seconds, 0.95),
        "max_s": max(seconds),
    }


@dataclass
class LoadResult:
    seconds: list[float]  # submit -> heatmap with the page's own tokens, one per page
    rss_before: int
    rss_after: int
    problems: list[str]


def load_sentences(n: int) -> list[str]:
    """n different English sentences (different lengths too), one per simulated student."""
    subjects = ["the teacher", "my sister", "a student", "the old man", "our neighbour"]
    verbs = ["reads", "writes", "finds", "carries", "paints"]
    objects = ["a long letter", "the red book", "two small boxes", "an old map", "the picture"]
    return [
        f"{subjects[i % 5]} {verbs[(i // 5) % 5]} {objects[(i * 3) % 5]} on day {i + 1} ."
        for i in range(n)
    ]


def run_load(browser, server: Server, sentences: list[str], expected: list[list[str]], model: str):
    """Open one page per sentence at once (one browser, a context each), type them all, and time
    each page from its submit to its heatmap showing its own tokens."""
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in sentences]
    pages = [watched_page(context) for context in contexts]
    try:
        for page, _ in pages:
            page.goto(f"{server.url}/?model={model}", wait_until="commit")
        for page, _ in pages:
            wait_idle(page)
            page.locator(ACTIVE_PANEL).locator(HEATMAP).first.wait_for(timeout=RENDER_TIMEOUT_MS)
        rss_before = rss_bytes(server.pid)
        for (page, _), sentence, tokens in zip(pages, sentences, expected):
            start_render_clock(page, tokens)
            type_text(page, sentence)
        seconds = [rendered_after_s(page) for page, _ in pages]
        for page, _ in pages:
            wait_idle(page)
        problems = []
        for i, ((page, watch), tokens) in enumerate(zip(pages, expected)):
            if page.locator(EXCEPTION).count():
                problems.append(f"page {i}: exception {page.locator(EXCEPTION).first.inner_text()}")
            if tick_labels(page) != tokens or tick_labels(page, "y") != tokens:
                problems.append(f"page {i}: tokens {tick_labels(page)} instead of {tokens}")
            problems += [f"page {i}: {p}" for p in watch.problems()]
    finally:
        for context in contexts:
            context.close()
    return LoadResult(seconds, rss_before, rss_bytes(server.pid), problems)


# The server's memory while clients use it: the peak resident memory, sampled in a thread.
RSS_SAMPLE_S = 0.05


class PeakRSS:
    """The peak resident memory of a process and its descendants, sampled every 50 ms in a
    thread (from /proc: VmRSS of each, summed; a child's shared pages count twice, so this errs
    high). The descendants are looked up again every second."""

    def __init__(self, pid: int, interval_s: float = RSS_SAMPLE_S):
        self.pid = pid
        self.interval_s = interval_s
        self.peak = 0
        self.samples = 0
        self._pids = [pid]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="peak-rss", daemon=True)

    def __enter__(self) -> PeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while True:
            if self.samples % round(1 / self.interval_s) == 0:
                self._pids = [self.pid, *descendants(self.pid)]
            self.peak = max(self.peak, sum(vm_rss(pid) for pid in self._pids))
            self.samples += 1
            if self._stop.wait(self.interval_s):
                return


def vm_rss(pid: int) -> int:
    """VmRSS of a process in bytes; 0 once it has gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    return int(match.group(1)) * 1024 if match else 0


# A server's memory has settled once VmRSS has moved by less than RSS_STEADY_BYTES for
# RSS_STEADY_S: what the server does after its runs (freeing, caching) has no event to wait on.
RSS_STEADY_BYTES = 2**20
RSS_STEADY_S = 0.5


async def steady_rss(
    pid: int, quiet_s: float = RSS_STEADY_S, timeout_s: float = 10.0, step_s: float = 0.05
) -> int:
    """VmRSS of `pid` once it has held within RSS_STEADY_BYTES for `quiet_s` (at most
    `timeout_s`, then as it is), polled without blocking the caller's event loop."""
    loop = asyncio.get_running_loop()
    started = since = loop.time()
    settled = vm_rss(pid)
    while loop.time() - since < quiet_s and loop.time() - started < timeout_s:
        await asyncio.sleep(step_s)  # a poll of /proc: memory use sends no event
        now = vm_rss(pid)
        if abs(now - settled) >= RSS_STEADY_BYTES:
            settled, since = now, loop.time()
    return vm_rss(pid)


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, from each process's parent in /proc/<pid>/stat."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # "pid (comm) state ppid ...": comm may hold spaces and parentheses
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


# What Streamlit keeps for one session on the server: its session state, its message queue, its
# script thread and the figures of its last run (seen: a few MiB each while it works, well under
# 1 MiB once idle).
PER_SESSION_BYTES = 8 * 2**20


def minilm_reference_tokens(sentences: list[str]) -> list[list[str]]:
    """MiniLM's tokens of each sentence, by transformers' pure-Python WordPiece (BERT's
    BasicTokenizer + WordpieceTokenizer) reading the model's published vocab.txt: neither the
    app's tokenizer nor its tokenizer.json nor the `tokenizers` library."""
    from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

    from runtime.pretrained import minilm_files

    tokenizer = BertTokenizerLegacy(vocab_file=str(minilm_files().vocab), do_lower_case=True)
    return [["[CLS]", *tokenizer.tokenize(sentence), "[SEP]"] for sentence in sentences]


# A screenshot differs from the one in the repository when more than this share of its pixels
# changed by more than PIXEL_TOLERANCE in a channel: fonts' anti-aliasing and a spinner's frame
# change a few pixels between runs of an unchanged page.
CHANGED_PIXEL_SHARE = 0.002
PIXEL_TOLERANCE = 16


def save_screenshot(page, path: Path, **options) -> bool:
    """Write the page's screenshot to `path` only where the page changed (another size, or
    pixels over the tolerances above): a run over an unchanged app leaves docs/screenshots/
    as it was. Returns whether the file was written."""
    import io

    from PIL import Image, ImageChops

    png = page.screenshot(**options)
    path = Path(path)
    if path.exists():
        old, new = Image.open(path).convert("RGB"), Image.open(io.BytesIO(png)).convert("RGB")
        if old.size == new.size:
            difference = ImageChops.difference(old, new).convert("L")
            changed = sum(
                difference.point(lambda v: 255 if v > PIXEL_TOLERANCE else 0).histogram()[255:]
            )
            if changed <= CHANGED_PIXEL_SHARE * old.size[0] * old.size[1]:
                return False
    path.write_bytes(png)
    return True
