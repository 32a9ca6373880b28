"""Real browser: the Map's ε and r sliders (app_support/map_scrub.py) preview the release
on the map while they are dragged — the released points move, no script runs — and the
page reruns once when one is let go, to the release the preview showed (the same noise
draws, scaled: lmdk_core.figures.map.track_noise_bases)."""

from __future__ import annotations

import math

import pytest

from tests.browser import (
    SCRUB_SLIDER,
    ScriptRuns,
    drag_scrub,
    scrub_frames,
    wait_for_app,
    wait_for_map,
    wait_until_still,
)

pytestmark = pytest.mark.browser

#: the drawn released points as [lat, lon] and the noise's base of each, in the
#: order they were sent (published, then approximated)
RELEASED = "() => window.__lmdkTrackMap.releasedNow()"
RADIUS_FIELD = "input[aria-label^='Protection radius r']"


def slider_value(page, nth: int) -> float:
    """The value the ``nth`` scrub slider says (its aria-valuetext 'ε = 0.5, preview' or
    'r = 1,250 m, preview')."""
    text = page.locator(SCRUB_SLIDER).nth(nth).get_attribute("aria-valuetext")
    number = text.split(",")[0].split("=")[1] if text.count(",") and text.startswith("ε") \
        else text.split("=")[1].split(" m")[0]
    return float(number.replace(",", ""))


def open_map(page, app_url) -> None:
    page.goto(app_url + "/map")
    wait_for_app(page)
    wait_for_map(page)
    page.wait_for_selector(SCRUB_SLIDER, timeout=60_000)
    wait_until_still(page)


def close(preview: list, released: list, rel: float = 0.01) -> bool:
    """Every released point where the preview put it, within ``rel`` of its displacement
    from its base (the release converts metres to degrees on the sphere; the preview
    scales the degrees) plus 1e-6° of rounding."""
    assert len(preview) == len(released)
    for (a_lat, a_lon, b_lat, b_lon), (c_lat, c_lon, _, _) in zip(preview, released,
                                                                   strict=True):
        shift = math.hypot(c_lat - b_lat, c_lon - b_lon)
        if math.hypot(a_lat - c_lat, a_lon - c_lon) > rel * shift + 1e-6:
            return False
    return True


@pytest.mark.parametrize("nth", [1, 0], ids=["r", "epsilon"])
def test_the_maps_sliders_move_the_released_points_and_rerun_once(page, app_url, nth):
    runs = ScriptRuns(page)
    open_map(page, app_url)
    before = page.evaluate(RELEASED)
    assert before, "the demo track's release has released points with their bases"
    runs_before, frames_before = runs.finished, scrub_frames(page)
    # r: from 30 % of its range to 70 % (larger noise); ε: from 90 % down to 40 %
    start, end = (0.3, 0.7) if nth == 1 else (0.9, 0.4)
    drag_scrub(page, start, end, 1.0, nth=nth, release=False)
    page.wait_for_timeout(300)  # a message the drag might have sent would be back
    assert scrub_frames(page) - frames_before >= 2
    assert runs.finished == runs_before  # no script ran while dragging
    verdict = page.locator(".lmdk-map-scrub .lmdk-scrub-verdict")
    words = verdict.inner_text()
    assert words.startswith("Preview at ε = ") and "(not a release)" in words, words
    assert "mean displacement" in words
    preview = page.evaluate(RELEASED)
    assert any(abs(p[0] - b[0]) > 1e-9 for p, b in zip(preview, before, strict=True))
    value = slider_value(page, nth)
    page.mouse.up()
    if nth == 1:
        field = page.locator(RADIUS_FIELD).first
        page.wait_for_function(
            "([sel, r]) => Math.abs(parseFloat(document.querySelector(sel).value) - r) < 0.6",
            arg=[RADIUS_FIELD, value], timeout=30_000)
    else:
        field = page.locator(
            "[data-testid=stSidebar] input[aria-label^='Total privacy budget']")
        page.wait_for_function(
            "e => Math.abs(parseFloat(document.querySelector("
            "\"[data-testid=stSidebar] input[aria-label^='Total privacy budget']\").value)"
            " - e) < 1e-9 * e", arg=value, timeout=30_000)
    wait_for_app(page)
    wait_for_map(page)
    wait_until_still(page)
    assert runs.finished == runs_before + 1, runs.finished - runs_before
    assert float(field.input_value().replace(",", "")) == pytest.approx(value, abs=0.5)
    assert verdict.inner_text().startswith("ε = ")
    # the server's release at the new setting is where the preview put every point
    assert close(preview, page.evaluate(RELEASED))


def test_the_maps_sliders_step_by_keyboard_and_say_their_value(page, app_url):
    runs = ScriptRuns(page)
    open_map(page, app_url)
    slider = page.locator(SCRUB_SLIDER).nth(1)
    assert slider.get_attribute("aria-label").startswith("Protection radius r")
    before, runs_before = slider.input_value(), runs.finished
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert int(slider.input_value()) == int(before) + 2
    page.wait_for_function(
        "() => (document.querySelectorAll('.lmdk-scrub input[type=range]')[1]"
        ".getAttribute('aria-valuetext') || '').includes('preview')", timeout=30_000)
    value = slider_value(page, 1)
    page.wait_for_function(
        "([sel, r]) => Math.abs(parseFloat(document.querySelector(sel).value) - r) < 0.6",
        arg=[RADIUS_FIELD, value], timeout=30_000)
    wait_for_app(page)
    wait_until_still(page)
    assert runs.finished == runs_before + 1  # two steps, one run
