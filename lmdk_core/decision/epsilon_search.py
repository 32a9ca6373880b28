"""Accuracy → ε: the smallest total budget ε, and every interval of ε, at which a scheme
meets an accuracy target (:class:`~lmdk_core.decision.accuracy.AccuracyTarget`).

**Solving.** The allocation of every static scheme is ε times a fixed profile, so the
accuracy at ε has the closed forms of
:mod:`lmdk_core.decision.accuracy`. It is increasing in ε at published
timestamps but not at approximated ones (a repeated value that is off by more than
±a is *less* likely to land within ±a when the noise shrinks: its probability rises,
peaks and falls), so the set of ε that meet a target can be an interval or several.
The solver scans a log grid; when some reading's accuracy is not monotone it also
maximises the accuracy inside every grid cell (bounded Brent), so a feasible window
narrower than a grid cell is found, and it bisects every crossing: the answer lists
every feasible interval found and the smallest ε. It is **exact** (every interval)
when the accuracy is monotone, and for ``each`` with Laplace or Geometric noise (each
reading's probability is then increasing or unimodal in ε, their minimum is
quasi-concave, so the feasible set is one interval and a cell's maximum is found);
otherwise the method says it is **approximate** (two windows inside one grid cell
could be taken for one). When no ε in the range reaches the target it says why.

Adaptive's accuracy is a Monte Carlo estimate
(:mod:`lmdk_core.decision.adaptive_accuracy`): its search scans a coarser grid from an
exact floor and bisects the first crossing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.decision.accuracy import (
    EPS_RANGE,
    AccuracyTarget,
    EpsilonSolution,
    accuracy_is_monotone,
    meets_target,
    reading_accuracy,
    rising_readings,
    static_accuracy,
)
from lmdk_core.decision.accuracy_model import (
    AccuracyModel,
    accuracy_model,
    fresh_budgets,
    reading_offsets,
)
from lmdk_core.decision.adaptive_accuracy import (
    adaptive_epsilon_floor,
    adaptive_errors,
    estimate_meets_target,
    min_adaptive_runs,
)
from lmdk_core.decision.noise_laws import laplace_within_peak
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_epsilon

__all__ = ["MonteCarloSettings", "solve_epsilon", "solve_all_schemes"]

#: points of the log grid scanned before bisection (per decade ≈ 12)
GRID_POINTS = 97


def _bisect(meets: Callable[[float], bool], a: float, b: float, rel_tol: float) -> float:
    """The crossing between ``a`` and ``b`` (exactly one of which ``meets`` the target),
    to a relative ``rel_tol``; returns the end that meets."""
    meets_a = meets(a)
    while b / a - 1 > rel_tol:
        mid = float(np.sqrt(a * b))
        if meets(mid) == meets_a:
            a = mid
        else:
            b = mid
    return a if meets_a else b


def _grid_status(value, target: AccuracyTarget, grid: np.ndarray,
                 progress=None) -> list[tuple[float, bool]]:
    """(ε, whether ``value(ε)`` meets ``target``) at every grid point (progress 0 → 0.6)."""
    pts = []
    n = grid.size
    for i, e in enumerate(grid):
        if progress is not None:
            progress(0.6 * (i + 1) / n)
        pts.append((float(e), meets_target(value(float(e)), target)))
    return pts


def _cell_maximum(value, target: AccuracyTarget, e0: float, e1: float) -> float | None:
    """The ε of the best accuracy strictly inside the cell (e0, e1), by bounded Brent on
    log ε, when it meets ``target``; None otherwise."""
    from scipy.optimize import minimize_scalar

    sign = -1.0 if target.kind == "within" else 1.0

    def f(u: float) -> float:
        v = value(float(np.exp(u)))
        return sign * v if np.isfinite(v) else np.inf
    res = minimize_scalar(f, bounds=(np.log(e0), np.log(e1)), method="bounded",
                          options={"xatol": 1e-10})
    e = float(np.exp(res.x))
    return e if e0 < e < e1 and meets_target(value(e), target) else None


#: a cell is passed over only when its ceiling misses the target by more than this (the
#: laws round at ~1e-16): where the ceiling proves every ε of the cell misses, the
#: Brent search there could only have found nothing, so the answer is the same
CEILING_MARGIN = 1e-12


def _with_cell_maxima(value, target: AccuracyTarget, pts: list[tuple[float, bool]],
                      progress=None, ceiling: Callable[[float], float] | None = None
                      ) -> list[tuple[float, bool]]:
    """``pts`` plus the feasible maximum of every cell whose ends both miss (progress 0.6 →
    0.9), sorted by ε. A cell whose ``ceiling`` at its upper end (an upper bound of the
    accuracy at every smaller ε, :func:`_cell_ceiling`) misses the target is not
    searched: ~30 evaluations each, most of a Skip solution's time."""
    extra = []
    n = len(pts)
    for i in range(n - 1):
        if progress is not None:
            progress(0.6 + 0.3 * (i + 1) / (n - 1))
        if pts[i][1] or pts[i + 1][1]:
            continue
        if ceiling is not None and ceiling(pts[i + 1][0]) < target.probability - CEILING_MARGIN:
            continue
        e = _cell_maximum(value, target, pts[i][0], pts[i + 1][0])
        if e is not None:
            extra.append((e, True))
    return sorted(pts + extra)


