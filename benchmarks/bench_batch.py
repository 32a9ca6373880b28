"""Population batch on Dask: times as multiples of the floor, peak memory, speed-up.

    python benchmarks/bench_batch.py                      # 10,000 users x 8,760 hours
    python benchmarks/bench_batch.py --users 1000 --tracks 1000   # scaled down

Series: a Parquet long table (user, time, value, landmark flag; ~5 landmarks per user),
released with Uniform, Skip and Adaptive (Laplace, numpy noise: ``--noise fast``; no
landmark TPL column) on a LocalCluster of 2 workers, Parquet out. The **floor** is what
any release must do: read the Parquet, draw as many numpy Laplace variates, write the
released column as Parquet. Peak RSS is the largest sum over the driver and its worker
processes (sampled every 0.2 s). The exact OpenDP path is timed on a slice of the users
(its cost per value is printed). Tracks: Planar Laplace, Uniform and Adaptive.
Prints timings only (no assertions); note the machine's load when reading them.
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

from lmdk_core.config import ViewConfig  # noqa: E402
from lmdk_core.population.dask_driver import run_batch  # noqa: E402
from lmdk_core.population.table import PopulationColumns  # noqa: E402


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


def timed(cfg, src, cols, out, audit, **kw):
    with PeakRSS() as mem:
        t0 = time.perf_counter()
        res = run_batch(cfg, src, cols, out, audit, **kw)
        dt = time.perf_counter() - t0
    return dt, mem.peak, res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--hours", type=int, default=8_760)
    ap.add_argument("--tracks", type=int, default=10_000)
    ap.add_argument("--points", type=int, default=2_000)
    ap.add_argument("--exact-users", type=int, default=20)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        src = d / "series.parquet"
        make_series(src, args.users, args.hours)
        n = args.users * args.hours
        print(f"series: {args.users:,} users x {args.hours:,} = {n / 1e6:.1f} M values, "
              f"{src.stat().st_size / 1e6:.0f} MB Parquet")
        fl = floor(src, d / "floor.parquet")
        print(f"floor (read + {n / 1e6:.1f} M numpy Laplace + write): {fl:.1f} s")
        cols = PopulationColumns(user="user", time="time", value="value", landmark="landmark")
        kw = dict(seed=1, noise="fast", leakage=False)
        for scheme in ("uniform", "skip", "adaptive"):
            dt, peak, res = timed(ViewConfig(scheme=scheme), src, cols, d / "r.parquet",
                                  d / "a.parquet", workers=2, **kw)
            print(f"{scheme:9s} 2 workers: {dt:6.1f} s = {dt / fl:4.1f} x floor, peak RSS "
                  f"{peak / 2**30:.2f} GiB, {res.partitions} partitions, "
                  f"not private: {res.not_private}")
        for scheme in ("uniform", "adaptive"):
            dt1, peak1, _ = timed(ViewConfig(scheme=scheme), src, cols, d / "r.parquet",
                                  d / "a.parquet", workers=1, **kw)
            dt2, _, _ = timed(ViewConfig(scheme=scheme), src, cols, d / "r.parquet",
                              d / "a.parquet", workers=2, **kw)
            print(f"{scheme:9s} 1 worker: {dt1:6.1f} s, 2 workers: {dt2:6.1f} s, speed-up "
                  f"{dt1 / dt2:.2f}x (peak RSS with 1 worker {peak1 / 2**30:.2f} GiB)")
        small = d / "small.parquet"
        make_series(small, args.exact_users, args.hours)
        m = args.exact_users * args.hours
        for scheme in ("uniform", "adaptive"):
            dt, _, _ = timed(ViewConfig(scheme=scheme), small, cols, d / "r.parquet",
                             d / "a.parquet", workers=2, seed=1, noise="exact", leakage=False)
            print(f"exact OpenDP noise, {scheme}, {args.exact_users} users ({m / 1e6:.2f} M "
                  f"values): {dt:.1f} s = {dt / m * 1e6:.1f} µs per value (2 workers)")
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
            print(f"Planar Laplace {scheme:9s}: {dt:6.1f} s, peak RSS {peak / 2**30:.2f} GiB")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
