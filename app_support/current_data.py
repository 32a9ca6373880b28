"""The data the analysis pages work on: the Timeline's series or the Map's track.

The Compare and Leakage pages let the user pick either; this module hands them one
object with the data, its landmarks, cached releases and the default correlation
model, and builds the view configuration (JSON download, privacy report) that the
Timeline and Map pages also use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings
from app_support.components import (
    cached_advice,
    cached_correlation,
    cached_leakage_grid,
    cached_model_leakage,
    cached_release_utility,
    cached_series_release,
    cached_sweep,
    cached_track_release,
)
from app_support.correlation_state import correlation_spec
from app_support.session import (
    DEMO_SERIES,
    current_series,
    leakage_target,
    series_landmarks,
    series_runs,
)
from app_support.track_session import (
    DEMO_TRACK_KEY,
    current_track,
    track_landmarks,
    track_stays,
)
from lmdk_core.data.digest import array_digest
from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.decision.mechanism_choice import mechanism_problems
from lmdk_core.decision.utility import UtilityVerdict, utility_verdict
from lmdk_core.decision.verdict import PrivacyVerdict, privacy_verdict
from lmdk_core.engine.release import Release
from lmdk_core.engine.run_events import format_runs
from lmdk_core.engine.stay_events import format_stays, stay_members
from lmdk_core.figures.common import data_labels
from lmdk_core.figures.object_memo import per_object
from lmdk_core.files.config import ViewConfig
from lmdk_core.files.export import time_labels
from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage.conservative import (
    SmoothingSweep,
    conservative_name,
    is_estimated,
    range_text,
)
from lmdk_core.leakage.model import CorrelationModel

KINDS = {"series": "Time series (Timeline page)", "track": "Trajectory (Map page)"}


@dataclass(frozen=True)
class CurrentData:
    """The selected series or track with its landmarks, as the pages see it."""

    kind: str  # 'series' or 'track'
    name: str
    data: Series | Track
    landmarks: list[int]
    #: stays of a track (runs of a series' readings) protected as one landmark event each
    #: (their fixes are in landmarks; docs/stays.md, docs/series-events.md)
    stays: tuple[tuple[int, int], ...] = ()

    @property
    def is_track(self) -> bool:
        return self.kind == "track"

    @property
    def track(self) -> Track:
        """The data of a track (TypeError for a series)."""
        if not isinstance(self.data, Track):
            raise TypeError("the current data are a series, not a track")
        return self.data

    @property
    def series(self) -> Series:
        """The data of a series (TypeError for a track)."""
        if not isinstance(self.data, Series):
            raise TypeError("the current data are a track, not a series")
        return self.data

    @property
    def unit(self) -> str:
        return "m" if self.is_track else self.series.unit

    @property
    def length(self) -> int:
        return len(self.data)

    def release(self, scheme: str, epsilon: float | None = None) -> Release:
        """The release of this data under ``scheme`` with the shared settings (cached)."""
        s = current_settings()
        eps = float(s.epsilon if epsilon is None else epsilon)
        lm = tuple(self.landmarks)
        if self.is_track:
            return cached_track_release(self.track.lat, self.track.lon, lm, eps,
                                        s.radius, scheme, s.seed, s.window, self.stays,
                                        s.max_landmarks)
        # what stops the mechanism, all at once and each with its fix (as on the Timeline)
        problems = mechanism_problems(self.series.values, s.mechanism, s.sensitivity)
        if problems:
            raise InputError("the Geometric mechanism cannot release this series: "
                             + "; ".join(f"{p.problem} (fix: {p.fix})" for p in problems)
                             + ". The Timeline page has buttons for these fixes")
        return cached_series_release(self.series.values, lm, eps, scheme, s.mechanism,
                                     s.sensitivity, s.seed, s.window, s.max_landmarks,
                                     self.stays)

    @property
    def key(self) -> str:
        """A digest of the data's values (a cache key for models estimated from them)."""
        arrays = (self.track.lat, self.track.lon) if self.is_track else (self.series.values,)
        return array_digest(*arrays, label=self.kind)

    def correlation(self) -> CorrelationModel:
        """The session's correlation model for this data (the Leakage page's choice;
        raises :class:`InputError` when it cannot be built for this data)."""
        spec = json.dumps(correlation_spec(self.kind), sort_keys=True)
        s = current_settings()
        return cached_correlation(spec, self.key, self.data, s.correlation_strength,
                                  s.cell_size)

    def leakage(self, epsilon_t: np.ndarray, landmarks: list[int] | None = None
                ) -> tuple[CorrelationModel | None, dict[str, np.ndarray] | None, str | None]:
        """(model, {'TPL', 'landmark TPL'} or None, note) under the session's correlation
        model (landmark TPL for ``landmarks``, default this data's); the note says why no
        leakage was computed."""
        lm = tuple(self.landmarks if landmarks is None else landmarks)
        try:
            model = self.correlation()
        except InputError as exc:
            return None, None, f"the model cannot be built for this data: {exc}"
        if not model.computed:
            return model, None, model.note
        spec = json.dumps(model.spec, sort_keys=True)
        return model, cached_model_leakage(spec, self.key, epsilon_t, lm, model), None

    def leakage_grid(self, model: CorrelationModel | None, share: np.ndarray,
                     epsilon_range: tuple[float, float], curves: bool):
        """Landmark TPL of ``ε·share`` on the ε slider's grid over ``epsilon_range``
        (:func:`app_support.components.cached_leakage_grid`), or None without a computed
        model."""
        if model is None or not model.computed:
            return None
        spec = json.dumps(model.spec, sort_keys=True)
        return cached_leakage_grid(spec, self.key, share, tuple(self.landmarks),
                                   float(epsilon_range[0]), float(epsilon_range[1]),
                                   bool(curves), model)

    def verdict(self, rel: Release, leak: dict[str, np.ndarray] | None = None,
                model: CorrelationModel | None = None, note: str | None = None
                ) -> PrivacyVerdict:
        """The one verdict of a release of this data (theorem + landmark TPL under the
        session's model when ``leak`` is given). An amber verdict carries the checked
        calibration advice (:func:`lmdk_core.decision.verdict.calibration_advice`, cached), except
        for Adaptive, whose allocation depends on its own noise."""
        labels = data_labels(self.data)
        target = leakage_target() if leak is not None else None
        groups = tuple((int(a), int(b)) for a, b in getattr(rel, "stays", ()))
        lt, name, estimated = self._verdict_leakage(rel, leak, model)
        pv = privacy_verdict(rel.epsilon_t, self.landmarks, rel.epsilon, groups=groups,
                             landmark_tpl=lt, model=name, model_note=note,
                             time_labels=labels, leakage_target=target, advise=False,
                             estimated=estimated)
        if pv.colour != "amber" or model is None or not model.computed \
                or rel.scheme == "adaptive" or pv.landmark_tpl_max is None \
                or pv.leakage_target is None or not np.isfinite(pv.landmark_tpl_max):
            return pv
        spec = json.dumps(model.spec, sort_keys=True)
        advice = cached_advice(spec, self.key, rel.epsilon_t, tuple(self.landmarks),
                               float(rel.epsilon), float(pv.leakage_target), groups, model)
        if advice is None:
            return pv
        return privacy_verdict(rel.epsilon_t, self.landmarks, rel.epsilon,
                               groups=groups, landmark_tpl=lt, model=name, model_note=note,
                               time_labels=labels, leakage_target=target, advice=advice,
                               estimated=estimated)

    def sweep(self, rel: Release, model: CorrelationModel | None) -> SmoothingSweep | None:
        """Landmark TPL of a release under every smoothing of an estimated model (cached;
        None for a model that is not estimated): the table of the verdict's expander."""
        if not is_estimated(model):
            return None
        spec = json.dumps(model.spec, sort_keys=True)
        return cached_sweep(spec, self.key, rel.epsilon_t, tuple(self.landmarks), model)

    def _verdict_leakage(self, rel: Release, leak: dict[str, np.ndarray] | None,
                         model: CorrelationModel | None
                         ) -> tuple[np.ndarray | None, str | None, str | None]:
        """(landmark TPL, model name, smoothing range) the verdict compares: under an
        estimated model the worst over the smoothing range, named without its own
        smoothing (:mod:`lmdk_core.leakage.conservative`); else the model's own."""
        if leak is None:
            return None, model.short if model is not None else None, None
        sw = self.sweep(rel, model)
        if sw is None or model is None:
            return leak["landmark TPL"], model.short if model is not None else None, None
        return (sw.worst, conservative_name(model),
                range_text(model.spec.get("smoothing")))

    def utility(self, rel: Release) -> UtilityVerdict:
        """The utility line of a release of this data: its expected error at the
        session's Δf (series) or r (track) against the data's own scale (cached per
        release: :func:`app_support.components.cached_release_utility`)."""
        s = current_settings()
        if self.is_track:
            return cached_release_utility(rel, radius=s.radius, times=self.data.time)
        return cached_release_utility(rel, sensitivity=s.sensitivity, unit=self.series.unit)

    def allocation_utility(self, epsilon_t: np.ndarray) -> UtilityVerdict:
        """The utility line of an allocation of this data (published where ε_t > 0) with
        the session's mechanism and Δf (series) or r (track)."""
        s = current_settings()
        if self.is_track:
            return utility_verdict(np.c_[self.track.lat, self.track.lon], epsilon_t,
                                   radius=s.radius, times=self.data.time, epsilon=s.epsilon,
                                   n_landmarks=len(self.landmarks), scheme=s.scheme)
        return utility_verdict(self.series.values, epsilon_t, mechanism=s.mechanism,
                               sensitivity=s.sensitivity, epsilon=s.epsilon,
                               n_landmarks=len(self.landmarks), scheme=s.scheme,
                               unit=self.series.unit)


