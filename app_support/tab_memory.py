"""A reload keeps the tab's data and landmarks: the view of one browser tab, held in the
server's memory for a while under a random key that only that tab knows.

A reload (or the browser restoring a tab) starts a new Streamlit session: the URL brings
back the public settings (:mod:`app_support.url_state`), and this module the rest — the
uploaded series and tracks, their landmarks, runs and stays, Δf, the correlation model
and the other settings that are not in the URL.

* **The tab's key** is 128 random bits (``crypto.getRandomValues``) kept in the tab's
  ``sessionStorage``: it survives a reload of that tab, and no other tab, window or
  site can read it (a new tab starts with none; closing the tab deletes it). It is never
  in the URL, a cookie or a file. The small component :func:`tab_memory` reads it and
  reports it once per session (one extra rerun at the start of a session).
* **The view** is kept in this server process's memory only — never on disk — as
  references to the session's own objects (:data:`KEPT`), refreshed after every run;
  at most :data:`MAX_TABS` tabs, each for :data:`KEEP_MINUTES` minutes after its last
  run; a restored session gets its own deep copy. "Forget this tab's data" (the note
  under the upload box) drops it at once.

It is the confidential data of the session that already sits in this process; nothing
is published, and nothing leaves the machine (docs/app.md, "A reload keeps the view").
"""

from __future__ import annotations

import copy
import functools
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import SETTING_NAMES
from app_support.bidi_assets import trigger_value
from app_support.url_state import URL_SETTINGS

__all__ = ["KEEP_MINUTES", "KEPT", "MAX_TABS", "TabMemory", "forget_this_tab",
           "keeping_this_tab", "remember_this_tab", "restored_note", "tab_memory"]

#: how long a tab's view is kept after its last run (minutes)
KEEP_MINUTES = 30
#: how many tabs' views one server process keeps (the least recently used goes first)
MAX_TABS = 16
#: the component's key (its container is hidden: it draws nothing)
COMPONENT_KEY = "lmdk_tab_memory"
#: session keys of this module: the tab's key, whether the memory was looked up, the note
TAB_KEY = "_lmdk_tab_key"
TAB_CHECKED = "_lmdk_tab_checked"
TAB_NOTE = "_lmdk_tab_note"
TAB_OFF = "_lmdk_tab_off"

#: what a tab's view is: the data sets, their landmarks, runs and stays, which one is
#: shown, uploaded matrices and file names, and every setting that the URL does not hold
#: (the URL's own settings come back from the URL, so a link edited by hand wins)
KEPT: tuple[str, ...] = (
    K.SERIES_SETS, K.SERIES_LANDMARKS, K.SERIES_KEYS, K.SERIES_RUNS, K.W_SERIES_NAME,
    K.TRACK_SETS, K.TRACK_LANDMARKS, K.TRACK_STAYS, K.TRACK_KEYS, K.W_TRACK_NAME,
    K.CORR_MATRICES, K.DATA_FILES, K.SEED_ORIGIN, K.LEAKAGE_TARGET,
    *(K.setting_key(name) for name in SETTING_NAMES if name not in URL_SETTINGS.values()),
)
_TOKEN = re.compile(r"[0-9a-f]{32}")

_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  let token = null;
  try {
    token = window.sessionStorage.getItem("lmdk-tab");
    if (!/^[0-9a-f]{32}$/.test(token || "")) {
      const bytes = new Uint8Array(16);
      window.crypto.getRandomValues(bytes);
      token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      window.sessionStorage.setItem("lmdk-tab", token);
    }
  } catch (e) {
    return;  // no sessionStorage (a locked-down browser): a reload starts afresh
  }
  if (data && data.known !== token) setTriggerValue("tab", token);
}
"""


class TabMemory:
    """The views of recent tabs: token → (last time, {session key: value}), least
    recently used first; thread-safe (every session's script thread uses it)."""

    def __init__(self, max_tabs: int = MAX_TABS, keep_seconds: float = KEEP_MINUTES * 60,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._views: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()
        self._max, self._keep, self._clock = max_tabs, keep_seconds, clock

    def _expire(self, now: float) -> None:
        while self._views:
            token, (when, _) = next(iter(self._views.items()))
            if now - when <= self._keep and len(self._views) <= self._max:
                break
            del self._views[token]

    def remember(self, token: str, view: Mapping[str, Any]) -> None:
        """Keep ``view`` (references, not copies) as the tab's latest."""
        with self._lock:
            now = self._clock()
            self._views[token] = (now, dict(view))
            self._views.move_to_end(token)
            self._expire(now)

    def recall(self, token: str) -> dict[str, Any] | None:
        """A deep copy of the tab's view, or None when it is unknown or has expired."""
        with self._lock:
            self._expire(self._clock())
            kept = self._views.get(token)
            return None if kept is None else copy.deepcopy(kept[1])

    def forget(self, token: str) -> None:
        with self._lock:
            self._views.pop(token, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._views)


@functools.cache
def _memory() -> TabMemory:
    """The one memory of this server process."""
    return TabMemory()


@functools.cache
def _component() -> Callable:
    return st.components.v2.component("lmdk.tab_memory", html="", js=_JS)


def _on_tab() -> None:
    """The tab reported its key: remember it, and once per session bring back the view
    that the tab had before the reload."""
    ss = st.session_state
    token = trigger_value(COMPONENT_KEY, "tab")
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        return
    ss[TAB_KEY] = token
    if ss.get(TAB_CHECKED):
        return
    ss[TAB_CHECKED] = True
    view = _memory().recall(token)
    if not view:
        return
    for key, value in view.items():
        ss[key] = value
    # the demo series and the demo track are always there; the rest were uploaded
    uploads = max(len(view.get(K.SERIES_SETS, {})) - 1, 0) \
        + max(len(view.get(K.TRACK_SETS, {})) - 1, 0)
    ss[TAB_NOTE] = ("Restored after the reload: this tab's data, landmarks and settings "
                    "(kept in the app's memory for this tab only"
                    + (f"; {uploads} uploaded data set{'s' if uploads != 1 else ''}"
                       if uploads else "") + ").")


def tab_memory() -> None:
    """Draw the (invisible) component that reports the tab's key; call it on every run,
    before the pages (app.py)."""
    with st.container(key="lmdk_tab_memory_box"):
        _component()(data={"known": st.session_state.get(TAB_KEY)}, key=COMPONENT_KEY,
                     on_tab_change=_on_tab)


def remember_this_tab() -> None:
    """Keep the session's view for its tab (after every run; nothing before the tab has
    reported its key)."""
    ss = st.session_state
    token = ss.get(TAB_KEY)
    if token is None or not ss.get(TAB_CHECKED) or ss.get(TAB_OFF):
        return
    _memory().remember(token, {key: ss[key] for key in KEPT if key in ss})


def forget_this_tab() -> None:
    """Drop the tab's kept view now and keep nothing more for the rest of the session:
    a reload then starts afresh (the button's callback)."""
    st.session_state[TAB_OFF] = True
    token = st.session_state.get(TAB_KEY)
    if token is not None:
        _memory().forget(token)


def keeping_this_tab() -> bool:
    """Whether this session's view is kept over a reload (False after "Forget")."""
    return not st.session_state.get(TAB_OFF, False)


def restored_note() -> str | None:
    """The message of a restore that just happened (once)."""
    return st.session_state.pop(TAB_NOTE, None)
