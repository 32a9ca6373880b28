"""AppTest: one verdict and one correlation model on every page (Timeline, Map, Compare,
Dummy landmarks, Leakage and the privacy report)."""

from __future__ import annotations

import copy

import pytest
from streamlit.testing.v1 import AppTest

from lmdk_core.report import compute_report
from tests.conftest import open_page

TIMEOUT = 90


def colours(at: AppTest) -> list[str]:
    """The verdict boxes of a page as colours, in page order."""
    out = []
    for kind, boxes in (("green", at.success), ("amber", at.warning), ("red", at.error)):
        for b in boxes:
            v = b.value
            if v.startswith("**Landmark-private") or v.startswith("**Not landmark-private"):
                out.append("amber" if "only if values were independent" in v else kind)
    return out


def demo_model():
    """The default model of the demo week: estimated from it (deciles, add-one)."""
    from lmdk_core.data.demo import demo_series
    from lmdk_core.leakage.model import correlation_from_spec

    return correlation_from_spec(None, demo_series())


def test_defaults_are_amber_on_every_page_and_in_the_report():
    """At the defaults (demo week, Uniform, ε = 1, the model estimated from the week:
    10 equal-count bins, add-one smoothing) the theorem holds but landmark TPL > ε:
    every page says amber, says why in one sentence, and the demo says it is amber on
    purpose."""
    at = open_page("timeline", TIMEOUT)
    assert colours(at) == ["amber"]
    assert any("Correlation model in force" in c.value and "estimated from the data" in c.value
               and "10 equal-count bins" in c.value for c in at.caption)
    box = next(w.value for w in at.warning if w.value.startswith("**Landmark-private"))
    assert "in this data they are correlated" in box and "Calibrate before you publish" in box
    assert any("opens amber on purpose" in c.value for c in at.caption)
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception
    # Uniform, Skip and Adaptive all spend ≤ ε, and all leak > ε under the model: one
    # amber box says so for the three, each column keeps its own numbers
    assert colours(at) == ["amber"]
    assert "all 3 schemes" in at.warning[0].value
    assert sum("landmark TPL up to" in m.value for m in at.markdown) == 3
    at.switch_page("app_pages/dummies.py").run()
    assert not at.exception
    # the dummy release spends ε/(|L′|+1): its colour is the engine's for that allocation
    from lmdk_core.data.demo import demo_series, demo_series_landmarks
    from lmdk_core.decision.verdict import privacy_verdict
    from lmdk_core.dummies import release_series_with_dummies

    lm = demo_series_landmarks()
    dr = release_series_with_dummies(demo_series().values, lm, epsilon=1.0,
                                     epsilon_selection=at.number_input(key="dl_eps_sel").value,
                                     scheme="uniform", mechanism="laplace",
                                     sensitivity=float(at.session_state["w_sensitivity"]),
                                     method="heuristic", metric="gap_std",
                                     seed=int(at.session_state["w_seed"]), window=10)
    from lmdk_core.leakage.conservative import smoothing_variants

    model = demo_model()  # estimated: the verdict is the worst over the smoothing range
    others = [(v.backward, v.forward) for v in smoothing_variants(model)]
    expected = privacy_verdict(dr.release.epsilon_t, lm, 1.0, backward=model.backward,
                               forward=model.forward, alternatives=others,
                               advise=False).colour
    assert colours(at) == [expected]
    assert not any("sound guarantee" in m.value for m in at.markdown)
    assert any("certainly not a landmark" in m.value for m in at.markdown)
    at.switch_page("app_pages/leakage.py").run()
    assert not at.exception and colours(at) == ["amber"]
    at.switch_page("app_pages/map.py").run()
    assert not at.exception
    assert colours(at) == ["amber"]  # grid-cell model estimated from the track


def test_report_headline_uses_the_same_verdict_and_model():
    """The configuration the pages save carries the session's model (extra.correlation);
    the report's headline is the same amber verdict as the Timeline's."""
    from lmdk_core.data.demo import demo_series_landmarks
    from lmdk_core.files.config import ViewConfig
    from lmdk_core.report import build_report

    at = open_page("timeline", TIMEOUT)
    spec = at.session_state["w_corr_kind_series"]
    assert spec == "estimated"  # the session's default: estimated from the data
    spec = {"model": "estimated", "bins": 10, "binning": "quantile", "smoothing": 1.0,
            "backward": "estimated"}
    cfg = ViewConfig(landmarks=demo_series_landmarks(),
                     sensitivity=float(at.session_state["w_sensitivity"]), page="timeline",
                     extra={"correlation": spec})
    rd = compute_report(copy.deepcopy(cfg))
    assert rd.verdict.colour == "amber" == colours(at)[0]
    html = build_report(copy.deepcopy(cfg))
    assert "AMBER: Landmark-private only if consecutive values were independent" in html
    assert "amber: landmark-private only if values were independent" in html  # the card


def calibrate(at: AppTest) -> AppTest:
    """Press *Calibrate* on the Leakage page (the search runs only on request)."""
    at.button(key="lk_calibrate").click().run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def leakage() -> AppTest:
    return open_page("leakage", TIMEOUT)


