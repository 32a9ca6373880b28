"""Releasing a series or a trajectory under a landmark-privacy scheme.

One engine for both: the values are a numeric series (shape (T,)) released with the
Laplace or Geometric mechanism, or a trajectory (shape (T, 2), ``[lat, lon]``) released
with Planar Laplace. At each timestamp t the release either

* **publishes** a fresh noisy value from the raw data, spending ε_t, or
* **approximates**: repeats the last released value (post-processing, spends 0); if
  nothing was released yet there is nothing to repeat and the value is withheld (NaN).

Static schemes (event, user, w-event, Uniform, Skip) publish wherever their planned
ε_t > 0. **Adaptive** (the seed's "Adaptive" mechanism, as pinned down in DESIGN.md):
the budget starts as Uniform; a sampling component publishes at t with probability
equal to the current sampling rate (always at the first timestamp). After each noisy
publication it compares the change ``d(o_t, o_prev)`` between the last two
publications with the noise scale (the mechanism's expected error at ε_t, Δf/ε_t for
Laplace): if the noise scale is larger the change is within noise and the rate is
lowered, otherwise raised. It uses only published outputs, so the decisions are
post-processing. When a *landmark* is approximated, its reserved share b is handed to
the future: each of the k later landmarks and every later regular timestamp gets
``+b/(k+1)``; approximating a regular timestamp frees nothing (regular timestamps do
not compose). The theorem's total ``Σ_{L∪{t}} ε_i`` can only go down, and the final
allocation is always passed through the verifier.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.allocation import allocate, scheme_info
from lmdk_core.mechanisms import Geometric, Laplace, PlanarLaplace
from lmdk_core.mechanisms.planar_laplace import check_coordinates
from lmdk_core.validation import (
    InputError,
    as_generator,
    check_epsilon,
    check_landmarks,
)
from lmdk_core.verifier import Verdict, verify

__all__ = [
    "AdaptiveSettings",
    "Release",
    "numeric_mechanism",
    "release",
    "release_series",
    "release_trajectory",
]

NUMERIC_MECHANISMS = {"laplace": Laplace, "geometric": Geometric}


@dataclass(frozen=True)
class AdaptiveSettings:
    """Sampling-rate control of the Adaptive scheme: start, floor and step of the rate."""

    initial_rate: float = 1.0
    min_rate: float = 0.2
    step: float = 0.2

    def __post_init__(self) -> None:
        for name in ("initial_rate", "min_rate", "step"):
            v = getattr(self, name)
            if not (0 < v <= 1):
                raise InputError(f"adaptive {name.replace('_', ' ')} must be in (0, 1], got {v}")
        if self.min_rate > self.initial_rate:
            raise InputError("adaptive minimum rate must not exceed the initial rate")


@dataclass
class Release:
    """A finished release and everything the UI/CLI shows about it.

    ``epsilon_t`` is the budget actually spent (0 where approximated or withheld),
    ``published[t]`` is True where a fresh noisy value was released from the raw data,
    ``errors[t]`` the absolute error (metres for trajectories; NaN where withheld) and
    ``expected_errors[t]`` the mechanism's expected error at ε_t (NaN off publications).
    """

    original: np.ndarray
    released: np.ndarray
    epsilon_t: np.ndarray
    published: np.ndarray
    verdict: Verdict
    scheme: str
    mechanism: str
    epsilon: float
    landmarks: np.ndarray
    errors: np.ndarray
    expected_errors: np.ndarray
    planned_epsilon_t: np.ndarray = field(repr=False)

    @property
    def withheld(self) -> np.ndarray:
        """Timestamps where nothing could be released (approximation before any release)."""
        r = self.released
        return np.isnan(r) if r.ndim == 1 else np.isnan(r).any(axis=1)

    def metrics(self) -> dict[str, float]:
        """Measured MAE/RMSE (over released timestamps), the expected error of the noisy
        publications, and counts of published / approximated / withheld timestamps."""
        ok = ~np.isnan(self.errors)
        e = self.errors[ok]
        pub = self.published
        return {
            "mae": float(e.mean()) if e.size else float("nan"),
            "rmse": float(np.sqrt(np.mean(e**2))) if e.size else float("nan"),
            "median_error": float(np.median(e)) if e.size else float("nan"),
            "p95_error": float(np.percentile(e, 95)) if e.size else float("nan"),
            "mae_published": float(self.errors[pub].mean()) if pub.any() else float("nan"),
            "expected_mae_published": (
                float(np.nanmean(self.expected_errors[pub])) if pub.any() else float("nan")
            ),
            "n_published": int(pub.sum()),
            "n_approximated": int((~pub & ~self.withheld).sum()),
            "n_withheld": int(self.withheld.sum()),
        }


def numeric_mechanism(name: str, sensitivity: float = 1.0) -> Laplace | Geometric:
    """The series mechanism called ``name`` ('laplace' or 'geometric')."""
    key = str(name).strip().lower()
    if key not in NUMERIC_MECHANISMS:
        raise InputError(
            f"unknown mechanism {name!r} for a series; choose laplace or geometric"
        )
    return NUMERIC_MECHANISMS[key](sensitivity)


def _forward_fill(values: np.ndarray, published: np.ndarray) -> np.ndarray:
    """Repeat the last published value at every unpublished timestamp (NaN before any)."""
    idx = np.where(published, np.arange(published.size), -1)
    np.maximum.accumulate(idx, out=idx)
    out = values[np.maximum(idx, 0)].astype(float, copy=True)
    out[idx < 0] = np.nan
    return out


def _adaptive(
    values: np.ndarray,
    landmarks: np.ndarray,
    planned: np.ndarray,
    mech,
    gen: np.random.Generator,
    settings: AdaptiveSettings,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    T = planned.size
    eps = planned.copy()
    is_lm = np.zeros(T, dtype=bool)
    is_lm[landmarks] = True
    published = np.zeros(T, dtype=bool)
    released = np.full(values.shape, np.nan)
    rate = settings.initial_rate
    last = None  # last published output
    # the mechanism's expected error (noise scale) at each ε_t, refreshed when a skipped
    # landmark's share raises the later budgets; single steps use the mechanism's
    # trusted one-value methods (same draws as perturb, without per-call checks)
    noise_scale = np.asarray(mech.expected_error(eps), dtype=float)
    for t in range(T):
        publish = last is None or gen.random() < rate
        if publish:
            out = mech.perturb_one(values[t], eps[t], gen)
            if last is not None:
                if noise_scale[t] > mech.distance_one(out, last):
                    rate = max(settings.min_rate, rate - settings.step)
                else:
                    rate = min(1.0, rate + settings.step)
            released[t] = out
            published[t] = True
            last = out
        else:
            released[t] = last
            if is_lm[t]:
                share = eps[t]
                later = slice(t + 1, T)
                k = int(is_lm[later].sum())
                eps[later] += share / (k + 1)
                if t + 1 < T:
                    noise_scale[later] = mech.expected_error(eps[later])
            eps[t] = 0.0
    return released, eps, published


def release(
    values: ArrayLike,
    landmarks: Iterable[int] | None,
    epsilon: float,
    scheme: str,
    mechanism: Laplace | Geometric | PlanarLaplace,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
) -> Release:
    """Release ``values`` (T,) or trajectory rows (T, 2) under ``scheme`` with ``mechanism``.

    Returns a :class:`Release` whose allocation has been checked by the verifier.
    """
    x = np.asarray(values, dtype=float)
    if x.ndim not in (1, 2) or x.shape[0] == 0:
        raise InputError("there is nothing to release: the data are empty")
    T = x.shape[0]
    eps_total = check_epsilon(epsilon)
    lm = check_landmarks(landmarks, T)
    info = scheme_info(scheme)
    planned = allocate(info.key, T, lm, eps_total, window)
    gen = as_generator(seed)
    if info.key == "adaptive":
        released, spent, published = _adaptive(
            x, lm, planned, mechanism, gen, adaptive or AdaptiveSettings()
        )
    else:
        published = planned > 0
        spent = np.where(published, planned, 0.0)
        noisy = np.array(x, dtype=float, copy=True)
        if published.any():
            noisy[published] = mechanism.perturb(x[published], spent[published], gen)
        released = _forward_fill(noisy, published)
    verdict = verify(spent, lm, eps_total)
    withheld = np.isnan(released) if released.ndim == 1 else np.isnan(released).any(axis=1)
    errors = np.full(T, np.nan)
    if (~withheld).any():
        errors[~withheld] = mechanism.distance(released[~withheld], x[~withheld])
    expected = np.full(T, np.nan)
    if published.any():
        expected[published] = mechanism.expected_error(spent[published])
    return Release(
        original=x,
        released=released,
        epsilon_t=spent,
        published=published,
        verdict=verdict,
        scheme=info.key,
        mechanism=mechanism.name,
        epsilon=eps_total,
        landmarks=lm,
        errors=errors,
        expected_errors=expected,
        planned_epsilon_t=planned,
    )


def release_series(
    values: ArrayLike,
    landmarks: Iterable[int] | None,
    epsilon: float,
    scheme: str,
    mechanism: str = "laplace",
    sensitivity: float = 1.0,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
) -> Release:
    """Release a numeric series with the Laplace or Geometric mechanism."""
    try:
        x = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError("the series values must be numbers") from None
    if x.ndim != 1:
        raise InputError("a series is one column of numbers")
    if not np.all(np.isfinite(x)):
        bad = int(np.flatnonzero(~np.isfinite(x))[0])
        raise InputError(f"the series has a missing or infinite value at t={bad}")
    mech = numeric_mechanism(mechanism, sensitivity)
    if isinstance(mech, Geometric) and np.any(x != np.round(x)):
        raise InputError(
            "the geometric mechanism is for whole numbers (counts); "
            "round the data or choose the Laplace mechanism"
        )
    return release(x, landmarks, epsilon, scheme, mech, seed, window, adaptive)


def release_trajectory(
    lat: ArrayLike,
    lon: ArrayLike,
    landmarks: Iterable[int] | None,
    epsilon: float,
    radius: float,
    scheme: str,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
) -> Release:
    """Release a trajectory with Planar Laplace (protection radius ``radius`` metres);
    errors are displacements in metres."""
    la, lo = check_coordinates(lat, lon)
    mech = PlanarLaplace(radius)
    points = np.column_stack([la, lo])
    return release(points, landmarks, epsilon, scheme, mech, seed, window, adaptive)
