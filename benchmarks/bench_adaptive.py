"""Adaptive's cost curve from 10³ to 10⁷ timestamps, and its exact (OpenDP) noise cost.

    python benchmarks/bench_adaptive.py                       # everything
    python benchmarks/bench_adaptive.py --sections curve --max-t 1000000 --kinds series
    python benchmarks/bench_adaptive.py --sections exact
    python benchmarks/bench_adaptive.py --sections variants

Sections (``--sections``, default all):

* ``curve`` — ``release_series(..., "adaptive")`` (Laplace, |L| = T/1000, numpy noise) and
  ``release_trajectory`` (Planar Laplace) for T = 10³ … 10⁷ (10⁷ once; tracks up to
  10⁶): **warm** (in this process, the compiled kernels already loaded) and **cold** (a
  fresh process per T: its first release, numba's load included when the cost model
  loads it). Prints seconds, ns per timestamp (the ratio time/T), the path taken, and
  whether each curve grows with T. Also the measured per-step costs of the plain and
  compiled kernels and the kernels' load, the figures behind
  ``lmdk_core/foundation/compiled_paths.py``.
* ``exact`` — OpenDP's own per-value cost (one float-Laplace measurement over 100,000
  values) next to a single-series release with exact noise (Uniform and Adaptive,
  T = 20,000, |L| = 20), Adaptive with one OpenDP call per publication (the reference's
  draws, what the engine did before batching) and the population's lockstep Adaptive
  (``--users`` users × 8,760 hours with ~5 landmarks each, as ``bench_batch.py``, and ×
  2,000 with ~50 landmarks each, the dense case): µs per timestamp and the ratio to
  OpenDP's own, for the population both in wall-clock time and in this process's CPU
  time (on a shared machine the CPU ratio is the one other processes do not move).
* ``variants`` — the CPU time per step of each variant of Adaptive called directly,
  without the release around it (settings 1.0 / 0.2 / 0.2, |L| = T/1000): the compiled
  series kernel (10⁶ steps), the compiled trajectory kernel (10⁵), the engine's Python
  loop on a series (10⁵), the exact-noise loop (10⁵, a deterministic stand-in for the
  sampler) and the population's lockstep with numpy noise (200 users × 8,760): the
  least CPU time of several runs, which other processes on a shared machine move
  least. The figures a change of the loops (e.g. of lmdk_core/adaptive/rules.py) is
  measured with.

Prints timings only (no assertions); the machine's load is printed with each section.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lmdk_core.adaptive import planar_kernel, series_kernel  # noqa: E402
from lmdk_core.engine.release import release_series, release_trajectory  # noqa: E402
from lmdk_core.foundation import validation  # noqa: E402

# the engine's input limit (validation.MAX_LENGTH) is lifted for the 10⁷ series
validation.MAX_LENGTH = max(validation.MAX_LENGTH, 10_000_000)

SIZES = (1_000, 10_000, 100_000, 199_999, 200_000, 1_000_000, 10_000_000)


def load() -> str:
    return "load " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def series(T: int) -> tuple[np.ndarray, np.ndarray]:
    gen = np.random.default_rng(0)
    return np.cumsum(gen.normal(0, 1, T)), np.sort(gen.choice(T, T // 1000, replace=False))


def track(T: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    gen = np.random.default_rng(0)
    lat = 48.85 + np.cumsum(gen.normal(0, 1e-5, T))
    lon = 2.35 + np.cumsum(gen.normal(0, 1e-5, T))
    return lat, lon, np.sort(gen.choice(T, T // 1000, replace=False))


def release_once(kind: str, T: int) -> None:
    if kind == "series":
        x, lm = series(T)
        release_series(x, lm, epsilon=1.0, scheme="adaptive", seed=1)
    else:
        lat, lon, lm = track(T)
        release_trajectory(lat, lon, lm, epsilon=1.0, radius=100.0, scheme="adaptive", seed=1)


def path_taken(kind: str, T: int) -> str:
    """The path the cost model takes for T now (before that release runs)."""
    module = series_kernel if kind == "series" else planar_kernel
    use = module._CHOOSER.would_compile(T, module._kernel is not None)
    return "compiled" if use else "Python"


def timed_release(kind: str, T: int, runs: int) -> float:
    if kind == "series":
        x, lm = series(T)
        return best(lambda: release_series(x, lm, epsilon=1.0, scheme="adaptive", seed=1), runs)
    lat, lon, lm = track(T)
    return best(lambda: release_trajectory(lat, lon, lm, epsilon=1.0, radius=100.0,
                                           scheme="adaptive", seed=1), runs)


COLD = """
import sys, time
sys.path.insert(0, {root!r})
sys.argv = ["x"]
import benchmarks.bench_adaptive as b
kind, T = {kind!r}, {T}
path = b.path_taken(kind, T)
if kind == "series":
    x, lm = b.series(T)
    t0 = time.perf_counter()
    b.release_series(x, lm, epsilon=1.0, scheme="adaptive", seed=1)
