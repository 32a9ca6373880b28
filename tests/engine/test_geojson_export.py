"""GeoJSON export of a trajectory release (the Map page's download and `lmdk geo-release`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.engine.release import release_trajectory
from lmdk_core.files.export import geojson_text, trajectory_geojson
from lmdk_core.foundation.geodesy import distance_m

SEED = 1234
RADIUS = 100.0


@pytest.fixture(scope="module")
def exported():
    tr = demo_track()
    lm = demo_track_landmarks()
    rel = release_trajectory(tr.lat, tr.lon, lm, epsilon=1.0, radius=RADIUS, scheme="uniform",
                             seed=SEED)
    return tr, lm, json.loads(geojson_text(trajectory_geojson(tr, rel)))


def by_kind(gj: dict, kind: str) -> list[dict]:
    return [f for f in gj["features"] if f["properties"]["kind"] == kind]


def test_valid_geojson_feature_collection(exported):
    tr, lm, gj = exported
    assert gj["type"] == "FeatureCollection"
    for f in gj["features"]:
        assert f["type"] == "Feature" and set(f) >= {"geometry", "properties"}
        geom = f["geometry"]
        assert geom["type"] in ("Point", "LineString")
        coords = [geom["coordinates"]] if geom["type"] == "Point" else geom["coordinates"]
        for lon, lat in coords:  # GeoJSON order: longitude, latitude
            assert -180 <= lon <= 180 and -90 <= lat <= 90
            assert 2.2 < lon < 2.5 and 48.8 < lat < 48.95
    assert len(by_kind(gj, "original")) == 1 and len(by_kind(gj, "released")) == 1
    assert len(by_kind(gj, "released_point")) == len(tr)


def test_original_and_landmarks_are_the_true_locations(exported):
    tr, lm, gj = exported
    orig = np.array(by_kind(gj, "original")[0]["geometry"]["coordinates"])
    assert np.allclose(orig[:, 0], tr.lon, atol=1e-7) and np.allclose(orig[:, 1], tr.lat,
                                                                      atol=1e-7)
    marks = by_kind(gj, "landmark")
    assert [f["properties"]["t"] for f in marks] == lm
    for f in marks:
        t = f["properties"]["t"]
        assert f["geometry"]["coordinates"] == pytest.approx([tr.lon[t], tr.lat[t]])


def test_released_coordinates_are_the_seeded_noise(exported):
    """The released path equals a direct release with the same seed, and differs from
    the original by exactly that release's displacements (metres)."""
    tr, lm, gj = exported
    direct = release_trajectory(tr.lat, tr.lon, lm, epsilon=1.0, radius=RADIUS, scheme="uniform",
                                seed=SEED)
    path = np.array(by_kind(gj, "released")[0]["geometry"]["coordinates"])
    assert np.allclose(path[:, 1], direct.released[:, 0], atol=1e-7)
    assert np.allclose(path[:, 0], direct.released[:, 1], atol=1e-7)
    moved = distance_m(tr.lat, tr.lon, path[:, 1], path[:, 0])
    assert np.allclose(moved, direct.errors, atol=0.05)  # 1e-7 degrees ~ 1 cm
    assert moved.min() > 0  # every point was perturbed
    # noise of the right size: mean displacement ≈ 2r/ε_t = 1,000 m (383 draws, ~5 s.e.)
    assert abs(moved.mean() - 1000.0) < 5 * np.sqrt(2) * 500 / np.sqrt(len(tr))
    pts = by_kind(gj, "released_point")
    assert [f["properties"]["t"] for f in pts] == list(range(len(tr)))
    assert all(f["properties"]["epsilon"] == pytest.approx(0.2) for f in pts)
    # another seed gives other noise
    other = release_trajectory(tr.lat, tr.lon, lm, epsilon=1.0, radius=RADIUS, scheme="uniform",
                               seed=SEED + 1)
    assert not np.allclose(other.released, direct.released)


def test_skip_leaves_withheld_points_out():
    tr = demo_track()
    rel = release_trajectory(tr.lat, tr.lon, [0, 1, 40], epsilon=1.0, radius=RADIUS, scheme="skip",
                             seed=SEED)
    gj = json.loads(geojson_text(trajectory_geojson(tr, rel)))
    released = by_kind(gj, "released")[0]["geometry"]["coordinates"]
    assert len(released) == len(tr) - 2
    pts = {f["properties"]["t"]: f["properties"] for f in by_kind(gj, "released_point")}
    assert 0 not in pts and 1 not in pts
    assert pts[40]["published"] is False and pts[40]["epsilon"] == 0
    assert by_kind(gj, "released")[0]["properties"]["landmark_private"] is True
