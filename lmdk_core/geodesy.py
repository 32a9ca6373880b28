"""Distances and displacements on the WGS84 ellipsoid (pyproj's geodesic solver).

Used so that every displacement the engine makes or reports is exactly in metres:
``destination`` solves the direct geodesic problem (start, azimuth, distance) and
``distance_m`` the inverse one (Karney 2013, via ``pyproj.Geod``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from pyproj import Geod

__all__ = ["destination", "distance_m", "WGS84"]

WGS84 = Geod(ellps="WGS84")


def destination(
    lat: ArrayLike, lon: ArrayLike, azimuth_deg: ArrayLike, distance: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """Point reached from (lat, lon) going ``distance`` metres along ``azimuth_deg``."""
    lat, lon, az, dist = np.broadcast_arrays(
        np.asarray(lat, float), np.asarray(lon, float), np.asarray(azimuth_deg, float),
        np.asarray(distance, float),
    )
    lon2, lat2, _ = WGS84.fwd(lon.ravel(), lat.ravel(), az.ravel(), dist.ravel())
    return np.asarray(lat2).reshape(lat.shape), np.asarray(lon2).reshape(lat.shape)


def distance_m(lat1: ArrayLike, lon1: ArrayLike, lat2: ArrayLike, lon2: ArrayLike) -> np.ndarray:
    """Geodesic distance in metres between (lat1, lon1) and (lat2, lon2), element-wise."""
    a, b, c, d = np.broadcast_arrays(
        np.asarray(lat1, float), np.asarray(lon1, float), np.asarray(lat2, float),
        np.asarray(lon2, float),
    )
    out = np.full(a.shape, np.nan)
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & np.isfinite(d)
    if np.any(ok):
        _, _, dist = WGS84.inv(b[ok], a[ok], d[ok], c[ok])
        out[ok] = dist
    return out
