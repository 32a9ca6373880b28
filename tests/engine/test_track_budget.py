"""The Map page's budget / displacement / leakage panels (Vega-Lite): the numbers they
draw are the release's, their specifications are valid Vega-Lite and do not change with
the landmarks, ε, the scheme or the noise (so the browser redraws them in place), long
tracks are decimated without losing a landmark."""

from __future__ import annotations

import json

import altair as alt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.data.track import Track, Waypoint
from lmdk_core.engine.release import release_trajectory
from lmdk_core.figures.common import data_labels
from lmdk_core.figures.decimation import DISPLAY_MAX_POINTS
from lmdk_core.figures.map import map_spec
from lmdk_core.figures.track_budget import budget_panels, x_values


@pytest.fixture(scope="module")
def demo():
    tr = demo_track()
    rel = release_trajectory(tr.lat, tr.lon, demo_track_landmarks(), epsilon=1.0, radius=100.0,
                             scheme="uniform", seed=0)
    return tr, rel


def leakage_of(rel):
    return {"TPL": rel.epsilon_t * 1.5, "landmark TPL": rel.verdict.totals * 1.2}


def x_of(spec: dict) -> dict:
    """The time axis' encoding (of the first layer that has one)."""
    return next(la["encoding"]["x"] for la in spec["layer"] if "x" in la.get("encoding", {}))


def valid_vega_lite(spec: dict) -> None:
    """Raises unless ``spec`` (with data) is valid against Vega-Lite's JSON schema."""
    alt.LayerChart.from_dict({**spec, "data": {"values": []}}, validate=True)


def test_panels_draw_the_release(demo):
    tr, rel = demo
    panels = budget_panels(tr, rel, 100.0)
    assert len(panels) == 1
    data, spec = panels[0]
    assert np.allclose(data["eps"], rel.epsilon_t) and np.allclose(data["total"],
                                                                     rel.verdict.totals)
    assert list(data["t"]) == list(range(len(tr)))
    assert sorted(data.loc[data["lm"], "t"]) == sorted(rel.landmarks)
    assert (data["epsilon"] == rel.epsilon).all()
    assert spec["title"]["text"].startswith("Budget spent")
    valid_vega_lite(spec)


def test_displacement_and_leakage_panels(demo):
    tr, rel = demo
    panels = budget_panels(tr, rel, 100.0, displacement=True, leakage=leakage_of(rel))
    titles = [spec["title"]["text"] for _, spec in panels]
    assert [t.split()[0] for t in titles] == ["Budget", "Displacement", "Leakage"]
    disp, leak = panels[1][0], panels[2][0]
    pub = rel.published
    # published points: their (noisy) displacement and 2r/ε_t; others: nothing drawn
    assert np.allclose(disp["noisy"][pub], np.maximum(rel.errors[pub], 0.1))
    assert disp["noisy"][~pub].isna().all() and disp["expected"][~pub].isna().all()
    assert np.allclose(disp["expected"][pub], 200.0 / rel.epsilon_t[pub])
    assert np.allclose(leak["tpl"], rel.epsilon_t * 1.5)
    assert np.allclose(leak["ltpl"], rel.verdict.totals * 1.2)
    for _, spec in panels:
        valid_vega_lite(spec)
    # a panel's legend lists only what it draws, in the colours it draws them
    for _, spec in panels:
        scale = spec["layer"][0]["encoding"]["color"]["scale"]
        drawn = {la["mark"].get("color") for la in spec["layer"][1:]} - {None}
        assert set(scale["range"]) == drawn
    budget_legend = panels[0][1]["layer"][0]["encoding"]["color"]["scale"]["domain"]
    assert "TPL" not in budget_legend and "landmark" in budget_legend


def test_approximations_are_drawn_apart_from_noisy_releases(demo):
    tr, _ = demo
    rel = release_trajectory(tr.lat, tr.lon, demo_track_landmarks(), epsilon=1.0, radius=100.0,
                             scheme="skip", seed=0)
    disp = budget_panels(tr, rel, 100.0, displacement=True)[1][0]
    approx = ~rel.published & ~rel.withheld
    assert approx.any()
    assert disp["approx"][approx].notna().all() and disp["noisy"][approx].isna().all()


def test_the_specification_does_not_change_with_landmarks_epsilon_or_scheme(demo):
    """The page relies on it: the browser then replaces the panels' data in place
    instead of building new charts."""
    tr, rel = demo
    other = release_trajectory(tr.lat, tr.lon, [5, 6, 300], epsilon=0.3, radius=100.0,
                               scheme="skip", seed=7)
    for kw in ({}, {"displacement": True}, {"displacement": True, "leakage": True}):
        def specs(r, kw=kw):
            kw2 = {**kw, "leakage": leakage_of(r) if kw.get("leakage") else None}
            return [json.dumps(s, sort_keys=True) for _, s in budget_panels(tr, r, 100.0,
                                                                           **kw2)]
        assert specs(rel) == specs(other)
    a, b = budget_panels(tr, rel, 100.0)[0][0], budget_panels(tr, other, 100.0)[0][0]
    assert not a.equals(b)  # the data carry the difference