def _intervals_from_status(value, target: AccuracyTarget, pts: list[tuple[float, bool]],
                           rel_tol: float) -> list[tuple[float, float]]:
    """The feasible intervals of a sorted status list: every change of status bisected."""
    intervals: list[tuple[float, float]] = []
    start = pts[0][0] if pts[0][1] else None
    for (e0, m0), (e1, m1) in zip(pts, pts[1:], strict=False):
        if m0 == m1:
            continue
        cross = _bisect(lambda e: meets_target(value(e), target), e0, e1, rel_tol)
        if m1:  # enters the feasible set
            start = cross
        else:  # leaves it: it entered before (or was feasible from the first point)
            assert start is not None
            intervals.append((start, cross))
            start = None
    if start is not None:
        intervals.append((start, pts[-1][0]))
    return intervals


def _feasible_intervals(value, target: AccuracyTarget, grid: np.ndarray, rel_tol: float,
                        search_cells: bool, progress=None,
                        ceiling: Callable[[float], float] | None = None
                        ) -> list[tuple[float, float]]:
    """Every interval of ε in [grid[0], grid[-1]] where ``value`` meets ``target``: the
    grid's points, plus (``search_cells``) the maximum of the accuracy inside each cell
    whose ends both miss and whose ``ceiling`` does not rule it out (bounded Brent on
    log ε), then every change of status bisected."""
    pts = _grid_status(value, target, grid, progress)
    if search_cells:
        pts = _with_cell_maxima(value, target, pts, progress, ceiling)
    return _intervals_from_status(value, target, pts, rel_tol)


@dataclass(frozen=True)
class MonteCarloSettings:
    """How Adaptive's accuracy is estimated: ``runs`` whole releases per ε from ``seed``
    (common random numbers), the target met by the one-sided bound at ``confidence``."""

    runs: int = 100
    seed: int | None = None
    confidence: float = 0.95

    def check(self, target: AccuracyTarget) -> None:
        """Refuse a run count outside the limits or too small to certify ``target``."""
        from lmdk_core.foundation.setting_limits import check_setting

        check_setting("runs", self.runs, label="the number of Monte Carlo runs")
        if target.kind == "within" and target.per != "typical":
            need = min_adaptive_runs(target.probability, self.confidence)
            if int(self.runs) < need:
                raise InputError(
                    f"{int(self.runs)} runs cannot certify {target.probability:.6g} at "
                    f"{self.confidence:.0%} confidence even if every release is within the "
                    f"bound; give at least {need:,} runs (--runs)")

    def method(self, target: AccuracyTarget) -> str:
        """The method sentence of a Monte Carlo solution."""
        how = ("normal approximation over releases" if target.kind == "mean"
               else _MONTE_CARLO_BOUND[target.per])
        return (f"Monte Carlo: {int(self.runs)} whole releases per ε, {self.confidence:.0%} "
                f"one-sided bound ({how})")


