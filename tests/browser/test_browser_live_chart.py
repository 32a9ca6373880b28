"""Real browser: the Timeline's chart (app_support/live_chart.py) stays mounted.

plotly.js comes once per page from the app's own server; an ε step and a click on a
point redraw the same chart (a property set on its div before is still there after),
and a zoom set before a click is still the zoom after it. Its ε slider redraws the
chart while it is dragged with no script run, and the page reruns once when it is let
go, to the release the preview showed.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.browser import (
    SCRUB_SLIDER,
    ScriptRuns,
    drag_scrub,
    scrub_frames,
    wait_for_app,
    wait_until_still,
)
from tests.browser.test_browser_security import LOCAL_HOSTS, external
from tests.browser.test_browser_timeline import landmark_chips

pytestmark = pytest.mark.browser

PLOTLY_PATH = "/_stcore/bidi-components/lmdk.live_chart/plotly.min.js"
CHART = ".js-plotly-plot"


def draws(page) -> int:
    return page.evaluate("() => window.__lmdkLiveCharts || 0")


def wait_draws(page, n: int) -> None:
    page.wait_for_function("n => (window.__lmdkLiveCharts || 0) >= n", arg=n, timeout=30_000)
    wait_for_app(page)


def x_range(page) -> list[float]:
    """The data panel's x range, in ms since 1970 (a date axis)."""
    return page.evaluate(f"""() => {{ const ax = document.querySelector('{CHART}')
        ._fullLayout.xaxis; return ax.range.map(ax.r2l); }}""")


def test_the_timeline_chart_stays_mounted_and_keeps_the_zoom(page, app_url):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(app_url + "/timeline?k=50")
    wait_for_app(page)
    page.wait_for_selector(f"{CHART} .scatterlayer .trace path.point", timeout=60_000)
    wait_draws(page, 1)
    page.evaluate(f"() => {{ document.querySelector('{CHART}').__probe = 1; }}")
    n = draws(page)
    # an ε step: the same div, drawn once more
    eps = page.locator("[data-testid=stSidebar] input[aria-label^='Total privacy budget']")
    before = eps.input_value()
    eps.locator("xpath=ancestor::*[@data-testid='stNumberInput']").locator(
        "[data-testid=stNumberInputStepUp]").click()
    wait_draws(page, n + 1)
    assert eps.input_value() != before
    assert page.evaluate(f"() => document.querySelectorAll('{CHART}').length") == 1
    assert page.evaluate(f"() => document.querySelector('{CHART}').__probe") == 1
    # zoom into t = 20..60 as the zoom tool does, then click t = 40
    page.evaluate(f"""() => {{ const gd = document.querySelector('{CHART}');
        const x = gd._fullData[0].x, m = gd._fullLayout.xaxis.matches;  // the panels' shared axis
        return Plotly.relayout(gd, {{[(m ? 'xaxis' + m.slice(1) : 'xaxis') + '.range']:
                                     [x[20], x[60]]}}); }}""")
    zoom = x_range(page)
    assert not any(c.startswith("t=40 ") for c in landmark_chips(page))
    n = draws(page)
    page.wait_for_timeout(500)
    page.locator(f"{CHART} .scatterlayer .trace").first.locator("path.point").nth(40).click(
        force=True)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stMultiSelect]').innerText"
        ".includes('t=40 ')", timeout=30_000)
    wait_draws(page, n + 1)
    assert page.evaluate(f"() => document.querySelector('{CHART}').__probe") == 1
    # the zoom, not the whole week again (within 1 % of the zoomed span: plotly may
    # re-round a range by a few seconds when it redraws)
    after, span = x_range(page), zoom[1] - zoom[0]
    assert all(abs(a - z) < 0.01 * span for a, z in zip(after, zoom, strict=True)), (after, zoom)
    assert span < 0.5 * (page.evaluate(f"""() => {{ const ax = document.querySelector('{CHART}')
        ._fullLayout.xaxis; const x = document.querySelector('{CHART}')._fullData[0].x;
        return ax.r2l(x[x.length - 1]) - ax.r2l(x[0]); }}"""))
    # plotly.js came once, from the app itself; nothing left the machine
    plotly_js = [u for u in requested if urlparse(u).path == PLOTLY_PATH]
    assert len(plotly_js) == 1 and urlparse(plotly_js[0]).hostname in LOCAL_HOSTS, plotly_js
    assert not external(requested), external(requested)


