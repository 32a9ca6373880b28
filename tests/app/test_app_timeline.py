"""AppTest: the shell and the Timeline page on demo data."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lmdk_core.engine.allocation import SCHEMES
from tests.conftest import ROOT, chart_specs, open_page

TIMEOUT = 60


@pytest.fixture
def timeline() -> AppTest:
    return open_page("timeline", TIMEOUT)


def verdict_text(at: AppTest) -> str:
    # green, amber (landmark-private only if values were independent) and red verdicts
    return " ".join(e.value for e in [*at.success, *at.warning, *at.error])


def test_home_renders():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception
    assert "Landmark Privacy Explorer" in at.title[0].value
    # no shared setting applies to Home: the sidebar holds the page list only
    assert not at.sidebar.number_input and not at.sidebar.selectbox
    assert at.session_state["w_epsilon"] == 1.0
    # every page in the list, and one start action that opens the Timeline
    links = [e.proto.label for e in at.main.get("page_link")]
    for title in ("Learn", "Timeline", "Map", "Choose ε", "Compare", "Leakage",
                  "Dummy landmarks", "Population"):
        assert any(label.startswith(f"**{title}**") for label in links), (title, links)
    next(b for b in at.button if b.label.startswith("Start here")).click().run()
    assert not at.exception
    assert "Timeline" in at.title[0].value


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
    # expected error reflects ε/(k+1) = 1/6 (declared k = 5, not |L|) with Δf = 2.9 -> 17.4
    assert at.session_state["w_sensitivity"] == 2.9
    expected = next(m.value for m in at.metric if m.label == "Expected at noisy releases")
    assert expected.startswith("17.4")
    at.multiselect(key="w_lm_select").set_value([1, 2, 3]).run()
    expected = next(m.value for m in at.metric if m.label == "Expected at noisy releases")
    assert expected.startswith("17.4")  # the same: the noise scale does not reveal |L|
    at.sidebar.number_input(key="w_max_landmarks").set_value(3).run()
    expected = next(m.value for m in at.metric if m.label == "Expected at noisy releases")
    assert expected.startswith("11.6")  # Δf/ε_t = 2.9 / (1/(k+1)), declared k = 3
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
    # one error box naming the problem (decimals are not whole numbers) and its fix
    msgs = [e.value for e in at.error if "Geometric mechanism cannot release" in e.value]
    assert len(msgs) == 1
    assert "whole numbers" in msgs[0] and "**fix:** choose Laplace" in msgs[0]
    assert any(b.label == "Use Laplace" for b in at.button)
    # no release file under a mechanism that did not produce it: the downloads explain
    assert any("No release files while the Geometric mechanism" in i.value for i in at.info)
    labels = [b.label for b in at.get("download_button")]
    assert "Released series (CSV)" not in labels
    assert "CONFIDENTIAL — Configuration (JSON)" in labels  # the view can still be saved
    next(b for b in at.button if b.label == "Use Laplace").click().run()
    assert not at.exception and not at.error
    assert "Released series (CSV)" in [b.label for b in at.get("download_button")]


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
    # what a reload loses and how to restore it, while the upload is shown (issue 37 §9)
    assert any("A reload keeps this view" in c.value for c in at.caption)
    # the demo keeps its own landmarks
    at.sidebar.selectbox(key="w_series_name").set_value(
        at.sidebar.selectbox(key="w_series_name").options[0]).run()
    assert at.multiselect(key="w_lm_select").value == [27, 28, 85, 86, 139]
    assert not any("A reload keeps this view" in c.value for c in at.caption)


def test_after_an_upload_df_stays_declared_and_the_suggestion_needs_a_click(timeline):
    """The data's suggested Δf is never the silent default: after an upload Δf keeps the
    declared value; "Use X as my declared bound" makes the suggestion the declaration."""
    from lmdk_core.data.series import load_series_csv
    from lmdk_core.decision.sensitivity import derived_sensitivity

    at = timeline
    before = at.session_state["w_sensitivity"]
    rows = "\n".join(f"{t},{v}" for t, v in enumerate([5, 6, 7, 30, 6, 5, 7, 6] * 4))
    content = ("time,value\n" + rows).encode()
    upload(at, "series_upload", "mine.csv", content)
    assert not at.exception and not at.error
    want = derived_sensitivity(load_series_csv(content), []).value
    assert want != before and at.session_state["w_sensitivity"] == before
    button = next(b for b in at.sidebar.button
                  if b.label == f"Use {want:g} as my declared bound")
    button.click().run()
    assert at.session_state["w_sensitivity"] == want
    assert not any(b.label.startswith("Use ") for b in at.sidebar.button)


def test_config_upload_restores_the_view(timeline):
    from lmdk_core.files.config import ViewConfig, config_to_json

    at = timeline
    cfg = ViewConfig(landmarks=[7, 9], scheme="skip", epsilon=0.7, seed=42, sensitivity=0.5)
    upload(at, "config_upload", "view.json", config_to_json(cfg).encode(), "application/json")
    assert not at.exception and not at.error
    assert at.multiselect(key="w_lm_select").value == [7, 9]
    assert at.sidebar.selectbox(key="w_scheme").value == "skip"
    assert at.sidebar.number_input(key="w_epsilon").value == pytest.approx(0.7)
    # a restored configuration never sets the seed of later releases: fresh 128 bits
    assert at.session_state["w_seed"] != 42 and at.session_state["w_seed"] >= 2**64
    assert not at.session_state["w_reproducible"]


def test_the_configuration_help_says_what_restoring_does(timeline):
    """The configuration's download button once promised to "restore exactly this view
    (landmarks and seed included)" while a restore draws a fresh seed (the test above):
    the button and the uploader now say that the noise is new."""
    at = timeline
    config_button = next(d for d in at.get("download_button")
                         if d.proto.label.startswith("CONFIDENTIAL — Configuration"))
    for text in (config_button.proto.help, at.file_uploader(key="config_upload").proto.help):
        assert "noise is drawn afresh" in text and "new random seed" in text, text
        assert "exactly" not in text and "seed included" not in text, text


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
    from lmdk_core.data.demo import demo_series_landmarks
    from lmdk_core.engine.allocation import allocate
    from lmdk_core.leakage import LossFunction, smoothed_matrix, tpl

    at = timeline
    eps_t = allocate("uniform", 168, demo_series_landmarks(), 1.0)
    # the default model is estimated from the data; choose Cao's smoothed preset (the
    # Leakage page's choice, shared through the session), whose strength the slider sets
    at.session_state["w_corr_kind_series"] = "smoothed"
    at.run()
    weak = _largest_tpl(at)
    assert f"{weak:.3g}" == f"{tpl(eps_t, LossFunction(smoothed_matrix(10, 0.1))).max():.3g}"
    at.select_slider(key="w_correlation_strength").set_value(0.003).run()
    assert _largest_tpl(at) > weak
    at.toggle(key="w_series_leakage").set_value(False).run()
    assert not at.exception and _largest_tpl(at) is None
    # the report comes in two forms: the publishable note and the confidential report
    labels = [b.label for b in at.get("download_button")]
    assert "Public release note (HTML)" in labels
    assert "CONFIDENTIAL — Internal privacy report (HTML)" in labels


# ------------------------------------------------------------------ the landmark picker
def test_picker_lists_only_the_landmarks_and_takes_a_typed_timestamp(timeline):
    at = timeline
    picker = at.multiselect(key="w_lm_select")
    # it never enumerates the 168 timestamps: its options are the current landmarks
    assert picker.value == [27, 28, 85, 86, 139]
    assert len(picker.options) == 5 and all(o.startswith("t=") for o in picker.options)
    picker.set_value([27, 28, 85, 86, 139, "40"]).run()  # typed into the picker
    assert not at.exception
    assert at.multiselect(key="w_lm_select").value == [27, 28, 40, 85, 86, 139]
    assert len(at.multiselect(key="w_lm_select").options) == 6
    # a bad entry is reported; the landmarks already there stay
    at.multiselect(key="w_lm_select").set_value([27, 28, 40, "abc", "9999"]).run()
    assert not at.exception
    assert at.multiselect(key="w_lm_select").value == [27, 28, 40]
    assert any("not a timestamp" in e.value and "outside the series" in e.value
               for e in at.error)


def plotly_array(v) -> np.ndarray:
    """An array of a figure's JSON (plotly sends numpy arrays as base64 'bdata')."""
    if isinstance(v, dict) and "bdata" in v:
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        shape = v.get("shape")
        return a.reshape([int(k) for k in str(shape).split(",")]) if shape else a
    return np.asarray(v)


