"""The Map page's landmark editing: the callbacks of the map click, the landmark picker
and table, the accepted stays, the stay-point and waypoint suggestions (Li et al. 2008),
the track and configuration uploads. Each reads the selected track from the session
(:func:`app_support.track_session.current_track`); the page draws the widgets."""


from __future__ import annotations

import numpy as np
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings
from app_support.download_buttons import (
    remember_upload,
)
from app_support.track_columns_choice import offer_track_columns
from app_support.track_map import clicked_point
from app_support.track_session import (
    add_track,
    apply_table_edits,
    check_track_size,
    current_track,
    set_track_landmarks,
    set_track_stays,
    stay_of,
    toggle_track_landmark,
    track_landmarks,
    track_stays,
)
from lmdk_core.data.demo_track import demo_track_landmarks
from lmdk_core.data.track import Track
from lmdk_core.data.track_loading import load_track
from lmdk_core.figures.map import (
    nearest_in_time,
    revisit_candidates,
)
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.validation import (
    format_landmark_range,
    parse_landmark_entry,
    parse_landmark_ranges,
)
from lmdk_core.landmarks.discovery import track_stay_points

MAP_KEY = K.TRACK_MAP
SELECT_KEY = K.W_TRACK_LM_SELECT
STAYS_KEY = K.W_TRACK_STAY_SELECT
CANDIDATE_KEY = K.TRACK_CANDIDATES
#: the switch that shows the editable landmark table (off by default)
TABLE_TOGGLE_KEY = K.TRACK_TABLE_OPEN
# ---------------------------------------------------------------- cached engine calls
@st.cache_data(max_entries=16, show_spinner=False)
def cached_stays(lat: np.ndarray, lon: np.ndarray, times: np.ndarray, segment: np.ndarray | None,
                 time_kind: str, minutes_per_point: float | None, distance_m: float,
                 duration_min: float) -> tuple[list, list[str]]:
    """Stay points and notes (discovery.track_stay_points), cached on their inputs."""
    tr = Track(lat=lat, lon=lon, time=times, time_kind=time_kind, segment=segment)
    return track_stay_points(tr, distance_threshold_m=distance_m, time_threshold_min=duration_min,
                             minutes_per_point=minutes_per_point)


def stay_suggestions() -> tuple[list, str | None]:
    """Stay points of the current track with the page's thresholds, and a note (what was
    assumed for pieces without times, or why there are none)."""
    _, track = current_track()
    untimed = track.time_kind == "index" or track.n_missing_times
    s = current_settings()
    try:
        stays, notes = cached_stays(
            track.lat, track.lon, np.asarray(track.time), track.segment, track.time_kind,
            s.minutes_per_point if untimed else None, s.stay_distance, s.stay_minutes)
    except InputError as exc:
        return [], f"No stay points: {exc}."
    return stays, " ".join(notes) or None


def metres(x: float) -> str:
    """A distance for a metric: '1,234 m' (or a dash)."""
    return f"{x:,.0f} m" if np.isfinite(x) else "—"


# ---------------------------------------------------------------- callbacks
def on_map_click() -> None:
    """Toggle the clicked track point (the map reports its t; one rerun per click)."""
    name, track = current_track()
    T = len(track)
    t = clicked_point(MAP_KEY)
    if t is None or not 0 <= t < T:
        return
    inside = stay_of(t, name)
    if inside is not None and t not in track_landmarks(name):
        # a fix of a stay protected as one event: the stay is the unit, not the fix
        st.session_state[K.TRACK_STAY_NOTE] = (
            f"t={t} is a fix of the stay t={inside[0]}–{inside[1]}, protected as one "
            "landmark event; remove the stay in the Landmarks list (beside the map, or "
            "below it on a phone) to change it.")
        return
    st.session_state[K.TRACK_STAY_NOTE] = None
    # where the track comes back to a spot, the grey marker drawn on top may be another
    # visit: take the visit nearest in time to the point toggled just before, offer the
    # others (a red landmark clicked is removed as it is)
    visits = revisit_candidates(track.lat, track.lon, t)
    if len(visits) > 1 and t not in track_landmarks(name):
        last = st.session_state.get(K.TRACK_LAST_TOGGLED)
        if last is not None and last[0] == name:
            t = nearest_in_time(visits, [last[1]]) or t
        st.session_state[K.TRACK_REVISIT] = (name, t, visits)
    else:
        st.session_state[K.TRACK_REVISIT] = None
    toggle_track_landmark(t, name)
    st.session_state[K.TRACK_LAST_TOGGLED] = (name, t)


def switch_visit(old: int, new: int) -> None:
    """Move the landmark just toggled at a revisited spot to another visit."""
    name = current_track()[0]
    lm = set(track_landmarks(name))
    if old in lm:  # it was marked: mark the other visit instead
        lm.discard(old)
        lm.add(new)
    else:  # it was unmarked: unmark the other visit instead, keep this one
        lm.add(old)
        lm.discard(new)
    set_track_landmarks(sorted(lm), name)
    st.session_state[K.TRACK_REVISIT] = (name, new, st.session_state[K.TRACK_REVISIT][2])
    st.session_state[K.TRACK_LAST_TOGGLED] = (name, new)


