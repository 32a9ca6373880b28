"""Map page figures: the map's layers (as the value the page's Leaflet component draws;
thinning, released and approximated points, circles, landmarks, suggestions),
displacement statistics and the landmark table (the budget panels: test_track_budget)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import gamma

from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.data.track import Track
from lmdk_core.engine.release import release_trajectory
from lmdk_core.figures.common import data_labels
from lmdk_core.figures.map import (
    LEAFLET_DIR,
    LEGEND,
    MAX_CIRCLES,
    MAX_MARKERS,
    base_spec,
    displacement_summary,
    expected_displacement_quantile,
    landmark_frame,
    map_spec,
    marker_indices,
    overlay_spec,
)
from lmdk_core.figures.style import COLORS
from lmdk_core.landmarks.discovery import stay_points
from lmdk_core.mechanisms.planar_laplace import PlanarLaplace


@pytest.fixture(scope="module")
def demo():
    tr = demo_track()
    rel = release_trajectory(tr.lat, tr.lon, demo_track_landmarks(), epsilon=1.0, radius=100.0,
                             scheme="uniform", seed=0)
    return tr, rel


def random_walk(T: int, seed: int = 1) -> Track:
    rng = np.random.default_rng(seed)
    lat = 48.86 + np.cumsum(rng.normal(0, 1e-4, T))
    lon = 2.33 + np.cumsum(rng.normal(0, 1.5e-4, T))
    time_ = pd.date_range("2024-01-01", periods=T, freq="10s").to_numpy()
    return Track(lat=lat, lon=lon, time=time_, time_kind="datetime", name="walk")


# ------------------------------------------------------------------------ thinning
def test_marker_indices_thin_but_keep_ends_and_requested():
    assert list(marker_indices(10, 20)) == list(range(10))
    idx = marker_indices(5000, 1500, keep=[7, 4999, 12345])
    assert idx[0] == 0 and idx[-1] == 4999 and 7 in idx
    assert 1500 <= idx.size <= 1501 and np.all(np.diff(idx) > 0)


# ------------------------------------------------------------------------ map
def test_leaflet_ships_with_the_app():
    # that the page loads it (Leaflet 1.9, from the app's own server) is checked in
    # chromium: tests/browser/test_browser_map_assets.py
    for name in ("leaflet.js", "leaflet.css", "layers.png", "layers-2x.png", "LICENSE"):
        assert (LEAFLET_DIR / name).exists()


def test_base_spec_has_bounds_path_and_every_clickable_point(demo):
    tr, _ = demo
    base = base_spec(tr)
    assert base is base_spec(tr)  # computed once per track
    (s, w), (n, e) = base["bounds"]
    assert s < tr.lat.min() and n > tr.lat.max() and w < tr.lon.min() and e > tr.lon.max()
    pts = base["points"]
    assert pts["t"] == list(range(len(tr)))  # every point clickable (383 < MAX_MARKERS)
    assert np.allclose(pts["lat"], tr.lat, atol=1e-6) and np.allclose(pts["lon"], tr.lon,
                                                                      atol=1e-6)
    assert pts["label"][0] == "Tue 05 Mar 00:00" and pts["label"] == data_labels(tr)
    assert [len(p["lat"]) for p in base["path"]] == [len(tr)]
    assert base["points_name"] == "Track points (click to toggle)"
    other = random_walk(50)
    assert base_spec(other)["key"] != base["key"]


def test_the_map_value_is_plain_json_without_urls_unless_tiles_are_asked(demo):
    tr, rel = demo
    spec = map_spec(tr, rel, 100.0, waypoints=tr.waypoints, suggestions=stay_points(tr))
    text = json.dumps(spec, allow_nan=False)  # no NaN or numpy value slips through
    assert "http" not in text and spec["tiles"] is False
    assert map_spec(tr, rel, 100.0, tiles=True)["tiles"] is True
    assert [row[3] for row in spec["legend"]] == [row[3] for row in LEGEND]


def test_overlay_spec(demo):
    tr, rel = demo
    stays = stay_points(tr)
    ov = overlay_spec(tr, rel, 100.0, show_circles=True, suggestions=stays,
                      waypoints=tr.waypoints)
    assert ov["landmarks"]["t"] == demo_track_landmarks()
    assert ov["landmarks"]["label"][0] == "Tue 05 Mar 03:00"
    assert np.allclose(ov["landmarks"]["eps"], rel.epsilon_t[demo_track_landmarks()])
    released = ov["released"]
    assert released["published"]["t"] == list(range(len(tr)))  # Uniform publishes all
    assert released["approximated"]["t"] == []
    assert np.allclose(released["published"]["lat"], rel.released[:, 0], atol=1e-6)
    assert np.allclose(released["published"]["err"], rel.errors, atol=0.05)
    assert len(ov["stays"]) == len(stays) and ov["stays"][0]["tip"].startswith("Suggested stay 1:")
    assert any(w["tip"].startswith("Waypoint: Clinic (near the Gare du Nord)")
               for w in ov["waypoints"])
    # no circles, no released layer when switched off
    ov = overlay_spec(tr, rel, 100.0, show_released=False)
    assert ov["released"] is None and ov["circles"] is None and ov["stays"] == []


def test_expected_circles_have_radius_2r_over_eps_and_are_capped():
    tr = random_walk(3000)
    rel = release_trajectory(tr.lat, tr.lon, [5], epsilon=2.0, radius=50.0, scheme="uniform",
                             seed=0)
    circles = overlay_spec(tr, rel, 50.0, show_circles=True, show_released=False)["circles"]
    radii = np.array(circles["r"])
    assert radii.size and np.allclose(radii, 2 * 50.0 / 1.0)  # ε_t = 2/2 = 1
    assert radii.size <= MAX_CIRCLES and len(circles["lat"]) == radii.size


def test_withheld_points_are_left_out_and_approximations_marked():
    tr = demo_track()
    rel = release_trajectory(tr.lat, tr.lon, [0, 1, 50], epsilon=1.0, radius=100.0, scheme="skip",
                             seed=0)
    assert rel.withheld[:2].all()
    released = overlay_spec(tr, rel, 100.0)["released"]
    shown = released["published"]["t"] + released["approximated"]["t"]
    assert 0 not in shown and 1 not in shown and 2 in shown
    assert 50 in released["approximated"]["t"]
    assert all(e == 0 for e in released["approximated"]["eps"])
    assert all(e > 0 for e in released["published"]["eps"])


def test_big_track_is_thinned():
    tr = random_walk(5000)
    rel = release_trajectory(tr.lat, tr.lon, [10, 2500], epsilon=1.0, radius=100.0,
                             scheme="uniform", seed=0)
    spec = map_spec(tr, rel, 100.0, show_circles=True)
    assert len(spec["base"]["points"]["t"]) <= MAX_MARKERS + 1
    assert len(spec["overlay"]["released"]["published"]["t"]) <= MAX_MARKERS + 1
    assert spec["base"]["points_name"] in ("Track points, 1,500 of 5,000 (click to toggle)",
                                           "Track points, 1,501 of 5,000 (click to toggle)")
    assert [len(p["lat"]) for p in spec["base"]["path"]] == [5000]  # lines are not thinned
    assert len(json.dumps(spec)) < 400_000  # what every rerun sends for the map


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


def test_map_payload_is_the_spec_as_json_text(demo):
    from lmdk_core.figures.map import map_payload

    tr, rel = demo
    stays = stay_points(tr)
    kw = {"show_circles": True, "suggestions": stays, "waypoints": tr.waypoints}
    payload = map_payload(tr, rel, 100.0, tiles=True, **kw)
    spec = map_spec(tr, rel, 100.0, tiles=True, **kw)
    assert json.loads(payload["base"]) == spec["base"]
    assert json.loads(payload["overlay"]) == spec["overlay"]
    assert payload["tiles"] is True and payload["legend"] == spec["legend"]
    assert payload["colors"] == spec["colors"] and spec["colors"]["landmark"] == COLORS["landmark"]
    assert map_payload(tr, rel, 100.0)["base"] is payload["base"]  # encoded once per track
