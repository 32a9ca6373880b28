"""The Population page's Statistics view (app_support/statistics_view.py): the
neighbourhood demo's landmark-private hourly total, the commuters' cell counts with a
map and a window slider, the level comparison, bad settings as st.error."""

from __future__ import annotations

import numpy as np

from tests.app.test_app_timeline import plotly_array
from tests.conftest import chart_specs, metric, open_page

TIMEOUT = 240


def _statistics(source: str):
    at = open_page("population", timeout=TIMEOUT)
    at.radio(key="pop_source").set_value(source).run()
    at.radio(key="pop_view").set_value("statistics").run()
    assert not at.exception, at.exception
    return at


def test_neighbourhood_total_is_landmark_private_and_useful():
    at = _statistics("demo_neighbourhood")
    assert not at.error, [e.value for e in at.error]
    assert metric(at, "Windows × cells") == "336 × 1"
    assert metric(at, "ε_t") == "0.1667"  # ε = 1, k = 5
    assert metric(at, "Private users") == "1,000/1,000"
    assert at.success and "Landmark-private for every user" in at.success[0].value
    time_fig = chart_specs(at, "st_fig_time")[0]
    names = [tr.get("name") for tr in time_fig["data"]]
    assert "released" in names and "true (CONFIDENTIAL, on screen only)" in names
    released = plotly_array(next(tr["y"] for tr in time_fig["data"]
                                 if tr.get("name") == "released")).astype(float)
    truth = plotly_array(next(tr["y"] for tr in time_fig["data"]
                              if tr.get("name", "").startswith("true"))).astype(float)
    # useful: the released hourly total is within a few percent of the truth
    assert np.median(np.abs(released - truth) / truth) < 0.05
    levels = chart_specs(at, "st_fig_levels")[0]
    assert {tr["name"] for tr in levels["data"] if "expected" in tr.get("name", "")} == {
        "event (expected)", "w-event (expected)", "user (expected)", "landmark (expected)"}
    table = at.dataframe[0].value
    by = dict(zip(table["level"], table["measured |error| (CONFIDENTIAL)"], strict=True))
    assert by["landmark"] < by["user"] / 4
    assert any(b.key == "st_dl_release" for b in at.get("download_button"))  # publishable
    assert any(b.key == "st_dl_note" for b in at.get("download_button"))  # its public note
    header = " ".join(c.value for c in at.code)
    assert "publishable released statistics" in header and "EXPLORATORY" not in header


def test_commuters_map_and_window_slider():
    at = _statistics("demo_tracks")
    assert not at.error, [e.value for e in at.error]
    maps = chart_specs(at, "st_fig_map")
    assert maps and maps[0]["data"][0]["mode"] == "markers"
    assert "mapbox" not in str(maps[0]["layout"]).lower()  # no tiles, no network
    slider = at.select_slider(key="st_window_pick")
    options = list(slider.options)
    slider.set_value(options[3]).run()
    assert not at.exception
    title = chart_specs(at, "st_fig_map")[0]["layout"]["title"]["text"]
    assert options[3] in title


def test_bad_bounds_and_missing_times_are_errors_and_keep_the_settings():
    at = _statistics("demo_series")
    at.number_input(key="st_lo").set_value(5.0).run()
    assert at.error and "LO must be below HI" in at.error[0].value
    assert at.number_input(key="st_lo").value == 5.0  # nothing the user typed is lost
    at.number_input(key="st_lo").set_value(0.0).run()
    at.radio(key="st_lm_kind").set_value("public").run()
    assert at.error and "public landmark time" in at.error[0].value
    at.text_input(key="st_times").input("2024-04-03T18:00").run()
    assert not at.error
    assert metric(at, "Private users") == "200/200"


def test_a_grid_left_to_the_data_is_exploratory_and_a_bad_box_an_error():
    """The commuters' demo declares its day and its map box; emptying the period makes
    the release exploratory (a warning, the header says so); a box that is not four
    numbers is an st.error that keeps what was typed."""
    at = _statistics("demo_tracks")
    assert not at.warning or not any("Exploratory" in w.value for w in at.warning)
    assert "2024-03-05T00:00" == at.text_input(key="st_start").value
    at.text_input(key="st_start").input("").run()
    assert at.error and "both the start and the end" in at.error[0].value
    at.text_input(key="st_end").input("").run()
    assert any("Exploratory, not publishable" in w.value for w in at.warning)
    assert "EXPLORATORY" in " ".join(c.value for c in at.code)
    at.text_input(key="st_bbox").input("48.87, 2.33, north").run()
    assert at.error and "Cannot release this statistic" in at.error[0].value
    assert at.text_input(key="st_bbox").value == "48.87, 2.33, north"


def test_commuters_temporal_leakage_under_a_declared_stay_model():
    """Independent windows (stay 0): TPL of a window is ε_t and the landmark bound is
    (k+1)·ε_t = ε, green; users who mostly stay put (0.9) leak more than ε: a warning."""
    at = _statistics("demo_tracks")
    assert metric(at, "Largest TPL of one window") == "0.167"  # ε = 1, k = 5
    assert metric(at, "Landmark TPL (bound for any k landmark windows)") == "1"
    assert any("stays within ε = 1" in s.value for s in at.success)
    at.slider(key="st_stay").set_value(0.9).run(timeout=TIMEOUT)
    assert float(metric(at, "Landmark TPL (bound for any k landmark windows)")) > 1
    assert any("learns up to" in w.value for w in at.warning)
