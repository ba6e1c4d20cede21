"""Nothing the app does may reach outside this machine: every tab of every model is drawn while any
socket connection to a non-loopback address is refused and recorded; usage statistics are off."""

from __future__ import annotations

import ipaddress
import socket
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from runtime import registry

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def is_local(family: int, address) -> bool:
    """Loopback IPs, 'localhost' and Unix sockets are local; every other address is outside."""
    if family == getattr(socket, "AF_UNIX", None):
        return True
    host = address[0] if isinstance(address, tuple) else address
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost would need DNS: outside


@pytest.fixture
def outside_connections(monkeypatch):
    """Refuse (before any packet is sent) and record connections to non-loopback addresses."""
    attempts: list[str] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def guard(real):
        def connect(sock, address):
            if not is_local(sock.family, address):
                attempts.append(repr(address))
                raise ConnectionRefusedError(f"test: no network outside this machine ({address!r})")
            return real(sock, address)

        return connect

    monkeypatch.setattr(socket.socket, "connect", guard(real_connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guard(real_connect_ex))
    monkeypatch.setattr(
        socket, "getaddrinfo", _local_only_getaddrinfo(socket.getaddrinfo, attempts)
    )
    return attempts


def _local_only_getaddrinfo(real, attempts):
    def getaddrinfo(host, *args, **kwargs):
        if host not in (None, "localhost") and not is_local(socket.AF_INET, (str(host), 0)):
            attempts.append(f"DNS lookup of {host!r}")
            raise socket.gaierror(f"test: no DNS lookups ({host!r})")
        return real(host, *args, **kwargs)

    return getaddrinfo


def test_guard_tells_loopback_from_outside():
    assert is_local(socket.AF_INET, ("127.0.0.1", 8501))
    assert is_local(socket.AF_INET6, ("::1", 8501, 0, 0))
    assert is_local(socket.AF_INET, ("localhost", 80))
    for outside in ("192.0.2.1", "10.0.0.1", "2001:db8::1", "huggingface.co"):
        assert not is_local(socket.AF_INET, (outside, 443))


def test_guard_refuses_without_connecting(outside_connections):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        with pytest.raises(ConnectionRefusedError):
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: refused by the guard before any packet
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo("example.com", 443)
    assert len(outside_connections) == 2


def available_models() -> list[str]:
    weights = registry.WEIGHTS_DIR / "en-de.safetensors"
    return [name for name in registry.MODELS if name != "en-de" or weights.exists()]


def open_page(name: str, tab: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=600)
    at.query_params["model"] = name
    if tab is not None:
        at.query_params["tab"] = tab  # only the open tab runs
        # Integrated gradients at the fewest steps the tab offers (16, not 32): what is checked
        # here does not depend on the integral's precision, and at 32 steps that one tab took
        # 8-13 s a text, the other tabs together 3-4 s.
        at.query_params["attr_steps"] = "16"
    return at.run()


@pytest.mark.parametrize("name", available_models())
def test_every_tab_of_every_model_stays_on_this_machine(outside_connections, name):
    tabs = [t.label for t in open_page(name).tabs]
    assert len(tabs) >= 2
    for tab in tabs:
        at = open_page(name, tab)
        assert not at.exception, (tab, [e.value for e in at.exception])
        assert at.sidebar.selectbox(key="model").value == name
    assert outside_connections == []


def test_usage_statistics_are_off():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["browser"]["gatherUsageStats"] is False
