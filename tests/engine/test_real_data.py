"""Real public files (``tests/data/real/``, sources and licences in its README) through the
engine's loaders: every fixture loads with the stated result or is refused with a clear
message (an :class:`~lmdk_core.foundation.errors.InputError` naming what is wrong).

:data:`TRACKS` and :data:`SERIES` are the fixture set other tests iterate over (CLI, app
upload, batch); :data:`SERIES_COLUMNS` names the time and value column of each series.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lmdk_core.data.series import load_series_csv
from lmdk_core.data.track_loading import load_track
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import distance_m

REAL = Path(__file__).parents[1] / "data" / "real"
GPS = REAL / "gps"
GEOLIFE = REAL / "geolife"
SERIES_DIR = REAL / "series"

# name -> points, pieces, time kind, points without a time, waypoints offered (within 1 km)
TRACKS: dict[str, dict] = {
    "geolife-003-3days.plt": dict(points=1067, pieces=1, kind="datetime", untimed=0,
                                  waypoints=0),
    "geolife-user004-recordings.gpx": dict(points=4172, pieces=10, kind="datetime",
                                           untimed=0, waypoints=0),
    "korita-zbevnica.gpx": dict(points=871, pieces=3, kind="datetime", untimed=358,
                                waypoints=2),
    "cerknicko-jezero.gpx": dict(points=296, pieces=7, kind="datetime", untimed=0,
                                 waypoints=4),
    "cerknicko-without-times.gpx": dict(points=296, pieces=7, kind="datetime", untimed=275,
                                        waypoints=4),
    "mojstrovka.gpx": dict(points=184, pieces=1, kind="index", untimed=0, waypoints=0),
    "around-visnjan-with-car.gpx": dict(points=104, pieces=1, kind="datetime", untimed=0,
                                        waypoints=0),
    "lannion-plestin-mapsource.gpx": dict(points=381, pieces=2, kind="datetime", untimed=358,
                                          waypoints=0),
    "healthfit-apple-watch.gpx": dict(points=9, pieces=1, kind="datetime", untimed=0,
                                      waypoints=0),
    "editgpx-example-track.gpx": dict(points=1500, pieces=1, kind="datetime", untimed=0,
                                      waypoints=0),
    "editgpx-no-time.gpx": dict(points=274, pieces=1, kind="index", untimed=0, waypoints=0),
    # named columns (issue 37 §2): a bus feed's timestamp,latitude,longitude; a GIS X;Y;…;t
    "capmetro-bus-2055.csv": dict(points=255, pieces=1, kind="datetime", untimed=0,
                                  waypoints=0),
    "movingpandas-geolife-semicolon.csv": dict(points=466, pieces=1, kind="datetime",
                                               untimed=0, waypoints=0),
    # activity and GIS formats (issue 37 §3): FIT (fitdecode), TCX, KML, GeoJSON
    "garmin-2013-02-06.fit": dict(points=583, pieces=1, kind="datetime", untimed=0,
                                  waypoints=0),
    "wahoo-elemnt-bolt.fit": dict(points=131, pieces=1, kind="datetime", untimed=0,
                                  waypoints=0),
    "garmin-sample.tcx": dict(points=17, pieces=3, kind="datetime", untimed=0, waypoints=0),
    "mytracks-multitrack.kml": dict(points=26, pieces=2, kind="datetime", untimed=0,
                                    waypoints=1),
    "google-linestring.kml": dict(points=4, pieces=2, kind="index", untimed=0, waypoints=0),
    "gdal-track-points.geojson": dict(points=21, pieces=1, kind="datetime", untimed=0,
                                      waypoints=0),
}

#: real files in formats the explorer reads that hold no usable track: name -> a phrase
#: of the one-line refusal (``refused/``)
REFUSED: dict[str, str] = {
    "fit-truncated.fit": "the FIT file is cut short",
    "fit-damaged-header.fit": "the FIT file's header is damaged",
    "fit-without-gps.fit": "none with a GPS position",
    "fit-monitoring.fit": "holds no activity records",
    "kml-point-only.kml": "no LineString or gx:Track",
    "kml-polygon-only.kml": "no LineString or gx:Track",
}
REFUSED_DIR = REAL / "refused"

#: GeoLife users converted to time,lat,lon CSV (``geolife/``): name -> points
GEOLIFE_TRACKS: dict[str, int] = {
    "geolife-user000.csv": 3634,
    "geolife-user004.csv": 4172,
    "geolife-user006.csv": 4223,
}

#: every track file of the set (path relative to tests/data/real)
TRACK_FILES = sorted([f"gps/{n}" for n in TRACKS] + [f"geolife/{n}" for n in GEOLIFE_TRACKS])

#: the time and value column of each series file
SERIES_COLUMNS: dict[str, tuple[str, str]] = {
    "nile.csv": ("year", "volume"),
    "co2-mauna-loa-weekly.csv": ("date", "co2"),
    "modechoice-semicolon.csv": ("individual", "choice"),
    "occupancy.csv": ("time", "V4"),
    "occupancy-pandas-index.csv": ("time", "V4"),
    "water-flow.csv": ("Time", "Water flow [l/s]"),
    "water-flow-semicolon.csv": ("Time", "Water flow [l/s]"),
    "run-log.csv": ("time", "Pace"),
    "bitcoin.csv": ("date", "price"),
    "brent-crude-oil.csv": ("day", "DPB"),
    "uk-coal-employment.csv": ("Year", "Employment"),
}

# name -> rows and time kind, or "error": a phrase of the message
SERIES: dict[str, dict] = {
    "nile.csv": dict(rows=100, kind="number"),
    "co2-mauna-loa-weekly.csv": dict(error="line 8: co2 is missing (59 bad cells in all)"),
    "modechoice-semicolon.csv": dict(rows=840, kind="number"),  # each time on 4 rows
    "occupancy.csv": dict(rows=509, kind="datetime"),
    "occupancy-pandas-index.csv": dict(rows=509, kind="datetime"),
    "water-flow.csv": dict(rows=1268, kind="datetime"),
    "water-flow-semicolon.csv": dict(rows=1268, kind="datetime"),
    "run-log.csv": dict(rows=376, kind="datetime"),
    "bitcoin.csv": dict(rows=822, kind="datetime"),
    "brent-crude-oil.csv": dict(error="is neither a number nor an ISO date"),
    "uk-coal-employment.csv": dict(rows=105, kind="number"),
}

#: the series that load (for tests that release them)
LOADABLE_SERIES = sorted(n for n, e in SERIES.items() if "error" not in e)


def test_every_fixture_is_listed_and_documented():
    assert sorted(p.name for p in GPS.iterdir()) == sorted(TRACKS)
    assert sorted(p.name for p in GEOLIFE.iterdir()) == sorted(GEOLIFE_TRACKS)
    assert sorted(p.name for p in SERIES_DIR.iterdir()) == sorted(SERIES)
    assert sorted(p.name for p in REFUSED_DIR.iterdir()) == sorted(REFUSED)
    assert set(SERIES_COLUMNS) == set(SERIES)
    readme = (REAL / "README.md").read_text(encoding="utf-8")
    for name in list(TRACKS) + list(GEOLIFE_TRACKS) + list(SERIES) + list(REFUSED):
        assert f"`{name}`" in readme, f"{name} has no source/licence line in the README"


@pytest.mark.parametrize("name", sorted(TRACKS))
def test_track_fixture_loads(name):
    exp = TRACKS[name]
    t = load_track(GPS / name)
    assert len(t) == exp["points"] and t.n_segments == exp["pieces"]
    assert t.time_kind == exp["kind"] and t.n_missing_times == exp["untimed"]
    assert len(t.waypoints) == exp["waypoints"]
    assert np.all(np.abs(t.lat) <= 90) and np.all(np.abs(t.lon) <= 180)
    assert t.segment[0] == 0 and np.all(np.diff(t.segment) >= 0)


@pytest.mark.parametrize("name", sorted(GEOLIFE_TRACKS))
def test_geolife_csv_loads_as_multi_day_track(name):
    t = load_track(GEOLIFE / name)
    assert len(t) == GEOLIFE_TRACKS[name] and t.time_kind == "datetime"
    assert t.n_missing_times == 0 and not t.warnings
    days = np.unique(np.asarray(t.time, dtype="datetime64[D]"))
    assert days.size >= 3


@pytest.mark.parametrize("name", sorted(SERIES))
def test_series_fixture_loads_or_is_refused_clearly(name):
    exp = SERIES[name]
    tcol, vcol = SERIES_COLUMNS[name]
    if "error" in exp:
        with pytest.raises(InputError, match=exp["error"].replace("(", r"\(").replace(")", r"\)")):
            load_series_csv(SERIES_DIR / name, time_col=tcol, value_col=vcol)
        return
    s = load_series_csv(SERIES_DIR / name, time_col=tcol, value_col=vcol)
    assert len(s) == exp["rows"] and s.time_kind == exp["kind"]
    assert np.all(np.isfinite(s.values))


def test_geolife_plt_times_are_the_files_utc_times():
    """The .plt loader reads the date and time fields as written (GeoLife: UTC), and the
    fixture spans three calendar days: the recorder was off for the two nights (UTC
    evening to next morning) and switched on again within 100 m of where it stopped."""
    t = load_track(GPS / "geolife-003-3days.plt")
    times = np.asarray(t.time, dtype="datetime64[s]")
    assert str(times[0]) == "2008-10-23T17:58:54" and str(times[-1]) == "2008-10-25T13:06:25"
    assert np.all(np.diff(times.astype(np.int64)) > 0)
    day = times.astype("datetime64[D]")
    nights = np.flatnonzero(day[1:] != day[:-1])
    assert nights.size == 2  # 10-23 18:16 -> 10-24 02:02 and 10-24 19:54 -> 10-25 01:53
    for i in nights:
        assert times[i + 1] - times[i] > np.timedelta64(5, "h")
        assert distance_m(t.lat[i], t.lon[i], t.lat[i + 1], t.lon[i + 1]) < 100


def test_plt_that_is_not_geolife_is_refused_clearly():
    with pytest.raises(InputError, match="not a GeoLife/OziExplorer track"):
        load_track(b"lat,lon\n1,2\n", filename="x.plt")
