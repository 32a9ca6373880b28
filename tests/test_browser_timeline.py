"""Real browser: Playwright drives Debian's chromium against `streamlit run app.py`."""

from __future__ import annotations

import pytest

from tests.browser import wait_for_app
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


def landmark_chips(page) -> list[str]:
    text = page.locator("[data-testid=stMultiSelect]").first.inner_text()
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("t=")]


def budget_bar_heights(page) -> list[str]:
    """The d attribute of every ε_t bar: changes when the allocation changes."""
    return page.locator(".js-plotly-plot .barlayer path").evaluate_all(
        "els => els.map(e => e.getAttribute('d'))")


def test_click_a_point_makes_it_a_landmark(app_url, page):
    page.goto(app_url + "/timeline")
    wait_for_app(page)
    page.wait_for_selector(".js-plotly-plot .scatterlayer .trace path.point", timeout=60_000)
    before = landmark_chips(page)
    bars_before = budget_bar_heights(page)
    assert len(before) == 5 and not any(c.startswith("t=10 ") for c in before)
    original = page.locator(".js-plotly-plot .scatterlayer .trace").first.locator("path.point")
    assert original.count() == 168
    original.nth(10).click(force=True)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stMultiSelect]').innerText"
        ".includes('t=10 ')", timeout=30_000)
    wait_for_app(page)
    after = landmark_chips(page)
    assert len(after) == 6 and any(c.startswith("t=10 ") for c in after)
    page.wait_for_timeout(500)
    assert budget_bar_heights(page) != bars_before  # ε/6 -> ε/7 everywhere
    page.screenshot(path=str(ARTIFACTS / "timeline_after_click.png"), full_page=True)
    # a second click on the same point removes it again
    original = page.locator(".js-plotly-plot .scatterlayer .trace").first.locator("path.point")
    original.nth(10).click(force=True)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stMultiSelect]').innerText"
        ".includes('t=10 ')", timeout=30_000)
    assert len(landmark_chips(page)) == 5
