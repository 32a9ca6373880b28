"""Speed and peak memory of the temporal-privacy-leakage engine (lmdk_core.leakage).

Figures (targets from issue 3):

* loss function, dense random n = 200: precompute + 1,000 evaluations (< 0.5 s);
* loss function, dense random n = 1,000: precompute + 1,000 evaluations (< 60 s,
  peak < 4 GB), plus structured matrices of the same size;
* BPL/FPL/TPL for T = 10,000 at n = 100 (< 0.2 s);
* landmark TPL for T = 10,000, |L| = 20, n = 50 (< 1 s).

For reference, Cao et al.'s code needs ~40 s at n = 200 and O(n³) memory.

Each figure is timed once without tracing, then run again under ``tracemalloc`` for its
peak of Python + numpy allocations (numpy reports its buffers to tracemalloc); the
process's maximum resident set size (ru_maxrss, includes the interpreter and libraries)
is printed at the end.

Run: python benchmarks/bench_leakage.py [--quick]   (--quick skips n = 1,000)
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
import scipy.spatial.distance  # noqa: F401  (import once, outside the timings)

from lmdk_core.leakage import LossFunction, landmark_tpl, smoothed_matrix, temporal_leakage


def measure(label: str, fn: Callable[[], object], target: str, repeat: int = 1) -> None:
    times = []
    note = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        note = out if isinstance(out, str) else note
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    timing = (f"{min(times):.3f} s" if repeat == 1 else
              f"best {min(times):.3f} s, median {statistics.median(times):.3f} s of {repeat}")
    extra = f" — {note}" if note else ""
    print(f"{label}: {timing} (target {target}), peak memory {peak / 2**20:.1f} MiB{extra}",
          flush=True)


def dense(n: int, seed: int = 0) -> np.ndarray:
    P = np.random.default_rng(seed).random((n, n))
    return P / P.sum(axis=1, keepdims=True)


def loss_figure(P: np.ndarray) -> Callable[[], str]:
    alphas = np.random.default_rng(1).uniform(0.0, 5.0, 1000).tolist()

    def run() -> str:
        L = LossFunction(P)
        for a in alphas:  # 1,000 separate evaluations
            L(a)
        return (f"{L.stats.hull_vertices} hull vertices, {L.stats.pairs_sorted:,} of "
                f"{L.stats.pairs:,} row pairs sorted")

    return run


def main(quick: bool = False) -> None:
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores; other jobs skew timings)")
    LossFunction(dense(60))  # warm-up: first-call costs of numpy/scipy code paths
    measure("loss function, dense random n=200, precompute + 1,000 evaluations",
            loss_figure(dense(200)), "< 0.5 s", repeat=5)
    if not quick:
        measure("loss function, dense random n=1,000, precompute + 1,000 evaluations",
                loss_figure(dense(1000)), "< 60 s, < 4 GB")
        measure("loss function, smoothed permutation s=0.01 n=1,000, precompute + 1,000 evals",
                loss_figure(smoothed_matrix(1000, 0.01, "random", seed=0)), "< 60 s")
        rng = np.random.default_rng(2)
        measure("loss function, Dirichlet(0.05) rows n=1,000 (entries down to 1e-150; stress "
                "case: almost no pair can be pruned), precompute + 1,000 evals",
                loss_figure(rng.dirichlet(np.full(1000, 0.05), size=1000)), "none")

    L100 = LossFunction(dense(100, seed=3))
    eps = np.random.default_rng(4).uniform(0.0, 0.5, 10_000)
    measure("BPL/FPL/TPL, T=10,000, n=100 (loss precomputed)",
            lambda: temporal_leakage(eps, L100), "< 0.2 s", repeat=5)
    P100 = dense(100, seed=3)
    measure("BPL/FPL/TPL, T=10,000, n=100 (including the loss precomputation)",
            lambda: temporal_leakage(eps, P100), "-", repeat=5)

    L50 = LossFunction(dense(50, seed=5))
    even = np.linspace(0, 9_999, 20).round().astype(int)
    rand = np.sort(np.random.default_rng(6).choice(10_000, 20, replace=False))
    measure("landmark TPL, T=10,000, |L|=20 evenly spread, n=50",
            lambda: landmark_tpl(eps, even, L50), "< 1 s", repeat=5)
    measure("landmark TPL, T=10,000, |L|=20 at random, n=50",
            lambda: landmark_tpl(eps, rand, L50), "< 1 s", repeat=5)
    clustered = np.arange(20)
    measure("landmark TPL, T=10,000, |L|=20 all at the start (one 9,980-long gap), n=50",
            lambda: landmark_tpl(eps, clustered, L50), "worst case, no target", repeat=3)
    long_eps = np.random.default_rng(7).uniform(0.0, 0.5, 200_000)
    measure("landmark TPL, T=200,000, |L|=1 in the middle, n=50 (long series)",
            lambda: landmark_tpl(long_eps, [100_000], L50), "no target")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS: {rss:.0f} MiB")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
