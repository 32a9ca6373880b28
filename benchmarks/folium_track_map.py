"""Benchmark only: the Map page's map drawn with folium + streamlit-folium, updated the
way streamlit-folium updates a mounted map without rebuilding it.

``benchmarks/bench_browser.py --only foliumvs`` runs the app's Map page twice side by
side: as it is (the Leaflet component, ``app_support/track_map.py`` + ``track_map.js``)
and with :func:`track_map` / :func:`clicked_point` of this module put in place of the
component's (``benchmarks/folium_map_app.py``). Everything else on the page is the
same code.

How the map is drawn (streamlit-folium's documented way of updating a mounted map):

* the base map (the original path and the clickable track points, ``base_spec``) is a
  ``folium.Map`` built once per track and passed with the same stable ``key`` on
  every rerun, so its script never changes and the browser keeps it;
* the layers that change with the release (released path and points, circles,
  landmarks, stays, waypoints; ``overlay_spec``) are ``folium.FeatureGroup``\\ s passed
  as ``feature_group_to_add``: streamlit-folium removes the previous groups and adds
  these without rebuilding the map;
* ``returned_objects`` is limited to what the page reads: the clicked object's tooltip
  (``t=…``, which point) and its click count (a second click on the same point);
* no tiles, and Leaflet's script and stylesheet are given as ``data:`` URLs (folium's
  defaults are ten files on five CDNs, which streamlit-folium loads by URL inside its
  iframe; the app makes no network request).

This module is not part of the app: it exists to measure the choice documented in
docs/app.md ("The Map's Leaflet component and folium").
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable

import folium
import streamlit as st
from streamlit_folium import st_folium

from app_support.track_map import LEAFLET_DIR
from lmdk_core.figures.map import MAP_COLORS

#: what the page reads from the map: which point was clicked, and that it was clicked
RETURNED = ["last_object_clicked_tooltip", "last_object_clicked_count"]


@functools.cache
def _leaflet_urls() -> tuple[str, str]:
    """Leaflet 1.9 (shipped in ``assets/leaflet``) as ``data:`` URLs: no CDN."""
    js = base64.b64encode((LEAFLET_DIR / "leaflet.js").read_bytes()).decode()
    css = (LEAFLET_DIR / "leaflet.css").read_text(encoding="utf-8")
    for img in ("layers.png", "layers-2x.png"):
        data = base64.b64encode((LEAFLET_DIR / img).read_bytes()).decode()
        css = css.replace(f"url(images/{img})", f"url(data:image/png;base64,{data})")
    return (f"data:text/javascript;base64,{js}",
            "data:text/css;base64," + base64.b64encode(css.encode()).decode())


def _color(name: str, default: str) -> str:
    return str(MAP_COLORS.get(name, default)) if isinstance(MAP_COLORS, dict) else default


def _line(piece: dict) -> list[tuple[float, float]]:
    """A line of the payload (``{"lat": [...], "lon": [...]}``) as folium's locations."""
    return list(zip(piece["lat"], piece["lon"], strict=True))


def _passive(layer):
    """A line or circle that lets clicks through to the points below (as the
    component's lines do; folium's keyword arguments drop Leaflet's ``interactive``)."""
    layer.options["interactive"] = False
    return layer


@functools.lru_cache(maxsize=4)
def _base_map(base_json: str) -> folium.Map:
    """The track's map (built once per track): original path, clickable track points."""
    base = json.loads(base_json)
    js, css = _leaflet_urls()
    m = folium.Map(tiles=None, control_scale=True, prefer_canvas=False)
    m.default_js = [("leaflet", js)]
    m.default_css = [("leaflet_css", css)]
    m.fit_bounds(base["bounds"])
    for line in base["path"]:
        _passive(folium.PolyLine(_line(line), color=_color("track", "#777777"), weight=2,
                                 opacity=0.7)).add_to(m)
    pts = base["points"]
    for t, la, lo, lab in zip(pts["t"], pts["lat"], pts["lon"], pts["label"], strict=True):
        folium.CircleMarker([la, lo], radius=4, color=_color("track", "#777777"), weight=1,
                            fill=True, fill_opacity=0.8,
                            tooltip=f"t={t} · {lab}").add_to(m)
    return m


def _overlay_groups(overlay: dict) -> list[folium.FeatureGroup]:
    """The release's layers as feature groups (replaced, not rebuilt, on a rerun)."""
    groups = []
    rel = overlay.get("released")
    if rel:
        g = folium.FeatureGroup(name="Released path")
        for line in rel["lines"]:
            _passive(folium.PolyLine(_line(line), color=_color("released", "#1f77b4"),
                                     weight=2)).add_to(g)
        for what, colour in (("published", "#1f77b4"), ("approximated", "#ff7f0e")):
            layer = rel[what]
            for t, la, lo, e, err in zip(layer["t"], layer["lat"], layer["lon"], layer["eps"],
                                         layer["err"], strict=True):
                folium.CircleMarker([la, lo], radius=3, color=colour, weight=1, fill=True,
                                    tooltip=f"released t={t}: ε_t={e}, {err} m").add_to(g)
        groups.append(g)
    if overlay.get("circles"):
        g = folium.FeatureGroup(name="2r/ε_t circles")
        c = overlay["circles"]
        for la, lo, r in zip(c["lat"], c["lon"], c["r"], strict=True):
            _passive(folium.Circle([la, lo], radius=r, color="#1f77b4", weight=1,
                                   dash_array="4", fill=False)).add_to(g)
        groups.append(g)
    g = folium.FeatureGroup(name="Landmarks, stays, waypoints")
    lm = overlay["landmarks"]
    for t, la, lo, e, lab in zip(lm["t"], lm["lat"], lm["lon"], lm["eps"], lm["label"],
                                 strict=True):
        folium.CircleMarker([la, lo], radius=6, color=_color("landmark", "#d62728"),
                            fill=True, fill_opacity=0.9,
                            tooltip=f"t={t} · {lab} (landmark, ε_t={e})").add_to(g)
    for kind, colour in (("stays", "#ff7f0e"), ("waypoints", "#9467bd"),
                         ("events", "#d62728")):
        for s in overlay.get(kind, []):
            folium.CircleMarker([s["lat"], s["lon"]], radius=8, color=colour,
                                tooltip=s["tip"]).add_to(g)
    groups.append(g)
    return groups


def track_map(spec: dict, *, key: str, height: int = 620,
              on_toggle: Callable[[], None] | None = None):
    """Draw the page's map payload (``map_payload``) with streamlit-folium."""
    m = _base_map(spec["base"])
    groups = _overlay_groups(json.loads(spec["overlay"]))
    try:
        return st_folium(m, key=key, height=height, width=None, use_container_width=True,
                         returned_objects=RETURNED, feature_group_to_add=groups,
                         on_change=on_toggle)
    finally:
        # st_folium adds the groups to the map it is given: take them off again, so the
        # base map (kept per track) and its script stay the same from run to run
        for g in groups:
            m._children.pop(g.get_name(), None)


def clicked_point(key: str) -> int | None:
    """The t of the track point or landmark clicked (from its tooltip ``t=…``)."""
    state = st.session_state.get(key)
    tip = state.get("last_object_clicked_tooltip") if isinstance(state, dict) else None
    if not isinstance(tip, str) or not tip.strip().startswith("t="):
        return None
    tip = tip.strip()
    head = tip[2:].split(" ", 1)[0]
    return int(head) if head.isdigit() else None
