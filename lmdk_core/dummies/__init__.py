"""Dummy landmarks: nested landmark-set options and their private selection.

Source: Katsomallos et al., "Landmark privacy" (CODASPY 2022), "Protecting landmarks"
(dummy landmark generation, Algorithms 1 and 2, privacy-preserving option selection). The idea
is to publish, instead of the
landmark set ``L``, a larger set ``L′`` with ``L ⊂ L′ ⊆ T`` so that the real
landmarks hide among dummy ones.

**Options.** An option sequence is a chain of nested sets
``L ⊂ L₁ ⊂ L₂ ⊂ … ⊂ L_R = T`` where each step adds exactly one regular timestamp
(``R = |T ∖ L|``; the paper's ``getOpts`` returns every such *valid* chain). Each
option is judged by a metric ``m`` of the set (the paper's ``calcMetric``/``evalSeq``),
by default the standard deviation of the distances between consecutive landmarks;
see :class:`GapStd`. The paper's two ways to build the chain:

* **heuristic** (Algorithm 2, :func:`heuristic_options`): greedily add the regular
  timestamp whose set has the metric closest to ``m(L)``;
* **optimal** (Algorithm 1, :func:`optimal_options`): among all ``R!`` chains, the
  one whose *mean* metric is closest to the original,
  ``argmin_chain |(1/R)·Σ_{i=1..R} m(L_i) − m(L)|``. Exact, with branch and bound,
  memoisation on the set reached and a meet-in-the-middle join; refused above
  :data:`OPTIMAL_MAX_REGULAR` regular timestamps.

**Private selection** (:func:`select_option`): one option is drawn with the
Exponential mechanism (McSherry & Talwar 2007) under its own budget ``ε_sel``, with
utility ``u(L_i) = −|m(L_i) − m(L)|`` and sensitivity ``Δu`` (see
:meth:`Metric.sensitivity` for the derivation): ``P(L_i) = exp(ε_sel·u_i/(2Δu)) / Z``.

**Budget.** :func:`release_series_with_dummies` and
:func:`release_trajectory_with_dummies` select ``L′`` and then release the data with
``L′`` as the landmark set (the verifier is applied with ``L′``). The selection is
ε_sel-DP and the release is landmark ε-private, so by sequential composition the
whole pipeline spends ``ε_sel + ε`` (Dwork & Roth 2014, Thm 3.16). Because
``L ⊆ L′`` and every ε_t ≥ 0, ``Σ_{i∈L∪{t}} ε_i ≤ Σ_{i∈L′∪{t}} ε_i``: a release that is
landmark-private for ``L′`` is also landmark-private for the original ``L``.

Caveat (also true of the paper's design): the *list* of options is computed from
``L`` (every option contains ``L``), so the Exponential mechanism's guarantee covers
the choice among the listed options; only the selected ``L′`` may leave the
trusted side, never the option list or the probabilities of a real ``L``.
"""

from lmdk_core.dummies.metrics import (
    METRICS,
    FunctionMetric,
    GapStd,
    Metric,
    NearestDistanceMean,
    get_metric,
)
from lmdk_core.dummies.options import (
    HEURISTIC_MAX_STEPS,
    METHODS,
    OPTIMAL_MAX_REGULAR,
    DummyOptions,
    ProgressCallback,
    dummy_options,
    heuristic_options,
    optimal_options,
)
from lmdk_core.dummies.selection import (
    DummyRelease,
    DummySelection,
    release_series_with_dummies,
    release_trajectory_with_dummies,
    select_option,
    selection_probabilities,
    utility_sensitivity,
)

__all__ = [
    "HEURISTIC_MAX_STEPS",
    "METHODS",
    "METRICS",
    "OPTIMAL_MAX_REGULAR",
    "DummyOptions",
    "DummyRelease",
    "DummySelection",
    "FunctionMetric",
    "GapStd",
    "Metric",
    "NearestDistanceMean",
    "ProgressCallback",
    "dummy_options",
    "get_metric",
    "heuristic_options",
    "optimal_options",
    "release_series_with_dummies",
    "release_trajectory_with_dummies",
    "select_option",
    "selection_probabilities",
    "utility_sensitivity",
]
