"""Each user's landmark set: from the flag column, or discovered with the app's detectors.

Discovery uses :mod:`lmdk_core.landmarks.discovery` with the parameters of the configuration's
``extra.discovery`` object (defaults = the app's defaults):

* **tracks** — stay points (Li et al., ACM GIS 2008; Hariharan & Toyama, Project
  Lachesis, GIScience 2004) within ``distance_m`` (200) metres for at least
  ``duration_min`` (20) minutes, back-to-back stays at one place merged. With
  ``stays_as_events`` (true, the default) each stay is released as ONE landmark event
  (:func:`discover_stays`; docs/stays.md); false makes every fix of a stay a landmark of
  its own. Times that are numbers are read as seconds.
* **series** — timestamps more than ``k`` (5) robust standard deviations from a rolling
  median of ``window`` timestamps (default null: a day of readings from the user's
  sampling interval, :func:`lmdk_core.landmarks.discovery.sampling_window`), after removing the
  seasonal profile (hour of the day or of the week, ``season`` 'auto') when the times
  are dates, and sustained level shifts. Unlike the Timeline's suggestions, which a
  person reviews, the batch applies every event found (no cap): each is protected.
  With ``stays_as_events`` (true) every run of two or more consecutive landmark
  readings — found, or flagged in the table — is released as ONE landmark event
  (docs/series-events.md), so a declared k counts runs, not readings. A track's runs of
  two or more consecutive *flagged* fixes are likewise released as one stay each (one
  release of the run's centroid, docs/stays.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.engine.run_events import runs_of
from lmdk_core.engine.stay_events import stay_members
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.setting_limits import check_setting
from lmdk_core.landmarks.discovery import (
    DEFAULT_DEVIATION_K,
    DEFAULT_STAY_DISTANCE_M,
    DEFAULT_STAY_MINUTES,
    detect_stay_points,
    series_suggestions,
    suggested_timestamps,
)

__all__ = ["DiscoverySettings", "UserLandmarks", "discover_landmarks", "discover_stays",
           "find_user_landmarks"]


@dataclass(frozen=True)
class DiscoverySettings:
    """Parameters of the detectors (see the module docstring)."""

    window: int | None = None  # None: from the sampling interval
    k: float = DEFAULT_DEVIATION_K
    season: str = "auto"
    distance_m: float = DEFAULT_STAY_DISTANCE_M
    duration_min: float = DEFAULT_STAY_MINUTES
    stays_as_events: bool = True

    @classmethod
    def from_extra(cls, extra: dict | None) -> DiscoverySettings:
        """From a configuration's ``extra.discovery`` (absent keys keep the defaults)."""
        spec = (extra or {}).get("discovery") if isinstance(extra, dict) else None
        if spec is None:
            return cls()
        if not isinstance(spec, dict):
            raise InputError("config: extra.discovery must be an object {...}")
        _check_discovery_spec(spec, list(cls.__dataclass_fields__))
        return cls(**spec)


def _check_discovery_spec(spec: dict, known: list[str]) -> None:
    """InputError naming the first unknown key or out-of-range value of a configuration's
    ``extra.discovery``."""
    unknown = sorted(set(spec) - set(known))
    if unknown:
        raise InputError(f"config: extra.discovery has an unknown key {unknown[0]!r}; "
                         f"known: {', '.join(known)}")
    # the same ranges as the app's widgets and lmdk suggest (setting_limits.LIMITS)
    for name, limit in (("k", "spike_k"), ("distance_m", "stay_distance"),
                        ("duration_min", "stay_minutes"), ("window", "spike_window")):
        if spec.get(name) is not None:
            check_setting(limit, spec[name], label=f"config: extra.discovery.{name}")
    if not isinstance(spec.get("stays_as_events", True), bool):
        raise InputError("config: extra.discovery.stays_as_events must be true or false")
    if spec.get("season", "auto") not in ("auto", "day", "week", "none"):
        raise InputError("config: extra.discovery.season must be auto, day, week or none")


def _minutes(time: np.ndarray, kind: str) -> np.ndarray:
    if kind == "datetime":
        t = np.asarray(time, dtype="datetime64[ns]")
        return (t - t[0]).astype(np.int64) / 6e10
    t = np.asarray(time, dtype=float)
    return (t - t[0]) / 60.0


def discover_stays(time: np.ndarray, data: np.ndarray, kind: str,
                   settings: DiscoverySettings) -> list[tuple[int, int]]:
    """The stays of one user's track ``data`` (T, 2) as inclusive ranges, each to be
    released as one landmark event (docs/stays.md)."""
    stays = detect_stay_points(data[:, 0], data[:, 1], _minutes(time, kind),
                               distance_threshold_m=settings.distance_m,
                               time_threshold_min=settings.duration_min)
    return [s.span for s in stays]


def discover_landmarks(time: np.ndarray, data: np.ndarray, kind: str,
                       settings: DiscoverySettings) -> np.ndarray:
    """Landmark timestamps (0-based indices into the user's sorted rows) of one user:
    ``data`` is the value vector (T,) of a series or the ``[lat, lon]`` rows (T, 2) of a
    track; ``kind`` the time kind ('number' or 'datetime')."""
    if data.ndim == 2:
        stays = detect_stay_points(data[:, 0], data[:, 1], _minutes(time, kind),
                                   distance_threshold_m=settings.distance_m,
                                   time_threshold_min=settings.duration_min)
        return np.asarray(suggested_timestamps(stays), dtype=int)
    found = series_suggestions(time, kind, data, window=settings.window, k=settings.k,
                               season=settings.season, max_events=None).found
    return np.asarray(suggested_timestamps(found), dtype=int)


@dataclass(frozen=True)
class UserLandmarks:
    """One user's landmarks as its release uses them: ``landmarks`` (0-based indices into
    its sorted rows) and ``stays`` (inclusive ranges, each released as one landmark
    event; empty when the landmarks are single timestamps)."""

    landmarks: np.ndarray
    stays: list[tuple[int, int]]


def find_user_landmarks(time: np.ndarray, data: np.ndarray, kind: str, settings: DiscoverySettings,
                   flags: np.ndarray | None = None) -> UserLandmarks:
    """The landmarks of one user: its ``flags`` when the table has a flag column; else,
    for a track with ``settings.stays_as_events``, its stays (docs/stays.md) when it has
    any; else the detectors' finds (:func:`discover_landmarks`). With
    ``settings.stays_as_events`` the runs of two or more consecutive landmarks of a series
    (flagged or found), and of a track's flagged fixes, are its groups: each released as
    one landmark event (docs/series-events.md; a track's as a stay, docs/stays.md)."""
    if flags is None and data.ndim == 2 and settings.stays_as_events:
        stays = discover_stays(time, data, kind, settings)
        if stays:
            return UserLandmarks(stay_members(stays), stays)
    lm = (np.flatnonzero(flags) if flags is not None
          else discover_landmarks(time, data, kind, settings))
    if settings.stays_as_events and (data.ndim == 1 or flags is not None):
        # a series' runs of consecutive landmarks (flagged or found), a track's runs of
        # consecutive flagged fixes: one event each (docs/series-events.md, docs/stays.md)
        return UserLandmarks(lm, runs_of(lm))
    return UserLandmarks(lm, [])
