"""Built-in demo populations, generated deterministically (no files, no network).

Two long tables (one row per user and time, see :mod:`lmdk_core.population.table`),
each with a landmark flag column, for the app's Population page and the tests:

* :func:`demo_population_series` — 200 households × 30 days of hourly electricity
  readings (kWh) from 2024-04-01: a daily profile (night base load, morning and evening
  peaks, more at midday on weekends) scaled by a household-specific level, gamma noise,
  and 2 to 5 real anomalies per household that a privacy officer would mark as
  landmarks — a medical device running at night (2–3 hours), the house empty for a
  hospital stay (5–10 hours) or a party (3 hours); the flag ``event`` is true at every
  hour of an anomaly;
* :func:`demo_population_tracks` — 100 commuters' days (2024-03-05, one point every 5
  minutes at a stay, every minute on the move, a few hundred points each): home, the
  commute to work, work, for about half of them an afternoon visit to a clinic, home
  again. Homes and workplaces lie in the same 4 km square of Paris, so the grid model
  of the whole population stays small. The flag ``visit`` marks the clinic visit and
  the home point nearest 03:00 (the home address at night), as in the one-day demo
  track (:mod:`lmdk_core.data.demo_track`).

Both are built with fixed numpy seeds: the same rows on every machine, in well under a
second.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmdk_core.population.table import PopulationColumns

__all__ = [
    "DEMO_POPULATION_SERIES_COLUMNS",
    "DEMO_POPULATION_TRACK_COLUMNS",
    "DEMO_SERIES_DAYS",
    "DEMO_SERIES_USERS",
    "DEMO_NEIGHBOURHOOD_DAYS",
    "DEMO_NEIGHBOURHOOD_USERS",
    "DEMO_TRACK_USERS",
    "demo_neighbourhood",
    "demo_population_series",
    "demo_population_tracks",
]

DEMO_SERIES_USERS = 200
DEMO_SERIES_DAYS = 30
DEMO_TRACK_USERS = 100
DEMO_NEIGHBOURHOOD_USERS = 1_000
DEMO_NEIGHBOURHOOD_DAYS = 14

#: the columns of :func:`demo_population_series`
DEMO_POPULATION_SERIES_COLUMNS = PopulationColumns(user="household", time="time",
                                                   value="kwh", landmark="event")
#: the columns of :func:`demo_population_tracks`
DEMO_POPULATION_TRACK_COLUMNS = PopulationColumns(user="person", time="time", lat="lat",
                                                  lon="lon", landmark="visit")

_SERIES_SEED = 20240401
_TRACK_SEED = 20240305
_START = "2024-04-01"
_TRACK_DATE = "2024-03-05"


def _profile(hours: np.ndarray) -> np.ndarray:
    """The typical household's hourly consumption (kWh), as in the one-week demo."""
    hod = hours % 24
    weekend = (hours // 24) % 7 >= 5  # 2024-04-01 is a Monday
    base = 0.25 + 0.05 * np.cos(2 * np.pi * (hod - 3) / 24)
    morning = 0.9 * np.exp(-0.5 * ((hod - 7.5) / 1.0) ** 2)
    evening = 1.4 * np.exp(-0.5 * ((hod - 19.5) / 1.6) ** 2)
    midday = np.where(weekend, 0.6, 0.1) * np.exp(-0.5 * ((hod - 13) / 2.0) ** 2)
    return base + morning + evening + midday


def demo_population_series(users: int = DEMO_SERIES_USERS,
                           days: int = DEMO_SERIES_DAYS) -> pd.DataFrame:
    """``users`` households (200) × ``days`` (30) of hourly readings: columns
    ``household`` (h001…), ``time`` (datetime64), ``kwh`` and ``event`` (bool, the
    landmarks); sorted by household and time. The defaults give the Population page's
    demo; :func:`demo_neighbourhood` is a larger draw of the same model."""
    rng = np.random.default_rng(_SERIES_SEED)
    U, T = int(users), int(days) * 24
    hours = np.arange(T)
    level = rng.lognormal(0.0, 0.35, U)  # household size / appliances
    values = level[:, None] * _profile(hours)[None, :] + rng.gamma(2.0, 0.05, (U, T))
    event = np.zeros((U, T), dtype=bool)
    for u in range(U):
        for _ in range(int(rng.integers(2, 6))):
            kind = int(rng.integers(0, 3))
            day = int(rng.integers(0, int(days)))
            if kind == 0:    # medical device at night
                start, n = day * 24 + int(rng.integers(1, 4)), int(rng.integers(2, 4))
                sl = slice(start, start + n)
                values[u, sl] += level[u] * rng.uniform(2.2, 3.0, n)
            elif kind == 1:  # empty house (hospital stay)
                start, n = day * 24 + int(rng.integers(9, 13)), int(rng.integers(5, 11))
                sl = slice(start, min(T, start + n))
                values[u, sl] = rng.uniform(0.08, 0.14, sl.stop - sl.start)
            else:            # party
                start = day * 24 + int(rng.integers(18, 21))
                sl = slice(start, min(T, start + 3))
                values[u, sl] += level[u] * np.array([1.3, 2.8, 1.8])[: sl.stop - sl.start]
            event[u, sl] = True
    time = pd.date_range(_START, periods=T, freq="h").to_numpy()
    return pd.DataFrame({
        "household": np.repeat([f"h{u + 1:0{max(3, len(str(U)))}d}" for u in range(U)], T),
        "time": np.tile(time, U),
        "kwh": np.round(values, 3).ravel(),
        "event": event.ravel(),
    })


def demo_neighbourhood() -> pd.DataFrame:
    """A neighbourhood for population statistics (docs/aggregate.md): 1,000 households ×
    14 days of hourly readings from the same model as :func:`demo_population_series` (2
    to 5 flagged anomalies each). Its hourly total (380 to 1,960 kWh) released at ε = 1
    with k = 5 landmark windows per household and declared bounds 0–3 kWh has a Laplace
    noise scale of 18 kWh (ε_t = 1/6, Δ = 3); with the landmark hours of households with
    more than 5 left out, the released total is a median 3 % from the true one (seeded
    run), where each household's own release is noise."""
    return demo_population_series(DEMO_NEIGHBOURHOOD_USERS, DEMO_NEIGHBOURHOOD_DAYS)


# ------------------------------------------------------------------------ tracks
_ORIGIN = (48.8700, 2.3300)  # south-west corner of the 4 km square (Opéra)
_SQUARE_M = 4000.0
_M_PER_DEG_LAT = 111_320.0
_STAY_STEP_MIN = 5
_SPEED_MS = 6.0  # metro and walking, stops included


def _to_deg(north_m, east_m) -> tuple[np.ndarray, np.ndarray]:
    lat = _ORIGIN[0] + np.asarray(north_m) / _M_PER_DEG_LAT
    lon = _ORIGIN[1] + np.asarray(east_m) / (_M_PER_DEG_LAT * np.cos(np.radians(_ORIGIN[0])))
    return lat, lon


def _one_day(rng: np.random.Generator, places: dict[str, np.ndarray],
             schedule: list[tuple[str, float]]) -> tuple[np.ndarray, ...]:
    """(minute, north, east, flag) of one commuter's day; the clinic stay is flagged."""
    mins, north, east, flag = [], [], [], []
    t = 0.0
    for i, (key, until) in enumerate(schedule):
        p = places[key]
        ts = np.concatenate([[t], np.arange(np.ceil((t + 1) / _STAY_STEP_MIN) * _STAY_STEP_MIN,
                                             until + 1e-9, _STAY_STEP_MIN)])
        mins.append(ts)
        north.append(p[0] + rng.normal(0.0, 9.0, ts.size))
        east.append(p[1] + rng.normal(0.0, 9.0, ts.size))
        flag.append(np.full(ts.size, key == "clinic"))
        if i + 1 < len(schedule):
            q = places[schedule[i + 1][0]]
            dur = float(np.hypot(*(q - p))) / _SPEED_MS / 60.0
            steps = np.arange(1.0, dur, 1.0)
            frac = steps / dur
            mins.append(until + steps)
            north.append(p[0] + frac * (q[0] - p[0]) + rng.normal(0.0, 5.0, steps.size))
            east.append(p[1] + frac * (q[1] - p[1]) + rng.normal(0.0, 5.0, steps.size))
            flag.append(np.zeros(steps.size, dtype=bool))
            t = float(np.ceil(until + dur))
    out = [np.concatenate(a) for a in (mins, north, east, flag)]
    night = int(np.argmin(np.abs(out[0] - 180.0)))  # home at 03:00
    out[3][night] = True
    return tuple(out)


def demo_population_tracks() -> pd.DataFrame:
    """100 commuters' days: columns ``person`` (p001…p100), ``time`` (datetime64),
    ``lat``, ``lon`` and ``visit`` (bool, the landmarks); sorted by person and time."""
    rng = np.random.default_rng(_TRACK_SEED)
    frames = []
    for u in range(DEMO_TRACK_USERS):
        places = {
            "home": rng.uniform(200.0, _SQUARE_M - 200.0, 2),
            "work": rng.uniform(1000.0, 2000.0, 2),    # the business district
            "clinic": rng.uniform(2800.0, 3400.0, 2),  # the hospital quarter
        }
        leave = 7 * 60 + rng.uniform(0, 90)
        back = 17 * 60 + rng.uniform(0, 90)
        schedule = [("home", leave), ("work", back)]
        if rng.random() < 0.5:
            stay = rng.uniform(40, 90)
            schedule += [("clinic", back + 30 + stay)]
        schedule += [("home", 23 * 60 + 55)]
        m, n, e, f = _one_day(rng, places, schedule)
        lat, lon = _to_deg(n, e)
        seconds = np.round(m * 60.0) + rng.integers(0, 20, m.size)
        k = np.arange(m.size)
        seconds = np.maximum.accumulate(seconds - k) + k  # jitter keeps times increasing
        frames.append(pd.DataFrame({
            "person": f"p{u + 1:03d}",
            "time": pd.Timestamp(_TRACK_DATE) + pd.to_timedelta(seconds, unit="s"),
            "lat": np.round(lat, 6), "lon": np.round(lon, 6), "visit": f,
        }))
    return pd.concat(frames, ignore_index=True)
