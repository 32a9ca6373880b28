"""Public settings in the URL (app_support/url_state.py): a reload or a shared link keeps
ε, the scheme, the window, the mechanism and r; never the data, landmarks, Δf or seed; a
bad value is refused with a message and the default kept (docs/app.md)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _app(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_links_settings_become_the_sessions():
    at = _app(eps="0.25", scheme="skip", w="7", mech="geometric", r="250", k="12")
    ss = at.session_state
    assert ss["w_max_landmarks"] == 12  # the declared bound k, a public setting
    assert ss["w_epsilon"] == 0.25 and ss["w_scheme"] == "skip" and ss["w_window"] == 7
    assert ss["w_mechanism"] == "geometric" and ss["w_radius"] == 250.0
    assert not at.error


def test_the_url_follows_the_settings_and_holds_nothing_else():
    at = _app()
    assert at.query_params["eps"] == "1.0" and at.query_params["scheme"] == "uniform"
    at.session_state["w_epsilon"] = 0.5
    at.run()
    assert at.query_params["eps"] == "0.5"
    # public settings only: no seed, no Δf (it may be derived from the data), no data
    assert set(at.query_params) <= {"eps", "scheme", "w", "mech", "r", "k"}  # k: declared


def test_a_bad_value_is_refused_with_a_message_and_the_default_kept():
    at = _app(eps="1e9", scheme="<b>x</b>")
    assert at.session_state["w_epsilon"] == 1.0 and at.session_state["w_scheme"] == "uniform"
    text = " ".join(e.value for e in at.error)
    assert "eps=1e9" in text and "scheme=" in text and "default is used" in text
    at.run()  # said once, not on every run
    assert not [e for e in at.error if "link's setting" in e.value]
