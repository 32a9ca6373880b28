"""The HTML privacy report (lmdk_core.report) and the pages' download button."""

from __future__ import annotations

import copy
import importlib.util
from datetime import UTC, datetime
from html.parser import HTMLParser

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.engine.release import release_series
from lmdk_core.files.config import ViewConfig, config_from_json, config_to_json
from lmdk_core.foundation.errors import InputError
from lmdk_core.report import (
    build_report,
    compute_report,
    correlation_model,
    render_html,
    report_filename,
)
from tests.conftest import ARTIFACTS

NOW = datetime(2025, 1, 2, 3, 4, tzinfo=UTC)
HAS_DEMO_TRACK = importlib.util.find_spec("lmdk_core.data.demo_track") is not None


class Page(HTMLParser):
    """Collects tags, external references, ids and text; checks that tags nest."""

    VOID = {"meta", "link", "br", "img", "input", "hr", "col", "source", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.external: list[str] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.scripts = 0
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("src", "href"):
            v = (a.get(key) or "").strip().lower()
            if v.startswith(("http:", "https:", "//")):
                self.external.append(f"{tag} {key}={v}")
        if tag == "script":
            self.scripts += 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
            return
        self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] in ("script", "style"):
            return
        self.text.append(data)


def parse(text: str) -> Page:
    p = Page()
    p.feed(text)
    p.close()
    assert not p.errors, p.errors[:5]
    assert not p.stack, p.stack
    return p


def series_cfg(**kw) -> ViewConfig:
    base = dict(landmarks=demo_series_landmarks(), sensitivity=0.2, seed=7)
    base.update(kw)
    return ViewConfig(**base)


def embedded_track_cfg(**kw) -> ViewConfig:
    t = np.arange(40)
    data = {"time": [f"2024-05-01T08:{m:02d}:00" for m in t],
            "lat": (48.85 + 0.0004 * t).tolist(), "lon": (2.35 + 0.0003 * np.sin(t)).tolist()}
    base = dict(data_kind="track", dataset="embedded", data=data, landmarks=[5, 20],
                radius=150.0, seed=3, page="map", extra={"cell_size_m": 200.0})
    base.update(kw)
    return ViewConfig(**base)


# ---------------------------------------------------------------- series
def test_series_report_is_valid_offline_html_with_the_verdict_and_figures():
    cfg = series_cfg()
    text = build_report(copy.deepcopy(cfg), now=NOW)
    page = parse(text)
    assert text.startswith("<!DOCTYPE html>")
    assert page.external == []  # no CDN script, no remote stylesheet or image
    assert "link" not in page.tags
    assert page.scripts == 0 and "plotly.js" not in text  # charts are static SVG
    assert {"fig-budget", "fig-error", "fig-leakage"} <= page.ids
    body = " ".join(page.text)
    rd = compute_report(copy.deepcopy(cfg), now=NOW)
    v = rd.release.verdict
    assert "Landmark-private" in body and "NOT landmark-private" not in body
    assert f"t={v.worst_timestamp}" in body
    assert "2025-01-02 03:04 UTC" in body and "seed 7" in body
    assert "Uniform" in body and "Laplace" in body and "0.2 kWh" in body
    assert "Tue 05 Mar 03:00" in body  # landmark 27 in the landmark table
    # no extra.correlation: the default model, estimated from the data (deciles)
    assert "Correlation model" in body and "10 equal-count bins" in body
    assert "Largest landmark TPL" in body
    assert "measured at noisy releases" in body and "expected at noisy releases" in body


def test_report_recomputes_the_pages_release_exactly():
    cfg = series_cfg(scheme="skip", seed=11)
    rd = compute_report(copy.deepcopy(cfg))
    s = demo_series()
    ref = release_series(s.values, cfg.landmarks, epsilon=cfg.epsilon, scheme="skip",
                         mechanism="laplace", sensitivity=0.2, seed=11, window=10)
    np.testing.assert_array_equal(rd.release.released, ref.released)
    np.testing.assert_array_equal(rd.release.epsilon_t, ref.epsilon_t)
    # the leakage without correlation reduces to the theorem's totals
    leak_free = compute_report(series_cfg(extra={"correlation": {"model": "smoothed",
                                                                 "strength": 1e9}}))
    np.testing.assert_allclose(leak_free.leakage.landmark_tpl,
                               leak_free.release.verdict.totals, rtol=1e-6)


