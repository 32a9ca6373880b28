"""The expected error of each released reading of a release setting, in the data's units.

For an allocation ε_t, a publication pattern, the mechanism and its Δf (series) or
protection radius r (track), with the exact laws of :mod:`lmdk_core.decision.noise_laws`:

* a timestamp **published** with budget ε_t carries the mechanism's noise Z:

  - Laplace, b = Δf/ε_t (Dwork et al., TCC 2006): ``E|Z| = Δf/ε_t``;
  - two-sided Geometric, α = e^{−ε_t/Δf} (Ghosh et al., STOC 2009):
    ``E|Z| = 2α/(1 − α²)`` (exact; ≈ Δf/ε_t when ε_t ≪ Δf);
  - Planar Laplace with protection radius r (Andrés et al., "Geo-indistinguishability",
    CCS 2013): the displacement is Gamma(2, r/ε_t), ``E R = 2r/ε_t`` metres;

* an **approximated** timestamp (Skip's landmarks, Adaptive's skips; Katsomallos et al.,
  "Landmark privacy", CODASPY 2022) shows the last publication s(t) plus fresh noise W_t
  of the regular law (:mod:`lmdk_core.engine.repeat_noise`; every fix of a stay too):
  its error is ``E|δ_t + Z_{s(t)} + W_t|`` (:mod:`lmdk_core.decision.fresh_noise_laws`);
  without the fresh noise it would be the data's change since then plus that
  publication's noise, ``E|δ_t + Z_{s(t)}|`` with
  ``δ_t = x_{s(t)} − x_t`` (for a track, δ_t is the distance in metres between the two
  true points): ``|δ| + b·e^{−|δ|/b}`` for Laplace, ``|d| + 2α^{|d|+1}/(1 − α²)`` for
  Geometric, and the integral over the noise's angle and radius for Planar Laplace
  (:func:`~lmdk_core.decision.noise_laws.planar_offset_mean`);
* a **withheld** timestamp (nothing published yet to repeat) has no error (NaN).

The expectation is over the noise, at the publication pattern given (a static scheme's
``ε_t > 0``; for Adaptive, the pattern of the release actually drawn).
:mod:`lmdk_core.decision.utility` compares these errors with the data's own scale.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.decision.fresh_noise_laws import (
    geometric_fresh_mean,
    laplace_fresh_mean,
    planar_fresh_mean,
)
from lmdk_core.decision.noise_laws import geometric_mean, planar_offset_mean
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_positive

__all__ = ["expected_errors", "publication_flags", "series_mechanism"]


def series_mechanism(values: np.ndarray, mechanism: str | None) -> str:
    """The mechanism of ``values``: Planar Laplace for a track, else the named series one."""
    if values.ndim == 2:
        return "planar_laplace"
    mech = str(mechanism or "laplace").strip().lower().replace(" ", "_")
    if mech not in ("laplace", "geometric"):
        raise InputError(f"unknown mechanism {mechanism!r} for a series; choose laplace or "
                         "geometric")
    return mech


def expected_errors(values: ArrayLike, epsilon_t: ArrayLike, published: ArrayLike | None = None,
                    *, mechanism: str | None = "laplace", sensitivity: float | None = None,
                    radius: float | None = None, sources: ArrayLike | None = None,
                    fresh: ArrayLike | None = None) -> np.ndarray:
    """Expected absolute error of each released reading (module docstring): the noise's
    mean at published t, ``E|δ_t + Z_{s(t)}|`` at approximated t, NaN where withheld.

    ``values`` is a series (T,) or a track (T, 2) ``[lat, lon]`` (errors in metres);
    ``published`` defaults to ``epsilon_t > 0``. Laplace/Geometric need ``sensitivity``
    (Δf), Planar Laplace ``radius`` (r, metres). ``sources`` (same shape as ``values``):
    the value a publication at t added its noise to, when it is not ``values[t]`` — a
    stay released as one event publishes its centroid (docs/stays.md), so
    ``δ_t = source_{s(t)} − x_t`` at every fix of the stay, its first one included.
    ``fresh`` (T,): the budget of the fresh post-processing noise W_t each released value
    carries (0 where none; :mod:`lmdk_core.engine.repeat_noise`), whose error is then
    ``E|δ_t + Z_{s(t)} + W_t|`` (:mod:`lmdk_core.decision.fresh_noise_laws`); by default
    every approximated reading and every fix of a stay (where ``sources`` differ from
    the values) at the largest ε_t — the regular share of every static scheme.
    """
    x = np.asarray(values, dtype=float)
    eps = np.asarray(epsilon_t, dtype=float)
    pub = _checked_publication(x, eps, published)
    mech = series_mechanism(x, mechanism)
    scale = _noise_scale(mech, sensitivity, radius)
    y = x if sources is None else np.asarray(sources, dtype=float)
    if y.shape != x.shape:
        raise InputError("the publication sources must have the shape of the data")
    fr = _fresh_budgets(x, y, eps, pub, sources is not None, fresh)
    if sources is None and pub.all() and not fr.any():  # every timestamp published as is
        return _noise_mean(mech, scale, eps)
    T = eps.size
    idx = np.where(pub, np.arange(T), -1)
    np.maximum.accumulate(idx, out=idx)
    r = np.flatnonzero(idx >= 0)  # released (not withheld)
    src = idx[r]
    e = eps[src]
    vals = _noise_mean(mech, scale, e)
    fresh_r = fr[r] > 0  # their error is the fresh noise's law, set below
    # the other readings whose error has an offset: repeated ones, or any whose
    # publication noised another value (a stay's centroid)
    cand = np.flatnonzero((src != r if sources is None else True) & ~fresh_r)
    if cand.size:
        d = _offset_lengths(x, y, r[cand], src[cand])
        nz = d != 0
        cand, d = cand[nz], d[nz]
        vals[cand] = _offset_mean(mech, scale, d, e[cand])
    with_fresh = np.flatnonzero(fresh_r)
    if with_fresh.size:
        d = _offset_lengths(x, y, r[with_fresh], src[with_fresh])
        vals[with_fresh] = _fresh_mean(mech, scale, d, e[with_fresh], fr[r][with_fresh])
    out = np.full(T, np.nan)
    out[r] = vals
    return out


def _fresh_budgets(x: np.ndarray, y: np.ndarray, eps: np.ndarray, pub: np.ndarray,
                   stays: bool, fresh: ArrayLike | None) -> np.ndarray:
    """Per timestamp, the budget of the fresh noise its released value carries (see
    :func:`expected_errors`)."""
    if fresh is not None:
        fr = np.asarray(fresh, dtype=float)
        if fr.shape != eps.shape:
            raise InputError("the fresh-noise budgets must have one entry per timestamp")
        return fr
    repeated = ~pub
    if stays:
        moved = y != x if x.ndim == 1 else np.any(y != x, axis=1)
        repeated = repeated | moved
    return np.where(repeated, float(eps.max()) if eps.size else 0.0, 0.0)


def _fresh_mean(mech: str, scale: float, d: np.ndarray, e: np.ndarray,
                ef: np.ndarray) -> np.ndarray:
    """``E|δ + Z + W|``: a publication's noise at ``e`` plus fresh noise at ``ef``."""
    if mech == "laplace":
        return laplace_fresh_mean(d, scale / e, scale / ef)
    if mech == "geometric":
        return geometric_fresh_mean(d, e / scale, ef / scale)
    return planar_fresh_mean(d, scale / e, scale / ef)


