"""Learn: differential privacy and landmark privacy in six small interactive lessons.

Thin page: every number and figure comes from :mod:`lmdk_core.teaching` and
:mod:`lmdk_core.figures.learn`. The page's widgets (keys ``learn_*``) are its own and
do not change the shared settings in the sidebar.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from lmdk_core.decision.accuracy import laplace_epsilon_for
from lmdk_core.decision.composition import advanced_composition
from lmdk_core.engine.validation import InputError
from lmdk_core.figures import learn as lf
from lmdk_core.teaching.adversary import posterior_bound, posterior_lower_bound
from lmdk_core.teaching.anonymity import (
    AGE_LEVELS,
    LOCATION_LEVELS,
    anonymity_report,
    intersection_attack,
    toy_microdata,
)
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
from lmdk_core.teaching.definition import neighbouring_densities
from lmdk_core.teaching.levels import protection_levels, protection_levels_frame
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

EPS_STEPS = [0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0]
STRENGTHS = [0.0, 0.001, 0.01, 0.1, 1.0, 10.0, 100.0]
PEOPLE = [name for name, *_ in toy_microdata().itertuples(index=False)]


# ---------------------------------------------------------------- cached engine calls
@st.cache_data(max_entries=32, show_spinner=False)
def _cloud(epsilon: float, radius: float, n: int, seed: int) -> NoiseCloud:
    return noise_cloud(epsilon, radius, n, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def _survey(p: float, n: int, epsilon: float, seed: int) -> RRSurvey:
    return randomized_response_survey(p, n, epsilon, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def _correlated(eps_t: float, T: int, start: int, end: int, strength: float
                ) -> CorrelatedWindow:
    return correlated_composition([eps_t] * T, start, end, strength, n_states=2)


def _pct(x: float) -> str:
    return f"{x:.1%}" if x >= 0.001 else f"{x:.2g}"


def _eps_slider(label: str, key: str, value: float = 1.0, help: str | None = None) -> float:
    return float(st.select_slider(label, options=EPS_STEPS, value=value, key=key,
                                  help=help or "The privacy budget: smaller = more private."))


# ---------------------------------------------------------------- page
st.title(":material/school: Learn")
st.markdown(
    "Differential privacy in six short lessons, each with a live example, ending with "
    "why the older *k-anonymity* fails when data are published again and again. Every "
    "number below is computed by the same engine as the rest of the explorer. The "
    "settings here are the page's own: they do not change the sidebar."
)

tabs = st.tabs([
    ":material/balance: 1 · The definition",
    ":material/psychology: 2 · What ε means",
    ":material/timeline: 3 · Protection levels",
    ":material/casino: 4 · Mechanisms",
    ":material/functions: 5 · Composition",
    ":material/group_off: 6 · Why not k-anonymity",
])

# ================================================================ 1. definition
@st.fragment
def _lesson_1() -> None:
    """Lesson 1: its widgets rerun only this lesson (st.fragment)."""
    st.header("Differential privacy: one person cannot change the picture much")
    c1, c2 = st.columns([2, 3], gap="large")
    with c1:
        st.markdown(
            "A street of households reports how many ran a medical device last night. "
            "The true count on the real data **D** is 10. Its *neighbour* **D′** is the "
            "same data with **one more household** (count 11): whatever we publish must "
            "look almost the same in both worlds, so that nobody can tell whether that "
            "household is in the data.\n\n"
            "The **Laplace mechanism** publishes the count plus random noise of scale "
            "Δf/ε (Δf = 1: one household changes the count by at most 1). The curves show "
            "how likely each published number is in each world. **ε-differential "
            "privacy** requires, for every set O of possible outputs:"
        )
        st.latex(r"\Pr[M(D)\in O]\;\le\; e^{\varepsilon}\,\Pr[M(D')\in O]")
        eps1 = _eps_slider("Privacy budget ε", "learn_def_eps", 1.0)
        cut = st.slider("A set of outputs O: “the published count is at least …”",
                        min_value=0.0, max_value=20.0, value=11.0, step=0.5,
                        key="learn_def_cut")
    nd = neighbouring_densities(eps1, 1.0, 10.0)
    p_d, p_d2 = nd.interval_probabilities(cut, 1e12)
    ratio = max(p_d, p_d2) / max(min(p_d, p_d2), 1e-300)
    with c2:
        st.plotly_chart(lf.neighbours_figure(nd, (cut, float(nd.x[-1]))), width="stretch",
                        key="learn_def_chart")
    m = st.columns(4)
    m[0].metric("Pr[output in O | D]", _pct(p_d))
    m[1].metric("Pr[output in O | D′]", _pct(p_d2))
    m[2].metric("Ratio of the two", f"{ratio:.3f}",
                help="The larger probability divided by the smaller one.")
    m[3].metric("Allowed: at most e^ε", f"{math.exp(eps1):.3f}")
    st.caption(
        f"Scale of the noise Δf/ε = {nd.scale:.3g}. The bottom panel is the *privacy loss* "
        "ln(p_D(x)/p_D′(x)) of each possible output x: the Laplace mechanism keeps it "
        f"between −ε and +ε (largest here: {nd.max_abs_loss:.3g}). Move the threshold of O: "
        "the ratio never exceeds e^ε, and equals it once O lies entirely above both counts "
        "— the bound is tight. Smaller ε: wider noise, "
        "curves closer together, less can be learnt — and less accurate answers. "
        "Source: Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*, "
        "Def. 2.4 and Thm 3.6."
    )

# ================================================================ 2. the adversary


with tabs[0]:
    _lesson_1()


@st.fragment
def _lesson_2() -> None:
    """Lesson 2: its widgets rerun only this lesson (st.fragment)."""
    st.header("What ε means to someone trying to learn about you")
    c1, c2 = st.columns([2, 3], gap="large")
    with c1:
        st.markdown(
            "An adversary has a **prior belief** p that a secret about you is true — "
            "that you are in the data, or that your meter shows a hospital visit. After "
            "seeing an ε-differentially private release, Bayes' rule and the e^ε bound on "
            "the likelihood ratio limit the new belief to:"
        )
        st.latex(r"\text{posterior} \;\le\; \frac{p\,e^{\varepsilon}}{1-p+p\,e^{\varepsilon}}")
        prior = st.slider("Prior belief p", min_value=0.01, max_value=0.99, value=0.5,
                          step=0.01, key="learn_prior", format="%.2f")
        eps2 = _eps_slider("Privacy budget ε", "learn_post_eps", 1.0)
    post_hi = float(posterior_bound(prior, eps2))
    post_lo = float(posterior_lower_bound(prior, eps2))
    with c2:
        st.plotly_chart(lf.posterior_figure(prior, eps2), width="stretch",
                        key="learn_post_chart")
    m = st.columns(3)
    m[0].metric("Belief before", f"{prior:.0%}")
    m[1].metric("Largest belief after", f"{post_hi:.1%}",
                delta=f"{(post_hi - prior) * 100:+.1f} points", delta_color="inverse")
    m[2].metric("Smallest belief after", f"{post_lo:.1%}")
    rows = [{"ε": name, "largest belief after": f"{float(posterior_bound(prior, e)):.1%}"}
            for name, e in [("0.01", 0.01), ("0.1", 0.1), ("ln 2 ≈ 0.69", math.log(2)),
                            ("1", 1.0), ("ln 3 ≈ 1.10", math.log(3)), ("5", 5.0),
                            ("10", 10.0)]]
    with st.expander(f"Common choices of ε for a prior of {prior:.0%}"):
        st.dataframe(rows, hide_index=True)
        st.caption("The literature usually picks ε = 0.01, 0.1, ln 2 or ln 3 (Katsomallos "
                   "et al.'s survey, after Lee & Clifton 2011). At ε = 10 almost any prior "
                   "can become near "
                   "certainty: a large ε is a weak promise.")
    with st.container(border=True):
        st.markdown(
            "**Choosing ε from what matters.** Turn the question around: state the accuracy "
            "you need and solve for ε. With the Laplace mechanism a reading is within ±a of "
            "the truth with probability 1 − e^(−a·ε_t/Δf), so")
        st.latex(r"\varepsilon_t = \frac{\Delta f}{a}\,\ln\frac{1}{1-p}"
                 r"\qquad\text{and Uniform needs}\quad \varepsilon = (|L|+1)\,\varepsilon_t")
        a1, a2, a3, a4 = st.columns(4)
        la = a1.number_input("± a", min_value=0.001, value=1.0, key="learn_acc_a")
        lp = a2.slider("probability p", 0.5, 0.999, 0.95, key="learn_acc_p")
        ldf = a3.number_input("Δf", min_value=0.001, value=1.0, key="learn_acc_df")
        lnl = a4.number_input("landmarks |L|", min_value=0, value=5, key="learn_acc_l")
        e_t = laplace_epsilon_for(float(la), float(lp), float(ldf))
        st.markdown(f"Each reading needs ε_t = **{e_t:.3g}**; Uniform with {int(lnl)} "
                    f"landmarks needs ε = **{(int(lnl) + 1) * e_t:.3g}**, and an attacker "
                    f"with a 10 % prior could then reach "
                    f"{float(posterior_bound(0.1, (int(lnl) + 1) * e_t)):.0%}. Accuracy "
                    "and privacy pull in opposite directions; the *Choose ε* page solves this "
                    "for every scheme on your own data, shows what an attacker learns and "
                    "what repeated releases add up to.")
        st.page_link("app_pages/choose_epsilon.py", label="Open Choose ε",
                     icon=":material/tune:")

# ================================================================ 3. protection levels


with tabs[1]:
    _lesson_2()


@st.fragment
def _lesson_3() -> None:
    """Lesson 3: its widgets rerun only this lesson (st.fragment)."""
    st.header("Which events are protected together, and what each costs")
    st.markdown(
        "A series publishes one value per hour. **What** the guarantee covers is a "
        "choice: one event, every event of the person, any *w* consecutive events, or "
        "— **landmark privacy** — all significant events (*landmarks*) together with "
        "any one other event. The budget ε is spent over the events protected together, "
        "so the more they are, the less each timestamp gets and the noisier it is. "
        "Landmark privacy holds when, for every timestamp t,"
    )
    st.latex(r"\sum_{i\in L\cup\{t\}} \varepsilon_i \;\le\; \varepsilon")
    T_EX = 12
    c1, c2, c3, c4 = st.columns([3, 1.2, 1.2, 2])
    lms = c1.multiselect("Landmarks of the example (hours 0–11)", list(range(T_EX)),
                         default=[2, 5, 9], key="learn_lv_landmarks")
    eps3 = c2.number_input("ε", min_value=0.01, max_value=100.0, value=1.0, step=0.1,
                           key="learn_lv_eps")
    w = c3.number_input("Window w", min_value=1, max_value=T_EX, value=3, step=1,
                        key="learn_lv_w", help="w-event privacy protects any w consecutive "
                        "events.")
    focus = c4.slider("Look at timestamp t", 0, T_EX - 1, 7, key="learn_lv_t")
    try:
        levels = protection_levels(T_EX, lms, eps3, int(w), int(focus))
    except InputError as exc:
        st.error(f"Cannot compute the levels: {exc}", icon=":material/error:")
        levels = []
    if levels:
        st.plotly_chart(lf.protection_levels_figure(levels, lms, int(focus), eps3),
                        width="stretch", key="learn_lv_chart")
        st.dataframe(
            protection_levels_frame(levels, lms).style.format(
                {"ε_t regular": "{:.3g}", "ε_t landmark": "{:.3g}", "noise Δf/ε_t": "{:.3g}",
                 "spent with t": "{:.3g}", "worst Σ over L∪{t}": "{:.3g}"}, na_rep="—"),
            hide_index=True, width="stretch",
            column_config={
                "noise Δf/ε_t": st.column_config.NumberColumn(
                    help="Laplace noise scale at a regular timestamp, Δf = 1"),
                "spent with t": st.column_config.NumberColumn(
                    help="Budget spent by the events protected together with the chosen t "
                         "(the framed cells)"),
                "worst Σ over L∪{t}": st.column_config.NumberColumn(
                    help="The landmark-privacy theorem's largest total over all t"),
            })
        notes = []
        for lv in levels:
            if lv.landmark_private:
                notes.append(f"- **{lv.label}** is landmark-private: its worst total is "
                             f"{lv.landmark_total:.3g} ≤ ε = {eps3:g}.")
            else:
                notes.append(f"- **{lv.label}** is **not** landmark-private: at t="
                             f"{lv.landmark_worst_t} the landmarks plus t spend "
                             f"{lv.landmark_total:.3g} > ε = {eps3:g} — someone combining "
                             "the releases at the landmarks learns more than ε allows.")
        st.markdown("\n".join(notes))
        st.caption(
            "Orange frames: the events protected together with the chosen t — a "
            "neighbouring series may differ in all of them at once, yet the release must "
            "look nearly the same. Numbers in cells: ε_t. Event- and user-level: Dwork et "
            "al. (2010); w-event: Kellaris et al. (2014). Event-level gives every hour the "
            "whole ε (little noise) but cannot hide a pattern across landmarks; user-level "
            "hides everything at a heavy cost (ε/T); landmark privacy pays only for the "
            "landmarks plus one event. Budgets: `lmdk_core.engine.allocation.allocate`; verdicts: "
            "the engine's verifier."
        )

# ================================================================ 4. mechanisms


with tabs[2]:
    _lesson_3()


def _laplace_box() -> None:
    """Laplace: noise Lap(Δf/ε), its error, and what Δf must cover."""
    with st.container(border=True):
        st.markdown("### Laplace — real numbers")
        c1, c2 = st.columns([2, 3], gap="large")
        with c1:
            st.markdown("Adds noise from Lap(Δf/ε). The **sensitivity** Δf is how much one "
                        "person can change the answer. Mean absolute error: **Δf/ε**.")
            eps_l = _eps_slider("ε", "learn_lap_eps", 1.0)
            sens_l = st.number_input("Sensitivity Δf", min_value=0.01, max_value=1000.0,
                                     value=1.0, step=0.5, key="learn_lap_sens")
            samples = laplace_samples(10.0, eps_l, sens_l, 3000, seed=1)
            st.metric("Expected mean error Δf/ε", f"{sens_l / eps_l:.3g}",
                      help="Measured on 3,000 draws: "
                           f"{float(np.mean(np.abs(samples - 10.0))):.3g}")
        c2.plotly_chart(lf.laplace_mechanism_figure(samples, 10.0, eps_l, sens_l),
                        width="stretch", key="learn_lap_chart")
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
            eps_g = _eps_slider("ε", "learn_geo_eps", 1.0)
            sens_g = st.number_input("Sensitivity Δf (whole number)", min_value=1,
                                     max_value=100, value=1, step=1, key="learn_geo_sens")
            k, pmf = geometric_pmf(eps_g, int(sens_g))
            a = math.exp(-eps_g / int(sens_g))
            st.metric("Expected mean error 2a/(1 − a²)", f"{2 * a / (1 - a * a):.3g}")
        c2.plotly_chart(lf.geometric_figure(k, pmf, 10), width="stretch",
                        key="learn_geo_chart")


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
            eps_p = _eps_slider("ε", "learn_pl_eps", 1.0)
            radius = st.number_input("Protection radius r (metres)", min_value=1.0,
                                     max_value=100_000.0, value=100.0, step=50.0,
                                     key="learn_pl_radius")
            cloud = _cloud(eps_p, float(radius), 1500, 2)
            st.metric("Expected displacement 2r/ε", f"{cloud.expected_mean:,.0f} m",
                      help=f"Measured on 1,500 draws: {cloud.measured_mean:,.0f} m")
            st.metric("Released within r of the truth", _pct(cloud.within_radius),
                      help="Exactly 1 − (1 + ε)·e^(−ε).")
        c2.plotly_chart(lf.noise_cloud_figure(cloud), width="stretch", key="learn_pl_chart")


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
            eps_e = _eps_slider("ε", "learn_exp_eps", 0.5)
            probs = exponential_probabilities(utils, eps_e)
            st.metric("Chance the true favourite is announced", _pct(float(probs[0])))
        c2.plotly_chart(lf.exponential_figure(names, utils, probs), width="stretch",
                        key="learn_exp_chart")


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
            eps_r = _eps_slider("ε", "learn_rr_eps", 1.0)
            seed_r = st.number_input("Random seed", min_value=0, max_value=10**6, value=0,
                                     key="learn_rr_seed")
        survey = _survey(float(true_p), int(n_rr), eps_r, int(seed_r))
        with c2:
            st.plotly_chart(lf.randomized_response_figure(survey), width="stretch",
                            key="learn_rr_chart")
            m = st.columns(3)
            m[0].metric("Truthful with probability", _pct(survey.p_truth))
            m[1].metric("Reports saying “yes”", _pct(survey.observed))
            m[2].metric("Estimated true share", f"{survey.estimate:.1%}",
                        help=f"± {1.96 * survey.std_error:.1%} (95 % interval)")


@st.fragment
def _lesson_4() -> None:
    """Lesson 4: its widgets rerun only this lesson (st.fragment)."""
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

# ================================================================ 5. composition


with tabs[3]:
    _lesson_4()


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
        st.plotly_chart(lf.discount_figure(np.asarray(eps_list), weights), width="stretch",
                        key="learn_disc_chart")


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
        st.plotly_chart(lf.correlation_figure(cw), width="stretch", key="learn_cor_chart")


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
        p2.plotly_chart(lf.post_processing_figure(pp), width="stretch", key="learn_pp_chart")


@st.fragment
def _lesson_5() -> None:
    """Lesson 5: its widgets rerun only this lesson (st.fragment)."""
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

# ================================================================ 6. k-anonymity


with tabs[4]:
    _lesson_5()


def _anonymity_table(variant: str) -> None:
    """One release: the toy table generalised, its k, l and t, and its groups."""
    c1, c2 = st.columns(2, gap="large")
    with c1:
        st.markdown("**Original microdata** (Name is the identifier)")
        st.dataframe(toy_microdata(variant), hide_index=True, width="stretch")
    with c2:
        g1, g2 = st.columns(2)
        age_lv = g1.selectbox("Generalise Age to", list(AGE_LEVELS), index=2,
                              format_func=AGE_LEVELS.get, key="learn_k_age")
        loc_lv = g2.selectbox("Generalise Location to", list(LOCATION_LEVELS), index=1,
                              format_func=LOCATION_LEVELS.get, key="learn_k_loc")
        rep = anonymity_report(age_lv, loc_lv, variant)
        st.markdown("**Released table**")
        st.dataframe(rep.released, hide_index=True, width="stretch")
    m = st.columns(4)
    m[0].metric("k-anonymity", f"k = {rep.k}", help="Size of the smallest group of identical "
                "quasi-identifiers.")
    m[1].metric("distinct l-diversity", f"l = {rep.l_distinct}",
                help="Fewest different Status values in a group.")
    m[2].metric("entropy l-diversity", f"l = {rep.l_entropy:.2f}",
                help="exp of the smallest entropy of Status within a group.")
    m[3].metric("t-closeness", f"t = {rep.t:.2f}",
                help="Largest distance (Earth Mover's, equal ground distance = total "
                     "variation) between a group's Status distribution and the table's.")
    st.dataframe(rep.classes, hide_index=True, width="stretch")
    if rep.k >= 2 and rep.l_distinct == 1:
        st.warning("This release is k-anonymous but **not** l-diverse: one group shares a "
                   "single Status, so anyone known to be in it is exposed (homogeneity "
                   "attack).", icon=":material/warning:")


def _intersection_attack(variant: str) -> None:
    """Two k-anonymous releases of the same people: the intersection attack, and what ε
    bounds instead."""
    st.markdown("### Two releases break it")
    st.markdown(
        "Data published **continuously** are released again and again, and each release "
        "may be generalised differently (or by different services). Each release below "
        "can be k-anonymous on its own; an adversary who knows a person's age and "
        "neighbourhood intersects the candidate statuses of their group in both."
    )
    a1, a2, a3 = st.columns(3)
    with a1:
        st.markdown("**Release 1**")
        r1 = (st.selectbox("Age", list(AGE_LEVELS), index=2, format_func=AGE_LEVELS.get,
                           key="learn_i_age1"),
              st.selectbox("Location", list(LOCATION_LEVELS), index=1,
                           format_func=LOCATION_LEVELS.get, key="learn_i_loc1"))
    with a2:
        st.markdown("**Release 2**")
        r2 = (st.selectbox("Age", list(AGE_LEVELS), index=3, format_func=AGE_LEVELS.get,
                           key="learn_i_age2"),
              st.selectbox("Location", list(LOCATION_LEVELS), index=0,
                           format_func=LOCATION_LEVELS.get, key="learn_i_loc2"))
    with a3:
        st.markdown("**Target**")
        target = st.selectbox("Person the adversary knows", PEOPLE, index=0,
                              key="learn_i_target")
    att = intersection_attack(r1, r2, target, variant)
    st.markdown(
        f"- Release 1 is **{att.k_a}-anonymous**; it says {target}'s status is one of: "
        f"*{', '.join(att.candidates_a)}*.\n"
        f"- Release 2 is **{att.k_b}-anonymous**; it says: *{', '.join(att.candidates_b)}*.\n"
        f"- Both together: *{', '.join(att.intersection)}*.")
    if att.disclosed:
        st.warning(f"**Disclosed:** the two releases together reveal that {target} was "
                 f"“{att.intersection[0]}”, although each was {min(att.k_a, att.k_b)}-"
                 "anonymous. k-anonymity has no composition rule: its guarantee can "
                 "collapse after a single further release (Ganta, Kasiviswanathan & Smith, "
                 "KDD 2008).", icon=":material/gpp_bad:")
    else:
        st.info(f"Here {len(att.intersection)} statuses remain possible for {target}. Try "
                "Release 1 = “≤ 20 / > 20” + “city”, Release 2 = “suppressed” + "
                "“neighbourhood”, target Donald.", icon=":material/info:")
    eps_k = 0.5
    prior_k = 1 / 6
    st.markdown(
        f"**With differential privacy the damage is bounded.** Publish instead noisy "
        f"counts of each Status, ε = {eps_k:g} per release. Two releases are "
        f"{2 * eps_k:g}-DP by sequential composition, so an adversary who gave "
        f"{target} a {prior_k:.0%} chance of being “{att.truth}” can reach at most "
        f"**{float(posterior_bound(prior_k, 2 * eps_k)):.0%}**, and after ten releases "
        f"at most **{float(posterior_bound(prior_k, 10 * eps_k)):.0%}** — a known, "
        "gradual loss that can be budgeted in advance, not a sudden certainty after one "
        "more release. Landmark privacy keeps this accounting for a series: all landmarks "
        "plus any one event together spend at most ε."
    )


@st.fragment
def _lesson_6() -> None:
    """Lesson 6: its widgets rerun only this lesson (st.fragment)."""
    st.header("Why not k-anonymity for data published over time?")
    st.markdown(
        "Before differential privacy, microdata were protected by **k-anonymity** "
        "(Sweeney 2002): remove names, then coarsen the *quasi-identifiers* (here Age "
        "and Location, which an adversary may know) until every record looks like at "
        "least k − 1 others. **l-diversity** (Machanavajjhala et al. 2006) also asks for "
        "l different *sensitive* values (here Status) in each group; **t-closeness** (Li, "
        "Li & Venkatasubramanian 2007) asks each group's distribution of Status to be "
        "within t of the whole table's. The table is the User(Name, Age, "
        "Location, Status) at one moment."
    )
    homog = st.toggle("Homogeneous variant: every adult is “at work”", key="learn_k_homog",
                      help="The homogeneity attack: a group can be k-anonymous and still "
                           "reveal the status when all its members share it.")
    variant = "homogeneous" if homog else "survey"
    _anonymity_table(variant)

    _intersection_attack(variant)


with tabs[5]:
    _lesson_6()
