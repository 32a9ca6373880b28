"""Real browser: what stays on screen after an action (no jump back, no stale button)."""

from __future__ import annotations

import pytest

from tests.browser import wait_for_app, wait_until_still

pytestmark = pytest.mark.browser


def selected_tab(page) -> str:
    return page.locator("[role=tab][aria-selected=true]").first.inner_text().strip()


def test_choose_epsilon_keeps_its_tab_after_apply(app_url, page):
    """Apply a suggested ε (a message appears above the tabs), go to the attacker tab,
    move the prior: the attacker tab stays open (it must not jump back to the first)."""
    page.goto(app_url + "/choose")
    wait_for_app(page)
    wait_until_still(page)
    page.locator("[data-testid=stButton] button").filter(has_text="Apply").first.click()
    page.get_by_text("to the sidebar.").first.wait_for(timeout=60_000)
    wait_for_app(page)
    page.get_by_role("tab", name="What an attacker learns").click()
    wait_for_app(page)
    wait_until_still(page)
    assert selected_tab(page) == "What an attacker learns"
    from playwright.sync_api import expect

    slider = page.get_by_role("slider", name="Attacker's prior suspicion (%)")
    before = slider.get_attribute("aria-valuenow")
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(slider).not_to_have_attribute("aria-valuenow", before, timeout=60_000)
    wait_for_app(page)
    wait_until_still(page)
    assert selected_tab(page) == "What an attacker learns"


def test_map_draws_released_points_unjoined_under_the_true_path(app_url, page):
    """The released points are dots under the true path and the landmarks; joined into a
    line only when asked (a layer that starts off)."""
    from tests.browser import wait_for_map

    page.goto(app_url + "/map")
    wait_for_app(page)
    wait_for_map(page)
    wait_until_still(page)
    layers = page.evaluate("""() => { const st = window.__lmdkTrackMap;
        return Object.entries(st.groups).map(([n, g]) => [n, st.map.hasLayer(g),
                                                          g.getLayers().length]); }""")
    names = [n for n, _, _ in layers]
    on = {n: shown for n, shown, _ in layers}
    count = {n: k for n, _, k in layers}
    assert on["Released points joined (a line)"] is False, layers
    assert on["Released points"] is True and count["Released points"] > 10, layers
    # drawn before (so under) the true path, the track points and the landmarks
    assert names.index("Released points") < names.index("Original path"), names
    assert names.index("Original path") < names.index("Landmarks"), names
