"""Helpers for the real-browser tests: a Streamlit server and Debian's chromium."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """Skip without chromium, unless the test run demands browsers (./run.sh test)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("LMDK_REQUIRE_BROWSER"):
            pytest.fail(f"{CHROMIUM} is missing but LMDK_REQUIRE_BROWSER is set")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)")


def free_port() -> int:
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(root: Path):
    """Start ``streamlit run app.py`` on a free port; yield its base URL."""
    port = free_port()
    log = open(root / "tests" / "artifacts" / f"streamlit_{port}.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=root, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        else:
            raise RuntimeError("streamlit did not start within 60 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def wait_for_app(page) -> None:
    """Wait until Streamlit has finished running the script."""
    page.wait_for_selector("[data-testid=stApp]", timeout=60_000)
    page.wait_for_timeout(500)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]')", timeout=60_000)
