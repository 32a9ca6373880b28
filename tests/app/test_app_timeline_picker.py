"""AppTest: the Timeline's landmark picker with many landmarks (one chip per run of
consecutive timestamps above PICKER_MAX_SINGLE landmarks)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.test_app_timeline import upload
from tests.conftest import open_page

SELECT = "w_lm_select"
#: the limit in app_pages/timeline.py (the page module runs as a script; not imported)
MAX_SINGLE = 50


@pytest.fixture
def long_series() -> AppTest:
    at = open_page("timeline", 60)
    rows = "\n".join(f"{t},{(t * 37) % 11}" for t in range(600))
    upload(at, "series_upload", "long.csv", f"time,value\n{rows}\n".encode())
    assert not at.exception and not at.error
    return at


def pick(at: AppTest, timestamps) -> AppTest:
    return at.multiselect(key=SELECT).set_value([f"t={t}" for t in timestamps]).run()


def landmarks(at: AppTest) -> int:
    label = at.multiselect(key=SELECT).label  # "Landmarks (n)"
    return int(label.split("(")[1].rstrip(")"))


def test_up_to_the_limit_every_landmark_is_a_chip(long_series):
    at = pick(long_series, range(10, 10 + MAX_SINGLE))
    picker = at.multiselect(key=SELECT)
    assert picker.value == list(range(10, 10 + MAX_SINGLE))
    # the times of this series are 0, 1, 2, …: a chip does not say t twice
    assert picker.options[0] == "t=10" and len(picker.options) == MAX_SINGLE


def test_above_the_limit_each_run_is_one_chip(long_series):
    chosen = [3, *range(100, 240), 250, 251, 400]
    at = pick(long_series, chosen)
    assert not at.exception
    picker = at.multiselect(key=SELECT)
    assert picker.value == [3, (100, 239), (250, 251), 400]
    assert picker.options == ["t=3", "t=100–239 (140 timestamps)",
                              "t=250–251 (2 timestamps)", "t=400"]
    assert landmarks(at) == len(chosen)
    # removing a run's chip unmarks the whole run; the others stay
    at.multiselect(key=SELECT).set_value([3, (250, 251), 400]).run()
    assert landmarks(at) == 4
    assert at.multiselect(key=SELECT).value == [3, 250, 251, 400]  # back to single chips
    # a typed timestamp is added to the runs
    pick(at, range(300, 360))
    at.multiselect(key=SELECT).set_value([(300, 359), "t=599"]).run()
    assert at.multiselect(key=SELECT).value == [(300, 359), 599]
    assert landmarks(at) == 61


def test_chips_of_a_series_with_dates_name_their_times():
    """The demo series has dates: a chip says when its landmark is, a run when it starts
    and ends."""
    at = open_page("timeline", 60)
    picker = at.multiselect(key=SELECT)
    assert picker.options and all(" · " in o for o in picker.options)
    at = pick(at, range(10, 10 + MAX_SINGLE + 5))
    run = at.multiselect(key=SELECT).options[0]
    assert run.startswith("t=10–64 · ") and " – " in run and run.endswith("(55 timestamps)")
