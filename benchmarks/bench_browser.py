"""Responsiveness in a real browser: Playwright + Debian's chromium against
``streamlit run app.py``, 1440×900.

Each action is timed from the input event (click, key press, mouse-up, navigation) until
the rerun it triggered has finished *and* Streamlit's status widget ("Running…",
``[data-testid=stStatusWidget]``) is gone; it starts once the page shows the result of
the previous action (its run finished and its charts drawn, as a person sees the page
before using it): the end of a rerun is read from the websocket
(the ``script_finished`` ForwardMsg, fragment runs included), so an action that starts
no rerun at all is reported as lost instead of being timed as instantly done. Every
repetition makes a new state (a new point, region or value: Streamlit sends a message
it sent before as a reference only, which would hide its size). Medians
and maxima of ``--reps`` repetitions (fewer when one action takes longer than
``--budget`` seconds in all). Also prints the bytes Streamlit sends per rerun (websocket
frames received by the page) for a 20,000-point series on the Timeline and a
5,000-point track on the Map.

Actions (demo data unless stated):

* Timeline: click a point / box-select / ε step / scheme change; with an uploaded
  2,000-row series: click / box-select / scheme change;
* Map: click a track point (toggle) / ε step / radius step / scheme change;
* Learn: one slider step; Leakage: one step of the correlation-strength slider;
  Dummy landmarks: a change of the metric;
* Compare: first open (from Home) / add a scheme / switch to the trajectory (fresh
  session each time, before any sweep);
* deep link ``/timeline``, ``/map`` first load (fresh browser context each time);
* with an uploaded 20,000-point series: Compare and Leakage first view (fresh session
  each time), an ε step on Compare, a correlation-strength step on Leakage.

``foliumvs`` (not in the default run): the Map page as it is (the Leaflet component)
against the same page with its map drawn by streamlit-folium
(``benchmarks/folium_map_app.py``, a second server), on the demo track and on an
uploaded 5,000-point track: click a point, ε step, radius step, scheme; the two are
interleaved action by action (component, folium, component, …) and the medians, their
difference and their ratio are printed.

Run: python benchmarks/bench_browser.py [--reps 5] [--port 8621] [--only timeline,map]
(``uptime`` is printed first: other processes on the machine slow every figure down.)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np
from playwright.sync_api import Page, sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser import (  # noqa: E402 - the app server and chromium of the browser tests
    CHROMIUM,
    CHROMIUM_ARGS,
    free_map_point,
    streamlit_server,
    wait_for_map,
)

VIEWPORT = {"width": 1440, "height": 900}



# ---------------------------------------------------------------- reruns on the wire
class Wire:
    """Counts finished script runs and received bytes on a page's Streamlit websocket."""

    def __init__(self, page: Page):
        self.finished = 0
        self.bytes = 0
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        if "_stcore/stream" in ws.url:
            ws.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        data = payload if isinstance(payload, bytes) else payload.encode()
        self.bytes += len(data)
        try:
            msg = ForwardMsg.FromString(data)
        except Exception:  # noqa: BLE001 - not a ForwardMsg: only counted
            return
        if msg.WhichOneof("type") == "script_finished":
            self.finished += 1


class Lost(Exception):
    """The action started no rerun."""


def status_gone(page: Page, timeout_ms: float = 300_000) -> None:
    page.wait_for_function("() => !document.querySelector('[data-testid=stStatusWidget]')",
                           timeout=timeout_ms, polling=10)


def wait_rerun(page: Page, wire: Wire, before: int, start_timeout: float = 15.0) -> float:
    """Wait for the reruns started after the counter was ``before`` to finish and the
    status widget to be gone; returns that moment (perf_counter). Chained reruns (a
    callback that reruns again) are followed."""
    t_start = time.perf_counter()
    while wire.finished <= before:
        if time.perf_counter() - t_start > start_timeout and not page.locator(
                "[data-testid=stStatusWidget]").count():
            raise Lost
        page.wait_for_timeout(5)
    while True:
        status_gone(page)
        end = time.perf_counter()
        seen = wire.finished
        page.wait_for_timeout(150)  # a chained rerun would start now
        if wire.finished == seen and not page.locator("[data-testid=stStatusWidget]").count():
            return end


