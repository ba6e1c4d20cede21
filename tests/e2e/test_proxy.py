"""Several app processes behind nginx on a sub-path, as docs/deploy.md sets them up: each browser's
requests, websocket and downloads included, all reach one process (sticky sessions); browsers are
spread over the processes; when a process dies, new sessions go to the live one and work, the live
one's sessions are unharmed and the dead one's pages carry on there; once it is restarted, new
browsers reach it again while the moved ones stay put.

Two `streamlit run` processes with `--server.baseUrlPath atlas` and Debian's nginx in front, its
config rendered from deploy/nginx.conf.template by deploy/render-nginx-conf.sh (what a department
installs), nginx running as the current user in a temporary prefix on a free loopback port. Which
process served which request is read from nginx's access log, whose format (the template's) has
each request's routing cookie, the process or processes nginx tried, and the User-Agent (which
names the test's browser).
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import os
import pwd
import re
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pytest

import harness
from runtime.pretrained import minilm_tokenizer

# serial: a server's memory (and the proxy's fail-over timing) measured with nothing else running
pytestmark = [pytest.mark.browser, pytest.mark.serial]

NGINX = Path("/usr/sbin/nginx")
RENDER = harness.ROOT / "deploy" / "render-nginx-conf.sh"
BASE_PATH = "/atlas"
# Its tokenizer gives each page's expected tick labels independently of the app (as in
# test_load.py); loading the model costs each process a few seconds, once.
MODEL = "minilm-l6"
ROUTE_COOKIE = "atlas_route"
SESSIONS_PER_BACKEND = 2
# nginx deals new browsers to the processes in turn, so 4 suffice; the health polls (which carry
# no cookie) also take turns, hence a little room.
MAX_BROWSERS_OPENED = 8
NEW_SESSIONS_AFTER_FAILURE = 2
# The upstreams' fail_timeout (deploy/render-nginx-conf.sh --fail-timeout; 10 s in a deployment):
# phase 3 waits it out on nginx's own clock, so the test renders a short one.
FAIL_TIMEOUT_S = 2
NGINX_START_TIMEOUT_S = 30
LOG_TIMEOUT_S = 30

# The frame around the template's http-level file that a standalone nginx needs: every path in the
# prefix directory, so nginx runs as whoever runs the test, on no privileged port. Run as root,
# nginx would hand its workers to `nobody`, who cannot write temp files into the test's private
# directory: the `user` line then keeps them as root (a non-root nginx ignores it, with a warning,
# so it is only written for root).
MAIN_CONF = """\
{user_line}worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/atlas.conf;
}}
"""

# One line of the template's `atlas_route` log format.
LOG_LINE = re.compile(
    r'route="(?P<route>[^"]*)" group=\S+ upstream="(?P<upstream>[^"]*)" upstream_status="[^"]*" '
    r'status=(?P<status>\d+) "\S+ (?P<path>\S+)[^"]*" upgrade="(?P<upgrade>[^"]*)" '
    r'request_time=\S+ "(?P<agent>[^"]*)"'
)
# Each test browser says who it is in its User-Agent, which the log format records: the routing
# cookie names a process, shared by many browsers, so it cannot tell them apart.
BROWSER_TAG = re.compile(r"atlas-test-browser/(\d+)")


@dataclass(frozen=True)
class Served:
    """One request as nginx logged it; a websocket is logged when it closes."""

    browser: str | None  # the test browser's tag, None for other clients (the health polls)
    route: str  # the request's routing cookie, "-" when it had none
    tried: tuple[str, ...]  # the processes nginx tried, in order: the last one answered
    status: int
    path: str
    websocket: bool

    @property
    def backend(self) -> str | None:
        return self.tried[-1] if self.tried else None


@dataclass
class Proxy:
    url: str  # with the base path
    access_log: Path
    error_log: Path

    def served(self) -> list[Served]:
        entries = []
        for line in self.access_log.read_text().splitlines():
            match = LOG_LINE.search(line)
            assert match, f"an access log line not in the template's format: {line}"
            upstream = match["upstream"]
            tried = () if upstream == "-" else tuple(a.strip() for a in upstream.split(","))
            tag = BROWSER_TAG.search(match["agent"])
            entries.append(
                Served(
                    tag[1] if tag else None,
                    match["route"],
                    tried,
                    int(match["status"]),
                    match["path"],
                    match["upgrade"] == "websocket",
                )
            )
        return entries


@dataclass
class Session:
    """One browser (its own cookies) with one page of the app."""

    context: object
    page: object
    watch: harness.PageWatch
    browser: str  # its tag
    backend: str  # the process nginx first sent it to
    sentence: str | None = None  # the last one it typed
    tokens: list[str] | None = None  # of that sentence


def backend_address(server: harness.Server) -> str:
    return f"127.0.0.1:{urlparse(server.url).port}"


def _proxy_healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def running_nginx(prefix: Path, backend_ports: list[int]):
    """Debian's nginx in the foreground with the rendered template, on a free loopback port."""
    if not NGINX.exists():
        pytest.fail(f"{NGINX} is missing: run scripts/ensure-nginx.sh (make test does)")
    prefix.mkdir(parents=True, exist_ok=True)
    port = harness.free_port()
    access_log = prefix / "access.log"
    rendered = subprocess.run(
        ["bash", str(RENDER), "--base-path", BASE_PATH, "--listen", f"127.0.0.1:{port}"]
        + ["--access-log", str(access_log), "--fail-timeout", str(FAIL_TIMEOUT_S)]
        + [str(p) for p in backend_ports],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    (prefix / "atlas.conf").write_text(rendered)
    user_line = f"user {pwd.getpwuid(0).pw_name};\n" if os.geteuid() == 0 else ""
    conf = prefix / "nginx.conf"
    conf.write_text(MAIN_CONF.format(prefix=prefix, user_line=user_line))
    error_log = prefix / "error.log"
    command = [str(NGINX), "-p", str(prefix), "-c", str(conf), "-e", str(error_log)]
    checked = subprocess.run(command + ["-t"], capture_output=True, text=True)
    assert checked.returncode == 0, f"nginx -t rejects the rendered config:\n{checked.stderr}"
    process = subprocess.Popen(
        command + ["-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}{BASE_PATH}"
    try:
        deadline = time.monotonic() + NGINX_START_TIMEOUT_S
        while not _proxy_healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not come up:\n{error_log.read_text()}")
            time.sleep(0.2)  # polling an HTTP endpoint: there is no event to wait on
        yield Proxy(url, access_log, error_log)
    finally:
        process.terminate()  # SIGTERM: nginx's fast shutdown, of this nginx only
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def first_backend(proxy: Proxy, browser_tag: str) -> str:
    """The process that answered the browser's first request (logged once it is complete)."""
    deadline = time.monotonic() + LOG_TIMEOUT_S
    while time.monotonic() < deadline:
        for entry in proxy.served():
            if entry.browser == browser_tag and entry.backend:
                return entry.backend
        time.sleep(0.1)  # the log line is written when the response is complete
    raise AssertionError(f"nothing served to browser {browser_tag} after {LOG_TIMEOUT_S} s")


def websockets_logged(proxy: Proxy, since: int, pages: int) -> list[Served]:
    """The access log once the open websocket of each of `pages` pages, closed after the log's
    first `since` lines, is in it: nginx logs a websocket when it closes, a moment later."""
    deadline = time.monotonic() + LOG_TIMEOUT_S
    while True:
        served = proxy.served()
        if sum(e.websocket for e in served[since:]) >= pages or time.monotonic() > deadline:
            return served
        time.sleep(0.1)  # the log line is written when the connection has closed


def route_cookie(session: Session) -> str | None:
    values = [c["value"] for c in session.context.cookies() if c["name"] == ROUTE_COOKIE]
    return values[0] if values else None


_browsers_opened = itertools.count(1)


def open_session(browser, proxy: Proxy) -> Session:
    """A new browser opens the app through the proxy; returns once nginx has chosen a process."""
    tag = str(next(_browsers_opened))
    agent = (
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
        f"Chrome/{browser.version} Safari/537.36 atlas-test-browser/{tag}"
    )
    context = browser.new_context(viewport={"width": 1280, "height": 900}, user_agent=agent)
    page, watch = harness.watched_page(context)
    page.goto(f"{proxy.url}/?model={MODEL}", wait_until="commit")
    session = Session(context, page, watch, tag, first_backend(proxy, tag))
    assert route_cookie(session), f"nginx set no {ROUTE_COOKIE} cookie: {context.cookies()}"
    return session


def open_spread_sessions(browser, proxy: Proxy, backends: list[str]) -> list[Session]:
    """New browsers until each process has SESSIONS_PER_BACKEND of them; surplus ones are closed.
    Nginx alone chooses (in turn, so no surplus is expected): the test keeps what it is given."""
    kept: list[Session] = []
    for _ in range(MAX_BROWSERS_OPENED):
        session = open_session(browser, proxy)
        if sum(s.backend == session.backend for s in kept) < SESSIONS_PER_BACKEND:
            kept.append(session)
        else:
            session.context.close()
        if len(kept) == SESSIONS_PER_BACKEND * len(backends):
            return kept
    counts = {b: sum(s.backend == b for s in kept) for b in backends}
    raise AssertionError(f"{MAX_BROWSERS_OPENED} browsers were not spread over both: {counts}")


def check_page_runs(session: Session, tokens: list[str]) -> None:
    """The page shows the heatmap of the sentence just typed (its own tokens on both axes) and no
    exception element."""
    harness.wait_for_ticks(session.page, tokens)
    harness.wait_idle(session.page)
    assert harness.tick_labels(session.page, "y") == tokens
    assert session.page.locator(harness.EXCEPTION).count() == 0, session.page.locator(
        harness.EXCEPTION
    ).first.inner_text()


def type_and_check(sessions: list[Session], sentences, tokens_of) -> None:
    """Each page gets a sentence of its own, all typed at once, as in a lecture hall."""
    for session in sessions:
        harness.wait_drawn(session.page)
        session.sentence = next(sentences)
        session.tokens = tokens_of(session.sentence)
        harness.type_text(session.page, session.sentence)
    for session in sessions:
        check_page_runs(session, session.tokens)


def check_download(session: Session) -> None:
    """The heatmap's "Weights shown (CSV)" button: Streamlit makes the file in the session's own
    process and the browser fetches it over plain HTTP (/atlas/media/...), which only that process
    can answer. The file must hold this page's tokens."""
    panel = harness.active_panel(session.page)
    with session.page.expect_download(timeout=harness.RENDER_TIMEOUT_MS) as started:
        panel.get_by_role("button", name="Weights shown (CSV)").first.click()
    download = started.value
    assert download.failure() is None, f"{download.url}: {download.failure()}"
    assert f"{BASE_PATH}/media/" in download.url
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text())))
    assert {row["query_token"] for row in rows} == set(session.tokens)


