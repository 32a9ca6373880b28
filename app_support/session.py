"""Session state shared by every page and the sidebar with the shared settings.

Landmarks and settings live in ``st.session_state`` under plain keys, so they survive
page switches, reruns and failed uploads. Widget keys are re-assigned at the top of
every run (see :func:`keep_widget_state`) because Streamlit forgets the state of
widgets that a page did not draw.
"""

from __future__ import annotations

import streamlit as st

from app_support import markdown_guard
from app_support import state_keys as K
from app_support.app_settings import current_settings, set_setting
from app_support.correlation_state import (  # noqa: F401 - re-exported for the pages
    CORRELATION_DEFAULTS,
    CORRELATION_KINDS,
    STRENGTH_LABEL,
    STRENGTHS,
    correlation_spec,
    restore_correlation,
    strength_ladder,
)
from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.series import Series
from lmdk_core.engine.allocation import DEFAULT_MAX_LANDMARKS, SCHEMES
from lmdk_core.foundation.setting_limits import LIMITS, TEACHING_SEED_MAX, fresh_seed
from lmdk_core.foundation.validation import joined_ranges, landmark_runs

# every string any page hands to a Streamlit element passes through one function
# (lmdk_core.foundation.quoting.inert_markdown): every page imports this module
markdown_guard.install()

DEMO_SERIES = "Demo: household electricity (1 week, hourly)"

DEFAULTS = {
    "epsilon": 1.0,
    "scheme": "uniform",
    "window": 10,
    "mechanism": "laplace",
    # Δf: a declared bound, never computed from the data (the data's suggestion is shown
    # beside it with a "Use X as my declared bound" button); 2.9 kWh suits the demo week
    "sensitivity": 2.9,
    # k: the declared bound on landmark events (public; Uniform spends ε/(k+1))
    "max_landmarks": DEFAULT_MAX_LANDMARKS,
    # the seed of every release: fresh 128-bit OS entropy per session (set in init_state),
    # a fixed number only in the reproducible (teaching) mode
    "seed": None,
    "reproducible": False,
    "teaching_seed": 0,
    "correlation_strength": 0.1,
    "series_leakage": True,
    "analysis_data": "series",
}

#: range of the sidebar's total budget ε (the engine's one table of setting ranges)
MIN_EPSILON, MAX_EPSILON = LIMITS["epsilon"].low, LIMITS["epsilon"].high

#: widget keys whose values must survive pages that do not draw them
PERSISTENT = [K.setting_key(k) for k in (*DEFAULTS, *CORRELATION_DEFAULTS)] \
    + [K.W_SERIES_NAME]


def init_state() -> None:
    """Create the defaults once per browser session."""
    ss = st.session_state
    if K.SERIES_SETS not in ss:
        ss[K.SERIES_SETS] = {DEMO_SERIES: demo_series()}
        ss[K.SERIES_LANDMARKS] = {DEMO_SERIES: demo_series_landmarks()}
        ss[K.SERIES_KEYS] = {DEMO_SERIES: "demo-household"}
    for k, v in {**DEFAULTS, **CORRELATION_DEFAULTS}.items():
        ss.setdefault(K.setting_key(k), v)
    if ss[K.W_SEED] is None:
        ss[K.W_SEED] = fresh_seed()
        ss[K.SEED_ORIGIN] = "fresh"
    ss.setdefault(K.CORR_MATRICES, {})  # uploaded matrices: 'forward'/'backward' → (name, P)
    ss.setdefault(K.W_SERIES_NAME, DEMO_SERIES)


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


def apply_calibration(epsilon: float, target: float) -> None:
    """Follow an amber verdict's advice (:class:`lmdk_core.decision.verdict.CalibrationAdvice`):
    spend the calibrated ε and check landmark TPL against the target α from now on."""
    st.session_state[K.W_EPSILON] = float(epsilon)
    st.session_state[K.LEAKAGE_TARGET] = float(target)
    st.session_state[K.CALIBRATION_APPLIED] = (
        f"Applied the calibration: ε = {epsilon:.4g} is spent, and the verdicts now check "
        f"landmark TPL against α = {target:.4g} (changing ε by hand forgets α).")