def test_dates_are_utc_milliseconds_on_a_temporal_axis(demo):
    """A time shows as written in the file (the milliseconds are read as UTC), and the
    hover names it."""
    tr, rel = demo
    data, spec = budget_panels(tr, rel, 100.0)[0]
    ms = np.asarray(tr.time, "datetime64[ms]").astype(np.int64)
    assert np.array_equal(data["x"].to_numpy(), ms.astype(float))
    x = x_of(spec)
    assert x["type"] == "temporal" and x["scale"]["type"] == "utc"
    tooltip = spec["layer"][-1]["encoding"]["tooltip"]
    assert {f["field"] for f in tooltip} >= {"t", "time", "eps", "landmark"}
    assert list(data["time"]) == data_labels(tr)
    assert set(data.loc[data["lm"], "landmark"]) == {"yes"}


def test_a_track_without_times_uses_indices():
    tr = Track(lat=np.array([48.0, 48.001, 48.002]), lon=np.array([2.0, 2.0, 2.0]),
               time=np.arange(3.0), time_kind="index", waypoints=[
                   Waypoint("w", 48.0, 2.0, 0, 0.0)])
    rel = release_trajectory(tr.lat, tr.lon, [1], epsilon=1.0, radius=50.0, scheme="skip", seed=0)
    data, spec = budget_panels(tr, rel, 50.0)[0]
    assert list(data["x"]) == [0, 1, 2]
    assert x_of(spec)["type"] == "quantitative" and x_of(spec)["title"] == "t"
    json.dumps(map_spec(tr, rel, 50.0, waypoints=tr.waypoints))  # the map of a tiny track
    one = Track(lat=np.array([48.0]), lon=np.array([2.0]), time=np.arange(1.0),
                time_kind="index")
    data, _ = budget_panels(one, release_trajectory(one.lat, one.lon, [], epsilon=1.0, radius=50.0,
                                                    scheme="uniform", seed=0), 50.0)[0]
    assert data["band0"][0] < data["x"][0] < data["band1"][0]


def test_missing_times_fall_back_to_indices():
    times = pd.to_datetime(["2024-01-01 10:00", None, "2024-01-01 10:02"]).to_numpy()
    tr = Track(lat=np.array([48.0, 48.001, 48.002]), lon=np.array([2.0, 2.0, 2.0]),
               time=times, time_kind="datetime")
    x, kind = x_values(tr)
    assert kind == "index" and list(x) == [0, 1, 2]
    seconds = Track(lat=tr.lat, lon=tr.lon, time=np.array([0.0, 2.5, 4.0]), time_kind="number")
    rel = release_trajectory(seconds.lat, seconds.lon, [1], epsilon=1.0, radius=50.0,
                             scheme="uniform", seed=0)
    data, spec = budget_panels(seconds, rel, 50.0)[0]
    assert list(data["x"]) == [0.0, 2.5, 4.0] and x_of(spec)["title"] == "time"


@settings(max_examples=40, deadline=None)
@given(T=st.integers(DISPLAY_MAX_POINTS + 1, DISPLAY_MAX_POINTS + 1500),
       seed=st.integers(0, 10**6))
def test_long_tracks_are_decimated_keeping_landmarks_and_extremes(T, seed):
    """Above DISPLAY_MAX_POINTS the panels draw per-pixel extremes; every landmark, the
    largest total and the hover bands (contiguous, ordered) survive."""
    rng = np.random.default_rng(seed)
    tr = Track(lat=48.0 + np.cumsum(rng.normal(0, 1e-4, T)),
               lon=2.0 + np.cumsum(rng.normal(0, 1e-4, T)),
               time=np.arange(float(T)), time_kind="index")
    lm = sorted(rng.choice(T, size=int(rng.integers(1, 30)), replace=False).tolist())
    rel = release_trajectory(tr.lat, tr.lon, lm, epsilon=1.0, radius=50.0, scheme="uniform",
                             seed=seed)
    data = budget_panels(tr, rel, 50.0)[0][0]
    assert len(data) < T
    assert set(lm) <= set(data["t"])
    assert data["total"].max() == pytest.approx(rel.verdict.totals.max())
    assert np.all(np.diff(data["x"]) > 0)
    assert np.allclose(data["band1"].to_numpy()[:-1], data["band0"].to_numpy()[1:])
    assert (data["band0"] < data["x"]).all() and (data["x"] < data["band1"]).all()
