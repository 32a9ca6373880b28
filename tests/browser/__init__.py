"""Helpers for the real-browser tests: a Streamlit server and Debian's chromium."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """Skip without chromium, unless the test run demands browsers (./run.sh test)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("LMDK_REQUIRE_BROWSER"):
            pytest.fail(f"{CHROMIUM} is missing but LMDK_REQUIRE_BROWSER is set")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)")


#: true once the Map page's Leaflet map has drawn its track points
MAP_READY = "() => !!(window.__lmdkTrackMap && window.__lmdkTrackMap.points)"


def wait_for_map(page, timeout_ms: float = 60_000) -> None:
    """Wait until the Map page's map has drawn its track points."""
    page.wait_for_function(MAP_READY, timeout=timeout_ms)


def free_map_point(page, start: int = 0, gap: float = 10) -> tuple[int, float, float]:
    """(t, x, y): the first drawn track point (from the ``start``-th) that is not a
    landmark and has no other point within ``gap`` px, scrolled into view; x, y in the
    page's viewport, for ``page.mouse.click``."""
    found = page.evaluate("([s, g]) => window.__lmdkTrackMap.freePoint(s, g)", [start, gap])
    if found is None:
        raise RuntimeError("no free track point to click on the map")
    t, x, y = found
    return int(t), float(x), float(y)


def map_landmarks(page) -> list[int]:
    """The landmarks the map draws (sorted t)."""
    return sorted(page.evaluate("() => [...window.__lmdkTrackMap.landmarks]"))


def act_until(act, done, attempts: int = 2) -> None:
    """Do ``act``, then wait with ``done`` (a Playwright wait, which raises its
    TimeoutError); an action a loaded page lost (a rerun redrew its element while the
    click, tap, hover or upload landed) is done again, as a person would, up to
    ``attempts`` times in all; the last wait's TimeoutError is raised."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(attempts):
        act()
        try:
            done()
            return
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise


def wait_until_still(page, quiet_ms: int = 1000, timeout_ms: float = 60_000) -> None:
    """Wait until the page's DOM has not changed and no script run has been under way for
    ``quiet_ms`` (charts drawn, reruns done): the moment a person would act."""
    page.wait_for_function("""ms => {
        const w = window.__lmdkStill || (window.__lmdkStill = (() => {
            const s = {last: performance.now()};
            new MutationObserver(() => { s.last = performance.now(); })
                .observe(document.body, {subtree: true, childList: true, attributes: true,
                                         characterData: true});
            return s;
        })());
        // a run under way (Streamlit's "Running…" widget) is not still: on a loaded
        // machine the server can think for longer than quiet_ms without a DOM change
        if (document.querySelector('[data-testid=stStatusWidget]')) w.last = performance.now();
        return performance.now() - w.last >= ms;
    }""", arg=quiet_ms, timeout=timeout_ms, polling=100)


@contextlib.contextmanager
def phone_page():
    """A page on a phone-sized touch screen (390×844, scale 2) in its own chromium;
    yields ``(page, errors)``, ``errors`` collecting the page's uncaught exceptions."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True, device_scale_factor=2)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            yield page, errors
        finally:
            browser.close()


def free_port(preferred: int = 0) -> int:
    """``preferred`` if it is free, else any free port."""
    for port in (preferred, 0):
        with contextlib.closing(socket.socket()) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise RuntimeError("no free port")


