"""Real browser: nothing leaves the machine (every request of every page goes to the app's
own server or is a data: URL), and a GPX waypoint named like an HTML tag does not run
script when its tooltip opens on the Map page."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.app.test_security import INJECTION, gpx_with_waypoint
from tests.browser import act_until, wait_for_app, wait_for_map, wait_until_still
from tests.browser.test_browser_map import open_map

pytestmark = pytest.mark.browser

PAGES = ["", "/learn", "/timeline", "/map", "/compare", "/leakage", "/dummies"]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}


def external(urls: list[str]) -> list[str]:
    """The URLs that would leave the machine."""
    out = []
    for u in urls:
        p = urlparse(u)
        if p.scheme in ("data", "blob", "about", "chrome-extension"):
            continue
        if p.hostname not in LOCAL_HOSTS:
            out.append(u)
    return out


def test_no_page_requests_anything_outside_the_machine(page, app_url):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    for path in PAGES:
        page.goto(app_url + path)
        wait_for_app(page)
        page.wait_for_timeout(1500)
    assert requested, "the pages made no request at all"
    assert not external(requested), external(requested)
    icons = page.eval_on_selector_all("link[rel*=icon]", "els => els.map(e => e.href)")
    assert icons and not external(icons), icons


def test_map_tooltip_of_a_hostile_waypoint_runs_no_script(page, app_url, tmp_path):
    gpx = tmp_path / "hostile.gpx"
    gpx.write_bytes(gpx_with_waypoint(INJECTION))
    open_map(page, app_url)
    # the map's first messages can rerun the page: act once it is still (a loaded CI
    # machine once never showed the uploaded track), and give the file again if the
    # page has not taken it after a minute, as a person would
    wait_until_still(page, 800, 120_000)
    title = page.title()
    page.get_by_text("Use your own track").first.click()
    taken = ("() => [...document.querySelectorAll('p')].some(p => p.innerText.trim() === "
             "'Landmarks (0)')")
    act_until(lambda: page.locator("[data-testid=stFileUploaderDropzoneInput]").first
              .set_input_files(str(gpx)),
              lambda: page.wait_for_function(taken, timeout=60_000))
    wait_for_app(page)
    wait_for_map(page)
    # the map draws the uploaded track (20 points) with its waypoint
    page.wait_for_function("() => window.__lmdkTrackMap.points.size === 20", timeout=30_000)
    # open every tooltip of the map (the waypoint's among them)
    opened = page.evaluate(
        """() => { let n = 0;
          window.__lmdkTrackMap.map.eachLayer(l => {
            if (l.getTooltip && l.getTooltip()) { l.openTooltip(); n += 1; } });
          return n; }""")
    assert opened > 0
    page.wait_for_timeout(1000)
    texts = page.locator(".leaflet-tooltip").all_inner_texts()
    assert any("<img src=x" in t for t in texts), texts  # shown as text
    assert page.locator(".leaflet-tooltip img").count() == 0
    assert page.title() == title and "pwned" not in page.title()
    page.screenshot(path="/tmp/security_map_tooltip.png")


def test_the_privacy_report_opens_offline(page, tmp_path):
    from lmdk_core.files.config import ViewConfig
    from lmdk_core.report import build_report

    for k, cfg in enumerate((ViewConfig(), ViewConfig(data_kind="track", dataset="demo-paris",
                                                      landmarks=[5]))):
        path = tmp_path / f"report{k}.html"
        path.write_text(build_report(cfg), encoding="utf-8")
        requested: list[str] = []
        page.on("request", lambda r, acc=requested: acc.append(r.url))
        page.goto(path.as_uri())
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1000)
        leaving = [u for u in requested if not u.startswith("file:") and external([u])]
        assert not leaving, leaving