def test_a_200000_row_series_keeps_a_small_picker_and_a_decimated_chart(timeline):
    at = timeline
    n = 200_000
    rows = "\n".join(f"{t},{(t * 7919) % 1000 / 100:.2f}" for t in range(n))
    upload(at, "series_upload", "big.csv", f"time,value\n{rows}\n".encode())
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.toggle(key="w_series_leakage").set_value(False).run()
    at.multiselect(key="w_lm_select").set_value(["t=123456"]).run()
    assert not at.exception
    picker = at.multiselect(key="w_lm_select")
    assert picker.value == [123456] and len(picker.options) == 1
    chart = chart_specs(at, "timeline_chart")[0]
    drawn = {tr["name"]: tr for tr in chart["data"]}
    assert len(plotly_array(drawn["original"]["x"])) < 5000  # min/max per pixel column
    assert plotly_array(drawn["landmark"]["customdata"]).ravel().tolist() == [123456]
    ys = plotly_array(drawn["original"]["y"]).astype(float)
    assert np.isclose(ys.max(), 9.99) and ys.min() == 0.0  # the extremes survive


def test_only_a_teaching_configuration_restores_its_seed_and_says_so(timeline):
    """A teaching configuration turns the teaching mode on (its warning shows); its
    file says fixed seed."""
    from lmdk_core.files.config import ViewConfig, config_to_json

    at = timeline
    text = config_to_json(ViewConfig(landmarks=[7], seed=42, reproducible=True))
    assert "TEACHING MODE — fixed seed 42" in json.loads(text)["teaching"]
    upload(at, "config_upload", "view.json", text.encode(), "application/json")
    assert not at.exception and not at.error
    assert at.session_state["w_seed"] == 42 and at.session_state["w_reproducible"]
    assert any("Fixed seed" in w.value for w in at.sidebar.warning)


def test_more_landmarks_than_the_declared_k_are_refused_and_kept(timeline):
    """A release speaks of at most k landmark events (default 5, never the number
    marked): a sixth landmark is refused with an error saying how to declare a larger k,
    the landmarks marked are kept, and a larger k releases them."""
    at = timeline
    at.multiselect(key="w_lm_select").set_value([27, 28, 85, 86, 139, 150]).run()
    assert not at.exception
    assert any("6 landmark events are more than the declared bound k = 5" in e.value
               for e in at.error)
    assert at.multiselect(key="w_lm_select").value == [27, 28, 85, 86, 139, 150]
    at.sidebar.number_input(key="w_max_landmarks").set_value(6).run()
    assert not at.exception and not at.error
    labels = [b.label for b in at.get("download_button")]
    assert "Public release note (HTML)" in labels
