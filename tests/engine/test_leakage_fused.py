"""The landmark TPL's restarted recursions run in one vector for both directions
(:func:`lmdk_core.leakage.restarts.restarted_both`) and the segment recursions' Python
loop with the loss function inlined (:func:`lmdk_core.leakage.recursion.run_python`),
against the code they replaced, bit for bit: the verdict's calibration advice (Cao et
al. ICDE'17's calibration on the landmark TPL of Katsomallos et al. CODASPY'22) searches
with these values, and "Apply the calibration" sets the exact float it finds.

The references below compute the same values the slow way: each restarted run on its
own (one ``LossFunction.evaluate`` of one value per step, where the engine advances all
runs of both directions as one vector) and the recursion with one
``LossFunction.scalar`` call per step (the code the inlined loop replaced).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision.verdict import calibration_advice
from lmdk_core.leakage import LossFunction, landmark_tpl, recursion, smoothed_matrix
from lmdk_core.leakage.calibration import calibrate_scale
from lmdk_core.leakage.recursion import run_python
from lmdk_core.leakage.restarts import MERGE_RTOL, Gaps, restarted
from lmdk_core.leakage.tpl import max_landmark_tpl


# ------------------------------------------------------------------ the replaced code
def reference_run_python(eps: np.ndarray, loss: LossFunction, restart: np.ndarray | None,
                         out: np.ndarray, start: int) -> np.ndarray:
    """The Python recursion as it was: ``LossFunction.scalar`` called at every step."""
    carried = start > 0 and not (restart is not None and restart[start - 1])
    a = float(out[start - 1]) if carried else 0.0
    for t in range(start, eps.size):
        out[t] = a = loss.scalar(a) + float(eps[t])
        if restart is not None and restart[t]:
            a = 0.0
    return out


def reference_run(eps: np.ndarray, loss: LossFunction, t: int, anchor: int, direction: int,
                  segment: np.ndarray) -> float:
    """ONE restarted run on its own (:func:`restarted`'s definition, run by run): from
    ``t + direction`` towards ``anchor``; its value at the anchor, or the segment run's
    there once it is within the merge tolerance of it."""
    pos = t + direction
    v = eps[pos]  # L(0) + ε
    while True:
        if pos == anchor:
            return float(v)
        if abs(v - segment[pos]) <= MERGE_RTOL * segment[pos]:
            return float(segment[anchor])
        pos += direction
        v = eps[pos] if loss.is_zero else loss.evaluate(np.array([v]))[0] + eps[pos]


def reference_exact(self: Gaps, sel: np.ndarray) -> np.ndarray:
    """``Gaps.exact`` run by run: the two corrections of each t, one run at a time."""
    val = self.upper[sel].copy()
    for i, (t, p, n) in enumerate(zip(self.regular[sel], self.prev[sel], self.nxt[sel],
                                      strict=True)):
        if p >= 0:
            val[i] += reference_run(self.eps, self.lf, t, p, -1, self.sf) - self.sf[p]
        if n < self.eps.size:
            val[i] += reference_run(self.eps, self.lb, t, n, +1, self.sb) - self.sb[n]
    return val


@contextlib.contextmanager
def replaced_code():
    """Within: landmark TPL and its maximum computed by the replaced code."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(Gaps, "exact", reference_exact)
        m.setattr(recursion, "run_python", reference_run_python)
        yield


# ------------------------------------------------------------------ random inputs
def _matrix(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    if kind == "dirichlet":
        return rng.dirichlet(np.full(n, rng.choice([0.05, 0.5, 5.0])), n)
    if kind == "sticky":  # slow mixing: long restarted runs
        P = 0.98 * np.eye(n) + 0.02 * rng.dirichlet(np.ones(n), n)
        return P / P.sum(axis=1, keepdims=True)
    if kind == "identity":  # no contraction: runs go to their landmark
        return np.eye(n)
    if kind == "independent":  # the zero loss function
        return np.tile(np.full(n, 1.0 / n), (n, 1))
    return smoothed_matrix(n, float(rng.choice([0.01, 0.1, 0.5])), "shift")


@st.composite
def cases(draw):
    """(eps, landmarks, backward, forward): the same or two matrices, budgets with zeros,
    tiny to huge (past the loss function's log branch at α = 700), 0 to 12 landmarks."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, 8))
    kinds = ["dirichlet", "sticky", "identity", "independent", "smoothed"]
    PB = _matrix(rng, draw(st.sampled_from(kinds)), n)
    same = draw(st.booleans())
    PF = PB if same else _matrix(rng, draw(st.sampled_from(kinds)), n)
    T = draw(st.integers(1, 150))
    scale = draw(st.sampled_from([1e-4, 0.01, 0.2, 3.0, 60.0]))
    eps = rng.exponential(scale, T) * (rng.random(T) < draw(st.sampled_from([0.3, 1.0])))
    lm = np.sort(rng.choice(T, min(draw(st.integers(0, 12)), T), replace=False))
    lb = LossFunction(PB)
    lf = lb if same else LossFunction(PF)
    return eps, lm.tolist(), lb, lf


@settings(max_examples=150, deadline=None)
@given(cases())
def test_fused_restarted_runs_equal_the_separate_runs_bit_for_bit(case):
    eps, lm, lb, lf = case
    got = landmark_tpl(eps, lm, lb, lf)
    with replaced_code():
        want = landmark_tpl(eps, lm, lb, lf)
    assert np.array_equal(got, want)


@settings(max_examples=150, deadline=None)
@given(cases(), st.booleans())
def test_inlined_python_recursion_equals_the_scalar_calls_bit_for_bit(case, with_restart):
    eps, lm, lb, _ = case
    restart = np.zeros(eps.size, dtype=bool)
    restart[lm] = True
    r = restart if with_restart else None
    got = run_python(eps, lb, r, np.empty(eps.size), 0)
    assert np.array_equal(got, reference_run_python(eps, lb, r, np.empty(eps.size), 0))
    mid = eps.size // 2  # a hand-over in the middle (the compiled loop's, above α = 700)
    part = reference_run_python(eps, lb, r, np.empty(eps.size), 0)
    part_ref = part.copy()
    assert np.array_equal(run_python(eps, lb, r, part, mid),
                          reference_run_python(eps, lb, r, part_ref, mid))


def test_one_direction_is_the_restarted_function():
    """A gap before the first or after the last landmark only: one direction runs alone
    (restarted), with the same values as the reference."""
    rng = np.random.default_rng(4)
    L = LossFunction(smoothed_matrix(5, 0.05, "shift"))
    eps = rng.random(200) * 0.3
    for lm in ([0], [199], [0, 199]):
        got = landmark_tpl(eps, lm, L)
        with replaced_code():
            want = landmark_tpl(eps, lm, L)
        assert np.array_equal(got, want)
    t, anc = np.arange(1, 199), np.zeros(198, dtype=int)
    sf = np.asarray(reference_run_python(eps[::-1], L, None, np.empty(200), 0))[::-1]
    want = [reference_run(eps, L, int(i), 0, -1, sf) for i in t]
    assert np.array_equal(restarted(eps, L, t, anc, -1, sf), want)


@settings(max_examples=40, deadline=None)
@given(cases(), st.sampled_from([0.3, 1.0, 2.5]))
def test_calibration_search_gives_the_same_floats(case, target):
    """The search the verdict's advice runs (and ``lmdk calibrate``, the Leakage page):
    the same scale, leakage and evaluations as with the replaced code."""
    eps, lm, lb, lf = case
    if not np.any(eps > 0):
        return
    got = calibrate_scale(eps, target, lb, lf, lm, rtol=1e-6)
    with replaced_code():
        want = calibrate_scale(eps, target, lb, lf, lm, rtol=1e-6)
        assert max_landmark_tpl(eps, lm, lb, lf) == float(np.max(landmark_tpl(eps, lm, lb, lf)))
    assert (got.value, got.achieved, got.evaluations) == (want.value, want.achieved,
                                                          want.evaluations)
    assert np.array_equal(got.epsilon_t, want.epsilon_t)


def test_advice_on_a_day_of_five_minute_points():
    """The Map's case: 288 timestamps, four landmarks, an estimated-looking model whose
    backward and forward matrices differ; the advice (what Apply sets) is the same."""
    rng = np.random.default_rng(7)
    PB = 0.9 * np.eye(10) + 0.1 * rng.dirichlet(np.ones(10), 10)
    PF = 0.85 * np.eye(10) + 0.15 * rng.dirichlet(np.ones(10), 10)
    lb, lf = LossFunction(PB), LossFunction(PF)
    lm = [36, 220, 227, 235]
    eps = np.full(288, 1.0 / 5)
    got = calibration_advice(eps, lm, epsilon=1.0, target=1.0, backward=lb, forward=lf)
    with replaced_code():
        want = calibration_advice(eps, lm, epsilon=1.0, target=1.0, backward=lb, forward=lf)
    assert got is not None and got == want