def test_violated_allocation_names_the_worst_timestamp():
    cfg = series_cfg(scheme="event")
    text = build_report(cfg)
    body = " ".join(parse(text).text)
    assert "NOT landmark-private" in body
    assert "over budget" in body and "t=0" in body


def test_embedded_series_and_clear_errors():
    data = {"time": list(range(30)), "value": [float(i % 7) for i in range(30)]}
    cfg = ViewConfig(dataset="embedded", data=data, landmarks=[3, 10], mechanism="geometric",
                     sensitivity=1.0)
    body = " ".join(parse(build_report(cfg)).text)
    assert "embedded in the configuration" in body and "Geometric" in body
    bad = ViewConfig(dataset="embedded", data={"time": [0, 1], "value": [0.5, 1.5]},
                     mechanism="geometric")
    with pytest.raises(InputError, match="whole numbers"):
        build_report(bad)
    with pytest.raises(InputError, match="beyond the end"):
        build_report(ViewConfig(dataset="embedded", data=data, landmarks=[30]))
    with pytest.raises(InputError, match="unknown series dataset"):
        build_report(ViewConfig(dataset="demo-nowhere"))
    with pytest.raises(InputError, match="value"):
        build_report(ViewConfig(dataset="embedded", data={"time": [0, 1]}))
    with pytest.raises(InputError, match="correlation"):
        build_report(series_cfg(extra={"correlation": {"model": "magic"}}))


def test_every_user_string_is_escaped():
    evil = "<script>alert('x')</script>"
    cfg = series_cfg(extra={"title": evil, "note": "<img src=x onerror=alert(1)>",
                            evil: "key"}, page="</pre><b>page</b>")
    text = build_report(cfg)
    page = parse(text)
    assert evil not in text and "<img" not in text and "</pre><b>" not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in text
    assert page.tags.count("img") == 0
    # the charts are static SVG: no script at all, so nothing injected runs
    assert page.scripts == 0
    assert "<title>&lt;script&gt;" in text


def test_no_correlation_model_on_request_and_filename():
    cfg = series_cfg(extra={"correlation": {"model": "none"}})
    text = build_report(cfg)
    page = parse(text)
    assert "fig-leakage" not in page.ids
    assert "Leakage not computed" in " ".join(page.text)
    assert report_filename(cfg, NOW) == "lmdk_CONFIDENTIAL_report_series_20250102-0304.html"


def test_config_round_trip_gives_the_same_report():
    cfg = series_cfg()
    again = config_from_json(config_to_json(copy.deepcopy(cfg)))
    assert build_report(copy.deepcopy(cfg), now=NOW) == build_report(again, now=NOW)


# ---------------------------------------------------------------- tracks
def test_embedded_track_report():
    cfg = embedded_track_cfg()
    text = build_report(cfg, now=NOW)
    page = parse(text)
    assert page.external == []
    assert {"fig-path", "fig-budget", "fig-error", "fig-leakage"} <= page.ids
    body = " ".join(page.text)
    assert "Planar Laplace" in body and "150 m" in body
    assert "grid cells of 200 m" in body
    assert "expected, Planar Laplace (m)" in body
    rd = compute_report(embedded_track_cfg())
    assert rd.release.expected_errors[rd.release.published] == pytest.approx(
        2 * 150.0 / rd.release.epsilon_t[rd.release.published])


def test_track_correlation_model_checks():
    cfg = embedded_track_cfg(extra={"correlation": {"model": "smoothed", "states": 4}})
    model = correlation_model(cfg, compute_report(embedded_track_cfg()).data)
    assert model.n_states == 4 and model.backward.shape == (4, 4)
    with pytest.raises(InputError, match="cell_size_m"):
        build_report(embedded_track_cfg(extra={"cell_size_m": -5}))
    with pytest.raises(InputError, match="for series"):
        build_report(embedded_track_cfg(extra={"correlation": {"model": "estimated"}}))


