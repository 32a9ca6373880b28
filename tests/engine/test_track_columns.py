"""Tracks with named coordinate columns (issue 37 §2): a real bus feed
(``timestamp,latitude,longitude``) and a real ``;``-separated GIS export (``X;Y;…;t``)
load without naming anything; ``--lat-col/--lon-col/--time-col`` name others on every
command that reads a track; a name that is not there, projected X/Y and an out-of-range
latitude are refused with one line naming the file's line and column."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lmdk_core.cli import main
from lmdk_core.cli.input_columns import input_kind
from lmdk_core.data.track_columns import find_track_columns
from lmdk_core.data.track_loading import load_track
from lmdk_core.foundation.errors import InputError
from lmdk_core.landmarks.stays import track_stay_points
from tests.engine.test_real_data import GPS

BUS = GPS / "capmetro-bus-2055.csv"
GIS = GPS / "movingpandas-geolife-semicolon.csv"


def _cli(capsys, *args: str) -> tuple[int, str, list[str]]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, [ln for ln in out.err.splitlines() if ln.strip()]


def test_the_bus_feed_loads_by_its_column_names():
    t = load_track(BUS)
    assert len(t) == 255 and t.time_kind == "datetime" and t.utc  # -06:00 -> UTC
    first = np.datetime_as_string(np.asarray(t.time, dtype="datetime64[s]")[0])
    assert first == "2016-11-25T11:01:54"  # 05:01:54-06:00
    assert t.lat[0] == pytest.approx(30.19023) and t.lon[0] == pytest.approx(-97.76995)
    # the bus waits at its termini: stays the CLI and the Map offer
    stays, _ = track_stay_points(t)
    assert len(stays) >= 2


def test_the_semicolon_gis_export_reads_x_as_longitude():
    t = load_track(GIS)
    assert len(t) == 466 and t.time_kind == "datetime"
    assert t.lat[0] == pytest.approx(39.898573) and t.lon[0] == pytest.approx(116.391305)


def test_named_columns_win_over_recognised_ones():
    data = b"when,a,b,lat,lon\n2024-01-01T00:00:00,48.1,2.1,0,0\n2024-01-01T00:01:00,48.2,2.2,0,0\n"
    t = load_track(data, filename="x.csv", time_col="When", lat_col="a", lon_col="b")
    assert list(t.lat) == [48.1, 48.2] and t.time_kind == "datetime"
    assert find_track_columns(["lat", "lon", "t", "time"]).time == "time"


@pytest.mark.parametrize("data, kwargs, message", [
    (b"a,b\n1,2\n", {}, "needs a latitude and a longitude column"),
    (b"time,latitude,longitude\n1,48,2\n", {"lat_col": "nope"}, "no column `nope` (--lat-col)"),
    (b"time,latitude,longitude\n1,48,2\n2,95,2\n", {}, "line 3: latitude 95 is out of range"),
    (b"X;Y;t\n650000;5400000;1\n", {}, "projected coordinates"),
    (b"time,latitude,longitude\n1,48,2\n2,,2\n", {}, "line 3: latitude is missing"),
    (b"time,lat,lon\n1,48,2\n", {"lat_col": "lat", "lon_col": "lat"}, "must differ"),
])
def test_bad_columns_are_refused_naming_what_to_fix(data, kwargs, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_track(data, filename="x.csv", **kwargs)


def test_suggest_treats_named_coordinates_as_a_track(capsys, tmp_path):
    assert input_kind(str(BUS)) == "track" and input_kind(str(GIS)) == "track"
    code, out, err = _cli(capsys, "suggest", "--input", str(BUS), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["kind"] == "track" and doc["length"] == 255 and doc["suggestions"]


def test_every_track_command_takes_the_column_options(capsys, tmp_path):
    src = tmp_path / "renamed.csv"
    src.write_text("vehicle;when;north;east\n" + "".join(
        f"7;2024-01-01T08:{m:02d}:00;{48.1 + m * 1e-4};{2.1}\n" for m in range(40)))
    cols = ["--time-col", "when", "--lat-col", "north", "--lon-col", "east"]
    out = tmp_path / "o.csv"
    code, _, err = _cli(capsys, "geo-release", "--noise", "fast",
                        "--input", str(src), *cols, "--epsilon", "1",
                        "--seed", "1", "--output", str(out))
    assert code == 0, err
    assert out.read_text().count("\n2024-01-01T08:") == 40
    code, o, err = _cli(capsys, "suggest", "--input", str(src), *cols, "--json")
    assert code == 0 and json.loads(o)["kind"] == "track", err
    code, _, err = _cli(capsys, "solve-epsilon", "--input", str(src), *cols, "--radius", "100",
                        "--within", "500", "--runs", "100", "--seed", "1", "--json")
    assert code == 0, err
    # without the names the file is not a track, and a wrong name is one line
    code, _, err = _cli(capsys, "geo-release", "--noise", "fast",
                        "--input", str(src), "--epsilon", "1",
                        "--output", str(out))
    assert code == 2 and len(err) == 1 and "--lat-col" in err[0], err
    code, _, err = _cli(capsys, "geo-release", "--noise", "fast",
                        "--input", str(src), "--lat-col", "north",
                        "--lon-col", "west", "--epsilon", "1", "--output", str(out))
    assert code == 2 and len(err) == 1 and "`west` (--lon-col)" in err[0], err


def test_suggest_says_times_go_backwards_not_that_there_are_none(capsys, tmp_path):
    """Issue 37 §9: a track whose times go backwards is not said to have no times."""
    src = tmp_path / "back.csv"
    src.write_text("time,lat,lon\n2024-01-01T08:05:00,48.1,2.1\n"
                   "2024-01-01T08:00:00,48.1,2.1\n2024-01-01T08:30:00,48.1,2.1\n")
    code, _, err = _cli(capsys, "suggest", "--input", str(src))
    assert code == 2 and len(err) == 1 and "times go backwards" in err[0], err
    assert "has no times" not in err[0]
