"""The internal report stays small, offline and readable on a phone.

A 336-point series (two weeks of hourly values) with leakage: the report once embedded
plotly.js (4.8 MB); its charts are static SVG now, well under 1.5 MB, with no script and
no external URL. A 39-digit seed wraps (its full digits are in the page) instead of
widening the page on a 390 px screen.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from lmdk_core.files.config import ViewConfig
from lmdk_core.report import build_report

SEED_39 = 10**38 + 123456789  # 39 digits
MAX_BYTES = 1_500_000


def two_weeks_cfg(seed: int = 7) -> ViewConfig:
    t = np.arange(336)
    values = 1.0 + 0.8 * np.sin(2 * np.pi * t / 24) + 0.01 * (t % 7)
    data = {"time": [str(np.datetime64("2024-03-04T00:00") + np.timedelta64(int(h), "h"))
                     for h in t], "value": np.round(values, 3).tolist()}
    return ViewConfig(dataset="embedded", data=data, landmarks=[30, 31, 120, 250],
                      sensitivity=0.5, seed=seed)


def test_a_336_point_report_is_well_under_1_5_mb_and_fetches_nothing():
    text = build_report(two_weeks_cfg(SEED_39))
    size = len(text.encode("utf-8"))
    assert size < MAX_BYTES / 3, size  # measured ≈ 0.2 MB (was 5.0 MB with plotly.js)
    assert "<script" not in text.lower()
    # no external reference at all: no http(s) or protocol-relative URL anywhere
    assert not re.search(r"(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text), \
        re.search(r"(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text)
    assert text.count("<svg") >= 3  # budget, error, leakage


def test_the_full_long_seed_is_in_a_wrapping_element():
    text = build_report(two_weeks_cfg(SEED_39))
    assert f"<span class='longnum'>{SEED_39}</span>" in text
    assert re.search(r"\.longnum[^{]*\{[^}]*overflow-wrap: anywhere", text)


@pytest.mark.browser
def test_the_report_fits_a_phone_and_requests_nothing(tmp_path):
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

    require_chromium()
    path = tmp_path / "report.html"
    path.write_text(build_report(two_weeks_cfg(SEED_39)), encoding="utf-8")
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
        page.route("**/*", lambda r: (requests.append(r.request.url), r.continue_())
                   if r.request.url.startswith("file:") else
                   (requests.append(r.request.url), r.abort()))
        page.goto(path.as_uri())
        page.wait_for_selector("#fig-budget svg")
        scroll = page.evaluate("document.documentElement.scrollWidth")
        chart = page.locator("#fig-budget").bounding_box()  # the frame; the SVG scrolls in it
        browser.close()
    assert [u for u in requests if not u.startswith("file:")] == []
    assert scroll <= 390, scroll  # the seed wraps; nothing widens the page
    assert chart is not None and chart["width"] <= 390
