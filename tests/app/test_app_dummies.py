"""AppTest: the Dummy landmarks page."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lmdk_core.dummies import dummy_options, select_option
from tests.conftest import open_page


@pytest.fixture
def page() -> AppTest:
    return open_page("dummies", 60)


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label))


def test_renders_on_demo_with_heuristic(page):
    at = page
    # a summary: the drawn option among all 163 (T=168 minus 5 landmarks), details below
    assert metric(at, "Drawn option").endswith(" of 163")
    assert any(e.label == "All 163 options and their selection probabilities"
               for e in at.get("expander"))
    text = " ".join(m.value for m in at.markdown)
    # the budget is accounted in words (ε_sel on the choice, ε on the values), and
    # ε_sel + ε is not called a guarantee for L (issue: L ⊆ L′ reveals what is outside)
    eps_sel = float(at.number_input(key="dl_eps_sel").value)
    assert eps_sel == 20.0  # the default: not near uniform on the demo (1.14× at ε_sel = 1)
    assert f"Budget spent: ε_sel = {eps_sel:g} on choosing L′, ε = 1 on the values" in text
    assert "sound guarantee" not in text and "not a differential-privacy guarantee" in text
    # the theorem holds for L (L ⊆ L′), so the verdict is never red; whether landmark TPL
    # under the session's correlation model stays ≤ ε depends on the drawn L′ (fresh
    # seed): green, or amber "only if values were independent"
    assert not at.error
    green = [s.value for s in at.success if "Landmark-private" in s.value]
    amber = [w.value for w in at.warning if "only if values were independent" in w.value]
    assert len(green) + len(amber) == 1


def test_example_optimal_and_selection_match_the_engine(page):
    at = page
    at.radio(key="dl_source").set_value("example").run()
    at.radio(key="dl_method").set_value("optimal").run()
    assert not at.exception and not at.error
    opts = dummy_options(12, [2, 3, 9], "optimal", "gap_std")
    # the objective is in the details (the expander's caption)
    assert any(f"Objective |mean metric − m(L)| = {opts.objective:.3g} " in c.value
               for c in at.caption)
    seed = int(at.session_state["w_seed"])  # the session's fresh 128-bit seed
    eps_sel = float(at.number_input(key="dl_eps_sel").value)
    sel = select_option(opts, eps_sel, seed)
    assert metric(at, "Drawn option") == f"L{sel.index + 1} of {len(opts)}"
    # a larger ε_sel changes the probabilities and hence (for this seed) possibly the draw
    at.number_input(key="dl_eps_sel").set_value(200.0).run()
    sel2 = select_option(opts, 200.0, seed)
    assert metric(at, "Drawn option") == f"L{sel2.index + 1} of {len(opts)}"
    assert np.argmax(sel2.probabilities) == np.argmin(opts.differences)


def test_optimal_refuses_large_inputs_clearly(page):
    at = page
    at.radio(key="dl_method").set_value("optimal").run()
    assert not at.exception
    assert any("limited to 12 regular timestamps" in e.value for e in at.error)


def test_no_landmarks_is_explained(page):
    at = page
    at.radio(key="dl_source").set_value("example").run()
    at.multiselect(key="dl_example_lm").set_value([]).run()
    assert not at.exception
    assert any("at least one landmark" in i.value for i in at.info)
