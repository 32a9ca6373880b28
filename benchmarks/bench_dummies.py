"""Speed of the dummy-landmark option builders (lmdk_core.dummies).

* optimal (exhaustive, Algorithm 1) at its size limit: 12 regular timestamps, with the
  built-in metrics, one landmark at the start and in the middle, and a metric whose
  values never merge (the search's worst case, as in the tests);
* heuristic (greedy, Algorithm 2) for T = 200, 1,000 and 2,000 with 5 landmarks.

Run: python benchmarks/bench_dummies.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from lmdk_core.dummies import OPTIMAL_MAX_REGULAR, heuristic_options, optimal_options


def timed(label: str, fn) -> None:
    t0 = time.perf_counter()
    opts = fn()
    dt = time.perf_counter() - t0
    print(f"{label}: {dt * 1e3:,.0f} ms ({len(opts)} options, objective {opts.objective:.4g})")


def main() -> None:
    T = OPTIMAL_MAX_REGULAR + 1
    for metric in ("gap_std", "nearest_mean"):
        for lm in ([0], [T // 2]):
            timed(f"optimal, T={T}, L={lm}, {metric}",
                  lambda lm=lm, metric=metric: optimal_options(T, lm, metric))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.engine.test_dummies import _random_metric  # values that never merge: the worst case

    timed(f"optimal, T={T}, L=[0], unstructured metric (worst case)",
          lambda: optimal_options(T, [0], _random_metric(b"limit")))
    for T in (200, 1000, 2000):
        lm = [T // 7, 2 * T // 7, T // 2, T // 2 + 1, 6 * T // 7]
        timed(f"heuristic, T={T:,}, |L|=5, gap_std",
              lambda T=T, lm=lm: heuristic_options(T, lm, "gap_std"))


if __name__ == "__main__":
    main()
