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

Usable range: ``r/ε ≤ MAX_SCALE_M = 1e12`` metres (ε ≥ r·1e-12). Beyond a few thousand
kilometres the released point is already anywhere on Earth; at 1e12 m the geodesic
computation still resolves a millimetre, while at ε = 5e-324 the scale r/ε overflows to
infinity and no location could be released (it is refused with a message).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaincinv

from lmdk_core.geodesy import WGS84, destination, distance_m
from lmdk_core.validation import (
    InputError,
    as_generator,
    budget_below,
    check_epsilon_array,
    check_positive,
    describe_budget,
)

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


class PlanarLaplace:
    """Planar Laplace with protection radius ``radius`` metres.

    Values are arrays of shape (n, 2) holding ``[lat, lon]`` in degrees.
    """

    name = "planar_laplace"
    label = "Planar Laplace (geo-indistinguishability)"

    def __init__(self, radius: float = 100.0) -> None:
        self.radius = check_positive(radius, "protection radius (metres)")

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

    def perturb(
        self,
        values: ArrayLike,
        epsilon: ArrayLike,
        rng: int | np.random.Generator | None = None,
    ) -> np.ndarray:
        """Noisy ``[lat, lon]`` rows, each moved by its own Planar Laplace draw."""
        pts = np.asarray(values, dtype=float).reshape(-1, 2)
        lat, lon = check_coordinates(pts[:, 0], pts[:, 1])
        eps = check_epsilon_array(epsilon, lat.shape[0])
        self.check_budget(eps)
        dist, az = self.sample_displacement(eps, rng)
        lat2, lon2 = destination(lat, lon, az, dist)
        out = np.column_stack([lat2, lon2])
        if not np.all(np.isfinite(out)):  # cannot happen within the usable range
            raise InputError("a released location is not a finite position; raise ε")
        return out

    def perturb_one(self, value: np.ndarray, epsilon: float,
                    gen: np.random.Generator) -> np.ndarray:
        """One noisy ``[lat, lon]``, parameters trusted (Adaptive's loop): the same draws
        as :meth:`perturb` on one row, without its checks (~15× faster per point)."""
        scale = self.radius / epsilon
        dist = gen.gamma(2.0, scale, size=1)[0]
        azimuth = gen.uniform(0.0, 360.0, size=1)[0]
        lon2, lat2, _ = WGS84.fwd(float(value[1]), float(value[0]), azimuth, dist)
        return np.array([lat2, lon2])

    @staticmethod
    def distance_one(a: np.ndarray, b: np.ndarray) -> float:
        """Geodesic distance in metres between two ``[lat, lon]`` points."""
        return float(WGS84.inv(float(a[1]), float(a[0]), float(b[1]), float(b[0]))[2])

    def expected_error(self, epsilon: ArrayLike) -> np.ndarray:
        """Mean displacement ``2r/ε`` in metres."""
        return 2.0 * self.radius_scale(epsilon)

    def displacement_quantile(self, q: float, epsilon: ArrayLike) -> np.ndarray:
        """Quantile ``q`` of the displacement (metres): Gamma(2, r/ε) quantile."""
        return gammaincinv(2.0, q) * self.radius_scale(epsilon)

    def displacement_cdf(self, d: ArrayLike, epsilon: float) -> np.ndarray:
        """Exact CDF of the displacement: ``1 - (1 + d·ε/r)·exp(-d·ε/r)``."""
        u = np.asarray(d, dtype=float) / float(self.radius_scale(epsilon))
        return np.where(u > 0, 1.0 - (1.0 + u) * np.exp(-u), 0.0)

    @staticmethod
    def distance(a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Geodesic distance in metres between rows ``[lat, lon]`` of ``a`` and ``b``."""
        a = np.asarray(a, dtype=float).reshape(-1, 2)
        b = np.asarray(b, dtype=float).reshape(-1, 2)
        return distance_m(a[:, 0], a[:, 1], b[:, 0], b[:, 1])
