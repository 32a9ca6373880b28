"""Accessibility in a real browser (WCAG 2.1 AA): axe-core on every page at a desktop
size and on a phone with every expander open, every tab and popover shown (and on the
large data: a 2,000-row series, a 5,000-point track), a text alternative on every chart,
the scrub sliders by keyboard, and one keyboard-only walk through the main flow of the
Timeline page.

axe-core (through ``axe-playwright-python``) checks what it can check automatically:
contrast, heading order, lists, table headers, names of controls. What remains of
Streamlit's own markup, and what axe cannot judge, is listed in docs/accessibility.md.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import pytest

from tests.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SCRUB_SLIDER,
    wait_for_app,
    wait_until_still,
)
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

PAGES = ["", "learn", "timeline", "map", "choose", "compare", "leakage", "dummies",
         "population"]
#: the pages that show the series uploaded on the Timeline
LARGE_SERIES_PAGES = ["timeline", "choose", "compare", "leakage", "dummies"]
#: the scrub sliders (app_support/live_chart.js, map_scrub.js) of each page, by what
#: their names start with
SCRUB_SLIDERS = {"timeline": ["Total privacy budget ε"], "compare": ["Total privacy budget ε"],
                 "map": ["Total privacy budget ε", "Protection radius r"]}
SIZES = {
    "desktop": {"viewport": {"width": 1440, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True,
              "is_mobile": True, "device_scale_factor": 2},
}
#: rules that fail only on markup Streamlit draws and the app cannot change, with the
#: upstream reference (docs/accessibility.md); none at the moment
UPSTREAM: dict[str, str] = {}


@contextlib.contextmanager
def browser_page(size: str):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(**SIZES[size]).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            yield page
        finally:
            browser.close()
        assert not errors, errors


def settle(page) -> None:
    """Streamlit has finished running, the app's accessibility script is in (its links
    and focus ring), and the page has been still for a moment."""
    wait_for_app(page)
    page.wait_for_selector("a.lmdk-skip", state="attached", timeout=120_000)
    wait_until_still(page, 800, 120_000)


def open_expanders(page) -> None:
    """Open every closed expander of the page, those inside an opened one too (a click on
    its summary, as a person would; Streamlit draws an expander's content closed too)."""
    closed = page.locator("[data-testid=stExpander] details:not([open]) > summary")
    for _ in range(60):
        if not closed.count():
            break
        closed.first.click()
    assert not closed.count(), "an expander does not open"
    wait_until_still(page, 500, 60_000)


def page_states(page, name: str) -> Iterator[str]:
    """Bring the page at ``name`` (already loaded) into each state axe is to see, with
    every expander open in each: each tab of its tab bars (Learn's lessons, Choose ε's
    questions), each popover open (the Timeline's *Suggest*; then its suggestions found
    and shown on the page), the Map's landmark table. Yields each state's label."""
    main = page.locator("[data-testid=stMain]")
    tabs = main.locator("[data-testid=stTabs] [role=tab]:visible")
    for i in range(max(1, tabs.count())):
        if i:
            tabs.nth(i).click()
            settle(page)
        open_expanders(page)
        yield f"{name or 'home'} tab {i + 1}" if tabs.count() else (name or "home")
    buttons = main.locator("[data-testid=stPopoverButton]:visible")
    for i in range(buttons.count()):
        buttons.nth(i).click()
        body = page.locator("[data-testid=stPopoverBody]").last
        body.wait_for(timeout=30_000)
        open_expanders(page)
        yield f"{name} popover {i + 1}"
        find = body.locator("button").filter(has_text="Find suggestions")
        suggests = find.count() > 0
        if suggests:
            find.click()
            page.get_by_role("button", name="Accept all").wait_for(timeout=60_000)
            settle(page)
        page.keyboard.press("Escape")
        body.wait_for(state="hidden", timeout=30_000)
        if suggests:
            open_expanders(page)
            yield f"{name} suggestions"
    if name == "map":  # the Map's landmark table, drawn on request
        page.locator("[data-testid=stCheckbox]").filter(
            has_text="Edit the landmarks as a table").locator("label").first.click()
        page.wait_for_selector("[data-testid=stDataFrame]", timeout=60_000)
        settle(page)
        open_expanders(page)
        yield "map table"


def serious_violations(axe, page) -> list[str]:
    """The critical and serious violations axe finds on the page as it is now (those of
    :data:`UPSTREAM` aside); the moderate and minor ones the app fixed stay fixed too."""
    violations = axe.run(page).response["violations"]
    for v in violations:
        assert v["id"] not in ("heading-order", "empty-table-header"), v
    return [f"{v['impact']} {v['id']} ({len(v['nodes'])}×): {v['help']}; e.g. "
            f"{v['nodes'][0]['html'][:160]}"
            for v in violations
            if v["impact"] in ("critical", "serious") and v["id"] not in UPSTREAM]


def axe_every_state(page, app_url: str, names: list[str], size: str,
                    found: dict[str, list[str]], shows: str = "") -> None:
    """axe on each page of ``names`` in each of its :func:`page_states`; what it finds
    goes into ``found`` (and a screenshot into the artifacts). With ``shows`` (a pattern
    the page must show: the uploaded data) each page is opened by its link in the page
    list, in the same session (a reload would start a new one, on the demo data)."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    for name in names:
        if shows:
            page.locator(f'.st-key-page_nav a[href="{name}"]').click()
            settle(page)
            assert re.search(shows, page.locator("[data-testid=stMain]").inner_text()), name
        else:
            page.goto(f"{app_url}/{name}")
            settle(page)
        # the scrub slider, drawn by its component after the run (Compare's phone tabs
        # have none)
        if name in SCRUB_SLIDERS and (name, size) != ("compare", "phone"):
            page.locator(SCRUB_SLIDER).first.wait_for(state="attached", timeout=60_000)
        for label in page_states(page, name):
            bad = serious_violations(axe, page)
            if bad:
                shot = f"axe_{size}_{label.replace(' ', '_')}.png"
                page.screenshot(path=str(ARTIFACTS / shot), full_page=True)
                found[f"{size} {label}"] = bad


@pytest.mark.parametrize("size", list(SIZES))
def test_axe_finds_no_serious_violation_on_any_page(app_url, size):
    """Every page on the demo data, every expander open, every tab and popover shown."""
    found: dict[str, list[str]] = {}
    with browser_page(size) as page:
        axe_every_state(page, app_url, PAGES, size, found)
    assert not found, found


def test_axe_finds_no_serious_violation_on_large_data(app_url, tmp_path):
    """The series pages on an uploaded 2,000-row series and the Map on an uploaded
    5,000-point track (the large data of benchmarks/bench_browser.py, uploaded the same
    way), every expander open (desktop). Population has only its demo population, checked
    above."""
    from benchmarks.bench_browser import Wire, series_csv, track_csv, upload

    found: dict[str, list[str]] = {}
    with browser_page("desktop") as page:
        wire = Wire(page)
        page.goto(f"{app_url}/timeline")
        settle(page)
        upload(page, wire, series_csv(2000, tmp_path))
        axe_every_state(page, app_url, LARGE_SERIES_PAGES, "large", found,
                        r"series_2000\.csv|2,000 (timestamps|values)")
        page.goto(f"{app_url}/map")
        settle(page)
        upload(page, wire, track_csv(5000, tmp_path))
        axe_every_state(page, app_url, ["map"], "large", found,
                        r"track_5000\.csv.*5,000 points")
    assert not found, found


def test_every_chart_has_a_text_alternative(app_url):
    """Each plotly chart is a named figure (its SVG hidden from screen readers); the
    Map's Leaflet map and Vega-Lite panels are named too."""
    with browser_page("desktop") as page:
        for name, charts in [("timeline", 1), ("leakage", 2), ("compare", 1), ("map", 0)]:
            page.goto(f"{app_url}/{name}")
            settle(page)
            page.wait_for_function(
                "n => document.querySelectorAll('.js-plotly-plot[aria-label]').length >= n",
                arg=charts, timeout=60_000)
            figs = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')]
                .map(g => [g.getAttribute('role'), g.getAttribute('aria-label') || '',
                           [...g.querySelectorAll('svg.main-svg')]
                               .every(s => s.getAttribute('aria-hidden') === 'true')])""")
            assert len(figs) >= charts, (name, figs)
            for role, label, hidden in figs:
                assert role == "figure" and hidden, (name, role, hidden)
                assert len(label) >= 30, (name, label)
            if name == "timeline":
                assert re.search(r"Timeline chart of 168 timestamps.*5 landmarks",
                                 figs[0][1]), figs[0][1]
            if name == "map":
                label = page.locator(".lmdk-track-map").get_attribute("aria-label")
                assert "landmark" in label and "type its t" in label, label
                vega = page.evaluate("""() => [...document.querySelectorAll('.vega-embed')]
                    .map(v => (v.querySelector('[aria-label]') || v)
                        .getAttribute('aria-label') || '')""")
                assert vega and all("Budget" in v or "Leakage" in v or "Displacement" in v
                                    for v in vega), vega


def test_every_scrub_slider_steps_by_keyboard_and_says_its_value(app_url):
    """The ε slider above the Timeline's and Compare's charts and the Map's ε and r
    sliders: in the Tab order, named with their visible label in the name (2.5.3), the
    arrow keys step them, and the value stepped to is said (``aria-valuetext``; the
    preview's verdict is a status region, announced politely)."""
    with browser_page("desktop") as page:
        for name, starts in SCRUB_SLIDERS.items():
            page.goto(f"{app_url}/{name}")
            settle(page)
            sliders = page.locator(SCRUB_SLIDER)
            sliders.nth(len(starts) - 1).wait_for(timeout=60_000)
            assert sliders.count() == len(starts), (name, sliders.count())
            for nth, start in enumerate(starts):
                slider = sliders.nth(nth)
                label = slider.get_attribute("aria-label")
                shown = page.locator(f"label[for='{slider.get_attribute('id')}']").inner_text()
                assert label.startswith(start) and shown.strip() in label, (label, shown)
                assert slider.evaluate("e => e.tabIndex === 0 && !e.disabled")
                said, before = slider.get_attribute("aria-valuetext"), int(slider.input_value())
                assert re.fullmatch(r"[εr] = [\d.,]+( k?m)?", said), said
                slider.focus()
                page.keyboard.press("ArrowLeft")
                page.keyboard.press("ArrowLeft")
                assert int(slider.input_value()) == before - 2, name
                # what it says on the preview frame (read there: 300 ms after the last
                # key the value goes to the server, whose rerun says it without "preview")
                now = slider.evaluate("""e => new Promise(done => { const t = performance.now();
                    (function wait() { const v = e.getAttribute('aria-valuetext') || '';
                      if (v.includes('preview') || performance.now() - t > 30000) done(v);
                      else requestAnimationFrame(wait); })(); })""")
                assert "preview" in now and now.split(",")[0] != said, (said, now)
                verdict = page.locator(".lmdk-scrub-verdict").first
                assert verdict.get_attribute("role") == "status" and verdict.inner_text()
                settle(page)  # the stepped value, sent once, reruns the page


def focused(page) -> dict:
    return page.evaluate("""() => { const e = document.activeElement; const r =
        e.getBoundingClientRect(); const s = getComputedStyle(e);
        return {tag: e.tagName, label: e.getAttribute('aria-label') || '',
                text: (e.innerText || '').trim().slice(0, 60),
                visible: r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight,
                ring: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2}; }""")


def tab_to(page, match, most: int) -> int:
    """Press Tab until the focused element satisfies ``match``; at most ``most`` presses,
    each landing on a visible element with a focus ring. Returns the presses used."""
    for n in range(1, most + 1):
        page.keyboard.press("Tab")
        f = focused(page)
        assert f["ring"] or f["tag"] == "BODY", f"no visible focus ring on {f}"
        if match(f):
            assert f["visible"], f
            return n
    raise AssertionError(f"not reached in {most} Tab presses; last: {focused(page)}")


def chips(page) -> list[str]:
    text = page.locator("[data-testid=stMultiSelect]").first.inner_text()
    return re.findall(r"t=(\d+) ", text)


def test_keyboard_only_walk_through_the_timeline(app_url):
    """ε and the scheme, a landmark marked by its t and unmarked, the suggestions
    accepted, the release downloaded: all with the keyboard, each in a few presses."""
    with browser_page("desktop") as page:
        page.goto(f"{app_url}/timeline?k=50")  # a declared k above the marks made below
        settle(page)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        # 1. the first Tab: the link to the settings, then ε
        tab_to(page, lambda f: f["text"].startswith("Skip to the settings"), 1)
        page.keyboard.press("Enter")
        assert focused(page)["label"].startswith("Total privacy budget"), focused(page)
        page.keyboard.press("Control+a")
        page.keyboard.type("2")
        page.keyboard.press("Enter")
        page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')]"
                               ".some(g => (g.getAttribute('aria-label') || '')"
                               ".includes('ε = 2 '))", timeout=60_000)
        settle(page)
        # 2. the scheme: two Tabs, type its name, Enter
        tab_to(page, lambda f: f["label"] == "Budget scheme", 3)
        page.keyboard.type("Skip")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('[data-testid=stSidebar] "
                               "input[aria-label=\"Budget scheme\"]').value.startsWith('Skip')",
                               timeout=60_000)
        settle(page)
        # 3. back to the page (past the declared k), and to the landmark picker
        tab_to(page, lambda f: f["text"] == "Back to the page", 3)
        page.keyboard.press("Enter")
        settle(page)
        before = chips(page)
        assert "40" not in before
        tab_to(page, lambda f: f["tag"] == "INPUT" and f["label"].startswith("Landmarks"),
               4 + len(before))
        page.keyboard.type("40")
        page.keyboard.press("Enter")
        page.wait_for_function("() => /t=40 /.test(document.querySelector("
                               "'[data-testid=stMultiSelect]').innerText)", timeout=60_000)
        settle(page)
        assert sorted(map(int, chips(page))) == sorted(map(int, before + ["40"]))
        # 4. unmark it: Shift+Tab to the chips, arrows to its chip, Backspace
        assert focused(page)["label"].startswith("Landmarks"), focused(page)
        page.keyboard.press("Shift+Tab")
        for _ in range(len(before) + 1):
            if focused(page)["label"].startswith("t=40 "):
                break
            page.keyboard.press("ArrowRight")
        f = focused(page)
        assert f["label"].startswith("t=40 ") and f["ring"], f
        page.keyboard.press("Backspace")
        page.wait_for_function("() => !/t=40 /.test(document.querySelector("
                               "'[data-testid=stMultiSelect]').innerText)", timeout=60_000)
        settle(page)
        assert sorted(chips(page)) == sorted(before)
        # 5. the suggestions: Suggest, Tab into it, Find suggestions; Escape; Accept all
        tab_to(page, lambda f: "Suggest" in f["text"], 8)
        page.keyboard.press("Enter")
        tab_to(page, lambda f: f["text"] == "Find suggestions", 8)
        page.keyboard.press("Enter")
        page.get_by_role("button", name="Accept all").wait_for(timeout=60_000)
        settle(page)
        page.keyboard.press("Escape")
        tab_to(page, lambda f: f["text"] == "Accept all", 8)
        page.keyboard.press("Enter")
        page.wait_for_function("n => (document.querySelector('[data-testid=stMultiSelect]')"
                               ".innerText.match(/t=\\d+ /g) || []).length > n",
                               arg=len(before), timeout=60_000)
        settle(page)
        # 6. the publishable release: Tab on to its download button, Enter (the browser
        # keeps its place in the page although the button pressed last is gone)
        with page.expect_download(timeout=60_000) as dl:
            presses = tab_to(page, lambda f: f["tag"] == "BUTTON"
                             and "Released series (CSV)" in f["text"], 40)
            page.keyboard.press("Enter")
        print(f"download button: {presses} Tab presses after 'Accept all'")
        assert dl.value.suggested_filename.endswith(".csv"), dl.value.suggested_filename
        page.screenshot(path=str(ARTIFACTS / "keyboard_walk.png"))


def test_the_maps_landmark_field_is_three_tabs_and_enter_away(app_url):
    """'Skip to the landmarks', the third Tab on the Map (and the Timeline), puts the
    focus in the landmark field (it was 35 Tab presses away on the Map)."""
    with browser_page("desktop") as page:
        for name, label in (("map", "Landmarks"), ("timeline", "Landmarks (")):
            page.goto(f"{app_url}/{name}")
            settle(page)
            page.evaluate("() => document.activeElement && document.activeElement.blur()")
            for _ in range(3):
                page.keyboard.press("Tab")
            assert page.evaluate("() => document.activeElement.textContent") == \
                "Skip to the landmarks"
            page.keyboard.press("Enter")
            page.wait_for_function(
                "() => !!document.activeElement.closest('[data-testid=stMultiSelect]')",
                timeout=10_000)
            field = page.evaluate("() => document.activeElement.closest("
                                  "'[data-testid=stMultiSelect]').querySelector('label')"
                                  ".textContent")
            assert field.startswith(label), field
