"""Responsiveness of the app: server time of reruns, measured with Streamlit's AppTest.

* Timeline, T = 2,000 uploaded series (TPL panel on, its default): first view after the
  upload, reruns after a change of ε and after toggling a landmark (target: 300 ms);
* Map, a 5,000-point uploaded track: first view, reruns after a change of ε and after
  toggling a landmark;
* Compare, demo series and demo track: the first Monte Carlo sweep (3 schemes × 9 ε ×
  20 runs), a revisit (the sweep is stored) and a change of ε (side-by-side only);
* Leakage, demo series: first view, a change of the target α (a new calibration), and
  n = 200 states from an uploaded matrix (loss function precompute included).

Median and max of several reruns; AppTest's own overhead is included, so these are
upper bounds on the server's script time.

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


def report(page: str, name: str, xs: list[float]) -> None:
    if len(xs) == 1:
        print(f"{page}: {name}: {xs[0] * 1e3:.0f} ms")
    else:
        print(f"{page}: {name}: median {statistics.median(xs) * 1e3:.0f} ms, "
              f"max {max(xs) * 1e3:.0f} ms over {len(xs)} reruns")


def app_on(page: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.switch_page(page).run()
    return at


def timeline(T: int = 2000, reps: int = 8) -> None:
    gen = np.random.default_rng(0)
    values = np.round(10 + np.cumsum(gen.normal(0, 1, T)), 3)
    csv = "time,value\n" + "\n".join(f"{t},{v}" for t, v in enumerate(values))
    at = app_on("app_pages/timeline.py")
    at.file_uploader(key="series_upload").set_value(("bench.csv", csv.encode(), "text/csv"))
    first = timed_run(at)
    eps_times, lm_times = [], []
    for i in range(reps):
        at.sidebar.number_input(key="w_epsilon").set_value(1.0 + 0.1 * (i + 1))
        eps_times.append(timed_run(at))
        lm = sorted(set(at.multiselect(key="w_lm_select").value) ^ {int(gen.integers(T))})
        at.multiselect(key="w_lm_select").set_value(lm)
        lm_times.append(timed_run(at))
    page = f"Timeline, T={T:,}"
    report(page, "first view after upload", [first])
    report(page, "rerun after change of ε", eps_times)
    report(page, "rerun after toggling a landmark", lm_times)


def map_page(T: int = 5000, reps: int = 5) -> None:
    import sys

    sys.path.insert(0, str(ROOT))
    from tests.app.test_app_map import walk_csv

    at = app_on("app_pages/map.py")
    at.file_uploader(key="track_upload").set_value(("big.csv", walk_csv(T), "text/csv"))
    first = timed_run(at)
    eps_times, lm_times = [], []
    for i in range(reps):
        at.sidebar.number_input(key="w_epsilon").set_value(1.0 + 0.1 * (i + 1))
        eps_times.append(timed_run(at))
        at.multiselect(key="w_track_lm_select").set_value([100 * (i + 1)])
        lm_times.append(timed_run(at))
    page = f"Map, {T:,}-point track (TPL on, 250 m cells)"
    report(page, "first view after upload", [first])
    report(page, "rerun after change of ε", eps_times)
    report(page, "rerun after toggling a landmark", lm_times)


def compare(reps: int = 5) -> None:
    for kind in ("series", "track"):
        t0 = time.perf_counter()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
        at.run()
        at.session_state["w_analysis_data"] = kind
        at.switch_page("app_pages/compare.py").run()
        first = time.perf_counter() - t0
        assert not at.exception, at.exception
        at.switch_page("app_pages/home.py").run()
        at.switch_page("app_pages/compare.py")
        revisit = timed_run(at)
        eps_times = []
        for i in range(reps):
            at.sidebar.number_input(key="w_epsilon").set_value(1.0 + 0.1 * (i + 1))
            eps_times.append(timed_run(at))
        page = f"Compare ({kind} demo)"
        report(page, "first view incl. sweep 3 schemes × 9 ε × 20 runs", [first])
        report(page, "revisit (stored sweep)", [revisit])
        report(page, "rerun after change of ε", eps_times)


def leakage(reps: int = 5) -> None:
    at = app_on("app_pages/leakage.py")
    at.switch_page("app_pages/home.py").run()
    at.switch_page("app_pages/leakage.py")
    revisit = timed_run(at)
    times = []
    for i in range(reps):
        at.number_input(key="lk_target").set_value(1.0 + 0.1 * (i + 1))
        times.append(timed_run(at))
    report("Leakage (demo series)", "revisit", [revisit])
    report("Leakage (demo series)", "rerun after change of target α (calibration)", times)
    gen = np.random.default_rng(1)
    P = gen.random((200, 200))
    P /= P.sum(axis=1, keepdims=True)
    csv = "\n".join(",".join(f"{x:.17g}" for x in row) for row in P).encode()
    at.radio(key="lk_source").set_value("upload").run()
    at.file_uploader(key="lk_upload_forward").set_value(("P200.csv", csv, "text/csv"))
    report("Leakage (demo series)", "upload of a dense 200-state matrix (precompute)",
           [timed_run(at)])


def main() -> None:
    timeline()
    map_page()
    compare()
    leakage()


if __name__ == "__main__":
    main()
