"""Exact (floating-point-safe) Laplace and Geometric noise with OpenDP's samplers.

**Why.** Mironov ("On significance of the least significant bits for differential
privacy", CCS 2012) showed that textbook floating-point Laplace noise — ``x + b·log(U)``
computed in doubles, as numpy does — is not differentially private: the set of doubles
reachable from ``x`` differs from the one reachable from a neighbour ``x′``, so many
outputs betray their input exactly. OpenDP (``opendp`` package, the OpenDP project)
samples the discrete Laplace / two-sided geometric distribution exactly with integer
arithmetic and OS entropy (Canonne, Kamath & Steinke, "The discrete Gaussian for
differential privacy", NeurIPS 2020, §5.2), and for floats adds the noise on the exact
lattice of doubles before one final rounding — a post-processing of an exactly private
release. Its measurements carry a proven privacy map.

**What this module does.** :func:`exact_laplace` and :func:`exact_geometric` apply
OpenDP's vector measurements (``make_laplace`` / ``make_geometric`` over
``vector_domain`` with the L1 distance) **to the values themselves** — never "noise
drawn separately and added afterwards", which would re-open Mironov's hole. Each element
has its own scale ``b_i = Δf/ε_i``: elements are grouped by distinct scale and each group
goes through one measurement of that scale. Every measurement's own privacy map is
checked: ``map(d_in = 1) = 1/b`` (so an element with ``b = Δf/ε_i`` is ε_i-DP for a
query of sensitivity Δf, exactly the budget the landmark-privacy verifier accounts for).

**Many values in one call.** OpenDP's cost is mostly per call (about 0.1 ms) on top of
its per-value sampling (about 22 µs for a float Laplace, 5 µs for an integer geometric,
on this project's 2-core machine), so callers pass as many values as they can at once —
the population batch sends all the users of a partition (Adaptive: of one timestamp)
together. This changes nothing for any one value: OpenDP draws every element of the
vector independently from OS entropy, and an element released with scale ``b_i`` is
ε_i-DP for a change of Δf in that element whatever the other elements are, so the values
of other users sharing a call neither depend on a user's data nor add to that user's
budget.

Distributions: Laplace ``P(z) ∝ exp(−|z|/b)`` (on the double lattice), Geometric
``P(Z = k) = (1−a)/(1+a)·a^|k|`` with ``a = exp(−1/b)`` (Ghosh, Roughgarden &
Sundararajan, STOC 2009), i.e. ``a = exp(−ε/Δf)``.

OpenDP draws from OS entropy: these releases cannot be seeded or reproduced (which is
the point for publication). Reproducible runs use the numpy path (``--noise fast``).
The module imports ``opendp`` only when first used.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.engine.validation import InputError

__all__ = ["FAST_SAMPLER_NAME", "SAMPLER_NAME", "exact_geometric", "exact_laplace",
           "sampler_description"]

#: the name of the secure path, written into every file it produced
SAMPLER_NAME = "OpenDP exact samplers (discrete Laplace / geometric; Mironov-safe)"
#: the name of the fast path (numpy floating-point noise: exploration only)
FAST_SAMPLER_NAME = "numpy floating-point samplers (fast; not protected against Mironov 2012)"

#: largest integer magnitude the geometric path accepts (OpenDP works in int64)
_MAX_COUNT = 2**62


@lru_cache(maxsize=1)
def sampler_description() -> str:
    """:data:`SAMPLER_NAME` with the installed OpenDP version (looked up once: reading the
    installed packages' metadata took ~1 ms on every rerun of the Timeline and the Map,
    whose downloads name the sampler)."""
    from importlib.metadata import version

    return f"{SAMPLER_NAME}, opendp {version('opendp')}"


def _dp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _check_map(meas, scale: float) -> None:
    """OpenDP's privacy map at d_in = 1 must be 1/scale (our ε_i = Δf/b accounting)."""
    got = float(meas.map(1.0))
    want = 1.0 / scale
    if not abs(got - want) <= 1e-9 * want:  # pragma: no cover - an OpenDP API change
        raise RuntimeError(f"OpenDP's privacy map gives {got} at scale {scale}, expected "
                           f"{want}: the installed opendp interprets the scale differently")


@lru_cache(maxsize=1)
def _float_space():
    """OpenDP's input space of the float measurements (vectors of non-NaN doubles, L1
    distance), built once: building it costs several times a measurement."""
    dp = _dp()
    return dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)


@lru_cache(maxsize=1)
def _integer_space():
    """OpenDP's input space of the geometric measurements (vectors of int64, L1)."""
    dp = _dp()
    return dp.vector_domain(dp.atom_domain(T="i64")), dp.l1_distance(T="i64")


