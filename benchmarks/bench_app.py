"""Responsiveness of the Timeline page: server time of a rerun (Streamlit AppTest).

For a T = 2,000 series: the time of a rerun after changing ε, after toggling a landmark
and after a first (uncached) view. Median and max of several reruns; AppTest's own
overhead is included, so these are upper bounds on the server's script time.

Run: python benchmarks/bench_app.py
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def timed_run(at: AppTest) -> float:
    t0 = time.perf_counter()
    at.run()
    dt = time.perf_counter() - t0
    assert not at.exception, at.exception
    return dt


def main(T: int = 2000, reps: int = 8) -> None:
    gen = np.random.default_rng(0)
    values = np.round(10 + np.cumsum(gen.normal(0, 1, T)), 3)
    csv = "time,value\n" + "\n".join(f"{t},{v}" for t, v in enumerate(values))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("app_pages/timeline.py").run()
    at.file_uploader(key="series_upload").set_value(("bench.csv", csv.encode(), "text/csv"))
    first = timed_run(at)
    eps_times, lm_times = [], []
    for i in range(reps):
        at.sidebar.number_input(key="w_epsilon").set_value(1.0 + 0.1 * (i + 1))
        eps_times.append(timed_run(at))
        lm = sorted(set(at.multiselect(key="w_lm_select").value) ^ {int(gen.integers(T))})
        at.multiselect(key="w_lm_select").set_value(lm)
        lm_times.append(timed_run(at))
    print(f"Timeline, T={T:,}: first view after upload {first * 1e3:.0f} ms")
    for name, xs in (("change of ε", eps_times), ("toggle a landmark", lm_times)):
        print(f"Timeline, T={T:,}: rerun after {name}: median {statistics.median(xs) * 1e3:.0f} "
              f"ms, max {max(xs) * 1e3:.0f} ms over {len(xs)} reruns")


if __name__ == "__main__":
    main()