def settle(page: Page) -> None:
    page.wait_for_selector("[data-testid=stApp]", timeout=60_000)
    page.wait_for_timeout(300)
    status_gone(page)
    page.wait_for_timeout(300)
    status_gone(page)


def timed(page: Page, wire: Wire, action: Callable[[], None]) -> tuple[float, int]:
    """(seconds from the input event to idle, bytes received meanwhile)."""
    before, b0 = wire.finished, wire.bytes
    t0 = time.perf_counter()
    action()
    end = wait_rerun(page, wire, before)
    return end - t0, wire.bytes - b0


# ---------------------------------------------------------------- widgets
def number_step(page: Page, label: str, up: bool) -> Callable[[], None]:
    box = page.locator("[data-testid=stNumberInput]").filter(has_text=label).first
    btn = box.locator("[data-testid=stNumberInputStepUp]" if up else
                      "[data-testid=stNumberInputStepDown]")
    return lambda: btn.click()


def select_option(page: Page, label: str, option: str) -> Callable[[], None]:
    """Open the selectbox (not timed) and return the click on the option (timed)."""
    page.locator("[data-testid=stSelectbox]").filter(has_text=label).first.click()
    opt = page.locator("[role=option]").filter(has_text=option).first
    opt.wait_for(timeout=10_000)
    return lambda: opt.click()


def other_scheme(page: Page) -> Callable[[], None]:
    """Switch the budget scheme between Skip and Uniform (whichever is not selected)."""
    box = page.locator("[data-testid=stSelectbox]").filter(has_text="Budget scheme").first
    current = box.locator("input").first.input_value()
    return select_option(page, "Budget scheme", "Uniform" if current == "Skip" else "Skip")


def slider_key(page: Page, label: str | None, key: str, nth: int = 0) -> Callable[[], None]:
    sliders = page.locator("[data-testid=stSlider]")
    if label:
        sliders = sliders.filter(has_text=label)
    thumb = sliders.nth(nth).locator("input[type=range], [role=slider]").first
    thumb.focus()
    return lambda: thumb.press(key)


def landmark_text(page: Page) -> str:
    """The landmark count label and chips (what a click or a box must change)."""
    return " ".join(page.locator("[data-testid=stMultiSelect]").first.all_inner_texts()) \
        + " ".join(page.locator("p").filter(has_text="Landmarks (").all_inner_texts())


def nav_link(page: Page, title: str):
    return page.locator(".st-key-page_nav a").filter(has_text=title).first


def open_page(page: Page, url: str, path: str) -> None:
    page.goto(url + path)
    settle(page)


def upload(page: Page, wire: Wire, path: Path, nth: int = 0) -> None:
    """Upload ``path`` through the ``nth`` file uploader and wait for its rerun. Playwright
    sets the file on the hidden input; when that lands while the page is still being
    drawn, the uploader sometimes never sees it (one in a few fresh sessions here), so a
    lost upload is tried once more."""
    for attempt in (1, 2):
        before = wire.finished
        page.locator("[data-testid=stFileUploader] input[type=file]").nth(
            nth).set_input_files(str(path))
        try:
            wait_rerun(page, wire, before, start_timeout=20 if attempt == 1 else 60)
            break
        except Lost:
            if attempt == 2:
                raise
            page.wait_for_timeout(1000)
    settle(page)


# ---------------------------------------------------------------- chart gestures
def chart_points(page: Page):
    """The clickable points of the Timeline's original series (SVG scatter)."""
    return page.locator(".js-plotly-plot .scatterlayer .trace").first.locator("path.point")


def click_point(page: Page, k: int) -> Callable[[], None]:
    pt = chart_points(page).nth(k)
    pt.wait_for(timeout=30_000)
    return lambda: pt.click(force=True)


def box_select(page: Page, lo: float, hi: float) -> Callable[[], None]:
    """Choose the box tool (not timed); the drag over [lo, hi] of the top panel's width
    is the timed action (the mouse-up sends the selection)."""
    chart = page.locator(".js-plotly-plot").first
    chart.hover()
    page.locator(".modebar-btn[data-title='Box Select']").first.click(force=True)
    drag = chart.locator(".nsewdrag").first
    bb = drag.bounding_box()
    x0, x1 = bb["x"] + lo * bb["width"], bb["x"] + hi * bb["width"]
    y0, y1 = bb["y"] + 0.05 * bb["height"], bb["y"] + 0.95 * bb["height"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)

    def up() -> None:
        page.mouse.up()
    return up


