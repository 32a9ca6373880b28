"""The utility line on real data: expected error against the data's own scale.

For every track under ``tests/data/real/`` with times: the stays ``lmdk suggest`` finds
at its defaults are accepted as they are, and the utility of the release at the other
defaults (ε = 1, r = 100 m, Uniform) is printed twice — every fix of every stay a
landmark, and each stay one landmark event (docs/stays.md). For every series: the
utility at ε = 1, Uniform, no landmarks and with the series' suggested landmarks (the
detector's defaults), at Δf = 1 (the CLI's default) — the expected MAE Δf/ε_t next to
the series' interquartile range. The figures are expectations (lmdk_core.decision.utility): no
noise is drawn, so there is no seed.

Run: python benchmarks/bench_utility.py
"""

from __future__ import annotations

from pathlib import Path

from lmdk_core.data.series import load_series_csv
from lmdk_core.data.track_loading import load_track
from lmdk_core.decision.utility import format_amount, release_utility, utility_verdict
from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.release import release_trajectory
from lmdk_core.foundation.errors import InputError
from lmdk_core.landmarks.discovery import deviation_suggestions, stay_points, suggested_timestamps

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "data" / "real"
EPSILON, RADIUS, SENSITIVITY = 1.0, 100.0, 1.0


def _track_line(name: str, p: Path) -> str:
    try:
        track = load_track(p, filename=p.name, name=p.name)
        stays = stay_points(track)
    except InputError as exc:
        return f"{name:44s} skipped: {exc}"
    cells = []
    fixes = suggested_timestamps(stays) if stays else []
    for lm, st in ((fixes, None), ([], [s.span for s in stays] or None)):
        rel = release_trajectory(track.lat, track.lon, lm, epsilon=EPSILON, radius=RADIUS,
                                 scheme="uniform", seed=0, stays=st)
        uv = release_utility(rel, radius=RADIUS)
        cells.append(f"{format_amount(uv.typical, 'm'):>9s} {uv.ratio:7.2f} {uv.label:>10s}")
    extent = release_utility(rel, radius=RADIUS).scale.value
    return (f"{name:44s} {len(track):6d} {len(stays):5d} {format_amount(extent, 'm'):>9s} | "
            + " | ".join(cells))


#: the time and value column of each series fixture (tests/data/real/README.md)
SERIES = {"bitcoin.csv": ("date", "price"), "brent-crude-oil.csv": ("day", "DPB"),
          "co2-mauna-loa-weekly.csv": ("date", "co2"), "nile.csv": ("year", "volume"),
          "occupancy.csv": ("time", "V1"), "run-log.csv": ("time", "Pace"),
          "uk-coal-employment.csv": ("Year", "Employment"),
          "water-flow.csv": ("Time", "Water flow [l/s]")}


def _series_line(name: str, p: Path) -> str:
    cols = SERIES.get(p.name)
    if cols is None:
        return f"{name:44s} skipped: a copy of another fixture or not a series"
    try:
        s = load_series_csv(p, name=p.name, time_col=cols[0], value_col=cols[1])
    except InputError as exc:
        return f"{name:44s} skipped: {exc}"
    cells = []
    suggested = [d.timestamp for d in deviation_suggestions(s.values)]
    for lm in ([], suggested):
        eps = allocate("uniform", len(s.values), lm, EPSILON)
        uv = utility_verdict(s.values, eps, sensitivity=SENSITIVITY, epsilon=EPSILON,
                             n_landmarks=len(lm), unit="")
        name_col = f"{name} ({cols[1]})"
        cells.append(f"{len(lm):4d} {uv.typical:9.3g} {uv.ratio:8.3g} {uv.label:>10s}")
    sc = uv.scale
    return (f"{name_col:44s} {len(s.values):6d} {sc.value:9.3g} {sc.name[:12]:>12s} | "
            + " | ".join(cells))


def main() -> None:
    print(f"Tracks: ε = {EPSILON:g}, r = {RADIUS:g} m, Uniform, suggested stays accepted; "
          "typical expected displacement, its ratio to the extent, the level")
    print(f"{'track':44s} {'points':>6s} {'stays':>5s} {'extent':>9s} | "
          f"{'per-fix: typical':>17s} {'ratio':>7s}... | {'as events: typical':>18s} ...")
    for p in sorted(REAL.rglob("*")):
        low = p.suffix.lower()
        is_track = low in (".gpx", ".plt") or (low == ".csv" and "geolife" in p.parts)
        if is_track:
            print(_track_line(str(p.relative_to(REAL)), p))
    print()
    print(f"Series: ε = {EPSILON:g}, Δf = {SENSITIVITY:g}, Uniform; |L|, typical expected "
          "MAE, its ratio to the spread, the level — without landmarks | with the suggested")
    for p in sorted((REAL / "series").glob("*.csv")):
        print(_series_line(str(p.relative_to(REAL)), p))


if __name__ == "__main__":
    main()