#: the one-sided bound of each reading of a probability target (Monte Carlo)
_MONTE_CARLO_BOUND = {
    "each": "each reading's share of releases within the bound, Clopper–Pearson",
    "all": "share of releases with every reading within, Clopper–Pearson",
    "typical": "normal approximation over releases",
}


def _eps_bounds(eps_range: tuple[float, float]) -> tuple[float, float]:
    """The checked ends (lo, hi) of the searched ε range, lo < hi."""
    lo, hi = (check_epsilon(e, "the ε range") for e in eps_range)
    if not lo < hi:
        raise InputError("the ε range must have its lower end below its upper end")
    return lo, hi


def solve_epsilon(values: ArrayLike, landmarks: Iterable[int] | None, scheme: str,
                  target: AccuracyTarget, *, mechanism: str = "laplace",
                  sensitivity: float | None = 1.0, radius: float | None = None,
                  window: int | None = None, eps_range: tuple[float, float] = EPS_RANGE,
                  runs: int = 100, seed: int | None = None, confidence: float = 0.95,
                  progress=None,
                  stays: Iterable[tuple[int, int]] | None = None) -> EpsilonSolution:
    """The smallest total ε in ``eps_range`` at which ``scheme`` meets ``target``, and
    every interval of ε that meets it (``extra['intervals']``).

    Static schemes: exact laws; a log grid, the accuracy's maximum in every grid cell
    when some reading's accuracy is not monotone, every crossing bisected to a relative
    1e-10 (``extra['exact']`` says whether every interval is certain to be found; see
    the module docstring). Adaptive: whole releases simulated, ``runs`` per ε, common
    random numbers (the same ``seed`` at every ε), the target met by the one-sided
    ``confidence`` bound; 5 grid points per decade from the exact floor of an 'each' /
    'all' target (:func:`~lmdk_core.decision.adaptive_accuracy.adaptive_epsilon_floor`), the
    first crossing bisected to 1 %.
    ``progress(fraction)`` is called as the search advances.

    Returns
    -------
    EpsilonSolution
        The smallest ε (None when no ε in the range meets the target), the accuracy it
        achieves, the method and whether the release is landmark-private.

    Examples
    --------
    Uniform with 2 landmarks spends ε/3 per reading; Laplace noise is within 1 of the
    truth with probability 1 − e^{−ε_t}, so 95 % needs ε_t = ln 20 and ε = 3·ln 20:

    >>> s = solve_epsilon([0.0] * 10, [2, 5], "uniform", AccuracyTarget("within", 1.0, 0.95))
    >>> round(s.epsilon, 6), s.landmark_private
    (8.987197, True)
    """
    model = accuracy_model(values, mechanism, sensitivity, radius, stays)
    key = scheme_info(scheme).key
    lm = model.landmarks(landmarks)
    lo, hi = _eps_bounds(eps_range)
    if key == "adaptive":
        settings = MonteCarloSettings(runs, seed, confidence)
        settings.check(target)
        return _solve_adaptive(model, lm, target, lo, hi, settings, progress)
    return _solve_static(model, key, lm, target, lo, hi, window, progress)


def _first_crossing(meets: Callable[[float], bool], grid: np.ndarray,
                    progress=None) -> tuple[float | None, float | None]:
    """(the last grid point that misses before the first that ``meets`` the target, that
    first point); either is None when there is none (progress 0 → 0.8)."""
    prev = None
    for i, e in enumerate(grid):
        if progress is not None:
            progress(0.8 * (i + 1) / grid.size)
        if meets(float(e)):
            return prev, float(e)
        prev = float(e)
    return prev, None


