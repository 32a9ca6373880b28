"""Real browser: click a track point on the Leaflet map (inside the st_folium iframe) and
watch it become a landmark; click the landmark to remove it. Works offline: Leaflet is
inlined, only the background tiles fail to load."""

from __future__ import annotations

import re

import pytest

from tests.browser import FIND_FREE_POINT, MAP_FRAME, wait_for_app
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser




def table_landmarks(page) -> list[int]:
    """The t column of the landmark table (the grid's accessible cells)."""
    cells = page.locator("[data-testid=stDataFrame]").first.locator("[role=gridcell]")
    texts = cells.all_inner_texts()
    return [int(texts[i + 1]) for i in range(0, len(texts) - 1, 6) if texts[i + 1].isdigit()]


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


def open_map(page, url: str):
    page.goto(url + "/map")
    wait_for_app(page)
    page.wait_for_selector("[data-testid=stDataFrame]", timeout=60_000)
    frame = page.frame_locator(MAP_FRAME)
    frame.locator(".leaflet-overlay-pane path.leaflet-interactive").first.wait_for(
        timeout=60_000)
    page.wait_for_timeout(800)
    return frame


def test_click_a_point_on_the_map_makes_it_a_landmark(app_url, page):
    frame = open_map(page, app_url)
    before = table_landmarks(page)
    assert before == [36, 220, 227, 235]
    assert "4 landmarks" in verdict(page)
    points = frame.locator(".leaflet-overlay-pane path.leaflet-interactive")
    assert points.count() == 383  # every track point is a clickable circle marker
    assert frame.locator(".leaflet-lmdk-landmarks-pane path.leaflet-interactive").count() == 4

    k, _, _ = points.evaluate_all(FIND_FREE_POINT, 150)  # a point away from home
    point = points.nth(k)
    point.hover()
    tip = frame.locator(".leaflet-tooltip").first.inner_text()
    t = int(re.match(r"Point t=(\d+) ", tip).group(1))
    assert t not in before
    point.click()
    wait_landmark_count(page, 5)
    assert table_landmarks(page) == sorted([*before, t])
    assert "5 landmarks" in verdict(page)  # Uniform now gives ε/6 everywhere
    assert frame.locator(".leaflet-lmdk-landmarks-pane path.leaflet-interactive").count() == 5
    page.wait_for_timeout(1500)  # the same click is not processed twice
    assert table_landmarks(page) == sorted([*before, t])
    page.screenshot(path=str(ARTIFACTS / "map_after_click.png"), full_page=True)

    # clicking the new (red) landmark removes it again
    marks = frame.locator(".leaflet-lmdk-landmarks-pane path.leaflet-interactive")
    for i in range(marks.count()):
        marks.nth(i).hover(force=True)
        if frame.locator(".leaflet-tooltip").last.inner_text().startswith(f"Landmark t={t} "):
            marks.nth(i).click(force=True)
            break
    else:
        pytest.fail(f"no landmark marker for t={t}")
    wait_landmark_count(page, 4)
    assert table_landmarks(page) == before
    assert "4 landmarks" in verdict(page)
