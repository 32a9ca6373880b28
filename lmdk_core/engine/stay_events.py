"""Stays as landmark events: one release per stay, whatever the number of its fixes.

A stay (Li et al., ACM GIS 2008; :mod:`lmdk_core.landmarks.discovery`) is a range of timestamps
``start..end`` of one visit. Protected as **one landmark event** (docs/stays.md):

* one Planar Laplace release (Andrés et al., CCS 2013) is made for the whole stay, of
  the stay's centroid ``c = mean(x_start … x_end)``, at the stay's budget ε_g;
* every fix of the stay publishes that released point plus fresh noise of the regular
  fix's law (post-processing: it reads no raw data and spends ε_t = 0;
  :mod:`lmdk_core.engine.repeat_noise`), so the stay shows no run of identical points.

If every fix of a stay may move by up to r metres (the protection radius), the
centroid moves by at most r (``‖mean(x') − mean(x)‖ ≤ mean‖x'_i − x_i‖ ≤ max‖x'_i −
x_i‖``), so the one release is ε_g-geo-indistinguishable for the whole stay, and the
landmark-privacy theorem (Katsomallos et al., CODASPY 2022) holds in its grouped form
``Σ_{g ∩ (L∪{t}) ≠ ∅} ε_g ≤ ε`` (:func:`lmdk_core.engine.verifier.verify` with ``groups``).

The release is computed on the *condensed* timeline — every stay collapsed to one
timestamp holding its centroid, a landmark — with the ordinary schemes, and expanded
back (:func:`condense`). So Uniform gives ε/(n+1) where n counts landmark *events*
(stays plus single landmark fixes), not fixes. A series' runs of readings are condensed
and released the same way, from their level (:mod:`lmdk_core.engine.run_events`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.engine.run_events import run_level
from lmdk_core.engine.verifier import check_groups
from lmdk_core.foundation.validation import parse_landmark_ranges

__all__ = [
    "STAY_MODES",
    "Centroid",
    "Condensed",
    "centroid",
    "condense",
    "condensed_points",
    "format_stays",
    "parse_stays",
    "stay_members",
]

#: how accepted stays are protected: one event each (default) or every fix a landmark
STAY_MODES = {
    "event": "one landmark event per stay (one release, its fixes publish it)",
    "fixes": "every fix of the stay a landmark of its own (the cost grows with the fixes)",
}


class Centroid(NamedTuple):
    """The mean position of a stay's fixes (:func:`centroid`), in degrees."""

    lat: float
    lon: float


def centroid(lat: ArrayLike, lon: ArrayLike) -> Centroid:
    """Mean position of a stay's fixes: each fix ``(φ, λ)`` as the 3-D unit vector
    ``(cos φ cos λ, cos φ sin λ, sin φ)``, the vectors averaged and the mean projected back
    to the sphere, ``(atan2(z, √(x² + y²)), atan2(y, x))``.

    The embedding is smooth everywhere — at the poles and across the antimeridian, where
    a mean of latitudes and longitudes is not: within 150 m of a pole a fix moved 1.75 m
    moved that mean 201 m. A mean of vectors moves by at most the largest move of one
    vector, and projecting back a mean of nearby unit vectors (length ≥ cos of the stay's
    angular radius, 1 − 10⁻⁹ for a few hundred metres) scales that by at most its
    inverse, so a fix moved d metres moves the centroid by at most d up to a relative
    10⁻⁶ (docs/stays.md, "Sensitivity of the centroid"). Geodetic latitudes are read as
    spherical ones: a smooth map of the ellipsoid, nearly affine over a stay."""
    la = np.radians(np.asarray(lat, dtype=float))
    lo = np.radians(np.asarray(lon, dtype=float))
    c = np.cos(la)
    x, y, z = float(np.mean(c * np.cos(lo))), float(np.mean(c * np.sin(lo))), float(
        np.mean(np.sin(la)))
    c_lat = float(np.degrees(np.arctan2(z, np.hypot(x, y))))
    c_lon = float(np.degrees(np.arctan2(y, x))) if np.hypot(x, y) > 0 else float(
        np.asarray(lon, dtype=float)[0])
    return Centroid(c_lat, c_lon)


@dataclass(frozen=True)
class Condensed:
    """The timeline with every stay collapsed to one timestamp.

    ``rep[k]`` is the full timestamp that condensed timestamp k stands for (a stay's
    first fix, or a timestamp outside every stay); ``index[t]`` is the condensed
    timestamp of full timestamp t (all the fixes of a stay share one)."""

    length: int
    stays: tuple[tuple[int, int], ...]
    rep: np.ndarray
    index: np.ndarray

    @property
    def condensed_length(self) -> int:
        """Number of condensed timestamps T' = T − Σ(|stay| − 1)."""
        return int(self.rep.size)


def condense(length: int, stays: Iterable[tuple[int, int]]) -> Condensed:
    """The condensed timeline of ``length`` timestamps with ``stays`` (inclusive ranges,
    disjoint; checked by :func:`lmdk_core.engine.verifier.check_groups`)."""
    grp = check_groups(stays, length)
    keep = np.ones(length, dtype=bool)
    for a, b in grp:
        keep[a + 1:b + 1] = False
    index = np.cumsum(keep) - 1
    return Condensed(length, grp, np.flatnonzero(keep), index.astype(np.intp))


def condensed_points(points: np.ndarray, cond: Condensed, whole: bool = False) -> np.ndarray:
    """The condensed data: a trajectory (T', 2) with every stay's centroid at its
    condensed timestamp, or a series (T',) with every run's level
    (:func:`lmdk_core.engine.run_events.run_level`, rounded for ``whole``-number data;
    docs/series-events.md); every other point as it is."""
    x = np.asarray(points, dtype=float)
    out = x[cond.rep].copy()
    for a, b in cond.stays:
        out[cond.index[a]] = (run_level(x[a:b + 1], whole) if x.ndim == 1 else
                              centroid(x[a:b + 1, 0], x[a:b + 1, 1]))
    return out


def stay_members(stays: Iterable[tuple[int, int]]) -> np.ndarray:
    """Every timestamp of the stays, sorted."""
    parts = [np.arange(a, b + 1) for a, b in stays]
    return np.concatenate(parts).astype(int) if parts else np.zeros(0, dtype=int)


def parse_stays(text: str | None) -> list[tuple[int, int]]:
    """Parse stays written as ranges ``"10-50,80-120"`` (inclusive; ``"7"`` is the stay
    of one fix); ``""`` or None means none. The same syntax as landmarks
    (:func:`lmdk_core.foundation.validation.parse_landmark_ranges`)."""
    return parse_landmark_ranges(text, what="stay")


def format_stays(stays: Iterable[tuple[int, int]]) -> str:
    """``"10-50,80-120"``: the form :func:`parse_stays` reads."""
    return ",".join(f"{a}-{b}" for a, b in stays)
