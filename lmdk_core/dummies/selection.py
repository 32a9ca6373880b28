"""Private selection of one option with the Exponential mechanism (McSherry & Talwar
2007), and releases that publish the selected set ``L′`` as the landmark set."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.dummies.metrics import Metric, get_metric
from lmdk_core.dummies.options import DummyOptions, ProgressCallback, dummy_options
from lmdk_core.engine.release import AdaptiveSettings, Release, release_series, release_trajectory
from lmdk_core.engine.verifier import Verdict, verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import as_generator, check_epsilon, check_positive
from lmdk_core.mechanisms.exponential import Exponential

__all__ = [
    "DummyRelease",
    "DummySelection",
    "release_series_with_dummies",
    "release_trajectory_with_dummies",
    "select_option",
    "selection_probabilities",
    "utility_sensitivity",
]


def utility_sensitivity(
    metric: str | Metric, length: int, sensitivity: float | None = None
) -> float:
    """Δu of the selection utility ``u = −|m(option) − m(L)|``.

    ``|u(L, o) − u(L̃, o)| ≤ |m(L) − m(L̃)|`` by the reverse triangle inequality, so the
    metric's own bound (:meth:`Metric.sensitivity`, ``(T−1)/2`` for both built-in
    metrics) serves; an explicit ``sensitivity`` overrides it.
    """
    if sensitivity is not None:
        return check_positive(sensitivity, "utility sensitivity")
    met = get_metric(metric)
    s = met.sensitivity(length)
    if s is None:
        raise InputError(
            f"metric {met.key!r} states no sensitivity; pass the utility sensitivity explicitly"
        )
    return check_positive(s, "utility sensitivity")


@dataclass(frozen=True)
class DummySelection:
    """One option drawn by the Exponential mechanism, and every option's probability."""

    options: DummyOptions
    epsilon: float
    sensitivity: float
    utilities: np.ndarray
    probabilities: np.ndarray
    index: int

    @property
    def selected(self) -> np.ndarray:
        """``L′``: the landmark set to release with (sorted)."""
        return self.options.option(self.index)

    @property
    def dummies(self) -> np.ndarray:
        """``L′ ∖ L``: the dummy landmarks that were added."""
        return np.setdiff1d(self.selected, self.options.landmarks)

    def to_dict(self) -> dict:
        """The CLI's JSON: options, probabilities and the selection."""
        return {
            **self.options.to_dict(),
            "epsilon": self.epsilon,
            "sensitivity": self.sensitivity,
            "utilities": self.utilities.tolist(),
            "probabilities": self.probabilities.tolist(),
            "selected": {
                "index": self.index,
                "timestamps": self.selected.tolist(),
                "dummies": self.dummies.tolist(),
                "metric": float(self.options.metrics[self.index]),
            },
        }


def selection_probabilities(
    options: DummyOptions, epsilon: float, sensitivity: float | None = None
) -> np.ndarray:
    """``P(L_i) = exp(ε·u_i/(2Δu)) / Z`` with ``u_i = −|m(L_i) − m(L)|`` (Katsomallos et al. 2022,
    "Privacy-preserving option selection"; McSherry & Talwar 2007)."""
    du = utility_sensitivity(options.metric, options.length, sensitivity)
    return Exponential(du).probabilities(-options.differences, check_epsilon(epsilon, "ε_sel"))


def select_option(
    options: DummyOptions,
    epsilon: float,
    seed: int | np.random.Generator | None = None,
    sensitivity: float | None = None,
) -> DummySelection:
    """Draw one option with the Exponential mechanism under budget ``epsilon`` (ε_sel).

    Utility ``u_i = −|m(L_i) − m(L)|``, sensitivity from :func:`utility_sensitivity`
    unless given; ε_sel-differentially private with respect to the landmark set for
    the listed options (see the module docstring for the caveat on the list itself).
    """
    if not isinstance(options, DummyOptions) or len(options) == 0:
        raise InputError("there are no options to select from; build them first")
    eps = check_epsilon(epsilon, "ε_sel")
    du = utility_sensitivity(options.metric, options.length, sensitivity)
    u = -options.differences
    mech = Exponential(du)
    p = mech.probabilities(u, eps)
    gen = as_generator(seed)
    index = int(gen.choice(p.size, p=p))
    return DummySelection(options, eps, du, u, p, index)


# ----------------------------------------------------------------- selection + release


