"""Real browser: user text that reaches a Streamlit element never becomes a link, an image
or a fetch. Each surface that once fetched a beacon image (a security review's attacks)
is rendered by chromium while a beacon HTTP server on 127.0.0.1 listens; the server must
receive NOTHING, the page must request no URL carrying the beacon's token, and the
payload must be on screen as text (so the surface was really drawn).

Surfaces: the matrix name of a restored configuration, an unknown
``extra.correlation.model`` in an error box, a far GPX waypoint's name in the Map's note,
GPX track names in the "separate pieces" note, a population user id in the Geometric
mechanism's error, and a raw file name inside a download button's help tooltip.
"""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest

from lmdk_core.files.config import ViewConfig, config_to_json
from tests.browser import act_until, wait_for_app, wait_for_map, wait_until_still

pytestmark = pytest.mark.browser

TOKEN = "lmdkbeacon"


class Beacon:
    """An HTTP server on 127.0.0.1 (a free port) that records every request it gets;
    it serves from a daemon thread, handles one request at a time and is shut down by
    the fixture (it also stops with the test process)."""

    def __init__(self) -> None:
        hits = self.hits = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server API
                hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.server.timeout = 1
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.2}, daemon=True)
        self.thread.start()

    def payload(self, tag: str) -> str:
        """Markdown and HTML that fetch or link if rendered: an image, a relative image
        (fetched from the app's own server), a link, an autolink, a bare URL, raw HTML."""
        u = f"{self.url}/{TOKEN}-{tag}"
        return (f"![b]({u}.png) ![r]({TOKEN}-{tag}-rel.png) [l]({u}-link) <{u}-auto> "
                f"{u}-bare <img src='{u}-html.png'>")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def beacon():
    b = Beacon()
    yield b
    b.close()


#: a JavaScript error Leaflet throws when the Map page redraws its map while a previous
#: one is still animating (unrelated to the text under test; every other error fails)
LEAFLET_REDRAW = "reading '_leaflet_pos'"


@pytest.fixture
def watched(app_url):
    """A headless chromium page and the list of every URL it requests; a JavaScript
    error on the page fails the test (except :data:`LEAFLET_REDRAW`)."""
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1400})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        requested: list[str] = []
        page.on("request", lambda r: requested.append(r.url))
        yield page, requested
        browser.close()
    assert not [e for e in errors if LEAFLET_REDRAW not in e], errors


def _no_fetch(page, requested: list[str], beacon: Beacon, shown: str) -> None:
    """Nothing reached the beacon, no request carried the token, no live link or image
    holds it, and ``shown`` is on screen as text."""
    page.wait_for_timeout(1500)
    assert beacon.hits == [], beacon.hits
    assert not [u for u in requested if TOKEN in u], [u for u in requested if TOKEN in u]
    live = page.evaluate(
        f"""() => [...document.querySelectorAll('img, a, source, image, iframe')]
              .map(e => e.getAttribute('src') || e.getAttribute('href') || '')
              .filter(s => s.includes('{TOKEN}') || s.includes('{beacon.url}'))""")
    assert live == [], live
    text = page.evaluate("() => document.body.innerText")
    assert shown in text, f"the surface was not drawn ({shown!r} not on screen)"


def _upload(page, label: str, path: Path) -> None:
    box = page.locator("[data-testid=stFileUploader]").filter(has_text=label).first
    box.locator("input[type=file]").set_input_files(str(path))
    page.wait_for_timeout(800)
    wait_for_app(page)


def _open(page, app_url: str, path: str, expander: str) -> None:
    page.goto(app_url + path)
    wait_for_app(page)
    if path == "/map":
        wait_for_map(page)
        wait_until_still(page)
    page.get_by_text(expander).first.click()
    page.wait_for_timeout(300)


def _gpx(tracks: list[tuple[str, float]], waypoint: tuple[str, float] | None) -> bytes:
    from html import escape

    body = ""
    if waypoint is not None:
        body += (f'<wpt lat="{waypoint[1]}" lon="2.35"><name>{escape(waypoint[0])}</name>'
                 "</wpt>")
    for k, (name, lat0) in enumerate(tracks):
        pts = "".join(f'<trkpt lat="{lat0 + i * 1e-4}" lon="2.35"><time>2024-03-05T0{8 + k}:'
                      f"{i:02d}:00Z</time></trkpt>" for i in range(12))
        body += f"<trk><name>{escape(name)}</name><trkseg>{pts}</trkseg></trk>"
    return (f'<?xml version="1.0"?><gpx version="1.1" creator="t" '
            f'xmlns="http://www.topografix.com/GPX/1/1">{body}</gpx>').encode()


def test_matrix_name_of_a_restored_configuration(watched, app_url, beacon, tmp_path):
    page, requested = watched
    cfg = ViewConfig(landmarks=[3], extra={"correlation": {
        "model": "matrix", "name": beacon.payload("matrix"),
        "forward": [[0.9, 0.1], [0.1, 0.9]]}})
    f = tmp_path / "view.json"
    f.write_text(config_to_json(cfg))
    _open(page, app_url, "/timeline", "Use your own data")
    _upload(page, "Configuration JSON", f)
    page.get_by_role("link", name="Leakage").first.click()  # same session, another page
    wait_for_app(page)
    _no_fetch(page, requested, beacon, f"![b]({beacon.url}/{TOKEN}-matrix.png)")
    page.screenshot(path="/tmp/security_markdown_matrix.png")