def _solve_adaptive(model: AccuracyModel, lm: np.ndarray, target: AccuracyTarget, lo: float,
                    hi: float, settings: MonteCarloSettings, progress=None) -> EpsilonSolution:
    """Adaptive's smallest ε: Monte Carlo accuracy on 5 grid points per decade from the
    exact floor, the first crossing bisected to 1 %."""
    key = "adaptive"
    method = settings.method(target)
    cache: dict[float, tuple[float, bool, bool]] = {}

    def evaluate(e: float) -> tuple[float, bool, bool]:
        """(estimate, whether its bound meets the target, landmark-private) at ε."""
        if e not in cache:
            errors, private = adaptive_errors(model.values, lm, e,
                                              mechanism=model.mechanism,
                                              sensitivity=model.scale_unit,
                                              radius=model.scale_unit, runs=settings.runs,
                                              seed=settings.seed,
                                              stays=list(model.stays) or None)
            cache[e] = (*estimate_meets_target(errors, target, settings.confidence),
                        private)
        return cache[e]

    def meets(e: float) -> bool:
        return evaluate(e)[1]
    # no ε below the one at which the first reading alone (always published, at the
    # planned Uniform share) meets an 'each'/'all' target can meet it: start there
    start = max(lo, min(adaptive_epsilon_floor(model, lm, target), hi))
    grid = np.geomspace(start, hi, max(2, int(np.ceil(np.log10(hi / start) * 5)) + 1))
    prev, found = _first_crossing(meets, grid, progress)
    if found is None:
        best = evaluate(float(hi))[0]
        return EpsilonSolution(key, None, best if np.isfinite(best) else None, target,
                               method, reason=_unreachable_reason(lm, key, target, best, hi))
    if prev is not None:
        found = _bisect(meets, prev, found, 1e-2)
    if progress is not None:
        progress(1.0)
    est, _, private = evaluate(found)
    return EpsilonSolution(key, found, est, target, method, landmark_private=private,
                           extra={"at_lower_end": prev is None and start == lo,
                                  "exact": False,
                                  "intervals": [(found, float(hi))]})


def _static_method(monotone: bool, exact: bool) -> str:
    """The method sentence of a static scheme's solution."""
    if monotone:
        return "exact (closed form of the noise distribution)"
    if exact:
        return ("exact (closed form of the noise distribution; every feasible interval: "
                "each reading's accuracy rises, or rises and falls, with ε)")
    return ("closed form of the noise distribution; the search is approximate (the "
            "accuracy is maximised in every grid cell: two windows inside one cell "
            "could be taken for one)")


def _cell_ceiling(model: AccuracyModel, key: str, lm: np.ndarray, window: int | None,
                  target: AccuracyTarget) -> Callable[[float], float] | None:
    """ε ↦ the lowest probability at ε among the readings whose probability rises with ε
    (:func:`~lmdk_core.decision.accuracy.rising_readings`) and, for Laplace noise, the
    peak over every ε of each of the others
    (:func:`~lmdk_core.decision.noise_laws.laplace_within_peak`): an upper bound of the
    accuracy at every smaller ε for a target met by each reading (the minimum over the
    readings) or by all at once (at most any one reading's probability). None where there
    is no such bound: a typical reading (a mean), a mean error, Planar Laplace (whose
    offset readings' law is computed by quadrature)."""
    if target.kind != "within" or target.per == "typical" \
            or model.mechanism == "planar_laplace":
        return None

    def ceiling(e: float) -> float:
        eps_t = model.allocate(key, lm, e, window)
        published = eps_t > 0
        rising = rising_readings(model, published, target)
        bound = float(np.min(reading_accuracy(model, eps_t, published, target)[rising],
                             initial=np.inf))
        if model.mechanism == "laplace" and not rising.all():
            # the others rise and fall: none exceeds its peak over every scale
            _, delta, released = reading_offsets(model, published)
            # a reading shown with fresh noise (δ + Z + W, W symmetric) whose acceptance
            # set [−a − δ, a − δ] leaves out 0 is within with probability ≤ ½ at any scale
            fresh = fresh_budgets(model, eps_t, published)[released][~rising] > 0
            peaks = np.where(fresh, 0.5, laplace_within_peak(delta[released][~rising],
                                                             float(target.bound)))
            bound = min(bound, float(np.min(peaks)))
        return bound
    return ceiling


