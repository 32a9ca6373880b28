"""The Adaptive release loop for a trajectory (Planar Laplace), compiled with numba.

Katsomallos et al., "Landmark privacy: configurable differential privacy protection for
time series" (CODASPY 2022), Adaptive scheme as defined in
:mod:`lmdk_core.adaptive.reference`, with the Planar Laplace mechanism of Andrés et al.,
"Geo-indistinguishability" (CCS 2013). At each timestamp t:

* a sampling decision, one uniform double ``u < rate`` (none at the first timestamp);
* when it publishes, the displacement ``d ~ Gamma(2, r/ε_t)`` and the azimuth
  ``θ = 0 + 360·U`` (numpy's ``uniform(0, 360)`` of one double U), and the released point
  ``o_t`` is the WGS84 geodesic destination from x_t along θ over d metres (Karney 2013);
  the rate then drops by ``step`` (not below ``min_rate``) if the noise scale ``2r/ε_t``
  exceeds the geodesic distance ``d(o_t, o_prev)`` between the last two publications,
  otherwise it rises by ``step`` (up to 1);
* when it approximates a landmark with k landmarks after it, its share goes to the
  future, ``V ← V + V/(k+1)``: every unspent budget equals the one number V.

Those rules are the functions of :mod:`lmdk_core.adaptive.rules`, compiled into the loop.

Everything here is the step-by-step definition with the same draws in the same order:
numba's ``Generator.random`` / ``Generator.gamma`` are line-for-line ports of numpy's
samplers and draw from the caller's bit generator (advancing it), and the geodesic
problems are solved by the C routines that pyproj calls, from the same library and on
the same WGS84 parameters. The rate decision needs the inverse problem only when a
rigorous two-sided bound of the geodesic distance cannot settle it (about 0.3% of the
publications). So the released points, budgets and decisions are bit for bit those of
the reference with the same generator (tested against it). The loop also repeats the
last publication at the other timestamps and measures each timestamp's error, the
geodesic distance from the released point to the true one, as the engine does for
every release.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rate_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.foundation.compiled_paths import KernelCost, PathChooser, compile_with_helpers
from lmdk_core.foundation.geodesy import compiled_geodesic, wgs84

__all__ = ["COST", "adaptive_planar"]

#: measured seconds per step: the engine's Python loop ~6 µs, compiled ~1.2 µs (whole
#: release; the ratio 4–7 holds under load); loading the compiled loop from numba's cache
#: and checking PROJ's routines ~0.4 s (numba imported): they cross near 150,000 points
#: (near 85,000 once numba is imported)
COST = KernelCost(python_s=6e-6, compiled_s=1.2e-6, load_s=0.4)
#: force a path in tests: True (compiled at every length), False (never), None (COST)
FORCE_COMPILED: bool | None = None


def _sphere_direction(lat, lon, one_minus_f):
    """Unit vector of the point (lat, lon) of the ellipsoid stretched onto the sphere of
    radius a: ``(cos φ cos λ, cos φ sin λ, (1−f) sin φ)`` normalised (φ, λ in degrees)."""
    phi = np.deg2rad(lat)
    lam = np.deg2rad(lon)
    c = np.cos(phi)
    z = one_minus_f * np.sin(phi)
    n = np.sqrt(c * c + z * z)
    return c * np.cos(lam) / n, c * np.sin(lam) / n, z / n


def _sphere_angle(x1, y1, z1, x2, y2, z2):
    """Angle in radians between two unit vectors (``atan2(|u×v|, u·v)``, accurate at
    every angle)."""
    cx = y1 * z2 - z1 * y2
    cy = z1 * x2 - x1 * z2
    cz = x1 * y2 - y1 * x2
    return np.arctan2(np.sqrt(cx * cx + cy * cy + cz * cz), x1 * x2 + y1 * y2 + z1 * z2)


def _planar_steps_for(rules_stamp: str):
    """The release loop, a closure over the stamp of the rules it calls
    (:func:`~lmdk_core.foundation.compiled_paths.compile_with_helpers`)."""

    def planar_steps(lat, lon, is_lm, n_after, gen, V, radius, rate, lo, step,
                     geodesic, direct, inverse, a, one_minus_f, released, spent, published,
                     errors, pub_t, pub_eps):
        """Run the whole release; returns the number of publications.

        ``n_after`` counts the landmarks from t on. Fills ``released`` (T, 2), ``spent``,
        ``published``, ``errors`` and the first entries of ``pub_t`` / ``pub_eps``.

        The rate decision needs only whether the geodesic distance s = d(o_t, o_prev) is
        within the noise (``2r/ε_t > s``). Stretching the ellipsoid's polar axis by a/b
        maps it onto the sphere of radius a and changes every length by a factor in
        [1, a/b], so s lies in ``[(1−f)·σ, σ]`` where σ is the great-circle distance of
        the stretched points. That interval, widened by 1 mm plus 1e-9·σ (far above the
        solver's 15 nm and this computation's rounding), settles the decision when the
        rule gives the same answer at both of its ends (a smaller change is never less
        within the noise: :func:`~lmdk_core.adaptive.rules.within_noise`); only otherwise
        is the inverse problem solved.
        """
        _ = rules_stamp  # numba's cache key: a kernel built on other rules is not loaded
        T = lat.size
        out = np.zeros(3)  # geod_direct: lat2, lon2, azi2 / geod_inverse: s12, azi1, azi2
        scale = radius / V
        noise_scale = 2.0 * (radius / V)  # expected displacement 2r/ε_t
        n_pub = 0
        last_lat = 0.0
        last_lon = 0.0
        lx = ly = lz = 0.0  # the last publication on the stretched sphere
        for t in range(T):
            lm_t = is_lm[t]
            if lm_t:
                n_after -= 1  # landmarks after t
            if n_pub == 0 or publishes(gen.random(), rate):
                dist = gen.gamma(2.0, scale)
                azimuth = 0.0 + 360.0 * gen.random()
                direct(geodesic.ctypes, lat[t], lon[t], azimuth, dist,
                       out[0:].ctypes, out[1:].ctypes, out[2:].ctypes)
                lat2 = out[0]
                lon2 = out[1]
                ux, uy, uz = _sphere_direction(lat2, lon2, one_minus_f)
                if n_pub > 0:
                    sigma = a * _sphere_angle(ux, uy, uz, lx, ly, lz)
                    if within_noise(noise_scale, sigma * (1.0 + 1e-9) + 1e-3):
                        within = True  # even at the largest distance possible
                    elif not within_noise(noise_scale,
                                          one_minus_f * sigma * (1.0 - 1e-9) - 1e-3):
                        within = False  # not even at the smallest distance possible
                    else:
                        inverse(geodesic.ctypes, lat2, lon2, last_lat, last_lon,
                                out[0:].ctypes, out[1:].ctypes, out[2:].ctypes)
                        within = within_noise(noise_scale, out[0])
                    rate = rate_after_publication(rate, within, lo, step)
                lx, ly, lz = ux, uy, uz
                pub_t[n_pub] = t
                pub_eps[n_pub] = V
                n_pub += 1
                spent[t] = V
                published[t] = True
                last_lat = lat2
                last_lon = lon2
            elif lm_t:
                V = handed_on_budget(V, V, n_after)  # + b/(k+1), k = landmarks after t
                scale = radius / V
                noise_scale = 2.0 * (radius / V)
            released[t, 0] = last_lat
            released[t, 1] = last_lon
            if (np.isfinite(last_lat) and np.isfinite(last_lon) and np.isfinite(lat[t])
                    and np.isfinite(lon[t])):
                inverse(geodesic.ctypes, last_lat, last_lon, lat[t], lon[t],
                        out[0:].ctypes, out[1:].ctypes, out[2:].ctypes)
                errors[t] = out[0]
            else:
                errors[t] = np.nan
        return n_pub

    return planar_steps


_kernel = None
#: the choice between this kernel and the Python loop in this process
_CHOOSER = PathChooser(COST)


def _compiled_kernel():
    """The compiled loop, compiled (or loaded from numba's cache) on first use, with its
    helpers (the sphere's geometry above, Adaptive's rules) compiled into it; None
    without numba."""
    global _kernel
    if _kernel is None:
        _kernel = compile_with_helpers(
            _planar_steps_for, (_sphere_direction, _sphere_angle, publishes, within_noise,
                                rate_after_publication, handed_on_budget))
    return _kernel


def adaptive_planar(points: np.ndarray, is_lm: np.ndarray, *, V: float, radius: float,
                    gen, settings: AdaptiveSettings):
    """Run Adaptive with Planar Laplace (radius ``radius`` metres) on ``points`` (T, 2).

    ``V`` is the (constant) starting budget per timestamp; ``settings`` the sampling
    rate's start, floor and step. Returns ``(released, spent,
    published, pub_t, pub_eps, errors)``: the released points (the last publication
    repeated), the budget spent at each timestamp, the published flags, the published
    timestamps with their budgets, and each timestamp's error in metres. Returns None
    where the compiled loop does not apply (it does not pay for this length, see
    :mod:`lmdk_core.foundation.compiled_paths`; no numba; no reachable geodesic routines; or
    ``gen`` not a numpy Generator); the caller then runs the Python loop, which gives
    the same release.
    """
    T = points.shape[0]
    use = _CHOOSER.use_compiled(T, _kernel is not None, FORCE_COMPILED)
    if not use or type(gen) is not np.random.Generator:
        return None
    geo = compiled_geodesic()
    kernel = _compiled_kernel() if geo is not None else None
    if geo is None or kernel is None:
        return None
    lat = np.ascontiguousarray(points[:, 0], dtype=np.float64)
    lon = np.ascontiguousarray(points[:, 1], dtype=np.float64)
    lm = np.ascontiguousarray(is_lm, dtype=np.bool_)
    released = np.empty((T, 2))
    spent = np.zeros(T)
    published = np.zeros(T, dtype=bool)
    errors = np.empty(T)
    pub_t = np.empty(T, dtype=np.intp)
    pub_eps = np.empty(T)
    n_pub = kernel(
        lat, lon, lm, int(np.count_nonzero(lm)), gen, float(V), float(radius),
        float(settings.initial_rate), float(settings.min_rate), float(settings.step),
        geo.geodesic, geo.direct,
        geo.inverse, float(wgs84().a), 1.0 - float(wgs84().f), released, spent, published,
        errors, pub_t, pub_eps)
    return released, spent, published, pub_t[:n_pub], pub_eps[:n_pub], errors
