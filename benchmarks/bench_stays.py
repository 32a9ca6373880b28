"""Displacement on real tracks with the suggested stays accepted at the defaults.

For every track under ``tests/data/real/`` (CSV with lat/lon columns, GPX) that has
times: the stays ``lmdk suggest`` finds at its defaults (200 m, 20 minutes, back-to-back
stays merged) are accepted as they are, and the track is released with every other
setting at its default (ε = 1, r = 100 m, Uniform) — once with each stay protected as
one landmark event (the default, docs/stays.md) and once with every fix of every stay a
landmark (for comparison). Printed: the median and the largest displacement over
the track's fixes, the median over 5 seeds (0–4) of each figure, and the largest
displacement of any seed.

Run: python benchmarks/bench_stays.py [files...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from lmdk_core.data.track_loading import load_track
from lmdk_core.engine.release import release_trajectory
from lmdk_core.foundation.errors import InputError
from lmdk_core.landmarks.discovery import stay_points, suggested_timestamps

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "data" / "real"
EPSILON, RADIUS, SCHEME, SEEDS = 1.0, 100.0, "uniform", range(5)


def track_files() -> list[Path]:
    """Track fixtures: GPX, GeoLife PLT, FIT, TCX, KML and GeoJSON files, and CSV files
    whose header names a latitude and a longitude (``lat,lon``, ``latitude,longitude``,
    ``X;Y`` …: lmdk_core.data.track_columns); not the files kept to be refused."""
    from lmdk_core.data.series import csv_columns
    from lmdk_core.data.track_columns import find_track_columns

    out = []
    for p in sorted(REAL.rglob("*")):
        if "refused" in p.parts:
            continue
        if p.suffix.lower() in (".gpx", ".plt", ".fit", ".tcx", ".kml", ".geojson"):
            out.append(p)
        elif p.suffix.lower() == ".csv" and find_track_columns(csv_columns(p)) is not None:
            out.append(p)
    return out


def displacement(track, landmarks, stays) -> tuple[float, float, float]:
    """Median over seeds of the median / largest displacement (km), and the largest
    displacement of any seed (km)."""
    med, mx = [], []
    for seed in SEEDS:
        rel = release_trajectory(track.lat, track.lon, landmarks, epsilon=EPSILON, radius=RADIUS,
                                 scheme=SCHEME, seed=seed, stays=stays)
        assert rel.verdict.private, rel.verdict.summary()
        med.append(float(np.nanmedian(rel.errors)) / 1000)
        mx.append(float(np.nanmax(rel.errors)) / 1000)
    return float(np.median(med)), float(np.median(mx)), float(np.max(mx))


def main(paths: list[Path]) -> None:
    print(f"ε = {EPSILON:g}, r = {RADIUS:g} m, {SCHEME}; suggested stays accepted as they are; "
          f"median over seeds {SEEDS.start}-{SEEDS.stop - 1} (km)")
    print(f"{'track':42s} {'points':>6s} {'days':>5s} {'stays':>5s} {'fixes':>6s} | "
          f"{'per-fix: median':>15s} {'max':>8s} | {'as events: median':>17s} {'max':>6s} "
          f"{'worst':>6s}")
    for p in paths:
        name = str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)
        try:
            track = load_track(p, filename=p.name, name=p.name)
            stays = stay_points(track)
        except InputError as exc:
            print(f"{name:42s} skipped: {exc}")
            continue
        if not stays:
            print(f"{name:42s} {len(track):6d}   no stay at the defaults")
            continue
        days = (np.asarray(track.time[-1], "datetime64[s]")
                - np.asarray(track.time[0], "datetime64[s]")).astype(float) / 86400
        fixes = suggested_timestamps(stays)
        old = displacement(track, fixes, None)
        new = displacement(track, [], [s.span for s in stays])
        print(f"{name:42s} {len(track):6d} {days:5.1f} {len(stays):5d} {len(fixes):6d} | "
              f"{old[0]:15.1f} {old[1]:8.0f} | {new[0]:17.2f} {new[1]:6.1f} {new[2]:6.1f}")


if __name__ == "__main__":
    main([Path(a) for a in sys.argv[1:]] or track_files())
