"""Map page figures: the folium map (offline Leaflet, layers, thinning), click handling,
displacement statistics and the budget chart."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy.stats import gamma

from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.data.track import Track, Waypoint
from lmdk_core.discovery import stay_points
from lmdk_core.figures.map import (
    LEAFLET_DIR,
    MAX_CIRCLES,
    MAX_MARKERS,
    base_map,
    budget_figure,
    click_signature,
    clicked_index,
    displacement_summary,
    expected_displacement_quantile,
    full_map,
    landmark_frame,
    leaflet_links,
    marker_indices,
    overlay_layers,
)
from lmdk_core.mechanisms.planar_laplace import PlanarLaplace
from lmdk_core.release import release_trajectory


@pytest.fixture(scope="module")
def demo():
    tr = demo_track()
    rel = release_trajectory(tr.lat, tr.lon, demo_track_landmarks(), 1.0, 100.0, "uniform", 0)
    return tr, rel


def random_walk(T: int, seed: int = 1) -> Track:
    rng = np.random.default_rng(seed)
    lat = 48.86 + np.cumsum(rng.normal(0, 1e-4, T))
    lon = 2.33 + np.cumsum(rng.normal(0, 1.5e-4, T))
    time_ = pd.date_range("2024-01-01", periods=T, freq="10s").to_numpy()
    return Track(lat=lat, lon=lon, time=time_, time_kind="datetime", name="walk")


def render(m) -> str:
    return m.get_root().render()


def js(text: str) -> str:
    """``text`` as it appears inside the map's JSON data (non-ASCII escaped)."""
    return json.dumps(text)[1:-1]


# ------------------------------------------------------------------------ thinning
def test_marker_indices_thin_but_keep_ends_and_requested():
    assert list(marker_indices(10, 20)) == list(range(10))
    idx = marker_indices(5000, 1500, keep=[7, 4999, 12345])
    assert idx[0] == 0 and idx[-1] == 4999 and 7 in idx
    assert 1500 <= idx.size <= 1501 and np.all(np.diff(idx) > 0)


# ------------------------------------------------------------------------ map
def test_leaflet_is_inlined_so_the_map_works_offline():
    js, css = leaflet_links()
    assert (LEAFLET_DIR / "leaflet.js").exists()
    assert js[0][1].startswith("data:text/javascript;base64,")
    assert css[0][1].startswith("data:text/css;base64,")
    m = base_map(demo_track())
    assert m.default_js == js and m.default_css == css  # no jquery/bootstrap CDN either


def test_base_map_has_path_clickable_points_legend_and_bounds(demo):
    tr, _ = demo
    html = render(base_map(tr, tiles=False))
    assert "fitBounds" in html
    bounds = re.search(r"fitBounds\(\s*\[\[([-\d.]+),\s*([-\d.]+)\],\s*\[([-\d.]+),\s*([-\d.]+)\]",
                       html)
    s, w, n, e = map(float, bounds.groups())
    assert s < tr.lat.min() and n > tr.lat.max() and w < tr.lon.min() and e > tr.lon.max()
    assert html.count("Point t=") == len(tr)  # every point clickable (383 < MAX_MARKERS)
    assert js("Point t=0 · Tue 05 Mar 00:00") in html
    assert "Legend" in html and "openstreetmap" not in html.lower()
    assert "createPane" in html
    assert '"interactive": false' in html  # the path lets clicks through
    assert "openstreetmap" in render(base_map(tr, tiles=True)).lower()


