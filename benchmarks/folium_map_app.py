"""Benchmark only: the app's Map page with its map drawn by streamlit-folium.

``streamlit run benchmarks/folium_map_app.py`` serves the Map page (``app_pages/map.py``,
unchanged, with the app's sidebar and session set-up) with the map functions of
:mod:`benchmarks.folium_track_map` put in place of the Leaflet component's, so that
``benchmarks/bench_browser.py --only foliumvs`` can time both side by side. Not part of
the app.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from streamlit.delta_generator import DeltaGenerator  # noqa: E402

import app_support.track_map as component  # noqa: E402
from app_support.session import init_state, keep_widget_state, sidebar  # noqa: E402
from app_support.track_session import init_track_state, keep_track_widget_state  # noqa: E402
from benchmarks import folium_track_map  # noqa: E402

# the page imports these names from app_support.track_map on every run
component.track_map = folium_track_map.track_map
component.clicked_point = folium_track_map.clicked_point

# the page links to other pages by paths relative to app.py (the repository's root)
_page_link = DeltaGenerator.page_link


def _root_page_link(self, page, *args, **kwargs):
    if isinstance(page, str) and page.startswith("app_pages/"):
        page = str(ROOT / page)
    return _page_link(self, page, *args, **kwargs)


DeltaGenerator.page_link = _root_page_link

st.set_page_config(page_title="Map (streamlit-folium benchmark)", layout="wide")
init_state()
init_track_state()
keep_widget_state()
keep_track_widget_state()
nav = st.navigation([
    st.Page(str(ROOT / "app_pages" / "map.py"), title="Map", url_path="map", default=True),
    st.Page(str(ROOT / "app_pages" / "leakage.py"), title="Leakage", url_path="leakage"),
])
sidebar()
nav.run()
