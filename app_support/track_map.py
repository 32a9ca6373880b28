"""The Map page's Leaflet map: a Streamlit component (version 2) that stays mounted.

streamlit-folium rebuilt the whole map on every rerun (~0.5 MB of HTML with Leaflet
inlined, the base map re-evaluated in an iframe) and held every click back 250 ms; here
the page sends only the layers' values (:func:`lmdk_core.figures.map.map_spec`), the
browser keeps the map, its view and the layers the user switched off, and a click on a
track point or landmark reports its t at once. Leaflet (``assets/leaflet``) is part of
the component's code, so nothing is fetched from the internet; online tiles are drawn
only when the page asks for them. The layers arrive as JSON text, parsed in the
browser (the track's part only when it changed).
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from pathlib import Path

import streamlit as st

_JS = Path(__file__).with_name("track_map.js")
#: vendored Leaflet 1.9 (BSD-2-Clause), next to the app: the repository's ``assets/`` in a
#: checkout, ``lmdk_app/assets/`` in an installed wheel
LEAFLET_DIR = Path(__file__).resolve().parents[1] / "assets" / "leaflet"

_CSS = """
.lmdk-track-map { width: 100%; border-radius: 0.5rem; border: 1px solid rgba(49,51,63,0.2); }
.lmdk-track-map.lmdk-plain { background: #f2f1ec; }
.lmdk-legend { background: rgba(255,255,255,0.92); padding: 6px 9px; border-radius: 4px;
  box-shadow: 0 1px 4px rgba(0,0,0,0.3); font: 11px/1.45 sans-serif; color: #222; }
.lmdk-legend summary { cursor: pointer; }
.lmdk-legend-mark { display: inline-block; margin-right: 6px; vertical-align: middle; }
"""


@functools.cache
def _component() -> Callable:
    """Register the component once per process: Leaflet + the page's code, Leaflet's
    CSS with the layer control's icons inlined (``data:`` URLs, no request)."""
    css = (LEAFLET_DIR / "leaflet.css").read_text(encoding="utf-8")
    for img in ("layers.png", "layers-2x.png"):
        data = base64.b64encode((LEAFLET_DIR / img).read_bytes()).decode()
        css = css.replace(f"url(images/{img})", f"url(data:image/png;base64,{data})")
    js = (LEAFLET_DIR / "leaflet.js").read_text(encoding="utf-8") + "\n" + _JS.read_text(
        encoding="utf-8")
    return st.components.v2.component("lmdk_track_map", html="", css=css + _CSS, js=js,
                                      isolate_styles=False)


def track_map(spec: dict, *, key: str, height: int = 620,
              on_toggle: Callable[[], None] | None = None):
    """Draw ``spec`` (:func:`lmdk_core.figures.map.map_payload`); ``on_toggle`` runs when
    a track point or landmark is clicked, with :func:`clicked_point` giving its t."""
    return _component()(data={**spec, "height": height}, key=key, height=height,
                        on_toggle_change=on_toggle)


def clicked_point(key: str) -> int | None:
    """The t of the point clicked on the map ``key`` (in its ``on_toggle`` callback),
    or None."""
    state = st.session_state.get(key)
    value = getattr(state, "toggle", None) if state is not None else None
    if value is None and isinstance(state, dict):
        value = state.get("toggle")
    if not isinstance(value, dict):
        return None
    t = value.get("t")
    return t if isinstance(t, int) and not isinstance(t, bool) else None