def test_overlay_layers(demo):
    tr, rel = demo
    stays = stay_points(tr)
    groups = overlay_layers(tr, rel, 100.0, show_circles=True, suggestions=stays,
                            waypoints=tr.waypoints)
    names = [g.layer_name for g in groups]
    assert names == ["Released path and points", "Expected displacement 2r/ε_t",
                     "Suggested stays", "Waypoints / places", "Landmarks (4)"]
    html = render(full_map(tr, rel, 100.0, show_circles=True, suggestions=stays,
                           waypoints=tr.waypoints))
    assert html.count("Landmark t=") == 4 and js("Landmark t=36 · Tue 05 Mar 03:00") in html
    assert html.count("Released t=") == len(tr)
    assert html.count("Suggested stay ") == len(stays)
    assert "Waypoint: Clinic (near the Gare du Nord)" in html
    assert "Object.assign({radius: d[k].r}, s)" in html and '"pane": "lmdk-landmarks"' in html
    # no circles, no released layer when switched off
    names = [g.layer_name for g in overlay_layers(tr, rel, 100.0, show_released=False)]
    assert names == ["Landmarks (4)"]


def test_expected_circles_have_radius_2r_over_eps_and_are_capped():
    tr = random_walk(3000)
    rel = release_trajectory(tr.lat, tr.lon, [5], 2.0, 50.0, "uniform", 0)
    g = overlay_layers(tr, rel, 50.0, show_circles=True, show_released=False)[0]
    html = render(full_map(tr, rel, 50.0, show_circles=True, show_released=False))
    radii = np.array([float(x) for x in re.findall(r'"r": ([\d.]+)', html)])
    assert radii.size and np.allclose(radii, 2 * 50.0 / 1.0)  # ε_t = 2/2 = 1
    assert len(re.findall(r'"r": ', html)) <= MAX_CIRCLES
    assert g.layer_name.startswith("Expected")


def test_withheld_points_are_left_out_and_approximations_marked():
    tr = demo_track()
    rel = release_trajectory(tr.lat, tr.lon, [0, 1, 50], 1.0, 100.0, "skip", 0)
    assert rel.withheld[:2].all()
    html = render(full_map(tr, rel, 100.0))
    assert "Released t=0 " not in html and "Released t=2 " in html
    assert js("Released t=50 · Tue 05 Mar 04:10 · last release repeated (ε_t = 0)") in html


def test_big_track_is_thinned():
    tr = random_walk(5000)
    rel = release_trajectory(tr.lat, tr.lon, [10, 2500], 1.0, 100.0, "uniform", 0)
    html = render(full_map(tr, rel, 100.0, show_circles=True))
    assert html.count("Point t=") <= MAX_MARKERS + 1
    assert html.count("Released t=") <= MAX_MARKERS + 1
    assert "1,500 of 5,000" in html or "1,501 of 5,000" in html


def test_streamlit_folium_can_turn_the_map_into_its_script(demo):
    from streamlit_folium import _get_map_string

    tr, _ = demo
    script = _get_map_string(base_map(tr))
    assert "map_div" in script and "Point t=5 " in script


# ------------------------------------------------------------------------ clicks
def click(lat, lng, count=1, tooltip=None) -> dict:
    return {"last_object_clicked": {"lat": lat, "lng": lng}, "last_object_clicked_count": count,
            "last_object_clicked_tooltip": tooltip}


def test_click_signature_identifies_each_click():
    assert click_signature(None) is None
    assert click_signature({"last_object_clicked": None}) is None
    a = click_signature(click(48.1, 2.1, 1))
    assert a == click_signature(click(48.1, 2.1, 1))
    assert a != click_signature(click(48.1, 2.1, 2))  # same place, clicked again


def test_clicked_index_uses_the_tooltip_then_the_nearest_point(demo):
    tr, _ = demo
    # points of a stay overlap: the tooltip names the exact one
    assert clicked_index(click(tr.lat[3], tr.lon[3], tooltip="Point t=17 · x"),
                         tr.lat, tr.lon) == 17
    assert clicked_index(click(0, 0, tooltip="Landmark t=36 · Tue (click to remove)"),
                         tr.lat, tr.lon) == 36
    # other objects are not toggles
    for tip in ("Released t=5 · noisy", "Suggested stay 1: ...", "Waypoint: Home"):
        assert clicked_index(click(tr.lat[5], tr.lon[5], tooltip=tip), tr.lat, tr.lon) is None
    assert clicked_index(click(0, 0, tooltip="Point t=99999"), tr.lat, tr.lon) is None
    # no tooltip: nearest track point
    i = 150
    assert clicked_index(click(tr.lat[i] + 1e-7, tr.lon[i]), tr.lat, tr.lon) == int(
        np.argmin((tr.lat - tr.lat[i]) ** 2 + (tr.lon - tr.lon[i]) ** 2))
    assert clicked_index(None, tr.lat, tr.lon) is None


