"""What averaging consecutive released points recovers, on the real tracks (issue 37 §6).

For every track under ``tests/data/real/gps/`` and ``tests/data/real/geolife/`` with at
least 100 points: the verdict of ``lmdk geo-release`` (the theorem plus landmark TPL
under the grid model estimated from the track) and the figure of its ``averaging:``
line (:func:`lmdk_core.decision.averaging.averaging_effect`: the median error of single
points and after the best moving average, 8 simulated releases of seed 20221017) at
ε = 3, r = 100 m, Uniform, k = 5; next to it what a centred moving average of that
window achieves on one independent release (seed 99) — the check the tests make — and
the time the figure takes.

Run: python benchmarks/bench_averaging.py
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from lmdk_core.data.track_loading import load_track
from lmdk_core.decision.averaging import averaging_effect, moving_average
from lmdk_core.decision.comparison import track_release_fn
from lmdk_core.decision.release_verdict import release_leakage, release_verdict
from lmdk_core.engine.release import release_trajectory
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import distance_m
from lmdk_core.leakage.model import correlation_from_spec

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "data" / "real"
EPSILON, RADIUS, K = 3.0, 100.0, 5


def main() -> None:
    paths = sorted((REAL / "gps").glob("*")) + sorted((REAL / "geolife").glob("*.csv"))
    print(f"ε = {EPSILON:g}, r = {RADIUS:g} m, Uniform, k = {K}")
    print(f"{'track':<40} {'T':>6} {'verdict':>7} {'TPL':>6} {'single':>8} {'w':>4} "
          f"{'stated':>8} {'measured':>9} {'time':>6}")
    for path in paths:
        try:
            track = load_track(str(path), filename=str(path))
        except InputError:
            continue
        if len(track) < 100:
            continue
        rel = release_trajectory(track.lat, track.lon, [], epsilon=EPSILON, radius=RADIUS,
                                 scheme="uniform", seed=99, max_landmarks=K)
        pv = release_verdict(rel, release_leakage(rel, correlation_from_spec(None, track)))
        t0 = time.perf_counter()
        eff = averaging_effect(track_release_fn(track.lat, track.lon, [], radius=RADIUS,
                                                max_landmarks=K), "uniform", EPSILON)
        took = time.perf_counter() - t0
        la, lo = moving_average(rel.released[:, 0], rel.released[:, 1], eff.window)
        measured = float(np.median(distance_m(track.lat, track.lon, la, lo)))
        tpl = "—" if pv.landmark_tpl_max is None else f"{pv.landmark_tpl_max:.3g}"
        print(f"{path.name:<40} {len(track):>6,} {pv.colour:>7} {tpl:>6} "
              f"{eff.single_m:>7.0f}m {eff.window:>4} {eff.averaged_m:>7.0f}m "
              f"{measured:>8.0f}m {took:>5.2f}s")


if __name__ == "__main__":
    main()
