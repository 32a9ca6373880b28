"""Comparing budget schemes on the same data and landmarks, and the utility-vs-ε sweep.

Two things the Compare page (and the privacy report) show:

* :func:`compare_schemes` — one release per scheme with the same data, landmarks, ε,
  mechanism and seed (so the same noise draws wherever two schemes spend the same
  ε_t), each checked by the landmark-privacy verifier (:func:`lmdk_core.engine.verifier.verify`,
  run inside :func:`lmdk_core.engine.release.release`);
* :func:`utility_sweep` — for a grid of total budgets ε and R Monte Carlo runs per ε,
  the mean absolute error of each scheme (Laplace: MAE Δf/ε_t at a noisy release;
  Planar Laplace: mean displacement 2r/ε_t, Andrés et al. CCS'13), plus how many
  landmarks each scheme published from the raw data and whether every run was
  landmark-private. Run r at grid point i uses the generator
  ``default_rng([seed, i, r])`` for every scheme (common random numbers), so the
  differences between schemes are not sampling noise of independent draws.
  :func:`sweep_reading` turns the result into plain sentences.

In the spirit of ViP (Nanayakkara et al., PETS'22): show the trade-off, with its
uncertainty, rather than a single number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.release import Release, release_series, release_trajectory
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_epsilon, check_landmarks

__all__ = [
    "MAX_RUNS",
    "ErrorBand",
    "ReleaseFn",
    "UtilitySweep",
    "compare_schemes",
    "epsilon_grid",
    "series_release_fn",
    "sweep_reading",
    "track_release_fn",
    "utility_sweep",
]

#: a release of the page's data for (scheme, ε, generator)
ReleaseFn = Callable[[str, float, np.random.Generator], Release]

#: most Monte Carlo runs per (scheme, ε) a sweep accepts
MAX_RUNS = 500
#: most grid points of ε a sweep accepts
MAX_GRID = 60


def series_release_fn(values: ArrayLike, landmarks: Iterable[int], *, mechanism: str = "laplace",
                      sensitivity: float = 1.0, window: int | None = None,
                      max_landmarks: int | None = None,
                      runs: Iterable[tuple[int, int]] | None = None) -> ReleaseFn:
    """A :data:`ReleaseFn` for a numeric series (Laplace or Geometric); ``max_landmarks``
    the declared bound k on landmark events (Uniform ε/(k+1)); ``runs`` of readings
    protected as one landmark event each (docs/series-events.md)."""
    x = np.asarray(values, dtype=float)
    lm = list(landmarks)
    groups = list(runs or []) or None

    def run(scheme: str, epsilon: float, gen: np.random.Generator) -> Release:
        return release_series(x, lm, epsilon=epsilon, scheme=scheme, mechanism=mechanism,
                              sensitivity=sensitivity, seed=gen, window=window,
                              max_landmarks=max_landmarks, runs=groups)

    return run


def track_release_fn(lat: ArrayLike, lon: ArrayLike, landmarks: Iterable[int], *, radius: float,
                     window: int | None = None,
                     stays: Iterable[tuple[int, int]] | None = None,
                     max_landmarks: int | None = None) -> ReleaseFn:
    """A :data:`ReleaseFn` for a trajectory (Planar Laplace, protection radius in metres;
    ``stays`` protected as one landmark event each, docs/stays.md; ``max_landmarks`` the
    declared bound k on landmark events)."""
    la, lo = np.asarray(lat, dtype=float), np.asarray(lon, dtype=float)
    lm = list(landmarks)
    groups = list(stays or []) or None

    def run(scheme: str, epsilon: float, gen: np.random.Generator) -> Release:
        return release_trajectory(la, lo, lm, epsilon=epsilon, radius=radius, scheme=scheme,
                                  seed=gen, window=window, stays=groups,
                                  max_landmarks=max_landmarks)

    return run


def _check_schemes(schemes: Sequence[str]) -> tuple[str, ...]:
    keys = tuple(dict.fromkeys(scheme_info(s).key for s in schemes))
    if not keys:
        raise InputError("pick at least one scheme to compare")
    return keys


def compare_schemes(release_fn: ReleaseFn, schemes: Sequence[str], epsilon: float,
                    seed: int) -> dict[str, Release]:
    """One release per scheme (verifier included), all with the generator of ``seed``."""
    eps = check_epsilon(epsilon)
    return {s: release_fn(s, eps, np.random.default_rng(seed)) for s in _check_schemes(schemes)}


def epsilon_grid(low: float, high: float, points: int, log: bool = True) -> np.ndarray:
    """``points`` total budgets from ``low`` to ``high`` (geometric spacing by default)."""
    lo = check_epsilon(low, "the smallest ε")
    hi = check_epsilon(high, "the largest ε")
    if hi <= lo:
        raise InputError(f"the largest ε ({hi:g}) must be greater than the smallest ({lo:g})")
    if isinstance(points, bool) or int(points) != points or not 2 <= points <= MAX_GRID:
        raise InputError(f"the number of ε values must be a whole number from 2 to {MAX_GRID}")
    return np.geomspace(lo, hi, int(points)) if log else np.linspace(lo, hi, int(points))


class ErrorBand(NamedTuple):
    """Percentiles of the error over the runs, each (schemes, ε) (:meth:`UtilitySweep.band`)."""

    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class UtilitySweep:
    """Monte Carlo error of each scheme over a grid of ε.

    ``errors[s, i, r]``: mean absolute error (data unit, or metres for a track) over the
    released timestamps of run r at ``epsilons[i]`` for ``schemes[s]`` (NaN when the run
    released nothing). ``landmarks_published[s, i]``: mean fraction of the landmarks
    published from the raw data (NaN without landmarks). ``published[s, i]``: mean
    fraction of all timestamps published from the raw data. ``private[s, i]``: every
    run passed the verifier. ``worst_total[s, i]``: the largest Σ_{L∪{t}} ε_i seen.
    """

    schemes: tuple[str, ...]
    epsilons: np.ndarray
    runs: int
    seed: int
    errors: np.ndarray
    landmarks_published: np.ndarray
    published: np.ndarray
    private: np.ndarray
    worst_total: np.ndarray
    n_landmarks: int

    def mean(self) -> np.ndarray:
        """Mean error over the runs, shape (schemes, ε)."""
        with np.errstate(all="ignore"):
            return np.nanmean(self.errors, axis=2)

    def band(self, low: float = 10.0, high: float = 90.0) -> ErrorBand:
        """Percentiles of the error over the runs (the spread band), each (schemes, ε)."""
        with np.errstate(all="ignore"):
            return ErrorBand(np.nanpercentile(self.errors, low, axis=2),
                             np.nanpercentile(self.errors, high, axis=2))

    def standard_error(self) -> np.ndarray:
        """Standard error of the mean error, shape (schemes, ε)."""
        n = np.sum(~np.isnan(self.errors), axis=2)
        with np.errstate(all="ignore"):
            sd = np.nanstd(self.errors, axis=2, ddof=1)
            return np.where(n > 1, sd / np.sqrt(n), np.nan)

    def to_records(self) -> list[dict]:
        """One row per (scheme, ε): for a table or a CSV download."""
        mean, (lo, hi), se = self.mean(), self.band(), self.standard_error()
        rows = []
        for s, key in enumerate(self.schemes):
            for i, e in enumerate(self.epsilons):
                rows.append({
                    "scheme": key, "epsilon": float(e), "mean_error": float(mean[s, i]),
                    "p10_error": float(lo[s, i]), "p90_error": float(hi[s, i]),
                    "standard_error": float(se[s, i]),
                    "landmarks_published": float(self.landmarks_published[s, i]),
                    "published": float(self.published[s, i]),
                    "landmark_private": bool(self.private[s, i]),
                    "worst_total": float(self.worst_total[s, i]),
                })
        return rows


def utility_sweep(
    release_fn: ReleaseFn,
    schemes: Sequence[str],
    epsilons: ArrayLike,
    *, runs: int,
    seed: int,
    landmarks: Iterable[int] = (),
    progress: Callable[[float, str], object] | None = None,
) -> UtilitySweep:
    """Run every scheme ``runs`` times at every ε of ``epsilons`` (see the module doc).

    ``landmarks`` are only used to count how many landmarks each run published from the
    raw data (the releases get theirs from ``release_fn``). ``progress(fraction, text)``
    is called after each (ε, scheme) cell.
    """
    keys = _check_schemes(schemes)
    eps = _check_sweep_grid(epsilons)
    R = _check_runs(runs)
    S, E = len(keys), eps.size
    errors = np.full((S, E, R), np.nan)
    lm_pub = np.full((S, E), np.nan)
    pub = np.zeros((S, E))
    private = np.ones((S, E), dtype=bool)
    worst = np.zeros((S, E))
    lm: np.ndarray | None = None
    cells, done = S * E, 0
    for i, e in enumerate(eps):
        for s, key in enumerate(keys):
            rels = (release_fn(key, float(e), np.random.default_rng([int(seed), i, r]))
                    for r in range(R))
            cell, lm = _cell_summary(rels, landmarks, lm)
            errors[s, i], pub[s, i], lm_pub[s, i], private[s, i], worst[s, i] = cell
            done += 1
            if progress is not None:
                progress(done / cells, f"ε = {e:.3g}: {scheme_info(key).label} ({done}/{cells})")
    return UtilitySweep(schemes=keys, epsilons=eps, runs=R, seed=int(seed), errors=errors,
                        landmarks_published=lm_pub, published=pub, private=private,
                        worst_total=worst, n_landmarks=0 if lm is None else int(lm.size))


def _check_runs(runs: int) -> int:
    """The Monte Carlo runs R per (scheme, ε): a whole number from 1 to MAX_RUNS."""
    if isinstance(runs, bool) or int(runs) != runs or not 1 <= runs <= MAX_RUNS:
        raise InputError(f"the number of runs R must be a whole number from 1 to {MAX_RUNS}")
    return int(runs)


def _check_sweep_grid(epsilons: ArrayLike) -> np.ndarray:
    """The grid of ε as a 1-D array of 1 … MAX_GRID valid budgets."""
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if eps.ndim != 1 or eps.size == 0 or eps.size > MAX_GRID:
        raise InputError(f"give between 1 and {MAX_GRID} values of ε")
    for e in eps:
        check_epsilon(e)
    return eps


def _cell_summary(rels: Iterable[Release], landmarks: Iterable[int], lm: np.ndarray | None
                  ) -> tuple[tuple[np.ndarray, float, float, bool, float], np.ndarray]:
    """One (scheme, ε) cell of the sweep from its runs, read one release at a time: (MAE
    per run, mean share of timestamps published, mean share of landmarks published (NaN
    without landmarks), whether every run is landmark-private, the largest worst total),
    and the checked landmark set (``lm``, checked against the first release when None)."""
    maes, pub_frac, lm_frac = [], [], []
    private, worst = True, 0.0
    for rel in rels:
        if lm is None:
            lm = check_landmarks(landmarks, rel.original.shape[0])
        # the two numbers of rel.metrics() the sweep reads (its median and percentile of
        # the errors were a quarter of a sweep's time)
        maes.append(rel.measured_mae)
        pub_frac.append(int(rel.published.sum()) / rel.published.size)
        if lm.size:
            lm_frac.append(float(rel.published[lm].mean()))
        private &= bool(rel.verdict.private)
        worst = max(worst, rel.verdict.worst_total)
    lm_mean = float(np.mean(lm_frac)) if lm_frac else float("nan")
    if lm is None:
        raise ValueError("no release to summarise")
    return (np.asarray(maes, dtype=float), float(np.mean(pub_frac)), lm_mean, private,
            worst), lm


def _ratio(a: float, b: float) -> str:
    """'3.2× ', '17% lower than ', 'about the same as ' (a compared with b)."""
    r = a / b
    if r >= 1.05:
        return f"{r:.1f}× " if r < 10 else f"{r:.0f}× "
    if r <= 1 / 1.05:
        return f"{100 * (1 - r):.0f}% lower than "
    return "about the same as "


def sweep_reading(sweep: UtilitySweep, epsilon: float, unit: str = "",
                  landmark_leakage: dict[str, float] | None = None) -> list[str]:
    """Plain-language sentences about the sweep at the grid point nearest ``epsilon``.

    Names the most accurate landmark-private scheme, how the others' errors compare, and
    the catches: schemes that are not landmark-private, schemes that publish nothing
    fresh at the landmarks, schemes that skip timestamps, and — given
    ``landmark_leakage`` (scheme → largest landmark TPL at the current ε) — schemes
    whose leakage under temporal correlation exceeds ε.
    """
    eps = check_epsilon(epsilon)
    i = int(np.argmin(np.abs(np.log(sweep.epsilons) - np.log(eps))))
    label = {k: scheme_info(k).label for k in sweep.schemes}
    out = _range_note(sweep, eps, i)
    out += _accuracy_lines(sweep, i, label, f" {unit}" if unit else "")
    for s, key in enumerate(sweep.schemes):
        out += _scheme_catches(sweep, s, i, label[key])
    out += _leakage_lines(landmark_leakage or {}, label, eps)
    out += _shrink_lines(sweep, label)
    return out


def _range_note(sweep: UtilitySweep, eps: float, i: int) -> list[str]:
    """A note when the current ε lies outside the swept range (grid point ``i`` is read)."""
    if 0.999 * sweep.epsilons[0] <= eps <= 1.001 * sweep.epsilons[-1]:
        return []
    return [f"The current ε = {eps:.3g} lies outside the swept range "
            f"({sweep.epsilons[0]:.3g} to {sweep.epsilons[-1]:.3g}); this reading is "
            f"for the nearest swept value, ε = {float(sweep.epsilons[i]):.3g}."]


def _accuracy_lines(sweep: UtilitySweep, i: int, label: dict[str, str], u: str) -> list[str]:
    """The most accurate landmark-private scheme at grid point ``i`` and how the others'
    errors compare with it."""
    e = float(sweep.epsilons[i])
    mean = sweep.mean()[:, i]
    best = _most_accurate_private(sweep, i, mean)
    if best is None:
        return [f"At ε = {e:.3g} none of the chosen schemes is landmark-private with "
                "these landmarks."]
    best_name = label[sweep.schemes[best]]
    out = [f"At ε = {e:.3g} the most accurate landmark-private scheme is "
           f"**{best_name}** (mean error {mean[best]:.3g}{u} over {sweep.runs} runs)."]
    for s in range(len(sweep.schemes)):
        if s == best or not np.isfinite(mean[s]):
            continue
        out.append(f"{label[sweep.schemes[s]]}'s error is {_ratio(mean[s], mean[best])}"
                   f"{best_name}'s ({mean[s]:.3g}{u}).")
    return out


def _most_accurate_private(sweep: UtilitySweep, i: int, mean: np.ndarray) -> int | None:
    """The index of the landmark-private scheme with the smallest mean error at grid point
    ``i`` (None when no scheme is landmark-private there with a finite error)."""
    ok = [s for s in range(len(sweep.schemes))
          if sweep.private[s, i] and np.isfinite(mean[s])]
    return min(ok, key=lambda s: mean[s]) if ok else None


def _scheme_catches(sweep: UtilitySweep, s: int, i: int, name: str) -> list[str]:
    """The catches of scheme ``s`` at grid point ``i``: not landmark-private, nothing fresh
    at the landmarks, or only some landmarks published."""
    e = float(sweep.epsilons[i])
    out = []
    if not sweep.private[s, i]:
        out.append(f"**{name} is not landmark-private** here: the landmarks plus one "
                   f"timestamp spend up to {sweep.worst_total[s, i]:.3g} > ε = {e:.3g}, "
                   "so its error is not a fair comparison.")
    lp = sweep.landmarks_published[s, i]
    if not np.isfinite(lp):
        return out
    if lp == 0:
        out.append(f"{name} publishes nothing fresh at the landmarks: they get the last "
                   "release repeated, so the landmark values themselves are never "
                   "estimated.")
    elif lp < 0.999 and sweep.private[s, i]:
        out.append(f"{name} published {100 * lp:.0f}% of the landmarks and "
                   f"{100 * sweep.published[s, i]:.0f}% of all timestamps from the raw "
                   "data; the rest repeat the last release.")
    return out


def _leakage_lines(landmark_leakage: dict[str, float], label: dict[str, str],
                   eps: float) -> list[str]:
    """The schemes whose largest landmark TPL under correlation exceeds ε, if any."""
    over = {k: v for k, v in landmark_leakage.items() if k in label and v > eps * 1.001}
    if not over:
        return []
    worst = max(over, key=lambda k: over[k])
    return ["Under temporal correlation the guarantee is weaker than ε: the landmarks "
            "plus one timestamp leak up to " + ", ".join(
                f"{over[k]:.3g} ({label[k]})" for k in sorted(over, key=lambda k: over[k]))
            + f" at ε = {eps:.3g}. The most accurate scheme is not always the safest: "
            f"{label[worst]} leaks the most."]


def _shrink_lines(sweep: UtilitySweep, label: dict[str, str]) -> list[str]:
    """How much each scheme's error shrinks from the smallest to the largest swept ε."""
    if sweep.epsilons.size < 2:
        return []
    m = sweep.mean()
    span = float(sweep.epsilons[-1] / sweep.epsilons[0])
    parts = [f"{label[k]}'s {m[s, 0] / m[s, -1]:.3g}×" for s, k in enumerate(sweep.schemes)
             if np.isfinite(m[s, 0]) and np.isfinite(m[s, -1]) and m[s, -1] > 0]
    if not parts:
        return []
    return [f"From ε = {sweep.epsilons[0]:.3g} to {sweep.epsilons[-1]:.3g} "
            f"({span:.3g}× more budget) the errors shrink: " + ", ".join(parts)
            + ". Noise shrinks in proportion to ε_t; repeated (approximated) "
            "values keep the error of the data's own changes, whatever ε."]
