"""Planar Laplace drawn exactly: Andrés et al.'s discretised and truncated mechanism on a
public grid, with exact lattice noise (the publishable track release).

**Why.** Textbook Planar Laplace computes ``x + R·(cos θ, sin θ)`` in doubles; Mironov
("On significance of the least significant bits for differential privacy", CCS 2012)
showed that such floating-point noise is attackable: the doubles reachable from x and
from a neighbour x′ differ. Andrés, Bordenabe, Chatzikokolakis & Palamidessi
("Geo-indistinguishability: differential privacy for location-based systems", CCS
2013, §5) release instead a point of a grid of step u, truncated to a region, with an
adjusted ε′ < ε that pays for the discretisation. This module does the same with noise
that is exact (:mod:`lmdk_core.mechanisms.discrete_planar_laplace`), so the adjustment
pays only for the grid and the map, never for floating-point precision.

**The release of a location x at budget ε_t** (radius r metres; docs/noise.md has the
proof):

1. **The plane.** A public, declared region ``A`` (:class:`PlanarRegion`: a centre P and
   a radius D ≤ 2,000 km; not computed from the data) is mapped to the plane by the
   azimuthal equidistant projection about P on WGS84 (geodesic distance and azimuth
   from P, Karney's solver). Within A it stretches no length by more than
   ``k = θ/sin θ``, θ = D/6,356 km (1.0041 for D = 1,000 km).
2. **The grid.** ``u = 2^(⌊log₂ r⌋ − 10)`` metres (6.25 cm for r = 100 m; from r only,
   never from ε_t, which would reveal the landmarks). x is snapped to the nearest grid
   point X (exactly: u is a power of two).
3. **ε′.** ``α = ε_t·u / (k·r + √2·u + δ)`` per grid step (δ = 2 µm covers the
   geodesic solver's rounding), rounded down to 31 significant bits. Two locations at
   distance d ≤ r lie at most ``(k·d + √2·u + δ)/u`` grid steps apart.
4. **Noise.** ``Z = X + N``, N exact discrete planar Laplace of parameter α: the
   privacy loss between X and X′ is at most ``α·‖X − X′‖ ≤ ε_t`` for d ≤ r (and
   ``≤ ε_t·(k·d + √2u + δ)/(k·r + √2u + δ) ≤ ε_t·d/r`` for d ≥ r).
5. **Truncation.** Z outside A's disk (D/u grid steps) is moved to a grid point inside
   it (towards P); the released location is the inverse projection of u·Z. Both are
   functions of Z alone: post-processing.

Inputs outside A are refused. The displacement is that of the continuous mechanism of
scale ``(k·r + √2·u + δ)/ε_t`` (Gamma(2) up to the grid): 0.4 % more than r/ε_t for
D = 1,000 km and r = 100 m.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from math import frexp, ldexp, sin

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import wgs84
from lmdk_core.mechanisms.discrete_planar_laplace import (
    discrete_planar_laplace,
    lattice_scale,
    sqrt2_upper,
)
from lmdk_core.mechanisms.exact_noise import grid_index
from lmdk_core.mechanisms.planar_laplace import PlanarLaplace

__all__ = ["ExactPlanarLaplace", "PlanarRegion", "grid_step", "planar_alpha",
           "truncate_to_disk"]

#: a radius of curvature no larger than WGS84's smallest (b = 6,356,752 m): the
#: ellipsoid's Gaussian curvature is at most 1/b², so geodesics from P spread at least as
#: fast as on this sphere (Rauch's comparison theorem) and the projection's stretch is
#: at most θ/sin θ, θ = D/R
CURVATURE_RADIUS_M = 6_356_000.0
#: largest declared region radius (km): well inside the ellipsoid's convexity radius
MAX_REGION_KM = 2000.0
#: region radius when only a centre is declared (km)
DEFAULT_REGION_KM = 1000.0
#: metres covering the geodesic solver's rounding of two projected points (it is
#: accurate to 15 nm)
SOLVER_MARGIN_M = 2e-6
#: the grid is 2^GRID_BITS times finer than the protection radius (rounded to 2^k)
GRID_BITS = 10


@dataclass(frozen=True)
class PlanarRegion:
    """The public region A of an exact track release: the cap of radius ``radius_km``
    around (``lat``, ``lon``). Declared by the user (like Δf), never computed from the
    data."""

    lat: float
    lon: float
    radius_km: float = DEFAULT_REGION_KM

    def __post_init__(self) -> None:
        if not (np.isfinite(self.lat) and abs(self.lat) <= 90):
            raise InputError(f"the region's centre latitude {self.lat:g} is not in [-90, 90]")
        if not (np.isfinite(self.lon) and abs(self.lon) <= 180):
            raise InputError(f"the region's centre longitude {self.lon:g} is not in "
                             "[-180, 180]")
        if not (np.isfinite(self.radius_km) and 0 < self.radius_km <= MAX_REGION_KM):
            raise InputError(f"the region's radius must be above 0 and at most "
                             f"{MAX_REGION_KM:g} km, got {self.radius_km:g}")

    @classmethod
    def parse(cls, text: str) -> PlanarRegion:
        """``"LAT,LON"`` or ``"LAT,LON,KM"`` (e.g. ``48.86,2.35,50``)."""
        parts = [p.strip() for p in str(text).split(",")]
        try:
            if len(parts) not in (2, 3):
                raise ValueError
            nums = [float(p) for p in parts]
        except ValueError:
            raise InputError(f"a region is LAT,LON or LAT,LON,KM (its centre in degrees "
                             f"and its radius in km, e.g. 48.86,2.35,50), got {text!r}"
                             ) from None
        return cls(*nums)

    def text(self) -> str:
        """``LAT,LON,KM`` as :meth:`parse` reads it."""
        return f"{self.lat:g},{self.lon:g},{self.radius_km:g}"

    @property
    def radius_m(self) -> float:
        """D in metres."""
        return self.radius_km * 1000.0

    def stretch(self) -> Fraction:
        """An upper bound of the projection's stretch within the region,
        ``k = θ/sin θ``, θ = D/:data:`CURVATURE_RADIUS_M` (rounded up by 2⁻⁴⁰)."""
        theta = self.radius_m / CURVATURE_RADIUS_M
        return Fraction(theta / sin(theta)) * (1 + Fraction(1, 1 << 40))

    def to_plane(self, lat: ArrayLike, lon: ArrayLike) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
        """``(east, north, distance)`` metres of each point in the azimuthal equidistant
        projection about the centre (geodesic distance and azimuth from it)."""
        la, lo = np.broadcast_arrays(np.asarray(lat, float), np.asarray(lon, float))
        az, _, dist = wgs84().inv(np.full(la.size, self.lon), np.full(la.size, self.lat),
                                  lo.ravel(), la.ravel())
        rad = np.radians(np.asarray(az, dtype=float))
        dist = np.asarray(dist, dtype=float)
        return dist * np.sin(rad), dist * np.cos(rad), dist

    def from_plane(self, east: np.ndarray, north: np.ndarray) -> tuple[np.ndarray,
                                                                       np.ndarray]:
        """``(lat, lon)`` of plane points (the inverse projection)."""
        e, n = np.asarray(east, float).ravel(), np.asarray(north, float).ravel()
        az = np.degrees(np.arctan2(e, n))
        lon2, lat2, _ = wgs84().fwd(np.full(e.size, self.lon), np.full(e.size, self.lat),
                                    az, np.hypot(e, n))
        return np.asarray(lat2, float), np.asarray(lon2, float)


def grid_step(radius: float) -> float:
    """The grid step u = 2^(⌊log₂ r⌋ − 10) metres of protection radius r (public).

    >>> grid_step(100.0)
    0.0625
    """
    return ldexp(1.0, frexp(float(radius))[1] - 1 - GRID_BITS)


def planar_alpha(epsilon: float, radius: float, step: float, stretch: Fraction) -> Fraction:
    """α = ε_t·u/(k·r + √2·u + δ) per grid step, exactly (rationals; √2 and k rounded
    up): the ε′ of Andrés et al.'s discretisation for this grid (module docstring)."""
    denom = (stretch * Fraction(radius) + sqrt2_upper() * Fraction(step)
             + Fraction(SOLVER_MARGIN_M))
    return Fraction(epsilon) * Fraction(step) / denom


