"""Real browser: what the Map page's Leaflet component does on the network and with hostile
text — checked on the running page, not by reading its JavaScript.

* Leaflet comes from the app's own server, once per page, and the map stays mounted from
  rerun to rerun (a click does not load it again or rebuild the map).
* No tile server is asked for anything until "Online map tiles" is switched on; then
  only OpenStreetMap's tile server is (its requests are intercepted here, never sent).
* A track file named like an HTML tag is shown as text: no element, no script.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.browser import free_map_point, map_landmarks, wait_for_app, wait_for_map
from tests.browser.test_browser_map import open_map, wait_landmark_count
from tests.browser.test_browser_security import LOCAL_HOSTS, external

pytestmark = pytest.mark.browser

LEAFLET_PATH = "/_stcore/bidi-components/lmdk.track_map/leaflet.js"


def test_leaflet_is_loaded_once_from_the_app_and_the_map_stays_mounted(page, app_url):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    open_map(page, app_url)
    leaflet = [u for u in requested if urlparse(u).path == LEAFLET_PATH]
    assert len(leaflet) == 1 and urlparse(leaflet[0]).hostname in LOCAL_HOSTS, leaflet
    assert page.evaluate("() => window.L.version").startswith("1.9")
    # mark the map object, click a point: the same map redraws its layers
    page.evaluate("() => { window.__lmdkTrackMap.map.__probe = 1; }")
    before = map_landmarks(page)
    t, x, y = free_map_point(page, 150, 10)
    page.mouse.click(x, y)
    wait_landmark_count(page, len(before) + 1)
    assert t in map_landmarks(page)
    assert page.evaluate("() => window.__lmdkTrackMap.map.__probe") == 1
    assert len([u for u in requested if urlparse(u).path == LEAFLET_PATH]) == 1
    assert not external(requested), external(requested)


def test_tiles_are_requested_only_when_switched_on(page, app_url):
    tiles: list[str] = []

    def intercept(route) -> None:  # recorded, never sent
        tiles.append(route.request.url)
        route.abort()

    page.route(lambda url: urlparse(url).hostname not in LOCAL_HOSTS
               and not url.startswith(("data:", "blob:")), intercept)
    open_map(page, app_url)
    page.wait_for_timeout(1500)
    assert tiles == []  # the plain offline background
    page.locator("[data-testid=stCheckbox]").filter(has_text="Online map tiles").locator(
        "label").first.click()
    page.wait_for_function("() => document.querySelectorAll('.leaflet-tile').length > 0",
                           timeout=30_000)
    page.wait_for_timeout(1000)
    hosts = {urlparse(u).hostname for u in tiles}
    assert tiles and hosts == {"tile.openstreetmap.org"}, hosts
    assert all(urlparse(u).path.endswith(".png") for u in tiles)


HOSTILE_NAME = "<img src=x onerror=document.title='pwned'>.csv"


def test_a_track_named_like_html_is_shown_as_text(page, app_url):
    open_map(page, app_url)
    title = page.title()
    page.get_by_text("Use your own track").first.click()
    rows = "".join(f"2024-03-05T08:{m:02d}:00,48.86{m:02d},2.35{m:02d}\n" for m in range(20))
    page.locator("[data-testid=stFileUploaderDropzoneInput]").first.set_input_files(
        {"name": HOSTILE_NAME, "mimeType": "text/csv",
         "buffer": ("time,lat,lon\n" + rows).encode()})
    caption = page.locator("[data-testid=stCaptionContainer]").filter(has_text="20 points")
    caption.first.wait_for(timeout=60_000)
    wait_for_app(page)
    wait_for_map(page)
    page.wait_for_function("() => window.__lmdkTrackMap.points.size === 20", timeout=30_000)
    assert "<img src=x" in caption.first.inner_text()  # the name, as text
    main = page.locator("[data-testid=stMain]")
    assert main.locator("img[src=x]").count() == 0
    assert page.title() == title and "pwned" not in page.title()
