"""The sidebar shows only the shared settings that apply to the page, and the phones' ε and
scheme above the verdict are the same settings as the sidebar's (both ways)."""

from __future__ import annotations

import pytest

from app_support.session import PAGE_SETTINGS
from tests.conftest import open_page

TIMEOUT = 120

#: the sidebar widget keys of each part of the shared settings
PART_KEYS = {"series": ["w_series_name"], "epsilon": ["w_epsilon"], "scheme": ["w_scheme"],
             "mechanism": ["w_mechanism", "w_sensitivity"], "seed": ["w_reproducible"]}


def sidebar_keys(at) -> set[str]:
    return {w.key for kind in ("number_input", "selectbox", "radio", "toggle")
            for w in getattr(at.sidebar, kind)}


@pytest.mark.parametrize(("page", "expected"), [
    ("learn", set()),
    ("timeline", {"series", "epsilon", "scheme", "mechanism", "seed"}),
    ("map", {"epsilon", "scheme", "seed"}),
    ("compare", {"series", "epsilon", "mechanism", "seed"}),
    ("leakage", {"series", "epsilon", "scheme"}),
    ("population", {"epsilon", "scheme", "mechanism", "seed"}),
])
def test_sidebar_shows_only_what_applies(page, expected):
    at = open_page(page, TIMEOUT)
    keys = sidebar_keys(at)
    for part, part_keys in PART_KEYS.items():
        for k in part_keys:
            assert (k in keys) == (part in expected), (page, part, k, sorted(keys))


def test_data_pages_follow_their_data_choice():
    """Compare on the Map's track: no series choice, mechanism or Δf in the sidebar."""
    at = open_page("compare", TIMEOUT)
    at.radio(key="w_analysis_data").set_value("track").run()
    keys = sidebar_keys(at)
    assert "w_series_name" not in keys and "w_mechanism" not in keys, keys
    assert "w_epsilon" in keys
    assert "data" in PAGE_SETTINGS["compare"]


def test_epsilon_and_scheme_on_the_page_are_the_shared_settings():
    at = open_page("timeline", TIMEOUT)
    at.number_input(key="p_epsilon").set_value(2.5).run()
    assert at.sidebar.number_input(key="w_epsilon").value == 2.5
    at.selectbox(key="p_scheme").set_value("skip").run()
    assert at.sidebar.selectbox(key="w_scheme").value == "skip"
    assert "ε = 2.5" in " ".join(w.value for w in [*at.warning, *at.success, *at.error])
    # and the other way: the sidebar's change shows on the page's fields
    at.sidebar.number_input(key="w_epsilon").set_value(0.7).run()
    at.sidebar.selectbox(key="w_scheme").set_value("uniform").run()
    assert at.number_input(key="p_epsilon").value == 0.7
    assert at.selectbox(key="p_scheme").value == "uniform"
    assert not at.exception