#: the released values the chart draws (its "released" trace)
RELEASED_Y = f"""() => Array.from(document.querySelector('{CHART}')._fullData
    .find(d => d.name === 'released').y)"""
LANDMARK_TPL_Y = f"""() => Array.from(document.querySelector('{CHART}')._fullData
    .find(d => d.name === 'landmark TPL').y)"""


def test_the_epsilon_slider_redraws_while_dragged_and_reruns_once_when_let_go(page, app_url):
    runs = ScriptRuns(page)
    page.goto(app_url + "/timeline")
    wait_for_app(page)
    page.wait_for_selector(SCRUB_SLIDER, timeout=60_000)
    wait_until_still(page)
    eps_field = page.locator(
        "[data-testid=stSidebar] input[aria-label^='Total privacy budget']")
    start_eps = float(eps_field.input_value())
    runs_before, frames_before = runs.finished, scrub_frames(page)
    # drag from 90 % of the range down to 20 %, not let go yet
    drag_scrub(page, 0.9, 0.2, 1.0, release=False)
    page.wait_for_function(
        "n => (window.__lmdkScrubFrames || 0) > n", arg=frames_before, timeout=30_000)
    page.wait_for_timeout(300)  # any message the drag might have sent would be back
    frames_during = scrub_frames(page) - frames_before
    assert frames_during >= 2, frames_during  # the chart follows the pointer
    assert runs.finished == runs_before  # and no script ran
    verdict = page.locator(".lmdk-scrub-verdict").first
    assert verdict.inner_text().startswith("Preview at ε = ")
    assert verdict.get_attribute("data-colour") in ("green", "amber", "red")
    slider = page.locator(SCRUB_SLIDER).first
    shown = slider.get_attribute("aria-valuetext")
    assert shown.startswith("ε = ")
    preview_eps = float(shown.split(",")[0].removeprefix("ε = "))
    assert preview_eps < start_eps
    # the pointer rests: the preview is drawn in full at that ε (axes rescaled)
    page.wait_for_function(
        f"e => document.querySelector('{CHART}').dataset.previewEpsilon === String(e)",
        arg=preview_eps, timeout=30_000)
    preview = page.evaluate(RELEASED_Y)
    page.mouse.up()
    # let go: exactly one run, which makes the slider's ε the session's
    page.wait_for_function(
        "e => Math.abs(parseFloat(document.querySelector("
        "\"[data-testid=stSidebar] input[aria-label^='Total privacy budget']\").value) - e)"
        " < 1e-9 * e", arg=preview_eps, timeout=30_000)
    wait_for_app(page)
    wait_until_still(page)
    assert runs.finished == runs_before + 1, runs.finished - runs_before
    assert float(eps_field.input_value()) == pytest.approx(preview_eps)
    assert verdict.inner_text().startswith(f"ε = {shown.split(',')[0].removeprefix('ε = ')}")
    # the release the server drew at that ε is the preview's: the same draws, scaled
    released = page.evaluate(RELEASED_Y)
    assert len(released) == len(preview)
    span = max(abs(v) for v in released)
    assert all(abs(a - b) <= 1e-4 * span for a, b in zip(preview, released, strict=True))


def test_the_epsilon_slider_steps_by_keyboard_and_says_its_value(page, app_url):
    runs = ScriptRuns(page)
    page.goto(app_url + "/timeline")
    wait_for_app(page)
    slider = page.locator(SCRUB_SLIDER).first
    slider.wait_for(timeout=60_000)
    wait_until_still(page)
    before, runs_before = slider.input_value(), runs.finished
    assert slider.get_attribute("aria-label").startswith("Total privacy budget ε")
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert int(slider.input_value()) == int(before) + 2
    # the preview frame (the next animation frame) says the value and the preview
    page.wait_for_function(
        "() => (document.querySelector('.lmdk-scrub input[type=range]')"
        ".getAttribute('aria-valuetext') || '').includes('preview')", timeout=60_000)
    text = slider.get_attribute("aria-valuetext")
    assert text.startswith("ε = ") and "preview" in text
    # the two steps are sent once, after the last one
    eps = float(text.split(",")[0].removeprefix("ε = "))
    page.wait_for_function(
        "e => Math.abs(parseFloat(document.querySelector("
        "\"[data-testid=stSidebar] input[aria-label^='Total privacy budget']\").value) - e)"
        " < 1e-9 * e", arg=eps, timeout=30_000)
    wait_for_app(page)
    wait_until_still(page)
    assert runs.finished == runs_before + 1


