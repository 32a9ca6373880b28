"""Population batch on Dask: times as multiples of the floor, peak memory, speed-up.

    python benchmarks/bench_batch.py                      # 10,000 users x 8,760 hours
    python benchmarks/bench_batch.py --users 1000 --tracks 1000   # scaled down
    python benchmarks/bench_batch.py --sections exact,unordered   # only these parts

Sections (``--sections``, default all):

* ``series`` — a Parquet long table ordered by user (user, time, value, landmark flag;
  ~5 landmarks per user), released with Uniform, Skip and Adaptive (Laplace, numpy noise:
  ``--noise fast``; no landmark TPL column) on a LocalCluster of 2 workers, Parquet out.
  The **floor** is what any release must do: read the Parquet, draw as many numpy
  Laplace variates, write the released column as Parquet. Then 1 vs 2 workers.
* ``leakage`` — the default command (the audit's landmark TPL column) against
  ``--no-leakage``, Adaptive with ``--noise fast``, 2 workers, run ``--repeats`` times
  each, interleaved, and their ratio (the median of each, wall time and CPU time of the
  driver and its workers; issue 39's target: <= 1.3); and both against the floor's CPU
  time (read + draw + write in one process, run as often; target: <= 5).
* ``partition`` — one partition of the batch's default size (``--partition-users``,
  default 228 users × ``--hours``, ~5 landmarks each), Adaptive, ``--noise fast``,
  released ``--repeats`` + 1 times in this one process (``release_partition``, no
  cluster) with the landmark TPL column off (``--no-leakage``) then on: CPU seconds of
  each run (the first of a process also loads what it loads once: numba's kernels where
  they pay), the median of the others, and the blocks that took Adaptive's compiled
  block kernel (:mod:`lmdk_core.adaptive.block_kernel`) or its numpy path; beside them
  the floor's CPU for the same cells (read-free: the numpy Laplace draw alone).
* ``exact`` — the default exact noise (the project's own sampler on a declared grid,
  docs/noise.md) on ``--exact-users`` users (default 200): end to end (cluster or
  threads started) and in one process on one partition, in µs per value, next to
  OpenDP's own cost (one float-Laplace measurement over 100,000 values: the peer and
  reference sampler), and extrapolated to ``--users`` × ``--hours`` on 2 workers.
* ``unordered`` — the same kind of table with its rows NOT ordered by user (the bucket
  path): ``--unordered-users`` users (default 1,000), rows in random order (above 20 M
  rows: hour-major order, every row group holding every user, which is as unordered as
  a table gets for grouping by user), as Parquet and — up to 1,000 users — as CSV.
* ``tracks`` — Planar Laplace, Uniform and Adaptive.
* ``per_user`` — the **cost per user**: ``--one-row-users`` users (default 10,000 and
  100,000) of ONE row each released in one process (``release_partition``, one
  partition, no cluster), numpy and exact noise, with and without the landmark TPL
  column, each twice (the second run is the figure: the first also loads numba's
  kernels, about 2 s once per process); the time divided by the number of users is the
  fixed per-user overhead. Such
  users take the vector path of ``lmdk_core/population/one_row.py`` (before it: 480–874
  µs per user, the detectors, the verifier and the utility verdict called per user).
* ``million`` — ``--million-users`` (default 10⁶) one-row users through ``run_batch``
  as ``lmdk batch`` runs them (2 workers, cluster start included), with the progress
  line: wall time and peak RSS. Figures: docs/performance.md.

Peak RSS is the largest sum over the driver and its worker processes (sampled every
0.2 s). Prints timings only (no assertions); note the machine's load (printed before
and after every run) when reading them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lmdk_core.files.config import ViewConfig  # noqa: E402
from lmdk_core.population.table import PopulationColumns  # noqa: E402


def run_batch(*args, **kw):
    """:func:`lmdk_core.population.dask_driver.run_batch`, imported on first use (a
    measured child process imports it inside its measurement)."""
    from lmdk_core.population.dask_driver import run_batch as run

    return run(*args, **kw)


class PeakRSS:
    """Largest total RSS of this process and its children while active."""

    def __init__(self):
        self.peak = 0
        self._stop = threading.Event()

    def _run(self):
        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for p in [me, *me.children(recursive=True)]:
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            time.sleep(0.2)

    def __enter__(self):
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()


def make_series(path: Path, users: int, hours: int) -> None:
    rng = np.random.default_rng(0)
    chunk = max(1, 2_000_000 // hours)
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    for lo in range(0, users, chunk):
        n = min(chunk, users - lo)
        t = np.tile(np.arange(hours, dtype=np.int64), n)
        v = 0.5 + np.abs(rng.normal(0, 0.3, n * hours)) + np.tile(
            np.sin(np.arange(hours) * 2 * np.pi / 24), n)
        flag = rng.random(n * hours) < 5 / hours
        table = pa.table({"user": np.repeat(np.arange(lo, lo + n, dtype=np.int64), hours),
                          "time": t, "value": v, "landmark": flag})
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


def make_unordered(path: Path, users: int, hours: int, fmt: str) -> str:
    """A series table whose rows are not ordered by user; returns the order used."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    n = users * hours
    if n <= 20_000_000:
        perm = rng.permutation(n)
        u, t = perm // hours, perm % hours
        v = 0.5 + np.abs(rng.normal(0, 0.3, n)) + np.sin(t * 2 * np.pi / 24)
        df = pd.DataFrame({"user": u.astype(np.int64), "time": t.astype(np.int64),
                           "value": v, "landmark": rng.random(n) < 5 / hours})
        if fmt == "csv":
            df.to_csv(path, index=False)
        else:
            df.to_parquet(path, row_group_size=1_000_000)
        return "random row order"
    writer = None
    step = max(1, 2_000_000 // users)
    for h0 in range(0, hours, step):
        h = np.arange(h0, min(hours, h0 + step), dtype=np.int64)
        m = h.size * users
        table = pa.table({"user": np.tile(np.arange(users, dtype=np.int64), h.size),
                          "time": np.repeat(h, users),
                          "value": 0.5 + np.abs(rng.normal(0, 0.3, m)) + np.repeat(
                              np.sin(h * 2 * np.pi / 24), users),
                          "landmark": rng.random(m) < 5 / hours})
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()
    return "hour-major row order (every row group holds every user)"


def opendp_floor(n: int = 100_000) -> float:
    """OpenDP's own cost, µs per value: one float-Laplace measurement over n values."""
    from benchmarks.bench_noise import opendp_laplace_measurement

    meas = opendp_laplace_measurement(2.0)
    x = np.random.default_rng(4).normal(size=n).tolist()
    t0 = time.perf_counter()
    meas(x)
    return (time.perf_counter() - t0) / n * 1e6


def in_process_exact(src: Path, cols, scheme: str, users: int) -> float:
    """µs per value of one partition of ``users`` users released in this process."""
    from lmdk_core.population.partition import BatchSettings, release_partition

    df = pd.read_parquet(src)
    df = df[df["user"] < users]
    s = BatchSettings.from_config(ViewConfig(scheme=scheme), "series", "exact", 0, False)
    t0 = time.perf_counter()
    release_partition(df, cols, s)
    return (time.perf_counter() - t0) / len(df) * 1e6


def make_tracks(path: Path, tracks: int, points: int) -> None:
    rng = np.random.default_rng(1)
    n = tracks * points
    lat = 48.85 + np.cumsum(rng.normal(0, 1e-4, n)).reshape(tracks, points)
    lon = 2.35 + np.cumsum(rng.normal(0, 1e-4, n)).reshape(tracks, points)
    lat -= lat[:, :1] - 48.85
    lon -= lon[:, :1] - 2.35
    pd.DataFrame({"user": np.repeat(np.arange(tracks), points),
                  "time": np.tile(np.arange(points) * 60, tracks),
                  "lat": lat.ravel(), "lon": lon.ravel(),
                  "landmark": rng.random(n) < 5 / points}).to_parquet(path)


def floor(path: Path, out: Path) -> float:
    t0 = time.perf_counter()
    df = pd.read_parquet(path, columns=["user", "time", "value"])
    rel = df["value"].to_numpy() + np.random.default_rng(2).laplace(0, 1, len(df))
    pd.DataFrame({"user": df["user"], "time": df["time"], "released": rel}).to_parquet(out)
    return time.perf_counter() - t0


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of its reaped descendants (the
    cluster's nannies and workers, once the cluster is closed)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed(cfg, src, cols, out, audit, **kw):
    with PeakRSS() as mem:
        t0 = time.perf_counter()
        res = run_batch(cfg, src, cols, out, audit, **kw)
        dt = time.perf_counter() - t0
    return dt, mem.peak, res


def timed_cpu(cfg, src, cols, out, audit, **kw) -> tuple[float, float, float]:
    """``(wall seconds, CPU seconds, whole-process CPU seconds)`` of one batch run in a
    fresh Python process, as ``lmdk batch`` runs: the CPU time (user + system, this child
    and its reaped descendants: a cluster's nannies and workers, once closed) from just
    before ``run_batch`` to just after it — the child has imported numpy, pandas and
    pyarrow, as the floor's process has, and nothing of the batch — and the child's
    whole CPU time (interpreter start and every import included)."""
    import json
    import subprocess

    job = {"cfg": {"scheme": cfg.scheme}, "src": str(src), "cols": cols.__dict__,
           "out": str(out), "audit": str(audit), "kw": kw}
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one-batch",
                           json.dumps(job)], capture_output=True, text=True, check=True)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return got["wall"], got["cpu"], got["process_cpu"]


