"""The browser tests' guard against the network (harness.launch_chromium, harness.watch): a page's
request to another host fails inside the browser and is recorded, while loopback is served."""

from __future__ import annotations

import http.server
import threading

import pytest

import harness

pytestmark = pytest.mark.browser

# TEST-NET-1 (RFC 5737) and a name that would need DNS: neither may be reached.
OUTSIDE = ("http://192.0.2.1/pixel.png", "http://example.com/script.js")
PAGE = (
    f'<html><body><img src="{OUTSIDE[0]}"><script src="{OUTSIDE[1]}"></script>'
    '<img src="/local.png"></body></html>'
).encode()


class _Local(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the standard library's name)
        body = PAGE if self.path == "/" else b""
        self.send_response(200 if self.path == "/" else 204)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_outside_requests_fail_and_are_recorded_and_loopback_is_served(browser):
    local = http.server.ThreadingHTTPServer(("127.0.0.1", harness.free_port()), _Local)
    threading.Thread(target=local.serve_forever, daemon=True).start()
    context = browser.new_context()
    try:
        page, watch = harness.watched_page(context)
        failed, answered = [], []
        page.on("requestfailed", lambda r: failed.append((r.url, r.failure)))
        page.on("requestfinished", lambda r: answered.append(r.url))
        page.goto(f"http://127.0.0.1:{local.server_port}/", wait_until="load")
    finally:
        context.close()
        local.shutdown()
    assert watch.outside_requests == [f"outside request: {url}" for url in OUTSIDE]
    assert sorted(url for url, _ in failed) == sorted(OUTSIDE)
    assert all("PROXY" in reason for _, reason in failed), failed
    assert f"http://127.0.0.1:{local.server_port}/local.png" in answered
