"""Choosing Geometric on real data, and Δf from declared bounds (engine and Timeline)."""

from __future__ import annotations

import numpy as np
import pytest

from lmdk_core.data.demo import demo_series
from lmdk_core.decision.mechanism_choice import (
    clamp_to_bounds,
    mechanism_problems,
    sensitivity_from_bounds,
)
from lmdk_core.foundation.errors import InputError


def test_geometric_on_the_demo_lists_both_problems_at_once():
    values = demo_series().values
    probs = mechanism_problems(values, "geometric", 0.2)
    assert [p.kind for p in probs] == ["sensitivity", "data"]
    assert "Laplace" in probs[1].fix and "whole number" in probs[0].fix
    assert mechanism_problems(values, "laplace", 0.2) == []
    assert mechanism_problems(np.array([1.0, 4.0]), "geometric", 2) == []


def test_clamping_counts_and_sensitivity():
    c = clamp_to_bounds([-1.0, 0.5, 2.0, 7.0, 3.0], 0, 5)
    np.testing.assert_array_equal(c.values, [0, 0.5, 2, 5, 3])
    assert (c.n_below, c.n_above, c.n_clamped, c.sensitivity) == (1, 1, 2, 5.0)
    assert sensitivity_from_bounds(-2, 3) == 5
    with pytest.raises(InputError, match="larger than the lower"):
        clamp_to_bounds([1.0], 3, 3)


def test_timeline_geometric_guides_instead_of_blanking():
    """Geometric on the demo has two problems (Δf, and then the values): both are stated
    with their fixes and the page goes on (with Laplace meanwhile) instead of stopping
    with an error."""
    from tests.conftest import open_page

    at = open_page("timeline", 120)
    at.sidebar.radio(key="w_mechanism").set_value("geometric").run()
    # one error box lists both problems with their fixes; the page goes on (no exception)
    assert not at.exception
    text = " ".join(e.value for e in at.error)
    # Δf is the declared 2.9 (never re-derived from the data): both problems are listed
    assert at.sidebar.number_input(key="w_sensitivity").value == 2.9
    assert "whole-number sensitivity" in text and "not whole numbers" in text
    assert any(m.label for m in at.metric)  # the error metrics are still drawn
    next(b for b in at.button if b.label == "Set Δf = 3").click().run()
    assert at.sidebar.number_input(key="w_sensitivity").value == 3.0
    assert "whole-number sensitivity" not in " ".join(e.value for e in at.error)
    next(b for b in at.button if b.label.startswith("Round the values")).click().run()
    assert not at.exception and not at.error
    assert "rounded" in at.sidebar.selectbox(key="w_series_name").value
    assert not any("Geometric mechanism cannot" in w.value for w in at.warning)


def test_timeline_clamp_button_adds_a_clamped_copy():
    from tests.conftest import open_page

    at = open_page("timeline", 120)
    name = at.sidebar.selectbox(key="w_series_name").value
    at.number_input(key=f"w_bound_lo_{name}").set_value(0.0)
    at.number_input(key=f"w_bound_hi_{name}").set_value(2.0).run()
    assert any("Δf = 2 − 0 = **2**" in m.value for m in at.markdown)
    next(b for b in at.button if b.label.startswith("Clamp the values")).click().run()
    assert not at.exception
    assert "clamped to [0, 2]" in at.sidebar.selectbox(key="w_series_name").value
    assert at.sidebar.number_input(key="w_sensitivity").value == 2.0
