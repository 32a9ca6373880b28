"""Session state of the Map page: tracks, their landmarks and the page's own settings.

Mirrors the series functions of :mod:`app_support.session`: tracks live in
``st.session_state.track_sets`` (name -> Track), their landmarks in
``track_landmarks`` (name -> sorted list of 0-based timestamps), so both survive page
switches, reruns and failed uploads. The page's widget keys (``w_radius``, ...) are
re-assigned at the top of every run by :func:`keep_track_widget_state`, as the shared
settings are, because Streamlit forgets the state of widgets a page did not draw.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import streamlit as st

from app_support import state_keys as K
from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.data.track import Track
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.validation import joined_ranges

DEMO_TRACK = "Demo: a day in Paris"
DEMO_TRACK_KEY = "demo-paris"
#: the demo's declared region (Paris within 50 km: LAT,LON,KM), public like the demo
#: population's grids; an uploaded track's region is declared by its user
DEMO_TRACK_REGION = "48.86,2.35,50"

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
    # accepting a suggested stay protects it as ONE landmark event (docs/stays.md);
    # "visit" marks every fix a landmark, "arrival" its first fix
    "stay_mark": "event",
    "minutes_per_point": 1.0,
    "track_leakage": True,
    # the per-point displacement panel (a marker per released point) is drawn on request:
    # the chart is redrawn on every change, and the metrics and the summary table above
    # already give the displacement's mean, median and 95th percentile
    "point_displacement": False,
    "cell_size": 250.0,
}

#: widget keys of the Map page whose values must survive pages that do not draw them
TRACK_PERSISTENT = [K.setting_key(k) for k in TRACK_DEFAULTS] + [K.W_TRACK_NAME]


def init_track_state() -> None:
    """Create the demo track and the page defaults once per browser session."""
    ss = st.session_state
    if K.TRACK_SETS not in ss:
        ss[K.TRACK_SETS] = {DEMO_TRACK: demo_track()}
        ss[K.TRACK_LANDMARKS] = {DEMO_TRACK: demo_track_landmarks()}
        ss[K.TRACK_STAYS] = {DEMO_TRACK: []}
        ss[K.TRACK_KEYS] = {DEMO_TRACK: DEMO_TRACK_KEY}
        ss[K.TRACK_TABLE_VERSION] = 0
    ss.setdefault(K.TRACK_STAYS, {})
    for k, v in TRACK_DEFAULTS.items():
        ss.setdefault(K.setting_key(k), v)
    ss.setdefault(K.W_TRACK_NAME, DEMO_TRACK)


def keep_track_widget_state() -> None:
    """Re-assign the Map page's widget keys so that Streamlit keeps them across pages."""
    for k in TRACK_PERSISTENT:
        if k in st.session_state:
            st.session_state[k] = st.session_state[k]


def current_track() -> tuple[str, Track]:
    """Name and data of the selected track."""
    name = st.session_state[K.W_TRACK_NAME]
    if name not in st.session_state[K.TRACK_SETS]:
        name = DEMO_TRACK
        st.session_state[K.W_TRACK_NAME] = name
    return name, st.session_state[K.TRACK_SETS][name]


def track_landmarks(name: str | None = None) -> list[int]:
    """Landmarks (0-based timestamps) of a track, sorted."""
    name = name or current_track()[0]
    return sorted(st.session_state[K.TRACK_LANDMARKS].get(name, []))


def set_track_landmarks(landmarks: Iterable[int], name: str | None = None) -> None:
    """Replace the landmark set of a track (indices outside the track are dropped)."""
    name = name or current_track()[0]
    T = len(st.session_state[K.TRACK_SETS][name])
    st.session_state[K.TRACK_LANDMARKS][name] = sorted({int(t) for t in landmarks
                                                     if 0 <= int(t) < T})
    st.session_state[K.TRACK_TABLE_VERSION] = st.session_state.get(K.TRACK_TABLE_VERSION, 0) + 1


def track_stays(name: str | None = None) -> list[tuple[int, int]]:
    """Stays of a track protected as one landmark event each (inclusive ranges, sorted,
    disjoint; docs/stays.md)."""
    name = name or current_track()[0]
    return [tuple(s) for s in st.session_state[K.TRACK_STAYS].get(name, [])]