def map_point_click(page: Page, start: int = 150, gap: float = 10) -> Callable[[], None]:
    """A click on the first free track point of the map (from the ``start``-th; no other
    point within ``gap`` px: on a dense track, any point it toggles will do)."""
    wait_for_map(page)
    _, x, y = free_map_point(page, start, gap)
    return lambda: page.mouse.click(x, y)


FOLIUM_FREE_POINT = r"""([start, gap]) => {
    // the t-th track point of streamlit-folium's map that is not a landmark, has no other
    // track point within gap px and no released point or landmark within 7 px
    const map = window.map;
    if (!map) return null;
    const tracks = [], others = [], marked = new Set();
    for (const l of Object.values(map._layers)) {
        if (!(l instanceof L.CircleMarker) || l instanceof L.Circle) continue;
        const tip = l.getTooltip() ? String(l.getTooltip().getContent())
            .replace(/<[^>]*>/g, "").trim() : "";
        const m = /^t=(\d+) /.exec(tip);
        const p = map.latLngToContainerPoint(l.getLatLng());
        if (m && !tip.includes("landmark")) tracks.push([+m[1], p.x, p.y]);
        else { others.push([p.x, p.y]); if (m) marked.add(+m[1]); }
    }
    tracks.sort((a, b) => a[0] - b[0]);
    const size = map.getSize();
    const near = (p, q, d) => Math.hypot(p[1] - q[0], p[2] - q[1]) < d;
    for (const p of tracks.slice(start).concat(tracks.slice(0, start))) {
        if (marked.has(p[0]) || p[1] < 10 || p[2] < 10 || p[1] > size.x - 10
            || p[2] > size.y - 10) continue;
        if (others.some(q => near(p, q, 7))) continue;
        if (gap > 0 && tracks.some(q => q !== p && near(p, [q[1], q[2]], gap))) continue;
        return p;
    }
    return null;
}"""


def folium_frame(page: Page, timeout_ms: float = 60_000):
    """The iframe of streamlit-folium's map, once its track points are drawn."""
    deadline = time.perf_counter() + timeout_ms / 1000
    while time.perf_counter() < deadline:
        for frame in page.frames:
            if "streamlit_folium" in frame.url and frame.evaluate(
                    "() => !!(window.map && Object.keys(window.map._layers).length > 50)"):
                return frame
        page.wait_for_timeout(100)
    raise RuntimeError("streamlit-folium's map did not draw")


def folium_point_click(page: Page, start: int = 150, gap: float = 10) -> Callable[[], None]:
    """:func:`map_point_click` on the streamlit-folium variant of the Map page."""
    frame = folium_frame(page)
    frame.frame_element().scroll_into_view_if_needed()
    found = frame.evaluate(FOLIUM_FREE_POINT, [start, gap])
    if found is None:
        raise RuntimeError("no free track point to click on the folium map")
    box = frame.frame_element().bounding_box()
    x, y = box["x"] + found[1], box["y"] + found[2]
    return lambda: page.mouse.click(x, y)


