"""Planar Laplace mechanism for geo-indistinguishability (Andrés, Bordenabe,
Chatzikokolakis, Palamidessi, CCS 2013).

A location is replaced by a point drawn from the planar Laplace density
``D(z) ∝ exp(-ε'·d(x, z))`` with ``ε' = ε/r``: two locations within the protection
radius ``r`` metres are ε-indistinguishable. In polar coordinates the angle is uniform
on [0, 2π) and the radius follows Gamma(2, 1/ε') = Gamma(2, r/ε) (the paper inverts
its CDF with Lambert's W; numpy's gamma sampler draws the same law exactly). The
displacement is applied along the WGS84 geodesic, so it is exactly that many metres.

Expected displacement: ``E[R] = 2r/ε``; median ``≈ 1.678·r/ε``; 95th percentile
``≈ 4.744·r/ε`` (quantiles of Gamma(2, r/ε)).

These are numpy's floating-point draws (exploration, previews, ``--noise fast``);
publishable tracks use :class:`lmdk_core.mechanisms.exact_planar.ExactPlanarLaplace`
(Mironov, CCS 2012, on why floating-point noise is attackable).

Usable range: ``r/ε ≤ MAX_SCALE_M = 1e12`` metres (ε ≥ r·1e-12). Beyond a few thousand
kilometres the released point is already anywhere on Earth; at 1e12 m the geodesic
computation still resolves a millimetre, while at ε = 5e-324 the scale r/ε overflows to
infinity and no location could be released (it is refused with a message).
"""

from __future__ import annotations

import functools
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import destination, distance_m, wgs84
from lmdk_core.foundation.validation import (
    as_generator,
    budget_below,
    check_epsilon_array,
    check_positive,
    describe_budget,
)
from lmdk_core.mechanisms.base import Mechanism

#: largest displacement scale r/ε (metres) the mechanism accepts (see the module docstring).
MAX_SCALE_M = 1e12