else:
    lat, lon, lm = b.track(T)
    t0 = time.perf_counter()
    b.release_trajectory(lat, lon, lm, epsilon=1.0, radius=100.0, scheme="adaptive",
                         seed=1)
print(time.perf_counter() - t0, path)
"""


def cold_release(kind: str, T: int) -> tuple[float, str]:
    """The first release of a fresh process (imports excluded, numba's load included);
    the best of two processes (one at 10⁷)."""
    runs = []
    for _ in range(1 if T >= 10**7 else 2):
        out = subprocess.run(
            [sys.executable, "-c", COLD.format(root=str(ROOT), kind=kind, T=T)],
            capture_output=True, text=True, check=True, cwd=ROOT)
        secs, path = out.stdout.split()[-2:]
        runs.append((float(secs), path))
    return min(runs)


def floor_seconds(kind: str, T: int) -> float:
    """The release's floor: the data plus one numpy Laplace draw per timestamp (two per
    point of a track), best of 3 in this process."""
    x = np.zeros((T, 2) if kind == "track" else T)
    rng = np.random.default_rng(0)
    return best(lambda: x + rng.laplace(0.0, 1.0, x.shape), 3)


def print_curve(label: str, rows: list[tuple[int, float, str]], kind: str = "series"
                ) -> None:
    print(f"\n{label}")
    print(f"{'T':>12} {'seconds':>9} {'ns/timestamp':>13} {'floor s':>9} {'x floor':>8}  path")
    for T, s, path in rows:
        fl = floor_seconds(kind, T)
        print(f"{T:>12,} {s:>9.4f} {s / T * 1e9:>13.1f} {fl:>9.4f} {s / fl:>8.1f}  {path}")
    secs = [s for _, s, _ in rows]
    grows = all(b >= a * 0.8 for a, b in zip(secs, secs[1:], strict=False))
    print(f"grows with T: {'yes' if grows else 'NO'} (each step, within 20% timing noise)")


def kernel_costs() -> None:
    """Per-step costs of the plain and compiled kernels and their one-off loads."""
    T = 200_000
    for name, module, kind in (("series Laplace", series_kernel, "series"),
                               ("trajectory", planar_kernel, "track")):
        n = T if kind == "series" else T // 10
        module.FORCE_COMPILED = False
        plain = timed_release(kind, n, 2) / n
        module.FORCE_COMPILED = True
        timed_release(kind, 1000, 1)  # load
        compiled = timed_release(kind, n, 3) / n
        module.FORCE_COMPILED = None
        print(f"{name}: Python loop {plain * 1e6:.2f} µs/step, compiled {compiled * 1e6:.3f} "
              f"µs/step (cost model: {module.COST.python_s * 1e6:.2f} / "
              f"{module.COST.compiled_s * 1e6:.3f})")


def load_kernel(module, kind: str) -> None:
    """Load a compiled kernel in this process (a small release forced onto it)."""
    module.FORCE_COMPILED = True
    release_once(kind, 1000)
    module.FORCE_COMPILED = None


def curve_section(args) -> None:
    print(f"== Adaptive cost curve ({load()})")
    kernel_costs()
    sizes = [T for T in SIZES if T <= args.max_t]
    if "series" in args.kinds:
        print_curve("series, cold (fresh process, first release)",
                    [(T, *cold_release("series", T)) for T in sizes])
        load_kernel(series_kernel, "series")
        print_curve("series, warm (kernel loaded)",
                    [(T, timed_release("series", T, 1 if T >= 10**7 else 3), "compiled")
                     for T in sizes])
    if "track" in args.kinds:
        t_sizes = [T for T in sizes if T <= 1_000_000]
        print_curve("trajectory, cold (fresh process, first release)",
                    [(T, *cold_release("track", T)) for T in t_sizes], "track")
        load_kernel(planar_kernel, "track")
        print_curve("trajectory, warm (kernel loaded)",
                    [(T, timed_release("track", T, 1 if T >= 10**6 else 3), "compiled")
                     for T in t_sizes], "track")


def best_cpu(fn, runs: int) -> float:
    """The least CPU time of this process over ``runs`` calls (what other processes on
    a shared machine do not add to)."""
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def opendp_floor(n: int = 100_000, clock=best) -> float:
    """OpenDP's own cost, µs per value: one float-Laplace measurement over n values."""
    from benchmarks.bench_noise import opendp_laplace_measurement

    meas = opendp_laplace_measurement(2.0)
    x = np.random.default_rng(4).normal(size=n).tolist()
    return clock(lambda: meas(x), 3) / n * 1e6


