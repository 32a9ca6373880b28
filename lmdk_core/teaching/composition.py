"""The Learn page's fifth lesson: composition.

The theorems of Katsomallos et al.'s survey: sequential and parallel composition
(McSherry 2009), temporal discounting (Farokhi 2020), temporal correlation (Cao et al.,
ICDE 2017 / TKDE 2018) and post-processing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.validation import as_generator, check_count, check_epsilon

__all__ = [
    "MAX_BUDGETS",
    "CorrelatedWindow",
    "PostProcessing",
    "correlated_composition",
    "discount_weights",
    "discounted_composition",
    "parallel_composition",
    "parse_budgets",
    "post_processing_demo",
    "sequential_composition",
]

#: most budgets :func:`parse_budgets` accepts (the Learn page's list of releases)
MAX_BUDGETS = 200


def parse_budgets(text: str) -> list[float]:
    """The budgets ε_i of successive releases typed as text, separated by commas (or
    semicolons): at least one and at most :data:`MAX_BUDGETS`, each a finite number ≥ 0.

    >>> parse_budgets("0.5, 0.3; 0.2")
    [0.5, 0.3, 0.2]
    """
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if not parts:
        raise InputError("type at least one ε, e.g. 0.5, 0.3, 0.2")
    out = []
    for p in parts:
        try:
            v = float(p)
        except ValueError:
            raise InputError(f"{quote_user_text(p)} is not a number; separate the ε values "
                             "with commas") from None
        if not math.isfinite(v) or v < 0:
            raise InputError(f"{quote_user_text(p)}: every ε must be a finite number >= 0")
        out.append(v)
    if len(out) > MAX_BUDGETS:
        raise InputError(f"at most {MAX_BUDGETS} releases, please")
    return out


def _eps_list(epsilons: Iterable[float], name: str = "the budgets") -> np.ndarray:
    try:
        e = np.asarray(list(epsilons), dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers") from None
    if e.ndim != 1 or e.size == 0:
        raise InputError(f"{name}: give at least one ε")
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise InputError(f"{name} must be finite numbers >= 0")
    return e


def sequential_composition(epsilons: Iterable[float]) -> float:
    """Mechanisms applied to the *same* data: ``Σ ε_i`` (McSherry 2009, Thm 1)."""
    return float(_eps_list(epsilons).sum())


def parallel_composition(epsilons: Iterable[float]) -> float:
    """Mechanisms applied to *disjoint* subsets of the data: ``max ε_i`` (McSherry 2009)."""
    return float(_eps_list(epsilons).max())


def discount_weights(m: int, kind: str = "exponential", rate: float = 0.5) -> np.ndarray:
    """Temporal discount ``g`` of the m releases, oldest first (Farokhi 2020).

    The release of age ``k`` (``k = 0`` the newest, ``k = m−1`` the oldest) weighs
    ``g(k) = e^{−λk}`` (exponential) or ``g(k) = 1/(1 + λk)`` (hyperbolic), ``λ = rate``.
    """
    check_count(m, "the number of releases", 100_000)
    lam = float(rate)
    if not np.isfinite(lam) or lam < 0:
        raise InputError("the discount rate λ must be a finite number >= 0")
    age = np.arange(int(m) - 1, -1, -1, dtype=float)
    key = str(kind).strip().lower()
    if key == "exponential":
        return np.exp(-lam * age)
    if key == "hyperbolic":
        return 1.0 / (1.0 + lam * age)
    raise InputError(f"unknown discount {kind!r}; choose exponential or hyperbolic")


def discounted_composition(epsilons: Iterable[float], kind: str = "exponential",
                           rate: float = 0.5) -> float:
    """Sequential composition with temporal discounting: ``Σ g(i)·ε_i`` (Farokhi 2020,
    the survey's theorem) with the weights of :func:`discount_weights`."""
    e = _eps_list(epsilons)
    return float(np.dot(discount_weights(e.size, kind, rate), e))


@dataclass(frozen=True)
class CorrelatedWindow:
    """Leakage of the releases ``start..end`` under Markov correlation.

    ``bpl``/``fpl`` are Cao et al.'s backward/forward leakage of the whole series;
    ``leakage`` the guarantee of the window (the survey's "sequential composition under
    temporal correlation", Cao et al. TKDE'18); ``independent`` the plain sequential
    composition ``Σ_{i=start}^{end} ε_i`` that holds for independent data.
    """

    epsilon_t: np.ndarray
    bpl: np.ndarray
    fpl: np.ndarray
    start: int
    end: int
    leakage: float
    independent: float
    strength: float
    n_states: int


def correlated_composition(epsilon_t: Iterable[float], start: int, end: int,
                           strength: float, n_states: int = 2) -> CorrelatedWindow:
    """Privacy of a window of releases on temporally correlated data.

    The correlation is Cao et al.'s smoothed matrix ``P = (I + s)/(1 + n·s)``
    (:func:`lmdk_core.leakage.smoothed_matrix`; small ``s`` = strong correlation), used
    as both backward and forward matrix. With ``BPL``/``FPL`` of the whole series
    (:func:`lmdk_core.leakage.bpl`, :func:`~lmdk_core.leakage.fpl`), the window
    ``[s, e]`` is ``α^B_s + α^F_e + Σ_{s<i<e} ε_i``-DP, and a single release (``s = e``)
    is ``α^B_s + α^F_s − ε_s`` (its TPL).
    """
    from lmdk_core.leakage import bpl, fpl, smoothed_matrix

    eps = _eps_list(epsilon_t, "the budgets ε_t")
    T = eps.size
    s, e = int(start), int(end)
    if not 0 <= s <= e < T:
        raise InputError(f"the window must satisfy 0 <= start <= end <= {T - 1}")
    P = smoothed_matrix(int(n_states), strength)
    b = bpl(eps, P)
    f = fpl(eps, P)
    if s == e:
        leak = float(b[s] + f[s] - eps[s])
    else:
        leak = float(b[s] + f[e] + eps[s + 1: e].sum())
    return CorrelatedWindow(eps, b, f, s, e, leak, float(eps[s: e + 1].sum()),
                            float(strength), int(n_states))


@dataclass(frozen=True)
class PostProcessing:
    """A Laplace release and two post-processed versions of it, all ε-DP (Dwork & Roth,
    Prop. 2.1): ``clipped`` = released values clipped to ``[0, ∞)``, ``smoothed`` = a
    centred moving average of the clipped values. ``mae`` maps each version to its mean
    absolute error against ``original``."""

    original: np.ndarray
    released: np.ndarray
    clipped: np.ndarray
    smoothed: np.ndarray
    epsilon: float
    mae: dict[str, float]


def post_processing_demo(values: ArrayLike, epsilon: float, sensitivity: float = 1.0,
                         window: int = 3, seed: int = 0) -> PostProcessing:
    """Release ``values`` with Laplace(Δf/ε) at every timestamp (event-level ε), then
    post-process without touching the raw data: clip negatives to 0 (counts cannot be
    negative) and average ``window`` neighbours. No extra budget is spent."""
    from lmdk_core.mechanisms import Laplace

    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise InputError("the example series must be a non-empty list of numbers")
    w = check_count(window, "the smoothing window", 999)
    eps = check_epsilon(epsilon)
    rel = Laplace(sensitivity).perturb(x, eps, as_generator(seed))
    clipped = np.maximum(rel, 0.0)
    smoothed = (pd.Series(clipped).rolling(w, center=True, min_periods=1).mean()
                .to_numpy())
    mae = {k: float(np.mean(np.abs(v - x)))
           for k, v in (("released", rel), ("clipped", clipped), ("smoothed", smoothed))}
    return PostProcessing(x, rel, clipped, smoothed, eps, mae)
