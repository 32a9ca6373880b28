"""Real browser: click a track point on the Map page's Leaflet map and watch it become a
landmark (at once on the map, then in the table and the verdict); click the landmark to
remove it. Works offline: Leaflet ships with the app and the background is plain."""

from __future__ import annotations

import re

import pytest

from tests.browser import (
    free_map_point,
    map_landmarks,
    phone_page,
    wait_for_app,
    wait_for_map,
)
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


def table_landmarks(page) -> list[int]:
    """The t column of the landmark table (the grid's accessible cells, row by row: the
    grid renders only the columns in view, and lat/lon may be scrolled out of it)."""
    rows = page.locator("[data-testid=stDataFrame]").first.locator("[role=row]")
    out = []
    for row in rows.all():
        texts = row.locator("[role=gridcell]").all_inner_texts()
        if len(texts) > 1 and texts[1].isdigit():
            out.append(int(texts[1]))
    return out


def open_table(page) -> None:
    """Switch on 'Edit the landmarks as a table' (off by default) and wait for the grid."""
    assert page.locator("[data-testid=stDataFrame]").count() == 0  # no grid by default
    page.locator("[data-testid=stCheckbox]").filter(
        has_text="Edit the landmarks as a table").locator("label").first.click()
    page.wait_for_selector("[data-testid=stDataFrame] [role=row]", state="attached",
                           timeout=60_000)
    wait_for_app(page)
    page.wait_for_timeout(500)


def picker_landmarks(page) -> list[int]:
    """The t of every chip of the Landmarks field (the table's keyboard equivalent)."""
    box = page.locator("[data-testid=stMultiSelect]").filter(
        has=page.locator("input[aria-label^=Landmarks]")).first
    return sorted(int(t) for t in re.findall(r"t=(\d+) ·", box.inner_text()))


def verdict(page) -> str:
    """The text of the one verdict box (green, amber or red)."""
    return page.locator("[data-testid=stAlertContentSuccess], "
                        "[data-testid=stAlertContentWarning], [data-testid=stAlertContentError]"
                        ).filter(has_text="andmark-private").first.inner_text()


def wait_landmark_count(page, n: int) -> None:
    page.wait_for_function(
        "n => [...document.querySelectorAll('p')].some(p => p.innerText.trim() === "
        "'Landmarks (' + n + ')')", arg=n, timeout=30_000)
    wait_for_app(page)
    page.wait_for_timeout(800)


def open_map(page, url: str) -> None:
    page.goto(url + "/map?k=50")  # a declared bound k above the landmarks the tests mark
    wait_for_app(page)
    page.get_by_text("Landmarks (", exact=False).first.wait_for(timeout=60_000)
    wait_for_map(page)
    page.wait_for_timeout(500)


def tooltip_at(page, x: float, y: float) -> str:
    """Hover (x, y) and return the text of the tooltip that opens."""
    page.mouse.move(x, y)
    page.locator(".leaflet-tooltip").last.wait_for(timeout=5_000)
    page.wait_for_timeout(300)  # the tooltip of a point passed on the way closes
    return page.locator(".leaflet-tooltip").last.inner_text()


def test_click_a_point_on_the_map_makes_it_a_landmark(app_url, page):
    open_map(page, app_url)
    assert picker_landmarks(page) == [36, 220, 227, 235]
    open_table(page)
    before = table_landmarks(page)
    assert before == [36, 220, 227, 235] == map_landmarks(page)
    assert "4 landmarks" in verdict(page)
    # every track point is drawn and clickable (383 < the thinning threshold)
    assert page.evaluate("() => window.__lmdkTrackMap.points.size") == 383

    t, x, y = free_map_point(page, 150)  # a point away from home
    assert re.match(rf"Point t={t} · ", tooltip_at(page, x, y))
    assert t not in before
    scroll = page.evaluate("() => window.scrollY")
    budget_canvas = page.locator("[data-testid=stVegaLiteChart] canvas").first.element_handle()
    page.mouse.click(x, y)  # the first click on the map counts and scrolls nothing
    assert page.evaluate("() => window.scrollY") == scroll
    wait_landmark_count(page, 5)
    assert table_landmarks(page) == sorted([*before, t]) == map_landmarks(page)
    assert picker_landmarks(page) == sorted([*before, t])
    assert "5 landmarks" in verdict(page)  # Uniform gives ε/6 everywhere
    # the budget chart was updated in place (its specification does not depend on the
    # landmarks), not replaced by a new chart
    assert budget_canvas.evaluate("c => c.isConnected")
    page.wait_for_timeout(1500)  # the same click is not processed twice
    assert table_landmarks(page) == sorted([*before, t])
    page.screenshot(path=str(ARTIFACTS / "map_after_click.png"), full_page=True)

    # clicking the new (red) landmark removes it again
    x, y = page.evaluate("t => window.__lmdkTrackMap.clientPoint(t)", t)
    assert tooltip_at(page, x, y).startswith(f"Landmark t={t} ")
    page.mouse.click(x, y)
    wait_landmark_count(page, 4)
    assert table_landmarks(page) == before == map_landmarks(page)
    assert "4 landmarks" in verdict(page)


