"""Real browser: Compare's Monte Carlo sweep runs only on *Run*, and *Cancel* stops it."""

from __future__ import annotations

import pytest

from tests.browser import wait_for_app

pytestmark = pytest.mark.browser


def test_sweep_runs_on_request_and_can_be_cancelled(app_url, page):
    page.goto(app_url + "/compare")
    wait_for_app(page)
    run = page.locator("[data-testid=stButton] button").filter(has_text="Run the sweep")
    run.wait_for(timeout=60_000)
    assert "Reading the chart" not in page.inner_text("body")  # nothing swept on opening
    # many runs, so that there is time to cancel
    slider = page.locator("[data-testid=stSlider]").filter(has_text="Runs R per")
    slider.locator("input[type=range]").first.focus()
    page.keyboard.press("End")  # 200 runs
    wait_for_app(page)
    run.click()
    cancel = page.locator("[data-testid=stButton] button").filter(has_text="Cancel")
    cancel.wait_for(timeout=30_000)
    cancel.click()
    page.wait_for_function(
        "() => document.body.innerText.includes('Sweep cancelled')", timeout=60_000)
    wait_for_app(page)
    assert "Reading the chart" not in page.inner_text("body")
    # a small sweep runs to the end and is shown
    page.locator("[data-testid=stSlider]").filter(has_text="Runs R per").locator(
        "input[type=range]").first.focus()
    page.keyboard.press("Home")  # 5 runs
    wait_for_app(page)
    page.locator("[data-testid=stButton] button").filter(has_text="Run the sweep").click()
    page.wait_for_function(
        "() => document.body.innerText.includes('Reading the chart')", timeout=120_000)