def set_track_stays(stays: Iterable[tuple[int, int]], name: str | None = None) -> None:
    """Replace the stays of a track; overlapping or touching ranges are joined into one
    stay (ranges outside the track are dropped)."""
    name = name or current_track()[0]
    T = len(st.session_state[K.TRACK_SETS][name])
    st.session_state[K.TRACK_STAYS][name] = joined_ranges(stays, T)
    st.session_state[K.TRACK_TABLE_VERSION] = st.session_state.get(K.TRACK_TABLE_VERSION, 0) + 1


def stay_of(t: int, name: str | None = None) -> tuple[int, int] | None:
    """The accepted stay holding timestamp t, or None."""
    return next(((a, b) for a, b in track_stays(name) if a <= t <= b), None)


def toggle_track_landmark(t: int, name: str | None = None) -> None:
    """Make t a landmark, or a regular timestamp again if it was one."""
    lm = set(track_landmarks(name))
    set_track_landmarks(lm.symmetric_difference({int(t)}), name)


def add_track(name: str, track: Track, landmarks: Iterable[int] = (),
              key: str = "embedded") -> str:
    """Register a track (an upload) and select it; returns the name used."""
    base, i = name, 2
    while name in st.session_state[K.TRACK_SETS]:
        name = f"{base} ({i})"
        i += 1
    st.session_state[K.TRACK_SETS][name] = track
    st.session_state[K.TRACK_LANDMARKS][name] = sorted({int(t) for t in landmarks})
    st.session_state[K.TRACK_STAYS][name] = []
    st.session_state[K.TRACK_KEYS][name] = key
    st.session_state[K.W_TRACK_NAME] = name
    return name