def test_tapping_a_point_on_a_phone_marks_it(app_url):
    """On a phone (390×844, touch) a tap on a track point marks it, and a second tap on
    another point marks that one: the map is drawn in the page (no iframe) and Leaflet
    turns each tap into a click on the point under the finger."""
    with phone_page() as (page, errors):
        open_map(page, app_url)
        marked = map_landmarks(page)
        start = 0
        for _ in range(2):  # points are ~8 px apart at this width: take free ones
            t, x, y = free_map_point(page, start)
            start = t + 1  # the demo draws every point: the k-th drawn point is t = k
            page.touchscreen.tap(x, y)
            page.wait_for_function("n => window.__lmdkTrackMap.landmarks.size > n",
                                   arg=len(marked), timeout=60_000)
            wait_for_app(page)
            now = map_landmarks(page)
            assert [t2 for t2 in now if t2 not in marked] == [t]
            marked = now
        page.screenshot(path=str(ARTIFACTS / "map_phone_taps.png"))
        assert not errors, errors


#: the width of the landmark table's last column, the time (app_pages/map.py)
TIME_COLUMN_PX = 132


def test_landmark_table_shows_the_coordinates_on_a_phone(app_url):
    """At 390×844 the landmark table (switched on) has the columns keep, t, lat, lon, ε_t,
    then the time, and what scrolls out of the table's view is narrower than the time
    column: t, the
    coordinates and ε_t are in view (the grid draws on a canvas; its scroller's overflow
    is measured)."""
    with phone_page() as (page, errors):
        open_map(page, app_url)
        open_table(page)
        grid = page.locator("[data-testid=stDataFrame]").first
        grid.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        heads = [h.strip() for h in grid.locator("[role=columnheader]").all_inner_texts()]
        assert [h for h in heads if h] == ["keep", "t", "lat", "lon", "ε_t", "time"], heads
        scroll, view = grid.locator(".dvn-scroller").first.evaluate(
            "e => [e.scrollWidth, e.clientWidth]")
        assert 0 <= scroll - view < TIME_COLUMN_PX, (scroll, view)
        page.screenshot(path=str(ARTIFACTS / "map_phone_table.png"))
        assert not errors, errors


def test_fragment_widgets_keep_their_state_when_hidden_and_shown(app_url, page):
    """The leakage panel's grid cell size is drawn only while the panel is on; switching
    the panel off and on again (reruns of the page's fragment alone) keeps its value and
    raises nothing (it was a KeyError: Streamlit had forgotten the hidden widget)."""
    open_map(page, app_url)
    switch = page.locator("[data-testid=stCheckbox]").filter(has_text="Temporal leakage (TPL)")
    cell = page.locator("[data-testid=stNumberInput]").filter(has_text="Grid cell size")
    cell.first.wait_for(timeout=60_000)  # the panel is on by default
    for shown in (False, True, False, True):
        switch.locator("label").first.click()
        if shown:
            cell.first.wait_for(timeout=60_000)
        else:
            cell.first.wait_for(state="detached", timeout=60_000)
        wait_for_app(page)
        assert page.locator("[data-testid=stException]").count() == 0
    assert cell.first.locator("input").input_value() == "250"