def check_coordinates(lat: ArrayLike, lon: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Latitudes in [-90, 90] and longitudes in [-180, 180], finite, same length."""
    la = np.asarray(lat, dtype=float)
    lo = np.asarray(lon, dtype=float)
    if la.shape != lo.shape:
        raise InputError("latitude and longitude must have the same number of values")
    if not (np.all(np.isfinite(la)) and np.all(np.isfinite(lo))):
        raise InputError("coordinates must be finite numbers (no NaN)")
    if np.any(np.abs(la) > 90):
        raise InputError(f"latitude {la[np.abs(la) > 90][0]:g} is out of range [-90, 90]")
    if np.any(np.abs(lo) > 180):
        raise InputError(f"longitude {lo[np.abs(lo) > 180][0]:g} is out of range [-180, 180]")
    return la, lo


class PlanarLaplace(Mechanism):
    """Planar Laplace with protection radius ``radius`` metres.

    Values are arrays of shape (n, 2) holding ``[lat, lon]`` in degrees.
    """

    name = "planar_laplace"
    label = "Planar Laplace (geo-indistinguishability)"
    data_kind = "location"
    numpy_draws: ClassVar[str | None] = "planar"  # None in the exact subclass

    def __init__(self, radius: float = 100.0) -> None:
        self.radius = check_positive(radius, "protection radius (metres)")

    def check_values(self, values: ArrayLike) -> np.ndarray:
        """Rows ``[lat, lon]`` (shape (n, 2)) of valid coordinates
        (:func:`check_coordinates`)."""
        pts = np.asarray(values, dtype=float).reshape(-1, 2)
        check_coordinates(pts[:, 0], pts[:, 1])
        return pts

    def check_budget(self, epsilon: ArrayLike) -> np.ndarray:
        """``epsilon`` as an array of budgets in the usable range ``r/ε ≤ MAX_SCALE_M``,
        else InputError stating the range."""
        floor = self.radius / MAX_SCALE_M
        lo = budget_below(epsilon, floor)
        if lo is not None:
            with np.errstate(divide="ignore", over="ignore"):
                scale = np.float64(self.radius) / np.float64(lo)
            raise InputError(
                f"a budget of {describe_budget(lo)} is too small for Planar Laplace with r = "
                f"{self.radius:g} m: its displacement scale r/ε_t = {scale:.3g} m cannot "
                f"be applied on Earth; the usable range is ε_t ≥ r·1e-12 = {floor:.3g} "
                "— raise ε or lower the radius"
            )
        return check_epsilon_array(epsilon)

    def radius_scale(self, epsilon: ArrayLike) -> np.ndarray:
        """Scale ``r/ε`` of the Gamma(2, ·) distribution of the displacement, in metres."""
        return self.radius / check_epsilon_array(epsilon)

    def scale(self, epsilon: ArrayLike) -> np.ndarray:
        """The displacement scale ``r/ε`` in metres (:meth:`radius_scale`)."""
        return self.radius_scale(epsilon)

    def sample_displacement(
        self, epsilon: ArrayLike, rng: int | np.random.Generator | None = None, size=None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Draw (distance in metres, azimuth in degrees) for each ε."""
        scale = self.radius_scale(epsilon)
        gen = as_generator(rng)
        shape = np.shape(scale) if size is None else size
        dist = gen.gamma(2.0, scale, size=shape)
        azimuth = gen.uniform(0.0, 360.0, size=shape)
        return dist, azimuth

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """Each row moved by its own draw: distance ``Gamma(2, r/ε)`` along a uniform
        azimuth, on the WGS84 geodesic."""
        dist, az = self.sample_displacement(epsilon, rng)
        lat2, lon2 = destination(x[:, 0], x[:, 1], az, dist)
        out = np.column_stack([lat2, lon2])
        if not np.all(np.isfinite(out)):  # cannot happen within the usable range
            raise InputError("a released location is not a finite position; raise ε")
        return out

    def perturb_one(self, value: np.ndarray, epsilon: float,
                    gen: np.random.Generator) -> np.ndarray:
        """One noisy ``[lat, lon]``, parameters trusted (Adaptive's loop): the same draws
        as :meth:`perturb` on one row, without its checks: ``gamma(2, r/ε)`` (the scalar
        call draws what ``size=1`` draws), then ``uniform(0, 360)``, which numpy computes
        as ``0 + 360·U`` of one uniform double, and pyproj's point solver."""
        dist = gen.gamma(2.0, self.radius / epsilon)
        azimuth = 0.0 + 360.0 * gen.random()
        lon2, lat2 = _forward(float(value[1]), float(value[0]), azimuth, dist)
        return np.array([lat2, lon2])

    @staticmethod
    def distance_one(a: np.ndarray, b: np.ndarray) -> float:
        """Geodesic distance in metres between two ``[lat, lon]`` points."""
        return _inverse(float(a[1]), float(a[0]), float(b[1]), float(b[0]))

    def expected_error(self, epsilon: ArrayLike, values: ArrayLike | None = None) -> np.ndarray:
        """Mean displacement ``E[R] = 2r/ε`` in metres."""
        return 2.0 * self.radius_scale(epsilon)

    def displacement_quantile(self, q: float, epsilon: ArrayLike) -> np.ndarray:
        """Quantile ``q`` of the displacement (metres): Gamma(2, r/ε) quantile."""
        from scipy.special import gammaincinv  # 0.2 s to import: only where it is used

        return gammaincinv(2.0, q) * self.radius_scale(epsilon)

    def displacement_cdf(self, d: ArrayLike, epsilon: float) -> np.ndarray:
        """Exact CDF of the displacement: ``1 - (1 + d·ε/r)·exp(-d·ε/r)``."""
        u = np.asarray(d, dtype=float) / float(self.radius_scale(epsilon))
        return np.where(u > 0, 1.0 - (1.0 + u) * np.exp(-u), 0.0)

    def error_cdf(self, d: ArrayLike, epsilon: float,
                  values: ArrayLike | None = None) -> np.ndarray:
        """``P(R ≤ d)``, R the displacement in metres (:meth:`displacement_cdf`)."""
        return self.displacement_cdf(d, epsilon)

    def presample(self, gen: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
        """``n`` standard Gamma(2) variates (the displacement over ``r/ε``), then ``n``
        azimuths uniform on [0, 360) degrees."""
        return gen.standard_gamma(2.0, n), gen.uniform(0.0, 360.0, n)

    def release_presampled(self, values: np.ndarray, epsilon: np.ndarray,
                           draws: tuple[np.ndarray, ...]) -> np.ndarray:
        """Rows moved by ``(r/ε)·G`` metres along the pre-drawn azimuths."""
        dist = (self.radius / epsilon) * draws[0]
        lat2, lon2 = destination(values[:, 0], values[:, 1], draws[1], dist)
        return np.column_stack([lat2, lon2])

    @staticmethod
    def distance(a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Geodesic distance in metres between rows ``[lat, lon]`` of ``a`` and ``b``."""
        a = np.asarray(a, dtype=float).reshape(-1, 2)
        b = np.asarray(b, dtype=float).reshape(-1, 2)
        return distance_m(a[:, 0], a[:, 1], b[:, 0], b[:, 1])


@functools.cache
def _point_solvers() -> tuple:
    """pyproj's scalar geodesic solvers without the per-call array wrapping when this
    pyproj has them (the same C routines as ``WGS84.fwd`` / ``WGS84.inv``, so the same
    doubles); looked up on first use, as pyproj is imported then."""
    geod = wgs84()
    return getattr(geod, "_fwd_point", None), getattr(geod, "_inv_point", None)


def _forward(lon: float, lat: float, azimuth: float, dist: float) -> tuple[float, float]:
    """``(lon2, lat2)``: the WGS84 direct problem from (lat, lon)."""
    fwd_point = _point_solvers()[0]
    if fwd_point is not None:
        lon2, lat2, _ = fwd_point(lon, lat, azimuth, dist, False, True)
    else:  # pragma: no cover - an older pyproj
        lon2, lat2, _ = wgs84().fwd(lon, lat, azimuth, dist)
    return lon2, lat2


def _inverse(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """The WGS84 geodesic distance in metres."""
    inv_point = _point_solvers()[1]
    if inv_point is not None:
        return float(inv_point(lon1, lat1, lon2, lat2, False, True)[2])
    return float(wgs84().inv(lon1, lat1, lon2, lat2)[2])  # pragma: no cover