@lru_cache(maxsize=4096)
def _laplace_measurement(scale: float):
    meas = _dp().m.make_laplace(*_float_space(), scale=scale)
    _check_map(meas, scale)
    return meas


@lru_cache(maxsize=4096)
def _geometric_measurement(scale: float):
    meas = _dp().m.make_geometric(*_integer_space(), scale=scale)
    got = float(meas.map(1))
    if not abs(got - 1.0 / scale) <= 1e-9 / scale:  # pragma: no cover - API change
        raise RuntimeError(f"OpenDP's geometric privacy map gives {got} at scale {scale}")
    return meas


def _prepare(values: ArrayLike, scales: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    try:
        x = np.asarray(values, dtype=float)
        b = np.asarray(scales, dtype=float)
    except (TypeError, ValueError):
        raise InputError("values and noise scales must be numbers") from None
    try:
        b = np.broadcast_to(b, x.shape)
    except ValueError:
        raise InputError(f"need one noise scale per value ({x.size}) or one for all, "
                         f"got {b.size}") from None
    if not np.all(np.isfinite(x)):
        raise InputError("values to release must be finite numbers (no NaN or infinity)")
    if not np.all(np.isfinite(b) & (b > 0)):
        raise InputError("noise scales Δf/ε must be positive finite numbers (ε_t > 0)")
    return x, b


def _grouped(x: np.ndarray, b: np.ndarray, run) -> np.ndarray:
    """Apply ``run(scale, values_list) -> list`` to each group of equal scale."""
    flat_x, flat_b = x.ravel(), b.ravel()
    out = np.empty(flat_x.shape, dtype=float)
    if flat_x.size == 0:
        return out.reshape(x.shape)
    if flat_b[0] == flat_b[-1] and np.all(flat_b == flat_b[0]):  # one scale: one call
        out[:] = np.asarray(run(float(flat_b[0]), flat_x), dtype=float)
        return out.reshape(x.shape)
    uniq, inv = np.unique(flat_b, return_inverse=True)
    order = np.argsort(inv, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(inv, minlength=uniq.size))])
    for g, scale in enumerate(uniq.tolist()):
        idx = order[bounds[g]:bounds[g + 1]]
        out[idx] = np.asarray(run(scale, flat_x[idx]), dtype=float)
    return out.reshape(x.shape)


def _opendp_error(exc: Exception) -> InputError:
    msg = str(getattr(exc, "message", None) or exc).strip().splitlines()
    return InputError(f"OpenDP refused the release: {msg[0] if msg else type(exc).__name__}")


def exact_laplace(values: ArrayLike, scales: ArrayLike) -> np.ndarray:
    """``values_i + Lap(b_i)`` drawn exactly by OpenDP's ``make_laplace`` (one scale
    ``b_i = Δf/ε_i`` per element, or one for all); same shape as ``values``.

    Raises InputError for non-finite values, non-positive scales, or a release that
    overflows the doubles.
    """
    x, b = _prepare(values, scales)

    def run(scale: float, vals: np.ndarray) -> list:
        try:
            return _laplace_measurement(scale)(vals.tolist())
        except Exception as exc:  # OpenDPException: bad scale, overflow, ...
            if isinstance(exc, RuntimeError) and "privacy map" in str(exc):
                raise
            raise _opendp_error(exc) from None

    out = _grouped(x, b, run)
    if not np.all(np.isfinite(out)):
        raise InputError("a released value overflows (the value plus its noise is beyond "
                         "±1.8e308); rescale the data or raise ε")
    return out


def exact_geometric(values: ArrayLike, scales: ArrayLike) -> np.ndarray:
    """``values_i + Z_i`` with two-sided geometric ``Z_i`` of scale ``b_i = Δf/ε_i``
    (``P(Z = k) ∝ exp(−|k|/b)``) drawn exactly by OpenDP's ``make_geometric`` over
    64-bit integers. Values must be whole numbers of magnitude below 2⁶²; returns floats
    holding whole numbers.
    """
    x, b = _prepare(values, scales)
    if np.any(x != np.round(x)):
        raise InputError("the geometric mechanism is for whole numbers (counts); round the "
                         "data or use the Laplace mechanism")
    if np.any(np.abs(x) >= _MAX_COUNT):
        raise InputError(f"counts must be below 2^62 ≈ {_MAX_COUNT:.3g} in magnitude for the "
                         "exact geometric sampler")

    def run(scale: float, vals: np.ndarray) -> list:
        try:
            return _geometric_measurement(scale)(vals.astype(np.int64).tolist())
        except Exception as exc:
            raise _opendp_error(exc) from None

    return _grouped(x, b, run)
