"""Session state shared by every page and the sidebar with the shared settings.

Landmarks and settings live in ``st.session_state`` under plain keys, so they survive
page switches, reruns and failed uploads. Widget keys are re-assigned at the top of
every run (see :func:`keep_widget_state`) because Streamlit forgets the state of
widgets that a page did not draw.
"""

from __future__ import annotations

import secrets

import streamlit as st

from lmdk_core.allocation import SCHEMES
from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.series import Series

DEMO_SERIES = "Demo: household electricity (1 week, hourly)"

DEFAULTS = {
    "epsilon": 1.0,
    "scheme": "uniform",
    "window": 10,
    "mechanism": "laplace",
    "sensitivity": 0.2,
    "seed": 0,
    "correlation_strength": 0.1,
    "series_leakage": True,
    "analysis_data": "series",
}

#: the label of the correlation-strength slider (the Timeline and Leakage pages)
STRENGTH_LABEL = "Correlation: strong ← s → weak"

#: choices of the correlation-strength slider (Cao et al.'s smoothing parameter s)
STRENGTHS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


def strength_ladder(current: float) -> list[float]:
    """The slider's choices, with ``current`` among them (a restored view may hold any s)."""
    return sorted(set(STRENGTHS) | {float(current)})

#: range of the sidebar's total budget ε
MIN_EPSILON, MAX_EPSILON = 0.001, 100.0

#: widget keys whose values must survive pages that do not draw them
PERSISTENT = [f"w_{k}" for k in DEFAULTS] + ["w_series_name"]


def init_state() -> None:
    """Create the defaults once per browser session."""
    ss = st.session_state
    if "series_sets" not in ss:
        ss.series_sets = {DEMO_SERIES: demo_series()}
        ss.series_landmarks = {DEMO_SERIES: demo_series_landmarks()}
        ss.series_keys = {DEMO_SERIES: "demo-household"}
    for k, v in DEFAULTS.items():
        ss.setdefault(f"w_{k}", v)
    ss.setdefault("w_series_name", DEMO_SERIES)


def keep_widget_state() -> None:
    """Re-assign persistent widget keys so that Streamlit keeps them across pages."""
    for k in PERSISTENT:
        if k in st.session_state:
            st.session_state[k] = st.session_state[k]


def keep_page_state(defaults: dict) -> None:
    """A page's own widget keys: set their defaults once, then re-assign them so that
    Streamlit keeps their values while the user visits other pages."""
    for k, v in defaults.items():
        st.session_state.setdefault(k, v)
        st.session_state[k] = st.session_state[k]


def setting(name: str):
    """The current value of a shared setting (ε, scheme, seed, ...)."""
    return st.session_state[f"w_{name}"]


def set_setting(name: str, value) -> None:
    """Change a shared setting (call before the sidebar is drawn, e.g. in a callback)."""
    st.session_state[f"w_{name}"] = value


def current_series() -> tuple[str, Series]:
    """Name and data of the selected series."""
    name = st.session_state.w_series_name
    if name not in st.session_state.series_sets:
        name = DEMO_SERIES
        st.session_state.w_series_name = name
    return name, st.session_state.series_sets[name]


def series_landmarks(name: str | None = None) -> list[int]:
    """Landmarks (0-based timestamps) of a series, sorted."""
    name = name or current_series()[0]
    return sorted(st.session_state.series_landmarks.get(name, []))


def set_series_landmarks(landmarks, name: str | None = None) -> None:
    """Replace the landmark set of a series."""
    name = name or current_series()[0]
    T = len(st.session_state.series_sets[name])
    st.session_state.series_landmarks[name] = sorted({int(t) for t in landmarks if 0 <= t < T})


def add_series(name: str, series: Series, landmarks=(), key: str = "embedded") -> str:
    """Register a dataset (an upload) and select it; returns the name used."""
    base, i = name, 2
    while name in st.session_state.series_sets and name != base:
        name = f"{base} ({i})"
        i += 1
    st.session_state.series_sets[name] = series
    st.session_state.series_landmarks[name] = list(landmarks)
    st.session_state.series_keys[name] = key
    st.session_state.w_series_name = name
    return name


def _resample() -> None:
    st.session_state.w_seed = secrets.randbelow(1_000_000)


def sidebar() -> None:
    """The shared settings, drawn on every page."""
    with st.sidebar:
        st.markdown("### Shared settings")
        st.selectbox("Time series", list(st.session_state.series_sets), key="w_series_name",
                     help="The demo, or a CSV you uploaded on the Timeline page.")
        st.number_input(
            "Total privacy budget ε", min_value=MIN_EPSILON, max_value=MAX_EPSILON, step=0.1,
            format="%.4g", key="w_epsilon",
            help="Smaller ε = stronger privacy and more noise. Landmark privacy guarantees "
                 "that all landmarks plus any one event together spend at most ε.")
        st.selectbox(
            "Budget scheme", list(SCHEMES), key="w_scheme",
            format_func=lambda k: SCHEMES[k].label,
            help="How ε is spread over the timestamps.")
        st.caption(SCHEMES[setting("scheme")].description)
        if setting("scheme") == "w-event":
            st.number_input("Window w (timestamps)", min_value=1, max_value=100_000, step=1,
                            key="w_window",
                            help="w-event privacy protects any w consecutive events; "
                                 "each timestamp gets ε/w.")
        st.radio("Mechanism (series)", ["laplace", "geometric"], key="w_mechanism",
                 format_func={"laplace": "Laplace", "geometric": "Geometric (counts)"}.get,
                 horizontal=True,
                 help="Laplace adds continuous noise; Geometric adds whole numbers, for counts.")
        st.number_input("Sensitivity Δf", min_value=0.001, max_value=1e9, step=0.5,
                        format="%.3g", key="w_sensitivity",
                        help="How much one person's event can change a value (same unit as "
                             "the data). Noise scale is Δf/ε_t.")
        c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
        c1.number_input("Random seed", min_value=0, max_value=2**31 - 1, step=1, key="w_seed",
                        help="Same seed + same settings = same release.")
        c2.button("Resample", on_click=_resample, help="Draw new noise (a new seed).")
