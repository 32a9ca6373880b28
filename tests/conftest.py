"""Shared test helpers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "assets"
ARTIFACTS = ROOT / "tests" / "artifacts"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``lmdk`` (as ``python -m lmdk_core``) and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "lmdk_core", *args],
        capture_output=True, text=True, cwd=cwd or ROOT, timeout=120,
    )


def assert_clean_error(proc: subprocess.CompletedProcess, fragment: str = "") -> None:
    """Exit 2, exactly one line on stderr, no traceback, optional fragment in it."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert lines[0].startswith("lmdk: error:"), lines[0]
    assert fragment.lower() in lines[0].lower(), (fragment, lines[0])


def open_page(page: str, timeout: float = 90):
    """An AppTest of the whole app (entry point, navigation, sidebar) switched to
    ``app_pages/<page>.py``, checked to have run without an exception."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def metric(at, label: str) -> str:
    """The value of the st.metric with this label on an AppTest page."""
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="module")
def app_url():
    """``streamlit run app.py`` on a free port, shared by a browser-test module."""
    from tests.browser import require_chromium, streamlit_server

    require_chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with streamlit_server(ROOT) as url:
        yield url


@pytest.fixture
def page(app_url):
    """A headless chromium page (1500×1400) on Debian's chromium; any JavaScript error
    on the page fails the test."""
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pg = browser.new_page(viewport={"width": 1500, "height": 1400})
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
        assert not errors, errors
