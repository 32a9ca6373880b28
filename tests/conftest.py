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


@pytest.fixture
def cli():
    return run_cli
