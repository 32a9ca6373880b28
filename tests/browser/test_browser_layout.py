"""Page layout as drawn, at a desktop size (1440×900) and on a phone (390×844, touch):
nothing wider than the phone's screen, Compare one scheme at a time on a phone, Choose ε's
notes on screen, ε changed on a phone with the verdict in view, the Timeline's chart above
the fold, and the download a few key presses from the top of the page.

The numbers are the browser's own geometry (bounding boxes), not the page's data.
"""

from __future__ import annotations

import pytest

from tests.browser.test_browser_accessibility import PAGES, browser_page, focused, settle
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

PHONE_W, PHONE_H = 390, 844

#: the box of the verdict (the amber/green/red alert whose headline says landmark-private)
VERDICT_BOX = """() => { const a = [...document.querySelectorAll('[data-testid=stAlert]')]
    .find(a => a.innerText.includes('andmark-private'));
  if (!a) return null; const r = a.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, text: a.innerText}; }"""


def box(page, selector: str) -> dict:
    """The bounding box of the first element matching ``selector``, once it is in the
    page: a chart can be drawn a moment after Streamlit's run ends on a loaded machine
    (waited for up to 60 s, so a missing element fails with the selector named)."""
    page.wait_for_selector(selector, state="attached", timeout=60_000)
    return page.evaluate("""s => { const e = document.querySelector(s); if (!e) return null;
        const r = e.getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                width: r.width, height: r.height}; }""", selector)


def test_no_page_is_wider_than_a_phone(app_url):
    """On every page the document, and every element in the page's main column, stays
    within the phone's 390 px (tables and charts scroll inside themselves at most)."""
    with browser_page("phone") as page:
        for name in PAGES:
            page.goto(f"{app_url}/{name}")
            settle(page)
            wide = page.evaluate("""w => {
                const out = [];
                if (document.documentElement.scrollWidth > w)
                    out.push('document ' + document.documentElement.scrollWidth);
                const main = document.querySelector('[data-testid=stMain]');
                if (main.scrollWidth > w) out.push('main ' + main.scrollWidth);
                main.querySelectorAll('[data-testid=stElementContainer]').forEach(e => {
                    const r = e.getBoundingClientRect();
                    if (r.width > 0 && r.right > w + 1)
                        out.push((e.className.match(/st-key-\\S+/) || [e.innerText.slice(0, 40)])[0]
                                 + ' ' + Math.round(r.right));
                });
                return out; }""", PHONE_W)
            if wide:
                page.screenshot(path=str(ARTIFACTS / f"layout_phone_{name or 'home'}.png"))
            assert wide == [], (name or "home", wide)


def test_compare_is_one_scheme_per_tab_on_a_phone(app_url):
    """A phone: the side-by-side chart is not drawn; each scheme has its own tab with a
    chart of the screen's width. A desktop: the side-by-side chart, no tabs of charts
    (their chart is drawn only once the window is narrowed to a phone's width)."""
    with browser_page("phone") as page:
        page.goto(f"{app_url}/compare")
        settle(page)
        assert box(page, ".st-key-lmdk_wide_compare")["height"] == 0
        tabs = page.locator(".st-key-lmdk_narrow_compare [role=tab]").all_inner_texts()
        assert tabs == ["Uniform", "Skip", "Adaptive"], tabs
        chart = box(page, ".st-key-lmdk_narrow_compare .js-plotly-plot")
        assert chart["width"] >= PHONE_W - 60 and chart["right"] <= PHONE_W, chart
        page.locator(".st-key-lmdk_narrow_compare [role=tab]", has_text="Skip").click()
        page.wait_for_function("""() => [...document.querySelectorAll(
            '.st-key-lmdk_narrow_compare .js-plotly-plot')].filter(g =>
            g.getBoundingClientRect().width > 300).length === 1""", timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "layout_phone_compare_tab.png"))
        # the hidden side-by-side chart is not drawn on a phone
        assert page.locator(".st-key-lmdk_wide_compare .main-svg").count() == 0
    with browser_page("desktop") as page:
        page.goto(f"{app_url}/compare")
        settle(page)
        assert box(page, ".st-key-lmdk_narrow_compare")["height"] == 0
        assert box(page, ".st-key-lmdk_wide_compare .js-plotly-plot")["width"] > 800
        # the phone's tabs are hidden on a desktop: their chart waits, undrawn, until the
        # window is narrow enough to show it, and is drawn then
        narrow = ".st-key-lmdk_narrow_compare .main-svg"
        assert page.locator(narrow).count() == 0
        page.set_viewport_size({"width": PHONE_W, "height": PHONE_H})
        page.locator(narrow).first.wait_for(timeout=30_000)
        chart = box(page, ".st-key-lmdk_narrow_compare .js-plotly-plot")
        assert chart["width"] >= PHONE_W - 60 and chart["right"] <= PHONE_W, chart


def test_choose_epsilon_notes_are_on_a_phone_screen(app_url):
    """The explanation of 'unreachable' (the notes) is text inside the phone's width."""
    with browser_page("phone") as page:
        page.goto(f"{app_url}/choose")
        settle(page)
        note = page.locator("li", has_text="(unreachable):").first
        note.scroll_into_view_if_needed()
        r = note.bounding_box()
        assert r["x"] >= 0 and r["x"] + r["width"] <= PHONE_W, r
        assert "whatever ε" in note.inner_text() or len(note.inner_text()) > 30


