"""Landmark Privacy Explorer — the Streamlit entry point (st.navigation + shared sidebar)."""

from __future__ import annotations

import streamlit as st

from app_pages.session import init_state, keep_widget_state, sidebar

st.set_page_config(page_title="Landmark Privacy Explorer", page_icon=":material/shield_lock:",
                   layout="wide")
init_state()
keep_widget_state()

PAGES = {
    "Start": [
        st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True),
    ],
    "Explore": [
        st.Page("app_pages/timeline.py", title="Timeline", icon=":material/show_chart:",
                url_path="timeline"),
    ],
}

nav = st.navigation(PAGES)
sidebar()
nav.run()
