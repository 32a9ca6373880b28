"""AppTest: the Map page on the demo day, uploads, configuration restore, suggestions and
the largest (5,000-point) track."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from lmdk_core.data.demo_track import demo_track_landmarks
from lmdk_core.files.config import ViewConfig, config_to_json
from tests.conftest import ASSETS, metric, open_page

TIMEOUT = 90
DEMO = "Demo: a day in Paris"


@pytest.fixture
def mappage() -> AppTest:
    return open_page("map", TIMEOUT)


def verdict_text(at: AppTest) -> str:
    # green, amber (landmark-private only if values were independent) and red verdicts
    return " ".join(e.value for e in [*at.success, *at.warning, *at.error])



def landmarks(at: AppTest) -> list[int]:
    return at.multiselect(key="w_track_lm_select").value


def upload(at: AppTest, key: str, name: str, content: bytes, mime: str = "text/csv") -> AppTest:
    at.file_uploader(key=key).set_value((name, content, mime))
    return at.run()


def walk_csv(T: int, seed: int = 3) -> bytes:
    rng = np.random.default_rng(seed)
    lat = 48.86 + np.cumsum(rng.normal(0, 1e-4, T))
    lon = 2.33 + np.cumsum(rng.normal(0, 1.5e-4, T))
    time_ = pd.date_range("2024-01-01", periods=T, freq="10s")
    df = pd.DataFrame({"time": time_.strftime("%Y-%m-%dT%H:%M:%S"), "lat": lat.round(6),
                       "lon": lon.round(6)})
    return df.to_csv(index=False).encode()


# ------------------------------------------------------------------------ rendering
def test_map_page_renders_the_demo(mappage):
    at = mappage
    assert "Map" in at.title[0].value
    assert at.selectbox(key="w_track_name").value == DEMO
    assert landmarks(at) == demo_track_landmarks()
    assert "Landmark-private" in verdict_text(at) and "4 landmarks" in verdict_text(at)
    labels = [m.label for m in at.metric]
    assert {"Mean displacement", "Expected (2r/ε_t)", "95th percentile"} <= set(labels)
    assert metric(at, "Expected (2r/ε_t)") == "1,200 m"  # 2·100/(1/6): declared k = 5
    assert any("states" in c.value and "landmark TPL" in c.value for c in at.caption)
    # stay points are suggested as candidates; the demo's places are waypoints
    options = at.multiselect(key="track_candidates").options
    assert any(o.startswith("Stay 1:") for o in options)
    assert any("Clinic" in o for o in options)
    assert not at.error


def test_landmarks_change_the_allocation_and_verdict(mappage):
    at = mappage
    at.multiselect(key="w_track_lm_select").set_value([10]).run()
    # Uniform's ε_t = 1/(k+1) comes from the declared k (default 5), never from |L|
    assert metric(at, "Expected (2r/ε_t)") == "1,200 m"
    at.multiselect(key="w_track_lm_select").set_value([1, 2, 3]).run()
    assert metric(at, "Expected (2r/ε_t)") == "1,200 m"
    at.sidebar.number_input(key="w_max_landmarks").set_value(3).run()
    assert metric(at, "Expected (2r/ε_t)") == "800 m"  # ε_t = 1/4
    at.sidebar.number_input(key="w_max_landmarks").set_value(2).run()
    assert any("3 landmark events are more than the declared bound k = 2" in e.value
               for e in at.error)  # refused, the landmarks kept
    assert at.session_state["track_landmarks"][DEMO] == [1, 2, 3]
    at.sidebar.number_input(key="w_max_landmarks").set_value(5).run()
    at.sidebar.selectbox(key="w_scheme").set_value("event").run()
    assert "Not landmark-private" in verdict_text(at)
    at.multiselect(key="w_track_lm_select").set_value([]).run()
    assert "Not" not in verdict_text(at) and "Landmark-private" in verdict_text(at)
    at.sidebar.selectbox(key="w_scheme").set_value("uniform").run()
    next(b for b in at.button if b.label == "Demo landmarks").click().run()
    assert landmarks(at) == demo_track_landmarks()
    next(b for b in at.button if b.label == "Clear").click().run()
    assert landmarks(at) == []


def test_landmarks_set_through_session_state(mappage):
    at = mappage
    at.session_state["track_landmarks"][DEMO] = [5, 6, 7, 8, 9, 10, 11, 12, 13]
    at.session_state["w_max_landmarks"] = 9  # the declared k: ε_t = ε/(k+1)
    at.run()
    assert landmarks(at) == list(range(5, 14))
    assert metric(at, "Expected (2r/ε_t)") == "2,000 m"  # ε_t = 1/10


def test_radius_is_a_page_setting_that_survives_page_switches(mappage):
    at = mappage
    at.number_input(key="w_radius").set_value(250.0).run()
    assert metric(at, "Expected (2r/ε_t)") == "3,000 m"  # 2·250·(k+1), k = 5
    at.switch_page("app_pages/timeline.py").run()
    at.switch_page("app_pages/map.py").run()
    assert at.number_input(key="w_radius").value == 250.0
    assert landmarks(at) == demo_track_landmarks()


def test_accepting_a_stay_suggestion(mappage):
    at = mappage
    at.session_state["w_max_landmarks"] = 1000  # every fix of a visit is a landmark event
    at.multiselect(key="w_track_lm_select").set_value([]).run()
    stay = next(o for o in at.multiselect(key="track_candidates").options
                if o.startswith("Stay 6:"))  # the clinic visit
    at.radio(key="w_stay_mark").set_value("arrival").run()
    at.multiselect(key="track_candidates").set_value(["stay:5"]).run()
    next(b for b in at.button if b.label == "Accept selected").click().run()
    first = int(stay.split("t=")[1].split("-")[0])
    assert landmarks(at) == [first]
    at.radio(key="w_stay_mark").set_value("visit").run()
    at.multiselect(key="track_candidates").set_value(["stay:5"]).run()
    next(b for b in at.button if b.label == "Accept selected").click().run()
    last = int(stay.split("-")[1].split(")")[0])
    assert landmarks(at) == list(range(first, last + 1))


def test_leakage_can_be_switched_off_and_warns_about_too_many_cells(mappage):
    at = mappage
    upload(at, "track_upload", "walk.csv", walk_csv(1200))
    at.number_input(key="w_cell_size").set_value(10.0).run()
    assert any("too many states" in w.value for w in at.warning)
    at.toggle(key="w_track_leakage").set_value(False).run()
    assert not at.exception
    # the panel's warning goes with the panel ...
    assert not any("too many states" in w.value for w in at.warning)
    # ... but the one verdict does not depend on the panel: it still says that no
    # correlation model was evaluated and why, and the model line does not claim to be
    # in force
    assert any("assuming consecutive values are independent" in s.value for s in at.success)
    details = next(e for e in at.expander if e.label.startswith("Why: the numbers"))
    assert any("No correlation model was evaluated" in m.value and "too many states" in m.value
               for m in details.markdown)
    assert not any("Correlation model in force" in c.value for c in at.caption)
    assert any("It was not evaluated" in c.value and "too many states" in c.value
               for c in at.caption)


# ------------------------------------------------------------------------ uploads
@pytest.mark.parametrize(
    "name, content, fragment",
    [
        ("bad.csv", b"", "empty"),
        ("bad.csv", b"time,north,east\n1,48,2\n", "needs a latitude and a longitude column"),
        ("bad.csv", b"time,latitude,longitude\n1,48,2\n2,95,2\n", "line 3: latitude 95"),
        ("bad.csv", b"time,lat,lon\n1,95,2\n2,48,2\n", "latitude 95 is out of range"),
        ("bad.csv", b"time,lat,lon\n1,48,2\n2,48,200\n", "longitude 200 is out of range"),
        ("bad.csv", b"time,lat,lon\n1,abc,2\n", "not a finite number"),
        ("bad.gpx", b"this is not xml at all", "not a GPX file: it is not XML at all"),
        ("bad.gpx", b"<?xml version='1.0'?><gpx version='1.1' creator='t' "
                    b"xmlns='http://www.topografix.com/GPX/1/1'></gpx>", "no track or route"),
    ],
)
def test_bad_upload_shows_error_and_keeps_track_and_landmarks(mappage, name, content, fragment):
    at = mappage
    at.multiselect(key="w_track_lm_select").set_value([3, 4]).run()
    at.sidebar.number_input(key="w_epsilon").set_value(3.0).run()
    at.number_input(key="w_radius").set_value(150.0).run()
    upload(at, "track_upload", name, content)
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert fragment in errors and "unchanged" in errors, errors
    assert landmarks(at) == [3, 4]
    assert at.sidebar.number_input(key="w_epsilon").value == 3.0
    assert at.number_input(key="w_radius").value == 150.0
    assert at.selectbox(key="w_track_name").value == DEMO


def test_too_big_track_is_refused_clearly(mappage):
    at = mappage
    upload(at, "track_upload", "big.csv", walk_csv(5001))
    assert any("5,001 points" in e.value and "5,000" in e.value for e in at.error)
    assert at.selectbox(key="w_track_name").value == DEMO


def test_good_csv_and_gpx_uploads(mappage):
    at = mappage
    upload(at, "track_upload", "walk.csv", walk_csv(200))
    assert not at.exception and not at.error
    assert at.selectbox(key="w_track_name").value == "Upload: walk.csv"
    assert landmarks(at) == []
    at.multiselect(key="w_track_lm_select").set_value([3]).run()
    assert "Landmark-private" in verdict_text(at)
    gpx = (ASSETS / "sample_tracks" / "cerknicko-jezero.gpx").read_bytes()
    upload(at, "track_upload", "lake.gpx", gpx, "application/gpx+xml")
    assert not at.exception and not at.error
    assert at.selectbox(key="w_track_name").value == "Upload: lake.gpx"
    assert any(o.startswith("Waypoint ") for o in at.multiselect(key="track_candidates").options)
    # each track keeps its own landmarks
    at.selectbox(key="w_track_name").set_value("Upload: walk.csv").run()
    assert landmarks(at) == [3]
    at.selectbox(key="w_track_name").set_value(DEMO).run()
    assert landmarks(at) == demo_track_landmarks()


# ------------------------------------------------------------------------ configuration
def test_config_upload_restores_the_view(mappage):
    at = mappage
    cfg = ViewConfig(data_kind="track", dataset="demo-paris", landmarks=[7, 9], scheme="skip",
                     epsilon=0.7, seed=42, radius=250.0, extra={"cell_size_m": 500.0})
    upload(at, "track_config_upload", "view.json", config_to_json(cfg).encode(),
           "application/json")
    assert not at.exception and not at.error
    assert landmarks(at) == [7, 9]
    assert at.sidebar.selectbox(key="w_scheme").value == "skip"
    assert at.sidebar.number_input(key="w_epsilon").value == pytest.approx(0.7)
    # a restored configuration never sets the seed of later releases: fresh 128 bits
    assert at.session_state["w_seed"] != 42 and at.session_state["w_seed"] >= 2**64
    assert not at.session_state["w_reproducible"]
    assert at.number_input(key="w_radius").value == 250.0
    assert at.number_input(key="w_cell_size").value == 500.0


def test_config_with_an_embedded_track(mappage):
    at = mappage
    data = {"time": ["2024-01-01T08:00:00", "2024-01-01T08:01:00", "2024-01-01T08:02:00"],
            "lat": [48.1, 48.1005, 48.101], "lon": [2.1, 2.1, 2.1]}
    cfg = ViewConfig(data_kind="track", dataset="embedded", data=data, landmarks=[1])
    upload(at, "track_config_upload", "mine.json", config_to_json(cfg).encode(),
           "application/json")
    assert not at.exception and not at.error
    assert at.selectbox(key="w_track_name").value == "Restored: mine.json"
    assert landmarks(at) == [1]


@pytest.mark.parametrize(
    "cfg, fragment",
    [
        (ViewConfig(data_kind="series", landmarks=[1]), "Timeline page"),
        (ViewConfig(data_kind="track", dataset="demo-paris", landmarks=[100_000]),
         "beyond the end"),
        (ViewConfig(data_kind="track", dataset="elsewhere"), "unknown dataset"),
    ],
)
def test_bad_config_changes_nothing(mappage, cfg, fragment):
    at = mappage
    upload(at, "track_config_upload", "view.json", config_to_json(cfg).encode(),
           "application/json")
    errors = " ".join(e.value for e in at.error)
    assert fragment in errors and "Nothing was changed" in errors, errors
    assert landmarks(at) == demo_track_landmarks()
    upload(at, "track_config_upload", "x.json", b'{"format": "nope"}', "application/json")
    assert any("not a Landmark Privacy Explorer configuration" in e.value for e in at.error)


# ------------------------------------------------------------------------ responsiveness
def test_a_5000_point_track_works(mappage):
    """The largest track the page takes: reruns after changing ε and toggling a landmark
    work on every point (the server times are in benchmarks/bench_app.py)."""
    at = mappage
    upload(at, "track_upload", "big.csv", walk_csv(5000))
    assert not at.exception and not at.error
    assert at.selectbox(key="w_track_name").value == "Upload: big.csv"
    at.sidebar.number_input(key="w_epsilon").set_value(2.0).run()
    at.multiselect(key="w_track_lm_select").set_value([2500]).run()
    assert not at.exception
    assert metric(at, "Expected (2r/ε_t)") == "600 m"  # 2·100/(2/6): declared k = 5
    assert metric(at, "Published / approximated") == "5000 / 0"


def test_track_without_times_asks_for_the_sampling_interval(mappage):
    at = mappage
    rows = "\n".join(f"{48.1 + (i // 30) * 0.01:.5f},{2.1 + (i % 3) * 1e-5:.5f}"
                     for i in range(90))
    upload(at, "track_upload", "notimes.csv", ("lat,lon\n" + rows).encode())
    assert not at.exception and not at.error
    assert at.number_input(key="w_minutes_per_point").value == 1.0
    stays = [o for o in at.multiselect(key="track_candidates").options if o.startswith("Stay")]
    assert len(stays) == 3  # three places, 30 points = 29 minutes each
    # the durations are an assumption and say so (issue 25: never an unlabelled invention)
    assert all("assumed" in o and "NaT" not in o for o in stays)
    assert any("assumption, not a measurement" in i.value for i in at.info)
    at.number_input(key="w_minutes_per_point").set_value(0.5).run()
    assert not [m for m in at.multiselect if m.key == "track_candidates"]  # 14.5 min < 20
    assert any("No stay found" in c.value for c in at.caption)


# ------------------------------------------------------------------------ table edits
def test_apply_table_edits():
    from app_support.track_session import apply_table_edits

    lm = [3, 7, 9]
    assert apply_table_edits(lm, {}, 20) == ([3, 7, 9], [])
    new, notes = apply_table_edits(lm, {"edited_rows": {"1": {"keep": False}}}, 20)
    assert new == [3, 9] and not notes
    new, _ = apply_table_edits(lm, {"edited_rows": {0: {"t": 12}}, "deleted_rows": [2]}, 20)
    assert new == [7, 12]
    new, notes = apply_table_edits(lm, {"added_rows": [{"t": 15}, {"t": 99}, {"keep": True},
                                                        {"t": "x"}]}, 20)
    assert new == [3, 7, 9, 15]
    # user text is echoed in a code span (quote_user_text), not in quotes
    assert any("t=99" in n for n in notes) and any("`x`" in n for n in notes)
    new, notes = apply_table_edits(lm, {"added_rows": [{"t": "inf"}]}, 20)
    assert new == [3, 7, 9] and any("`inf`" in n and "whole number" in n for n in notes)
    # a refused value leaves its row as it was (nothing entered is lost)
    new, notes = apply_table_edits(lm, {"edited_rows": {"0": {"t": 2.5}}}, 20)
    assert new == [3, 7, 9] and notes


def test_landmark_table_is_drawn_on_request(mappage):
    """The editable landmark table is off by default (no data grid to rebuild on every
    click); its switch shows it with one row per landmark, and a landmark marked in the
    picker while it is open is a new row."""
    at = mappage
    assert not at.toggle(key="track_table_open").value
    assert not at.dataframe
    at.toggle(key="track_table_open").set_value(True).run()
    (grid,) = at.dataframe
    assert list(grid.value["t"]) == demo_track_landmarks()
    at.multiselect(key="w_track_lm_select").set_value([*demo_track_landmarks(), 100]).run()
    (grid,) = at.dataframe
    assert list(grid.value["t"]) == sorted([*demo_track_landmarks(), 100])
    at.toggle(key="track_table_open").set_value(False).run()
    assert not at.dataframe
    assert landmarks(at) == sorted([*demo_track_landmarks(), 100])


def test_a_track_with_other_column_names_gets_the_column_choice(mappage):
    """A track CSV whose coordinate columns are not recognised (issue 37 §2): the Map
    offers its columns as on the Timeline; the chosen ones load it, nothing else lost."""
    at = mappage
    at.multiselect(key="w_track_lm_select").set_value([3, 4]).run()
    rows = "".join(f"2024-05-01T08:{m:02d}:00;{48.1 + m * 1e-4};2.3\n" for m in range(30))
    upload(at, "track_upload", "field.csv", ("when;north;east\n" + rows).encode())
    assert not at.exception
    assert at.selectbox(key="w_upload_track_time_col").value == "when"
    assert at.selectbox(key="w_upload_lat_col").value == "north"
    assert at.selectbox(key="w_upload_lon_col").value == "east"
    assert landmarks(at) == [3, 4] and at.selectbox(key="w_track_name").value == DEMO
    next(b for b in at.button if b.label == "Load with these columns").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="w_track_name").value == "Upload: field.csv"
    assert "30 points" in at.caption[0].value


def test_a_bus_feed_with_named_columns_loads_on_the_map(mappage):
    path = Path(__file__).resolve().parents[1] / "data" / "real" / "gps" / "capmetro-bus-2055.csv"
    upload(mappage, "track_upload", path.name, path.read_bytes())
    assert not mappage.exception and not mappage.error, [e.value for e in mappage.error]
    assert "255 points" in mappage.caption[0].value


def test_the_point_cap_advice_fits_the_tracks_own_sampling():
    """Issue 37 §9: a daily track over the cap is told to keep one point in k at its own
    interval (one every 3 days), not 'one every 10 s'."""
    from app_support.track_session import check_track_size
    from lmdk_core.data.track import Track
    from lmdk_core.foundation.errors import InputError

    n = 12_000
    daily = Track(lat=np.full(n, 48.0), lon=np.full(n, 2.0),
                  time=np.datetime64("2000-01-01") + np.arange(n).astype("timedelta64[D]"))
    with pytest.raises(InputError, match=r"one point in 3 \(one every 3 days instead of "
                                         r"every 1 day\)"):
        check_track_size(daily)


def test_the_map_says_what_averaging_recovers_like_the_cli(mappage):
    """Issue 37 §6 on the Map: under the verdict (amber: the dense track's fixes are
    correlated), a line says what a moving average of the published track recovers —
    the figure of ``lmdk geo-release``'s ``averaging:`` line (the same function and its
    own fixed seed, so the numbers are the CLI's whatever the session's seed). Real
    dense track: GeoLife user 004's ten recordings (tests/data/real/README.md)."""
    from lmdk_core.data.track_loading import load_track
    from lmdk_core.decision.averaging import averaging_effect
    from lmdk_core.decision.comparison import track_release_fn

    path = Path(__file__).resolve().parents[1] / "data" / "real" / "gps" / \
        "geolife-user004-recordings.gpx"
    at = upload(mappage, "track_upload", path.name, path.read_bytes(), "application/gpx+xml")
    at.sidebar.number_input(key="w_epsilon").set_value(3.0).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "Landmark-private only if values were independent" in verdict_text(at)
    line = next(m.value for m in at.markdown if "Averaging consecutive points" in m.value)
    track = load_track(str(path), filename=str(path))
    eff = averaging_effect(track_release_fn(track.lat, track.lon, [], radius=100.0,
                                            max_landmarks=5), "uniform", 3.0)
    assert eff.helps and f"moving average of {eff.window} points" in line
    assert eff.sentence() in line