@dataclass(frozen=True)
class DummyRelease:
    """A release made with the selected ``L′`` and its budget accounting.

    ``release.verdict`` checks the allocation against ``L′`` (what the release used);
    ``original_verdict`` checks the same allocation against the real ``L`` (implied by
    the first since ``L ⊆ L′``).
    """

    selection: DummySelection
    release: Release
    original_verdict: Verdict
    epsilon_selection: float
    epsilon_release: float

    @property
    def total_epsilon(self) -> float:
        """``ε_sel + ε`` (sequential composition)."""
        return self.epsilon_selection + self.epsilon_release

    def accounting(self) -> dict:
        """The budget split, for display."""
        return {
            "epsilon_selection": self.epsilon_selection,
            "epsilon_release": self.epsilon_release,
            "epsilon_total": self.total_epsilon,
            "composition": "sequential: ε_sel (option selection) + ε (landmark release with L′)",
            "landmarks_used": self.selection.selected.tolist(),
            "dummies": self.selection.dummies.tolist(),
            "private_for_selected": bool(self.release.verdict.private),
            "private_for_original": bool(self.original_verdict.private),
        }


def _select_for(
    length: int,
    landmarks: Iterable[int] | None,
    epsilon_selection: float,
    method: str,
    metric: str | Metric,
    utility_sens: float | None,
    max_options: int | None,
    gen: np.random.Generator,
    progress: ProgressCallback | None,
) -> DummySelection:
    eps_sel = check_epsilon(epsilon_selection, "ε_sel")
    opts = dummy_options(length, landmarks, method, metric, max_options=max_options,
                         progress=progress)
    return select_option(opts, eps_sel, gen, utility_sens)


def release_series_with_dummies(
    values: ArrayLike,
    landmarks: Iterable[int] | None,
    *, epsilon: float,
    epsilon_selection: float,
    scheme: str,
    mechanism: str = "laplace",
    sensitivity: float = 1.0,
    method: str = "heuristic",
    metric: str | Metric = "gap_std",
    selection_sensitivity: float | None = None,
    max_options: int | None = None,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
    progress: ProgressCallback | None = None,
) -> DummyRelease:
    """Select ``L′`` privately (budget ``epsilon_selection``), then
    :func:`~lmdk_core.engine.release.release_series` with ``L′`` as the landmark set
    (budget ``epsilon``). Total spent: ``ε_sel + ε`` by sequential composition."""
    x = np.asarray(values)
    if x.ndim != 1 or x.size == 0:
        raise InputError("the series is empty or not one column of numbers")
    eps = check_epsilon(epsilon)
    gen = as_generator(seed)
    sel = _select_for(x.size, landmarks, epsilon_selection, method, metric,
                      selection_sensitivity, max_options, gen, progress)
    rel = release_series(values, sel.selected, epsilon=eps, scheme=scheme, mechanism=mechanism,
                         sensitivity=sensitivity, seed=gen, window=window, adaptive=adaptive)
    return DummyRelease(sel, rel, verify(rel.epsilon_t, sel.options.landmarks, eps),
                        sel.epsilon, eps)


def release_trajectory_with_dummies(
    lat: ArrayLike,
    lon: ArrayLike,
    landmarks: Iterable[int] | None,
    *, epsilon: float,
    epsilon_selection: float,
    radius: float,
    scheme: str,
    method: str = "heuristic",
    metric: str | Metric = "gap_std",
    selection_sensitivity: float | None = None,
    max_options: int | None = None,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
    progress: ProgressCallback | None = None,
) -> DummyRelease:
    """Select ``L′`` privately (budget ``epsilon_selection``), then
    :func:`~lmdk_core.engine.release.release_trajectory` with ``L′`` (budget ``epsilon``,
    Planar Laplace with protection ``radius`` metres). Total: ``ε_sel + ε``."""
    la = np.asarray(lat)
    if la.ndim != 1 or la.size == 0:
        raise InputError("the trajectory is empty")
    eps = check_epsilon(epsilon)
    gen = as_generator(seed)
    sel = _select_for(la.size, landmarks, epsilon_selection, method, metric,
                      selection_sensitivity, max_options, gen, progress)
    rel = release_trajectory(lat, lon, sel.selected, epsilon=eps, radius=radius, scheme=scheme,
                             seed=gen, window=window, adaptive=adaptive)
    return DummyRelease(sel, rel, verify(rel.epsilon_t, sel.options.landmarks, eps),
                        sel.epsilon, eps)
