"""A trajectory as every page, command and release reads it: points t = 0..T-1 with
their latitude, longitude and (possibly missing) time, cut into pieces, with the
waypoints a file offered as landmark candidates and what the loader did (notes) or the
user must check (warnings).

Files become a :class:`Track` through :func:`lmdk_core.data.track_loading.load_track`,
the one entry point, which hands each format to its reader in
:mod:`lmdk_core.data.track_formats` (docs/data-formats.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.data.track_times import iso_time_labels
from lmdk_core.foundation.errors import InputError

if TYPE_CHECKING:  # pandas is imported where a table is handled
    import pandas as pd

__all__ = ["Track", "Waypoint"]


@dataclass(frozen=True)
class Waypoint:
    """A GPX waypoint (a KML place) offered as a landmark candidate at track point
    ``index``, ``distance_m`` metres from it."""

    name: str
    lat: float
    lon: float
    index: int
    distance_m: float


@dataclass(frozen=True)
class Track:
    """Points t = 0..T-1 with ``lat``/``lon`` in degrees; ``time`` may hold NaT/NaN.

    ``segment[t]`` is the piece (GPX track segment) of point t, non-decreasing from 0;
    ``segment_names`` one label per piece; ``notes`` what the loader did (pieces,
    missing times filled, far waypoints) and ``warnings`` what the user must check
    (implausible or backward times), both to show to the user.
    """

    lat: np.ndarray
    lon: np.ndarray
    time: np.ndarray
    time_kind: str = "datetime"  # 'datetime', 'number' or 'index'
    name: str = "track"
    waypoints: list[Waypoint] = field(default_factory=list)
    segment: np.ndarray | None = None
    segment_names: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    #: True when the times are UTC by the format (GPX, GeoLife) or carried a zone in the
    #: file: written back with ``Z`` (docs/data-formats.md)
    utc: bool = False

    def __post_init__(self) -> None:
        n = int(np.asarray(self.lat).size)
        seg = (np.zeros(n, dtype=int) if self.segment is None
               else np.asarray(self.segment, dtype=int).reshape(-1))
        if seg.size != n:
            raise InputError(f"need one segment number per track point ({n}), got {seg.size}")
        object.__setattr__(self, "segment", seg)

    def __len__(self) -> int:
        return int(self.lat.size)

    @property
    def n_segments(self) -> int:
        """Number of separate pieces (1 for a single continuous track)."""
        return len(self.segment_ranges())

    def segment_ranges(self) -> list[tuple[int, int]]:
        """``(start, stop)`` index ranges of the pieces, in order (stop exclusive): a
        new piece starts wherever ``segment`` changes."""
        n = len(self)
        if n == 0:
            return []
        cuts = np.flatnonzero(np.diff(np.asarray(self.segment)) != 0) + 1
        bounds = [0, *cuts.tolist(), n]
        return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def table(self) -> dict[str, list]:
        """The track as JSON-ready columns, read back as a CSV by
        :func:`~lmdk_core.data.track_loading.load_track` (a configuration's embedded
        data): ``time`` (ISO 8601 or numbers, ``None`` where
        missing; absent for a track without times), ``lat``, ``lon`` and, for several
        pieces, ``segment``."""
        out: dict[str, list] = {}
        if self.time_kind != "index":
            out["time"] = self._time_cells()
        out["lat"] = np.asarray(self.lat, dtype=float).tolist()
        out["lon"] = np.asarray(self.lon, dtype=float).tolist()
        if self.n_segments > 1:
            out["segment"] = np.asarray(self.segment).tolist()
        return out

    def _time_cells(self) -> list:
        """The times as JSON values: ISO 8601 text (``Z`` when UTC) or numbers (whole
        ones as int), ``None`` where missing."""
        if self.time_kind == "datetime":
            return iso_time_labels(self.time, self.utc)
        return [None if not np.isfinite(x) else (int(x) if x == round(x) else x)
                for x in np.asarray(self.time, dtype=float).tolist()]

    def with_gaps(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per point, e.g. lat) with a NaN inserted between pieces, so
        that a line drawn through them (plotly) breaks at every gap."""
        v = np.asarray(values, dtype=float)
        cuts = [a for a, _ in self.segment_ranges()[1:]]
        return np.insert(v, cuts, np.nan) if cuts else v

    @property
    def n_missing_times(self) -> int:
        """Points that have no usable time (shown as '?'); all of them when the track
        has no times at all (``time_kind == 'index'`` counts as none missing)."""
        if self.time_kind == "datetime":
            return int(np.isnat(np.asarray(self.time, dtype="datetime64[ns]")).sum())
        if self.time_kind == "number":
            return int((~np.isfinite(np.asarray(self.time, dtype=float))).sum())
        return 0

    def points(self) -> np.ndarray:
        """``[lat, lon]`` rows."""
        return np.column_stack([self.lat, self.lon])

    def frame(self) -> pd.DataFrame:
        """The track as a ``time,lat,lon,segment`` table."""
        import pandas as pd

        return pd.DataFrame({"time": self.time, "lat": self.lat, "lon": self.lon,
                             "segment": self.segment})
