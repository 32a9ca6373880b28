"""Real browser: a reload keeps the tab's view (app_support/tab_memory.py, docs/app.md).

Upload a real series on the Timeline (the Nile's annual flow, tests/data/real/series/),
mark a landmark and change Δf, reload: the upload, the landmark and Δf are back in the
same tab, and the URL holds none of them. A new tab of the same browser starts afresh.
"Forget this tab's data", then a reload: afresh too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser import wait_for_app, wait_until_still
from tests.browser.test_browser_timeline import landmark_chips, wait_chip_count
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

NILE = Path(__file__).resolve().parents[1] / "data" / "real" / "series" / "nile.csv"


def shown_series(page) -> str:
    """The caption under the title: the shown series' name and its length."""
    return page.locator("[data-testid=stCaptionContainer]").filter(
        has_text=re.compile(r" — [0-9,]+ timestamps")).first.inner_text()


def settled(page) -> None:
    wait_for_app(page)
    wait_until_still(page, 1500, 120_000)


@pytest.fixture
def tabs():
    """One browser context (a person's browser profile) that opens tabs; any JavaScript
    error on a page fails the test."""
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1500, "height": 1400})
        errors: list[str] = []
        context.on("weberror", lambda e: errors.append(str(e.error)))
        yield context
        browser.close()
        assert not errors, errors


def test_a_reload_brings_back_the_upload_landmarks_and_delta_f(app_url, tabs):
    page = tabs.new_page()
    page.goto(app_url + "/timeline")
    settled(page)
    page.get_by_text("Use your own data, or restore a saved view").click()
    page.locator("[data-testid=stFileUploaderDropzoneInput]").first.set_input_files(str(NILE))
    page.wait_for_function("() => document.body.innerText.includes('nile.csv')",
                           timeout=90_000)
    settled(page)
    # year,volume: the page guesses the columns and asks
    page.get_by_role("button", name="Load with these columns").click()
    page.wait_for_function("() => document.body.innerText.includes('— 100 timestamps')",
                           timeout=90_000)
    settled(page)
    assert "nile" in shown_series(page)
    # one landmark, typed into the picker (t = 27: the year 1898 of the level shift)
    picker = page.locator("[data-testid=stMultiSelect]").first
    picker.locator("input").first.click()
    page.keyboard.type("27")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    wait_chip_count(page, 1)
    # a declared Δf that is not the default
    field = page.get_by_label("Declared sensitivity Δf", exact=True).first
    field.fill("350")
    field.press("Enter")
    settled(page)
    url = page.url
    assert "nile" not in url and "350" not in url and "27" not in url.split("?")[-1]

    page.reload()
    page.get_by_text("Restored after the reload").first.wait_for(timeout=90_000)
    settled(page)
    assert "nile" in shown_series(page)
    assert [c.split()[0] for c in landmark_chips(page)] == ["t=27"]
    delta_f = page.get_by_label("Declared sensitivity Δf", exact=True).first
    assert float(delta_f.input_value()) == 350
    page.screenshot(path=str(ARTIFACTS / "reload_restored.png"), full_page=True)

    # a new tab of the same browser knows nothing of it
    other = tabs.new_page()
    other.goto(app_url + "/timeline")
    settled(other)
    assert "nile" not in shown_series(other)
    assert not other.get_by_text("Restored after the reload").count()
    other.close()

    # forgotten: the next reload starts afresh
    page.get_by_text("Use your own data, or restore a saved view").click()
    page.get_by_role("button", name="Forget this tab's data").click()
    page.get_by_text("A reload starts afresh").first.wait_for(timeout=60_000)
    settled(page)
    page.reload()
    settled(page)
    page.wait_for_timeout(1500)  # the tab's key reported, its (empty) memory looked up
    settled(page)
    assert "nile" not in shown_series(page)
    assert not page.get_by_text("Restored after the reload").count()
