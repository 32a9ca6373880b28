"""Learn page, lesson 5 (composition): sequential, parallel, advanced and discounted totals
of typed budgets, a window of releases under temporal correlation (Cao et al. ICDE'17 /
TKDE'18) and post-processing.

Every number and figure comes from :mod:`lmdk_core.teaching.composition` and
:mod:`lmdk_core.figures.learn`; the widgets (keys ``learn_*``) are the page's own.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from app_support.learn_mechanisms import EPS_STEPS
from app_support.live_chart import live_chart
from lmdk_core.decision.composition import advanced_composition
from lmdk_core.figures import learn as lf
from lmdk_core.foundation.errors import InputError
from lmdk_core.teaching.composition import (
    CorrelatedWindow,
    correlated_composition,
    discount_weights,
    discounted_composition,
    parallel_composition,
    parse_budgets,
    post_processing_demo,
    sequential_composition,
)

#: the correlation smoothing values s of the correlation box
STRENGTHS = [0.0, 0.001, 0.01, 0.1, 1.0, 10.0, 100.0]


@st.cache_data(max_entries=32, show_spinner=False)
def _correlated(eps_t: float, T: int, start: int, end: int, strength: float
                ) -> CorrelatedWindow:
    return correlated_composition([eps_t] * T, start, end, strength, n_states=2)


def _composition_totals(eps_list: list[float]) -> None:
    """Sequential, parallel, advanced and discounted totals of the typed budgets."""
    c1, c2 = st.columns(2)
    with c1, st.container(border=True):
        st.markdown("**Sequential** — every release reads the *same* data "
                    "(McSherry 2009):")
        st.latex(r"\varepsilon = \sum_i \varepsilon_i")
        st.metric("Total guarantee", f"{sequential_composition(eps_list):.4g}")
    with c2, st.container(border=True):
        st.markdown("**Parallel** — each release reads a *disjoint* part of the data "
                    "(different people):")
        st.latex(r"\varepsilon = \max_i \varepsilon_i")
        st.metric("Total guarantee", f"{parallel_composition(eps_list):.4g}")

    with st.container(border=True):
        st.markdown(
            "**Advanced composition** (Dwork, Rothblum & Vadhan 2010) — for k releases "
            "of ε each, with a small failure probability δ', the total is often far "
            "below k·ε:")
        st.latex(r"\varepsilon' = \sqrt{2k\ln(1/\delta')}\,\varepsilon"
                 r" + k\,\varepsilon\,(e^{\varepsilon}-1)")
        e_max = max(eps_list)
        k_n = len(eps_list)
        st.markdown(
            f"Here: k = {k_n}, each at most ε = {e_max:g}: basic {k_n * e_max:.4g}, "
            f"advanced {advanced_composition(e_max, k_n, 1e-6):.4g} (δ' = 10⁻⁶). It pays "
            "off for many small releases (52 weekly releases of ε = 0.05: basic 2.6, "
            f"advanced {advanced_composition(0.05, 52, 1e-6):.3g}). A landmark that "
            "recurs in every release — home every night — composes like this across "
            "releases, while landmark privacy protects the landmarks *within* one release.")

    with st.container(border=True):
        st.markdown(
            "**With temporal discounting** (Farokhi 2020) — when old releases matter "
            "less than recent ones, release i counts with a weight g(i) ≤ 1 that fades "
            "with its age k (0 = newest): exponential g = e^(−λk), hyperbolic "
            "g = 1/(1 + λk).")
        st.latex(r"\varepsilon = \sum_i g(i)\,\varepsilon_i")
        d1, d2, d3 = st.columns([1, 1, 1])
        kind = d1.radio("Discount", ["exponential", "hyperbolic"], horizontal=True,
                        key="learn_disc_kind")
        lam = d2.slider("Fading rate λ", 0.0, 3.0, 0.5, 0.1, key="learn_disc_rate")
        weights = discount_weights(len(eps_list), kind, lam)
        d3.metric("Discounted total", f"{discounted_composition(eps_list, kind, lam):.4g}",
                  help=f"Undiscounted: {sum(eps_list):.4g}")
        live_chart(lf.discount_figure(np.asarray(eps_list), weights), key="learn_disc_chart")


def _correlation_box() -> None:
    """The leakage of a window of releases under temporal correlation (Cao et al.)."""
    with st.container(border=True):
        st.markdown(
            "**Under temporal correlation** (Cao et al., ICDE'17 / TKDE'18) — consecutive "
            "values of one person are related (where you are now says much about where "
            "you are in a minute). Releases at other times then leak about this one: the "
            "*backward* leakage α^B accumulates from the past, the *forward* leakage α^F "
            "from the future. A window of releases from s to e is")
        st.latex(r"\alpha^B_s + \alpha^F_e + \sum_{s<i<e} \varepsilon_i"
                 r"\quad\text{-DP instead of}\quad \sum_{i=s}^{e}\varepsilon_i")
        k1, k2, k3 = st.columns(3)
        eps_c = k1.number_input("ε_t of each of 10 releases", min_value=0.01, max_value=10.0,
                                value=0.1, step=0.05, key="learn_cor_eps")
        strength = k2.select_slider(
            "Correlation smoothing s", options=STRENGTHS, value=0.1, key="learn_cor_s",
            help="Cao et al.'s model P = (I + s)/(1 + n·s) over n = 2 states: s = 0 means "
                 "the value never changes (strongest correlation), large s means no "
                 "correlation.")
        start, end = k3.slider("Window of releases", 0, 9, (3, 5), key="learn_cor_window")
        cw = _correlated(float(eps_c), 10, int(start), int(end), float(strength))
        m = st.columns(3)
        m[0].metric("If the data were independent", f"{cw.independent:.4g}")
        m[1].metric("Under this correlation", f"{cw.leakage:.4g}",
                    delta=f"{cw.leakage - cw.independent:+.3g}", delta_color="inverse")
        m[2].metric("Whole series, sequential", f"{10 * eps_c:.4g}",
                    help="With s = 0 every release reveals the same value: the window "
                         "leaks as much as all releases together.")
        live_chart(lf.correlation_figure(cw), key="learn_cor_chart")


def _post_processing_box() -> None:
    """Post-processing a release spends nothing: clipping and smoothing."""
    with st.container(border=True):
        st.markdown(
            "**Post-processing is free** (Dwork & Roth, Prop. 2.1) — anything computed "
            "from a released output alone, without the raw data, keeps its guarantee: "
            "clipping impossible negative counts, smoothing, rounding. Landmark privacy "
            "uses this: Skip and Adaptive *repeat* the last release at ε_t = 0. Going "
            "back to the raw data to “fix” an output is a new release and spends budget.")
        p1, p2 = st.columns([1, 3])
        eps_pp = float(p1.select_slider("ε per hour", options=EPS_STEPS, value=0.5,
                                        key="learn_pp_eps"))
        counts = [0, 0, 1, 0, 0, 2, 6, 9, 7, 4, 3, 3, 5, 4, 3, 4, 6, 9, 11, 8, 5, 3, 1, 0]
        pp = post_processing_demo(counts, eps_pp, 1.0, window=3, seed=3)
        p1.metric("Budget after post-processing", f"ε = {eps_pp:g}", help="Unchanged.")
        p1.metric("Error: released → clipped + smoothed",
                  f"{pp.mae['released']:.2f} → {pp.mae['smoothed']:.2f}")
        live_chart(lf.post_processing_figure(pp), key="learn_pp_chart", where=p2)


def lesson_composition() -> None:
    """Lesson 5: what several releases add up to."""
    st.header("Composition: what several releases add up to")
    st.markdown(
        "Every release from the same data spends budget, and the guarantees add up. How "
        "they add up depends on what the releases touch (Katsomallos et al.'s survey, "
        "“Composition”)."
    )
    text = st.text_input("Budgets ε of successive releases (comma-separated)",
                         value="0.5, 0.3, 0.2, 0.4", key="learn_comp_list")
    try:
        eps_list = parse_budgets(text)
    except InputError as exc:
        st.error(f"Cannot read the budgets: {exc}", icon=":material/error:")
        eps_list = []
    if eps_list:
        _composition_totals(eps_list)

    _correlation_box()

    _post_processing_box()
