"""Uploaded files: every bad input gets a clear InputError."""

from __future__ import annotations

import numpy as np
import pytest

from lmdk_core.data import tables
from lmdk_core.data.allocation_csv import load_allocation_csv
from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.series import load_series_csv
from lmdk_core.data.track_loading import load_track
from lmdk_core.foundation.errors import InputError
from tests.conftest import ASSETS


def test_series_with_integer_and_iso_times():
    s = load_series_csv(b"time,value\n0,1.5\n1,2\n5,3\n")
    assert s.time_kind == "number" and list(s.values) == [1.5, 2, 3]
    s = load_series_csv(b"Time , Value\n2024-03-01T08:00,1\n2024-03-01T09:00:00Z,2\n")
    assert s.time_kind == "datetime" and len(s) == 2


@pytest.mark.parametrize(
    "content, msg",
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"time,value\n", "no data rows"),
        (b"t,v\n1,2\n", "needs the columns time, value"),
        (b"time,val\n1,2\n", "value"),
        (b"time,value\n1,2\n2,abc\n", "line 3: value is `abc`"),
        (b"time,value\n1,2\n2,\n", "line 3: value is missing"),
        (b"time,value\n1,2\n2,NaN\n", "missing"),
        (b"time,value\n1,2\n2,inf\n", "not a finite number"),
        (b"time,value\n2,1\n1,2\n", "sort the file by time"),
        (b"time,value\nmonday,1\n", "neither a number nor an ISO date"),
        (b"time,value\n,1\n", "time is missing"),
        (b"\xff\xfe\x00\x01binary", "not"),
    ],
)
def test_bad_series_files(content, msg):
    with pytest.raises(InputError, match=msg):
        load_series_csv(content)


def test_huge_files_are_refused(monkeypatch):
    monkeypatch.setattr(tables, "MAX_ROWS", 10)
    rows = "\n".join(f"{i},{i}" for i in range(11))
    with pytest.raises(InputError, match="limit is 10"):
        load_series_csv(("time,value\n" + rows).encode())
    monkeypatch.setattr(tables, "MAX_BYTES", 100)
    with pytest.raises(InputError, match="larger than"):
        tables.read_bytes(b"x" * 101)


def test_track_csv_and_bad_coordinates():
    t = load_track(b"time,lat,lon\n0,48.8,2.3\n1,48.81,2.31\n", filename="a.csv")
    assert len(t) == 2 and t.time_kind == "number"
    t = load_track(b"lat,lon\n48.8,2.3\n48.81,2.31\n", filename="a.csv")
    assert t.time_kind == "index"
    with pytest.raises(InputError, match="latitude 91"):
        load_track(b"time,lat,lon\n0,91,2.3\n", filename="a.csv")
    with pytest.raises(InputError, match="longitude -200"):
        load_track(b"time,lat,lon\n0,45,-200\n", filename="a.csv")
    with pytest.raises(InputError, match="needs a latitude and a longitude column"):
        load_track(b"time,a,b\n0,45,2\n", filename="a.csv")
    with pytest.raises(InputError, match="lon is"):
        load_track(b"time,lat,lon\n0,45,east\n", filename="a.csv")


def test_real_gpx_with_waypoints():
    t = load_track(ASSETS / "sample_tracks" / "cerknicko-jezero.gpx")
    assert len(t) == 296 and t.time_kind == "datetime"
    # 7 waypoints in the file; 3 lie more than 1 km from the track (not offered)
    assert len(t.waypoints) == 4 and all(w.distance_m <= 1000 for w in t.waypoints)
    assert any("3 waypoints are farther than 1,000 m" in n for n in t.notes)
    assert t.n_segments == 7  # seven ACTIVE LOG tracks, kept apart
    near = [w for w in t.waypoints if w.distance_m < 10]
    assert {w.name for w in near} >= {"001", "VANSHNG LK"}


def test_gpx_without_times_keeps_order():
    gpx = b"""<?xml version="1.0"?><gpx version="1.1" creator="t"
    xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
    <trkpt lat="45.0" lon="14.0"/><trkpt lat="45.001" lon="14.001"/><trkpt lat="44.999" lon="14.0"/>
    </trkseg></trk></gpx>"""
    t = load_track(gpx, filename="x.gpx")
    assert t.time_kind == "index"
    np.testing.assert_allclose(t.lat, [45.0, 45.001, 44.999])


@pytest.mark.parametrize(
    "content, msg",
    [
        (b"<gpx><trk>", "not a valid GPX"),
        (b"""<?xml version="1.0"?><gpx version="1.1" creator="t"
             xmlns="http://www.topografix.com/GPX/1/1"></gpx>""", "no track or route points"),
        (b"""<?xml version="1.0"?><gpx version="1.1" creator="t"
             xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
             <trkpt lat="95.0" lon="14.0"/></trkseg></trk></gpx>""", "latitude"),
        (b"", "empty"),
    ],
)
def test_bad_gpx(content, msg):
    with pytest.raises(InputError, match=msg):
        load_track(content, filename="bad.gpx")


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"0.5\n0.5\n0\n", [0.5, 0.5, 0]),
        (b"0.5,0.25,0\n", [0.5, 0.25, 0]),
        (b"epsilon\n0.1\n0.2\n", [0.1, 0.2]),
        (b"time,value,released,epsilon,published\n0,1,1.2,0.3,True\n", [0.3]),
    ],
)
def test_allocation_files(content, expected):
    np.testing.assert_allclose(load_allocation_csv(content), expected)


@pytest.mark.parametrize(
    "content, msg",
    [(b"", "empty"), (b"0.1\nabc\n", "not a finite number"), (b"0.1\n-0.2\n", ">= 0"),
     (b"a,b\n1,2\n", "column named epsilon")],
)
def test_bad_allocation_files(content, msg):
    with pytest.raises(InputError, match=msg):
        load_allocation_csv(content)


def test_demo_series_is_deterministic():
    a, b = demo_series(), demo_series()
    np.testing.assert_array_equal(a.values, b.values)
    assert len(a) == 168 and a.time_kind == "datetime"
    assert all(0 <= t < 168 for t in demo_series_landmarks())