# True when the sidebar's text and the visible heatmap's key tokens are one of the given pairs.
# Right after typing, the box holds the new text and the heatmap the old tokens: no pair matches
# until a run has finished.
_PAGE_SHOWS = """([panelSelector, text, tokens]) => {
    const box = document.querySelector('[data-testid="stSidebar"] textarea');
    const panel = document.querySelector(panelSelector);
    const chart = panel && panel.querySelector('[data-testid="stPlotlyChart"]');
    if (!box || !chart) return false;
    const labels = JSON.stringify([...chart.querySelectorAll('.xaxislayer-above .xtick text')]
        .map(t => t.textContent));
    return box.value === text && JSON.stringify(tokens) === labels;
}"""


def wait_reconnected(session: Session, proxy: Proxy, live: str) -> None:
    """Until the page of a dead process has reconnected through nginx to the live one: its
    client asks /_stcore/host-config before it opens the new websocket, and its status widget
    ("CONNECTING") goes away once it is open."""
    deadline = time.monotonic() + LOG_TIMEOUT_S
    while not any(
        e.browser == session.browser
        and e.backend == live
        and e.path.endswith("/_stcore/host-config")
        for e in proxy.served()
    ):
        assert time.monotonic() < deadline, "the page did not come back through nginx"
        time.sleep(0.1)  # the client retries on its own schedule: nothing to wait on here
    harness.wait_idle(session.page)