# ------------------------------------------------------------------------ tables
def test_displacement_summary_measured_vs_expected(demo):
    tr, rel = demo
    df = displacement_summary(rel, 100.0)
    assert list(df.index) == ["mean", "median", "95th percentile"]
    exp = df["expected, Planar Laplace (m)"]
    eps = 1.0 / 5  # uniform with 4 landmarks
    mech = PlanarLaplace(100.0)
    assert exp["mean"] == pytest.approx(2 * 100 / eps)
    assert exp["median"] == pytest.approx(float(mech.displacement_quantile(0.5, eps)))
    assert exp["95th percentile"] == pytest.approx(
        float(gamma.ppf(0.95, 2, scale=100 / eps)), rel=1e-9)
    meas = df["measured at noisy releases (m)"]
    assert meas["mean"] == pytest.approx(np.mean(rel.errors))
    assert meas["median"] == pytest.approx(np.median(rel.errors))
    # 383 draws: the measured mean is within ~5 standard errors of 2r/ε (sd = √2·r/ε)
    assert abs(meas["mean"] - exp["mean"]) < 5 * np.sqrt(2) * 100 / eps / np.sqrt(len(tr))


def test_mixture_quantile_solves_the_average_cdf():
    eps = np.array([0.2, 0.2, 1.0, 2.0])
    for q in (0.5, 0.95):
        d = expected_displacement_quantile(q, eps, 100.0)
        cdf = np.mean([gamma.cdf(d, 2, scale=100 / e) for e in eps])
        assert cdf == pytest.approx(q, abs=1e-6)
    assert np.isnan(expected_displacement_quantile(0.5, np.zeros(3), 100.0))


def test_landmark_frame(demo):
    tr, rel = demo
    df = landmark_frame(tr, [36, 220], rel.epsilon_t)
    assert list(df.columns) == ["t", "time", "ε_t", "lat", "lon"]
    assert list(df["t"]) == [36, 220] and df["time"][0] == "Tue 05 Mar 03:00"
    assert landmark_frame(tr, []).empty


def test_budget_figure_panels(demo):
    tr, rel = demo
    fig = budget_figure(tr, rel, 100.0)
    names = [t.name for t in fig.data]
    assert "ε_t" in names and "landmark" in names and "expected 2r/ε_t" in names
    assert "displacement (noisy release)" in names
    eps_trace = next(t for t in fig.data if t.name == "ε_t")
    assert np.allclose(eps_trace.y, rel.epsilon_t)
    fig = budget_figure(tr, rel, 100.0, leakage={"TPL": rel.epsilon_t,
                                                 "landmark TPL": rel.verdict.totals})
    assert {"TPL", "landmark TPL"} <= {t.name for t in fig.data}
    assert len(fig.layout.annotations) >= 3  # three subplot titles


def test_budget_figure_without_times_uses_indices():
    tr = Track(lat=np.array([48.0, 48.001, 48.002]), lon=np.array([2.0, 2.0, 2.0]),
               time=np.arange(3.0), time_kind="index", waypoints=[
                   Waypoint("w", 48.0, 2.0, 0, 0.0)])
    rel = release_trajectory(tr.lat, tr.lon, [1], 1.0, 50.0, "skip", 0)
    fig = budget_figure(tr, rel, 50.0)
    assert list(fig.data[0].x) == [0, 1, 2]
    render(full_map(tr, rel, 50.0, waypoints=tr.waypoints))  # a tiny track renders too
