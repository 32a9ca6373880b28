"""Real series CSVs: ISO 8601 times with offsets, chosen columns (CLI and Timeline), and a
GPX file given to `lmdk release`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lmdk_core.cli import main
from lmdk_core.data.series import csv_columns, load_series_csv
from lmdk_core.foundation.errors import InputError

GPX = Path(__file__).parents[1] / "data" / "gpx"

# a meter export across the spring daylight-saving change (Europe/Paris): local offsets
METER = (b"timestamp,kWh,status\n"
         b"2024-03-31T00:00:00+01:00,1.5,ok\n"
         b"2024-03-31T01:00:00+01:00,1.25,ok\n"
         b"2024-03-31T03:00:00+02:00,1.1,ok\n"
         b"2024-03-31T04:00:00+02:00,0.9,ok\n"
         b"2024-03-31T03:00:00Z,1.0,ok\n")


def test_offsets_are_converted_to_utc_and_columns_chosen():
    s = load_series_csv(METER, time_col="timestamp", value_col="kWh")
    assert s.time_kind == "datetime"
    hours = np.asarray(s.time, dtype="datetime64[h]").astype(str).tolist()
    # 02:00 local does not exist on that day; in UTC the readings are hourly
    assert hours == ["2024-03-30T23", "2024-03-31T00", "2024-03-31T01", "2024-03-31T02",
                     "2024-03-31T03"]
    np.testing.assert_allclose(s.values, [1.5, 1.25, 1.1, 0.9, 1.0])
    assert csv_columns(METER) == ["timestamp", "kWh", "status"]


def test_missing_columns_say_how_to_choose():
    with pytest.raises(InputError, match="--time-col"):
        load_series_csv(METER)
    with pytest.raises(InputError, match="must differ"):
        load_series_csv(METER, time_col="kWh", value_col="kwh")


def test_cli_time_col(tmp_path, capsys):
    src = tmp_path / "meter.csv"
    src.write_bytes(METER)
    code = main(["release", "--input", str(src), "--time-col", "timestamp", "--value-col",
                 "kWh", "--epsilon", "1", "--seed", "0", "--output", str(tmp_path / "o.csv")])
    assert code == 0, capsys.readouterr().err
    assert "2024-03-30T23:00:00" in (tmp_path / "o.csv").read_text()


def test_cli_release_given_a_gpx_points_to_geo_release(capsys):
    code = main(["release", "--input", str(GPX / "several_tracks.gpx"), "--epsilon", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("lmdk: error:") and "geo-release" in err[0]


def test_timeline_offers_the_columns_of_an_upload():
    from tests.conftest import open_page

    at = open_page("timeline", 120)
    before = at.sidebar.selectbox(key="w_series_name").value
    at.file_uploader(key="series_upload").set_value(("meter.csv", METER, "text/csv")).run()
    # the guessed columns are offered with a note, not a red error (issue 37 §9)
    assert not at.error and any("--time-col" in i.value for i in at.info)
    assert at.sidebar.selectbox(key="w_series_name").value == before
    assert at.selectbox(key="w_upload_time_col").value == "timestamp"
    assert at.selectbox(key="w_upload_value_col").value == "kWh"
    next(b for b in at.button if b.label == "Load with these columns").click().run()
    assert not at.exception and not at.error
    assert at.sidebar.selectbox(key="w_series_name").value == "Upload: meter.csv"
