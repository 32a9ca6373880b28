"""AppTest: the Learn page renders only its open lesson, and moving its widgets changes
its results."""

from __future__ import annotations

import math

import pytest
from streamlit.testing.v1 import AppTest

from lmdk_core.teaching.adversary import posterior_bound
from lmdk_core.teaching.mechanisms import sensitivity_example
from tests.conftest import metric, open_page

TIMEOUT = 60


@pytest.fixture
def learn() -> AppTest:
    return open_page("learn", TIMEOUT)


#: the lessons' tab labels, in order (app_pages/learn.py LESSONS)
LESSON_WORDS = ("1 · The definition", "2 · What ε means", "3 · Protection levels",
                "4 · Mechanisms", "5 · Composition", "6 · Why not k-anonymity")


def open_lesson(at: AppTest, n: int) -> AppTest:
    """Open lesson ``n`` (a tab click: the page reruns and runs only that lesson)."""
    label = next(t.label for t in at.tabs if LESSON_WORDS[n - 1] in t.label)
    at.session_state["learn_tab"] = label
    return at.run(timeout=TIMEOUT)


def test_only_the_open_lesson_runs(learn):
    at = learn
    assert metric(at, "Allowed: at most e^ε") == f"{math.e:.3f}"  # lesson 1 is open
    assert not any(m.label == "k-anonymity" for m in at.metric)  # lesson 6 did not run
    assert not any(m.label == "Largest belief after" for m in at.metric)  # nor lesson 2
    open_lesson(at, 6)
    assert metric(at, "k-anonymity") == "k = 3"
    assert not any(m.label == "Allowed: at most e^ε" for m in at.metric)
    assert len(at.tabs) == 6 and not at.exception


def test_a_lesson_keeps_its_settings_while_another_is_open(learn):
    at = learn
    at.select_slider(key="learn_def_eps").set_value(0.1).run()
    open_lesson(at, 5)
    open_lesson(at, 1)
    assert at.select_slider(key="learn_def_eps").value == 0.1
    assert metric(at, "Allowed: at most e^ε") == f"{math.exp(0.1):.3f}"



def test_learn_renders_every_lesson(learn):
    at = learn
    assert "Learn" in at.title[0].value
    assert len(at.tabs) == 6
    assert not at.error
    assert metric(at, "Allowed: at most e^ε") == f"{math.e:.3f}"
    open_lesson(at, 6)
    assert metric(at, "k-anonymity") == "k = 3"
    # the Learn page's widgets do not touch the shared settings, and the sidebar shows
    # none of them (none applies here)
    assert at.session_state["w_epsilon"] == 1.0
    assert not at.sidebar.number_input and not at.sidebar.selectbox


def test_definition_ratio_follows_epsilon(learn):
    at = learn
    at.select_slider(key="learn_def_eps").set_value(0.1).run()
    assert metric(at, "Allowed: at most e^ε") == f"{math.exp(0.1):.3f}"
    ratio = float(metric(at, "Ratio of the two"))
    assert 1.0 <= ratio <= math.exp(0.1) + 1e-3
    at.slider(key="learn_def_cut").set_value(10.5).run()  # inside the segment: below e^ε
    assert float(metric(at, "Ratio of the two")) < math.exp(0.1)


def test_posterior_value_moves_with_prior_and_epsilon(learn):
    at = open_lesson(learn, 2)
    assert metric(at, "Largest belief after") == f"{posterior_bound(0.5, 1.0):.1%}"
    at.slider(key="learn_prior").set_value(0.2).run()
    at.select_slider(key="learn_post_eps").set_value(3.0).run()
    assert metric(at, "Belief before") == "20%"
    assert metric(at, "Largest belief after") == f"{posterior_bound(0.2, 3.0):.1%}"


def test_randomized_response_estimate_moves(learn):
    at = open_lesson(learn, 4)
    before = metric(at, "Estimated true share")
    at.slider(key="learn_rr_true").set_value(0.7).run()
    after = metric(at, "Estimated true share")
    assert after != before
    at.select_slider(key="learn_rr_eps").set_value(10.0).run()
    at.number_input(key="learn_rr_n").set_value(20000).run()
    est = float(metric(at, "Estimated true share").rstrip("%")) / 100
    assert est == pytest.approx(0.7, abs=0.01)


def test_noise_cloud_follows_epsilon_and_radius(learn):
    at = open_lesson(learn, 4)
    assert metric(at, "Expected displacement 2r/ε") == "200 m"
    at.select_slider(key="learn_pl_eps").set_value(0.5).run()
    at.number_input(key="learn_pl_radius").set_value(250.0).run()
    assert metric(at, "Expected displacement 2r/ε") == "1,000 m"


def levels_frame(at: AppTest):
    return next(d.value for d in at.dataframe if "landmark-private" in d.value.columns)


