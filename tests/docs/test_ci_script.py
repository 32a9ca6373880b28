"""`.ci/run` is exactly the README's test command; given any argument it says how it is
used and exits 2 instead of starting the whole suite."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ci_run_calls_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    assert script.rstrip().splitlines()[-1] == "exec ./run.sh test"
    assert "./run.sh test" in (ROOT / "README.md").read_text()


def test_ci_run_with_an_argument_prints_its_usage_and_runs_nothing():
    done = subprocess.run([str(ROOT / ".ci" / "run"), "--help"], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: .ci/run") and len(done.stderr.splitlines()) == 1
    assert done.stdout == ""
