"""Real browser: click every publishable download on the Timeline and Map pages and check
the downloaded bytes for raw values, landmark times and places, and the seed."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.figures import hover_labels
from lmdk_core.files.export import time_labels
from tests.browser import wait_for_app
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


def download(page, label: str) -> tuple[str, bytes]:
    """Click the download button whose label is ``label``; (file name, bytes)."""
    button = page.locator("[data-testid=stDownloadButton] button:visible").filter(
        has_text=re.compile(rf"^(\S+\s*)?{re.escape(label)}$"))
    # on a loaded machine the page may still be drawing its lower part (seen once in a
    # full parallel run): wait for the button before counting it
    button.first.wait_for(state="visible", timeout=60_000)
    assert button.count() == 1, (label, button.count())
    try:
        with page.expect_download(timeout=30_000) as info:
            button.click()
        dl = info.value
    except PlaywrightTimeout:
        # on a loaded machine a click can land while the previous download's rerun
        # redraws the buttons; the file must come on a second click
        wait_for_app(page)
        with page.expect_download(timeout=90_000) as info:
            button.click()
        dl = info.value
    return dl.suggested_filename, open(dl.path(), "rb").read()


def landmark_labels(time, kind: str, lm: list[int]) -> set[str]:
    iso, hover = time_labels(time, kind), hover_labels(time, kind)
    return {str(iso[t]) for t in lm} | {hover[t] for t in lm} | {f"t={t}" for t in lm}


def header_of(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if ln.startswith("#"))


def test_timeline_publishable_downloads_hold_no_raw_data(app_url, page):
    s, lm = demo_series(), demo_series_landmarks()
    page.goto(app_url + "/timeline")
    wait_for_app(page)
    page.wait_for_selector("[data-testid=stDownloadButton]", timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / "timeline_downloads.png"), full_page=True)

    name, data = download(page, "Released series (CSV)")
    assert "release" in name and "CONFIDENTIAL" not in name
    text = data.decode("utf-8")
    df = pd.read_csv(io.StringIO(text), comment="#")
    assert list(df.columns) == ["time", "released"] and len(df) == len(s)
    rel = df["released"].to_numpy(dtype=float)
    head = header_of(text)
    # released values rounded as the header says (a step far below the noise: by
    # chance a rounded value may equal a raw one; the unrounded ones are checked below)
    places = int(re.search(r"rounded to (\d+) decimal places", head).group(1))
    assert "epsilon" in head and "scheme" in head and "mechanism" in head
    assert "seed" not in head.lower()
    assert "# noise: exact discrete Laplace" in head  # the publishable path is exact
    for lab in landmark_labels(s.time, s.time_kind, lm):
        assert lab not in head

    name, data = download(page, "Public release note (HTML)")
    assert "release_note" in name
    html = data.decode("utf-8")
    assert "seed" not in html.lower() and "<script" not in html.lower()
    for lab in landmark_labels(s.time, s.time_kind, lm):
        assert lab not in html
    body = re.sub(r"<style>.*</style>", "", html, flags=re.S)
    assert not {float(x) for x in re.findall(r"\d+\.\d+", body)} & {
        float(v) for v in s.values if len(f"{v:g}".replace(".", "").lstrip("0")) >= 3}

    # the confidential files sit behind their own expander, labelled as such
    expander = page.locator("[data-testid=stExpander]").filter(has_text="CONFIDENTIAL")
    assert expander.count() >= 1
    expander.first.locator("summary").click()
    name, data = download(page, "CONFIDENTIAL — Audit table (CSV)")
    assert "CONFIDENTIAL" in name and data.decode().startswith("# CONFIDENTIAL")
    audit = pd.read_csv(io.BytesIO(data), comment="#")
    np.testing.assert_allclose(audit["value"], s.values)
    unrounded = audit["released"].to_numpy(dtype=float)
    ok = ~np.isnan(unrounded)
    assert np.all(np.abs(unrounded[ok][:, None] - s.values[None, :]) > 1e-9)  # no raw value
    # the publishable file is the audit's release, rounded: post-processing only
    np.testing.assert_array_equal(np.round(unrounded, places), rel)


def test_map_publishable_downloads_hold_no_raw_track(app_url, page):
    tr, lm = demo_track(), demo_track_landmarks()
    page.goto(app_url + "/map")
    wait_for_app(page)
    # the publishable files are an exact release on a declared region's grid: declare
    # the suggested one (its button), then the download buttons appear
    page.get_by_role("button", name=re.compile("as my declared region")).click()
    page.wait_for_selector("[data-testid=stDownloadButton]", timeout=60_000)

    def no_raw_point(lat: np.ndarray, lon: np.ndarray) -> None:
        ok = ~(np.isnan(lat) | np.isnan(lon))
        same = ((np.abs(lat[ok][:, None] - tr.lat[None, :]) <= 1e-7)
                & (np.abs(lon[ok][:, None] - tr.lon[None, :]) <= 1e-7))
        assert not same.any()

    name, data = download(page, "Released track (CSV)")
    assert "release" in name and "CONFIDENTIAL" not in name
    text = data.decode("utf-8")
    df = pd.read_csv(io.StringIO(text), comment="#")
    assert list(df.columns) == ["time", "released_lat", "released_lon"]
    no_raw_point(df["released_lat"].to_numpy(float), df["released_lon"].to_numpy(float))
    for lab in landmark_labels(tr.time, tr.time_kind, lm):
        assert lab not in header_of(text)

    name, data = download(page, "Released track (GeoJSON)")
    assert "release" in name
    gj = json.loads(data)
    assert {f["properties"]["kind"] for f in gj["features"]} == {"released_path",
                                                                  "released_point"}
    assert "landmarks" not in gj["properties"] and "seed" not in gj["properties"]
    pts = np.array([f["geometry"]["coordinates"] for f in gj["features"]
                    if f["properties"]["kind"] == "released_point" and f["geometry"]])
    no_raw_point(pts[:, 1], pts[:, 0])
    # no landmark coordinate appears as a number of the file (whole tokens: a released
    # 48.8819851 legitimately starts with the digits of a landmark's 48.88198)
    numbers = set(re.findall(r"-?\d+(?:\.\d+)?", data.decode()))
    for t in lm:
        assert f"{tr.lat[t]}" not in numbers and f"{tr.lon[t]}" not in numbers

    name, data = download(page, "Public release note (HTML)")
    html = data.decode("utf-8")
    assert "seed" not in html.lower()
    assert not set(re.findall(r"\d+\.\d{4}", html)) & {
        f"{v:.4f}" for v in np.concatenate([tr.lat, tr.lon])}

    name, data = download(page, "Released track (offline map, HTML)")
    assert "release" in name and name.endswith(".html") and "CONFIDENTIAL" not in name
    html = data.decode("utf-8")
    assert "seed" not in html.lower() and "cdn." not in html
    numbers = set(re.findall(r"-?\d+\.\d+", html))
    for t in lm:  # no landmark coordinate (the original path is not on the map)
        assert f"{tr.lat[t]}" not in numbers and f"{tr.lon[t]}" not in numbers
    page.screenshot(path=str(ARTIFACTS / "map_downloads.png"), full_page=True)