def test_compares_epsilon_slider_previews_every_column_and_reruns_once(page, app_url):
    """Compare's side-by-side chart (Uniform, Skip, Adaptive) follows its ε slider with
    no script run, one preview verdict per column (Adaptive follows on release); letting
    go sets the session's ε with one run, and Uniform's column the server draws there is
    the preview's (the same draws, scaled)."""
    runs = ScriptRuns(page)
    page.goto(app_url + "/compare")
    wait_for_app(page)
    page.wait_for_selector(SCRUB_SLIDER, timeout=60_000)
    wait_until_still(page)
    runs_before, frames_before = runs.finished, scrub_frames(page)
    drag_scrub(page, 0.9, 0.3, 1.0, release=False)
    page.wait_for_timeout(300)
    assert scrub_frames(page) - frames_before >= 2
    assert runs.finished == runs_before
    words = page.locator(".lmdk-scrub-verdict").first.inner_text()
    assert words.startswith("Preview at ε = ") and "Uniform: " in words and "Skip: " in words
    assert "Adaptive: drawn again when you let go" in words
    shown = page.locator(SCRUB_SLIDER).first.get_attribute("aria-valuetext")
    preview_eps = float(shown.split(",")[0].removeprefix("ε = "))
    page.wait_for_function(
        f"e => document.querySelector('{CHART}').dataset.previewEpsilon === String(e)",
        arg=preview_eps, timeout=30_000)
    preview = page.evaluate(RELEASED_Y)
    page.mouse.up()
    page.wait_for_function(
        "e => Math.abs(parseFloat(document.querySelector("
        "\"[data-testid=stSidebar] input[aria-label^='Total privacy budget']\").value) - e)"
        " < 1e-9 * e", arg=preview_eps, timeout=30_000)
    wait_for_app(page)
    wait_until_still(page)
    assert runs.finished == runs_before + 1, runs.finished - runs_before
    released = page.evaluate(RELEASED_Y)
    span = max(abs(v) for v in released)
    assert len(released) == len(preview)
    assert all(abs(a - b) <= 1e-4 * span for a, b in zip(preview, released, strict=True))
    # that run sent the leakage grids by digest only (app_support/live_chart.py
    # shared_grids): the browser's copies still move the leakage rows in a second drag
    assert page.evaluate("() => (window.__lmdkPreviewGrids || new Map()).size") >= 1
    before = page.evaluate(LANDMARK_TPL_Y)
    drag_scrub(page, 0.3, 0.9, 1.0, release=False)
    page.wait_for_timeout(300)
    during = page.evaluate(LANDMARK_TPL_Y)
    page.mouse.up()
    wait_for_app(page)
    assert len(during) == len(before) and during != before


def test_home_loads_plotly_in_idle_time_so_start_here_does_not_wait_for_it(app_url, page):
    """Home has no chart, but it loads plotly.js once the page is idle
    (app_support.live_chart.warm_plotly); Start here then opens the Timeline, whose chart
    draws with the plotly.js already in the page: no second request for it."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(urlparse(r.url).path))
    page.goto(app_url + "/")
    wait_for_app(page)
    page.wait_for_function("() => !!window.Plotly", timeout=60_000)
    assert requests.count(PLOTLY_PATH) == 1, requests
    assert not page.locator(CHART).count()  # Home itself draws no chart
    page.get_by_role("button", name="Start here").click()
    page.wait_for_selector(CHART + " .main-svg", timeout=60_000)
    wait_for_app(page)
    assert requests.count(PLOTLY_PATH) == 1, requests