@st.cache_data(max_entries=32, show_spinner=False)
def _derived_sensitivity(values, time, time_kind: str, landmarks: tuple[int, ...],
                         whole: bool):
    from lmdk_core.decision.sensitivity import derived_sensitivity

    return derived_sensitivity(Series(time=time, values=values, time_kind=time_kind),
                               list(landmarks), whole=whole)


def derived_sensitivity_now():
    """The Δf derived from the selected series and its landmarks
    (:func:`lmdk_core.decision.sensitivity.derived_sensitivity`; a whole number for Geometric), or
    None when it cannot be derived (the reason is the exception's)."""
    from lmdk_core.foundation.errors import InputError

    _, series = current_series()
    try:
        return _derived_sensitivity(series.values, series.time, series.time_kind,
                                    tuple(series_landmarks()),
                                    current_settings().mechanism == "geometric")
    except InputError:
        return None


def _declare_sensitivity(value: float) -> None:
    """The "Use X as my declared bound" button: the data's suggestion becomes the user's
    declared Δf (an explicit act; docs/privacy-model.md)."""
    st.session_state[K.W_SENSITIVITY] = float(value)


def current_series() -> tuple[str, Series]:
    """Name and data of the selected series."""
    name = st.session_state[K.W_SERIES_NAME]
    if name not in st.session_state[K.SERIES_SETS]:
        name = DEMO_SERIES
        st.session_state[K.W_SERIES_NAME] = name
    return name, st.session_state[K.SERIES_SETS][name]


def series_landmarks(name: str | None = None) -> list[int]:
    """Landmarks (0-based timestamps) of a series, sorted."""
    name = name or current_series()[0]
    return sorted(st.session_state[K.SERIES_LANDMARKS].get(name, []))


def set_series_landmarks(landmarks, name: str | None = None) -> None:
    """Replace the landmark set of a series."""
    name = name or current_series()[0]
    T = len(st.session_state[K.SERIES_SETS][name])
    st.session_state[K.SERIES_LANDMARKS][name] = sorted({int(t) for t in landmarks if 0 <= t < T})


def series_runs(name: str | None = None) -> list[tuple[int, int]]:
    """Runs of a series' readings protected as one landmark event each
    (docs/series-events.md): the accepted runs, each cut to the readings still marked as
    landmarks — unmarking a reading splits its run, a piece of one reading is a landmark
    of its own (sorted, disjoint, at least two readings each)."""
    name = name or current_series()[0]
    marked = set(series_landmarks(name))
    out: list[tuple[int, int]] = []
    for a, b in st.session_state.get(K.SERIES_RUNS, {}).get(name, []):
        out += [r for r in landmark_runs(t for t in range(a, b + 1) if t in marked)
                if r[1] > r[0]]
    return sorted(set(out))


def set_series_runs(runs, name: str | None = None) -> None:
    """Replace the runs of a series protected as one event each; overlapping or touching
    ranges are joined (ranges outside the series are dropped)."""
    name = name or current_series()[0]
    T = len(st.session_state[K.SERIES_SETS][name])
    st.session_state.setdefault(K.SERIES_RUNS, {})[name] = joined_ranges(runs, T)


def add_series(name: str, series: Series, landmarks=(), key: str = "embedded") -> str:
    """Register a dataset (an upload) and select it; returns the name used."""
    base, i = name, 2
    while name in st.session_state[K.SERIES_SETS] and name != base:
        name = f"{base} ({i})"
        i += 1
    st.session_state[K.SERIES_SETS][name] = series
    st.session_state[K.SERIES_LANDMARKS][name] = list(landmarks)
    st.session_state.setdefault(K.SERIES_RUNS, {})[name] = []
    st.session_state[K.SERIES_KEYS][name] = key
    st.session_state[K.W_SERIES_NAME] = name
    return name


