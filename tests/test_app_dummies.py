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
    assert metric(at, "Options") == "163"  # T=168 minus 5 landmarks
    text = " ".join(m.value for m in at.markdown)
    assert "in total** by sequential composition" in text
    assert any("Landmark-private" in s.value for s in at.success)


def test_example_optimal_and_selection_match_the_engine(page):
    at = page
    at.radio(key="dl_source").set_value("example").run()
    at.radio(key="dl_method").set_value("optimal").run()
    assert not at.exception and not at.error
    opts = dummy_options(12, [2, 3, 9], "optimal", "gap_std")
    assert metric(at, "Objective") == f"{opts.objective:.3g}"
    sel = select_option(opts, 1.0, 0)
    assert metric(at, "Drawn option") == f"L{sel.index + 1}"
    # a larger ε_sel changes the probabilities and hence (for this seed) possibly the draw
    at.number_input(key="dl_eps_sel").set_value(200.0).run()
    sel2 = select_option(opts, 200.0, 0)
    assert metric(at, "Drawn option") == f"L{sel2.index + 1}"
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