# ---------------------------------------------------------------- data files
def series_csv(n: int, folder: Path) -> Path:
    rng = np.random.default_rng(7)
    t = np.arange(n)
    v = 2 + np.sin(2 * np.pi * t / 24) + rng.normal(0, 0.3, n)
    v[rng.choice(n, max(1, n // 400), replace=False)] += 6  # spikes
    path = folder / f"series_{n}.csv"
    path.write_text("time,value\n" + "".join(f"{a},{b:.3f}\n" for a, b in zip(t, v,
                                                                               strict=True)))
    return path


def track_csv(n: int, folder: Path) -> Path:
    rng = np.random.default_rng(11)
    steps = rng.normal(0, 0.0004, (n, 2)).cumsum(axis=0)
    lat, lon = 48.86 + steps[:, 0], 2.35 + steps[:, 1]
    start = np.datetime64("2024-03-05T00:00:00")
    times = start + np.arange(n) * np.timedelta64(15, "s")
    path = folder / f"track_{n}.csv"
    path.write_text("time,lat,lon\n" + "".join(
        f"{str(tm)},{a:.6f},{b:.6f}\n" for tm, a, b in zip(times, lat, lon, strict=True)))
    return path


# ---------------------------------------------------------------- the run
class Bench:
    def __init__(self, url: str, browser, reps: int, budget: float):
        self.url, self.browser, self.reps, self.budget = url, browser, reps, budget
        self.rows: list[tuple[str, list[float], int, int]] = []  # name, times, lost, bytes
        self.bytes_rows: list[tuple[str, float, float]] = []

    def session(self) -> tuple[Page, Wire]:
        ctx = self.browser.new_context(viewport=VIEWPORT)
        page = ctx.new_page()
        return page, Wire(page)

    def measure(self, name: str, page: Page, wire: Wire,
                prepare: Callable[[int], Callable[[], None]],
                after: Callable[[int], None] | None = None,
                effect: Callable[[], str] | None = None) -> list[int]:
        """Repeat: ``prepare(i)`` (not timed) returns the action to time. With
        ``effect`` (a snapshot of what the action must change, e.g. the landmark list),
        a rerun that changed nothing counts as lost, not as a fast answer."""
        times, lost, sizes = [], 0, []
        spent = 0.0
        for i in range(self.reps):
            try:
                action = prepare(i)
                snap = effect() if effect else None
                dt, nbytes = timed(page, wire, action)
                if effect and effect() == snap:
                    raise Lost
            except Lost:
                lost += 1
                settle(page)
                continue
            times.append(dt)
            sizes.append(nbytes)
            spent += dt
            if after:
                after(i)
            settle(page)
            if spent > self.budget and len(times) >= 1:
                break
        med_bytes = int(statistics.median(sizes)) if sizes else 0
        self.rows.append((name, times, lost, med_bytes))
        fmt = (f"median {statistics.median(times):6.2f} s  max {max(times):6.2f} s"
               if times else "no rerun")
        print(f"  {name:<46} {fmt}  n={len(times)} lost={lost}  "
              f"{med_bytes / 1e3:,.0f} kB/rerun", flush=True)
        return sizes

    def fresh(self, name: str, run: Callable[[Page, Wire], tuple[float, int]]) -> None:
        """Repeat ``run`` in a fresh browser context each time."""
        times, sizes, spent = [], [], 0.0
        for _ in range(self.reps):
            page, wire = self.session()
            try:
                dt, nbytes = run(page, wire)
            finally:
                page.context.close()
            times.append(dt)
            sizes.append(nbytes)
            spent += dt
            if spent > self.budget:
                break
        med_bytes = int(statistics.median(sizes))
        self.rows.append((name, times, 0, med_bytes))
        print(f"  {name:<46} median {statistics.median(times):6.2f} s  max "
              f"{max(times):6.2f} s  n={len(times)}  {med_bytes / 1e3:,.0f} kB", flush=True)

    # -------------------------------------------------------- scenarios
    def timeline(self, tmp: Path) -> None:
        page, wire = self.session()
        open_page(page, self.url, "/timeline")
        chart_points(page).first.wait_for(timeout=60_000)
        page.wait_for_timeout(1500)  # plotly binds its click handlers after drawing
        lms = lambda: landmark_text(page)  # noqa: E731
        self.measure("Timeline (demo): click a point", page, wire,
                     lambda i: click_point(page, 10 + 3 * i), effect=lms)
        self.measure("Timeline (demo): box-select", page, wire,
                     lambda i: box_select(page, 0.05 + 0.12 * i, 0.12 + 0.12 * i),
                     effect=lms)
        self.measure("Timeline (demo): ε step", page, wire,
                     lambda i: number_step(page, "Total privacy budget", True))
        self.measure("Timeline (demo): scheme", page, wire,
                     lambda i: other_scheme(page))
        # a 2,000-row upload
        upload(page, wire, series_csv(2000, tmp))
        chart_points(page).first.wait_for(timeout=60_000)
        page.wait_for_timeout(1500)
        # plotly draws every 4th marker of 2,000 (MARKERS_MAX_DISPLAYED): the k-th drawn
        # point is about t = 4k
        self.measure("Timeline (2,000 rows): click a point", page, wire,
                     lambda i: click_point(page, 120 + 2 * i), effect=lms)
        self.measure("Timeline (2,000 rows): box-select", page, wire,
                     lambda i: box_select(page, 0.05 + 0.12 * i, 0.12 + 0.12 * i),
                     effect=lms)
        self.measure("Timeline (2,000 rows): scheme", page, wire,
                     lambda i: other_scheme(page))
        page.context.close()

    def map(self) -> None:
        page, wire = self.session()
        open_page(page, self.url, "/map")
        wait_for_map(page)
        page.wait_for_timeout(500)
        self.measure("Map (demo): click a point (toggle)", page, wire,
                     lambda i: map_point_click(page), effect=lambda: landmark_text(page))
        self.measure("Map (demo): ε step", page, wire,
                     lambda i: number_step(page, "Total privacy budget", True))
        self.measure("Map (demo): radius step", page, wire,
                     lambda i: number_step(page, "Protection radius", True))
        self.measure("Map (demo): scheme", page, wire,
                     lambda i: other_scheme(page))
        page.context.close()

    def learn(self) -> None:
        page, wire = self.session()
        open_page(page, self.url, "/learn")
        self.measure("Learn: a slider step", page, wire,
                     lambda i: slider_key(page, None, "ArrowRight" if i % 2 == 0
                                          else "ArrowLeft", nth=1))
        page.context.close()

    def leakage_dummies(self) -> None:
        page, wire = self.session()
        open_page(page, self.url, "/leakage")
        self.measure("Leakage: correlation-strength step", page, wire,
                     lambda i: slider_key(page, "strong ←", "ArrowRight" if i % 2 == 0
                                          else "ArrowLeft"))
        open_page(page, self.url, "/dummies")
        self.measure("Dummy landmarks: metric change", page, wire,
                     lambda i: select_option(page, "Metric", "nearest" if i % 2 == 0
                                             else "Spread"))
        page.context.close()

    def compare(self) -> None:
        def first_open(page: Page, wire: Wire) -> tuple[float, int]:
            open_page(page, self.url, "/")
            link = nav_link(page, "Compare")
            return timed(page, wire, lambda: link.click())
        self.fresh("Compare: first open (from Home)", first_open)

        def loaded(page: Page, wire: Wire) -> None:
            """Wait until the page's first run has finished and its side-by-side chart is
            drawn, as a user sees the page before using it. ``settle`` alone looks at
            the status widget only, which a short first run never shows, and plotly
            draws after the run (in a fresh page it first loads and compiles its 4.7 MB
            bundle, ~1 s of the browser's main thread): a click before that waited for
            the first page (and its run finished after the click, counted as a rerun)."""
            t0 = time.perf_counter()
            while wire.finished < 1 and time.perf_counter() - t0 < 60:
                page.wait_for_timeout(10)
            page.locator("[data-testid=stPlotlyChart] .main-svg").first.wait_for(
                timeout=60_000)
            page.wait_for_timeout(1000)  # plotly draws each new chart twice
            settle(page)

        page, wire = self.session()
        open_page(page, self.url, "/compare")
        loaded(page, wire)

        def add(i: int) -> Callable[[], None]:
            box = page.locator("[data-testid=stMultiSelect]").filter(has_text="Schemes").first
            box.locator("input").first.click()
            opt = page.locator("[role=option]").filter(has_text="Event-level").first
            opt.wait_for(timeout=10_000)
            return lambda: opt.click()

        def remove(i: int) -> None:
            settle(page)
            page.keyboard.press("Escape")
            box = page.locator("[data-testid=stMultiSelect]").filter(has_text="Schemes").first
            box.locator("input").first.click()
            before = wire.finished
            page.keyboard.press("Backspace")  # removes the last chip: the one just added
            page.keyboard.press("Escape")
            wait_rerun(page, wire, before)
        self.measure("Compare: add a scheme", page, wire, add, after=remove)
        page.context.close()

        def to_track(page: Page, wire: Wire) -> tuple[float, int]:
            open_page(page, self.url, "/compare")
            loaded(page, wire)
            radio = page.locator("[data-testid=stRadio] label").filter(
                has_text="Trajectory").first
            return timed(page, wire, lambda: radio.click())
        self.fresh("Compare: switch to the trajectory", to_track)

    def deep_links(self) -> None:
        for path in ("/timeline", "/map"):
            def load(page: Page, wire: Wire, path: str = path) -> tuple[float, int]:
                return timed(page, wire, lambda: page.goto(self.url + path))
            self.fresh(f"deep link {path}: first load", load)

    def payloads(self, tmp: Path) -> None:
        page, wire = self.session()
        open_page(page, self.url, "/timeline")
        upload(page, wire, series_csv(20_000, tmp))
        sizes = self.measure("Timeline (20,000 points): ε step", page, wire,
                             lambda i: number_step(page, "Total privacy budget", True))
        self.bytes_rows.append(("Timeline, 20,000 points, ε step",
                                statistics.median(sizes), max(sizes)))
        page.context.close()
        page, wire = self.session()
        open_page(page, self.url, "/map")
        upload(page, wire, track_csv(5000, tmp))
        sizes = self.measure("Map (5,000 points): ε step", page, wire,
                             lambda i: number_step(page, "Total privacy budget", True))
        self.bytes_rows.append(("Map, 5,000 points, ε step", statistics.median(sizes),
                                max(sizes)))
        self.measure("Map (5,000 points): click a point (toggle)", page, wire,
                     lambda i: map_point_click(page, 300 + 40 * i, gap=0),
                     effect=lambda: landmark_text(page))
        page.context.close()

    def large(self, tmp: Path) -> None:
        """Compare and Leakage on a 20,000-point series (uploaded on the Timeline): the
        first view of each page (a fresh session every time, so nothing is cached yet),
        then an ε step on Compare and a correlation-strength step on Leakage."""
        csv = series_csv(20_000, tmp)

        def first_view(title: str) -> Callable[[Page, Wire], tuple[float, int]]:
            def run(page: Page, wire: Wire) -> tuple[float, int]:
                open_page(page, self.url, "/timeline")
                upload(page, wire, csv)
                link = nav_link(page, title)
                return timed(page, wire, lambda: link.click())
            return run

        self.fresh("Compare (20,000 points): first view", first_view("Compare"))
        self.fresh("Leakage (20,000 points): first view", first_view("Leakage"))
        page, wire = self.session()
        open_page(page, self.url, "/timeline")
        upload(page, wire, csv)
        nav_link(page, "Compare").click()
        settle(page)
        sizes = self.measure("Compare (20,000 points): ε step", page, wire,
                             lambda i: number_step(page, "Total privacy budget", i % 2 == 0))
        self.bytes_rows.append(("Compare, 20,000 points, ε step", statistics.median(sizes),
                                max(sizes)))
        nav_link(page, "Leakage").click()
        settle(page)
        sizes = self.measure("Leakage (20,000 points): correlation step", page, wire,
                             lambda i: slider_key(page, "strong ←", "ArrowRight" if i % 2 == 0
                                                  else "ArrowLeft"))
        self.bytes_rows.append(("Leakage, 20,000 points, correlation step",
                                statistics.median(sizes), max(sizes)))
        page.context.close()

    def folium_vs(self, tmp: Path, folium_url: str) -> None:
        """The Map page's Leaflet component against streamlit-folium (the same page,
        ``benchmarks/folium_map_app.py``), interleaved: each repetition times the action
        on the component's page, then on folium's, so both see the same load."""
        variants = {}
        for which, url, path in (("component", self.url, "/map"),
                                 ("folium", folium_url, "/")):
            page, wire = self.session()
            open_page(page, url, path)
            variants[which] = (page, wire)

        def ready(which: str) -> None:
            page = variants[which][0]
            if which == "component":
                wait_for_map(page)
            else:
                folium_frame(page)
            page.wait_for_timeout(500)

        def click(which: str, start: int, gap: float) -> Callable[[int], Callable[[], None]]:
            page = variants[which][0]
            if which == "component":
                return lambda i: map_point_click(page, start + 40 * i, gap)
            return lambda i: folium_point_click(page, start + 40 * i, gap)

        def run(track: str, start: int, gap: float) -> None:
            for w in variants:
                ready(w)
            actions = [
                ("click a point (toggle)", lambda w: click(w, start, gap),
                 lambda w: (lambda: landmark_text(variants[w][0]))),
                ("ε step", lambda w: (lambda i: number_step(
                    variants[w][0], "Total privacy budget", i % 2 == 0)), lambda w: None),
                ("radius step", lambda w: (lambda i: number_step(
                    variants[w][0], "Protection radius", i % 2 == 0)), lambda w: None),
                ("scheme", lambda w: (lambda i: other_scheme(variants[w][0])),
                 lambda w: None),
            ]
            for action, prepare, effect in actions:
                times: dict[str, list[float]] = {w: [] for w in variants}
                lost = dict.fromkeys(variants, 0)
                for i in range(self.reps):
                    for w, (page, wire) in variants.items():
                        try:
                            act = prepare(w)(i)
                            snap_of = effect(w)
                            snap = snap_of() if snap_of else None
                            dt, _ = timed(page, wire, act)
                            if snap_of and snap_of() == snap:
                                raise Lost
                            times[w].append(dt)
                        except Lost:
                            lost[w] += 1
                        settle(page)
                        ready(w)
                for w in variants:
                    name = f"Map ({track}), {w}: {action}"
                    self.rows.append((name, times[w], lost[w], 0))
                c, f = times["component"], times["folium"]
                if c and f:
                    mc, mf = statistics.median(c), statistics.median(f)
                    print(f"  {track:<14} {action:<24} component {mc:5.2f} s  folium "
                          f"{mf:5.2f} s  difference {mf - mc:+5.2f} s  ratio {mf / mc:4.2f}"
                          f"  (n={len(c)}/{len(f)}, lost {lost['component']}/"
                          f"{lost['folium']})", flush=True)
                else:
                    print(f"  {track:<14} {action:<24} no rerun (lost {lost})", flush=True)

        run("demo", 150, 10)
        csv = track_csv(5000, tmp)
        for page, wire in variants.values():
            upload(page, wire, csv)
        run("5,000 points", 300, 0)
        for page, _ in variants.values():
            page.context.close()

    def table(self) -> None:
        print("\n| action | median | max | n |")
        print("|---|---|---|---|")
        for name, times, lost, _ in self.rows:
            if times:
                extra = f" ({lost} of {len(times) + lost} lost)" if lost else ""
                print(f"| {name} | {statistics.median(times):.2f} s | {max(times):.2f} s | "
                      f"{len(times)}{extra} |")
            else:
                print(f"| {name} | no rerun | — | 0 ({lost} lost) |")
        if self.bytes_rows:
            print("\n| bytes sent per rerun | median | max |")
            print("|---|---|---|")
            for name, med, mx in self.bytes_rows:
                print(f"| {name} | {med / 1e6:.2f} MB | {mx / 1e6:.2f} MB |")


SCENARIOS = ("timeline", "map", "learn", "leakage", "compare", "deeplinks", "payloads",
             "large")
#: scenarios run only when named in --only
EXTRA_SCENARIOS = ("foliumvs",)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--port", type=int, default=8621)
    ap.add_argument("--budget", type=float, default=90.0,
                    help="stop repeating an action after this many seconds in all")
    ap.add_argument("--only", default=",".join(SCENARIOS),
                    help="comma-separated subset of: " + ", ".join(SCENARIOS + EXTRA_SCENARIOS))
    args = ap.parse_args()
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    print(f"uptime: {os.popen('uptime').read().strip()}")
    print(f"chromium {VIEWPORT['width']}×{VIEWPORT['height']}, {args.reps} repetitions")
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(streamlit_server(ROOT, args.port, timeout=90))
        folium_url = (stack.enter_context(streamlit_server(
            ROOT, args.port + 1, timeout=90, script="benchmarks/folium_map_app.py"))
            if "foliumvs" in only else None)
        p = stack.enter_context(sync_playwright())
        tmpdir = stack.enter_context(tempfile.TemporaryDirectory())
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        bench = Bench(url, browser, args.reps, args.budget)
        # warm the server once (imports, first script run) so no row pays for it
        page, _ = bench.session()
        open_page(page, url, "/")
        page.context.close()
        tmp = Path(tmpdir)
        for name in only:
            print(f"{name}:", flush=True)
            try:
                {"timeline": lambda: bench.timeline(tmp), "map": bench.map,
                 "learn": bench.learn, "leakage": bench.leakage_dummies,
                 "compare": bench.compare, "deeplinks": bench.deep_links,
                 "payloads": lambda: bench.payloads(tmp),
                 "large": lambda: bench.large(tmp),
                 "foliumvs": lambda: bench.folium_vs(tmp, folium_url)}[name]()
            except Exception as exc:  # noqa: BLE001 - report and go on with the others
                print(f"  {name} failed: {type(exc).__name__}: {exc}", flush=True)
                traceback.print_exc()
        browser.close()
        bench.table()
    print(f"uptime: {os.popen('uptime').read().strip()}")


if __name__ == "__main__":
    main()