def exact_section(args) -> None:
    from lmdk_core.adaptive.reference import GeneratorDraws
    from lmdk_core.engine.allocation import allocate
    from lmdk_core.mechanisms.laplace import ExactLaplace
    from lmdk_core.population.lockstep import lockstep_release

    print(f"\n== exact (OpenDP) noise ({load()})")
    floor = opendp_floor()
    print(f"OpenDP alone: {floor:.1f} µs per value (one float-Laplace measurement over "
          "100,000 values)")
    T = 20_000
    x = np.cumsum(np.random.default_rng(2).normal(0, 1, T))
    lm = np.sort(np.random.default_rng(3).choice(T, 20, replace=False))
    for scheme in ("uniform", "adaptive"):
        s = best(lambda sc=scheme: release_series(x, lm, epsilon=1.0, scheme=sc,
                                                  mechanism="laplace", sensitivity=1.0, seed=1,
                                                  noise="exact"), 2)
        print(f"release_series {scheme}, T = {T:,}, |L| = {lm.size}: {s / T * 1e6:.1f} µs per "
              f"timestamp = {s / T * 1e6 / floor:.2f} × OpenDP's own")
    n = 5_000
    mech = ExactLaplace(1.0)
    planned = allocate("adaptive", n, lm[lm < n], 1.0)
    from lmdk_core.adaptive.reference import adaptive_reference
    from lmdk_core.engine.release import AdaptiveSettings

    s = best(lambda: adaptive_reference(x[:n], lm[lm < n], planned=planned, mech=mech,
                                        draws=GeneratorDraws(mech, np.random.default_rng(1)),
                                        settings=AdaptiveSettings()), 1)
    print(f"Adaptive with one OpenDP call per publication (the reference's draws), T = "
          f"{n:,}: {s / n * 1e6:.1f} µs per timestamp = {s / n * 1e6 / floor:.2f} × OpenDP's own")
    from lmdk_core.mechanisms import Laplace

    cpu_floor = opendp_floor(clock=best_cpu)
    print(f"OpenDP alone, CPU time of this process: {cpu_floor:.1f} µs per value")
    for U, Tp, per_user in ((args.users, 8_760, 5), (args.users, 2_000, 50)):
        gen = np.random.default_rng(5)
        xs = np.cumsum(gen.normal(0, 1, (U, Tp)), axis=1)
        lms = gen.random((U, Tp)) < per_user / Tp
        # the first release makes OpenDP's measurements of its scales (as a real one
        # does); the seeds differ per run so later runs need new scales too
        runs = itertools.count()

        def release(xs=xs, lms=lms, U=U, Tp=Tp, runs=runs):
            k = next(runs)
            lockstep_release(xs, np.full(U, Tp), lms, scheme="adaptive", epsilon=1.0,
                             mech=Laplace(1.0),
                             gens=[np.random.default_rng([k, u]) for u in range(U)], noise="exact")

        for clock, ref, what in ((best, floor, "wall"), (best_cpu, cpu_floor, "CPU")):
            s = clock(release, 2)
            us = s / (U * Tp) * 1e6
            print(f"population lockstep Adaptive, {U} users × {Tp:,}, ~{per_user} landmarks "
                  f"per user, {what} time: {us:.1f} µs per value = {us / ref:.2f} × OpenDP's "
                  f"own ({load()})")