def _best_on_grid(value, target: AccuracyTarget, grid: np.ndarray) -> float:
    """The best accuracy over the grid (highest probability, lowest mean error)."""
    return max((value(float(e)) for e in grid), key=lambda v: (
        -np.inf if not np.isfinite(v) else (v if target.kind == "within" else -v)))


def _solve_static(model: AccuracyModel, key: str, lm: np.ndarray, target: AccuracyTarget,
                  lo: float, hi: float, window: int | None, progress=None) -> EpsilonSolution:
    """A static scheme's smallest ε and every feasible interval, from the exact laws."""
    from lmdk_core.engine.verifier import verify

    profile = model.allocate(key, lm, 1.0, window)
    monotone = accuracy_is_monotone(model, profile, target)
    exact = monotone or (target.per == "each" and model.mechanism != "planar_laplace")
    method = _static_method(monotone, exact)

    def value(e: float) -> float:
        return static_accuracy(model, model.allocate(key, lm, e, window), target)
    grid = np.geomspace(lo, hi, GRID_POINTS)
    intervals = _feasible_intervals(value, target, grid, 1e-10, not monotone, progress,
                                    _cell_ceiling(model, key, lm, window, target))
    if progress is not None:
        progress(1.0)
    if not intervals:
        # not monotone: the best accuracy over the range, for the reason
        best = value(float(hi)) if monotone else _best_on_grid(value, target, grid)
        return EpsilonSolution(key, None, best if np.isfinite(best) else None, target, method,
                               reason=_unreachable_reason(lm, key, target, best, hi,
                                                          best_over_range=not monotone),
                               extra={"exact": exact, "intervals": []})
    found = intervals[0][0]
    private = verify(model.allocate(key, lm, found, window), lm, found,
                     groups=model.stays).private
    return EpsilonSolution(key, found, value(found), target, method, landmark_private=private,
                           extra={"at_lower_end": found == float(grid[0]), "exact": exact,
                                  "intervals": intervals})


def _unreachable_reason(lm: np.ndarray, key: str, target: AccuracyTarget, best: float,
                        hi: float, best_over_range: bool = False) -> str:
    where = f"best over the range: {_fmt(best, target)}" if best_over_range else \
        f"at ε = {hi:g}: {_fmt(best, target)}"
    if key in ("skip", "adaptive") and lm.size:
        return f"repeated values miss the bound whatever ε ({where})"
    return f"not met for any ε up to {hi:g} ({where})"


def _fmt(value: float, target: AccuracyTarget) -> str:
    if not np.isfinite(value):
        return "nothing released"
    return f"{value:.1%}" if target.kind == "within" else f"mean error {value:.4g}"


def solve_all_schemes(values: ArrayLike, landmarks: Iterable[int] | None,
                      target: AccuracyTarget, schemes: Iterable[str] = (
                          "uniform", "skip", "adaptive", "w-event", "user"),
                      **kwargs) -> list[EpsilonSolution]:
    """:func:`solve_epsilon` for several schemes (w-event needs ``window``)."""
    out = []
    for s in schemes:
        if scheme_info(s).key == "w-event" and kwargs.get("window") is None:
            continue
        out.append(solve_epsilon(values, landmarks, s, target, **kwargs))
    return out
