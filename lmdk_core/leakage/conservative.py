"""The conservative model of an estimated correlation: the worst over a range of smoothing.

A transition matrix *estimated* from the data (:mod:`lmdk_core.leakage.estimation`)
depends on a choice the data do not make: the count ``a`` added to every transition
(``P_F[i, j] = (c_ij + a) / (Σ_k c_ik + n·a)``). Add-one smoothing (``a = 1``) pulls
sparse rows towards uniform and so *understates* the correlation; an attacker who
counts the same transitions with less smoothing gets a stronger chain and a larger
leakage (Cao, Yoshikawa, Xiao, Xiong, ICDE'17 / TKDE'18). On the demo week at ε = 0.331
landmark TPL is 1.00 with ``a = 1``, 1.67 with 0.5, 6.0 with 0.1 and 16.7 with none.

So the verdict and the calibration under an estimated model take the **worst over a
stated range of smoothing**, :data:`SMOOTHING_RANGE` (and the model's own smoothing):
landmark TPL at every timestamp is ``max_a landmark TPL_t(P_a)``, and the calibration
looks for the largest ``c`` with ``max_a max_t landmark TPL_t(c·ε_t; P_a) ≤ α``. Every
``landmark TPL_t(c·ε; P_a)`` is non-decreasing in ``c``, hence so is their maximum, and
the bracketing search of :mod:`lmdk_core.leakage.calibration` applies unchanged.

No smoothing at all (``a = 0``) is left out of the range: a transition never counted
then has probability 0, and the leakage of a chain with zeros can be infinite for every
ε > 0 — a verdict that could never be green whatever the budget. ``a = 0.01`` is close
to the maximum-likelihood fit wherever a transition was counted. See
``docs/correlation.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple, TypeGuard

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.leakage.estimation import transition_matrices
from lmdk_core.leakage.model import CorrelationModel

__all__ = ["SMOOTHING_RANGE", "ModelVariant", "SmoothingSweep", "WorstCurve",
           "conservative_name", "is_estimated", "range_text", "smoothing_sweep", "smoothing_values",
           "smoothing_variants", "worst_curve"]

#: the smoothing counts over which an estimated model's worst landmark TPL is taken
SMOOTHING_RANGE = (1.0, 0.5, 0.1, 0.01)


def is_estimated(model: CorrelationModel | None) -> TypeGuard[CorrelationModel]:
    """Whether ``model`` was counted from the data (``estimated`` series, ``grid``
    track) and has matrices: the models whose verdict is conservative."""
    return model is not None and model.key in ("estimated", "grid") and model.computed \
        and model.states is not None


def conservative_name(model: CorrelationModel) -> str:
    """An estimated model's short name without its own smoothing (the conservative
    verdict takes the worst over the range): ``"estimated from the data: 10 equal-count
    bins"``."""
    return model.short.rsplit(", ", 1)[0] if ", " in model.short else model.short


def range_text(own: float | None = None) -> str:
    """The range in words: ``"1, 0.5, 0.1 and 0.01"`` (with the model's own smoothing
    ``own`` when it is not in the range)."""
    values = smoothing_values(own)
    return ", ".join(f"{a:g}" for a in values[:-1]) + f" and {values[-1]:g}"


def smoothing_values(own: float | None) -> list[float]:
    """:data:`SMOOTHING_RANGE` with ``own`` added, largest first, without repeats.

    >>> smoothing_values(0.3)
    [1.0, 0.5, 0.3, 0.1, 0.01]
    """
    values = set(SMOOTHING_RANGE) | ({float(own)} if own is not None else set())
    return sorted(values, reverse=True)


@dataclass(frozen=True)
class ModelVariant:
    """An estimated model re-counted with ``smoothing`` added to every transition."""

    smoothing: float
    backward: np.ndarray
    forward: np.ndarray


def smoothing_variants(model: CorrelationModel) -> tuple[ModelVariant, ...]:
    """``model`` re-counted at every smoothing of :data:`SMOOTHING_RANGE` and at its own
    (largest smoothing first), from the same states (bins or grid cells) and with the
    same backward rule (counted, Bayes' rule or the forward matrix used both ways).
    Empty for a model that is not estimated (:func:`is_estimated`).

    >>> import numpy as np
    >>> from lmdk_core.data.series import Series
    >>> from lmdk_core.leakage.model import correlation_from_spec
    >>> data = Series(time=np.arange(8), values=np.array([1.0, 2, 3, 1, 2, 3, 3, 1]))
    >>> model = correlation_from_spec({"model": "estimated", "bins": 3}, data)
    >>> [v.smoothing for v in smoothing_variants(model)]
    [1.0, 0.5, 0.1, 0.01]
    >>> bool(np.allclose(smoothing_variants(model)[0].forward, model.forward))
    True
    """
    states = model.states
    if not is_estimated(model) or states is None:
        return ()
    from lmdk_core.leakage.correlation import backward_matrix

    how = model.spec.get("backward", "estimated")
    out = []
    for a in smoothing_values(model.spec.get("smoothing")):
        forward, counted = transition_matrices(states.states, states.n_states, a)
        if how == "bayes":
            backward = backward_matrix(forward)
        elif how == "same":
            backward = forward
        else:
            backward = counted
        out.append(ModelVariant(a, backward, forward))
    return tuple(out)


