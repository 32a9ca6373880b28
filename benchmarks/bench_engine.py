"""Engine figures for the foundation issue: accuracy of the releases and their speed.

Run: python benchmarks/bench_engine.py
"""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import numpy as np

from lmdk_core.data.track_loading import load_track
from lmdk_core.engine.release import release_series, release_trajectory

ROOT = Path(__file__).resolve().parents[1]


def timed(fn, repeat: int = 5):
    """Best wall time of ``repeat`` calls and the peak traced memory of one call."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, best, peak


def main() -> None:
    print("== accuracy ==")
    rel = release_series(np.full(4000, 5.0), [], epsilon=0.5, scheme="uniform", mechanism="laplace",
                         sensitivity=1.0, seed=0)
    print(f"Laplace, 4,000 constant values, eps=0.5, df=1: MAE {rel.metrics()['mae']:.3f} "
          f"(expected 2.000)")
    track = load_track(ROOT / "assets" / "sample_tracks" / "cerknicko-jezero.gpx")
    for seed in range(3):
        rel = release_trajectory(track.lat, track.lon, [], epsilon=1.0, radius=100.0,
                                 scheme="uniform", seed=seed)
        m = rel.metrics()
        print(f"GPX cerknicko-jezero ({len(track)} pts), eps=1, r=100 m, seed {seed}: mean "
              f"displacement {m['mae']:.1f} m (expected 200.0), median {m['median_error']:.1f} "
              f"(expected 167.8), p95 {m['p95_error']:.1f} (expected 474.4)")
    print("\n== speed (best of 5; peak traced memory) ==")
    gen = np.random.default_rng(0)
    for T in (2_000, 10_000):
        x = np.cumsum(gen.normal(0, 1, T))
        lm = sorted(gen.choice(T, 20, replace=False).tolist())
        for scheme in ("uniform", "skip", "adaptive"):
            _, t, peak = timed(lambda x=x, lm=lm, s=scheme: release_series(x, lm, epsilon=1.0,
                                                                           scheme=s, seed=1))
            print(f"release_series T={T:>6,} {scheme:<8}: {t * 1e3:7.1f} ms, "
                  f"peak {peak / 2**20:5.1f} MB")
        lat = 48.85 + np.cumsum(gen.normal(0, 1e-4, T))
        lon = 2.35 + np.cumsum(gen.normal(0, 1e-4, T))
        for scheme in ("uniform", "adaptive"):
            _, t, peak = timed(lambda s=scheme, lat=lat, lon=lon, lm=lm:
                               release_trajectory(lat, lon, lm, epsilon=1.0, radius=100.0, scheme=s,
                                                  seed=1))
            print(f"release_trajectory T={T:>6,} {scheme:<8}: {t * 1e3:7.1f} ms, "
                  f"peak {peak / 2**20:5.1f} MB")


if __name__ == "__main__":
    main()
