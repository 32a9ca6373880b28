"""The Map page's Leaflet map: a Streamlit component (version 2) that stays mounted.

streamlit-folium rebuilt the whole map on every rerun (~0.5 MB of HTML with Leaflet
inlined, the base map re-evaluated in an iframe) and held every click back 250 ms; here
the page sends only the layers' values (:func:`lmdk_core.figures.map.map_spec`), the
browser keeps the map, its view and the layers the user switched off, and a click on a
track point or landmark reports its t at once. Leaflet (``assets/leaflet``, 147 kB) is
served by the app's own server as the component's asset
(``/_stcore/bidi-components/lmdk.track_map/leaflet.js``) and loaded once per page, not
sent inline with every rerun (each rerun's element was ~210 kB, now ~30 kB); nothing is
fetched from the internet, and online tiles are drawn only when the page asks for them.
The layers arrive as JSON text, parsed in the browser (the track's part only when it
changed).
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from app_support.bidi_assets import asset_url_path, serve_component_assets, trigger_value

_JS = Path(__file__).with_name("track_map.js")
#: vendored Leaflet 1.9 (BSD-2-Clause), next to the app: the repository's ``assets/`` in a
#: checkout, ``lmdk_app/assets/`` in an installed wheel
LEAFLET_DIR = Path(__file__).resolve().parents[1] / "assets" / "leaflet"

#: the component's name: "<package>.<component>" of its asset manifest
COMPONENT = "lmdk.track_map"

_CSS = """
.lmdk-track-map { width: 100%; border-radius: 0.5rem; border: 1px solid rgba(49,51,63,0.2); }
.lmdk-track-map.lmdk-plain { background: #f2f1ec; }
.lmdk-legend { background: rgba(255,255,255,0.92); padding: 6px 9px; border-radius: 4px;
  box-shadow: 0 1px 4px rgba(0,0,0,0.3); font: 11px/1.45 sans-serif; color: #222; }
.lmdk-legend summary { cursor: pointer; }
.lmdk-legend-mark { display: inline-block; margin-right: 6px; vertical-align: middle; }
"""


@functools.cache
def _component() -> tuple[Callable, str | None]:
    """Register the component once per process: the page's code (and Leaflet when it
    cannot be served as an asset), Leaflet's CSS with the layer control's icons inlined
    (``data:`` URLs, no request). Returns the component and Leaflet's asset path (the
    browser imports it from the app's server), or None when Leaflet is inline."""
    css = (LEAFLET_DIR / "leaflet.css").read_text(encoding="utf-8")
    for img in ("layers.png", "layers-2x.png"):
        data = base64.b64encode((LEAFLET_DIR / img).read_bytes()).decode()
        css = css.replace(f"url(images/{img})", f"url(data:image/png;base64,{data})")
    js = _JS.read_text(encoding="utf-8")
    served = serve_component_assets(COMPONENT, LEAFLET_DIR)
    if not served:
        js = (LEAFLET_DIR / "leaflet.js").read_text(encoding="utf-8") + "\n" + js
    component = st.components.v2.component(COMPONENT, html="", css=css + _CSS, js=js,
                                           isolate_styles=False)
    return component, asset_url_path(COMPONENT, "leaflet.js") if served else None


def track_map(spec: dict, *, key: str, height: int = 620,
              on_toggle: Callable[[], None] | None = None):
    """Draw ``spec`` (:func:`lmdk_core.figures.map.map_payload`); ``on_toggle`` runs when
    a track point or landmark is clicked, with :func:`clicked_point` giving its t."""
    component, leaflet = _component()
    return component(data={**spec, "height": height, "leaflet": leaflet}, key=key,
                     height=height, on_toggle_change=on_toggle)


def clicked_point(key: str) -> int | None:
    """The t of the point clicked on the map ``key`` (in its ``on_toggle`` callback),
    or None."""
    value = trigger_value(key, "toggle")
    if not isinstance(value, dict):
        return None
    t = value.get("t")
    return t if isinstance(t, int) and not isinstance(t, bool) else None