def test_calibration_applied_on_leakage_stops_the_timeline_warning(leakage):
    at = leakage
    # α defaults to the current ε
    assert at.number_input(key="lk_target").value == pytest.approx(1.0)
    assert at.radio(key="lk_cal_kind").value == "scale"
    calibrate(at)
    # scaling down never raises ε: the page says it lowers it
    assert any("lowers ε" in i.value for i in at.info)
    next(b for b in at.button if b.label == "Apply to the sidebar").click().run()
    assert not at.exception
    eps = at.session_state["w_epsilon"]
    assert eps < 1.0 and at.session_state["leakage_target"] == pytest.approx(1.0)
    assert colours(at) == ["green"]
    at.switch_page("app_pages/timeline.py").run()
    assert not at.exception and colours(at) == ["green"]
    # the Timeline stops warning about leakage (other warnings, e.g. confidential downloads,
    # are not about the verdict)
    assert not any("TPL" in w.value or "correlat" in w.value for w in at.warning)
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception and colours(at)[0] == "green"  # Uniform, the calibrated scheme


def test_a_model_chosen_on_leakage_is_used_by_the_timeline(leakage):
    at = leakage
    # the default is estimated from the data; the presets stay available
    assert at.radio(key="w_corr_kind_series").value == "estimated"
    at.radio(key="w_corr_kind_series").set_value("smoothed").run()
    assert not at.exception
    at.switch_page("app_pages/timeline.py").run()
    assert not at.exception
    assert any("Correlation model in force" in c.value and "s = 0.1" in c.value
               for c in at.caption)


def test_following_the_timelines_advice_turns_the_verdict_green():
    """The amber verdict's advice is computed (the engine's calibration under the
    session's model, estimated from the data: the worst over the smoothing range) and
    following it — one click — makes the verdict green, with the same model and the
    target α = the ε the user had chosen."""
    from lmdk_core.data.demo import demo_series_landmarks
    from lmdk_core.decision.verdict import privacy_verdict
    from lmdk_core.engine.allocation import allocate
    from lmdk_core.leakage.conservative import range_text, smoothing_variants

    at = open_page("timeline", TIMEOUT)
    assert colours(at) == ["amber"]
    model, lm = demo_model(), demo_series_landmarks()
    others = [(v.backward, v.forward) for v in smoothing_variants(model) if v.smoothing != 1]
    pv = privacy_verdict(allocate("uniform", 168, lm, 1.0), lm, 1.0,
                         backward=model.backward, forward=model.forward,
                         alternatives=others, estimated=range_text(1.0))
    assert pv.colour == "amber" and pv.advice is not None
    assert "every smoothing of 1, 0.5, 0.1 and 0.01" in pv.advice.sentence()
    button = at.button(key="timeline_calibrate")
    assert f"ε = {pv.advice.epsilon:.3g}" in button.label
    button.click().run()
    assert not at.exception
    assert at.session_state["w_epsilon"] == pytest.approx(pv.advice.epsilon)
    assert at.session_state["leakage_target"] == pytest.approx(1.0)
    assert colours(at) == ["green"]
    assert any("can be published" in b.value for b in at.success)


def test_raising_epsilon_is_said_in_words_and_amber_constant_needs_confirmation(leakage):
    at = leakage
    # the demo's estimated model: landmark TPL up to 31 at ε = 1 with smoothing 0.01, the
    # worst of the range the calibration keeps under α — α = 50 raises ε
    at.number_input(key="lk_target").set_value(50.0).run()
    calibrate(at)
    assert any("raises ε" in w.value for w in at.warning)
    at.radio(key="lk_cal_kind").set_value("constant").run()
    calibrate(at)
    apply = next(b for b in at.button if b.label == "Apply to the sidebar")
    if any("not the landmarks'" in w.value for w in at.warning):
        assert apply.disabled
        at.checkbox(key="lk_confirm").check().run()
        assert not next(b for b in at.button if b.label == "Apply to the sidebar").disabled


def test_the_verdict_box_leads_with_one_plain_sentence():
    """What is protected, at which ε and whether to publish, in one sentence; the
    engine's sentence with its numbers behind a toggle."""
    at = open_page("timeline", TIMEOUT)
    box = next(w.value for w in at.warning if w.value.startswith("**Landmark-private"))
    lead = box.split(".** ", 1)[1]
    assert "The 5 landmarks are protected at ε = 1 only if" in lead
    assert "before you publish" in lead
    assert "TPL" not in lead and "t=" not in lead and "n = 10" not in lead  # no jargon
    details = next(e for e in at.expander if e.label.startswith("Why: the numbers"))
    assert any("landmark TPL reaches" in m.value for m in details.markdown)
    # red: ε at a landmark plus a timestamp over ε says so plainly
    at.sidebar.selectbox(key="w_scheme").set_value("event").run()
    red = next(e.value for e in at.error if e.value.startswith("**Not landmark-private"))
    assert "are not protected at ε = 1" in red and "Do not publish" in red
