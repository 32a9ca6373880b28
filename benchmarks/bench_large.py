"""Large inputs: the engine rows of the performance table (landmark TPL, Adaptive,
CSV loading, loss precompute, dummy heuristic), each with the same inputs every run.

Medians of ``--repeat`` runs (default 3; 1 for the slow rows). Floors are what no
implementation can avoid (the noise draws themselves, ``pd.read_csv`` of the file).

Run: python benchmarks/bench_large.py [--quick] [--only NAME ...]
     --quick skips the slow rows (loss precompute n = 2,000; dummy heuristic T = 10⁵ full)
     NAME in: tpl, series, engine, track, csv, loss, dummies, calibration
"""

from __future__ import annotations

import io
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
import pandas as pd

from lmdk_core.data import tables
from lmdk_core.data.series import load_series_csv
from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.release import AdaptiveSettings, _adaptive, release_series, release_trajectory
from lmdk_core.foundation import validation
from lmdk_core.foundation.geodesy import WGS84
from lmdk_core.leakage import LossFunction, landmark_tpl
from lmdk_core.leakage.calibration import calibrate_scale
from lmdk_core.mechanisms import Laplace


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def row(label: str, seconds: float, extra: str = "") -> None:
    print(f"| {label} | {seconds:.3f} s{(' — ' + extra) if extra else ''} |", flush=True)


def dense(n: int, seed: int) -> np.ndarray:
    P = np.random.default_rng(seed).random((n, n))
    return P / P.sum(axis=1, keepdims=True)


def bench_tpl(repeat: int) -> None:
    T = 100_000
    eps = np.random.default_rng(4).uniform(0.0, 0.5, T)
    L50 = LossFunction(dense(50, seed=5))
    for k in (100, 1000):
        lm = np.sort(np.random.default_rng(6).choice(T, k, replace=False))
        s = median_time(lambda lm=lm: landmark_tpl(eps, lm, L50), repeat)
        row(f"landmark TPL, T = 10⁵, n = 50, |L| = {k} (random positions)", s)


