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


MAP_FRAME = "iframe[title='streamlit_folium.st_folium']"
#: the first track point (from index `start`) whose centre no other shape covers, as
#: [index, x, y] in the map frame's coordinates
FIND_FREE_POINT = """(els, start) => {
  for (let k = start; k < els.length; k++) {
    const r = els[k].getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (r.width > 0 && x > 60 && y > 90 && x < innerWidth - 90 && y < innerHeight - 60
        && document.elementFromPoint(x, y) === els[k]) return [k, x, y];
  }
  return null;
}"""


def free_port(preferred: int = 0) -> int:
    """``preferred`` if it is free, else any free port."""
    for port in (preferred, 0):
        with contextlib.closing(socket.socket()) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise RuntimeError("no free port")


@contextlib.contextmanager
def streamlit_server(root: Path, port: int = 0, timeout: float = 60):
    """Start ``streamlit run app.py`` on ``port`` (or a free one); yield its base URL.
    The log goes to ``tests/artifacts/streamlit_<port>.log``."""
    port = free_port(port)
    (root / "tests" / "artifacts").mkdir(parents=True, exist_ok=True)
    log = open(root / "tests" / "artifacts" / f"streamlit_{port}.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=root, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        else:
            raise RuntimeError(f"streamlit did not start within {timeout:g} s (log: {log.name})")
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