def variants_section(args) -> None:
    from lmdk_core.adaptive.exact_draws import exact_publications
    from lmdk_core.adaptive.loop import adaptive_publications
    from lmdk_core.adaptive.reference import GeneratorDraws
    from lmdk_core.adaptive.settings import AdaptiveSettings
    from lmdk_core.mechanisms import Laplace
    from lmdk_core.population.lockstep import lockstep_release

    print(f"\n== the variants of Adaptive, CPU time per step ({load()})")
    settings = AdaptiveSettings(1.0, 0.2, 0.2)
    mech = Laplace(1.0)
    x, lm_idx = series(1_000_000)
    lm = np.zeros(x.size, dtype=bool)
    lm[lm_idx] = True
    lat, lon, tlm_idx = track(100_000)
    pts = np.column_stack([lat, lon])
    tlm = np.zeros(lat.size, dtype=bool)
    tlm[tlm_idx] = True
    rng = np.random.default_rng

    def exact_loop(n: int = 100_000):
        noise = rng(8)
        run = exact_publications(x[:n], lm[:n], start=0.5, mech=mech, coins=rng(7).random(n),
                                 settings=settings)
        request = next(run)
        try:
            while True:
                values, eps = request
                request = run.send(values + noise.laplace(0.0, 1.0 / eps, len(values)))
        except StopIteration:
            pass

    U, T_u = 200, 8_760
    xs = np.cumsum(rng(5).normal(0, 1, (U, T_u)), axis=1)
    lms = rng(6).random((U, T_u)) < 5 / T_u
    runs = (
        ("compiled series kernel", 1_000_000, 9, lambda: series_kernel.adaptive_laplace(
            x, lm, V=0.5, sensitivity=1.0, gen=rng(1), settings=AdaptiveSettings())),
        ("compiled trajectory kernel", 100_000, 5, lambda: planar_kernel.adaptive_planar(
            pts, tlm, V=0.5, radius=100.0, gen=rng(1), settings=AdaptiveSettings())),
        ("engine loop (Python), series", 100_000, 3, lambda: adaptive_publications(
            x[:100_000], lm[:100_000], start=0.5, mech=mech, draws=GeneratorDraws(mech, rng(1)),
            settings=settings)),
        ("exact-noise loop (stand-in sampler)", 100_000, 3, exact_loop),
        (f"population lockstep, numpy noise, {U} users", U * T_u, 3, lambda: lockstep_release(
            xs, np.full(U, T_u), lms, scheme="adaptive", epsilon=1.0, mech=mech,
            gens=[rng([1, u]) for u in range(U)], noise="fast")),
    )
    series_kernel.FORCE_COMPILED = planar_kernel.FORCE_COMPILED = True
    for name, steps, repeats, run in runs:
        run()  # compiles or loads a kernel, warms the caches
        print(f"{name:<45} {best_cpu(run, repeats) / steps * 1e9:9.1f} ns per step")
    series_kernel.FORCE_COMPILED = planar_kernel.FORCE_COMPILED = None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", default="curve,exact,variants")
    ap.add_argument("--max-t", type=float, default=1e7)
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--kinds", default="series,track", help="curves: series, track")
    args = ap.parse_args()
    args.max_t = int(args.max_t)
    sections = args.sections.split(",")
    if "curve" in sections:
        curve_section(args)
    if "exact" in sections:
        exact_section(args)
    if "variants" in sections:
        variants_section(args)


if __name__ == "__main__":
    main()
