"""Exact noise beside numpy and OpenDP: CPU µs per value, and a whole release.

Prints (docs/performance.md, "Exact noise"):

1. CPU µs per Laplace value (best of 3 runs): numpy's ``Generator.laplace`` (not
   floating-point safe), OpenDP's ``make_laplace`` over one vector (the sampler every
   publishable file used before), and this project's exact sampler
   (:func:`lmdk_core.mechanisms.exact_noise.exact_laplace`: compiled kernel, warm; its
   Python reference; and the geometric path) — plus the sampler's random bits per value;
2. CPU µs per released location (Planar Laplace, r = 100 m, ε = 1): numpy's gamma +
   uniform draw alone and with the WGS84 geodesic move (``PlanarLaplace``, not
   floating-point safe), against the exact Planar Laplace
   (:mod:`lmdk_core.mechanisms.exact_planar`): its lattice noise alone (proposals from
   the compiled kernel, and from the Python reference) and the whole release
   (projection, snapping, noise, truncation, inverse projection);
3. a release of 200,000 readings, whole process (``lmdk release`` run as a child process,
   its CPU time from ``getrusage``): ``--noise exact`` against ``--noise fast`` (numpy),
   and the exact release's CPU time over the fast one's.

The peers of row 1 that are not dependencies of this project — python-dp, diffprivlib and
PipelineDP — are timed in their own virtual environment by ``peers_noise.py`` (one call
per value, as their APIs take one value), measured in the same run and printed among the
rows; ``--peers PYTHON`` names that environment's interpreter (default
``benchmarks/.peers-venv/bin/python``; ``benchmarks/README.md`` says how to make it).
Without it the peers' rows say so and the rest runs.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_noise.py [--n 1000000]``.
It asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def best(fn, runs: int = 3) -> float:
    """Least CPU seconds of ``runs`` calls (what other processes on a shared machine do
    not add to)."""
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def opendp_laplace_measurement(scale: float):
    """OpenDP's float Laplace over a vector of doubles (L1), as the project used it."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
    return dp.m.make_laplace(*space, scale=scale)


#: the peers' own virtual environment (benchmarks/README.md)
PEERS_PYTHON = ROOT / "benchmarks" / ".peers-venv" / "bin" / "python"


