"""The Map's column choice for a track CSV whose columns were not recognised (the same
chooser as the Timeline's for a series): time (or none), latitude and longitude
selectors, prefilled with what :func:`lmdk_core.data.track_columns.find_track_columns`
and the series guess recognise, and a button that loads the kept file with them.
Formats: docs/data-formats.md."""

from __future__ import annotations

import streamlit as st

from app_support import state_keys as K
from app_support.download_buttons import remember_upload
from app_support.track_session import add_track, check_track_size
from lmdk_core.data.series import csv_columns, guess_series_columns
from lmdk_core.data.track_loading import load_track
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

#: the time selector's choice for a track without times
NO_TIME = "(no time column)"


def offer_track_columns(fname: str, data: bytes) -> bool:
    """Keep a CSV upload whose columns were not recognised, to choose them; True when
    its header has at least two columns to offer (False: nothing to choose from)."""
    if fname.lower().endswith((".gpx", ".plt", ".fit", ".tcx", ".kml", ".geojson",
                               ".json", ".gpkg")):
        return False
    cols = csv_columns(data)
    st.session_state[K.TRACK_COLUMNS_PENDING] = (fname, data, cols) if len(cols) >= 2 else None
    return len(cols) >= 2


def _load_with_columns() -> None:
    """Load the kept upload with the chosen columns (nothing changes on an error)."""
    fname, data, _ = st.session_state[K.TRACK_COLUMNS_PENDING]
    time = st.session_state[K.W_UPLOAD_TRACK_TIME_COL]
    try:
        tr = check_track_size(load_track(
            data, filename=fname, name=fname,
            time_col=None if time == NO_TIME else time,
            lat_col=st.session_state[K.W_UPLOAD_LAT_COL],
            lon_col=st.session_state[K.W_UPLOAD_LON_COL]))
    except InputError as exc:
        st.session_state[K.TRACK_UPLOAD_ERROR] = (
            f"Could not use {quote_user_text(fname)} with these columns: {exc}. Your current "
            "track, landmarks and settings are unchanged.")
        return
    st.session_state[K.TRACK_UPLOAD_ERROR] = None
    st.session_state[K.TRACK_COLUMNS_PENDING] = None
    remember_upload(add_track(f"Upload: {fname}", tr), fname, data)


def _first(cols: list[str], words: tuple[str, ...], default: int) -> int:
    """The index of the first column whose name contains one of ``words``."""
    low = [c.lower() for c in cols]
    return next((i for i, c in enumerate(low) if any(w in c for w in words)), default)


def track_column_choices() -> None:
    """Time / latitude / longitude selectors for a kept track CSV upload."""
    pending = st.session_state.get(K.TRACK_COLUMNS_PENDING)
    if not pending:
        return
    fname, data, cols = pending
    guess = guess_series_columns(data)
    time_options = [NO_TIME, *cols]
    t_index = time_options.index(guess[0]) if guess and guess[0] in cols else 0
    st.markdown(f"**Choose the columns of {quote_user_text(fname)}**")
    k1, k2, k3, k4 = st.columns([2, 2, 2, 2], vertical_alignment="bottom")
    k1.selectbox("Time column", time_options, index=t_index, key=K.W_UPLOAD_TRACK_TIME_COL,
                 help="Whole numbers or ISO 8601 dates (time-zone offsets are converted to "
                      "UTC); none: the points are numbered 0, 1, 2, …")
    k2.selectbox("Latitude column", cols, index=_first(cols, ("lat", "north", "y"), 0),
                 key=K.W_UPLOAD_LAT_COL, help="Degrees, −90 to 90 (WGS 84).")
    k3.selectbox("Longitude column", cols,
                 index=_first(cols, ("lon", "lng", "east", "x"), min(1, len(cols) - 1)),
                 key=K.W_UPLOAD_LON_COL, help="Degrees, −180 to 180 (WGS 84).")
    k4.button("Load with these columns", on_click=_load_with_columns, width="stretch")
