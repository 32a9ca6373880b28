"""Distances and displacements on the WGS84 ellipsoid (pyproj's geodesic solver).

Used so that every displacement the engine makes or reports is exactly in metres:
``destination`` solves the direct geodesic problem (start, azimuth, distance) and
``distance_m`` the inverse one (Karney 2013, via ``pyproj.Geod``). Compiled loops reach
the same C routines through :func:`compiled_geodesic`.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from pyproj import Geod

__all__ = ["CompiledGeodesic", "compiled_geodesic", "destination", "distance_m",
           "wgs84"]


@functools.cache
def wgs84() -> Geod:
    """pyproj's ``Geod`` of the WGS84 ellipsoid, made on first use: importing pyproj
    costs about 0.1 s, which commands without locations do not pay. ``WGS84`` (this
    module's attribute) is the same object."""
    from pyproj import Geod

    return Geod(ellps="WGS84")


def __getattr__(name: str):
    """``WGS84``: :func:`wgs84`, loaded on first access (PEP 562)."""
    if name == "WGS84":
        return wgs84()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def destination(
    lat: ArrayLike, lon: ArrayLike, azimuth_deg: ArrayLike, distance: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """Point reached from (lat, lon) going ``distance`` metres along ``azimuth_deg``."""
    lat, lon, az, dist = np.broadcast_arrays(
        np.asarray(lat, float), np.asarray(lon, float), np.asarray(azimuth_deg, float),
        np.asarray(distance, float),
    )
    lon2, lat2, _ = wgs84().fwd(lon.ravel(), lat.ravel(), az.ravel(), dist.ravel())
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
        _, _, dist = wgs84().inv(b[ok], a[ok], d[ok], c[ok])
        out[ok] = dist
    return out


#: doubles reserved for PROJ's ``struct geod_geodesic`` (51 doubles today; spare room)
_GEODESIC_STRUCT_DOUBLES = 256


@dataclass(frozen=True)
class CompiledGeodesic:
    """The C routines behind ``WGS84.fwd`` / ``WGS84.inv``, callable from numba code.

    ``direct(geodesic, lat1, lon1, azi1, s12, &lat2, &lon2, &azi2)`` and
    ``inverse(geodesic, lat1, lon1, lat2, lon2, &s12, &azi1, &azi2)`` are PROJ's
    ``geod_direct`` / ``geod_inverse`` (Karney 2013) from the very library pyproj calls,
    and ``geodesic`` holds their WGS84 parameters (``geod_init`` with pyproj's ``a`` and
    ``f``): the same machine code on the same numbers, so the same doubles as pyproj.
    """

    direct: Callable[..., object]
    inverse: Callable[..., object]
    geodesic: np.ndarray = field(repr=False)


@functools.cache
def compiled_geodesic() -> CompiledGeodesic | None:
    """PROJ's geodesic solvers as pyproj itself links them, or None where they cannot be
    reached (a platform whose loader does not expose them) or disagree with pyproj on a set of
    check points (then nothing may rely on them being the same)."""
    try:
        import pyproj._geod as pyproj_geod

        # the symbols as the pyproj extension resolves them (itself, then its libraries)
        lib = ctypes.CDLL(pyproj_geod.__file__)
        init, direct, inverse = lib.geod_init, lib.geod_direct, lib.geod_inverse
    except (ImportError, OSError, AttributeError):
        return None
    d, p = ctypes.c_double, ctypes.c_void_p
    init.restype = direct.restype = inverse.restype = None
    init.argtypes = [p, d, d]
    direct.argtypes = inverse.argtypes = [p, d, d, d, d, p, p, p]
    geodesic = np.zeros(_GEODESIC_STRUCT_DOUBLES)
    init(geodesic.ctypes.data, wgs84().a, wgs84().f)
    solvers = CompiledGeodesic(direct, inverse, geodesic)
    return solvers if _agrees_with_pyproj(solvers) else None


def _agrees_with_pyproj(s: CompiledGeodesic) -> bool:
    """The C routines give pyproj's doubles, bit for bit, on points spread over the globe
    (poles, antimeridian, zero and Earth-circling distances, near-antipodal pairs)."""
    gen = np.random.default_rng(20130101)
    n = 200
    lat = np.concatenate([gen.uniform(-90, 90, n), [90.0, -90.0, 0.0, 0.0, 45.0, -89.9]])
    lon = np.concatenate([gen.uniform(-180, 180, n), [0.0, 180.0, -180.0, 179.9999, 0.0, 10]])
    az = np.concatenate([gen.uniform(0, 360, n), [0.0, 90.0, 270.0, 90.0, 360.0, 180.0]])
    dist = np.concatenate([gen.gamma(2.0, 10.0 ** gen.uniform(-3, 7, n)),
                           [0.0, 1e12, 2.0e7, 1.0, 4.0e7, 19_990_000.0]])
    lon2, lat2, _ = wgs84().fwd(lon, lat, az, dist)
    lon3 = np.concatenate([gen.uniform(-180, 180, n), 180.0 - lon[n:] + 1e-7])
    lat3 = np.concatenate([gen.uniform(-90, 90, n), -lat[n:]])
    s12 = wgs84().inv(lon, lat, lon3, lat3)[2]
    out = np.zeros(3)
    ptr = [ctypes.c_void_p(out.ctypes.data + 8 * k) for k in range(3)]
    g = s.geodesic.ctypes.data
    for k in range(lat.size):
        s.direct(g, lat[k], lon[k], az[k], dist[k], *ptr)
        if out[0].tobytes() != lat2[k].tobytes() or out[1].tobytes() != lon2[k].tobytes():
            return False
        s.inverse(g, lat[k], lon[k], lat3[k], lon3[k], *ptr)
        if out[0].tobytes() != s12[k].tobytes():
            return False
    return True
