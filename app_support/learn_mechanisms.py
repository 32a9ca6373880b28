"""Learn page, lesson 4 (mechanisms): Laplace, Geometric, Planar Laplace, Exponential and
randomized response, each in a box with its own widgets; and the page's shared ε slider.

Every number and figure comes from :mod:`lmdk_core.teaching.mechanisms` and
:mod:`lmdk_core.figures.learn`; the widgets (keys ``learn_*``) are the page's own.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from app_support.live_chart import live_chart
from lmdk_core.figures import learn as lf
from lmdk_core.teaching.mechanisms import (
    EXPONENTIAL_EXAMPLE,
    NoiseCloud,
    RRSurvey,
    exponential_probabilities,
    geometric_pmf,
    laplace_samples,
    noise_cloud,
    randomized_response_survey,
    sensitivity_example,
)

#: the ε values of the page's sliders
EPS_STEPS = [0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0]


@st.cache_data(max_entries=32, show_spinner=False)
def _cloud(epsilon: float, radius: float, n: int, seed: int) -> NoiseCloud:
    return noise_cloud(epsilon, radius, n, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def _survey(p: float, n: int, epsilon: float, seed: int) -> RRSurvey:
    return randomized_response_survey(p, n, epsilon, seed)


def pct(x: float) -> str:
    """A probability as a percentage ('12.3%'), or in two significant digits below 0.1 %."""
    return f"{x:.1%}" if x >= 0.001 else f"{x:.2g}"


def eps_slider(label: str, key: str, value: float = 1.0, help: str | None = None) -> float:
    """A select-slider over :data:`EPS_STEPS` (the page's own ε, not the sidebar's)."""
    return float(st.select_slider(label, options=EPS_STEPS, value=value, key=key,
                                  help=help or "The privacy budget: smaller = more private."))


def _laplace_box() -> None:
    """Laplace: noise Lap(Δf/ε), its error, and what Δf must cover."""
    with st.container(border=True):
        st.markdown("### Laplace — real numbers")
        c1, c2 = st.columns([2, 3], gap="large")
        with c1:
            st.markdown("Adds noise from Lap(Δf/ε). The **sensitivity** Δf is how much one "
                        "person can change the answer. Mean absolute error: **Δf/ε**.")
            eps_l = eps_slider("ε", "learn_lap_eps", 1.0)
            sens_l = st.number_input("Sensitivity Δf", min_value=0.01, max_value=1000.0,
                                     value=1.0, step=0.5, key="learn_lap_sens")
            samples = laplace_samples(10.0, eps_l, sens_l, 3000, seed=1)
            st.metric("Expected mean error Δf/ε", f"{sens_l / eps_l:.3g}",
                      help="Measured on 3,000 draws: "
                           f"{float(np.mean(np.abs(samples - 10.0))):.3g}")
        live_chart(lf.laplace_mechanism_figure(samples, 10.0, eps_l, sens_l),
                   key="learn_lap_chart", where=c2)
        ex = sensitivity_example(eps_l, sens_l)
        (st.info if ex.ratio <= math.exp(eps_l) else st.warning)(
            "**Δf must cover the events it protects.** " + ex.sentence()
            + " The ratio is exp(Σ|d_t|·ε_t/Δf): a change larger than Δf is protected "
            "less than ε says. Try Δf = 0.2 and 3 above.", icon=":material/lightbulb:")


def _geometric_box() -> None:
    """Geometric: the whole-number Laplace."""
    with st.container(border=True):
        st.markdown("### Geometric — counts")
        c1, c2 = st.columns([2, 3], gap="large")
        with c1:
            st.markdown("The whole-number version of Laplace: P(noise = k) ∝ a^|k| with "
                        "a = e^(−ε/Δf). Counts stay counts. Mean absolute error "
                        "**2a/(1 − a²)**.")
            eps_g = eps_slider("ε", "learn_geo_eps", 1.0)
            sens_g = st.number_input("Sensitivity Δf (whole number)", min_value=1,
                                     max_value=100, value=1, step=1, key="learn_geo_sens")
            k, pmf = geometric_pmf(eps_g, int(sens_g))
            a = math.exp(-eps_g / int(sens_g))
            st.metric("Expected mean error 2a/(1 − a²)", f"{2 * a / (1 - a * a):.3g}")
        live_chart(lf.geometric_figure(k, pmf, 10), key="learn_geo_chart", where=c2)


def _planar_box() -> None:
    """Planar Laplace: a cloud of released locations around the truth."""
    with st.container(border=True):
        st.markdown("### Planar Laplace — locations (geo-indistinguishability)")
        c1, c2 = st.columns([2, 3], gap="large")
        with c1:
            st.markdown(
                "Moves a location in a uniformly random direction by a random distance "
                "with a Gamma(2, r/ε) law (Andrés et al., CCS 2013). Any two places within "
                "the **protection radius r** are ε-indistinguishable; places farther "
                "apart are less so. Mean displacement: **2r/ε**.")
            eps_p = eps_slider("ε", "learn_pl_eps", 1.0)
            radius = st.number_input("Protection radius r (metres)", min_value=1.0,
                                     max_value=100_000.0, value=100.0, step=50.0,
                                     key="learn_pl_radius")
            cloud = _cloud(eps_p, float(radius), 1500, 2)
            st.metric("Expected displacement 2r/ε", f"{cloud.expected_mean:,.0f} m",
                      help=f"Measured on 1,500 draws: {cloud.measured_mean:,.0f} m")
            st.metric("Released within r of the truth", pct(cloud.within_radius),
                      help="Exactly 1 − (1 + ε)·e^(−ε).")
        live_chart(lf.noise_cloud_figure(cloud), key="learn_pl_chart", where=c2)


def _exponential_box() -> None:
    """Exponential: choosing the best option with probability ∝ exp(ε·u/2Δu)."""
    with st.container(border=True):
        st.markdown("### Exponential — choosing the best option")
        c1, c2 = st.columns([2, 3], gap="large")
        names = [n for n, _ in EXPONENTIAL_EXAMPLE]
        utils = [u for _, u in EXPONENTIAL_EXAMPLE]
        with c1:
            st.markdown(
                "Some answers are not numbers: *which café was visited most this week?* "
                "The Exponential mechanism (McSherry & Talwar 2007) announces candidate r "
                "with probability ∝ exp(ε·u(r)/2Δu); here u = number of visits and Δu = 1. "
                "Better candidates are likelier, never certain.")
            eps_e = eps_slider("ε", "learn_exp_eps", 0.5)
            probs = exponential_probabilities(utils, eps_e)
            st.metric("Chance the true favourite is announced", pct(float(probs[0])))
        live_chart(lf.exponential_figure(names, utils, probs), key="learn_exp_chart",
                   where=c2)


def _randomized_response_box() -> None:
    """Randomized response: a survey answered with a coin."""
    with st.container(border=True):
        st.markdown("### Randomized response — surveys on sensitive questions")
        c1, c2 = st.columns([2, 3], gap="large")
        with c1:
            st.markdown(
                "Each respondent answers truthfully with probability p = e^ε/(1 + e^ε) "
                "and lies otherwise (Warner 1965; a fair coin gives p = 3/4, ε = ln 3). No "
                "single answer can be trusted, yet the share of true “yes” can be "
                "estimated without bias: **(observed − (1 − p)) / (2p − 1)**.")
            true_p = st.slider("True share of “yes”", 0.0, 1.0, 0.30, 0.01,
                               key="learn_rr_true", format="%.2f")
            n_rr = st.number_input("People asked", min_value=10, max_value=100_000,
                                   value=1000, step=100, key="learn_rr_n")
            eps_r = eps_slider("ε", "learn_rr_eps", 1.0)
            seed_r = st.number_input("Random seed", min_value=0, max_value=10**6, value=0,
                                     key="learn_rr_seed")
        survey = _survey(float(true_p), int(n_rr), eps_r, int(seed_r))
        with c2:
            live_chart(lf.randomized_response_figure(survey), key="learn_rr_chart")
            m = st.columns(3)
            m[0].metric("Truthful with probability", pct(survey.p_truth))
            m[1].metric("Reports saying “yes”", pct(survey.observed))
            m[2].metric("Estimated true share", f"{survey.estimate:.1%}",
                        help=f"± {1.96 * survey.std_error:.1%} (95 % interval)")


def lesson_mechanisms() -> None:
    """Lesson 4: how the noise is added, one box per mechanism."""
    st.header("Mechanisms: how the noise is added")
    st.markdown(
        "A *mechanism* is the randomised procedure that turns the true answer into the "
        "published one. Each suits a kind of answer; each has an error that grows as ε "
        "shrinks."
    )

    _laplace_box()

    _geometric_box()

    _planar_box()

    _exponential_box()

    _randomized_response_box()