def test_publishable_track_files_need_a_declared_region(mappage):
    """The publishable files are an exact release on the grid of a declared region: none
    until one is declared; a malformed or too small region says what is wrong and keeps
    the text; the data's suggestion is used only through its button."""
    at = mappage
    # the built-in demo comes with its public region (Paris within 50 km): files at once
    assert at.text_input(key="map_region").value == "48.86,2.35,50"
    assert not any("Declare a region" in i.value for i in at.info)
    assert "Released track (CSV)" in [b.proto.label for b in at.get("download_button")]
    at.text_input(key="map_region").set_value("").run()
    assert any("Declare a region" in i.value for i in at.info)
    assert "Released track (CSV)" not in [b.proto.label for b in at.get("download_button")]
    at.text_input(key="map_region").set_value("48.86").run()
    assert any("Region not used" in e.value and "LAT,LON" in e.value for e in at.error)
    assert at.text_input(key="map_region").value == "48.86"
    at.text_input(key="map_region").set_value("45.0,10.0,5").run()
    assert any("beyond its radius of 5 km" in e.value for e in at.error)
    at.button(key="map_region_use").click().run()
    text = at.text_input(key="map_region").value
    assert text.startswith("48.") and not at.error
    assert not any("Declare a region" in i.value for i in at.info)


