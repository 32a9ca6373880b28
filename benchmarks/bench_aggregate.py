"""Population statistics under landmark privacy (``lmdk aggregate``): levels side by side
on real data, and the 10⁶-user run.

    python benchmarks/bench_aggregate.py                       # both sections
    python benchmarks/bench_aggregate.py --sections real        # the real table only
    python benchmarks/bench_aggregate.py --users 100000         # a scaled-down large run

Sections (``--sections``, default all):

* ``real`` — tests/data/real/geolife-multiuser/geolife-11users-per-minute.csv (GeoLife
  users 000–010, Beijing; see tests/data/real/README.md): users per 2 km cell per hour
  over the declared period 2008-10-23 – 2008-11-03 (264 windows) and box
  39.85,116.20,40.10,116.50 (182 cells), ε = 1, each user's own landmarks (stays
  discovered per user) with declared k = 5, Uniform (ε_t = ε/6), numpy noise seeded
  (``--seed``). Prints every level's ε_t, expected and measured mean absolute error per
  cell and window, and the landmark level's MAE as a fraction of user level's. When the
  virtual environment ``/work/venv-dpmr`` exists, the same counts through
  ``dp-mobility-report`` (user-level, its own contribution bound) are printed beside.
* ``large`` — ``--users`` (default 10⁶) synthetic users × 168 hourly windows (one fix per
  user per hour; home and work cells; ~2 flagged landmark hours per user), generated in
  chunks of ``--chunk`` users **inside the Dask workers** (a LocalCluster of 2
  single-threaded workers), each chunk checked (``prepare_users``), bounded, ruled and
  summed by the engine's own partition work
  (:func:`lmdk_core.aggregate.partition_work.aggregate_frame`), then released once with
  exact (OpenDP) noise. A progress line per partition; wall time and peak RSS (driver +
  workers, sampled every 0.2 s) printed. The input is not read from disk (generation
  replaces reading): the time is the engine's, not a file reader's.

Prints figures only (no assertions); note the machine's load when reading them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_batch import PeakRSS  # noqa: E402

from lmdk_core.aggregate.partition_work import aggregate_frame  # noqa: E402
from lmdk_core.aggregate.population_release import (  # noqa: E402
    AggregateRequest,
    aggregate_population,
    finish_release,
    make_spec,
)
from lmdk_core.aggregate.statistics import statistic  # noqa: E402
from lmdk_core.population.table import (  # noqa: E402
    PopulationColumns,
    prepare_users,
    read_population,
)

REAL = ROOT / "tests" / "data" / "real" / "geolife-multiuser" / "geolife-11users-per-minute.csv"
REAL_BBOX = (39.85, 116.20, 40.10, 116.50)
REAL_PERIOD = ("2008-10-23T00:00", "2008-11-03T00:00")
DPMR_PYTHON = Path("/work/venv-dpmr/bin/python")

LARGE_BBOX = (48.80, 2.25, 48.92, 2.42)  # about 13 x 12.5 km: 7 x 7 cells of 2 km
HOURS = 168


def real_request(seed: int, epsilon: float = 1.0, k: int = 5) -> AggregateRequest:
    """The real section's settings (also used by tests/engine/test_aggregate_real.py)."""
    return AggregateRequest(statistic=statistic("cells"), width=3600.0, epsilon=epsilon,
                            scheme="uniform", start=REAL_PERIOD[0], end=REAL_PERIOD[1],
                            cell_size=2000.0, bbox=REAL_BBOX, k=k, noise="fast", seed=seed)


def real_levels(seed: int):
    """The level comparison on the real table."""
    cols = PopulationColumns("user", "time", lat="lat", lon="lon")
    frame, kind = read_population(REAL, cols)
    return aggregate_population(frame, kind, real_request(seed))


def section_real(seed: int) -> None:
    t0 = time.perf_counter()
    res = real_levels(seed)
    users = res.partial.users
    print(f"real: {REAL.name}: {len(users)} users in the period, {res.spec.windows.count} "
          f"hourly windows x {res.spec.n_cells} cells of 2 km, ε = 1, k = 5 (stays "
          f"discovered), {int(users['dropped'].sum())} landmark contributions dropped; "
          f"{time.perf_counter() - t0:.1f} s")
    print(f"{'level':<10} {'ε_t':>11} {'expected MAE':>13} {'measured MAE':>13}")
    by = {}
    for lv in res.levels:
        by[lv.level] = lv.measured_error
        print(f"{lv.level:<10} {lv.epsilon_t:>11.5g} {lv.expected_error:>13.4g} "
              f"{lv.measured_error:>13.4g}")
    print(f"landmark / user-level measured MAE = {by['landmark'] / by['user']:.4f} "
          "(goal <= 0.25)")
    print(f"true counts: mean {res.truth.mean():.4f} users per cell and window, "
          f"max {res.truth.max():.0f}")
    dpmr_section(seed)


