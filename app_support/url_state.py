"""Public settings in the page's URL, so that a reload (or a shared link) keeps the view.

The page itself is the URL's path (``st.navigation``); the public settings ride in its
query: ``eps`` (total budget ε), ``scheme``, ``w`` (window), ``mech`` (Laplace or
Geometric) and ``r`` (the Map's radius in metres) and ``k`` (the declared bound on landmark events).
Never the data, the landmarks, Δf
(it may be a suggestion derived from the data) or a seed (a fresh seed regenerates the
noise): the URL is shared, pasted and logged. A reload starts a new Streamlit session
(the tab's data and landmarks come back from :mod:`app_support.tab_memory`), and
:func:`restore_settings` reads the query once per session; a value outside its range is
refused with a message and the default kept. :func:`write_settings` keeps the query
equal to the settings on every run.
"""

from __future__ import annotations

import streamlit as st

from app_support import state_keys as K
from lmdk_core.engine.allocation import SCHEMES
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.setting_limits import check_setting

__all__ = ["URL_SETTINGS", "restore_settings", "write_settings"]

#: query name → the shared setting it holds
URL_SETTINGS = {"eps": "epsilon", "scheme": "scheme", "w": "window", "mech": "mechanism",
                "r": "radius", "k": "max_landmarks"}
#: the allowed words of the settings that are not numbers
_CHOICES = {"scheme": tuple(SCHEMES), "mechanism": ("laplace", "geometric")}
_RESTORED = "_lmdk_url_restored"
_PROBLEMS = "_lmdk_url_problems"


def _parse(name: str, text: str):
    """The setting ``name`` read from the query's ``text``; InputError when it is not
    an allowed value (the message says which are)."""
    if name in _CHOICES:
        if text not in _CHOICES[name]:
            raise InputError(f"{name} must be one of {', '.join(_CHOICES[name])}; got "
                             f"{text[:40]!r}")
        return text
    try:
        number = int(text) if name in ("window", "max_landmarks") else float(text)
    except ValueError:
        raise InputError(f"{name} must be a number; got {text[:40]!r}") from None
    return check_setting(name, number, where="")


def restore_settings() -> None:
    """Once per browser session (the first run after a load or reload): the URL's
    settings become the session's, before the sidebar is drawn; a bad value is kept out
    and shown by :func:`url_problems`."""
    ss = st.session_state
    if ss.get(_RESTORED):
        return
    ss[_RESTORED] = True
    problems = []
    for query, name in URL_SETTINGS.items():
        text = st.query_params.get(query)
        if text is None:
            continue
        try:
            ss[K.setting_key(name)] = _parse(name, str(text))
        except InputError as exc:
            problems.append(f"{query}={str(text)[:40]}: {exc}")
    ss[_PROBLEMS] = problems


def url_problems() -> list[str]:
    """The link's values that were refused (this session), to show once."""
    return list(st.session_state.pop(_PROBLEMS, None) or [])


def write_settings() -> None:
    """The URL's query set to the current public settings (only the ones that differ,
    so an unchanged run sends nothing)."""
    ss = st.session_state
    for query, name in URL_SETTINGS.items():
        value = ss.get(K.setting_key(name))
        if value is None:
            continue
        text = repr(float(value)) if isinstance(value, float) else str(value)
        if st.query_params.get(query) != text:
            st.query_params[query] = text