@pytest.mark.parametrize("name", ["timeline", "map"])
def test_epsilon_changes_on_a_phone_with_the_verdict_in_view(app_url, name):
    """On a phone ε sits right above the verdict: with the field at the top of the screen
    the verdict is on the same screen, before and after the change (the sidebar, which
    covers the whole page on a phone, stays closed)."""
    field = ".st-key-lmdk_row_settings input[aria-label^='Total privacy budget']"
    with browser_page("phone") as page:
        page.goto(f"{app_url}/{name}")
        settle(page)
        inp = page.locator(field)
        # the row of ε (with its label) at the top of the screen
        page.locator(".st-key-lmdk_row_settings").evaluate(
            "e => e.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(300)
        for eps in ("2", "0.5"):
            inp.fill(eps)
            inp.press("Enter")
            page.wait_for_function(
                f"() => [...document.querySelectorAll('[data-testid=stAlert]')].some(a => "
                f"a.innerText.includes('andmark-private') && a.innerText.includes('ε = {eps} '))",
                timeout=60_000)
            settle(page)
            f = inp.bounding_box()
            v = page.evaluate(VERDICT_BOX)
            header = box(page, "[data-testid=stHeader]")
            # below Streamlit's fixed header (not hidden under it), on the screen
            assert header["bottom"] - 1 <= f["y"] and f["y"] + f["height"] <= PHONE_H, (f,
                                                                                      header)
            # the verdict's headline (its first ~3 lines) on the same screen as the field
            assert f["y"] < v["top"] and v["top"] + 60 <= PHONE_H, (f, v)
            assert page.evaluate("() => document.querySelector('[data-testid=stSidebar]')"
                                 ".getAttribute('aria-expanded')") != "true"
        page.screenshot(path=str(ARTIFACTS / f"layout_phone_{name}_epsilon.png"))
        # the sidebar's ε followed (one setting, two fields)
        assert page.locator("[data-testid=stSidebar] input[aria-label^='Total privacy "
                            "budget']").input_value() == "0.5"


def test_timeline_chart_above_the_fold_and_suggest_in_full(app_url):
    """1440×900: the chart one is told to click starts on the first screen with most of
    its data panel visible; 'Suggest' is not cut to 'Sug…'; the sidebar of the Map has
    no series settings, the sidebar of Compare no scheme, that of Learn nothing."""
    with browser_page("desktop") as page:
        page.goto(f"{app_url}/timeline")
        settle(page)
        chart = box(page, ".js-plotly-plot")
        assert chart["top"] < 900 - 300, chart
        label = page.get_by_role("button", name="Suggest")
        cut = label.evaluate("""b => [...b.querySelectorAll('p, span, div')].some(
            e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).textOverflow
            === 'ellipsis')""")
        assert not cut and "Suggest" in label.inner_text()
        page.screenshot(path=str(ARTIFACTS / "layout_desktop_timeline.png"))

        def sidebar_labels() -> list[str]:
            return page.locator("[data-testid=stSidebar] [data-testid=stWidgetLabel]"
                                ).all_inner_texts()

        for name, absent, present in [
                ("map", ["Time series", "Mechanism (series)", "Declared sensitivity Δf"],
                 ["Total privacy budget ε", "Budget scheme"]),
                ("compare", ["Budget scheme"], ["Total privacy budget ε"]),
                ("learn", ["Total privacy budget ε", "Budget scheme"], [])]:
            page.goto(f"{app_url}/{name}")
            settle(page)
            labels = " | ".join(sidebar_labels())
            assert all(a not in labels for a in absent), (name, labels)
            assert all(p in labels for p in present), (name, labels)


@pytest.mark.parametrize(("name", "download"), [("timeline", "Released series (CSV)"),
                                                ("map", "Released")])
def test_download_is_a_few_key_presses_away(app_url, name, download):
    """From the top of the page: Tab, Tab ('Skip to the downloads'), Enter puts the focus on
    the publishable download, with a visible focus ring; Enter downloads it."""
    with browser_page("desktop") as page:
        page.goto(f"{app_url}/{name}")
        settle(page)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        presses = 0
        for _ in range(8):
            page.keyboard.press("Tab")
            presses += 1
            f = focused(page)
            assert f["ring"] or f["tag"] == "BODY", f
            if f["text"] == "Skip to the downloads":
                assert f["visible"], f
                break
        else:
            raise AssertionError(f"no 'Skip to the downloads' within 8 Tabs: {focused(page)}")
        page.keyboard.press("Enter")
        presses += 1
        f = focused(page)
        assert f["tag"] == "BUTTON" and download in f["text"], f
        assert f["visible"] and f["ring"], f
        with page.expect_download(timeout=60_000) as dl:
            page.keyboard.press("Enter")
        assert presses <= 8, presses
        print(f"{name}: {presses} key presses to the download button")
        assert dl.value.suggested_filename, dl.value
