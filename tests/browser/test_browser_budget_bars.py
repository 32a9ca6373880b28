"""The ε_t budget bars as chromium draws them: a landmark bar is as wide as a regular one
when the landmarks are far apart (t = 40 and t = 120 of the 168-hour demo).

plotly.js sizes the bars of a trace from the spacing of that trace's own points unless a
width is given: the landmark trace of two far-apart landmarks had bars 80 hours wide
(323 px against 4 px on the Timeline). What is measured here is the drawn SVG, not the
figure's data: the Timeline, Leakage and Compare figures rendered by plotly.js in
chromium, and the Timeline page of the running app after two clicks on its chart.
"""

from __future__ import annotations

import numpy as np
import plotly.io as pio
import pytest

from lmdk_core.data.demo import demo_series
from lmdk_core.decision.comparison import compare_schemes, series_release_fn
from lmdk_core.engine.release import release_series
from lmdk_core.figures.compare import side_by_side_figure
from lmdk_core.figures.leakage import leakage_curves_figure
from lmdk_core.figures.timeline import timeline_figure
from lmdk_core.leakage import LossFunction, smoothed_matrix, temporal_leakage
from tests.browser import wait_for_app, wait_until_still
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

LANDMARKS = [40, 120]

#: per drawn bar trace: its legend name, and the x-extent (px) of each of its bars
BAR_WIDTHS_JS = """() => [...document.querySelectorAll('.js-plotly-plot .barlayer .trace')]
    .map(tr => ({name: tr.__data__ && tr.__data__[0] && tr.__data__[0].trace
                       ? tr.__data__[0].trace.name : '',
                 widths: [...tr.querySelectorAll('path')]
                     .map(p => p.getBBox().width).filter(w => w > 0)}))"""


def assert_landmark_bars_like_regular(traces: list[dict], where: str) -> None:
    """Every landmark bar is drawn as wide as the regular bars (±1 px), on every panel."""
    regular = [w for t in traces if "regular" in t["name"] for w in t["widths"]]
    landmark = [w for t in traces if "landmark" in t["name"] for w in t["widths"]]
    assert regular and landmark, (where, traces)
    typical = float(np.median(regular))
    assert typical > 0.5, (where, typical)
    assert max(landmark) <= typical + 1.0, (where, "landmark bars", landmark, typical)
    assert min(landmark) >= typical - 1.0, (where, "landmark bars", landmark, typical)


def demo_case():
    series = demo_series()
    values = np.asarray(series.values, dtype=float)
    time = np.asarray(series.time)
    return series, values, time


@pytest.fixture
def blank(page):
    """The browser page of the suite, on a blank document (no app needed)."""
    page.goto("about:blank")
    return page


def draw(page, fig, width: int = 1200) -> list[dict]:
    fig.update_layout(width=width)
    page.set_content(pio.to_html(fig, include_plotlyjs=True, full_html=True))
    page.wait_for_selector(".js-plotly-plot .barlayer path", timeout=60_000)
    return page.evaluate(BAR_WIDTHS_JS)


def test_timeline_figure_draws_far_apart_landmark_bars_narrow(blank):
    series, values, time = demo_case()
    rel = release_series(values, LANDMARKS, epsilon=1.0, scheme="uniform", mechanism="laplace",
                         sensitivity=1.0, seed=1)
    fig = timeline_figure(time, series.time_kind, rel, unit=series.unit)
    assert_landmark_bars_like_regular(draw(blank, fig), "timeline")


def test_leakage_figure_draws_far_apart_landmark_bars_narrow(blank):
    series, values, time = demo_case()
    rel = release_series(values, LANDMARKS, epsilon=1.0, scheme="uniform", mechanism="laplace",
                         sensitivity=1.0, seed=1)
    loss = LossFunction(smoothed_matrix(10, 0.1))
    result = temporal_leakage(rel.epsilon_t, loss, loss, LANDMARKS)
    fig = leakage_curves_figure(time, series.time_kind, result, 1.0)
    assert_landmark_bars_like_regular(draw(blank, fig), "leakage")


def test_compare_figure_draws_far_apart_landmark_bars_narrow(blank):
    series, values, time = demo_case()
    rels = compare_schemes(series_release_fn(values, LANDMARKS, mechanism="laplace",
                                             sensitivity=1.0),
                           ["uniform", "skip"], 1.0, 0)
    fig = side_by_side_figure(time, series.time_kind, rels, unit=series.unit)
    assert_landmark_bars_like_regular(draw(blank, fig), "compare")


def test_timeline_page_after_clicking_two_far_apart_points(app_url, page):
    """The demo flow of the report: Timeline → Clear → click t = 40 and t = 120."""
    page.goto(app_url + "/timeline")
    wait_for_app(page)
    wait_until_still(page)
    page.get_by_role("button", name="Clear", exact=True).click(timeout=120_000)
    page.wait_for_function(
        "() => !/t=\\d+ /.test(document.querySelector('[data-testid=stMultiSelect]')"
        ".innerText)", timeout=60_000)
    wait_for_app(page)
    for t in LANDMARKS:
        wait_until_still(page)  # plotly binds its click handlers after drawing
        point = (page.locator(".js-plotly-plot .scatterlayer .trace").first
                 .locator("path.point").nth(t))
        point.click(force=True)
        page.wait_for_function(
            "t => document.querySelector('[data-testid=stMultiSelect]').innerText"
            ".includes('t=' + t + ' ')", arg=t, timeout=60_000)
        wait_for_app(page)
    wait_until_still(page)
    traces = page.evaluate(BAR_WIDTHS_JS)
    assert sum(len(t["widths"]) for t in traces if "landmark" in t["name"]) == 2, traces
    page.screenshot(path=str(ARTIFACTS / "timeline_far_apart_landmarks.png"), full_page=True)
    assert_landmark_bars_like_regular(traces, "Timeline page")
