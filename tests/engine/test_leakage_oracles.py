"""Independent oracles for the leakage engine, and tests of the oracles themselves.

* :func:`brute_loss` — ``L_P(α)`` straight from the definition: every ordered pair of
  distinct rows, every subset of states (n <= 10).
* :func:`lp_loss` — the same maximum as Cao et al.'s linear-fractional program
  ``max q·x / d·x  s.t.  x_j <= e^α x_k`` solved as an LP after the Charnes–Cooper
  transform (``y = x / d·x``: max q·y s.t. d·y = 1, y_j − e^α y_k <= 0, y >= 0).
* :func:`direct_landmark_tpl` — the landmark TPL at each t from its definition.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

ALPHAS = [0.0, 1e-7, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 12.0, 40.0]


def _subsets(n: int) -> np.ndarray:
    return np.array(list(itertools.product([0.0, 1.0], repeat=n)))


def brute_loss(P: np.ndarray, alpha: float) -> float:
    """max over ordered row pairs i != k and subsets S of log((q(S)x+1)/(d(S)x+1))."""
    P = np.asarray(P, dtype=float)
    n = P.shape[0]
    if n < 2 or alpha == 0:
        return 0.0
    M = _subsets(n)
    x = math.expm1(alpha)
    best = 0.0
    for i in range(n):
        for k in range(n):
            if i != k:
                Q = M @ P[i]
                D = M @ P[k]
                best = max(best, float(np.max(np.log1p(Q * x) - np.log1p(D * x))))
    return best


def lp_loss(P: np.ndarray, alpha: float) -> float:
    """Cao's LP (Charnes–Cooper form) for every ordered pair; log of the best ratio."""
    P = np.asarray(P, dtype=float)
    n = P.shape[0]
    if n < 2:
        return 0.0
    e = math.exp(alpha)
    rows = []
    for j in range(n):
        for k in range(n):
            if j != k:
                r = np.zeros(n)
                r[j] = 1.0
                r[k] = -e
                rows.append(r)
    A = np.array(rows)
    best = 1.0
    for i in range(n):
        for k in range(n):
            if i == k:
                continue
            res = linprog(-P[i], A_ub=A, b_ub=np.zeros(len(rows)), A_eq=P[k][None, :],
                          b_eq=[1.0], bounds=[(0, None)] * n, method="highs-ds",
                          options={"primal_feasibility_tolerance": 1e-10,
                                   "dual_feasibility_tolerance": 1e-10})
            assert res.status == 0, res.message
            best = max(best, -res.fun)
    return math.log(best)


class BruteLoss:
    """A callable ``L(a)`` from :func:`brute_loss` (memoised: recursions repeat values)."""

    def __init__(self, P: np.ndarray) -> None:
        self.P = np.asarray(P, dtype=float)
        self.cache: dict[float, float] = {}

    def __call__(self, a: float) -> float:
        if a not in self.cache:
            self.cache[a] = brute_loss(self.P, a)
        return self.cache[a]


def naive_bpl(eps, Lb) -> list[float]:
    out, a = [], None
    for t, e in enumerate(eps):
        a = e if t == 0 else Lb(a) + e
        out.append(a)
    return out


def naive_fpl(eps, Lf) -> list[float]:
    T = len(eps)
    out, f = [0.0] * T, None
    for t in range(T - 1, -1, -1):
        f = eps[t] if t == T - 1 else Lf(f) + eps[t]
        out[t] = f
    return out


def direct_landmark_tpl(eps, landmarks, Lb, Lf) -> list[float]:
    """For each t: S = sorted(L ∪ {t}); Σ_{i∈S} BPL_i + FPL_i − ε_i with the recursions
    restarted after the predecessor i⁻ (or −1) and before the successor i⁺ (or T)."""
    T = len(eps)
    out = []
    for t in range(T):
        S = sorted(set(landmarks) | {t})
        total = 0.0
        for idx, i in enumerate(S):
            lo = S[idx - 1] if idx > 0 else -1
            hi = S[idx + 1] if idx + 1 < len(S) else T
            a = None
            for j in range(lo + 1, i + 1):
                a = eps[j] if j == lo + 1 else Lb(a) + eps[j]
            f = None
            for j in range(hi - 1, i - 1, -1):
                f = eps[j] if j == hi - 1 else Lf(f) + eps[j]
            total += a + f - eps[i]
        out.append(total)
    return out


@st.composite
def stochastic_matrices(draw, min_n: int = 1, max_n: int = 6, min_positive: float = 0.0):
    """Row-stochastic matrices with zeros, sparse rows, identical rows, one-hot rows.

    Entries below ``min_positive`` become 0 (the LP solver's tolerances are ~1e-10).
    """
    n = draw(st.integers(min_n, max_n))
    kind = draw(st.sampled_from(["dense", "sparse", "onehot", "identical", "mixed"]))
    rows = []
    base = None
    for _ in range(n):
        if kind == "onehot" or (kind == "mixed" and draw(st.booleans())):
            r = np.zeros(n)
            r[draw(st.integers(0, n - 1))] = 1.0
        elif kind == "identical" and base is not None and draw(st.integers(0, 3)) > 0:
            r = base.copy()
        else:
            vals = draw(st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=n,
                                 max_size=n))
            r = np.array(vals)
            r[r < min_positive] = 0.0
            if kind == "sparse":
                mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
                r[np.array(mask)] = 0.0
            if r.sum() <= 1e-3:
                r[draw(st.integers(0, n - 1))] = 1.0
        r = r / r.sum()
        if base is None:
            base = r
        rows.append(r)
    return np.array(rows)


# -- the oracles agree with each other and with closed forms ---------------------------


def test_oracles_closed_forms():
    I3 = np.eye(3)
    for a in [0.1, 1.0, 3.0]:
        assert brute_loss(I3, a) == a or abs(brute_loss(I3, a) - a) < 1e-12
        assert abs(lp_loss(I3, a) - a) < 1e-9
        same = np.tile([[0.2, 0.3, 0.5]], (3, 1))
        assert brute_loss(same, a) == 0.0
        assert abs(lp_loss(same, a)) < 1e-12
    # 2 states: the best pair/subset is the state where the rows differ most
    P = np.array([[0.9, 0.1], [0.2, 0.8]])
    a = 0.7
    x = math.expm1(a)
    expected = max(math.log((0.9 * x + 1) / (0.2 * x + 1)), math.log((0.8 * x + 1) / (0.1 * x + 1)))
    assert abs(brute_loss(P, a) - expected) < 1e-12
    assert abs(lp_loss(P, a) - expected) < 1e-9


@settings(max_examples=20, deadline=None)
@given(stochastic_matrices(max_n=4, min_positive=1e-4), st.sampled_from([0.05, 0.8, 3.0]))
def test_brute_force_equals_lp(P, a):
    assert abs(brute_loss(P, a) - lp_loss(P, a)) < 1e-9


def test_direct_landmark_tpl_without_correlation_is_the_theorem_sum():
    eps = [0.1, 0.2, 0.0, 0.4, 0.3]
    L = [1, 3]
    got = direct_landmark_tpl(eps, L, lambda a: 0.0, lambda a: 0.0)
    want = [sum(eps[i] for i in set(L) | {t}) for t in range(5)]
    assert np.allclose(got, want, atol=1e-15)