def peer_rows(python: Path, n: int) -> list[tuple[str, float | None, str]]:
    """(name, CPU seconds per value or None, note) of each peer, from ``peers_noise.py``
    run by the peers' interpreter ``python``."""
    if not python.exists():
        return [(name, None, f"not measured: {python} not found (benchmarks/README.md)")
                for name in ("python-dp", "diffprivlib", "PipelineDP")]
    out = subprocess.run([str(python), str(ROOT / "benchmarks" / "peers_noise.py"), str(n)],
                         check=True, capture_output=True, text=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    rows: list[tuple[str, float | None, str]] = []
    for name, res in got["peers"].items():
        if "error" in res:
            rows.append((name, None, f"not measured: {res['error'][:80]}"))
        else:
            rows.append((f"{name} {res['version']}, one call per value",
                         res["us_per_value"] / 1e6, ""))
    return rows


def per_value(n: int, peers: Path = PEERS_PYTHON) -> None:
    from lmdk_core.mechanisms import discrete_laplace as dl
    from lmdk_core.mechanisms import entropy
    from lmdk_core.mechanisms.exact_noise import exact_geometric, exact_laplace

    x = np.random.default_rng(4).normal(size=n)
    gen = np.random.default_rng(0)
    rows = [("numpy Generator.laplace (not floating-point safe)",
             best(lambda: x + gen.laplace(0.0, 2.0, n)) / n)]
    n_odp = min(n, 100_000)
    meas = opendp_laplace_measurement(2.0)
    xs = x[:n_odp].tolist()
    rows.append(("OpenDP make_laplace, one vector", best(lambda: meas(xs)) / n_odp))
    dl.FORCE_COMPILED = True
    exact_laplace(x[:10], 2.0, 1.0)  # load the kernel (the cost is in section 2)
    rows.append(("ours: exact_laplace (compiled kernel)",
                 best(lambda: exact_laplace(x, 2.0, 1.0)) / n))
    counts = np.round(np.abs(x) * 100)
    rows.append(("ours: exact_geometric (compiled kernel)",
                 best(lambda: exact_geometric(counts, 2.0)) / n))
    n_ref = min(n, 20_000)
    dl.FORCE_COMPILED = False
    rows.append(("ours: the Python reference (small calls)",
                 best(lambda: exact_laplace(x[:n_ref], 2.0, 1.0), 1) / n_ref))
    dl.FORCE_COMPILED = None
    n_peer = min(n, 20_000)
    peer = peer_rows(peers, n_peer)
    print(f"\n== CPU µs per Laplace value (n = {n:,}; OpenDP n = {n_odp:,}; reference "
          f"and peers n = {n_ref:,} / {n_peer:,}; peers in their own environment)")
    for name, s in rows[:2]:
        print(f"  {name:<52} {s * 1e6:9.3f} µs")
    for name, sp, note in peer:
        print(f"  {name:<52} " + (f"{sp * 1e6:9.3f} µs" if sp is not None else note))
    for name, s in rows[2:]:
        print(f"  {name:<52} {s * 1e6:9.3f} µs")
    safe = [sp for name, sp, _ in peer if sp is not None] + [rows[1][1]]
    print(f"  ours (compiled) against the fastest measured peer: "
          f"{rows[2][1] / min(safe):.3f}× its CPU per value (issue target: ≤ 2 µs)")
    s = entropy.EntropyStream()
    used = []
    entropy_words = entropy.PROVIDER[0]

    def counting(words):
        used.append(words.size)
        entropy_words(words)

    entropy.PROVIDER[0] = counting
    try:
        dl.FORCE_COMPILED = True
        dl.discrete_laplace(np.array([2**31 + 1]), np.array([0]), np.zeros(n, np.int64), s)
    finally:
        entropy.PROVIDER[0] = entropy_words
        dl.FORCE_COMPILED = None
    print(f"  random bits per value: {64 * (sum(used) - s.words.size + int(s.state[0])) / n:.1f}"
          " (OS entropy)")


def per_location(n: int, n_exact: int) -> None:
    from lmdk_core.mechanisms import PlanarLaplace
    from lmdk_core.mechanisms import discrete_laplace as dl
    from lmdk_core.mechanisms.discrete_planar_laplace import (
        discrete_planar_laplace,
        lattice_scale,
    )
    from lmdk_core.mechanisms.exact_planar import (
        ExactPlanarLaplace,
        PlanarRegion,
        grid_step,
        planar_alpha,
    )

    gen = np.random.default_rng(0)
    fast = PlanarLaplace(100.0)
    exact = ExactPlanarLaplace(100.0, PlanarRegion(48.86, 2.35, 50))
    x = np.tile([[48.8566, 2.3522]], (n, 1))
    xe = x[:n_exact]
    rows = [("numpy gamma(2) + uniform angle (the draw alone)",
             best(lambda: fast.presample(gen, n)) / n),
            ("numpy Planar Laplace + geodesic move (PlanarLaplace)",
             best(lambda: fast.perturb(x, 1.0, gen)) / n)]
    sc = lattice_scale(planar_alpha(1.0, 100.0, grid_step(100.0),
                                    exact.region.stretch()))
    which = np.zeros(n_exact, dtype=np.int64)
    dl.FORCE_COMPILED = True
    discrete_planar_laplace([sc], which[:10])  # load the kernel
    rows.append(("ours: exact lattice noise (kernel proposals)",
                 best(lambda: discrete_planar_laplace([sc], which)) / n_exact))
    rows.append(("ours: exact Planar Laplace, whole release",
                 best(lambda: exact.perturb(xe, 1.0)) / n_exact))
    dl.FORCE_COMPILED = False
    n_ref = min(n_exact, 20_000)
    rows.append(("ours: exact lattice noise (reference proposals)",
                 best(lambda: discrete_planar_laplace([sc], which[:n_ref]), 1) / n_ref))
    dl.FORCE_COMPILED = None
    print(f"\n== CPU µs per released location (r = 100 m, ε = 1; numpy n = {n:,}; exact "
          f"n = {n_exact:,}; reference n = {n_ref:,}; α = {float(sc.alpha):.3g} per "
          f"{grid_step(100.0):g} m step)")
    for name, s in rows:
        print(f"  {name:<52} {s * 1e6:9.3f} µs")


def _series(path: Path, n: int) -> None:
    rng = np.random.default_rng(1)
    v = np.round(np.cumsum(rng.normal(0, 1, n)), 3)
    path.write_text("time,value\n" + "\n".join(f"{i},{x}" for i, x in enumerate(v)) + "\n")


def _child_cpu(cmd: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def whole_release(readings: int, runs: int) -> None:
    lmdk = [sys.executable, "-m", "lmdk_core"]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "series.csv"
        _series(src, readings)
        out = Path(tmp) / "release.csv"
        base = lmdk + ["release", "--input", str(src), "--epsilon", "1",
                       "--landmarks", "10,500,9000", "--scheme", "uniform",
                       "--sensitivity", "1", "--seed", "0", "--output", str(out)]
        print(f"\n== a release of {readings:,} readings, whole process (`lmdk release`, "
              f"Uniform, Laplace; best of {runs})")
        res = {}
        for noise in ("fast", "exact"):
            pairs = [_child_cpu(base + ["--noise", noise]) for _ in range(runs)]
            res[noise] = min(p[0] for p in pairs), min(p[1] for p in pairs)
            print(f"  --noise {noise:<6} CPU {res[noise][0]:6.2f} s   wall {res[noise][1]:6.2f} s")
        print(f"  exact / numpy (CPU): {res['exact'][0] / res['fast'][0]:.2f}×")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="values per timing")
    ap.add_argument("--n-planar", type=int, default=200_000,
                    help="locations per timing of the exact Planar Laplace")
    ap.add_argument("--readings", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--peers", type=Path, default=PEERS_PYTHON,
                    help="the Python of the peers' own virtual environment")
    a = ap.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    per_value(a.n, a.peers)
    per_location(a.n, a.n_planar)
    whole_release(a.readings, a.runs)


if __name__ == "__main__":
    main()