def _one_batch(job_text: str) -> None:
    """The child of :func:`timed_cpu`: one batch, its times printed as JSON."""
    import json

    import pyarrow.parquet  # noqa: F401 - imported as the floor's process has it

    job = json.loads(job_text)
    c0, t0 = cpu_seconds(), time.perf_counter()
    run_batch(ViewConfig(**job["cfg"]), job["src"], PopulationColumns(**job["cols"]),
              job["out"], job["audit"], **job["kw"])
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    print(json.dumps({"wall": wall, "cpu": cpu, "process_cpu": cpu_seconds()}))


def floor_process(src: Path, out: Path) -> float:
    """The floor's whole-process CPU seconds: a fresh Python process that imports numpy
    and pandas, then reads, draws and writes (:func:`floor`)."""
    import subprocess

    here = str(Path(__file__).resolve().parent)
    code = (f"import os, sys; sys.path.insert(0, {here!r}); import bench_batch as b; "
            f"b.floor({str(src)!r}, {str(out)!r}); t = os.times(); print(t.user + t.system)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return float(proc.stdout.strip().splitlines()[-1])


def load() -> str:
    return "load " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def series_section(args, d: Path, cols, kw) -> None:
    src = d / "series.parquet"
    make_series(src, args.users, args.hours)
    n = args.users * args.hours
    print(f"series: {args.users:,} users x {args.hours:,} = {n / 1e6:.1f} M values, "
          f"{src.stat().st_size / 1e6:.0f} MB Parquet, ordered by user")
    fl = floor(src, d / "floor.parquet")
    print(f"floor (read + {n / 1e6:.1f} M numpy Laplace + write): {fl:.1f} s")
    for scheme in ("uniform", "skip", "adaptive"):
        dt, peak, res = timed(ViewConfig(scheme=scheme), src, cols, d / "r.parquet",
                              d / "a.parquet", workers=2, **kw)
        print(f"{scheme:9s} 2 workers: {dt:6.1f} s = {dt / fl:4.1f} x floor, peak RSS "
              f"{peak / 2**30:.2f} GiB, {res.partitions} partitions, "
              f"not private: {res.not_private} ({load()})")
    for scheme in ("uniform", "adaptive"):
        dt1, peak1, _ = timed(ViewConfig(scheme=scheme), src, cols, d / "r.parquet",
                              d / "a.parquet", workers=1, **kw)
        dt2, _, _ = timed(ViewConfig(scheme=scheme), src, cols, d / "r.parquet",
                          d / "a.parquet", workers=2, **kw)
        print(f"{scheme:9s} 1 worker: {dt1:6.1f} s, 2 workers: {dt2:6.1f} s, speed-up "
              f"{dt1 / dt2:.2f}x (peak RSS with 1 worker {peak1 / 2**30:.2f} GiB; {load()})")
    src.unlink()


def leakage_section(args, d: Path, cols) -> None:
    """The default command (landmark TPL column of the audit) against ``--no-leakage``,
    Adaptive, numpy noise, 2 workers, interleaved on the same file, each batch in a fresh
    process (:func:`timed_cpu`); prints the ratio of the medians with the load average,
    and both against the floor (read + draw + write in one process)."""
    src = d / "series.parquet"
    make_series(src, args.users, args.hours)
    times: dict[bool, list[float]] = {True: [], False: []}
    cpus: dict[bool, list[float]] = {True: [], False: []}
    procs: dict[bool, list[float]] = {True: [], False: []}
    floors: list[float] = []
    floor_procs: list[float] = []
    for _ in range(args.repeats):
        c0 = cpu_seconds()
        floor(src, d / "floor.parquet")
        floors.append(cpu_seconds() - c0)
        floor_procs.append(floor_process(src, d / "floor.parquet"))
        for leakage in (False, True):
            dt, cpu, whole = timed_cpu(ViewConfig(scheme="adaptive"), src, cols,
                                       d / "r.parquet", d / "a.parquet", workers=args.workers,
                                       seed=1, noise="fast", leakage=leakage)
            times[leakage].append(dt)
            cpus[leakage].append(cpu)
            procs[leakage].append(whole)
            print(f"adaptive {'default     ' if leakage else '--no-leakage'}: {dt:6.1f} s, "
                  f"CPU {cpu:6.1f} s (whole process {whole:5.1f} s) ({load()})")
    med = {k: float(np.median(v)) for k, v in (("on", times[True]), ("off", times[False]),
                                                ("con", cpus[True]), ("coff", cpus[False]),
                                                ("pon", procs[True]),
                                                ("poff", procs[False]))}
    print(f"leakage: {args.users:,} users x {args.hours:,} hours, Adaptive, --noise fast, "
          f"{args.workers} workers: default {med['on']:.1f} s, --no-leakage "
          f"{med['off']:.1f} s, ratio {med['on'] / med['off']:.2f}; CPU time default "
          f"{med['con']:.1f} s, --no-leakage {med['coff']:.1f} s, ratio "
          f"{med['con'] / med['coff']:.2f} (median of {args.repeats} each, interleaved; "
          f"target <= 1.3; {load()})")
    extra = (med['con'] - med['coff']) * 1000 / args.users
    print(f"landmark TPL column's extra CPU: {extra:.2f} s per 1,000 users (median default "
          f"- median --no-leakage; target <= 1.2 s, so that the ratio stays <= 1.3 once "
          f"--no-leakage costs ~4-5 s CPU per 1,000 users)")
    fl, flp = float(np.median(floors)), float(np.median(floor_procs))
    print(f"floor (read + numpy Laplace + write, one process): CPU {fl:.2f} s (median of "
          f"{args.repeats}); whole batch / floor, CPU: default {med['con'] / fl:.2f}, "
          f"--no-leakage {med['coff'] / fl:.2f} (target <= 5; {load()})")
    print(f"whole processes (interpreter start and imports included): floor {flp:.2f} s, "
          f"default {med['pon']:.1f} s ({med['pon'] / flp:.2f}x), --no-leakage "
          f"{med['poff']:.1f} s ({med['poff'] / flp:.2f}x)")
    src.unlink()
    recursion_floor()


def recursion_floor(users: int = 228, hours: int = 8_760, runs: int = 5) -> None:
    """The landmark-TPL column's largest part beside its floor: the compiled segment
    recursions (Cao et al., ICDE 2017: ``a_t = L(a_{t-1}) + ε_t``, BPL forwards and FPL on
    the reversed budget, every user's two chains in one call, as the audit runs them on
    one block) per step, against a compiled loop of the two C-library calls each step
    makes, ``log1p(expm1(x))``, on the recursions' own α values. One block of the
    partition's size: an Adaptive-like budget (half the timestamps spend), ~5 landmarks per
    user, each user's loss functions of a 10-state model estimated from a sticky chain
    (:func:`~lmdk_core.leakage.estimation.transition_matrices`). Best of ``runs``, CPU."""
    import math

    import numba

    from lmdk_core.leakage.estimation import transition_matrices
    from lmdk_core.leakage.loss import loss_functions
    from lmdk_core.leakage.recursion import chains_kernel
    from lmdk_core.leakage.vector_chains import VertexTables

    rng = np.random.default_rng(5)
    # as Adaptive's budgets on the leakage section's data: half the timestamps spend,
    # 1/7 to 1/2 of ε = 1 each (its recursions' α then lie around 2-4)
    spend = rng.random((users, hours)) < 0.5
    eps = np.where(spend, rng.choice([1 / 7, 1 / 4, 1 / 2], (users, hours)), 0.0).ravel()
    mark = (rng.random((users, hours)) < 5 / hours).ravel()
    mats = []
    for _ in range(users):  # a sticky chain: the state changes at a fifth of the steps
        at = np.maximum.accumulate(np.where(rng.random(hours) < 0.2, np.arange(hours), 0))
        mats += list(transition_matrices(rng.integers(0, 10, hours)[at], 10, 1.0))
    tables = VertexTables()
    ids = np.array([tables.add(L) for L in loss_functions(mats)], dtype=np.intp)
    # mats: (forward, backward) per user; chain 2u runs user u's BPL forwards on its
    # backward loss, chain 2u + 1 its FPL on the forward loss
    loss_id = ids.reshape(users, 2)[:, ::-1].ravel().copy()
    tables.freeze()
    n = eps.size
    start = np.repeat(np.arange(users, dtype=np.intp) * hours, 2)
    length = np.full(2 * users, hours, dtype=np.intp)
    reverse = np.tile(np.array([False, True]), users)
    out_start = start + np.tile(np.array([0, n], dtype=np.intp), users)
    seg, done = np.empty(2 * n), np.empty(2 * users, dtype=np.intp)
    kernel = chains_kernel()
    args = (eps, mark, start, length, reverse, out_start, tables.thr_all,
            tables.thr_start[loss_id], tables.thr_len[loss_id], tables.q, tables.d,
            tables.v_start[loss_id], seg, done)

    @numba.njit(nogil=True)
    def libm_floor(x, out):  # pragma: no cover - compiled
        for i in range(x.size):
            out[i] = math.log1p(math.expm1(x[i]))

    x = seg.copy()
    kernel(*args)
    x[:] = np.clip(seg, 0.0, 700.0)  # the recursion's own α values
    y = np.empty_like(x)
    libm_floor(x, y)

    def best(f, *a) -> float:
        out = []
        for _ in range(runs):
            c0 = time.process_time()
            f(*a)
            out.append(time.process_time() - c0)
        return min(out)

    k, fl = best(kernel, *args), best(libm_floor, x, y)
    print(f"landmark TPL column, segment recursions of one block ({users} users x "
          f"{hours:,} hours, {2 * n:,} steps, compiled): {k / (2 * n) * 1e9:.1f} ns per "
          f"step; floor log1p(expm1(x)) of the C library, compiled: "
          f"{fl / (2 * n) * 1e9:.1f} ns; ratio {k / fl:.2f} (best of {runs}, CPU; {load()})")
    x_domain_experiment(args, seg, best, users, hours)


def x_domain_experiment(args: tuple, seg: np.ndarray, best, users: int, hours: int) -> None:
    """NOT the engine's recursion — a measurement for the decision the audit's 1.3
    target needs (docs/performance.md, "What meeting 1.3 would take"): the same chains on
    ``x = e^α − 1``, where a step is ``x' = y·e^{ε_t} + (e^{ε_t} − 1)`` with ``y = (Q_k −
    D_k)x/(1 + D_k x)`` (algebraically ``expm1(log1p(y) + ε_t)``) and no C-library call,
    the two exponentials of each ε_t taken once as numpy vectors, and the bound's
    ``sb_t + sf_t`` as one ``log`` per timestamp of ``(1 + x_b)(1 + x_f)``. Prints its CPU
    per step against the engine's chains and how far its values are from the engine's
    (relative, the largest over the block): they round differently."""
    import numba

    from lmdk_core.leakage.recursion import _vertex

    (eps, mark, start, length, reverse, out_start, thr, t_start, t_len, wq, wd, v_start,
     _, _) = args
    vertex = numba.njit(_vertex)  # the engine's hull vertex (searchsorted right)

    @numba.njit(nogil=True)
    def x_chains(E, M, restart, start, length, reverse, out_start, thr, t_start, t_len, wQ,
                 wD, v_start, out):  # pragma: no cover - compiled
        for c in range(start.size):
            x = 0.0
            n = length[c]
            for t in range(n):
                j = n - 1 - t if reverse[c] else t
                i = start[c] + j
                k = v_start[c] + vertex(thr, t_start[c], t_len[c], x)
                D = wD[k]
                x = (wQ[k] - D) * x / (1.0 + D * x) * E[i] + M[i]
                out[out_start[c] + j] = x
                if restart[i]:
                    x = 0.0
        return 0

    n = eps.size
    xs = np.empty(2 * n)

    def run() -> np.ndarray:
        E, M = np.exp(eps), np.expm1(eps)
        x_chains(E, M, mark, start, length, reverse, out_start, thr, t_start, t_len, wq, wd,
                 v_start, xs)
        return np.log((1.0 + xs[:n]) * (1.0 + xs[n:])) - eps  # sb_t + sf_t − ε_t

    bound = run()
    k = best(run)
    chains = best(lambda: x_chains(np.exp(eps), np.expm1(eps), mark, start, length, reverse,
                                   out_start, thr, t_start, t_len, wq, wd, v_start, xs))
    want = seg[:n] + seg[n:] - eps
    ok = np.isfinite(bound) & (want > 0)
    rel_bound = float(np.max(np.abs(bound[ok] - want[ok]) / want[ok]))
    alpha = np.log1p(xs)
    rel_alpha = float(np.max(np.abs(alpha - seg)[seg > 0] / seg[seg > 0]))
    print(f"  not the engine's recursion (a measurement): the same chains on x = e^α − 1, no "
          f"C-library call per step: {chains / (2 * n) * 1e9:.1f} ns per step (its "
          f"exponentials as vectors included); with the "
          f"bounds (one log per timestamp): {k / (2 * n) * 1e9:.1f} ns per step; largest "
          f"relative difference from the engine's values: α {rel_alpha:.1e}, bound "
          f"sb + sf − ε {rel_bound:.1e} ({int((~ok).sum())} of {n:,} bounds not finite "
          f"or 0; {users} users x {hours:,} hours, best of 5, CPU)")


def partition_section(args, cols) -> None:
    """One partition in this process (see the module docstring): CPU per run."""
    from lmdk_core.population.partition import BatchSettings, release_partition

    try:
        from lmdk_core.adaptive import block_kernel
        counts: dict[str, int] | None = block_kernel.PATH_COUNTS
    except ImportError:  # code before the compiled block kernel
        counts = None
    users, hours = args.partition_users, args.hours
    rng = np.random.default_rng(0)  # data, not noise
    v = 0.5 + np.abs(rng.normal(0, 0.3, users * hours)) + np.tile(
        np.sin(np.arange(hours) * 2 * np.pi / 24), users)
    df = pd.DataFrame({"user": np.repeat(np.arange(users, dtype=np.int64), hours),
                       "time": np.tile(np.arange(hours, dtype=np.int64), users), "value": v,
                       "landmark": rng.random(users * hours) < 5 / hours})
    c0 = time.process_time()
    np.random.default_rng(2).laplace(0, 1, users * hours)
    floor_cpu = time.process_time() - c0
    for leakage in (False, True):
        s = BatchSettings.from_config(ViewConfig(scheme="adaptive"), "series", "fast", 1,
                                      leakage)
        runs = []
        before = dict(counts) if counts is not None else None
        for _ in range(args.repeats + 1):
            c0 = time.process_time()
            release_partition(df, cols, s)
            runs.append(time.process_time() - c0)
        paths = ("" if counts is None or before is None else
                 f"; blocks compiled {counts['compiled'] - before['compiled']}, numpy "
                 f"{counts['numpy'] - before['numpy']}")
        print(f"partition {users} users x {hours:,} hours, Adaptive, --noise fast, "
              f"{'default     ' if leakage else '--no-leakage'}: CPU runs "
              f"{' '.join(f'{r:.2f}' for r in runs)} s, median after the first "
              f"{float(np.median(runs[1:])):.2f} s (floor: the numpy Laplace draw "
              f"{floor_cpu:.2f} s{paths}; {load()})")


def exact_section(args, d: Path, cols) -> None:
    small = d / "exact.parquet"
    make_series(small, args.exact_users, args.hours)
    m = args.exact_users * args.hours
    full = args.users * args.hours
    per_part = max(1, 2_000_000 // args.hours)  # users in a partition of the default size
    floor_us = opendp_floor()
    print(f"OpenDP alone: {floor_us:.1f} µs per value (one float-Laplace measurement over "
          f"100,000 values); full size ({full / 1e6:.1f} M values) on 2 workers at that "
          f"rate: {full * floor_us / 2e6 / 60:.0f} min ({load()})")
    for scheme in ("uniform", "adaptive"):
        dt, peak, res = timed(ViewConfig(scheme=scheme), small, cols, d / "r.parquet",
                              d / "a.parquet", workers=2, seed=1, noise="exact",
                              leakage=False)
        us = dt / m * 1e6
        inproc = in_process_exact(small, cols, scheme, min(per_part, args.exact_users))
        print(f"exact noise (default sampler), {scheme}, {args.exact_users} users ({m / 1e6:.2f} M "
              f"values), 2 workers: {dt:.1f} s = {us:.1f} µs per value end to end "
              f"({res.partitions} partitions, peak RSS {peak / 2**30:.2f} GiB); one "
              f"partition in one process: {inproc:.1f} µs per value; full size "
              f"extrapolated on 2 workers: {full * us / 1e6 / 60:.0f} min end to end, "
              f"{full * inproc / 2e6 / 60:.0f} min at the in-process rate ({load()})")
    small.unlink()


def unordered_section(args, d: Path, cols, kw) -> None:
    for fmt in ("parquet", "csv"):
        users = args.unordered_users if fmt == "parquet" else min(args.unordered_users, 1000)
        src = d / f"unordered.{fmt}"
        order = make_unordered(src, users, args.hours, fmt)
        n = users * args.hours
        print(f"unordered {fmt}: {users:,} users x {args.hours:,} = {n / 1e6:.1f} M rows, "
              f"{src.stat().st_size / 1e6:.0f} MB, {order}")
        for scheme in ("uniform", "adaptive"):
            dt, peak, res = timed(ViewConfig(scheme=scheme), src, cols, d / "r.parquet",
                                  d / "a.parquet", workers=2, **kw)
            print(f"  {scheme:9s} 2 workers: {dt:6.1f} s, peak RSS {peak / 2**30:.2f} GiB, "
                  f"{res.partitions} buckets ({load()})")
        src.unlink()


def tracks_section(args, d: Path, kw) -> None:
    tr = d / "tracks.parquet"
    make_tracks(tr, args.tracks, args.points)
    tcols = PopulationColumns(user="user", time="time", lat="lat", lon="lon",
                              landmark="landmark")
    cfg_t = dict(data_kind="track", dataset="demo-paris", radius=100.0)
    print(f"tracks: {args.tracks:,} x {args.points:,} = "
          f"{args.tracks * args.points / 1e6:.1f} M points")
    for scheme in ("uniform", "adaptive"):
        dt, peak, _ = timed(ViewConfig(scheme=scheme, **cfg_t), tr, tcols, d / "t.parquet",
                            d / "ta.parquet", workers=2, **kw)
        print(f"Planar Laplace {scheme:9s}: {dt:6.1f} s, peak RSS {peak / 2**30:.2f} GiB "
              f"({load()})")


def per_user_section(args) -> None:
    """Users of one row each in one process: microseconds per user (see the docstring)."""
    from lmdk_core.population.partition import BatchSettings, release_partition

    cols = PopulationColumns(user="user", time="time", value="value")
    for n in (int(v) for v in str(args.one_row_users).split(",")):
        rng = np.random.default_rng(1)  # data, not noise
        df = pd.DataFrame({"user": np.arange(n), "time": np.zeros(n, dtype=np.int64),
                           "value": rng.normal(size=n)})
        for noise in ("fast", "exact"):
            for leakage in (False, True):
                s = BatchSettings.from_config(ViewConfig(), "series", noise, 5, leakage)
                runs = []
                for _ in range(2):  # the first run of a process also loads numba's kernels
                    t = time.perf_counter()
                    release_partition(df, cols, s)
                    runs.append(time.perf_counter() - t)
                print(f"per user ({n:,} users x 1 row, {noise} noise, TPL column "
                      f"{'on' if leakage else 'off'}): {runs[1] / n * 1e6:7.1f} µs/user "
                      f"(second run; first {runs[0] / n * 1e6:.1f}), {runs[1]:.2f} s "
                      f"({load()})")


def million_section(args, d: Path) -> None:
    """``--million-users`` one-row users (default 10⁶) through ``run_batch`` as ``lmdk
    batch`` runs it (exact noise and the default audit, 2 workers, Parquet in and out,
    cluster start included): wall time, users per second and peak RSS (driver + workers),
    with the progress line the CLI prints."""
    from lmdk_core.cli.batch_progress import BatchProgress

    n = args.million_users
    src = d / "one_row.parquet"
    rng = np.random.default_rng(1)  # data, not noise
    pd.DataFrame({"user": np.arange(n, dtype=np.int64), "time": np.zeros(n, dtype=np.int64),
                  "value": rng.normal(size=n)}).to_parquet(src, row_group_size=100_000)
    cols = PopulationColumns(user="user", time="time", value="value")
    for noise, leakage in (("exact", True), ("exact", False), ("fast", False)):
        with BatchProgress(sys.stdout) as progress:
            dt, peak, res = timed(ViewConfig(), src, cols, d / "one_row_out.parquet",
                                  d / "one_row_audit.parquet", workers=2, noise=noise,
                                  leakage=leakage, progress=progress.partition_done)
        print(f"{res.users:,} one-row users, {noise} noise, TPL column "
              f"{'on' if leakage else 'off'}: {dt:.1f} s ({res.users / dt:,.0f} users/s, "
              f"{dt / res.users * 1e6:.1f} µs/user wall on 2 workers), peak RSS "
              f"{peak / 2**30:.2f} GiB ({load()})")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one-batch":  # a child of timed_cpu
        _one_batch(sys.argv[2])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--hours", type=int, default=8_760)
    ap.add_argument("--tracks", type=int, default=10_000)
    ap.add_argument("--points", type=int, default=2_000)
    ap.add_argument("--exact-users", type=int, default=200)
    ap.add_argument("--partition-users", type=int, default=228,
                    help="users of the partition section (228 x 8,760 hours: the default "
                         "partition)")
    ap.add_argument("--unordered-users", type=int, default=1_000)
    ap.add_argument("--one-row-users", default="10000,100000",
                    help="sizes of the per_user section, comma-separated")
    ap.add_argument("--million-users", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2,
                    help="workers of the leakage section's batches")
    ap.add_argument("--repeats", type=int, default=3,
                    help="runs of each command in the leakage section (interleaved); runs "
                         "after the first in the partition section")
    ap.add_argument("--sections",
                    default="series,leakage,partition,exact,unordered,tracks,per_user,"
                            "million")
    args = ap.parse_args()
    sections = set(args.sections.split(","))
    print(f"{load()} on {os.cpu_count()} cores before")
    cols = PopulationColumns(user="user", time="time", value="value", landmark="landmark")
    kw = dict(seed=1, noise="fast", leakage=False)
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        if "series" in sections:
            series_section(args, d, cols, kw)
        if "leakage" in sections:
            leakage_section(args, d, cols)
        if "partition" in sections:
            partition_section(args, cols)
        if "exact" in sections:
            exact_section(args, d, cols)
        if "unordered" in sections:
            unordered_section(args, d, cols, kw)
        if "tracks" in sections:
            tracks_section(args, d, kw)
        if "per_user" in sections:
            per_user_section(args)
        if "million" in sections:
            million_section(args, d)
    print(f"{load()} after")


if __name__ == "__main__":
    main()