@pytest.mark.skipif(not HAS_DEMO_TRACK, reason="lmdk_core.data.demo_track not present")
def test_demo_paris_track_report():
    cfg = ViewConfig(data_kind="track", dataset="demo-paris", landmarks=[10, 200], radius=100.0,
                     page="map")
    body = " ".join(parse(build_report(cfg)).text)
    assert "A day in Paris" in body and "Landmark-private" in body


# ---------------------------------------------------------------- the pages' button
def _button_app():  # pragma: no cover - runs inside AppTest
    from app_support.report_button import report_download_button
    from lmdk_core.files.config import ViewConfig

    report_download_button(ViewConfig(landmarks=[3, 7]), key="good_report")
    bad = ViewConfig(landmarks=[3])
    bad.epsilon = -1
    report_download_button(bad, key="bad_report")


def test_report_button_offers_the_file_and_explains_bad_configs():
    at = AppTest.from_function(_button_app, default_timeout=60).run()
    assert not at.exception
    buttons = at.get("download_button")
    assert [b.key for b in buttons] == ["good_report_note", "good_report"]
    assert "Public release note" in buttons[0].label
    assert buttons[1].label.startswith("CONFIDENTIAL") and "privacy report" in buttons[1].label
    assert any("No privacy report" in e.value and "epsilon" in e.value for e in at.error)


def test_report_bytes_never_raises():
    from app_support.report_button import report_bytes

    good = report_bytes(series_cfg())
    assert good.startswith(b"<!DOCTYPE html>") and b"Landmark-private" in good
    bad = report_bytes(ViewConfig(dataset="embedded", data={"time": [0], "value": [1]},
                                  landmarks=[4]))
    assert b"Privacy report not available" in bad and b"beyond the end" in bad


# ---------------------------------------------------------------- a real browser, offline
@pytest.mark.browser
def test_report_renders_offline_in_chromium(tmp_path):
    from tests.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    path = tmp_path / "report.html"
    path.write_text(build_report(series_cfg(), now=NOW), encoding="utf-8")
    requests: list[str] = []
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})

        def block(route):
            requests.append(route.request.url)
            route.abort()

        page.route("http*://**/*", block)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_selector("#fig-leakage svg", timeout=30_000)
        n_plots = page.locator("figure.chart svg").count()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report_series.png"), full_page=True)
        browser.close()
    assert requests == [] and errors == []
    assert n_plots == 3


def test_compare_report_lists_every_scheme_with_its_verdict():
    from lmdk_core.data.demo import demo_series
    from lmdk_core.decision.comparison import compare_schemes, series_release_fn

    lm = [27, 28, 85]
    cfg = ViewConfig(landmarks=lm, page="compare", seed=4,
                     extra={"compare_schemes": ["uniform", "skip", "event"]})
    rd = compute_report(cfg)
    assert [k for k, _, _ in rd.comparison] == ["uniform", "skip", "event"]
    rels = compare_schemes(series_release_fn(demo_series().values, lm, mechanism="laplace",
                                             sensitivity=1.0, window=10, max_landmarks=5),
                           ["uniform", "skip", "event"], 1.0, 4)
    for key, rel, leak in rd.comparison:
        np.testing.assert_array_equal(rel.epsilon_t, rels[key].epsilon_t)
        assert leak.computed
    text = render_html(rd)
    section = text[text.index("Schemes compared"):text.index("Reproducibility")]
    assert section.count("NOT landmark-private") == 1 and section.count("landmark-private") == 3
    m = rels["skip"].metrics()["mae"]
    assert f"{m:.3g}" in section


@pytest.mark.parametrize("bad", ["uniform", [], ["uniform", "nope"], [1, 2]])
def test_bad_compare_schemes_are_refused(bad):
    cfg = ViewConfig(landmarks=[3], extra={"compare_schemes": bad})
    with pytest.raises(InputError, match="compare_schemes|unknown scheme"):
        compute_report(cfg)
