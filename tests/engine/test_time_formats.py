"""Times that are not ISO 8601 (issue 37 §4): a real US-dated file (EIA's Brent price,
``05/20/1987``) is refused with the order its cells show and the --time-format to give;
with it, it loads in the CLI and on the Timeline; ambiguous dd/mm vs mm/dd is never
guessed; a track CSV takes --time-format too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lmdk_core.cli import main
from lmdk_core.data.series import load_series_csv
from lmdk_core.data.time_formats import date_order_advice
from lmdk_core.data.track_loading import load_track
from lmdk_core.foundation.errors import InputError
from tests.engine.test_real_data import SERIES_DIR

BRENT = SERIES_DIR / "brent-crude-oil.csv"


def test_us_dates_are_refused_with_their_order_and_load_with_the_format():
    with pytest.raises(InputError, match='month-first .* --time-format "%m/%d/%Y"'):
        load_series_csv(BRENT, time_col="day", value_col="DPB")
    s = load_series_csv(BRENT, time_col="day", value_col="DPB", time_format="%m/%d/%Y")
    assert len(s) == 2000 and s.time_kind == "datetime"
    assert str(np.asarray(s.time, dtype="datetime64[D]")[0]) == "1987-05-20"
    with pytest.raises(InputError, match="line 2: day `05/20/1987` does not match"):
        load_series_csv(BRENT, time_col="day", value_col="DPB", time_format="%d/%m/%Y")


@pytest.mark.parametrize("cells, expected", [
    (["01/02/2020", "03/04/2020"], "cannot be told apart"),
    (["25.12.2020 10:00", "26.12.2020 10:00"], 'day-first (25 cannot be a month): give '
                                               '--time-format "%d.%m.%Y %H:%M"'),
    (["11/25/2011 01:00:00"], '"%m/%d/%Y %H:%M:%S"'),
    (["2020-01-02"], None),
])
def test_the_order_is_read_from_the_cells_never_guessed(cells, expected):
    advice = date_order_advice(pd.Series(cells))
    assert (advice is None) if expected is None else (expected in advice), advice


def test_the_cli_takes_the_format(tmp_path, capsys):
    out = tmp_path / "o.csv"
    args = ["release", "--input", str(BRENT), "--time-col", "day", "--value-col", "DPB",
            "--epsilon", "1", "--output", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--time-format" in err[0]
    assert main([*args, "--time-format", "%m/%d/%Y"]) == 0
    assert "1987-05-20T00:00:00" in out.read_text()
    assert main(["suggest", "--input", str(BRENT), "--time-col", "day", "--value-col", "DPB",
                 "--time-format", "%m/%d/%Y", "--json"]) == 0


def test_a_track_csv_takes_the_format_too():
    data = b"time,lat,lon\n25/12/2020 10:00,48.1,2.1\n25/12/2020 10:05,48.2,2.2\n"
    with pytest.raises(InputError, match="day-first"):
        load_track(data, filename="t.csv")
    t = load_track(data, filename="t.csv", time_format="%d/%m/%Y %H:%M")
    assert str(np.asarray(t.time, dtype="datetime64[m]")[1]) == "2020-12-25T10:05"


def test_the_timeline_takes_a_time_format():
    from tests.conftest import open_page

    at = open_page("timeline", 120)
    at.file_uploader(key="series_upload").set_value(
        (BRENT.name, BRENT.read_bytes(), "text/csv")).run()
    at.selectbox(key="w_upload_time_col").set_value("day")
    at.selectbox(key="w_upload_value_col").set_value("DPB")
    next(b for b in at.button if b.label == "Load with these columns").click().run()
    assert any("month-first" in e.value and "unchanged" in e.value for e in at.error)
    at.text_input(key="w_upload_time_format").set_value("%m/%d/%Y")
    next(b for b in at.button if b.label == "Load with these columns").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "2000 timestamps" in at.caption[0].value


def test_the_iso_time_column_is_offered_before_a_non_iso_date():
    """Issue 37 §9: of a non-ISO ``Date`` and an ISO ``Datetime`` column, the Timeline
    offers the one the loader can read."""
    from lmdk_core.data.series import guess_series_columns

    data = (b"Date,Datetime,kWh\n" + b"".join(
        f"11/{d:02d}/2011,2011-11-{d:02d}T01:00:00,{d}\n".encode() for d in range(1, 20)))
    assert guess_series_columns(data) == ("Datetime", "kWh")