def test_protection_levels_follow_landmarks(learn):
    at = open_lesson(learn, 3)
    assert levels_frame(at)["landmark-private"].tolist() == ["no", "yes", "no", "yes"]
    at.multiselect(key="learn_lv_landmarks").set_value([]).run()
    assert levels_frame(at)["landmark-private"].tolist() == ["yes", "yes", "yes", "yes"]
    at.multiselect(key="learn_lv_landmarks").set_value([1, 4]).run()
    at.number_input(key="learn_lv_w").set_value(2).run()
    assert levels_frame(at)["landmark-private"].tolist() == ["no", "yes", "no", "yes"]


def test_composition_calculators_and_bad_list(learn):
    at = open_lesson(learn, 5)
    assert [m.value for m in at.metric if m.label == "Total guarantee"] == ["1.4", "0.5"]
    at.text_input(key="learn_comp_list").set_value("1, 2, 3").run()
    assert [m.value for m in at.metric if m.label == "Total guarantee"] == ["6", "3"]
    at.text_input(key="learn_comp_list").set_value("1, two").run()
    assert not at.exception
    assert any("two" in e.value and "not a number" in e.value for e in at.error)
    independent = metric(at, "If the data were independent")
    at.select_slider(key="learn_cor_s").set_value(0.0).run()
    assert metric(at, "Under this correlation") == "1"  # 10 releases × 0.1, deterministic
    assert metric(at, "If the data were independent") == independent


def test_intersection_attack_and_homogeneity(learn):
    at = open_lesson(learn, 6)
    assert any("Disclosed" in e.value and "at work" in e.value for e in at.warning)
    at.selectbox(key="learn_i_age2").set_value(2).run()
    at.selectbox(key="learn_i_loc2").set_value(1).run()
    assert not any("Disclosed" in e.value for e in at.warning)
    at.toggle(key="learn_k_homog").set_value(True).run()
    assert metric(at, "distinct l-diversity") == "l = 1"
    assert any("homogeneity" in w.value for w in at.warning)


@pytest.mark.browser
def test_learn_page_in_a_real_browser(app_url):
    """Every tab of the Learn page renders its charts in chromium (screenshots in
    tests/artifacts/learn_tab_*.png) without an exception box or a page error."""
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS, wait_for_app
    from tests.conftest import ARTIFACTS

    url = app_url  # the run's shared Streamlit server (tests/conftest.py)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2400})
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url + "/learn")
        wait_for_app(page)
        page.wait_for_selector("[data-testid=stTab]", timeout=60_000)
        tabs = page.locator("[data-testid=stTab]")
        assert tabs.count() == 6
        for i in range(6):
            tabs.nth(i).click()
            panel = page.locator("[role=tabpanel]:visible")
            # tabs 1-5 draw plotly charts, tab 6 (k-anonymity) tables
            panel.locator(".js-plotly-plot .main-svg, [data-testid=stDataFrame]").first.wait_for(
                timeout=30_000)
            page.wait_for_timeout(500)
            assert page.locator("[data-testid=stException]").count() == 0
            page.screenshot(path=str(ARTIFACTS / f"learn_tab_{i + 1}.png"), full_page=True)
        browser.close()
    assert not errors, errors


def test_laplace_lesson_states_the_demos_likelihood_ratio_for_its_delta_f(learn):
    """The lesson's Δf drives a computed statement on the demo week's medical-device
    event: 66× at Δf = 0.2 (far beyond e¹), ≤ e¹ at the Δf derived from the data."""
    at = open_lesson(learn, 4)
    at.number_input(key="learn_lap_sens").set_value(0.2).run()
    assert not at.exception
    ex = sensitivity_example(1.0, 0.2)
    assert 60 < ex.ratio < 70 and ex.derived == 2.9 and ex.ratio_derived <= math.e
    assert any(ex.sentence() in w.value and "66.1 times" in w.value for w in at.warning)
    at.number_input(key="learn_lap_sens").set_value(3.0).run()
    ok = sensitivity_example(1.0, 3.0)
    assert ok.covered and ok.ratio <= math.e
    assert any(ok.sentence() in i.value for i in at.info)


def test_epsilon_lesson_explains_accuracy_to_epsilon_and_advanced_composition(learn):
    text = " ".join(m.value for m in open_lesson(learn, 2).markdown)
    # defaults ±1 at 95 %, Δf 1, 5 landmarks: ε_t = ln 20 ≈ 2.996, Uniform ε = 6·ln 20 ≈ 17.97
    assert "Each reading needs ε_t = **3**" in text
    assert "needs ε = **18**" in text
    text = " ".join(m.value for m in open_lesson(learn, 5).markdown)
    assert "basic 2.6, advanced 2.03" in text  # 52 releases of 0.05, δ' = 1e-6