def test_unknown_correlation_model_in_an_error_box(watched, app_url, beacon, tmp_path):
    page, requested = watched
    body = json.loads(config_to_json(ViewConfig(landmarks=[3])))
    body["extra"] = {"correlation": {"model": beacon.payload("model")}}
    f = tmp_path / "view.json"
    f.write_text(json.dumps(body))
    _open(page, app_url, "/timeline", "Use your own data")
    _upload(page, "Configuration JSON", f)
    assert page.locator("[data-testid=stAlertContentError]").count() > 0
    _no_fetch(page, requested, beacon, f"![b]({beacon.url}/{TOKEN}-model.png)")


def test_far_waypoint_name_in_the_map_note(watched, app_url, beacon, tmp_path):
    page, requested = watched
    f = tmp_path / "far.gpx"
    f.write_bytes(_gpx([("walk", 48.85)], (beacon.payload("waypoint"), 40.0)))
    _open(page, app_url, "/map", "Use your own track")
    _upload(page, "Track: CSV", f)
    wait_for_map(page)
    wait_until_still(page)
    # names are cut to 40 characters in notes: the start of the payload shows
    _no_fetch(page, requested, beacon, beacon.payload("waypoint")[:30])


def test_gpx_track_names_in_the_separate_pieces_note(watched, app_url, beacon, tmp_path):
    page, requested = watched
    f = tmp_path / "pieces.gpx"
    f.write_bytes(_gpx([(beacon.payload("piece1"), 48.85), (beacon.payload("piece2"), 48.86)],
                       None))
    _open(page, app_url, "/map", "Use your own track")
    _upload(page, "Track: CSV", f)
    wait_for_map(page)
    wait_until_still(page)
    assert "separate pieces" in page.evaluate("() => document.body.innerText")
    _no_fetch(page, requested, beacon, beacon.payload("piece1")[:30])


def test_population_user_id_in_the_geometric_error(watched, app_url, beacon, tmp_path):
    page, requested = watched
    u = f"{beacon.url}/{TOKEN}-user"
    uid = f"![b]({u}.png) [l]({u}-link) {u}-bare"  # an id has at most 256 characters
    rows = "".join(f'"{uid}",{t},{1.5 + t}\n' for t in range(4))
    f = tmp_path / "pop.csv"
    f.write_text("user,time,value\n" + rows)
    page.goto(app_url + "/population")
    wait_for_app(page)
    side = page.locator("[data-testid=stSidebar]")
    side.get_by_text("Geometric (counts)").click()
    wait_for_app(page)
    page.get_by_text("Upload a long table").first.click()
    wait_for_app(page)
    _upload(page, "Long table", f)
    page.get_by_role("spinbutton", name="Declared Δf (series)").fill("1")
    page.get_by_role("button", name="Load this population").click()
    page.wait_for_timeout(800)
    wait_for_app(page)
    assert "geometric mechanism is for whole numbers" in page.evaluate(
        "() => document.body.innerText")
    # user ids are cut to 40 characters in messages: the start of the payload shows
    _no_fetch(page, requested, beacon, uid[:30])


def test_raw_file_name_in_a_help_tooltip(watched, app_url, beacon, tmp_path):
    """A file name cannot hold '//': its payload is a relative image (fetched from the
    app's own server if rendered), caught by the request listener."""
    page, requested = watched
    name = f"![r]({TOKEN}-file.png) [l]({TOKEN}-file-link).csv"
    f = tmp_path / name
    f.write_text("time,value\n" + "".join(f"{t},{t % 5}\n" for t in range(30)))
    _open(page, app_url, "/timeline", "Use your own data")
    _upload(page, "Series CSV", f)
    # the upload's rerun redraws the page; an expander opened before it settles can be
    # drawn closed again (a loaded CI machine once never showed the button), so wait for
    # the page to be still, then open the expander until its button is there
    wait_until_still(page, 800, 120_000)
    expander = page.locator("[data-testid=stExpander]").filter(
        has_text="audit files, configuration, internal report").first
    button = page.locator("[data-testid=stDownloadButton]").filter(
        has_text="data by reference").first
    def open_expander() -> None:
        if expander.locator("details:not([open])").count():
            expander.locator("summary").first.click()

    act_until(open_expander, lambda: button.wait_for(state="visible", timeout=20_000),
              attempts=5)
    # a hover whose element a late redraw replaced shows no tooltip (the mouse did not
    # move again): the mouse leaves and comes back until the tooltip is drawn
    icon = button.locator(
        "[data-testid=stTooltipIcon], [data-testid=stTooltipHoverTarget]").first

    def hover() -> None:
        page.mouse.move(0, 0)
        icon.hover(timeout=60_000)

    act_until(hover, lambda: page.wait_for_selector("[data-testid=stTooltipContent]",
                                                    timeout=15_000), attempts=5)
    tip = page.locator("[data-testid=stTooltipContent]").first.inner_text()
    assert f"{TOKEN}-file.png" in tip, tip
    page.screenshot(path="/tmp/security_markdown_tooltip.png")
    _no_fetch(page, requested, beacon, f"{TOKEN}-file.png")
