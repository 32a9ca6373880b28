"""Real-style GPX files (``tests/data/gpx/``) on the engine, in ``lmdk geo-release``, in the
privacy report (configuration round trip) and on the Map page (AppTest upload).

Each fixture either loads with the stated result (points, pieces, times, waypoints,
notes) or is refused with a clear message; :data:`EXPECTED` is the table quoted in the
docs/inputs.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lmdk_core.cli import main
from lmdk_core.data.track_loading import load_track
from lmdk_core.files.config import ViewConfig, config_from_json, config_to_json
from lmdk_core.foundation.errors import InputError
from lmdk_core.report import build_report, compute_report

GPX = Path(__file__).parents[1] / "data" / "gpx"


# name -> expected outcome: points, pieces, time kind, points without a time after
# loading, waypoints offered, a phrase of a note/warning; or "error": a phrase.
EXPECTED: dict[str, dict] = {
    "several_tracks.gpx": dict(points=70, pieces=2, kind="datetime", untimed=30, waypoints=0,
                               note="keep no time"),
    "several_segments.gpx": dict(points=70, pieces=3, kind="datetime", untimed=0, waypoints=0,
                                 note="3 separate pieces"),
    "partial_times.gpx": dict(points=60, pieces=1, kind="datetime", untimed=0, waypoints=0,
                              note="8 were interpolated"),
    "no_times.gpx": dict(points=50, pieces=1, kind="index", untimed=0, waypoints=0,
                         note="no times"),
    "dates_1901_out_of_order.gpx": dict(points=45, pieces=1, kind="index", untimed=0,
                                        waypoints=0, warning="go backwards"),
    "routes_only.gpx": dict(points=25, pieces=2, kind="index", untimed=0, waypoints=0,
                            note="route points are used"),
    "waypoints_only.gpx": dict(error="only 3 waypoints"),
    "far_waypoints.gpx": dict(points=30, pieces=1, kind="datetime", untimed=0, waypoints=1,
                              note="4,751 km away"),
    "extensions_namespaces.gpx": dict(points=40, pieces=1, kind="datetime", untimed=0,
                                      waypoints=0),
    "utf8_bom.gpx": dict(points=30, pieces=1, kind="datetime", untimed=0, waypoints=0),
    "unicode_names.gpx": dict(points=40, pieces=1, kind="datetime", untimed=0, waypoints=2),
    "not_gpx.gpx": dict(error="not a GPX file"),
}


def test_every_fixture_has_an_expectation():
    assert sorted(p.name for p in GPX.glob("*.gpx")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_engine_loads_or_refuses_clearly(name):
    exp = EXPECTED[name]
    if "error" in exp:
        with pytest.raises(InputError, match=exp["error"]):
            load_track(GPX / name)
        return
    t = load_track(GPX / name)
    assert len(t) == exp["points"] and t.n_segments == exp["pieces"]
    assert t.time_kind == exp["kind"] and t.n_missing_times == exp["untimed"]
    assert len(t.waypoints) == exp["waypoints"]
    assert all(w.distance_m <= 1000 for w in t.waypoints)
    if "note" in exp:
        assert any(exp["note"] in n for n in t.notes), t.notes
    if "warning" in exp:
        assert any(exp["warning"] in n for n in t.warnings), t.warnings
    else:
        assert not t.warnings
    # pieces are contiguous runs numbered 0, 1, ... in file order
    assert t.segment[0] == 0 and np.all(np.diff(t.segment) >= 0)
    assert np.array_equal(np.unique(t.segment), np.arange(exp["pieces"]))


def test_several_tracks_keep_their_times_and_pieces():
    t = load_track(GPX / "several_tracks.gpx")
    times = np.asarray(t.time, dtype="datetime64[s]")
    # the timed track keeps its 30-second steps; the time-less one shows '?'
    assert np.all(np.diff(times[:40]).astype(int) == 30)
    assert np.isnat(times[40:]).all()
    assert t.segment_names == ("Morning walk", "Afternoon (no times)")
    # the 15 km jump between the two tracks is a gap, not a drawn line
    gap_lat = t.with_gaps(t.lat)
    assert gap_lat.size == 71 and np.isnan(gap_lat[40])


def test_partial_times_are_interpolated_inside_the_piece():
    t = load_track(GPX / "partial_times.gpx")
    times = np.asarray(t.time, dtype="datetime64[s]").astype(np.int64)
    # the file's points are 30 s apart; missing ones (ends included) are filled exactly
    assert np.all(np.diff(times) == 30)


def test_1901_times_are_reported_not_silently_used():
    t = load_track(GPX / "dates_1901_out_of_order.gpx")
    assert any("implausible" in w and "1901" in w for w in t.warnings)
    assert t.time_kind == "index"  # points in file order, numbered
    np.testing.assert_array_equal(t.time, np.arange(45))


def test_time_zones_are_converted_to_utc():
    t = load_track(GPX / "extensions_namespaces.gpx")
    first = np.asarray(t.time, dtype="datetime64[ms]")[0]
    assert first == np.datetime64("2023-05-14T05:30:00.250")  # 07:30:00.250+02:00


def _cli(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_geo_release_cli(name, tmp_path, capsys):
    exp = EXPECTED[name]
    out = tmp_path / "out.csv"
    code, _, err = _cli(["geo-release", "--noise", "fast",
                         "--input", str(GPX / name), "--landmarks", "0",
                         "--epsilon", "1", "--radius", "100", "--seed", "0",
                         "--output", str(out)], capsys)
    if "error" in exp:
        assert code == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("lmdk: error:")
        assert exp["error"] in lines[0]
        return
    assert code == 0, err
    import pandas as pd

    df = pd.read_csv(out, comment="#")
    assert len(df) == exp["points"]
    assert np.isfinite(df["released_lat"]).all() and np.isfinite(df["released_lon"]).all()


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if "error" not in e))
def test_configuration_and_report_for_every_accepted_track(name):
    """The Map page's configuration (the track embedded as Track.table()) restores the
    same track and always yields a privacy report."""
    t = load_track(GPX / name)
    cfg = ViewConfig(data_kind="track", dataset="embedded", data=t.table(),
                     time_kind=t.time_kind, landmarks=[0, len(t) - 1], epsilon=1.0,
                     scheme="uniform", radius=100.0, seed=0, page="map")
    back = config_from_json(config_to_json(cfg))
    rd = compute_report(back)
    restored = rd.data
    assert len(restored) == len(t) and restored.n_segments == t.n_segments
    np.testing.assert_allclose(restored.lat, t.lat)
    assert restored.time_kind == t.time_kind
    assert restored.n_missing_times == t.n_missing_times
    html = build_report(back)
    assert len(html) > 10_000 and "time is missing" not in html


# ------------------------------------------------------------------------ Map page
@pytest.fixture(scope="module")
def map_app():
    from tests.conftest import open_page

    return open_page("map", 120)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_map_page_upload(map_app, name):
    at = map_app
    exp = EXPECTED[name]
    before = at.selectbox(key="w_track_name").value
    at.file_uploader(key="track_upload").set_value(
        (name, (GPX / name).read_bytes(), "application/gpx+xml"))
    at.run(timeout=120)
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    if "error" in exp:
        assert exp["error"] in errors and "unchanged" in errors
        assert at.selectbox(key="w_track_name").value == before
        return
    assert "Could not" not in errors
    assert at.selectbox(key="w_track_name").value.startswith(f"Upload: {name}")
    assert f"{exp['points']:,} points" in at.caption[0].value
    shown = " ".join(e.value for e in at.info) + " ".join(e.value for e in at.warning)
    for key in ("note", "warning"):
        if key in exp:
            assert exp[key] in shown
    # the stay-point control never asks for an input the page does not show
    for info in at.info:
        if "minutes per point" in info.value.lower():
            assert any("Minutes between points" in n.label for n in at.number_input)


def test_pieces_stay_apart_in_every_output(tmp_path, capsys):
    """CSV outputs carry a segment column; GeoJSON paths and map lines break at gaps."""
    import pandas as pd

    from lmdk_core.engine.release import release_trajectory
    from lmdk_core.figures.map import map_spec
    from lmdk_core.files.export import trajectory_geojson

    name = "several_segments.gpx"
    out = tmp_path / "o.csv"
    assert _cli(["geo-release", "--noise", "fast",
                 "--input", str(GPX / name), "--epsilon", "1", "--seed", "0",
                 "--output", str(out)], capsys)[0] == 0
    df = pd.read_csv(out, comment="#")
    assert df["segment"].tolist() == [0] * 25 + [1] * 25 + [2] * 20
    t = load_track(GPX / name)
    rel = release_trajectory(t.lat, t.lon, [0], epsilon=1.0, radius=100.0, scheme="uniform", seed=0)
    paths = [f["geometry"] for f in trajectory_geojson(t, rel)["features"]
             if f["properties"]["kind"] in ("original", "released")]
    assert [g["type"] for g in paths] == ["MultiLineString"] * 2
    assert [len(c) for c in paths[0]["coordinates"]] == [25, 25, 20]
    spec = map_spec(t, rel, 100.0)
    assert [len(p["lat"]) for p in spec["base"]["path"]] == [25, 25, 20]
    assert [len(p["lat"]) for p in spec["overlay"]["released"]["lines"]] == [25, 25, 20]
