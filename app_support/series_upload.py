"""The Timeline's series upload: a CSV loaded into the session's datasets, or, when its
columns are not ``time,value``, a choice of its time and value columns (the file is kept
until then). Formats: docs/data-formats.md."""

from __future__ import annotations

import streamlit as st

from app_support import state_keys as K
from app_support.download_buttons import remember_upload
from app_support.session import add_series
from lmdk_core.data.series import csv_columns, guess_series_columns, load_series_csv
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text


def on_series_upload() -> None:
    """The series uploader's callback: load the CSV and select it; on a bad file an
    error that says why (nothing else changes) and, when the file has columns, the
    time / value column choice of :func:`column_choices`."""
    f = st.session_state.get(K.SERIES_UPLOAD)
    if f is None:
        return
    st.session_state[K.SERIES_COLUMNS_PENDING] = None
    try:
        s = load_series_csv(f.getvalue(), name=f.name)
    except InputError as exc:
        st.session_state[K.UPLOAD_ERROR] = (
            f"Could not use {quote_user_text(f.name)}: {exc}. Your current data, landmarks "
            "and settings are unchanged.")
        cols = csv_columns(f.getvalue())
        if len(cols) >= 2:  # offer the file's columns as time / value choices
            guessed = (str(exc).startswith("the CSV needs the column")
                       and guess_series_columns(f.getvalue()) is not None)
            if guessed:  # not an error: columns to confirm (a note, not a red box)
                st.session_state[K.UPLOAD_ERROR] = None
            note = (f"{quote_user_text(f.name)} has no `time,value` columns: check the "
                    "columns guessed below and load it (CLI: --time-col, --value-col)."
                    if guessed else None)
            st.session_state[K.SERIES_COLUMNS_PENDING] = (f.name, f.getvalue(), cols, note)
        return
    st.session_state[K.UPLOAD_ERROR] = None
    remember_upload(add_series(f"Upload: {f.name}", s), f.name, f.getvalue())


def _load_with_columns() -> None:
    """Load the pending upload with the chosen time and value columns."""
    fname, data, _, _ = st.session_state[K.SERIES_COLUMNS_PENDING]
    try:
        s = load_series_csv(data, name=fname, time_col=st.session_state[K.W_UPLOAD_TIME_COL],
                            value_col=st.session_state[K.W_UPLOAD_VALUE_COL],
                            time_format=st.session_state.get(K.W_UPLOAD_TIME_FORMAT) or None)
    except InputError as exc:
        st.session_state[K.UPLOAD_ERROR] = (
            f"Could not use {quote_user_text(fname)} with these columns: {exc}. Your current "
            "data, landmarks and settings are unchanged.")
        return
    st.session_state[K.UPLOAD_ERROR] = None
    st.session_state[K.SERIES_COLUMNS_PENDING] = None
    remember_upload(add_series(f"Upload: {fname}", s), fname, data)


def column_choices() -> None:
    """Time / value column selectors for an upload whose columns are not time,value."""
    pending = st.session_state.get(K.SERIES_COLUMNS_PENDING)
    if not pending:
        return
    fname, data, cols, note = pending
    if note:
        st.info(note, icon=":material/table_chart:")
    # never a row-index column (`Unnamed: 0`): lmdk_core.data.series.guess_series_columns
    guess_t, guess_v = guess_series_columns(data) or (cols[0], cols[1])
    if guess_t not in cols or guess_v not in cols:
        guess_t, guess_v = cols[0], cols[1]
    st.markdown(f"**Choose the columns of {quote_user_text(fname)}**")
    k1, k2, k3, k4 = st.columns([2, 2, 2, 2], vertical_alignment="bottom")
    k1.selectbox("Time column", cols, index=cols.index(guess_t), key=K.W_UPLOAD_TIME_COL,
                 help="Whole numbers or ISO 8601 dates (time-zone offsets are converted to "
                      "UTC).")
    k2.selectbox("Value column", cols, index=cols.index(guess_v), key=K.W_UPLOAD_VALUE_COL)
    k3.text_input("Time format", key=K.W_UPLOAD_TIME_FORMAT, placeholder="%m/%d/%Y %H:%M",
                  help="Only for times that are not ISO 8601: strptime codes, e.g. "
                       "%m/%d/%Y (month first, US) or %d/%m/%Y (day first). Day-first and "
                       "month-first are never guessed.")
    k4.button("Load with these columns", on_click=_load_with_columns, width="stretch")
