"""The data the analysis pages work on: the Timeline's series or the Map's track.

The Compare and Leakage pages let the user pick either; this module hands them one
object with the data, its landmarks, cached releases and the default correlation
model, and builds the view configuration (JSON download, privacy report) that the
Timeline and Map pages also use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from app_pages.components import (
    cached_leakage,
    cached_series_leakage,
    cached_series_release,
    cached_track_release,
)
from app_pages.session import DEMO_SERIES, current_series, series_landmarks, setting
from app_pages.track_session import DEMO_TRACK_KEY, current_track, track_landmarks
from lmdk_core.config import ViewConfig
from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.export import time_labels
from lmdk_core.release import Release

KINDS = {"series": "Time series (Timeline page)", "track": "Trajectory (Map page)"}


@dataclass(frozen=True)
class CurrentData:
    """The selected series or track with its landmarks, as the pages see it."""

    kind: str  # 'series' or 'track'
    name: str
    data: Series | Track
    landmarks: list[int]

    @property
    def is_track(self) -> bool:
        return self.kind == "track"

    @property
    def unit(self) -> str:
        return "m" if self.is_track else self.data.unit

    @property
    def length(self) -> int:
        return len(self.data)

    def release(self, scheme: str, epsilon: float | None = None) -> Release:
        """The release of this data under ``scheme`` with the shared settings (cached)."""
        eps = float(setting("epsilon") if epsilon is None else epsilon)
        lm = tuple(self.landmarks)
        if self.is_track:
            return cached_track_release(self.data.lat, self.data.lon, lm, eps,
                                        float(setting("radius")), scheme, int(setting("seed")),
                                        int(setting("window")))
        return cached_series_release(self.data.values, lm, eps, scheme, setting("mechanism"),
                                     float(setting("sensitivity")), int(setting("seed")),
                                     int(setting("window")))

    def default_leakage(self, epsilon_t: np.ndarray) -> tuple[str, dict[str, np.ndarray] | None]:
        """(description, {'TPL', 'landmark TPL'} or None) under the page default model:
        the Timeline's smoothed matrix for a series, the Map's grid cells for a track."""
        if self.is_track:
            size = float(setting("cell_size"))
            n, leak = cached_leakage(self.data.lat, self.data.lon, size, epsilon_t,
                                     tuple(self.landmarks))
            if leak is None:
                return (f"{n:,} grid cells of {size:,.0f} m: too many states; choose larger "
                        "cells on the Map page"), None
            return f"grid cells of {size:,.0f} m estimated from the track ({n} states)", leak
        s = float(setting("correlation_strength"))
        return (f"smoothed matrix, s = {s:g} (Timeline's correlation control)",
                cached_series_leakage(epsilon_t, tuple(self.landmarks), s))


def current_data(kind: str | None = None) -> CurrentData:
    """The data of ``kind`` ('series' or 'track'; default: the pages' shared choice)."""
    kind = kind or setting("analysis_data")
    if kind == "track":
        name, track = current_track()
        return CurrentData("track", name, track, track_landmarks(name))
    name, series = current_series()
    return CurrentData("series", name, series, series_landmarks(name))


def data_choice(label: str = "Data") -> CurrentData:
    """A radio to pick the Timeline's series or the Map's track; returns the choice."""
    st.radio(label, list(KINDS), key="w_analysis_data", format_func=KINDS.get,
             horizontal=True, help="The landmarks are those marked on the page it comes from.")
    return current_data()


def view_config(cur: CurrentData, page: str, extra: dict | None = None) -> ViewConfig:
    """The configuration that reproduces the current view (seed included)."""
    data = cur.data
    if cur.is_track:
        is_demo = st.session_state.track_keys.get(cur.name) == DEMO_TRACK_KEY
        table = None
        if not is_demo:
            table = {"lat": data.lat.tolist(), "lon": data.lon.tolist()}
            if data.time_kind != "index":
                table = {"time": time_labels(data.time, data.time_kind), **table}
        dataset = DEMO_TRACK_KEY if is_demo else "embedded"
        extra = {"cell_size_m": float(setting("cell_size")), **(extra or {})}
    else:
        is_demo = cur.name == DEMO_SERIES
        table = None if is_demo else {"time": time_labels(data.time, data.time_kind),
                                      "value": data.values.tolist()}
        dataset = "demo-household" if is_demo else "embedded"
    return ViewConfig(
        data_kind=cur.kind, dataset=dataset, data=table, time_kind=data.time_kind,
        landmarks=list(cur.landmarks), epsilon=float(setting("epsilon")),
        scheme=setting("scheme"), window=int(setting("window")), mechanism=setting("mechanism"),
        sensitivity=float(setting("sensitivity")), radius=float(setting("radius")),
        seed=int(setting("seed")), correlation_strength=float(setting("correlation_strength")),
        page=page, extra=extra or {},
    )