def test_a_reload_is_explained_and_the_configuration_restores_the_upload():
    """Issue 37 §9 (a reload loses the upload, the landmarks and the settings): the URL
    keeps the public settings (tests/app/test_url_state.py); raw data are kept nowhere
    outside the session, so while an uploaded track is shown the page says what a reload
    loses and how to come back — the configuration with the data restores data,
    landmarks and settings in one upload. Real file: the Cerknica GPX."""
    from lmdk_core.data.track_loading import load_track

    gpx_path = ASSETS / "sample_tracks" / "cerknicko-jezero.gpx"
    at = open_page("map", TIMEOUT)
    assert not any("A reload keeps this view" in c.value for c in at.caption)  # the demo
    upload(at, "track_upload", "lake.gpx", gpx_path.read_bytes(), "application/gpx+xml")
    at.multiselect(key="w_track_lm_select").set_value([3, 40]).run()
    note = next(c.value for c in at.caption if "A reload keeps this view" in c.value)
    assert "Configuration with the data (JSON)" in note and "landmarks" in note

    # the reload: a new session; the configuration of the view brings everything back
    track = load_track(str(gpx_path), filename="lake.gpx")
    cfg = ViewConfig(data_kind="track", dataset="embedded", data=track.table(),
                     time_kind=track.time_kind, landmarks=[3, 40], epsilon=2.0)
    fresh = open_page("map", TIMEOUT)
    assert fresh.selectbox(key="w_track_name").value == DEMO
    upload(fresh, "track_config_upload", "lake-view.json", config_to_json(cfg).encode(),
           "application/json")
    assert not fresh.exception and not fresh.error, [e.value for e in fresh.error]
    assert landmarks(fresh) == [3, 40]
    assert fresh.sidebar.number_input(key="w_epsilon").value == 2.0
    assert len(fresh.session_state["track_sets"]["Restored: lake-view.json"]) == len(track)
