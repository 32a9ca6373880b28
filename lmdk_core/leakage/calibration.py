"""Calibrating budgets to a target temporal privacy leakage (as the ConTPL demo does).

Cao et al. (ICDE'17 / TKDE'18; ConTPL demo, PVLDB 11(12)) turn the leakage analysis
around: given a target ``α``, choose the budgets so that the leakage never exceeds it.
Every quantity used here is continuous and strictly increasing in the budget (the loss
function is non-decreasing, so the recursions are monotone), so a bracketing search
finds the largest feasible budget:

* :func:`calibrate_epsilon` — the largest constant ``ε`` with ``max_t TPL_t <= α`` for
  a series of length T, or, for the infinite horizon, with
  ``sup BPL + sup FPL − ε <= α`` (``2·sup − ε`` when both matrices are equal; the
  supremum is Cao's Theorem 10, :mod:`lmdk_core.leakage.supremum`);
* :func:`calibrate_scale` — the largest factor ``c`` such that the allocation
  ``c · ε_t`` (e.g. Uniform with landmarks) keeps ``max_t landmark TPL <= α``.

The search keeps a bracket ``[lo, hi]`` with ``lo`` feasible and ``hi`` infeasible and
shrinks it by regula falsi (Illinois variant) safeguarded by bisection until
``hi − lo <= rtol · hi``; the result is the feasible end ``lo`` with the maximum
leakage reached there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_landmarks, check_positive
from lmdk_core.leakage.loss import LossFunction, loss_pair
from lmdk_core.leakage.recursion import recurse
from lmdk_core.leakage.supremum import tpl_supremum
from lmdk_core.leakage.tpl import check_allocation, max_landmark_tpl
from lmdk_core.leakage.tpl_many import max_landmark_tpls

__all__ = ["CalibrationResult", "ProgressCallback", "calibrate_epsilon", "calibrate_scale",
           "max_tpl_constant"]


@dataclass(frozen=True)
class CalibrationResult:
    """Outcome of a calibration.

    ``value`` is what was searched: the constant ε (``kind`` "constant") or the scale
    factor (``kind`` "scale"). ``achieved`` is the maximum leakage at ``value``
    (<= ``target``); ``epsilon_t`` the resulting per-timestamp budget (None for the
    infinite horizon); ``evaluations`` how many leakage computations the search used.
    ``model_peaks`` (a scale calibration that evaluated ``value``): the largest landmark
    TPL of ``epsilon_t`` under each model, in the order given — what
    :func:`~lmdk_core.leakage.conservative.worst_curve` would compute again.
    """

    kind: str
    target: float
    value: float
    achieved: float
    epsilon_t: np.ndarray | None
    horizon: int | None
    evaluations: int
    model_peaks: tuple[float, ...] | None = None

    def to_dict(self) -> dict:
        out = {
            "kind": self.kind,
            "target": self.target,
            "achieved": self.achieved,
            "length": self.horizon,
            "evaluations": self.evaluations,
        }
        if self.kind == "constant":
            out["epsilon"] = self.value
        else:
            out["scale"] = self.value
        if self.epsilon_t is not None:
            out["epsilon_t"] = self.epsilon_t
        return out


def _check_rtol(rtol: float) -> float:
    r = check_positive(rtol, "rtol")
    if r >= 0.5:
        raise InputError("rtol must be smaller than 0.5 (e.g. 1e-9)")
    return r


#: ``progress(fraction, message)``, called after every leakage evaluation of a search
ProgressCallback = Callable[[float, str], object]  # what it returns is ignored


@dataclass(frozen=True)
class _SearchProgress:
    """Reports a search's progress: the fraction of the way from the first bracket
    width ``width0`` to the tolerance ``rtol`` (in log of the width)."""

    progress: ProgressCallback | None
    width0: float
    rtol: float

    def step(self, lo: float, hi: float, n: int) -> None:
        """After evaluation ``n``: the answer lies in ``[lo, hi]``."""
        if self.progress is None:
            return
        w = max(hi - lo, 1e-300)
        span = math.log(1.0 / self.rtol)
        done = (1.0 if w <= self.rtol * hi
                else min(1.0, max(0.0, math.log(self.width0 / w) / span)))
        self.progress(done, f"leakage evaluation {n}: the answer lies in [{lo:.6g}, {hi:.6g}]")

    def done(self, message: str) -> None:
        """The search has ended."""
        if self.progress is not None:
            self.progress(1.0, message)


@dataclass
class _Bracket:
    """The Illinois regula-falsi bracket ``[lo, hi]`` with ``f(lo) <= target < f(hi)``;
    ``g_lo``/``g_hi`` are the interpolation values ``f - target``, halved on an end that
    stays put twice in a row (``last``: the end moved last, −1 low, +1 high)."""

    lo: float
    hi: float
    f_lo: float
    f_hi: float
    g_lo: float
    g_hi: float
    last: int = 0

    def next_point(self, history: list[float]) -> float:
        """The next point to evaluate: the secant point, or the midpoint when the bracket
        has not halved in two steps, the secant is not finite or falls outside."""
        lo, hi = self.lo, self.hi
        mid = 0.5 * (lo + hi)
        if len(history) >= 3 and hi - lo > 0.5 * history[-3]:
            return mid
        if not math.isfinite(self.g_hi):
            return mid
        x = (lo * self.g_hi - hi * self.g_lo) / (self.g_hi - self.g_lo)
        return x if lo < x < hi else mid

    def update(self, x: float, fx: float, target: float) -> None:
        """Move the end on ``x``'s side to ``x`` (Illinois: halve the other end's value
        when the same end moves twice)."""
        if fx <= target:
            self.lo, self.f_lo, self.g_lo = x, fx, fx - target
            if self.last == -1:
                self.g_hi *= 0.5
            self.last = -1
        else:
            self.hi, self.f_hi, self.g_hi = x, fx, fx - target
            if self.last == 1:
                self.g_lo *= 0.5
            self.last = 1


def _search(f: Callable[[float], float], target: float, hi: float, rtol: float,
            max_evals: int = 200, progress: ProgressCallback | None = None,
            ) -> tuple[float, float, int]:
    """Largest ``x`` in ``[0, hi]`` with ``f(x) <= target`` for increasing ``f``, f(0) = 0.

    Regula falsi (Illinois) inside a bracket, with a bisection step whenever the
    bracket has not halved in two steps. Returns ``(x, f(x), evaluations)``.
    ``progress`` gets the fraction of the way from the first bracket to the tolerance
    (in log of its width) after each evaluation.
    """
    report = _SearchProgress(progress, hi, rtol)
    evals = 1
    f_hi = f(hi)
    if f_hi <= target:
        report.done("done: the largest value allowed already meets the target")
        return hi, f_hi, evals
    report.step(0.0, hi, evals)
    b = _Bracket(0.0, hi, 0.0, f_hi, -target, f_hi - target)
    history = [b.hi - b.lo]
    while b.hi - b.lo > rtol * b.hi and evals < max_evals:
        x = b.next_point(history)
        b.update(x, f(x), target)
        evals += 1
        history.append(b.hi - b.lo)
        report.step(b.lo, b.hi, evals)
    report.done(f"done after {evals} leakage evaluations")
    return b.lo, b.f_lo, evals


def max_tpl_constant(epsilon: float, length: int, backward: LossFunction | ArrayLike,
                     forward: LossFunction | ArrayLike | None = None) -> float:
    """``max_t TPL_t`` for the constant budget ``epsilon`` over ``length`` timestamps.

    Parameters
    ----------
    epsilon : float
        The constant budget per timestamp.
    length : int
        The number of timestamps T.
    backward, forward : LossFunction or array_like
        The matrices (or loss functions); ``forward`` defaults to ``backward``.

    Returns
    -------
    float

    Examples
    --------
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> round(max_tpl_constant(0.5, 3, smoothed_matrix(2, 0.1)), 4)
    1.328
    """
    lb, lf = loss_pair(backward, forward)
    eps = np.full(int(length), float(epsilon))
    return float(np.max(recurse(eps, lb) + recurse(eps, lf)[::-1] - eps))


def _check_length(length: object) -> int:
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise InputError(f"the series length must be a whole number >= 1, got {length!r}")
    return int(length)


def calibrate_epsilon(
    target: float,
    backward: LossFunction | ArrayLike,
    forward: LossFunction | ArrayLike | None = None,
    length: int | None = None,
    *,
    rtol: float = 1e-10,
    progress: ProgressCallback | None = None,
) -> CalibrationResult:
    """The largest constant ε per timestamp whose TPL never exceeds ``target``.

    ``length=T``: ``max_t TPL_t(ε) <= target`` over T timestamps. ``length=None``: the
    infinite horizon, ``sup BPL + sup FPL − ε <= target`` (Cao's Theorem 10).
    ``progress(fraction, message)`` is called after every evaluation.

    Parameters
    ----------
    target : float
        The largest acceptable leakage α (> 0).
    backward, forward : LossFunction or array_like
        The matrices (or loss functions); ``forward`` defaults to ``backward``.
    length : int, optional
        The number of timestamps; ``None`` for the infinite horizon.
    rtol : float
        Relative tolerance of the bisection.
    progress : callable, optional
        ``progress(fraction, message)``.

    Returns
    -------
    CalibrationResult
        ``value`` is ε, ``achieved`` the leakage it gives (<= ``target``).

    Raises
    ------
    InputError
        On a bad target or matrix, or an infinite horizon under which every ε > 0
        diverges.

    Examples
    --------
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> res = calibrate_epsilon(1.0, smoothed_matrix(2, 0.1), length=3)
    >>> round(res.value, 6), round(res.achieved, 6)
    (0.375845, 1.0)
    >>> round(calibrate_epsilon(1.0, smoothed_matrix(2, 0.1)).value, 6)  # any length
    0.094709
    """
    alpha = check_positive(target, "the target leakage α")
    tol = _check_rtol(rtol)
    lb, lf = loss_pair(backward, forward)
    if length is None:
        if math.isinf(tpl_supremum(alpha * 1e-12, lb, lf)):
            raise InputError(
                "with this correlation the leakage of an unbounded series grows without limit "
                "for every ε > 0 (some state is followed by another with certainty); give a "
                "series length instead"
            )

        def f(e: float) -> float:
            return tpl_supremum(e, lb, lf) if e > 0 else 0.0
        T = None
    else:
        T = _check_length(length)

        def f(e: float) -> float:
            return max_tpl_constant(e, T, lb, lf) if e > 0 else 0.0
    # TPL_t >= ε_t, so ε <= α.
    e, achieved, evals = _search(f, alpha, alpha, tol, progress=progress)
    eps_t = None if T is None else np.full(T, e)
    return CalibrationResult(kind="constant", target=alpha, value=e, achieved=achieved,
                             epsilon_t=eps_t, horizon=T, evaluations=evals)


def calibrate_scale(
    epsilon_t: ArrayLike,
    target: float,
    backward: LossFunction | ArrayLike,
    forward: LossFunction | ArrayLike | None = None,
    landmarks: Iterable[int] | None = None,
    *,
    rtol: float = 1e-9,
    progress: ProgressCallback | None = None,
    also: Iterable[tuple[LossFunction | ArrayLike, LossFunction | ArrayLike | None]] = (),
) -> CalibrationResult:
    """The largest factor ``c`` with ``max_t landmark TPL(c · ε_t) <= target``.

    ``also``: more ``(backward, forward)`` models; the leakage is then the worst over
    all of them, ``max_m max_t landmark TPL(c · ε_t; m)`` — still non-decreasing in c,
    so the same search applies (the conservative model of an estimated correlation,
    :mod:`lmdk_core.leakage.conservative`).

    With no landmarks the landmark TPL is the plain TPL. The result's ``epsilon_t`` is
    the scaled allocation ``c · ε_t``. Each evaluation is one landmark TPL, linear in
    the series length (:func:`~lmdk_core.leakage.tpl.max_landmark_tpl`); the search needs
    a few dozen. ``progress(fraction, message)`` is called after every evaluation (e.g.
    a progress bar).

    Parameters
    ----------
    epsilon_t : array_like
        The allocation to scale (not 0 everywhere).
    target : float
        The largest acceptable landmark TPL α (> 0).
    backward, forward : LossFunction or array_like
        The matrices (or loss functions); ``forward`` defaults to ``backward``.
    landmarks : iterable of int, optional
        The landmark timestamps.
    rtol : float
        Relative tolerance of the bisection.
    progress : callable, optional
        ``progress(fraction, message)``.

    Returns
    -------
    CalibrationResult
        ``value`` is c, ``epsilon_t`` the scaled allocation.

    Examples
    --------
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> res = calibrate_scale([0.25] * 4, 1.0, smoothed_matrix(2, 0.1), landmarks=[1])
    >>> round(res.value, 6), res.epsilon_t.round(6).tolist()
    (0.889511, [0.222378, 0.222378, 0.222378, 0.222378])
    """
    alpha = check_positive(target, "the target leakage α")
    tol = _check_rtol(rtol)
    eps = check_allocation(epsilon_t)
    lm = check_landmarks(landmarks, eps.size)
    if not np.any(eps > 0):
        raise InputError("the allocation is 0 everywhere; there is nothing to scale")
    models = [loss_pair(backward, forward), *(loss_pair(b, f) for b, f in also)]
    peaks: dict[float, tuple[float, ...]] = {}  # each model's maximum at each c evaluated

    def f(c: float) -> float:
        # max_t landmark TPL, bit for bit np.max(landmark_tpl(...)), with the restarted
        # recursions computed only where the maximum can be (tests/engine/test_leakage_max_tpl.py);
        # several models' pruning rounds run as one vector, each model's maximum bit for
        # bit its own max_landmark_tpl (tests/engine/test_leakage_tpl_many.py)
        if c <= 0:
            return 0.0
        x = c * eps
        if len(models) == 1:
            one = max_landmark_tpl(x, lm, *models[0])
            peaks[c] = (float(one),)
            return one
        each = max_landmark_tpls([(x, lm, lb, lf) for lb, lf in models])
        peaks[c] = tuple(float(p) for p in each)
        return float(np.max(each))

    # landmark TPL_t >= Σ_{i∈L∪{t}} c ε_i >= c · max ε, so c <= α / max ε.
    hi = alpha / float(np.max(eps))
    c, achieved, evals = _search(f, alpha, hi, tol, progress=progress)
    return CalibrationResult(kind="scale", target=alpha, value=c, achieved=achieved,
                             epsilon_t=c * eps, horizon=eps.size, evaluations=evals,
                             model_peaks=peaks.get(c))
