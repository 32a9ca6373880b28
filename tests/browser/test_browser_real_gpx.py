"""Real browser: the real multi-piece GPX exports of ``tests/data/real/gps/`` uploaded on
the Map one after another; the page's console must stay clean (no uncaught exception,
no console error — Leaflet's ``_leaflet_pos`` TypeError from a resize after a map was
replaced was one, issue 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import wait_for_app, wait_for_map

pytestmark = pytest.mark.browser

GPS = Path(__file__).parents[1] / "data" / "real" / "gps"
#: multi-piece exports: MapSource (3 tracks), eTrex ACTIVE LOG (7), MapSource out of order
FILES = ["korita-zbevnica.gpx", "cerknicko-jezero.gpx", "lannion-plestin-mapsource.gpx"]
POINTS = {"korita-zbevnica.gpx": 871, "cerknicko-jezero.gpx": 296,
          "lannion-plestin-mapsource.gpx": 381}


def test_multi_piece_gpx_uploads_keep_the_console_clean(page, app_url):
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
    page.goto(app_url)  # from the root: a deep link makes Streamlit's own frontend probe
    wait_for_app(page)  # /map/_stcore/health first (two 404s that are not the app's)
    page.locator(".st-key-page_nav a").filter(has_text="Map").first.click()
    wait_for_app(page)
    wait_for_map(page)
    page.get_by_text("Use your own track").first.click()
    for name in FILES:
        page.locator("[data-testid=stFileUploaderDropzoneInput]").first.set_input_files(
            str(GPS / name))
        page.wait_for_function(
            "n => window.__lmdkTrackMap && window.__lmdkTrackMap.points &&"
            " window.__lmdkTrackMap.points.size === n", arg=POINTS[name], timeout=90_000)
        wait_for_app(page)
        # resize the window while the map is drawn: the observer must not reach a
        # removed map
        page.set_viewport_size({"width": 1200, "height": 1300})
        page.wait_for_timeout(600)
        page.set_viewport_size({"width": 1500, "height": 1400})
        page.wait_for_timeout(1200)
    page.screenshot(path="/tmp/real_gpx_map.png")
    assert not [c for c in console if "_leaflet_pos" in c or "TypeError" in c], console
    assert not console, (console, missing)