def check_track_size(track: Track) -> Track:
    """The Map page's limit: at most :data:`MAX_TRACK_POINTS` points; the refusal says
    which thinning fits this track (every k-th point, at its own sampling interval)."""
    if len(track) > MAX_TRACK_POINTS:
        k = -(-len(track) // MAX_TRACK_POINTS)
        step = _median_step_s(track)
        thin = (f"one every {_duration(step * k)} instead of every {_duration(step)}"
                if step else f"one point in {k}")
        raise InputError(
            f"the track has {len(track):,} points; the Map page handles up to "
            f"{MAX_TRACK_POINTS:,}. Keep one point in {k} ({thin}), split the track, or "
            "release it with `lmdk geo-release`"
        )
    return track


def _median_step_s(track: Track) -> float | None:
    """The track's median time between consecutive points in seconds (None: no times)."""
    import numpy as np

    if track.time_kind != "datetime":
        return None
    t = np.asarray(track.time, dtype="datetime64[ns]").astype("int64") / 1e9
    d = np.diff(t[~np.isnat(np.asarray(track.time, dtype="datetime64[ns]"))])
    d = d[d > 0]
    return float(np.median(d)) if d.size else None


def _duration(seconds: float) -> str:
    """A sampling interval as people say it: '10 s', '5 min', '2 h', '3 days'."""
    for unit, size in (("day", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            n = seconds / size
            return f"{n:.3g} {unit}{'s' if unit == 'day' and n != 1 else ''}"
    return f"{seconds:.3g} s"


#: the landmark table's columns a user may edit (the others are shown, disabled)
TABLE_EDITABLE = ("keep", "t")
TABLE_SHOWN = ("time", "lat", "lon", "ε_t")


def _shown(value: object) -> str:
    """A refused value as the note quotes it: ``t=2.5`` for a number, a code span else."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return f"t={value:g}" if math.isfinite(value) else f"`{value}`"
    return quote_user_text(value if isinstance(value, str) else repr(value))


class _TableEdits:
    """The landmark table's rows (None: removed) while the edits are applied, and one
    note per refused value."""

    def __init__(self, landmarks: list[int], T: int):
        self.rows: list[int | None] = list(landmarks)
        self.notes: list[str] = []
        self.T = T

    def timestamp(self, where: str, value: object) -> int | None:
        """A field 't': a whole number in [0, T), never a bool or text (None: empty)."""
        if value is None or value == "":
            return None
        x = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) \
            else math.nan
        if not (math.isfinite(x) and x.is_integer() and 0 <= x < self.T):
            self.notes.append(f"{where}, field 't' must be a whole number from 0 to "
                              f"{self.T - 1} (a timestamp of this track); got {_shown(value)}")
            return None
        return int(x)

    def keep_flag(self, where: str, change: dict) -> bool | None:
        """A field 'keep': true or false (None: not given or refused)."""
        if "keep" not in change:
            return None
        if not isinstance(change["keep"], bool):
            self.notes.append(f"{where}, field 'keep' must be true or false; got "
                              f"{_shown(change['keep'])}")
            return None
        return change["keep"]

    def fields_ok(self, where: str, change: object) -> bool:
        """A row's change is a dict; fields other than 'keep' and 't' are noted."""
        if not isinstance(change, dict):
            self.notes.append(f"{where} must be a set of field values; got {_shown(change)}")
            return False
        for k in change:
            if k not in TABLE_EDITABLE:
                what = "is shown, not edited" if k in TABLE_SHOWN else "is not a column"
                self.notes.append(f"{where}, field {quote_user_text(str(k))} {what}; edit "
                                  "'t' or 'keep'")
        return True

    def row_index(self, value: object) -> int | None:
        """A row of the table, given as an int or its digits."""
        i = None
        if isinstance(value, int) and not isinstance(value, bool):
            i = value
        elif isinstance(value, str) and value.isdigit() and len(value) < 12:
            i = int(value)
        if i is None or not 0 <= i < len(self.rows):
            name = quote_user_text(value) if isinstance(value, str) else _shown(value)
            self.notes.append(f"row {name} is not a row of the table "
                              f"(rows 0 to {len(self.rows) - 1})")
            return None
        return i

    def edit(self, edited: object) -> None:
        """Edited rows: untick 'keep' removes the row; a new 't' replaces it (a refused
        value leaves the row as it was)."""
        for idx, change in (edited.items() if isinstance(edited, dict) else []):
            i = self.row_index(idx)
            if i is None or not self.fields_ok(f"row {i}", change):
                continue
            if self.keep_flag(f"row {i}", change) is False:
                self.rows[i] = None
            elif "t" in change:
                before = len(self.notes)
                t = self.timestamp(f"row {i}", change["t"])
                if len(self.notes) == before:
                    self.rows[i] = t

    def delete(self, deleted: object) -> None:
        """Deleted rows are removed."""
        for idx in (deleted if isinstance(deleted, list) else []):
            i = self.row_index(idx)
            if i is not None:
                self.rows[i] = None

    def add(self, added: object) -> None:
        """Added rows with a valid 't' (and 'keep' not false) become landmarks."""
        for k, row in enumerate(added if isinstance(added, list) else []):
            where = f"new row {k + 1}"
            if self.fields_ok(where, row) and self.keep_flag(where, row) is not False:
                self.rows.append(self.timestamp(where, row.get("t")))


def apply_table_edits(landmarks: list[int], edits: object, T: int) -> tuple[list[int], list[str]]:
    """New landmark list after edits of the landmark table (``st.data_editor`` state).

    The table has one row per landmark (in ``landmarks`` order) with a ``keep``
    checkbox and an editable ``t``; rows can be added (give a ``t``) or deleted.
    Returns the landmarks and one message per refused value, naming the row, the field
    and what it must be (the widget state is a browser message: a forged one may hold
    any JSON — a row ``'x'``, ``t = 1e9``, ``NaN``, ``True`` or the text ``'1e400'`` —
    and none of it is coerced: ``True`` is not timestamp 1).
    """
    if not isinstance(edits, dict):
        return sorted(set(landmarks)), ["the table's edits are not readable; nothing changed"]
    table = _TableEdits(landmarks, T)
    table.edit(edits.get("edited_rows") or {})
    table.delete(edits.get("deleted_rows") or [])
    table.add(edits.get("added_rows") or [])
    return sorted({t for t in table.rows if t is not None}), table.notes
