"""Real browser smoke test: every page of the app opens in chromium with no exception and
no error box; a screenshot of each lands in tests/artifacts/pages/."""

from __future__ import annotations

import pytest

from tests.browser import wait_for_app
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

#: url path -> a text the page must show once it has run
PAGES = {
    "": "Landmark Privacy Explorer",
    "learn": "Learn",
    "timeline": "Timeline",
    "map": "Map",
    "compare": "Compare schemes",
    "leakage": "Temporal privacy leakage",
    "dummies": "Dummy landmarks",
    "population": "Population",
}


def test_every_page_opens_cleanly(app_url, page):
    (ARTIFACTS / "pages").mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1500, "height": 2600})  # whole pages in one shot
    for path, heading in PAGES.items():
        page.goto(f"{app_url}/{path}")
        wait_for_app(page)
        page.wait_for_selector(f"h1:has-text('{heading}')", timeout=60_000)
        page.wait_for_timeout(1500)
        wait_for_app(page)
        name = path or "home"
        page.screenshot(path=str(ARTIFACTS / "pages" / f"{name}.png"))
        assert page.locator("[data-testid=stException]").count() == 0, name
        errors = page.locator("[data-testid=stAlertContentError]").all_inner_texts()
        assert errors == [], (name, errors)
