"""Real browser smoke test: every page of the app opens in chromium with no exception and
no error box; a screenshot of each lands in tests/artifacts/pages/."""

from __future__ import annotations

import pytest

from tests.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium, streamlit_server, wait_for_app
from tests.conftest import ARTIFACTS, ROOT

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
}


@pytest.fixture(scope="module")
def app_url():
    require_chromium()
    (ARTIFACTS / "pages").mkdir(parents=True, exist_ok=True)
    with streamlit_server(ROOT) as url:
        yield url


def test_every_page_opens_cleanly(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 2600})
        js_errors: list[str] = []
        page.on("pageerror", lambda e: js_errors.append(str(e)))
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
        browser.close()
    assert js_errors == []