def _noise_scale(mech: str, sensitivity: float | None, radius: float | None) -> float:
    """The mechanism's scale unit, checked > 0: the protection radius r for Planar
    Laplace, the sensitivity Δf otherwise."""
    if mech == "planar_laplace":
        return check_positive(radius, "protection radius r")
    return check_positive(sensitivity, "sensitivity Δf")


def _checked_publication(x: np.ndarray, eps: np.ndarray,
                         published: ArrayLike | None) -> np.ndarray:
    """The publication flags (default ``ε_t > 0``), after checking the allocation fits the
    data, every ε_t is finite and ≥ 0 and every published t has ε_t > 0."""
    _check_allocation(x, eps)
    pub = publication_flags(eps, published)
    if pub.shape != eps.shape:
        raise InputError("the publication flags must have one entry per timestamp")
    if np.any(pub & (eps <= 0)):
        raise InputError("a published timestamp needs ε_t > 0")
    return pub


def _check_allocation(x: np.ndarray, eps: np.ndarray) -> None:
    """One finite ε_t ≥ 0 per reading of a series (T,) or a track (T, 2)."""
    if x.ndim not in (1, 2) or x.shape[0] != eps.size or eps.ndim != 1:
        raise InputError(f"the allocation has {eps.size} budgets for {x.shape[0]} readings")
    if np.any(~np.isfinite(eps)) or np.any(eps < 0):
        raise InputError("every ε_t must be a finite number ≥ 0")


def publication_flags(eps: np.ndarray, published: ArrayLike | None) -> np.ndarray:
    """Whether each timestamp is published: ``published`` as booleans, default ``ε_t > 0``
    (a static scheme's pattern)."""
    return eps > 0 if published is None else np.asarray(published, dtype=bool)


def _noise_mean(mech: str, scale: float, e: np.ndarray) -> np.ndarray:
    """E|Z| of a publication at budget ``e`` (no offset): Δf/ε_t, 2α/(1 − α²) or 2r/ε_t."""
    if mech == "laplace":
        return scale / e
    if mech == "geometric":  # 2α/(1 − α²), 1 − α² = −expm1(−2ε/Δf): exact for tiny ε
        return 2.0 * np.exp(-e / scale) / -np.expm1(-2.0 * e / scale)
    return 2.0 * scale / e


def _offset_lengths(x: np.ndarray, y: np.ndarray, t: np.ndarray, s: np.ndarray) -> np.ndarray:
    """|δ_t| = |y_s − x_t| for a series, the geodesic distance in metres for a track
    (NaN read as 0)."""
    if x.ndim == 1:
        return np.abs(np.nan_to_num(y[s] - x[t]))
    from lmdk_core.foundation.geodesy import distance_m

    return np.nan_to_num(distance_m(y[s, 0], y[s, 1], x[t, 0], x[t, 1]))


def _offset_mean(mech: str, scale: float, d: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``E|δ + Z|`` of a reading ``d`` away from the publication it repeats, at budget ``e``."""
    if mech == "laplace":
        b = scale / e
        # |δ| + b·e^{−|δ|/b}; past |δ|/b = 60 the second term is below |δ|'s last bit
        return d + b * np.exp(-np.minimum(d / b, 60.0))
    if mech == "geometric":
        return geometric_mean(d, np.exp(-e / scale))
    return planar_offset_mean(d, scale / e)