def on_multiselect() -> None:
    """The picker lists only the current landmarks; a typed t is added (bad entries are
    reported, the rest kept)."""
    name, track = current_track()
    T = len(track)
    kept, errors = [], []
    for e in st.session_state[SELECT_KEY] or []:
        try:  # the one landmark syntax: t, t=12, 271-295, 3,7 (validation.parse_landmarks)
            kept.extend(parse_landmark_entry(e, T, "track"))
        except InputError as exc:
            errors.append(f"{quote_user_text(str(e))}: {exc}")
    st.session_state[K.TRACK_PICKER_ERROR] = "; ".join(errors) or None
    set_track_landmarks(sorted(set(kept)), name)


def on_table_edit() -> None:
    name, track = current_track()
    key = f"track_lm_table_{st.session_state[K.TRACK_TABLE_VERSION]}"
    edits = st.session_state.get(key) or {}
    new, notes = apply_table_edits(track_landmarks(name), edits, len(track))
    st.session_state[K.TRACK_TABLE_NOTES] = notes
    set_track_landmarks(new, name)


def clear_landmarks() -> None:
    name = current_track()[0]
    set_track_landmarks([], name)
    set_track_stays([], name)


def on_stay_select() -> None:
    """Removing a chip removes that stay (the list offers only the accepted stays)."""
    name = current_track()[0]
    kept = st.session_state.get(STAYS_KEY) or []
    set_track_stays([s for s in track_stays(name) if stay_key(s) in kept], name)


def stay_key(s: tuple[int, int]) -> str:
    return format_landmark_range(*s)


def stay_chip(key: str) -> str:
    ((a, b),) = parse_landmark_ranges(key, "stay")
    return f"t={a}–{b} ({b - a + 1} fixes)"


def demo_landmarks() -> None:
    name = current_track()[0]
    set_track_landmarks(demo_track_landmarks(), name)


def _candidate_timestamps(keys: list[str], stays: list) -> tuple[set[int], list]:
    """(landmark fixes, stays as events) of the accepted candidates: a stay is one event
    (the default), every fix of its visit, or its first fix (the page's choice)."""
    track = current_track()[1]
    out: set[int] = set()
    events: list[tuple[int, int]] = []
    mark = current_settings().stay_mark
    for k in keys:
        kind, _, i = k.partition(":")
        if kind == "stay" and int(i) < len(stays):
            s = stays[int(i)]
            if mark == "event":
                events.append(s.span)
            else:
                out.update(s.timestamps if mark == "visit" else [s.start])
        elif kind == "wpt" and int(i) < len(track.waypoints):
            out.add(track.waypoints[int(i)].index)
    return out, events


def accept_candidates(all_: bool) -> None:
    name = current_track()[0]
    stays, _ = stay_suggestions() if current_settings().suggest else ([], None)
    # "Accept all" accepts the stays (what `lmdk suggest` recommends); a GPX waypoint is a
    # place named in the file, not a visit: it is accepted only when picked (issue 37 §9)
    keys = ([k for k in candidate_options(stays) if k.startswith("stay:")] if all_
            else st.session_state.get(CANDIDATE_KEY, []))
    added, events = _candidate_timestamps(list(keys), stays)
    set_track_landmarks(set(track_landmarks(name)) | added, name)
    if events:
        set_track_stays(track_stays(name) + events, name)
    st.session_state[CANDIDATE_KEY] = []


def on_upload() -> None:
    f = st.session_state.get(K.TRACK_UPLOAD)
    if f is None:
        return
    st.session_state[K.TRACK_COLUMNS_PENDING] = None
    try:
        tr = check_track_size(load_track(f.getvalue(), filename=f.name, name=f.name))
    except InputError as exc:
        st.session_state[K.TRACK_UPLOAD_ERROR] = (
            f"Could not use {quote_user_text(f.name)}: {exc}. Your current track, landmarks "
            "and settings are unchanged.")
        if "needs a latitude and a longitude column" in str(exc):
            offer_track_columns(f.name, f.getvalue())  # the column choice under the upload
        return
    st.session_state[K.TRACK_UPLOAD_ERROR] = None
    remember_upload(add_track(f"Upload: {f.name}", tr), f.name, f.getvalue())


def candidate_options(stays: list) -> list[str]:
    """Keys of the landmark candidates: stay points and waypoints."""
    track = current_track()[1]
    return [f"stay:{i}" for i in range(len(stays))] + [
        f"wpt:{i}" for i in range(len(track.waypoints))]


def candidate_label(key: str, stays: list) -> str:
    """A readable line for a candidate key."""
    track = current_track()[1]
    kind, _, i = key.partition(":")
    if kind == "stay":
        s = stays[int(i)]
        return f"Stay {int(i) + 1}: {s.describe()}, t={s.start}-{s.end}"
    w = track.waypoints[int(i)]
    return f"Waypoint {w.name} (t={w.index}, {w.distance_m:,.0f} m away)"