@contextlib.contextmanager
def streamlit_server(root: Path, port: int = 0, timeout: float = 60, script: str = "app.py"):
    """Start ``streamlit run <script>`` (the app by default) on ``port`` (or a free one);
    yield its base URL. The log goes to ``tests/artifacts/streamlit_<port>.log``."""
    port = free_port(port)
    (root / "tests" / "artifacts").mkdir(parents=True, exist_ok=True)
    log = open(root / "tests" / "artifacts" / f"streamlit_{port}.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=root, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        else:
            raise RuntimeError(f"streamlit did not start within {timeout:g} s (log: {log.name})")
        yield url
    finally:
        stop_process(proc, 10)
        log.close()


def stop_process(proc: subprocess.Popen, timeout: float) -> None:
    """SIGTERM, then SIGKILL if ``proc`` has not exited within ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def wait_for_app(page) -> None:
    """Wait until Streamlit has finished running the script."""
    page.wait_for_selector("[data-testid=stApp]", timeout=60_000)
    page.wait_for_timeout(500)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]')", timeout=60_000)
    # the live charts (app_support/live_chart.py) draw once plotly.js is loaded; a chart
    # the page hides (Compare's phone tabs on a desktop) is drawn when it is shown
    page.wait_for_function("""() => [...document.querySelectorAll('.lmdk-live-chart')]
        .filter(e => e.getClientRects().length)
        .every(e => e.querySelector('.main-svg'))""", timeout=60_000)


class ScriptRuns:
    """Counts the script runs a page's Streamlit server finishes (the ``script_finished``
    messages on the page's websocket): the server round trips an action cost."""

    def __init__(self, page):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self._parse = ForwardMsg.FromString
        self.finished = 0
        self.finished_at = 0.0  # perf_counter when the last script_finished arrived
        self.bytes = 0
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        if "_stcore/stream" in ws.url:
            ws.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        data = payload if isinstance(payload, bytes) else payload.encode()
        self.bytes += len(data)
        try:
            msg = self._parse(data)
        except Exception:  # noqa: BLE001 - not a ForwardMsg: only counted
            return
        if msg.WhichOneof("type") == "script_finished":
            self.finished += 1
            self.finished_at = time.perf_counter()


#: the ε slider of a chart that scrubs (app_support/live_chart.js)
SCRUB_SLIDER = ".lmdk-scrub input[type=range]"


def scrub_frames(page) -> int:
    """The preview frames the charts' ε sliders have drawn on this page so far."""
    return int(page.evaluate("() => window.__lmdkScrubFrames || 0"))


def drag_scrub(page, start: float, end: float, seconds: float, nth: int = 0,
               release: bool = True) -> None:
    """Drag the ``nth`` ε slider's thumb from ``start`` to ``end`` (fractions of its
    track) with the mouse, ~60 moves a second for ``seconds``, and let go (``release``)."""
    slider = page.locator(SCRUB_SLIDER).nth(nth)
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    pad = 8  # the thumb's half width: the track's ends are inside the box
    y = box["y"] + box["height"] / 2
    cur = float(slider.input_value()) / float(slider.get_attribute("max"))

    def x_at(f: float) -> float:
        return box["x"] + pad + (box["width"] - 2 * pad) * f

    page.mouse.move(x_at(cur), y)
    page.mouse.down()
    page.mouse.move(x_at(start), y, steps=2)
    # one move every ~16 ms (as a mouse reports them), each waited for by the driver
    n = max(2, round(seconds / 0.016))
    t0 = time.perf_counter()
    for k in range(1, n + 1):
        page.mouse.move(x_at(start + (end - start) * k / n), y)
        lag = t0 + seconds * k / n - time.perf_counter()
        if lag > 0:
            page.wait_for_timeout(lag * 1000)
    if release:
        page.mouse.up()


#: the input → paint latency of the first ε slider's preview frames: ``n`` times, the
#: slider set to a new position and its ``input`` event sent, then timed until the
#: animation frame after the one that redrew the chart (its paint is done by then: an
#: upper bound by at most one frame); returns [median, 90th percentile] in ms
SCRUB_LATENCY = """async ([n]) => {
  const inp = document.querySelectorAll('.lmdk-scrub input[type=range]')[0];
  const max = Number(inp.max), out = [];
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  for (let k = 0; k < n; k++) {
    const f0 = window.__lmdkScrubFrames || 0;
    inp.value = String(Math.round(max * (0.2 + 0.6 * ((k * 7) % n) / n)));
    const t0 = performance.now();
    inp.dispatchEvent(new Event('input', {bubbles: true}));
    while ((window.__lmdkScrubFrames || 0) === f0 && performance.now() - t0 < 2000) {
      await frame();
    }
    await frame();
    out.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 40));
  }
  out.sort((a, b) => a - b);
  return [out[Math.floor(out.length / 2)], out[Math.floor(out.length * 0.9)]];
}"""


#: the ε slider moved by the page itself once per animation frame for ``seconds`` (an
#: ``input`` event each, as a dragging pointer gives): (preview frames drawn per second,
#: animation frames per second) — what the page can redraw, whatever the driver's pace
SCRUB_EVERY_FRAME = """async ([seconds, nth]) => {
  const inp = document.querySelectorAll('.lmdk-scrub input[type=range]')[nth];
  const max = Number(inp.max), f0 = window.__lmdkScrubFrames || 0;
  const t0 = performance.now();
  let n = 0;
  await new Promise((done) => {
    const step = (now) => {
      const u = Math.min(1, (now - t0) / (seconds * 1000));
      inp.value = String(Math.round(max * (0.95 - 0.9 * u)));
      inp.dispatchEvent(new Event('input', {bubbles: true}));
      n++;
      if (u < 1) requestAnimationFrame(step); else done();
    };
    requestAnimationFrame(step);
  });
  await new Promise((r) => setTimeout(r, 50));
  const dt = (performance.now() - t0) / 1000;
  return [((window.__lmdkScrubFrames || 0) - f0) / dt, n / dt];
}"""
