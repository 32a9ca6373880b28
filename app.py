"""Landmark Privacy Explorer — the Streamlit entry point (st.navigation + shared sidebar)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from app_support.accessibility import enable_accessibility
from app_support.live_chart import warm_plotly
from app_support.session import init_state, keep_widget_state, sidebar
from app_support.tab_memory import remember_this_tab, restored_note, tab_memory
from app_support.touch_select import enable_tap_select
from app_support.track_session import init_track_state, keep_track_widget_state
from app_support.url_state import restore_settings, url_problems, write_settings

# a local PNG: a ":material/…:" or emoji page icon makes the browser fetch the favicon from
# a CDN (fonts.gstatic.com / jsdelivr), which a privacy tool must not do
ICON = Path(__file__).resolve().parent / "assets" / "icon.png"
st.set_page_config(page_title="Landmark Privacy Explorer", page_icon=str(ICON),
                   layout="wide")
init_state()
init_track_state()
restore_settings()  # a reload or a shared link: the public settings in the URL
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
        st.Page("app_pages/choose_epsilon.py", title="Choose ε", icon=":material/tune:",
                url_path="choose"),
        st.Page("app_pages/compare.py", title="Compare", icon=":material/compare:",
                url_path="compare"),
        st.Page("app_pages/leakage.py", title="Leakage", icon=":material/water_drop:",
                url_path="leakage"),
        st.Page("app_pages/dummies.py", title="Dummy landmarks", icon=":material/scatter_plot:",
                url_path="dummies"),
        st.Page("app_pages/population.py", title="Population", icon=":material/groups:",
                url_path="population"),
    ],
}

# Streamlit's own page list is a <ul> whose items sit inside <div>s (axe-core: `list` and
# `listitem`, serious; docs/accessibility.md): the same links are drawn here as plain
# page links under their section names, which a screen reader reads as links
nav = st.navigation(PAGES, position="hidden")
with st.sidebar.container(key="page_nav"):
    for section, pages in PAGES.items():
        st.caption(section)
        for p in pages:
            st.page_link(p)
sidebar(nav.url_path)  # only the settings that apply to this page
for problem in url_problems():
    st.error(f"This link's setting was not used: {problem}. The default is used "
             "instead; change it in the sidebar.", icon=":material/link_off:")
write_settings()  # the URL follows the settings (never the data, landmarks or seed)
enable_tap_select()  # a tap on a chart point selects it on phones too
enable_accessibility()  # skip link, chart labels, focus ring
tab_memory()  # the tab's key (sessionStorage): a reload brings back this tab's view
warm_plotly()  # plotly.js loaded in idle time, before the first page with a chart
if (note := restored_note()) is not None:
    st.success(note, icon=":material/restore:")
try:
    nav.run()
finally:  # also when a page stops or reruns the script
    remember_this_tab()
