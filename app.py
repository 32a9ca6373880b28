"""Landmark Privacy Explorer — the Streamlit entry point (st.navigation + shared sidebar)."""

from __future__ import annotations

import streamlit as st

from app_pages.session import init_state, keep_widget_state, sidebar
from app_pages.track_session import init_track_state, keep_track_widget_state

st.set_page_config(page_title="Landmark Privacy Explorer", page_icon=":material/shield_lock:",
                   layout="wide")
init_state()
init_track_state()
keep_widget_state()
keep_track_widget_state()

PAGES = {
    "Start": [
        st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("app_pages/learn.py", title="Learn", icon=":material/school:", url_path="learn"),
    ],
    "Explore": [
        st.Page("app_pages/timeline.py", title="Timeline", icon=":material/show_chart:",
                url_path="timeline"),
        st.Page("app_pages/map.py", title="Map", icon=":material/map:", url_path="map"),
    ],
    "Analyse": [
        st.Page("app_pages/compare.py", title="Compare", icon=":material/compare:",
                url_path="compare"),
        st.Page("app_pages/leakage.py", title="Leakage", icon=":material/water_drop:",
                url_path="leakage"),
        st.Page("app_pages/dummies.py", title="Dummy landmarks", icon=":material/scatter_plot:",
                url_path="dummies"),
    ],
}

nav = st.navigation(PAGES)
sidebar()
nav.run()
