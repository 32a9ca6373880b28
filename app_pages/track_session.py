"""Session state of the Map page: tracks, their landmarks and the page's own settings.

Mirrors the series functions of :mod:`app_pages.session`: tracks live in
``st.session_state.track_sets`` (name -> Track), their landmarks in
``track_landmarks`` (name -> sorted list of 0-based timestamps), so both survive page
switches, reruns and failed uploads. The page's widget keys (``w_radius``, ...) are
re-assigned at the top of every run by :func:`keep_track_widget_state`, as the shared
settings are, because Streamlit forgets the state of widgets a page did not draw.
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.data.track import Track
from lmdk_core.quoting import quote_user_text
from lmdk_core.validation import InputError

DEMO_TRACK = "Demo: a day in Paris"
DEMO_TRACK_KEY = "demo-paris"

#: largest track the Map page accepts (points); see docs/inputs.md
MAX_TRACK_POINTS = 5000

TRACK_DEFAULTS = {
    "radius": 100.0,
    "show_circles": False,
    "show_released": True,
    "tiles": False,  # online OpenStreetMap tiles only when asked for (privacy)
    "suggest": True,
    "stay_distance": 200.0,
    "stay_minutes": 20.0,
    "stay_mark": "visit",
    "minutes_per_point": 1.0,
    "track_leakage": True,
    # the per-point displacement panel (a marker per released point) is drawn on request:
    # the chart is redrawn on every change, and the metrics and the summary table above
    # already give the displacement's mean, median and 95th percentile
    "point_displacement": False,
    "cell_size": 250.0,
}

#: widget keys of the Map page whose values must survive pages that do not draw them
TRACK_PERSISTENT = [f"w_{k}" for k in TRACK_DEFAULTS] + ["w_track_name"]


def init_track_state() -> None:
    """Create the demo track and the page defaults once per browser session."""
    ss = st.session_state
    if "track_sets" not in ss:
        ss.track_sets = {DEMO_TRACK: demo_track()}
        ss.track_landmarks = {DEMO_TRACK: demo_track_landmarks()}
        ss.track_keys = {DEMO_TRACK: DEMO_TRACK_KEY}
        ss.track_table_version = 0
    for k, v in TRACK_DEFAULTS.items():
        ss.setdefault(f"w_{k}", v)
    ss.setdefault("w_track_name", DEMO_TRACK)


def keep_track_widget_state() -> None:
    """Re-assign the Map page's widget keys so that Streamlit keeps them across pages."""
    for k in TRACK_PERSISTENT:
        if k in st.session_state:
            st.session_state[k] = st.session_state[k]


def current_track() -> tuple[str, Track]:
    """Name and data of the selected track."""
    name = st.session_state.w_track_name
    if name not in st.session_state.track_sets:
        name = DEMO_TRACK
        st.session_state.w_track_name = name
    return name, st.session_state.track_sets[name]


def track_landmarks(name: str | None = None) -> list[int]:
    """Landmarks (0-based timestamps) of a track, sorted."""
    name = name or current_track()[0]
    return sorted(st.session_state.track_landmarks.get(name, []))


def set_track_landmarks(landmarks: Iterable[int], name: str | None = None) -> None:
    """Replace the landmark set of a track (indices outside the track are dropped)."""
    name = name or current_track()[0]
    T = len(st.session_state.track_sets[name])
    st.session_state.track_landmarks[name] = sorted({int(t) for t in landmarks
                                                     if 0 <= int(t) < T})
    st.session_state.track_table_version = st.session_state.get("track_table_version", 0) + 1


def toggle_track_landmark(t: int, name: str | None = None) -> None:
    """Make t a landmark, or a regular timestamp again if it was one."""
    lm = set(track_landmarks(name))
    set_track_landmarks(lm.symmetric_difference({int(t)}), name)


def add_track(name: str, track: Track, landmarks: Iterable[int] = (),
              key: str = "embedded") -> str:
    """Register a track (an upload) and select it; returns the name used."""
    base, i = name, 2
    while name in st.session_state.track_sets:
        name = f"{base} ({i})"
        i += 1
    st.session_state.track_sets[name] = track
    st.session_state.track_landmarks[name] = sorted({int(t) for t in landmarks})
    st.session_state.track_keys[name] = key
    st.session_state.w_track_name = name
    return name


def check_track_size(track: Track) -> Track:
    """The Map page's limit: at most :data:`MAX_TRACK_POINTS` points."""
    if len(track) > MAX_TRACK_POINTS:
        raise InputError(
            f"the track has {len(track):,} points; the Map page handles up to "
            f"{MAX_TRACK_POINTS:,}. Keep every k-th point (e.g. one every 10 s instead of "
            "every second), split the track, or release it with `lmdk geo-release`"
        )
    return track


def apply_table_edits(landmarks: list[int], edits: dict, T: int) -> tuple[list[int], list[str]]:
    """New landmark list after edits of the landmark table (``st.data_editor`` state).

    The table has one row per landmark (in ``landmarks`` order) with a ``keep``
    checkbox and an editable ``t``; rows can be added (give a ``t``) or deleted.
    Returns the landmarks and messages about values that were ignored.
    """
    rows: list[int | None] = list(landmarks)
    notes: list[str] = []

    def valid(value) -> int | None:
        if value is None or value == "":
            return None
        try:
            t = int(float(value))
        except (TypeError, ValueError, OverflowError):  # OverflowError: "inf"
            notes.append(f"{quote_user_text(value)} is not a timestamp (a whole number)")
            return None
        if t != float(value) or not 0 <= t < T:
            notes.append(f"t={value} is not a timestamp of this track (0 to {T - 1})")
            return None
        return t

    for idx_str, change in (edits.get("edited_rows") or {}).items():
        i = int(idx_str)
        if not 0 <= i < len(rows):
            continue
        if change.get("keep") is False:
            rows[i] = None
        elif "t" in change:
            rows[i] = valid(change["t"])
    for i in edits.get("deleted_rows") or []:
        if 0 <= int(i) < len(rows):
            rows[int(i)] = None
    for added in edits.get("added_rows") or []:
        if added.get("keep") is False:
            continue
        rows.append(valid(added.get("t")))
    return sorted({t for t in rows if t is not None}), notes