def leakage_target() -> float | None:
    """The landmark-TPL target α applied by a calibration on the Leakage page (None: the
    verdict compares landmark TPL with ε)."""
    return st.session_state.get(K.LEAKAGE_TARGET)


def clear_leakage_target() -> None:
    """Forget a calibrated target (the user changed ε by hand)."""
    st.session_state.pop(K.LEAKAGE_TARGET, None)


def take_epsilon(eps: float | None) -> None:
    """A chart's ε slider was let go at ``eps`` (None: nothing usable): it becomes the
    session's ε (clamped to its limits), as if typed in the sidebar, which forgets a
    calibrated target."""
    if eps is not None:
        set_setting("epsilon", min(max(float(eps), MIN_EPSILON), MAX_EPSILON))
        clear_leakage_target()


def _resample() -> None:
    """New noise: a fresh 128-bit seed from the operating system."""
    st.session_state[K.W_SEED] = fresh_seed()
    st.session_state[K.SEED_ORIGIN] = "fresh"


def _on_reproducible() -> None:
    ss = st.session_state
    if ss[K.W_REPRODUCIBLE]:
        ss[K.W_SEED] = int(ss[K.W_TEACHING_SEED])
        ss[K.SEED_ORIGIN] = "teaching"
    else:
        _resample()


def _on_teaching_seed() -> None:
    st.session_state[K.W_SEED] = int(st.session_state[K.W_TEACHING_SEED])
    st.session_state[K.SEED_ORIGIN] = "teaching"


def restore_seed(cfg) -> None:
    """The seed after restoring configuration ``cfg`` (call from an upload callback).

    A restored configuration never sets the seed of later releases: its seed, if any, is
    confidential and may be known to whoever had the file (a configuration meant to be
    shared, e.g. the Population page's batch configuration, holds none). The session
    draws a fresh 128-bit seed — except for a configuration saved in the teaching mode
    (``reproducible``), which turns the teaching mode on with its fixed seed, under the
    sidebar's warning. A teaching mode the user turned on stays on with its seed."""
    ss = st.session_state
    seed = cfg.seed
    if getattr(cfg, "reproducible", False) and seed is not None \
            and 0 <= int(seed) <= TEACHING_SEED_MAX:
        ss[K.W_REPRODUCIBLE] = True
        ss[K.W_TEACHING_SEED] = int(seed)
        ss[K.W_SEED] = int(seed)
        ss[K.SEED_ORIGIN] = "teaching"
        return
    if not ss[K.W_REPRODUCIBLE]:  # the teaching mode, if on, keeps the user's own seed
        _resample()


#: the shared settings each page uses, by its url path (the sidebar shows only those: on
#: the Map the series' mechanism and Δf did nothing, on Compare the scheme is the page's own,
#: on Home and Learn nothing applies). 'data' pages (Choose ε, Compare, Leakage) show the
#: series' settings only while their data choice is the series.
PAGE_SETTINGS: dict[str, tuple[str, ...]] = {
    "": (), "learn": (),
    "timeline": ("series", "epsilon", "scheme", "mechanism", "seed"),
    "map": ("epsilon", "scheme", "seed"),
    "choose": ("data", "epsilon", "scheme", "mechanism"),
    "compare": ("data", "epsilon", "window", "mechanism", "seed"),
    "leakage": ("data", "epsilon", "scheme"),
    "dummies": ("series", "epsilon", "scheme", "mechanism", "seed"),
    "population": ("epsilon", "scheme", "mechanism", "seed"),
}
#: every part, for a page not in :data:`PAGE_SETTINGS`
ALL_SETTINGS = ("series", "epsilon", "scheme", "mechanism", "seed")


def page_settings(page: str) -> set[str]:
    """The parts of the shared settings that do something on ``page`` (its url path)."""
    parts = set(PAGE_SETTINGS.get(page, ALL_SETTINGS))
    if "data" in parts:
        parts.discard("data")
        if current_settings().analysis_data == "series":
            parts.add("series")
        else:
            parts.discard("mechanism")
    return parts