def current_data(kind: str | None = None) -> CurrentData:
    """The data of ``kind`` ('series' or 'track'; default: the pages' shared choice)."""
    kind = kind or current_settings().analysis_data
    if kind == "track":
        name, track = current_track()
        stays = tuple(track_stays(name))
        lm = sorted(set(track_landmarks(name)) | set(stay_members(stays).tolist()))
        return CurrentData("track", name, track, lm, stays)
    name, series = current_series()
    return CurrentData("series", name, series, series_landmarks(name),
                       tuple(series_runs(name)))


def data_choice(label: str = "Data") -> CurrentData:
    """A radio to pick the Timeline's series or the Map's track; returns the choice."""
    st.radio(label, list(KINDS), key=K.W_ANALYSIS_DATA, format_func=KINDS.get,
             horizontal=True, help="The landmarks are those marked on the page it comes from.")
    return current_data()


@per_object(maxsize=16)
def _embedded_table(data) -> dict:
    """The table a configuration embeds for an uploaded series or track, built once per
    data object (the session keeps its datasets; 20,000 rows take ~35 ms to format)."""
    if hasattr(data, "lat"):
        return data.table()  # times (None where missing), lat, lon, pieces
    return {"time": time_labels(data.time, data.time_kind, getattr(data, "utc", False)),
            "value": data.values.tolist()}


