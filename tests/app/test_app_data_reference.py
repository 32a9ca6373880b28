"""Restoring a configuration that references its data file (name + SHA-256) in the app:
the page asks for the file, refuses a different one, and restores with the right one."""

from __future__ import annotations

from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.files.data_reference import reference_config
from tests.conftest import open_page

TIMEOUT = 120
CSV = (b"time,value\n0,5.5\n1,6.25\n2,7.125\n3,30.0625\n4,6.5\n5,5.75\n6,7.375\n7,6.125\n")
TRACK = (b"time,lat,lon\n2024-05-01T08:00,48.85,2.35\n2024-05-01T08:01,48.851,2.351\n"
         b"2024-05-01T08:02,48.852,2.352\n2024-05-01T08:03,48.853,2.353\n")


def upload(at, key: str, name: str, content: bytes, mime: str):
    at.file_uploader(key=key).set_value((name, content, mime))
    return at.run()


def _config(kind: str = "series", data: bytes = CSV, name: str = "meter.csv") -> bytes:
    base = (ViewConfig(landmarks=[3], epsilon=2.0, scheme="skip", seed=7)
            if kind == "series" else
            ViewConfig(data_kind="track", landmarks=[1, 2], epsilon=2.0, radius=250.0, seed=7,
                       page="map"))
    return config_to_json(reference_config(base, name, data)).encode()


def test_timeline_asks_for_the_referenced_file_and_checks_it():
    at = open_page("timeline", TIMEOUT)
    before = at.sidebar.selectbox(key="w_series_name").value
    upload(at, "config_upload", "view.json", _config(), "application/json")
    assert not at.exception and not at.error
    assert any("meter.csv" in i.value and "SHA-256" in i.value for i in at.info)
    # a different file: refused, nothing changed
    upload(at, "series_reference_upload", "meter.csv", CSV.replace(b"6.125", b"6.126"),
           "text/csv")
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "SHA-256" in errors and "Nothing was changed" in errors
    assert at.sidebar.selectbox(key="w_series_name").value == before
    # the right file: restored with its landmarks and settings
    upload(at, "series_reference_upload", "meter.csv", CSV, "text/csv")
    assert not at.exception and not at.error
    assert at.sidebar.selectbox(key="w_series_name").value == "Restored: meter.csv"
    assert at.multiselect(key="w_lm_select").value == [3]
    assert at.sidebar.number_input(key="w_epsilon").value == 2.0


def test_timeline_uses_an_uploaded_file_with_the_same_sha256():
    at = open_page("timeline", TIMEOUT)
    upload(at, "series_upload", "meter.csv", CSV, "text/csv")
    assert at.sidebar.selectbox(key="w_series_name").value == "Upload: meter.csv"
    labels = [e.proto.label for e in at.get("download_button")]
    assert "CONFIDENTIAL — Configuration, data by reference (JSON)" in labels
    upload(at, "config_upload", "view.json", _config(), "application/json")
    assert not at.exception and not at.error
    assert not any("SHA-256" in i.value for i in at.info)  # no need to ask for the file
    assert at.multiselect(key="w_lm_select").value == [3]


def test_map_restores_a_referenced_track():
    at = open_page("map", TIMEOUT)
    upload(at, "track_config_upload", "view.json", _config("track", TRACK, "walk.csv"),
           "application/json")
    assert not at.exception and not at.error
    assert any("walk.csv" in i.value for i in at.info)
    upload(at, "track_reference_upload", "walk.csv", TRACK, "text/csv")
    assert not at.exception and not at.error
    assert at.selectbox(key="w_track_name").value == "Restored: walk.csv"
    assert at.number_input(key="w_radius").value == 250.0
