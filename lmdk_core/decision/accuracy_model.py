"""The data and mechanism an accuracy target is evaluated on, and where each released
reading's error comes from.

Shared by the exact accuracy of the static schemes
(:mod:`lmdk_core.decision.accuracy`), the ε search
(:mod:`lmdk_core.decision.epsilon_search`) and Adaptive's simulated accuracy
(:mod:`lmdk_core.decision.adaptive_accuracy`). A reading t released at a *published*
timestamp carries the mechanism's noise ``Z_t`` of budget ε_t; at an *approximated* t
(Skip's landmarks, Adaptive's skips; Katsomallos et al., "Landmark privacy:
configurable differential privacy protection for time series", CODASPY 2022) the release
shows the last publication s(t) plus fresh noise ``W_t`` of the regular law
(:mod:`lmdk_core.engine.repeat_noise`), so its error is ``δ_t + Z_{s(t)} + W_t`` with
``δ_t = x_{s(t)} − x_t`` (:func:`reading_offsets`, :func:`fresh_budgets`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.engine.allocation import allocate
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_landmarks, check_positive

__all__ = ["AccuracyModel", "ReadingOffsets", "accuracy_model", "fresh_budgets", "reading_offsets"]


@dataclass(frozen=True)
class AccuracyModel:
    """The data and mechanism an accuracy target is evaluated on: the mechanism
    (``'laplace'``, ``'geometric'`` or ``'planar_laplace'``), its unit of scale (the
    declared Δf of a series, the protection radius r of a track: a reading published
    with budget ε_t carries noise of scale Δf/ε_t or r/ε_t), the values (T,) or the
    track (T, 2) [lat, lon], and — for landmark events (docs/stays.md,
    docs/series-events.md) — the stays and the point each publication noises. Built,
    checked, by :func:`accuracy_model`."""

    mechanism: str            # 'laplace' | 'geometric' | 'planar_laplace'
    scale_unit: float         # Δf (series) or r (tracks)
    values: np.ndarray        # (T,) or (T, 2) [lat, lon]
    #: stays released as one landmark event each (tracks; docs/stays.md)
    stays: tuple[tuple[int, int], ...] = ()
    #: the point a publication at t noises (a stay's first fix: the stay's centroid);
    #: None = the value itself
    base: np.ndarray | None = None

    @property
    def T(self) -> int:
        return int(self.values.shape[0])

    def landmarks(self, landmarks: Iterable[int] | None) -> np.ndarray:
        """The landmark set: the given one plus every fix of the stays."""
        lm = check_landmarks(landmarks, self.T)
        if not self.stays:
            return lm
        from lmdk_core.engine.stay_events import stay_members

        return np.union1d(lm, stay_members(self.stays)).astype(int)

    def allocate(self, key: str, landmarks: Iterable[int] | None, epsilon: float,
                 window: int | None) -> np.ndarray:
        """The scheme's planned ε_t; with stays, the allocation of the condensed
        timeline (each stay one landmark) with each stay's budget at its first fix."""
        lm = self.landmarks(landmarks)
        if not self.stays:
            return allocate(key, self.T, lm, epsilon, window=window)
        from lmdk_core.engine.stay_events import condense

        cond = condense(self.T, self.stays)
        out = np.zeros(self.T)
        out[cond.rep] = allocate(key, cond.condensed_length, np.unique(cond.index[lm]),
                                 epsilon, window=window)
        return out


class ReadingOffsets(NamedTuple):
    """What each reading's released value shows (:func:`reading_offsets`)."""

    #: s(t): the last publication at or before t that its released value shows
    source: np.ndarray
    #: δ_t = x_{s(t)} − x_t (a track: the distance in metres)
    delta: np.ndarray
    #: whether anything is released at t (False before the first publication)
    released: np.ndarray


