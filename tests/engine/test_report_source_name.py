"""The internal report names the uploaded file its embedded table came from (issue 37
§9: it said "embedded series" and never named the file): the pages record the upload's
name and SHA-256 as ``extra.source_file`` of the view, the report shows them. Real file:
tests/data/real/series/nile.csv (source in tests/data/real/README.md)."""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from lmdk_core.files.config import ViewConfig
from lmdk_core.foundation.errors import InputError
from lmdk_core.report import build_report, compute_report

NILE = Path(__file__).resolve().parents[1] / "data" / "real" / "series" / "nile.csv"


def nile_config(**extra) -> ViewConfig:
    df = pd.read_csv(NILE)
    return ViewConfig(dataset="embedded", data={"time": df["year"].tolist(),
                                                "value": df["volume"].astype(float).tolist()},
                      landmarks=[27], sensitivity=400.0, seed=1, extra=extra)


def test_the_report_names_the_uploaded_file():
    digest = hashlib.sha256(NILE.read_bytes()).hexdigest()
    cfg = nile_config(source_file={"name": "nile.csv", "sha256": digest})
    assert compute_report(copy.deepcopy(cfg)).data.name == "nile.csv"
    html = build_report(cfg)
    assert "Privacy report — nile.csv" in html
    assert f"the uploaded file nile.csv (SHA-256 {digest})" in html
    assert "embedded series" not in html


def test_without_a_source_the_report_says_embedded():
    html = build_report(nile_config())
    assert "embedded series" in html


@pytest.mark.parametrize("bad", ["nile.csv", {"name": "", "sha256": "ab"},
                                 {"name": "a.csv", "sha256": "ab", "path": "/x"}])
def test_a_malformed_source_is_refused(bad):
    with pytest.raises(InputError, match="extra.source_file"):
        compute_report(nile_config(source_file=bad))


def _page_config_app():  # pragma: no cover - runs inside AppTest
    import json

    import streamlit as st

    from app_support.current_data import current_data, view_config
    from app_support.download_buttons import remember_upload
    from app_support.session import add_series, init_state
    from app_support.track_session import init_track_state
    from lmdk_core.data.series import load_series_csv
    from lmdk_core.files.config import config_to_json

    init_state()
    init_track_state()  # the Map's settings (r, the grid cell size) the view records
    raw = st.session_state["nile_bytes"]
    series = load_series_csv(raw, name="nile.csv", time_col="year", value_col="volume")
    remember_upload(add_series("Upload: nile.csv", series), "nile.csv", raw)
    st.session_state["config_json"] = json.loads(
        config_to_json(view_config(current_data("series"), "timeline")))


def test_the_pages_record_the_uploaded_file_in_the_view():
    at = AppTest.from_function(_page_config_app, default_timeout=60)
    at.session_state["nile_bytes"] = NILE.read_bytes()
    at.run()
    assert not at.exception, at.exception
    cfg = at.session_state["config_json"]
    assert cfg["dataset"] == "embedded"
    assert cfg["extra"]["source_file"] == {
        "name": "nile.csv", "sha256": hashlib.sha256(NILE.read_bytes()).hexdigest()}
