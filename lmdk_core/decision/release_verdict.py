"""The verdict of a finished release under a correlation model: its temporal privacy
leakage (TPL and landmark TPL; Cao et al., "Quantifying differential privacy under
temporal correlations", ICDE 2017, and TKDE 2018) and the one verdict of
:func:`lmdk_core.decision.verdict.privacy_verdict` built from it.

The privacy report (:mod:`lmdk_core.report.compute`) and ``lmdk geo-release`` take the
verdict of a release from here: :func:`release_leakage` computes the leakage of the
release's allocation (and, under a model estimated from the data, the sweep over the
smoothing range whose worst case the verdict uses; :mod:`lmdk_core.leakage.conservative`),
:func:`release_verdict` turns it into green / amber / red with the checked calibration
advice. The app's pages compute the same leakage through their caches and call
:func:`~lmdk_core.decision.verdict.privacy_verdict` with the same arguments. See
``docs/correlation.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from lmdk_core.decision.verdict import PrivacyVerdict, privacy_verdict
from lmdk_core.engine.release import Release
from lmdk_core.leakage.conservative import (
    ModelVariant,
    SmoothingSweep,
    conservative_name,
    range_text,
    smoothing_sweep,
    smoothing_variants,
)
from lmdk_core.leakage.loss import LossFunction, LossPair
from lmdk_core.leakage.model import CorrelationModel

__all__ = ["LeakageSummary", "release_leakage", "release_verdict"]

@dataclass(frozen=True)
class LeakageSummary:
    """TPL and landmark TPL of the release's allocation under ``model``; for a model
    estimated from the data also ``sweep``, landmark TPL under every smoothing of
    :data:`~lmdk_core.leakage.conservative.SMOOTHING_RANGE` (the verdict takes the worst)."""

    model: CorrelationModel
    tpl: np.ndarray | None
    landmark_tpl: np.ndarray | None
    sweep: SmoothingSweep | None = None
    variants: tuple[ModelVariant, ...] = ()
    #: the loss functions of ``model``'s matrices and of each variant's (in the order of
    #: ``variants``), built once: the verdict and its calibration advice reuse them
    model_losses: LossPair | None = None
    variant_losses: tuple[LossPair, ...] = ()

    @property
    def computed(self) -> bool:
        return self.tpl is not None

    @property
    def estimated(self) -> bool:
        """Whether the model was estimated from the raw data (conservative verdict)."""
        return self.sweep is not None


def release_leakage(rel: Release, model: CorrelationModel) -> LeakageSummary:
    """TPL and landmark TPL of a release's allocation under the model (Cao et al., ICDE
    2017 / TKDE 2018: :func:`lmdk_core.leakage.temporal_leakage`; none without a matrix);
    for an estimated model also the sweep over the smoothing range
    (:func:`lmdk_core.leakage.conservative.smoothing_sweep`). With
    :func:`release_verdict` it is the verdict of the report and of ``lmdk geo-release``."""
    if model.backward is None:
        return LeakageSummary(model, None, None)
    from lmdk_core.leakage import temporal_leakage
    from lmdk_core.leakage.loss import loss_pair

    # each matrix's loss function is built once (Cao et al.'s L_P, the same function
    # whoever builds it): the verdict's calibration advice reuses them
    own = loss_pair(model.backward, model.forward)
    res = temporal_leakage(rel.epsilon_t, *own, rel.landmarks.tolist())
    variants = smoothing_variants(model)
    losses = tuple(loss_pair(v.backward, v.forward) for v in variants)
    sweep = (smoothing_sweep(rel.epsilon_t, rel.landmarks.tolist(), variants, losses)
             if variants else None)
    return LeakageSummary(model, res.tpl, res.landmark_tpl, sweep, variants, own, losses)



class _LeakageArguments(TypedDict, total=False):
    """The keyword arguments of :func:`~lmdk_core.decision.verdict.privacy_verdict` that
    come from the leakage."""

    landmark_tpl: np.ndarray | None
    model_note: str | None
    leakage_target: float | None
    backward: np.ndarray | LossFunction | None
    forward: np.ndarray | LossFunction | None
    advise: bool
    model: str | None
    estimated: str | None
    alternatives: Sequence[tuple]


def _leakage_arguments(leak: LeakageSummary, scheme: str,
                       target: float | None) -> _LeakageArguments:
    """:func:`~lmdk_core.decision.verdict.privacy_verdict`'s leakage arguments: with the
    leakage computed, its landmark TPL, the target and (advice on the allocation, except
    for Adaptive) the correlation matrices; without, the model's note on why not."""
    if not leak.computed:
        return {"landmark_tpl": None, "model_note": leak.model.note, "leakage_target": None,
                "backward": None, "forward": None, "advise": False}
    advise = scheme != "adaptive"
    # the model's loss functions where release_leakage built them (else its matrices)
    backward, forward = (leak.model_losses if leak.model_losses is not None
                         else (leak.model.backward, leak.model.forward))
    out: _LeakageArguments = {
        "landmark_tpl": leak.landmark_tpl, "model_note": None, "leakage_target": target,
        "backward": backward if advise else None,
        "forward": forward if advise else None, "advise": advise}
    if leak.sweep is not None:  # estimated: the worst over the smoothing range, calibrated
        own = leak.model.spec.get("smoothing")  # over all of it
        out["landmark_tpl"] = leak.sweep.worst
        out["estimated"] = range_text(own)
        out["model"] = conservative_name(leak.model)
        pairs = leak.variant_losses or [(v.backward, v.forward) for v in leak.variants]
        out["alternatives"] = [tuple(p) for v, p in zip(leak.variants, pairs, strict=True)
                               if v.smoothing != own] if advise else []
    return out


def release_verdict(rel: Release, leak: LeakageSummary, labels: list[str] | None = None,
                    target: float | None = None) -> PrivacyVerdict:
    """:func:`lmdk_core.decision.verdict.privacy_verdict` of a release under the leakage computed
    for it (green / amber / red); ``target`` is the landmark-TPL target (default ε)."""
    kw = _leakage_arguments(leak, rel.scheme, target)
    kw.setdefault("model", leak.model.short or None)
    return privacy_verdict(rel.epsilon_t, rel.landmarks.tolist(), rel.epsilon,
                           groups=rel.stays, time_labels=labels, **kw)