def bench_series(repeat: int) -> None:
    T = 10_000_000
    gen = np.random.default_rng(0)
    x = np.cumsum(gen.normal(0, 1, T))
    lm = np.sort(gen.choice(T, T // 1000, replace=False))  # |L| grows with T
    floor = median_time(lambda: x + np.random.default_rng(1).laplace(0.0, 1.0, T), repeat)
    # numba compile/cache load
    release_series(x[:300_000], [], epsilon=1.0, scheme="adaptive", seed=1)
    s = median_time(lambda: release_series(x, lm, epsilon=1.0, scheme="adaptive", seed=1), repeat)
    planned = allocate("adaptive", T, lm, 1.0)
    mask = np.zeros(T, dtype=bool)
    mask[lm] = True
    loop = median_time(lambda: _adaptive(x, lm, planned, Laplace(1.0),
                                         np.random.default_rng(1), AdaptiveSettings()), repeat)
    row(f"series Adaptive, T = 10⁷, |L| = {lm.size:,}: release_series / the Adaptive loop", s,
        f"loop {loop:.3f} s; floor (x + Laplace draws) {floor:.3f} s; ratios "
        f"{s / floor:.1f}× / {loop / floor:.1f}×")
    u = median_time(lambda: release_series(x, lm, epsilon=1.0, scheme="uniform", seed=1), repeat)
    row(f"series Uniform, T = 10⁷, |L| = {lm.size:,}: release_series", u,
        f"floor (x + Laplace draws) {floor:.3f} s; ratio {u / floor:.1f}×")


def bench_series_engine(repeat: int = 5) -> None:
    """The series engine (Uniform, Skip; numpy noise) at 10⁶ and 10⁷ beside its floor
    (x + one Laplace draw per timestamp), CPU time, each release paired with a floor
    run in the same process; median of ``repeat`` pairs (ratio: median of the pairs'
    ratios), and the minor page faults of one release."""
    import resource

    def cpu(fn: Callable[[], object]) -> tuple[float, int]:
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.process_time()
        fn()
        return time.process_time() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0

    for T in (1_000_000, 10_000_000):
        gen = np.random.default_rng(0)
        x = np.cumsum(gen.normal(0, 1, T))
        lm = np.sort(gen.choice(T, T // 1000, replace=False))
        for scheme in ("uniform", "skip"):
            def floor(x: np.ndarray = x, T: int = T) -> object:
                return x + np.random.default_rng(1).laplace(0.0, 1.0, T)

            def rel(x: np.ndarray = x, lm: np.ndarray = lm, scheme: str = scheme) -> object:
                return release_series(x, lm, epsilon=1.0, scheme=scheme, seed=1,
                                      max_landmarks=lm.size)

            rel(), floor()  # warm: imports, first-touch of the inputs
            pairs = [(cpu(floor), cpu(rel)) for _ in range(repeat)]
            f = statistics.median(p[0][0] for p in pairs)
            s = statistics.median(p[1][0] for p in pairs)
            ratio = statistics.median(p[1][0] / p[0][0] for p in pairs)
            row(f"series engine {scheme.title()}, T = {T:,}, |L| = {lm.size:,} (CPU)", s,
                f"floor {f:.3f} s, ratio {ratio:.2f}×; minor page faults "
                f"{pairs[-1][1][1]:,} (floor {pairs[-1][0][1]:,})")


def bench_track(repeat: int) -> None:
    T = 1_000_000
    gen = np.random.default_rng(0)
    lat = 48.85 + np.cumsum(gen.normal(0, 1e-5, T))
    lon = 2.35 + np.cumsum(gen.normal(0, 1e-5, T))
    lm = np.sort(gen.choice(T, T // 1000, replace=False))

    def floor_fn() -> None:
        g = np.random.default_rng(1)
        dist = g.gamma(2.0, 100.0, T)
        az = g.uniform(0.0, 360.0, T)
        WGS84.fwd(lon, lat, az, dist)

    floor = median_time(floor_fn, repeat)
    # the compiled loop's one-off numba compile / cache load, outside the timings
    n = 200_000  # long enough for the compiled loop (lmdk_core.foundation.compiled_paths)
    release_trajectory(lat[:n], lon[:n], [], epsilon=1.0, radius=100.0, scheme="adaptive", seed=1)
    s = median_time(lambda: release_trajectory(lat, lon, lm, epsilon=1.0, radius=100.0,
                                               scheme="adaptive", seed=1), repeat)
    row(f"trajectory Adaptive, 10⁶ points, |L| = {lm.size:,}", s,
        f"floor (draws + Geod.fwd) {floor:.3f} s, ratio {s / floor:.1f}×")


def bench_csv(repeat: int) -> None:
    T = 1_000_000
    gen = np.random.default_rng(0)
    frame = pd.DataFrame({"time": np.arange(T), "value": gen.normal(0, 1, T).round(6)})
    data = frame.to_csv(index=False).encode()
    iso = pd.DataFrame({"time": pd.date_range("2024-01-01", periods=T, freq="s").strftime(
        "%Y-%m-%dT%H:%M:%S"), "value": frame["value"]}).to_csv(index=False).encode()
    old_rows, old_bytes = tables.MAX_ROWS, tables.MAX_BYTES
    tables.MAX_ROWS, tables.MAX_BYTES = 2 * T, 1 << 30  # the app's limit is 200,000 rows
    try:
        for label, blob in (("integer times", data), ("ISO times", iso)):
            floor = median_time(lambda b=blob: pd.read_csv(io.BytesIO(b)), repeat)
            s = median_time(lambda b=blob: load_series_csv(b), repeat)
            extra = ""
            if blob is iso:  # the same read with the dates parsed
                dated = median_time(lambda b=blob: pd.to_datetime(
                    pd.read_csv(io.BytesIO(b))["time"], format="ISO8601", utc=True), repeat)
                extra = f"; read_csv + to_datetime {dated:.3f} s, ratio {s / dated:.1f}×"
            row(f"CSV loading, 10⁶ rows, {label} ({len(blob) / 2**20:.0f} MB)", s,
                f"pd.read_csv {floor:.3f} s, ratio {s / floor:.1f}×{extra}")
    finally:
        tables.MAX_ROWS, tables.MAX_BYTES = old_rows, old_bytes


def bench_loss() -> None:
    import resource

    # the kernels' one-off numba compile (first run on a machine) or cache load, outside
    # the timing; n = 300 takes the same code path (pruned, two threads)
    t0 = time.perf_counter()
    LossFunction(dense(300, seed=1))
    warm = time.perf_counter() - t0
    P = dense(2000, seed=0)
    t0 = time.perf_counter()
    L = LossFunction(P)
    s = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10  # KiB on Linux
    # the memory figure from a second run: tracemalloc slows allocations (~2 s here)
    tracemalloc.start()
    t0 = time.perf_counter()
    LossFunction(P)
    traced = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    row("loss function precompute, dense random n = 2,000", s,
        f"peak traced memory {peak / 2**20:.0f} MiB (a second run under tracemalloc, "
        f"{traced:.1f} s), process peak RSS {rss:.0f} MiB; {L.stats.hull_vertices} hull "
        f"vertices, {L.stats.pairs_sorted:,} pairs sorted; numba compile/cache load "
        f"{warm:.2f} s")


def bench_dummies(quick: bool) -> None:
    from lmdk_core.dummies import heuristic_options

    for T in (10_000, 100_000):
        lm = np.sort(np.random.default_rng(0).choice(T, 10, replace=False))
        if quick and T > 10_000:
            steps = 1_000
            s = median_time(lambda T=T, lm=lm, k=steps: heuristic_options(T, lm, max_options=k), 1)
            row(f"dummy heuristic, T = {T:,}, first {steps:,} of {T - 10:,} options", s)
            continue
        s = median_time(lambda T=T, lm=lm: heuristic_options(T, lm, max_options=T - 10), 1)
        row(f"dummy heuristic, full chain, T = {T:,} (gap std)", s)


def bench_calibration(repeat: int) -> None:
    T = 20_000
    lm = np.sort(np.random.default_rng(6).choice(T, 20, replace=False))
    eps = np.full(T, 1.0 / 21)
    from lmdk_core.leakage import smoothed_matrix

    L10 = LossFunction(smoothed_matrix(10, 0.1))
    s = median_time(lambda: calibrate_scale(eps, 1.0, L10, landmarks=lm), repeat)
    res = calibrate_scale(eps, 1.0, L10, landmarks=lm)
    row("calibration (largest scale, landmark TPL ≤ 1), T = 20,000, |L| = 20, n = 10", s,
        f"{res.evaluations} landmark-TPL evaluations")


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    only = set(argv[argv.index("--only") + 1:]) if "--only" in argv else None
    repeat = 3

    def want(name: str) -> bool:
        return only is None or name in only

    # the engine's input limit (validation.MAX_LENGTH) is lifted for the 10⁷ series
    validation.MAX_LENGTH = max(getattr(validation, "MAX_LENGTH", 0), 10_000_000)
    print("| what | time |\n|---|---|")
    if want("tpl"):
        bench_tpl(repeat)
    if want("calibration"):
        bench_calibration(repeat)
    if want("series"):
        bench_series(1 if quick else repeat)
    if want("engine"):
        bench_series_engine()
    if want("track"):
        bench_track(repeat)
    if want("csv"):
        bench_csv(repeat)
    if want("loss") and not quick:
        bench_loss()
    if want("dummies"):
        bench_dummies(quick)


if __name__ == "__main__":
    main(sys.argv[1:])
