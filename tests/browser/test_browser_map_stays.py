"""Real browser: on the Map page, upload a real multi-day GeoLife track
(tests/data/real/geolife/), accept every suggested stay (one landmark event each, the
default; docs/stays.md), and click a fix of an accepted stay: it is not toggled as a
landmark of its own, the page says why, and its tooltip names its stay. The page's
console stays clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import map_landmarks, wait_for_app, wait_for_map, wait_until_still
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

CSV = Path(__file__).resolve().parents[1] / "data" / "real" / "geolife" / "geolife-user004.csv"

#: a drawn point of a stay with no later (drawn on top) point within 9 px: a click on it
#: reaches that point
STAY_POINT_JS = """(stays) => {
    const st = window.__lmdkTrackMap;
    st.el.scrollIntoView({block: "center"});
    const r = st.el.getBoundingClientRect();
    const ts = [...st.points.keys()];
    const xy = ts.map((t) => {
        const p = st.map.latLngToContainerPoint(st.points.get(t).getLatLng());
        return [r.left + p.x, r.top + p.y];
    });
    for (let k = 0; k < ts.length; k++) {
        if (!stays.some(([a, b]) => a <= ts[k] && ts[k] <= b)) continue;
        const p = xy[k];
        if (p[0] < r.left + 60 || p[0] > r.right - 90 || p[1] < r.top + 90 ||
            p[1] > r.bottom - 60) continue;
        let clear = true;
        for (let j = k + 1; j < ts.length && clear; j++) {
            if (Math.hypot(p[0] - xy[j][0], p[1] - xy[j][1]) < 9) clear = false;
        }
        const hit = document.elementFromPoint(p[0], p[1]);
        if (clear && hit && hit.tagName === "CANVAS") return [ts[k], p[0], p[1]];
    }
    return null;
}"""


def test_accepted_stays_are_events_and_their_fixes_explain_a_click(app_url, page):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": 1500, "height": 1400})
    page.goto(app_url + "/?k=50")  # a declared k above the 22 stays accepted below
    wait_for_app(page)
    page.locator(".st-key-page_nav a").filter(has_text="Map").first.click()
    wait_for_map(page)
    page.get_by_text("Use your own track").click()
    page.locator('input[type="file"]').first.set_input_files(str(CSV))
    page.wait_for_function("() => document.body.innerText.includes('geolife-user004')",
                           timeout=90_000)
    wait_until_still(page, 2000, 120_000)
    page.get_by_text("Show the released points").click()  # the stays' rings in plain view
    wait_until_still(page, 1500, 120_000)
    page.get_by_role("button", name="Accept all").click()
    page.wait_for_function(
        "() => document.body.innerText.includes('22 stays (1,229 fixes) cost 22 landmark "
        "events')", timeout=90_000)
    wait_until_still(page, 2500, 120_000)
    assert map_landmarks(page) == []  # the stays' fixes are not single landmarks
    stays = [[int(v) for v in k.split("–")] for k in page.evaluate(
        "() => [...document.body.innerText.matchAll(/t=(\\d+–\\d+) \\(\\d+ fixes\\)/g)]"
        ".map((m) => m[1])")]
    assert stays
    found = page.evaluate(STAY_POINT_JS, stays)
    assert found is not None
    t, x, y = found
    page.mouse.move(x, y)
    page.locator(".leaflet-tooltip").last.wait_for(timeout=5_000)
    assert "protected as one landmark event" in page.locator(".leaflet-tooltip").last.inner_text()
    page.mouse.click(x, y)
    page.wait_for_function("() => document.body.innerText.includes('is a fix of the stay')",
                           timeout=60_000)
    wait_until_still(page, 1500, 60_000)
    assert map_landmarks(page) == []
    page.screenshot(path=str(ARTIFACTS / "map_stays_as_events.png"))
    assert errors == []
