"""DNS rebinding: the shipped `.streamlit/config.toml` makes Streamlit refuse the app's
WebSocket unless the browser asked for this machine by one of its own names
(``server.allowedHosts``). A page on ``evil.example`` whose name an attacker re-points
at 127.0.0.1 is "same origin" for the browser (the XSRF cookie and CORS do not stop
it); its Host header still says ``evil.example``, and the handshake is refused with 403.
One real ``streamlit run app.py`` from the checkout (the way ``./run.sh app`` starts it),
raw handshakes over a socket (no browser needed)."""

from __future__ import annotations

import base64
import os
import socket
import tomllib
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.browser import streamlit_server

ROOT = Path(__file__).resolve().parents[2]


def _handshake(port: int, host: str) -> str:
    """The status line of a WebSocket handshake to the app's stream with ``Host: host``
    (and the matching Origin, as a browser on that page would send)."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               f"Sec-WebSocket-Version: 13\r\nOrigin: http://{host}\r\n"
               "Sec-WebSocket-Protocol: streamlit\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request.encode())
        return s.recv(4096).decode("latin-1").split("\r\n")[0]


def test_the_shipped_configuration_lists_only_this_machines_names():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["allowedHosts"] == ["localhost", "127.0.0.1", "::1"]
    assert config["server"]["enableXsrfProtection"] and config["server"]["enableCORS"]


@pytest.fixture(scope="module")
def port():
    with streamlit_server(ROOT) as url:
        yield urlparse(url).port


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1", "[::1]"])
def test_the_app_answers_under_this_machines_names(port, name):
    assert " 101 " in _handshake(port, f"{name}:{port}")


@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example",
                                  "localhost.evil.example:{port}", "127.0.0.1.nip.io:{port}"])
def test_a_rebound_name_is_refused(port, host):
    assert " 403 " in _handshake(port, host.format(port=port))