def _epsilon_input(key: str, on_change) -> None:
    st.number_input(
        "Total privacy budget ε", min_value=LIMITS["epsilon"].low,
        max_value=LIMITS["epsilon"].high, step=0.1,
        format="%.4g", key=key, on_change=on_change,
        help="Smaller ε = stronger privacy and more noise. Landmark privacy guarantees "
             "that all landmarks plus any one event together spend at most ε.")


def _scheme_input(key: str, on_change=None) -> None:
    st.selectbox(
        "Budget scheme", list(SCHEMES), key=key, on_change=on_change,
        format_func=lambda k: SCHEMES[k].label,
        help="How ε is spread over the timestamps.")


def _from_page_epsilon() -> None:
    st.session_state[K.W_EPSILON] = st.session_state[K.P_EPSILON]
    clear_leakage_target()


def _from_page_scheme() -> None:
    st.session_state[K.W_SCHEME] = st.session_state[K.P_SCHEME]


#: the container of the on-page ε and scheme (shown on narrow screens only, by the style
#: of app_support/accessibility.py; 'lmdk_row': its columns stay one row on a phone)
PAGE_SETTINGS_KEY = "lmdk_row_settings"


def settings_on_page(scheme: bool = True) -> None:
    """ε (and the scheme) drawn on the page, right above its verdict, for phones: there
    the sidebar covers the whole page, so the verdict could not be seen while ε changed.
    Hidden on wider screens (the sidebar's fields are beside the page there). The fields
    are the sidebar's settings under their own keys, kept equal both ways."""
    ss = st.session_state
    ss[K.P_EPSILON] = ss[K.W_EPSILON]
    ss[K.P_SCHEME] = ss[K.W_SCHEME]
    with st.container(key=PAGE_SETTINGS_KEY):  # one row on a phone too
        c1, c2 = st.columns(2) if scheme else (st.container(), None)
        with c1:
            _epsilon_input(K.P_EPSILON, _from_page_epsilon)
        if c2 is not None:
            with c2:
                _scheme_input(K.P_SCHEME, _from_page_scheme)


def sidebar(page: str | None = None) -> None:
    """The shared settings that apply to ``page`` (its url path; all when None): the page
    list stays on every page, a control that does nothing on this page is not drawn."""
    parts = set(ALL_SETTINGS) if page is None else page_settings(page)
    if not parts:
        return
    s = current_settings()
    with st.sidebar:
        st.markdown("### Shared settings")
        if "series" in parts:
            st.selectbox("Time series", list(st.session_state[K.SERIES_SETS]),
                         key=K.W_SERIES_NAME,
                         help="The demo, or a CSV you uploaded on the Timeline page.")
        _epsilon_input(K.W_EPSILON, clear_leakage_target)
        if s.epsilon <= LIMITS["epsilon"].low:
            # the browser's number field turns an unreadable entry such as 1e309 into the
            # smallest allowed value without a word: say so instead of staying silent
            st.caption(f":material/info: ε is at its smallest allowed value. A number "
                       f"outside {LIMITS['epsilon'].describe()} (e.g. 1e309) is not "
                       "accepted by this field.")
        if "scheme" in parts:
            _scheme_input(K.W_SCHEME)
            st.caption(SCHEMES[s.scheme].description)
            st.number_input("Declared bound on landmark events k",
                            min_value=int(LIMITS["max_landmarks"].low),
                            max_value=int(LIMITS["max_landmarks"].high), step=1,
                            key=K.W_MAX_LANDMARKS,
                            help="A public bound on how many landmark events you mark "
                                 "(a stay counts once). Uniform spends ε/(k+1) at every "
                                 "timestamp whatever you mark, so neither the released "
                                 "values nor the note reveal how many landmarks there are; "
                                 "marking more than k is refused.")
        # keyboard: after ε and the scheme, one Tab and Enter back to the page (shown
        # only while it has the focus; app_support/accessibility.py handles it)
        st.html('<a class="lmdk-to-page" href="#">Back to the page</a>')
        if ("scheme" in parts and s.scheme == "w-event") or "window" in parts:
            st.number_input("Window w (timestamps)", min_value=LIMITS["window"].low,
                            max_value=LIMITS["window"].high, step=1,
                            key=K.W_WINDOW,
                            help="w-event privacy protects any w consecutive events; "
                                 "each timestamp gets ε/w.")
        if "mechanism" in parts:
            # an uploaded population declares its own Δf with the upload (never the
            # demo's or the Timeline's): the sidebar then shows the mechanism only
            own_df = page == "population" and st.session_state.get(K.POP_SOURCE) == "upload"
            _mechanism_settings(sensitivity=not own_df)
        if "seed" in parts:
            _seed_settings()