def first_action_after_failure(orphans: list[Session], sentences, tokens_of) -> None:
    """Each page of the dead process types a new sentence, its first action in its fresh session
    on the live process. The browser sends the typed sentence with that action, and a value the
    browser sends wins over the view in the page's URL (ui/url.py), so the new sentence shows:
    the student's first action after a failover is not lost."""
    for session in orphans:
        session.sentence = next(sentences)
        session.tokens = tokens_of(session.sentence)
        harness.type_text(session.page, session.sentence)
        session.page.wait_for_function(
            _PAGE_SHOWS,
            arg=[harness.ACTIVE_PANEL, session.sentence, session.tokens],
            timeout=harness.RENDER_TIMEOUT_MS,
        )
        harness.wait_idle(session.page)
        assert harness.tick_labels(session.page) == session.tokens
        assert session.page.locator(harness.EXCEPTION).count() == 0


def test_sticky_sessions_spread_and_survive_a_dead_process(tmp_path, browser):
    tokenizer = minilm_tokenizer()

    def tokens_of(sentence: str) -> list[str]:
        return list(tokenizer.encode(sentence, 512).tokens)

    def requests_of(session: Session, entries: list[Served]) -> list[Served]:
        return [e for e in entries if e.browser == session.browser]

    sentences = iter(harness.load_sentences(30))
    started = time.monotonic()
    all_sessions: list[Session] = []
    with contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(harness.running_server(tmp_path, base_path=BASE_PATH))
            for _ in range(2)
        ]
        ports = [urlparse(s.url).port for s in servers]
        backends = [backend_address(s) for s in servers]
        proxy = stack.enter_context(running_nginx(tmp_path / "nginx", ports))

        @stack.callback
        def close_browsers():  # before nginx and the servers stop (the stack runs backwards)
            for session in all_sessions:
                with contextlib.suppress(Exception):  # closed already
                    session.context.close()

        print(f"\nservers and nginx up after {time.monotonic() - started:.0f} s")

        # 1. Browsers are spread over both processes; every page works and sticks, its download
        # (plain HTTP to the session's own process) included.
        phase = time.monotonic()
        sessions = open_spread_sessions(browser, proxy, backends)
        all_sessions += sessions
        type_and_check(sessions, sentences, tokens_of)
        for session in sessions:
            check_download(session)
        before_failure = proxy.served()
        for session in sessions:
            requests = requests_of(session, before_failure)
            assert len(requests) > 20  # the page, its scripts, styles and fonts, ...
            assert any(f"{BASE_PATH}/media/" in e.path for e in requests)  # the download
            assert {e.tried for e in requests} == {(session.backend,)}, "a request changed process"
            assert all(e.status < 400 for e in requests), [e for e in requests if e.status >= 400]
        for server in servers:
            rss = harness.rss_bytes(server.pid) / 2**20
            print(f"process {backend_address(server)}: RSS {rss:.0f} MiB after its pages ran")
        print(f"phase 1 (spread, typed, downloaded, sticky): {time.monotonic() - phase:.0f} s")

        # 2. One process dies (SIGKILL: a crash, no goodbye to its browsers).
        phase = time.monotonic()
        dead, live = servers[0], servers[1]
        dead_address, live_address = backends
        live_number = str(backends.index(live_address) + 1)  # its number in the cookie
        dead.process.kill()
        dead.process.wait()
        log_lines_at_failure = len(proxy.served())
        orphans = [s for s in sessions if s.backend == dead_address]
        survivors = [s for s in sessions if s.backend == live_address]

        # New sessions go to the live process and work.
        newcomers = [open_session(browser, proxy) for _ in range(NEW_SESSIONS_AFTER_FAILURE)]
        all_sessions += newcomers
        assert {s.backend for s in newcomers} == {live_address}
        # The live process's sessions carry on: a new sentence each, its heatmap drawn.
        type_and_check(survivors + newcomers, sentences, tokens_of)
        # The dead process's pages reconnect at once, through nginx, to the live process, into a
        # fresh session (the old one died with its process), and their cookie now names the live
        # process. Nothing reruns until the student acts; then the page works as before.
        for session in orphans:
            wait_reconnected(session, proxy, live_address)
            assert route_cookie(session) == live_number
        first_action_after_failure(orphans, sentences, tokens_of)
        type_and_check(orphans, sentences, tokens_of)
        print(f"phase 2 (one process killed): {time.monotonic() - phase:.0f} s")

        # 3. The dead process is started again on its port (what systemd's Restart= does). nginx
        # re-admits it after fail_timeout; browsers that failed over stay where their session is
        # (their downloads still work), and new browsers reach it again.
        phase = time.monotonic()
        restarted = stack.enter_context(
            harness.running_server(tmp_path, base_path=BASE_PATH, port=ports[0])
        )
        time.sleep(FAIL_TIMEOUT_S)  # nginx's own clock: it retries a failed process after this
        for session in orphans:
            check_download(session)
        latecomers = []
        while not any(s.backend == dead_address for s in latecomers):
            assert len(latecomers) < 4, "new browsers no longer reach the restarted process"
            latecomers.append(open_session(browser, proxy))
            all_sessions.append(latecomers[-1])
        rejoined = [s for s in latecomers if s.backend == dead_address]
        type_and_check(rejoined, sentences, tokens_of)
        print(f"phase 3 (the process restarted): {time.monotonic() - phase:.0f} s")

        for session in all_sessions:
            assert session.watch.outside_requests == []
            assert session.watch.page_errors == [], session.watch.page_errors
        for session in survivors + newcomers + rejoined:
            assert session.watch.problems() == [], session.watch.problems()
        lines_before_closing = len(proxy.served())
        close_browsers()
        served = websockets_logged(proxy, lines_before_closing, len(all_sessions))
        # Sticky to the end, websocket included: the live process's browsers never left it.
        for session in survivors:
            requests = requests_of(session, served)
            assert {e.tried for e in requests} == {(live_address,)}
            assert sum(e.websocket and e.status == 101 for e in requests) == 1
        for session in newcomers:  # nginx may have tried the dead process first, for new ones
            requests = requests_of(session, served)
            assert {e.backend for e in requests} == {live_address}
            assert sum(e.websocket and e.status == 101 for e in requests) == 1
        for session in orphans:
            requests = requests_of(session, served)
            sockets = [e for e in requests if e.websocket]
            # Its first websocket was to its own process (logged when that process died) ...
            assert sockets[0].tried == (dead_address,) and sockets[0].status == 101
            # ... and everything after the failure was answered by the live process, also once
            # the dead one was back. A websocket is logged when it closes, so those the page had
            # open to its own process (the first, or a reconnect of it on a slow machine) are
            # logged after the failure: nginx tried no other process for them, as it would have
            # for a request sent after the failure.
            after = requests_of(session, served[log_lines_at_failure:])
            opened_before = [e for e in after if e.websocket and e.tried == (dead_address,)]
            moved = [e for e in after if e not in opened_before]
            assert moved and {e.backend for e in moved} == {live_address}, moved
        for session in rejoined:
            assert {e.backend for e in requests_of(session, served)} == {dead_address}
        failed = [e for e in served if e.status >= 500]
        assert failed == [], f"nginx answered browsers with errors: {failed}"
        assert "Traceback" not in live.log() + restarted.log()
        print(f"total: {time.monotonic() - started:.0f} s")