def view_config(cur: CurrentData, page: str, extra: dict | None = None) -> ViewConfig:
    """The configuration that reproduces the current view (seed included). Its data
    table is shared between reruns: nothing may change it (the files are built from deep
    copies)."""
    data = cur.data
    s = current_settings()
    if cur.is_track:
        is_demo = st.session_state[K.TRACK_KEYS].get(cur.name) == DEMO_TRACK_KEY
        table = None if is_demo else _embedded_table(data)
        dataset = DEMO_TRACK_KEY if is_demo else "embedded"
        extra = {"cell_size_m": s.cell_size,
                 **({"stays": format_stays(cur.stays)} if cur.stays else {}), **(extra or {})}
    else:
        is_demo = cur.name == DEMO_SERIES
        table = None if is_demo else _embedded_table(data)
        dataset = "demo-household" if is_demo else "embedded"
        extra = {**({"runs": format_runs(cur.stays)} if cur.stays else {}), **(extra or {})}
    # the uploaded file an embedded table came from: the internal report names it
    source = (st.session_state.get(K.DATA_FILES, {}).get(cur.name)
              if dataset == "embedded" else None)
    if source is not None:
        extra = {"source_file": dict(source), **(extra or {})}
    return ViewConfig(
        data_kind=cur.kind, dataset=dataset, data=table, time_kind=data.time_kind,
        landmarks=list(cur.landmarks), epsilon=s.epsilon, scheme=s.scheme, window=s.window,
        mechanism=s.mechanism, sensitivity=s.sensitivity, radius=s.radius, seed=s.seed,
        reproducible=s.reproducible, correlation_strength=s.correlation_strength,
        page=page, extra={"correlation": correlation_spec(cur.kind),
                          "max_landmarks": s.max_landmarks,
                          **({"leakage_target": leakage_target()} if leakage_target() else {}),
                          **(extra or {})},
    )