def truncate_to_disk(z: np.ndarray, limit: int) -> np.ndarray:
    """Grid points ``z`` (int64, shape (n, 2)) with ``‖z‖ > limit`` moved inside the disk
    of radius ``limit`` towards the centre (each coordinate scaled by limit/‖z‖ and cut
    towards 0, then stepped in until ``‖z‖² ≤ limit²``, exactly); the others unchanged.
    A deterministic function of z: post-processing."""
    out = np.array(z, dtype=np.int64, copy=True)
    lim2 = int(limit) ** 2
    for i in np.flatnonzero((out.astype(float) ** 2).sum(axis=1) > lim2 * (1 - 1e-12)):
        a, b = int(out[i, 0]), int(out[i, 1])
        if a * a + b * b <= lim2:
            continue
        f = limit / float(np.hypot(a, b))
        a, b = int(a * f), int(b * f)  # int() cuts towards 0
        while a * a + b * b > lim2:
            if abs(a) >= abs(b):
                a -= (a > 0) - (a < 0)
            else:
                b -= (b > 0) - (b < 0)
        out[i] = (a, b)
    return out


@functools.lru_cache(maxsize=256)
def _scale(epsilon: float, radius: float, step: float, stretch: Fraction):
    return lattice_scale(planar_alpha(epsilon, radius, step, stretch))


