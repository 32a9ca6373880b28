"""AppTest: on the Timeline, accepting suggested runs of readings protects each run as ONE
landmark event (docs/series-events.md) — on the real office CO₂ series
(tests/data/real/series/occupancy.csv, UCI Occupancy Detection; README there): the 134
suggested readings are 2 events, k = 2 covers them and the release is useful; protecting
each reading on its own needs k = 134 and is noise, and the advice names Skip."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.test_app_utility import utility_lines
from tests.conftest import ROOT, open_page

TIMEOUT = 120
OCCUPANCY = ROOT / "tests" / "data" / "real" / "series" / "occupancy.csv"


def click(at: AppTest, label: str) -> AppTest:
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception
    return at


def occupancy_co2() -> AppTest:
    at = open_page("timeline", TIMEOUT)
    at.file_uploader(key="series_upload").set_value(
        ("occupancy.csv", OCCUPANCY.read_bytes(), "text/csv"))
    at.run()
    at.selectbox(key="w_upload_value_col").set_value("V4").run()
    click(at, "Load with these columns")
    at.sidebar.number_input(key="w_epsilon").set_value(2.0).run()
    at.sidebar.number_input(key="w_sensitivity").set_value(10.0).run()
    at.sidebar.number_input(key="w_max_landmarks").set_value(2).run()
    assert not at.exception
    click(at, "Clear")
    return at


def test_accepted_runs_are_one_event_each_and_the_release_becomes_useful():
    at = occupancy_co2()
    click(at, "Find suggestions")
    info = " ".join(i.value for i in at.info)
    assert "134 suggested landmarks** in 2 events" in info
    # scores are capped and explained (the weekend's level shift scores far above 100σ)
    assert ">100σ" in info
    assert any("robust standard deviations" in c.value for c in at.caption)
    assert at.radio(key="w_run_mark").value == "event"
    click(at, "Accept all")
    assert len(at.multiselect(key="w_lm_select").value) >= 2  # run chips
    captions = " ".join(c.value for c in at.caption)
    assert "2 runs of readings, one landmark event each" in captions
    assert "2 landmark events in all" in captions
    assert not at.error, [e.value for e in at.error]
    lines = utility_lines(at)
    assert len(lines) == 1 and "Utility: useful" in lines[0], lines
    # the saved view keeps the runs (extra.runs), the publishable file states k = 2
    labels = [b.label for b in at.get("download_button")]
    assert "Public release note (HTML)" in labels


def test_every_reading_on_its_own_needs_k_134_and_is_noise():
    at = occupancy_co2()
    click(at, "Find suggestions")
    click(at, "Accept all")
    click(at, "Protect each reading on its own")
    # k = 2 no longer covers them: 134 landmark events
    assert any("134 landmark events are more than the declared bound k = 2" in e.value
               for e in at.error)
    at.sidebar.number_input(key="w_max_landmarks").set_value(134).run()
    assert not at.exception and not at.error
    lines = utility_lines(at)
    assert len(lines) == 1 and "Utility: not useful" in lines[0], lines
    assert "use Skip" in lines[0] and "protect each run" in lines[0]


def test_accepting_every_reading_as_a_landmark_is_a_choice():
    at = occupancy_co2()
    click(at, "Find suggestions")
    at.radio(key="w_run_mark").set_value("readings").run()
    at.sidebar.number_input(key="w_max_landmarks").set_value(134).run()
    click(at, "Accept all")
    assert not any("runs of readings, one landmark event each" in c.value
                   for c in at.caption)
    assert not at.error
