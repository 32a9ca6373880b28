"""Real browser: the Timeline's chart (app_support/live_chart.py) stays mounted.

plotly.js comes once per page from the app's own server; an ε step and a click on a
point redraw the same chart (a property set on its div before is still there after),
and a zoom set before a click is still the zoom after it.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.browser import wait_for_app
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
    page.goto(app_url + "/timeline")
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