def dpmr_section(seed: int) -> None:
    """dp-mobility-report on the same table, when its virtual environment exists."""
    if not DPMR_PYTHON.exists():
        print("dp-mobility-report: /work/venv-dpmr not found; skipped")
        return
    import subprocess

    script = ROOT / "benchmarks" / "dpmr_counts.py"
    proc = subprocess.run([str(DPMR_PYTHON), str(script), str(REAL), str(seed)],
                          capture_output=True, text=True, timeout=1800)
    print(proc.stdout.rstrip() or f"dp-mobility-report failed: {proc.stderr[-500:]}")


def _synthetic_chunk(seed: int, lo: int, n: int) -> pd.DataFrame:
    """``n`` users (ids lo …) × 168 hours: home at night, work 9–17 on weekdays, a fix
    jittered by ~300 m each hour; about 2 flagged hours per user (a clinic visit)."""
    gen = np.random.default_rng([seed, lo])
    s, w, nn, e = LARGE_BBOX
    home = np.column_stack([gen.uniform(s, nn, n), gen.uniform(w, e, n)])
    work = np.column_stack([gen.uniform(s, nn, n), gen.uniform(w, e, n)])
    hour = np.arange(HOURS)
    at_work = ((hour % 24 >= 9) & (hour % 24 < 17) & (hour // 24 < 5))
    place = np.where(at_work[None, :, None], work[:, None, :], home[:, None, :])
    pts = place + gen.normal(0, 0.003, size=place.shape)
    return pd.DataFrame({
        "user": np.repeat(np.arange(lo, lo + n, dtype=np.int64), HOURS),
        "time": np.tile(hour * 3600.0 + 60.0, n),
        "lat": np.clip(pts[:, :, 0].ravel(), s, nn),
        "lon": np.clip(pts[:, :, 1].ravel(), w, e),
        "flag": gen.random(n * HOURS) < 2 / HOURS,
    })


def _chunk_task(seed: int, lo: int, n: int, spec):
    cols = PopulationColumns("user", "time", lat="lat", lon="lon", landmark="flag")
    frame, kind = prepare_users(_synthetic_chunk(seed, lo, n), cols)
    return aggregate_frame(frame, kind, spec)


def section_large(users: int, chunk: int, seed: int, workers: int) -> None:
    from dask import delayed
    from dask.distributed import as_completed

    from lmdk_core.population.cluster import connect_client, shut_down

    req = AggregateRequest(statistic=statistic("cells"), width=3600.0, epsilon=1.0,
                           scheme="uniform", start="0", end=str(HOURS * 3600),
                           cell_size=2000.0, bbox=LARGE_BBOX, k=5, landmark_flags=True,
                           noise="exact")
    spec, plan = make_spec(req, "number")
    print(f"large: {users:,} users x {HOURS} hourly windows = {users * HOURS:,} fixes, "
          f"{spec.n_cells} cells, chunks of {chunk:,} users, {workers} workers; "
          f"load {os.getloadavg()[0]:.1f}")
    t0 = time.perf_counter()
    with PeakRSS() as peak:
        client, cluster = connect_client(None, workers)
        futures = None
        try:
            tasks = [delayed(_chunk_task)(seed, lo, min(chunk, users - lo), spec)
                     for lo in range(0, users, chunk)]
            futures = client.compute(tasks)
            total = None
            for done, fut in enumerate(as_completed(futures), start=1):
                part = fut.result()
                total = part if total is None else total + part
                fut.release()
                print(f"  partition {done} of {len(futures)} aggregated "
                      f"({time.perf_counter() - t0:.1f} s)", flush=True)
        finally:
            shut_down(client, cluster, futures, ())
        t1 = time.perf_counter()
        res = finish_release(total, spec, plan, req, compare=False)
        t2 = time.perf_counter()
    users_df = res.partial.users
    print(f"large: aggregated in {t1 - t0:.1f} s (cluster start included), released "
          f"{res.release.released.size:,} values with exact noise in {t2 - t1:.1f} s; "
          f"total {t2 - t0:.1f} s; peak RSS {peak.peak / 2**20:,.0f} MiB; "
          f"{len(users_df):,} users verified, {int(users_df['dropped'].sum()):,} "
          f"landmark contributions dropped, publishable {res.publishable}; "
          f"load {os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", default="real,large")
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--chunk", type=int, default=20_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20261206)
    args = ap.parse_args()
    sections = args.sections.split(",")
    if "real" in sections:
        section_real(args.seed)
    if "large" in sections:
        section_large(args.users, args.chunk, args.seed, args.workers)


if __name__ == "__main__":
    main()