class ExactPlanarLaplace(PlanarLaplace):
    """Planar Laplace released on the public grid of a declared region with exact lattice
    noise (module docstring): the mechanism of every publishable track file."""

    noise = "exact"
    numpy_draws = None

    def __init__(self, radius: float = 100.0, region: PlanarRegion | None = None) -> None:
        super().__init__(radius)
        if region is None:
            raise InputError("exact Planar Laplace needs a declared region (its centre "
                             "LAT,LON and radius KM): the grid must not depend on the data")
        self.region = region
        self.step = grid_step(self.radius)
        self._stretch = region.stretch()

    @property
    def sampler(self) -> str:
        """What a file's header says about this sampler (its public parameters)."""
        return (f"exact discrete Planar Laplace on a {self.step:g} m grid in the declared "
                f"region {self.region.text()} (lat,lon,km; Andrés et al. 2013 §5; exact "
                "lattice noise, Canonne, Kamath and Steinke 2020; OS entropy; Mironov-safe)")

    def check_values(self, values: ArrayLike) -> np.ndarray:
        """Valid ``[lat, lon]`` rows inside the declared region, else InputError."""
        pts = super().check_values(values)
        if pts.size:
            dist = self.region.to_plane(pts[:, 0], pts[:, 1])[2]
            outside = np.flatnonzero(~(dist <= self.region.radius_m))
            if outside.size:
                i = int(outside[0])
                raise InputError(
                    f"location {i} ({pts[i, 0]:g}, {pts[i, 1]:g}) lies "
                    f"{dist[i] / 1000:.1f} km from the declared region's centre, outside "
                    f"its radius of {self.region.radius_km:g} km; declare a region "
                    "holding the whole track (--region LAT,LON,KM)")
        return pts

    def radius_scale(self, epsilon: ArrayLike) -> np.ndarray:
        """The displacement scale in metres, ``(k·r + √2·u + δ)/ε`` (the lattice law is
        Gamma(2) of this scale up to the grid)."""
        eff = float(self._stretch) * self.radius + 2.0**0.5 * self.step + SOLVER_MARGIN_M
        return eff / np.asarray(epsilon, dtype=float)

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """Each row snapped to the grid, moved by exact lattice noise of its ε_t,
        truncated to the region, mapped back; ``rng`` is ignored (OS entropy)."""
        if not x.size:
            return x.reshape(0, 2).copy()
        east, north, _ = self.region.to_plane(x[:, 0], x[:, 1])
        u = np.array([self.step])
        cells = np.column_stack([grid_index(east, u), grid_index(north, u)]).astype(np.int64)
        eps = np.broadcast_to(np.asarray(epsilon, dtype=float), (x.shape[0],))
        uniq, which = np.unique(eps, return_inverse=True)
        scales = [_scale(float(e), self.radius, self.step, self._stretch)
                  for e in uniq.tolist()]
        z = cells + discrete_planar_laplace(scales, which)
        # one step inside D, so a released point is inside the region after the round trip
        z = truncate_to_disk(z, int(self.region.radius_m // self.step) - 1)
        lat, lon = self.region.from_plane(z[:, 0] * self.step, z[:, 1] * self.step)
        return np.column_stack([lat, lon])

    def perturb_one(self, value: np.ndarray, epsilon: float,
                    gen: np.random.Generator) -> np.ndarray:
        """One released ``[lat, lon]`` at ``epsilon`` (``gen`` is not used)."""
        return self._randomise(np.asarray(value, dtype=float).reshape(1, 2),
                               np.array([float(epsilon)]), gen)[0]

    def exact(self) -> ExactPlanarLaplace:
        """Itself: it already draws exactly."""
        return self