class WorstCurve(NamedTuple):
    """The landmark TPL under the worst of several correlation models
    (:func:`worst_curve`)."""

    #: the landmark TPL per timestamp under the model of the largest peak
    curve: np.ndarray
    #: ``max_t`` landmark TPL under each model, in the order given
    peaks: tuple[float, ...]


def worst_curve(epsilon_t: ArrayLike, landmarks: list[int], models: list[tuple],
                peaks: tuple[float, ...] | None = None) -> WorstCurve:
    """``(curve, peaks)``: ``peaks[m] = max_t landmark TPL_t`` under each ``(backward,
    forward)`` model (:func:`~lmdk_core.leakage.tpl.max_landmark_tpl`, bit for bit the
    maximum of the curve, ~10× cheaper: it runs the restarted recursions only where the
    maximum can be; several models' rounds run as one vector by
    :func:`~lmdk_core.leakage.tpl_many.max_landmark_tpls`, each peak bit for bit its own),
    and ``curve`` the landmark TPL per timestamp under the model of the largest peak —
    its maximum is the worst over the models and its argmax where it is reached, all the
    verdict reads. ``peaks``: the models' maxima already computed for this allocation
    (a scale calibration's at its result, :attr:`CalibrationResult.model_peaks
    <lmdk_core.leakage.calibration.CalibrationResult>`): not computed again."""
    from lmdk_core.leakage.tpl import landmark_tpl, max_landmark_tpl
    from lmdk_core.leakage.tpl_many import max_landmark_tpls

    if peaks is not None:
        if len(peaks) != len(models):
            raise ValueError(f"{len(peaks)} peaks for {len(models)} models")
    elif len(models) == 1:
        peaks = (float(max_landmark_tpl(epsilon_t, landmarks, *models[0])),)
    else:
        eps, lm = np.asarray(epsilon_t, dtype=float), np.asarray(landmarks, dtype=np.intp)
        peaks = tuple(float(p) for p in max_landmark_tpls([(eps, lm, b, f) for b, f in models]))
    b, f = models[int(np.argmax(peaks))]
    return WorstCurve(np.asarray(landmark_tpl(epsilon_t, landmarks, b, f), dtype=float), peaks)


@dataclass(frozen=True)
class SmoothingSweep:
    """Landmark TPL of one allocation under every variant of an estimated model.

    ``smoothing[i]`` gives the largest landmark TPL ``peaks[i]``; ``worst`` is the
    landmark TPL per timestamp under the variant of the largest peak (its maximum and
    where it is reached are what the conservative verdict compares with the target);
    ``worst_smoothing`` the smoothing of the largest peak."""

    smoothing: tuple[float, ...]
    peaks: tuple[float, ...]
    worst: np.ndarray

    @property
    def worst_smoothing(self) -> float:
        return self.smoothing[int(np.argmax(self.peaks))]

    def rows(self) -> list[tuple[float, float]]:
        """(smoothing, largest landmark TPL) per variant, largest smoothing first."""
        return list(zip(self.smoothing, self.peaks, strict=True))


def smoothing_sweep(epsilon_t: ArrayLike, landmarks: Iterable[int] | None,
                    variants: Iterable[ModelVariant], losses=None) -> SmoothingSweep:
    """Landmark TPL (Cao et al.'s leakage extended to landmarks,
    :func:`lmdk_core.leakage.landmark_tpl`) of ``epsilon_t`` under every variant.

    ``losses``: optional ``(backward, forward)`` loss functions per variant, in the same
    order (a caller that caches them); by default the variants' matrices."""
    variants = tuple(variants)
    if not variants:
        raise ValueError("smoothing_sweep needs at least one model variant")
    pairs = list(losses) if losses is not None else [(v.backward, v.forward)
                                                     for v in variants]
    lm = list(landmarks) if landmarks is not None else []
    curve, peaks = worst_curve(epsilon_t, lm, pairs)
    return SmoothingSweep(tuple(v.smoothing for v in variants), peaks, curve)
