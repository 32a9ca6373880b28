"""The benchmark scripts still run against the engine's current interfaces.

Issue 39's figures come from ``benchmarks/`` (benchmarks/README.md); a script that calls
a function by an old signature fails only when someone needs its figure. Each script's
smallest section runs here on tiny inputs (its output is not checked: the figures are
timings, read by a person, never asserted)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv", [
    ["benchmarks/bench_adaptive.py", "--sections", "curve", "--kinds", "series,track",
     "--max-t", "1000"],
])
def test_benchmark_runs(argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "cold (fresh process, first release)" in proc.stdout


def test_recursion_floor_runs():
    """The audit column's recursions beside the C library's floor (bench_batch.py's
    leakage section, last line) on a tiny block."""
    code = ("import sys; sys.path.insert(0, 'benchmarks'); import bench_batch; "
            "bench_batch.recursion_floor(users=3, hours=300, runs=1)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "1,800 steps, compiled" in proc.stdout and "ratio" in proc.stdout
    # the measured alternative recursion (on x = e^α − 1) agrees with the engine's values
    # within the golden outputs' tolerance, as docs/performance.md says
    m = re.search(r"engine's values: α ([0-9.e+-]+), bound sb \+ sf − ε ([0-9.e+-]+)",
                  proc.stdout)
    assert m, proc.stdout[-2000:]
    assert float(m.group(1)) < 1e-12 and float(m.group(2)) < 1e-12