def reading_offsets(model: AccuracyModel, published: np.ndarray
                    ) -> ReadingOffsets:
    """``(s, δ, released)``: for each t, the last publication ``s(t) ≤ t`` its released
    value shows and the offset ``δ_t = x_{s(t)} − x_t`` (a track: the distance in
    metres; 0 where t itself is published and noises its own value; with stays, the
    stay's centroid − x_t), so that the error of reading t is ``δ_t + Z_{s(t)}`` (plus
    fresh noise, :func:`fresh_budgets`; Katsomallos et al., CODASPY'22: Skip and
    Adaptive approximate with the last publication); and the mask of released t
    (withheld: nothing published yet).

    >>> m = accuracy_model([1.0, 3.0, 4.0], "laplace", 1.0, None)
    >>> s, d, released = reading_offsets(m, np.array([False, True, False]))
    >>> s.tolist(), d.tolist(), released.tolist()
    ([0, 1, 1], [0.0, 0.0, -1.0], [False, True, True])
    """
    T = published.size
    idx = np.where(published, np.arange(T), -1)
    np.maximum.accumulate(idx, out=idx)
    released = idx >= 0
    src = np.maximum(idx, 0)
    base = model.values if model.base is None else model.base
    if model.values.ndim == 1:
        delta = base[src] - model.values
    else:
        from lmdk_core.foundation.geodesy import distance_m

        delta = distance_m(base[src, 0], base[src, 1], model.values[:, 0],
                           model.values[:, 1])
    if model.base is None:  # a publication noises the value itself
        delta = np.where(published, 0.0, delta)
    return ReadingOffsets(src, np.asarray(delta, float), released)


def fresh_budgets(model: AccuracyModel, eps_t: np.ndarray, published: np.ndarray
                  ) -> np.ndarray:
    """Per timestamp, the budget of the fresh post-processing noise its released value
    carries (0 where none): every approximation and every fix of a stay shows its
    repeated value plus noise of the regular law (:mod:`lmdk_core.engine.repeat_noise`),
    whose budget is the largest planned share (a static scheme plans one share for every
    regular timestamp, and no other timestamp gets more).

    >>> m = accuracy_model([1.0, 3.0, 4.0], "laplace", 1.0, None)
    >>> fresh_budgets(m, np.array([0.5, 0.5, 0.0]), np.array([True, True, False])).tolist()
    [0.0, 0.0, 0.5]
    """
    fresh = ~np.asarray(published, dtype=bool)
    if model.stays:
        from lmdk_core.engine.stay_events import stay_members

        fresh[stay_members(model.stays)] = True
    e = float(eps_t.max()) if eps_t.size else 0.0
    return np.where(fresh, e, 0.0)


def accuracy_model(values: ArrayLike, mechanism: str, sensitivity: float | None,
                   radius: float | None,
                   stays: Iterable[tuple[int, int]] | None = None) -> AccuracyModel:
    """The checked data and mechanism: Planar Laplace of radius ``radius`` (metres) for a
    track (T, 2) [lat, lon], Laplace or Geometric (``mechanism``) of sensitivity Δf
    (default 1) for a series (T,); ``stays``: runs released as one landmark event each,
    their first timestamp noising the run's centroid or level (docs/stays.md,
    docs/series-events.md). :class:`~lmdk_core.foundation.errors.InputError` when the
    data, the mechanism or a scale is not valid.

    >>> m = accuracy_model([1.0, 2.0, 4.0], "geometric", 2, None)
    >>> m.mechanism, m.scale_unit, m.T
    ('geometric', 2.0, 3)
    """
    x = np.asarray(values, dtype=float)
    if x.ndim == 2:
        return _track_model(x, radius, stays)
    if x.ndim != 1 or x.size == 0:
        raise InputError("the data must be a non-empty series or a track")
    mech = str(mechanism).lower()
    if mech not in ("laplace", "geometric"):
        raise InputError("the series mechanism is 'laplace' or 'geometric'")
    df = check_positive(sensitivity if sensitivity is not None else 1.0, "sensitivity Δf")
    return _events_model(AccuracyModel(mech, df, x), stays, whole=mech == "geometric")


def _events_model(model: AccuracyModel, stays: Iterable[tuple[int, int]] | None,
                  whole: bool = False) -> AccuracyModel:
    """``model`` with its stays (a track) or runs (a series) released as one landmark
    event each: a group's first timestamp noises the group's centroid or level
    (docs/stays.md, docs/series-events.md)."""
    if not stays:
        return model
    from lmdk_core.engine.stay_events import condense, condensed_points

    x = model.values
    cond = condense(x.shape[0], stays)
    if not cond.stays:
        return model
    base = x.copy()
    base[cond.rep] = condensed_points(x, cond, whole=whole)
    return AccuracyModel(model.mechanism, model.scale_unit, x, cond.stays, base)


def _track_model(x: np.ndarray, radius: float | None,
                 stays: Iterable[tuple[int, int]] | None) -> AccuracyModel:
    """A track's model: Planar Laplace of radius r; with stays, each stay's first fix noises
    the stay's centroid (docs/stays.md)."""
    if radius is None:
        raise InputError("a track needs the protection radius r (metres)")
    r = check_positive(radius, "protection radius")
    return _events_model(AccuracyModel("planar_laplace", r, x), stays)
