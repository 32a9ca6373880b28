"""Built-in demo trajectory: one day of a person in Paris, generated deterministically.

Home near Montmartre, work near the Opéra, lunch nearby, an afternoon visit to a clinic
near the Gare du Nord, home again, an evening out by the Canal Saint-Martin and home
for the night. Stays are small GPS jitter around a place (a point every 5 minutes);
moves follow a few real street / metro waypoints at walking (1.3 m/s) or metro
(≈ 8 m/s, stops included) speed with a point every minute. No files, no network: the
same points on every machine (fixed numpy seed, one date, 2024-03-05, local time).

The notable places are exposed as :data:`DEMO_PLACES` (and as the track's waypoints,
like a GPX file's), the default landmarks as :func:`demo_track_landmarks`: home in the
middle of the night and the clinic visit.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk_core.data.track import Track, Waypoint
from lmdk_core.foundation.geodesy import distance_m

__all__ = [
    "DEMO_DATE",
    "DEMO_PLACES",
    "DemoPlace",
    "demo_track",
    "demo_track_events",
    "demo_track_landmarks",
]

DEMO_DATE = "2024-03-05"
_SEED = 20240305
_WALK_MS = 1.3  # walking speed, m/s
_METRO_MS = 8.0  # metro, average including stops, m/s
_STAY_STEP_MIN = 5
_MOVE_STEP_MIN = 1
_STAY_JITTER_M = 9.0  # GPS scatter indoors (1-σ per axis)
_MOVE_JITTER_M = 5.0


@dataclass(frozen=True)
class DemoPlace:
    """A place of the demo day (where the person stays)."""

    key: str
    name: str
    lat: float
    lon: float


DEMO_PLACES: dict[str, DemoPlace] = {
    p.key: p
    for p in [
        DemoPlace("home", "Home (Montmartre, rue des Abbesses)", 48.88530, 2.33650),
        DemoPlace("work", "Work (near the Opéra)", 48.87110, 2.33250),
        DemoPlace("lunch", "Lunch (rue Sainte-Anne)", 48.86760, 2.33550),
        DemoPlace("clinic", "Clinic (near the Gare du Nord)", 48.88200, 2.35170),
        DemoPlace("evening", "Dinner and drinks (Canal Saint-Martin)", 48.87160, 2.36500),
    ]
}

# Routes between places: (lat, lon, mode used to reach this waypoint).
_W, _M = "walk", "metro"
_ROUTES: dict[tuple[str, str], list[tuple[float, float, str]]] = {
    ("home", "work"): [
        (48.88438, 2.33842, _W),  # Abbesses (line 12)
        (48.88211, 2.33716, _M),  # Pigalle
        (48.87838, 2.33747, _M),  # Saint-Georges
        (48.87613, 2.33796, _M),  # Notre-Dame-de-Lorette
        (48.87634, 2.33278, _M),  # Trinité
        (48.87450, 2.33310, _W),  # rue de la Chaussée-d'Antin
        (48.87280, 2.33270, _W),
    ],
    ("work", "lunch"): [
        (48.87000, 2.33300, _W),  # avenue de l'Opéra
        (48.86880, 2.33450, _W),
    ],
    ("work", "clinic"): [
        (48.87303, 2.33372, _W),  # Chaussée d'Antin-La Fayette (line 7)
        (48.87492, 2.34022, _M),  # Le Peletier
        (48.87593, 2.34452, _M),  # Cadet
        (48.87717, 2.34871, _M),  # Poissonnière
        (48.87900, 2.34900, _W),  # rue du Faubourg-Poissonnière
        (48.88120, 2.35050, _W),
    ],
    ("clinic", "home"): [
        (48.88360, 2.35000, _W),  # Barbès
        (48.88290, 2.34400, _W),  # boulevard de Rochechouart, Anvers
        (48.88400, 2.34050, _W),  # rue d'Orsel
        (48.88460, 2.33850, _W),  # place des Abbesses
    ],
    ("home", "evening"): [
        (48.88400, 2.33750, _W),
        (48.88211, 2.33716, _W),  # Pigalle (line 2)
        (48.88284, 2.34400, _M),  # Anvers
        (48.88375, 2.34967, _M),  # Barbès
        (48.88440, 2.36040, _M),  # La Chapelle
        (48.88430, 2.36760, _M),  # Stalingrad
        (48.88100, 2.36950, _W),  # quai de Valmy
        (48.87750, 2.36800, _W),
        (48.87400, 2.36500, _W),
    ],
}

# The day: stay at a place until a clock time ("HH:MM"), then move to the next one.
_SCHEDULE: list[tuple[str, str]] = [
    ("home", "08:05"),
    ("work", "12:30"),
    ("lunch", "13:25"),
    ("work", "15:25"),
    ("clinic", "16:50"),
    ("home", "19:25"),
    ("evening", "22:55"),
    ("home", "23:59"),
]


def _route(a: str, b: str) -> list[tuple[float, float, str]]:
    """Waypoints from place a to place b (reversed routes work both ways)."""
    pa, pb = DEMO_PLACES[a], DEMO_PLACES[b]
    if (a, b) in _ROUTES:
        mid = _ROUTES[(a, b)]
        pts = [(pa.lat, pa.lon, _W), *mid, (pb.lat, pb.lon, _W)]
        return pts
    mid = _ROUTES[(b, a)]
    # reversed: the mode of a leg belongs to its far end, so shift the modes by one
    coords = [(pb.lat, pb.lon), *[(la, lo) for la, lo, _ in mid], (pa.lat, pa.lon)]
    modes = [_W, *[m for _, _, m in mid], _W]
    rev_coords = coords[::-1]
    rev_modes = [_W, *modes[:0:-1]]
    return [(la, lo, m) for (la, lo), m in zip(rev_coords, rev_modes, strict=True)]


def _offsets(rng: np.random.Generator, n: int, sigma_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian GPS error in metres (north, east) for n points."""
    return rng.normal(0.0, sigma_m, n), rng.normal(0.0, sigma_m, n)