def _mechanism_settings(sensitivity: bool = True) -> None:
    """The series' mechanism and sensitivity Δf (with the derived Δf's caption); without
    ``sensitivity`` the mechanism only (an uploaded population declares its own Δf)."""
    st.radio("Mechanism (series)", ["laplace", "geometric"], key=K.W_MECHANISM,
             format_func={"laplace": "Laplace", "geometric": "Geometric (counts)"}.get,
             horizontal=True,
             help="Laplace adds continuous noise; Geometric adds whole numbers, for counts.")
    if not sensitivity:
        st.caption("Δf: the one declared with the uploaded population (on the page).")
        return
    s = current_settings()
    if s.mechanism == "geometric":
        from lmdk_core.decision.mechanism_choice import mechanism_problems

        for p in mechanism_problems(current_series()[1].values, "geometric",
                                    s.sensitivity):
            st.caption(f":material/warning: {p.problem[0].upper()}{p.problem[1:]}; "
                       f"{p.fix}.")
    st.number_input("Declared sensitivity Δf", min_value=LIMITS["sensitivity"].low,
                    max_value=LIMITS["sensitivity"].high, step=0.5,
                    format="%.3g", key=K.W_SENSITIVITY,
                    help="A bound you declare on how much one event can change a reading "
                         "(same unit as the data); the noise scale is Δf/ε_t. It is never "
                         "computed from the data: the data's suggestion is shown below, "
                         "and its button makes it your declaration.")
    d = derived_sensitivity_now()
    unit = current_series()[1].unit
    if d is None:
        return
    st.caption(f":material/info: Suggestion from the data (not used until you declare it; "
               f"a bound computed from the data depends on the data): {d.sentence(unit)}")
    if s.sensitivity < abs(d.largest):
        st.caption(f":material/warning: Your Δf = {s.sensitivity:g} is "
                   f"below the {abs(d.largest):.3g} {unit} a reading of this series "
                   f"departs from its typical value (t={d.timestamp}"
                   + (", a landmark" if d.from_landmarks else "")
                   + "): an event that large gets a likelihood ratio above e^ε.")
    if s.sensitivity != d.value:
        st.button(f"Use {d.value:g} as my declared bound", on_click=_declare_sensitivity,
                  args=(d.value,), key="sensitivity_derive")


def _seed_settings() -> None:
    """The teaching mode and its seed, or the fresh seed's Resample."""
    st.toggle("Reproducible (teaching) mode", key=K.W_REPRODUCIBLE,
              on_change=_on_reproducible,
              help="Off (default): every session and every Resample draws a fresh "
                   "128-bit random seed from the operating system. On: a fixed seed "
                   "you choose, so a class sees the same noise.")
    if current_settings().reproducible:
        st.warning("**Fixed seed: not for real releases.** Anyone who knows the seed "
                   "can regenerate the noise and subtract it, recovering the original "
                   "data exactly.", icon=":material/warning:")
        st.number_input("Random seed (teaching)", min_value=0,
                        max_value=TEACHING_SEED_MAX, step=1, key=K.W_TEACHING_SEED,
                        on_change=_on_teaching_seed,
                        help="Same seed + same settings = same release.")
    else:
        c1, c2 = st.columns([3, 2], vertical_alignment="center")
        c1.caption("Noise: a fresh 128-bit random seed (never shown or published).")
        c2.button("Resample", on_click=_resample,
                  help="Draw new noise: a fresh 128-bit seed from the operating system.")
