"""Track formats beyond CSV/GPX/PLT (issue 37 §3): FIT (fitdecode), TCX, KML (LineString,
gx:Track), GeoJSON; real files in tests/data/real/gps/ load (test_real_data.py), real
files without a usable track in refused/ are refused naming their format. Bad input for
every reader — empty, cut short, another format under the name, positions out of range,
no times — is refused with one line (CLI: exit 2) or loads with its points numbered, and
a refusal on the Map is an st.error that keeps the current track."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lmdk_core.cli import main
from lmdk_core.data.file_formats import format_by_content
from lmdk_core.data.track_loading import load_track
from lmdk_core.foundation.errors import InputError
from tests.engine.test_real_data import GPS, REFUSED, REFUSED_DIR

TCX = GPS / "garmin-sample.tcx"
KML = GPS / "mytracks-multitrack.kml"
FIT = GPS / "wahoo-elemnt-bolt.fit"
GEOJSON = GPS / "gdal-track-points.geojson"


def _line(coords, times=None) -> bytes:
    props = {"coordTimes": times} if times else {}
    return json.dumps({"type": "Feature", "properties": props,
                       "geometry": {"type": "LineString", "coordinates": coords}}).encode()


def _escaped(text: str) -> str:
    return text.replace("(", r"\(").replace(")", r"\)").replace("`", ".")


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_real_files_without_a_track_are_refused_naming_the_format(name):
    with pytest.raises(InputError, match=_escaped(REFUSED[name])):
        load_track(REFUSED_DIR / name)


def test_fit_positions_and_times_are_read_from_semicircles_and_utc():
    t = load_track(FIT)
    assert t.utc and t.time_kind == "datetime"
    assert str(np.asarray(t.time, dtype="datetime64[s]")[0]) == "2017-08-21T08:18:01"
    assert 49.8 < t.lat[0] < 49.9 and 8.6 < t.lon[0] < 8.7  # Darmstadt
    assert any("without a GPS position" in n for n in t.notes)


def test_tcx_pieces_and_kml_places():
    t = load_track(TCX)
    assert t.n_segments == 3 and any("2 trackpoints without a position" in n for n in t.notes)
    k = load_track(KML)
    assert k.n_segments == 2 and len(k.waypoints) == 1


def test_geojson_line_with_coord_times_and_multilines():
    data = _line([[2.0, 48.0], [2.001, 48.0], [2.002, 48.0]],
                 ["2024-01-01T08:00:00Z", "2024-01-01T08:01:00Z", "2024-01-01T08:02:00Z"])
    t = load_track(data, filename="walk.geojson")
    assert len(t) == 3 and t.time_kind == "datetime" and t.utc and t.lat[0] == 48.0
    multi = json.dumps({"type": "MultiLineString",
                        "coordinates": [[[2, 48], [2.1, 48]], [[2.2, 48], [2.3, 48]]]})
    m = load_track(multi.encode(), filename="x.json")
    assert m.n_segments == 2 and m.time_kind == "index"  # no times: numbered
    pts = load_track(GEOJSON)
    assert not pts.utc  # GDAL wrote the times without a zone: they stay without one


CUT_FIT = FIT.read_bytes()[:1500]
BAD = [
    ("empty.fit", b"", "is empty"),
    ("cut.fit", CUT_FIT, "cut short"),
    ("notfit.fit", b"this is text, not a FIT file at all", "not a FIT file"),
    ("cut.tcx", TCX.read_bytes()[:2000], "TCX file is not well-formed XML"),
    ("wrong.tcx", b"<?xml version='1.0'?><Workouts><Workout/></Workouts>", "not a TCX file"),
    ("cut.kml", KML.read_bytes()[:3000], "KML file is not well-formed XML"),
    ("cut.geojson", GEOJSON.read_bytes()[:700], "not valid JSON"),
    ("list.geojson", b"[1, 2, 3]", "not GeoJSON"),
    ("far.geojson", _line([[2, 95], [2, 48]]), "latitude 95 is out of range"),
    ("far.kml", b"<kml><Placemark><LineString><coordinates>200,48 2,48</coordinates>"
                b"</LineString></Placemark></kml>", "longitude 200 is out of range"),
    ("proj.geojson", json.dumps({"type": "FeatureCollection", "crs": {"type": "name",
                                 "properties": {"name": "EPSG:2056"}}, "features": []}
                                ).encode(), "not WGS 84"),
    ("db.gpkg", b"SQLite format 3\x00" + bytes(52) + b"GPKG" + bytes(100),
     "GeoPackage"),
    ("arch.kmz", b"PK\x03\x04" + bytes(60), "ZIP archive"),
    ("bin.csv", bytes(range(256)) * 4, "binary file"),
]


@pytest.mark.parametrize("name, data, message", BAD)
def test_bad_files_are_refused_with_one_line(name, data, message, tmp_path, capsys):
    with pytest.raises(InputError, match=_escaped(message)):
        load_track(data, filename=name)
    src = tmp_path / name
    src.write_bytes(data)
    code = main(["geo-release", "--noise", "fast", "--input", str(src), "--epsilon", "1",
                 "--output", str(tmp_path / "o.csv")])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and "Traceback" not in err[0], err
    assert not (tmp_path / "o.csv").exists()


def test_untimed_kml_and_geojson_load_numbered():
    t = load_track(GPS / "google-linestring.kml")
    assert t.time_kind == "index" and len(t) == 4


def test_a_track_file_given_as_a_series_names_its_format(tmp_path, capsys):
    code = main(["release", "--input", str(FIT), "--epsilon", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "FIT activity file" in err[0]
    assert "geo-release" in err[0]
    assert format_by_content(TCX.read_bytes()) == "tcx"


def test_the_map_refuses_a_bad_fit_and_keeps_the_track():
    from tests.conftest import open_page

    at = open_page("map", 120)
    before = at.selectbox(key="w_track_name").value
    at.file_uploader(key="track_upload").set_value(("ride.fit", CUT_FIT,
                                                    "application/octet-stream")).run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "FIT file is cut short" in errors and "unchanged" in errors, errors
    assert at.selectbox(key="w_track_name").value == before
    at.file_uploader(key="track_upload").set_value((FIT.name, FIT.read_bytes(),
                                                    "application/octet-stream")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "131 points" in at.caption[0].value


_YEAR_ONE_GPX = b"""<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
<trkpt lat="46.0" lon="14.0"><time>0001-01-01T00:00:00Z</time></trkpt>
<trkpt lat="46.001" lon="14.001"><time>0001-01-01T00:00:05Z</time></trkpt>
</trkseg></trk></gpx>"""
_YEAR_ONE_KML = b"""<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
<Placemark><gx:Track><when>2024-05-01T08:00:00Z</when><when>2300-01-01T00:00:00Z</when>
<gx:coord>14.0 46.0 0</gx:coord><gx:coord>14.001 46.001 0</gx:coord></gx:Track></Placemark>
</kml>"""
#: times a datetime64[ns] cannot hold: year 1 (what GPS receivers write without a time
#: fix) was wrapped to 1754 without a word; each reader refuses it, naming where
OUT_OF_RANGE = {
    "y1.gpx": (_YEAR_ONE_GPX, "point 1: the time 0001-01-01T00:00:00"),
    "y1.csv": (b"lat,lon,time\n46,14,2024-05-01T08:00:00Z\n46.001,14.001,0001-01-01T00:00:05Z\n",
               "line 3: the time 0001-01-01T00:00:05"),
    "y1.geojson": (_line([[14, 46], [14.001, 46.001]],
                         ["0001-01-01T00:00:00Z", "0001-01-01T00:00:05Z"]),
                   "point 1: the time 0001-01-01T00:00:00 "),
    "y2300.kml": (_YEAR_ONE_KML, "point 2: the time 2300-01-01T00:00:00"),
}


@pytest.mark.parametrize("name", sorted(OUT_OF_RANGE))
def test_a_time_outside_what_nanoseconds_hold_is_refused_not_wrapped(name, tmp_path, capsys):
    data, where = OUT_OF_RANGE[name]
    src = tmp_path / name
    src.write_bytes(data)
    with pytest.raises(InputError, match=_escaped(where)) as err:
        load_track(src)
    assert "outside the years 1678–2261" in str(err.value)
    code = main(["geo-release", "--noise", "fast", "--input", str(src), "--epsilon", "1",
                 "--output", str(tmp_path / "o.csv")])
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and "1678–2261" in lines[0], lines


def test_gpx_times_keep_their_microseconds_and_zones():
    """The GPX reader's own UTC conversion (no pandas) gives the times it gave before."""
    gpx = (b'<?xml version="1.0"?><gpx version="1.1" creator="t" '
           b'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
           b'<trkpt lat="46" lon="14"><time>2024-05-01T10:00:00.123456+02:00</time></trkpt>'
           b'<trkpt lat="46.001" lon="14.001"><time>2024-05-01T08:00:05Z</time></trkpt>'
           b'</trkseg></trk></gpx>')
    t = load_track(gpx, filename="z.gpx")
    assert t.time.tolist() == np.array(["2024-05-01T08:00:00.123456",
                                        "2024-05-01T08:00:05"], "datetime64[ns]").tolist()
