"""AppTest: on the Map page, suggested stays of a real multi-day GeoLife track
(tests/data/real/geolife/) are accepted as ONE landmark event each by default
(docs/stays.md), with a clear option for per-fix landmarks; the verdict, the
displacement and a saved configuration follow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import metric, open_page

ROOT = Path(__file__).resolve().parents[2]
USER004 = ROOT / "tests" / "data" / "real" / "geolife" / "geolife-user004.csv"
TIMEOUT = 120


def km(text: str) -> float:
    """'3,950 m' -> 3.95"""
    return float(re.sub(r"[^\d.]", "", text)) / 1000


@pytest.fixture
def real_track() -> AppTest:
    at = open_page("map", TIMEOUT)
    at.multiselect(key="w_track_lm_select").set_value([]).run()
    at.file_uploader(key="track_upload").set_value(
        (USER004.name, USER004.read_bytes(), "text/csv"))
    at.run()
    assert not at.exception, at.exception
    return at


def accept_all(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label == "Accept all").click().run()
    assert not at.exception, at.exception
    return at


def test_accepting_all_stays_protects_each_as_one_event(real_track):
    at = real_track
    at.session_state["w_max_landmarks"] = 22  # the declared k covers the 22 stays
    assert at.radio(key="w_stay_mark").value == "event"  # the default
    n = len(at.multiselect(key="track_candidates").options)
    assert n == 22  # the real track's stays (bench_stays.py)
    accept_all(at)
    stays = at.multiselect(key="w_track_stay_select").value
    assert len(stays) == n
    assert at.multiselect(key="w_track_lm_select").value == []  # no per-fix landmark
    assert any(f"{n} stays" in c.value and "landmark events" in c.value for c in at.caption)
    verdict = " ".join(e.value for e in [*at.success, *at.warning, *at.error])
    assert "landmark-private" in verdict.lower()
    # every other setting at its default (ε = 1, r = 100 m, Uniform, seed 0): usable
    assert at.number_input(key="w_radius").value == 100.0
    expected = km(metric(at, "Expected (2r/ε_t)"))
    assert expected == pytest.approx(0.2 * (n + 1), rel=1e-3)  # 2r/(ε/(k+1)), k = n
    mean = km(metric(at, "Mean displacement"))
    assert mean < 10  # the mean of Gamma(2, r(n+1)) is 4.6 km, plus the stays' spread

    # removing a chip removes that stay
    at.multiselect(key="w_track_stay_select").set_value(stays[1:]).run()
    assert len(at.multiselect(key="w_track_stay_select").value) == n - 1


def test_per_fix_landmarks_remain_a_choice(real_track):
    at = real_track
    at.session_state["w_max_landmarks"] = 1000  # every fix of the stay an event of its own
    at.radio(key="w_stay_mark").set_value("visit").run()
    at.multiselect(key="track_candidates").set_value(["stay:0"]).run()
    next(b for b in at.button if b.label == "Accept selected").click().run()
    lm = at.multiselect(key="w_track_lm_select").value
    first, last = lm[0], lm[-1]
    assert lm == list(range(first, last + 1)) and len(lm) > 50
    assert not any(e.key == "w_track_stay_select" for e in at.multiselect)


def test_a_configuration_restores_stays_as_events():
    """A saved view of a track keeps its stays in ``extra.stays`` (the landmarks list
    holds their fixes too); restoring it gives the stays back as events, and a stay
    outside the track is refused with nothing changed."""
    from lmdk_core.files.config import ViewConfig, config_to_json

    at = open_page("map", TIMEOUT)
    data = {"time": [f"2024-01-01T08:{m:02d}:00" for m in range(10)],
            "lat": [48.1 + 1e-4 * m for m in range(10)], "lon": [2.1] * 10}
    cfg = ViewConfig(data_kind="track", dataset="embedded", data=data,
                     landmarks=[1, 3, 4, 5, 6], extra={"stays": "3-6"})
    at.file_uploader(key="track_config_upload").set_value(
        ("mine.json", config_to_json(cfg).encode(), "application/json"))
    at.run()
    assert not at.exception and not at.error
    assert at.multiselect(key="w_track_stay_select").value == ["3-6"]
    assert at.multiselect(key="w_track_lm_select").value == [1]
    bad = ViewConfig(data_kind="track", dataset="embedded", data=data, landmarks=[1],
                     extra={"stays": "8-12"})
    at.file_uploader(key="track_config_upload").set_value(
        ("bad.json", config_to_json(bad).encode(), "application/json"))
    at.run()
    errors = " ".join(e.value for e in at.error)
    assert "stay 8-12" in errors and "Nothing was changed" in errors, errors


def test_choose_epsilon_counts_the_accepted_stays_as_events(real_track):
    at = accept_all(real_track)
    at.switch_page("app_pages/choose_epsilon.py").run()
    at.radio(key="w_analysis_data").set_value("track").run()
    assert not at.exception, at.exception
    assert any("22 landmark events (22 stays of 1,229 fixes, each one event)" in c.value
               for c in at.caption), [c.value for c in at.caption]
    assert not at.error, [e.value for e in at.error]


def test_the_map_finds_stays_across_the_recordings_of_one_gpx():
    """The same points as one GPX with a ``<trkseg>`` per recording (issue 37 §1): the
    Map's upload offers the same 22 stays as the one-piece CSV, among them the nights
    at home that span the gap between an evening's recording and the next morning's."""
    gpx = ROOT / "tests" / "data" / "real" / "gps" / "geolife-user004-recordings.gpx"
    at = open_page("map", TIMEOUT)
    at.multiselect(key="w_track_lm_select").set_value([]).run()
    at.file_uploader(key="track_upload").set_value(
        (gpx.name, gpx.read_bytes(), "application/gpx+xml"))
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    options = at.multiselect(key="track_candidates").options
    assert len([o for o in options if str(o).startswith("Stay ")]) == 22, options
    assert any("t=946-982" in str(o) for o in options)  # a night spanning two recordings


def test_accept_all_takes_the_stays_not_the_waypoints():
    """Issue 37 §9: 'Accept all' on a GPX with waypoints near the track accepts its
    stays (as `lmdk suggest` recommends), not the waypoints, which stay candidates to pick."""
    gpx = ROOT / "tests" / "data" / "real" / "gps" / "cerknicko-jezero.gpx"
    at = open_page("map", TIMEOUT)
    at.multiselect(key="w_track_lm_select").set_value([]).run()
    at.file_uploader(key="track_upload").set_value(
        (gpx.name, gpx.read_bytes(), "application/gpx+xml"))
    at.run()
    options = at.multiselect(key="track_candidates").options
    assert any(str(o).startswith("Waypoint") for o in options)
    assert any(str(o).startswith("Stay") for o in options)
    accept_all(at)
    assert at.multiselect(key="w_track_lm_select").value == []  # no waypoint accepted
    assert len(at.multiselect(key="w_track_stay_select").value) >= 1