def _metres_to_deg(lat: np.ndarray, north: np.ndarray, east: np.ndarray):
    dlat = north / 111_320.0
    dlon = east / (111_320.0 * np.cos(np.radians(lat)))
    return dlat, dlon


def _move(route, t0: float, rng: np.random.Generator) -> tuple[list, float]:
    """Points every minute along a route leaving at minute t0; returns (rows, arrival)."""
    lat = np.array([p[0] for p in route])
    lon = np.array([p[1] for p in route])
    seg = distance_m(lat[:-1], lon[:-1], lat[1:], lon[1:])
    speed = np.array([_METRO_MS if p[2] == _M else _WALK_MS for p in route[1:]])
    seg_min = seg / speed / 60.0
    cum = np.concatenate([[0.0], np.cumsum(seg_min)])
    total = float(cum[-1])
    ts = np.arange(_MOVE_STEP_MIN, total, _MOVE_STEP_MIN, dtype=float)
    k = np.clip(np.searchsorted(cum, ts, side="right") - 1, 0, seg.size - 1)
    frac = (ts - cum[k]) / np.maximum(seg_min[k], 1e-9)
    la = lat[k] + frac * (lat[k + 1] - lat[k])
    lo = lon[k] + frac * (lon[k + 1] - lon[k])
    n, e = _offsets(rng, ts.size, _MOVE_JITTER_M)
    dla, dlo = _metres_to_deg(la, n, e)
    rows = [(t0 + t, a, b) for t, a, b in zip(ts, la + dla, lo + dlo, strict=True)]
    return rows, t0 + total


def _clock(hhmm: str) -> float:
    h, m = hhmm.split(":")
    return 60.0 * int(h) + int(m)


def _generate() -> tuple[pd.DataFrame, dict[str, list[tuple[int, int]]]]:
    """The day's points (minute, lat, lon, place) and the index ranges of every stay."""
    rng = np.random.default_rng(_SEED)
    rows: list[tuple[float, float, float, str]] = []
    stays: dict[str, list[tuple[int, int]]] = {k: [] for k in DEMO_PLACES}
    t = 0.0
    for i, (key, until) in enumerate(_SCHEDULE):
        place = DEMO_PLACES[key]
        end = _clock(until)
        # first stay point at the arrival time, then on the 5-minute grid
        ts = [t] + list(np.arange(np.ceil((t + 1) / _STAY_STEP_MIN) * _STAY_STEP_MIN,
                                  end + 1e-9, _STAY_STEP_MIN))
        n, e = _offsets(rng, len(ts), _STAY_JITTER_M)
        dla, dlo = _metres_to_deg(np.full(len(ts), place.lat), n, e)
        first = len(rows)
        rows += [(float(m), place.lat + a, place.lon + b, key)
                 for m, a, b in zip(ts, dla, dlo, strict=True)]
        stays[key].append((first, len(rows) - 1))
        if i + 1 < len(_SCHEDULE):
            moved, t = _move(_route(key, _SCHEDULE[i + 1][0]), end, rng)
            rows += [(m, a, b, "") for m, a, b in moved]
            t = float(np.ceil(t))
    df = pd.DataFrame(rows, columns=["minute", "lat", "lon", "place"])
    # real clocks are not exact: a few seconds of jitter, order kept
    seconds = df["minute"].to_numpy() * 60.0 + rng.integers(0, 20, len(df))
    df["time"] = pd.Timestamp(DEMO_DATE) + pd.to_timedelta(np.round(seconds), unit="s")
    return df, stays


def demo_track() -> Track:
    """The demo day (~400 points from 00:00 to 23:59) with its places as waypoints."""
    df, _ = _generate()
    lat = np.round(df["lat"].to_numpy(), 6)
    lon = np.round(df["lon"].to_numpy(), 6)
    waypoints = []
    for p in DEMO_PLACES.values():
        d = distance_m(lat, lon, p.lat, p.lon)
        i = int(np.argmin(d))
        waypoints.append(Waypoint(p.name, p.lat, p.lon, i, float(d[i])))
    return Track(lat=lat, lon=lon, time=df["time"].to_numpy(dtype="datetime64[ns]"),
                 time_kind="datetime", name="A day in Paris (demo)", waypoints=waypoints)


def demo_track_events() -> list[tuple[int, str]]:
    """The default landmarks with what happened there: home at 03:00 (the home address
    at night) and the clinic visit (arrival, middle, departure)."""
    return list(_events())


@functools.cache
def _events() -> tuple[tuple[int, str], ...]:
    """:func:`demo_track_events`, computed once per process (the demo day is generated
    from a fixed seed; the Map shows these events on every rerun of the demo)."""
    df, stays = _generate()
    minute = df["minute"].to_numpy()
    night = int(np.searchsorted(minute, _clock("03:00")))
    c0, c1 = stays["clinic"][0]
    cm = (c0 + c1) // 2
    label = {i: pd.Timestamp(df["time"].iloc[i]).strftime("%H:%M") for i in (night, c0, cm, c1)}
    return (
        (night, f"{label[night]} - at home in the middle of the night"),
        (c0, f"{label[c0]} - arrives at the clinic"),
        (cm, f"{label[cm]} - at the clinic"),
        (c1, f"{label[c1]} - leaves the clinic"),
    )


def demo_track_landmarks() -> list[int]:
    """The default landmarks of the demo day, as 0-based timestamps."""
    return [t for t, _ in demo_track_events()]
