"""The memory that brings a tab's view back after a reload (app_support/tab_memory.py):
what it keeps, for how long, for how many tabs, and that a restored session gets its own
copy. The browser round trip is tests/browser/test_browser_reload.py."""

from __future__ import annotations

import numpy as np

from app_support import state_keys as K
from app_support.tab_memory import KEPT, TabMemory
from app_support.url_state import URL_SETTINGS
from tests.conftest import open_page

TIMEOUT = 90

TOKEN = "0123456789abcdef0123456789abcdef"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_view_is_kept_for_its_time_then_forgotten():
    clock = Clock()
    memory = TabMemory(max_tabs=4, keep_seconds=60, clock=clock)
    memory.remember(TOKEN, {"x": [1, 2]})
    clock.now = 59.9
    assert memory.recall(TOKEN) == {"x": [1, 2]}
    clock.now = 60.1
    assert memory.recall(TOKEN) is None and len(memory) == 0


def test_a_run_refreshes_the_time_and_the_least_recently_used_tab_goes_first():
    clock = Clock()
    memory = TabMemory(max_tabs=2, keep_seconds=60, clock=clock)
    memory.remember("a" * 32, {"v": 1})
    clock.now = 30
    memory.remember("b" * 32, {"v": 2})
    clock.now = 50
    memory.remember("a" * 32, {"v": 3})  # a's run: kept 60 s from now on
    clock.now = 95
    assert memory.recall("a" * 32) == {"v": 3}  # 45 s after its last run
    assert memory.recall("b" * 32) is None  # 65 s after its last run
    memory.remember("c" * 32, {"v": 4})
    memory.remember("d" * 32, {"v": 5})  # a third tab: the least recently used (a) goes
    assert memory.recall("a" * 32) is None
    assert memory.recall("c" * 32) == {"v": 4} and memory.recall("d" * 32) == {"v": 5}


def test_a_restored_session_gets_its_own_copy():
    memory = TabMemory()
    values = np.arange(5.0)
    landmarks = {"Upload: x.csv": [1, 3]}
    memory.remember(TOKEN, {K.SERIES_LANDMARKS: landmarks, "values": values})
    first, second = memory.recall(TOKEN), memory.recall(TOKEN)
    assert first is not None and second is not None
    first[K.SERIES_LANDMARKS]["Upload: x.csv"].append(4)
    first["values"][0] = 99.0
    assert second[K.SERIES_LANDMARKS] == {"Upload: x.csv": [1, 3]}
    assert landmarks == {"Upload: x.csv": [1, 3]} and values[0] == 0.0


def test_forget_drops_the_tab_at_once():
    memory = TabMemory()
    memory.remember(TOKEN, {"v": 1})
    memory.forget(TOKEN)
    memory.forget(TOKEN)  # twice: nothing to do
    assert memory.recall(TOKEN) is None


def test_what_is_kept_is_the_data_and_every_setting_the_url_does_not_hold():
    """Every session key the app creates for data, landmarks, runs and stays is kept;
    the URL's own settings are not (the URL brings them back, and wins)."""
    at = open_page("timeline", TIMEOUT)
    session_keys = {key for key in KEPT if key in at.session_state}
    for key in (K.SERIES_SETS, K.SERIES_LANDMARKS, K.SERIES_KEYS, K.TRACK_SETS,
                K.TRACK_LANDMARKS, K.TRACK_STAYS, K.TRACK_KEYS, K.W_SERIES_NAME,
                K.W_TRACK_NAME, K.W_SENSITIVITY, K.W_SEED):
        assert key in session_keys and key in KEPT, key
    for name in URL_SETTINGS.values():
        assert K.setting_key(name) not in KEPT, name


def test_a_session_whose_tab_reported_its_key_is_kept_after_every_run():
    """The app keeps the view once the tab has reported its key (the browser test does
    the reporting; here the session is told the key directly) — and not after Forget."""
    from app_support import tab_memory

    at = open_page("timeline", TIMEOUT)
    at.session_state[tab_memory.TAB_KEY] = TOKEN
    at.session_state[tab_memory.TAB_CHECKED] = True
    at.run()
    at.multiselect(key=K.W_LM_SELECT).set_value([27, 40]).run()
    kept = tab_memory._memory().recall(TOKEN)
    assert kept is not None
    assert kept[K.SERIES_LANDMARKS][kept[K.W_SERIES_NAME]] == [27, 40]
    at.session_state[tab_memory.TAB_OFF] = True
    tab_memory._memory().forget(TOKEN)
    at.run()
    assert tab_memory._memory().recall(TOKEN) is None
