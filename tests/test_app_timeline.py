"""AppTest: the shell and the Timeline page on demo data."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lmdk_core.allocation import SCHEMES
from tests.conftest import ROOT, open_page

TIMEOUT = 60


@pytest.fixture
def timeline() -> AppTest:
    return open_page("timeline", TIMEOUT)


def verdict_text(at: AppTest) -> str:
    return " ".join(e.value for e in at.success) + " ".join(e.value for e in at.error)


def test_home_renders():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception
    assert "Landmark Privacy Explorer" in at.title[0].value
    assert at.sidebar.number_input(key="w_epsilon").value == 1.0


def test_timeline_renders_demo(timeline):
    at = timeline
    assert "Timeline" in at.title[0].value
    assert at.multiselect(key="w_lm_select").value == [27, 28, 85, 86, 139]
    assert "Landmark-private" in verdict_text(at)
    labels = [m.label for m in at.metric]
    assert "MAE (measured)" in labels and "Expected at noisy releases" in labels


def test_toggling_landmarks_changes_allocation_and_verdict(timeline):
    at = timeline
    at.sidebar.selectbox(key="w_scheme").set_value("event").run()
    assert "Not landmark-private" in verdict_text(at)
    at.multiselect(key="w_lm_select").set_value([40]).run()
    assert not at.exception
    assert "Not landmark-private" in verdict_text(at)  # ε_40 + ε_t = 2ε
    at.multiselect(key="w_lm_select").set_value([]).run()
    assert "Landmark-private" in verdict_text(at) and "Not" not in verdict_text(at)
    at.multiselect(key="w_lm_select").set_value([40]).run()
    at.sidebar.selectbox(key="w_scheme").set_value("uniform").run()
    # expected error reflects ε/(|L|+1) = 0.5 with Δf = 0.2 -> 0.4 kWh
    expected = next(m.value for m in at.metric if m.label == "Expected at noisy releases")
    assert expected.startswith("0.4")
    at.multiselect(key="w_lm_select").set_value([1, 2, 3]).run()
    expected = next(m.value for m in at.metric if m.label == "Expected at noisy releases")
    assert expected.startswith("0.8")  # ε_t = 1/4
    clear = next(b for b in at.button if b.label == "Clear")
    clear.click().run()
    assert at.multiselect(key="w_lm_select").value == []


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_every_scheme_renders(timeline, scheme):
    at = timeline
    at.sidebar.selectbox(key="w_scheme").set_value(scheme).run()
    assert not at.exception
    text = verdict_text(at)
    assert ("Not landmark-private" in text) == (scheme == "event")


def test_geometric_on_decimals_is_a_clear_error_not_a_crash(timeline):
    at = timeline
    at.sidebar.radio(key="w_mechanism").set_value("geometric").run()
    assert not at.exception
    assert any("whole" in e.value and "geometric" in e.value for e in at.error)


def test_settings_and_landmarks_survive_page_switches(timeline):
    at = timeline
    at.sidebar.number_input(key="w_epsilon").set_value(2.5).run()
    at.multiselect(key="w_lm_select").set_value([5, 6]).run()
    at.switch_page("app_pages/home.py").run()
    at.switch_page("app_pages/timeline.py").run()
    assert at.sidebar.number_input(key="w_epsilon").value == 2.5
    assert at.multiselect(key="w_lm_select").value == [5, 6]


def upload(at: AppTest, key: str, name: str, content: bytes, mime: str = "text/csv") -> AppTest:
    at.file_uploader(key=key).set_value((name, content, mime))
    return at.run()


@pytest.mark.parametrize(
    "content, fragment",
    [
        (b"", "empty"),
        (b"a,b\n1,2\n", "needs the columns"),
        (b"time,value\n1,2\n2,NaN\n", "missing"),
        (b"time,value\n1,2\n2,abc\n", "not a finite number"),
        (b"time,value\n2,1\n1,2\n", "sort the file"),
        (b"time,value\n1,1\n1,2\n", "appears twice"),
        (b"time,value\nmonday,2\n", "ISO date"),
    ],
)
def test_bad_upload_shows_error_and_keeps_landmarks(timeline, content, fragment):
    at = timeline
    at.multiselect(key="w_lm_select").set_value([3, 4]).run()
    at.sidebar.number_input(key="w_epsilon").set_value(3.0).run()
    upload(at, "series_upload", "bad.csv", content)
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert fragment in errors and "unchanged" in errors, errors
    assert at.multiselect(key="w_lm_select").value == [3, 4]
    assert at.sidebar.number_input(key="w_epsilon").value == 3.0
    assert at.sidebar.selectbox(key="w_series_name").value.startswith("Demo")


def test_good_upload_becomes_the_current_series(timeline):
    at = timeline
    rows = "\n".join(f"{t},{v}" for t, v in enumerate([5, 6, 7, 30, 6, 5, 7, 6]))
    upload(at, "series_upload", "mine.csv", ("time,value\n" + rows).encode())
    assert not at.exception and not at.error
    assert at.sidebar.selectbox(key="w_series_name").value == "Upload: mine.csv"
    assert at.multiselect(key="w_lm_select").value == []
    at.multiselect(key="w_lm_select").set_value([3]).run()
    assert "Landmark-private" in verdict_text(at)
    # the demo keeps its own landmarks
    at.sidebar.selectbox(key="w_series_name").set_value(
        at.sidebar.selectbox(key="w_series_name").options[0]).run()
    assert at.multiselect(key="w_lm_select").value == [27, 28, 85, 86, 139]


def test_config_upload_restores_the_view(timeline):
    from lmdk_core.config import ViewConfig, config_to_json

    at = timeline
    cfg = ViewConfig(landmarks=[7, 9], scheme="skip", epsilon=0.7, seed=42, sensitivity=0.5)
    upload(at, "config_upload", "view.json", config_to_json(cfg).encode(), "application/json")
    assert not at.exception and not at.error
    assert at.multiselect(key="w_lm_select").value == [7, 9]
    assert at.sidebar.selectbox(key="w_scheme").value == "skip"
    assert at.sidebar.number_input(key="w_epsilon").value == pytest.approx(0.7)
    assert at.sidebar.number_input(key="w_seed").value == 42


def test_bad_config_upload_changes_nothing(timeline):
    at = timeline
    upload(at, "config_upload", "view.json", b'{"format": "nope"}', "application/json")
    assert any("not a Landmark Privacy Explorer configuration" in e.value for e in at.error)
    assert at.multiselect(key="w_lm_select").value == [27, 28, 85, 86, 139]


def test_suggest_landmarks_and_accept(timeline):
    at = timeline
    next(b for b in at.button if b.label == "Clear").click().run()
    next(b for b in at.button if b.label == "Find suggestions").click().run()
    assert not at.exception
    info = " ".join(i.value for i in at.info)
    # the demo's night-time device (t=27, 28) and party (t=138..140) stand out
    for t in (27, 28, 139):
        assert f"t={t} " in info
    next(b for b in at.button if b.label == "Accept all").click().run()
    lm = at.multiselect(key="w_lm_select").value
    assert {27, 28, 138, 139, 140} <= set(lm)
    assert not [b for b in at.button if b.label == "Accept all"]


def _largest_tpl(at: AppTest) -> float | None:
    for c in at.caption:
        if c.value.startswith("Largest TPL"):
            return float(c.value.split("**")[1])
    return None


def test_timeline_tpl_follows_the_correlation_strength(timeline):
    """TPL panel under Cao's smoothed model: the page's number is the engine's, stronger
    correlation (smaller s) leaks more, and the panel can be switched off."""
    from lmdk_core.allocation import allocate
    from lmdk_core.data.demo import demo_series_landmarks
    from lmdk_core.leakage import LossFunction, smoothed_matrix, tpl

    at = timeline
    eps_t = allocate("uniform", 168, demo_series_landmarks(), 1.0)
    weak = _largest_tpl(at)
    assert f"{weak:.3g}" == f"{tpl(eps_t, LossFunction(smoothed_matrix(10, 0.1))).max():.3g}"
    at.select_slider(key="w_correlation_strength").set_value(0.003).run()
    assert _largest_tpl(at) > weak
    at.toggle(key="w_series_leakage").set_value(False).run()
    assert not at.exception and _largest_tpl(at) is None
    assert any(b.label == "Privacy report (HTML)" for b in at.get("download_button"))
