"""A standalone, offline HTML map of a publishable track release, for stakeholders.

The map is drawn with folium from the publishable GeoJSON
(:func:`lmdk_core.files.export.trajectory_publishable_geojson`) and nothing else: the released
path (one line per piece) and one point per released timestamp with its time, under a
box stating ε, the scheme, the mechanism and the noise sampler. No original path, no
landmark, no per-timestamp ε_t, no seed — the same content as the publishable GeoJSON, so
the file may be published with it.

It works offline: folium's default HTML loads Leaflet, jQuery, Bootstrap and Font Awesome
from five CDNs (ten files); here those links are dropped and the Leaflet 1.9 shipped with
the app (``assets/leaflet``, BSD-2-Clause) is inlined, and no tile layer is added, so
opening the file makes no network request (tested in chromium). The background is plain;
the points keep their real coordinates, so the file opens in any GIS tool.

Planar Laplace released locations: Andrés et al., "Geo-indistinguishability", CCS 2013;
landmark privacy: Katsomallos et al., CODASPY 2022.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

import numpy as np

from lmdk_core.data.track import Track
from lmdk_core.engine.release import Release
from lmdk_core.figures.style import COLORS
from lmdk_core.files.export import NUMPY_NOISE, trajectory_publishable_geojson

__all__ = ["LEAFLET_FILES", "released_track_map_html"]

#: Leaflet's script and stylesheet (and the two images its stylesheet names), looked up
#: next to the app: the repository's ``assets/`` in a checkout, ``lmdk_app/assets/`` in a
#: wheel
LEAFLET_FILES = ("leaflet.js", "leaflet.css", "layers.png", "layers-2x.png")


def _leaflet_dir() -> Path:
    """The folder of the Leaflet files shipped with the app (checkout or wheel)."""
    here = Path(__file__).resolve()
    candidates = [here.parents[2] / "assets" / "leaflet"]
    try:
        import lmdk_app

        candidates.append(lmdk_app.APP_DIR / "assets" / "leaflet")
    except ImportError:  # pragma: no cover - a checkout without the package installed
        pass
    for c in candidates:
        if (c / "leaflet.js").is_file():
            return c
    raise FileNotFoundError("Leaflet (assets/leaflet) is not installed with the app")


def _inline_leaflet(folder: Path) -> tuple[str, str]:
    """Leaflet's CSS (its images as data URIs) and script, as inline HTML."""
    css = (folder / "leaflet.css").read_text(encoding="utf-8")
    for img in ("layers.png", "layers-2x.png"):
        data = base64.b64encode((folder / img).read_bytes()).decode()
        css = css.replace(f"images/{img}", f"data:image/png;base64,{data}")
    js = (folder / "leaflet.js").read_text(encoding="utf-8")
    # a script's text must not close its own element
    js = js.replace("</script", "<\\/script")
    return f"<style>{css}</style>", f"<script>{js}</script>"


def _features_of_kind(gj: dict, kind: str) -> list[dict]:
    """The features of a GeoJSON collection whose ``kind`` property is ``kind``."""
    return [f for f in gj["features"] if f["properties"]["kind"] == kind]


def _publishable_features(gj: dict) -> tuple[list[dict], list[dict], str | None]:
    """The publishable GeoJSON's released path pieces, its released points that have a
    location, and the name of the points' time property (None without points)."""
    path = _features_of_kind(gj, "released_path")
    points = [f for f in _features_of_kind(gj, "released_point") if f["geometry"] is not None]
    return path, points, _time_property(points[0]) if points else None


def _time_property(point: dict) -> str | None:
    """The name of a released point's time property (its first besides ``kind``)."""
    return next((k for k in point["properties"] if k != "kind"), None)


#: the map's background and the style of the box stating the release's settings
_MAP_CSS = ("<style>.leaflet-container{background:#f2f1ec}"
            ".lmdk-box{position:absolute;top:10px;left:50px;z-index:1000;max-width:32em;"
            "background:rgba(255,255,255,.94);padding:8px 12px;border-radius:4px;"
            "box-shadow:0 1px 4px rgba(0,0,0,.3);font:13px/1.4 sans-serif;color:#222}"
            "</style>")


def _offline_map(r: np.ndarray):
    """A folium map without tiles, centred on the released locations ``r`` (lat, lon
    rows), with Leaflet inlined instead of folium's CDN links."""
    import folium

    m = folium.Map(tiles=None, prefer_canvas=True, control_scale=True,
                   location=[float(r[:, 0].mean()), float(r[:, 1].mean())] if len(r)
                   else [0.0, 0.0], zoom_start=13)
    m.default_js, m.default_css = [], []  # no CDN: Leaflet is inlined below
    root = m.get_root()
    assert isinstance(root, folium.Figure)  # a Map's root is the page: it has a header
    css, js = _inline_leaflet(_leaflet_dir())
    root.header.add_child(folium.Element(css), name="leaflet_css")
    root.header.add_child(folium.Element(js), name="leaflet_js")
    root.header.add_child(folium.Element(_MAP_CSS), name="lmdk_css")
    return m


def _add_released(m, path: list[dict], points: list[dict], time_key: str | None,
                  r: np.ndarray) -> None:
    """The released path and the released points (with their time as tooltip) on map
    ``m``, fitted to the released locations ``r``."""
    import folium

    if path:
        folium.GeoJson({"type": "FeatureCollection", "features": path}, name="released path",
                       style_function=lambda _: {"color": COLORS["released"], "weight": 3,
                                                 "opacity": 0.8}).add_to(m)
    if not points:
        return
    folium.GeoJson(
        {"type": "FeatureCollection", "features": points}, name="released points",
        marker=folium.CircleMarker(radius=3, fill=True, fill_opacity=0.9, weight=1,
                                   color=COLORS["released"], fill_color=COLORS["released"]),
        tooltip=folium.GeoJsonTooltip(fields=[time_key], aliases=[time_key])
        if time_key else None).add_to(m)
    m.fit_bounds([[float(r[:, 0].min()), float(r[:, 1].min())],
                  [float(r[:, 0].max()), float(r[:, 1].max())]])


def _settings_box(props: dict, n_points: int) -> str:
    """The box over the map: title, ε, scheme, mechanism, noise sampler, what is shown."""
    rows = [("Total privacy budget ε", f"{props['epsilon']:g} (landmark privacy, "
                                       "Katsomallos et al., CODASPY 2022)"),
            ("Budget scheme", props["scheme"]), ("Mechanism", props["mechanism"]),
            ("Noise sampler", props["noise"]),
            ("Shown", f"{n_points:,} released locations; nothing else")]
    return ("<div class='lmdk-box'><b>" + html.escape(props["title"]) + "</b><br>"
            + "<br>".join(f"{html.escape(k)}: {html.escape(str(v))}" for k, v in rows)
            + "</div>")


def released_track_map_html(track: Track, rel: Release, mechanism: str,
                            noise: str = NUMPY_NOISE) -> str:
    """The offline HTML map of the publishable release of ``track`` (see the module
    docstring); ``mechanism`` and ``noise`` are the header's texts, as in the publishable
    CSV and GeoJSON."""
    import folium

    gj = trajectory_publishable_geojson(track, rel, mechanism, noise)
    path, points, time_key = _publishable_features(gj)
    r = np.asarray(rel.released, dtype=float)[~np.asarray(rel.withheld, dtype=bool)]
    m = _offline_map(r)
    _add_released(m, path, points, time_key, r)
    root = m.get_root()
    root.html.add_child(folium.Element(_settings_box(gj["properties"], len(points))),
                        name="lmdk_box")
    root.title = "Released track (publishable)"
    return root.render()
