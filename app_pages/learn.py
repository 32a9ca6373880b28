"""Learn: differential privacy and landmark privacy in six small interactive lessons.

Thin page: every number and figure comes from :mod:`lmdk_core.teaching` and
:mod:`lmdk_core.figures.learn`; lessons 4–6 are drawn by ``app_support.learn_mechanisms``,
``learn_composition`` and ``learn_anonymity``. The page's widgets (keys ``learn_*``) are its own and
do not change the shared settings in the sidebar.
"""

from __future__ import annotations

import math

import streamlit as st

from app_support.learn_anonymity import lesson_anonymity
from app_support.learn_composition import lesson_composition
from app_support.learn_mechanisms import eps_slider, lesson_mechanisms, pct
from app_support.live_chart import live_chart
from lmdk_core.decision.noise_laws import laplace_epsilon_for
from lmdk_core.figures import learn as lf
from lmdk_core.foundation.errors import InputError
from lmdk_core.teaching.adversary import posterior_bound, posterior_lower_bound
from lmdk_core.teaching.definition import neighbouring_densities
from lmdk_core.teaching.levels import protection_levels, protection_levels_frame

# ---------------------------------------------------------------- page
st.title(":material/school: Learn")
st.markdown(
    "Differential privacy in six short lessons, each with a live example, ending with "
    "why the older *k-anonymity* fails when data are published again and again. Every "
    "number below is computed by the same engine as the rest of the explorer. The "
    "settings here are the page's own: they do not change the sidebar."
)

#: the lessons' tab labels (the tab bar's key LESSON_TAB holds the open one)
LESSONS = [
    ":material/balance: 1 · The definition",
    ":material/psychology: 2 · What ε means",
    ":material/timeline: 3 · Protection levels",
    ":material/casino: 4 · Mechanisms",
    ":material/functions: 5 · Composition",
    ":material/group_off: 6 · Why not k-anonymity",
]
LESSON_TAB = "learn_tab"
# keyed and tracked: only the open lesson runs (a rerun of the page computed and drew all
# six, 0.3–0.4 s of server time); opening another tab reruns the page to draw it
# the lessons' widgets (keys learn_*) keep their values while another lesson is open
# (Streamlit forgets the state of widgets a run does not draw)
for _k in [k for k in st.session_state if str(k).startswith("learn_") and k != LESSON_TAB]:
    st.session_state[_k] = st.session_state[_k]
tabs = st.tabs(LESSONS, key=LESSON_TAB, on_change="rerun")

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
        eps1 = eps_slider("Privacy budget ε", "learn_def_eps", 1.0)
        cut = st.slider("A set of outputs O: “the published count is at least …”",
                        min_value=0.0, max_value=20.0, value=11.0, step=0.5,
                        key="learn_def_cut")
    nd = neighbouring_densities(eps1, 1.0, 10.0)
    p_d, p_d2 = nd.interval_probabilities(cut, 1e12)
    ratio = max(p_d, p_d2) / max(min(p_d, p_d2), 1e-300)
    with c2:
        live_chart(lf.neighbours_figure(nd, (cut, float(nd.x[-1]))), key="learn_def_chart")
    m = st.columns(4)
    m[0].metric("Pr[output in O | D]", pct(p_d))
    m[1].metric("Pr[output in O | D′]", pct(p_d2))
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


if tabs[0].open:
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
        eps2 = eps_slider("Privacy budget ε", "learn_post_eps", 1.0)
    post_hi = float(posterior_bound(prior, eps2))
    post_lo = float(posterior_lower_bound(prior, eps2))
    with c2:
        live_chart(lf.posterior_figure(prior, eps2), key="learn_post_chart")
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


if tabs[1].open:
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
        live_chart(lf.protection_levels_figure(levels, lms, int(focus), eps3),
                   key="learn_lv_chart")
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



if tabs[2].open:
    with tabs[2]:
        _lesson_3()


# ================================================================ 4–6: app_support.learn_*
@st.fragment
def _lesson_4() -> None:
    """Lesson 4: its widgets rerun only this lesson (st.fragment)."""
    lesson_mechanisms()


if tabs[3].open:
    with tabs[3]:
        _lesson_4()


@st.fragment
def _lesson_5() -> None:
    """Lesson 5: its widgets rerun only this lesson (st.fragment)."""
    lesson_composition()


if tabs[4].open:
    with tabs[4]:
        _lesson_5()


@st.fragment
def _lesson_6() -> None:
    """Lesson 6: its widgets rerun only this lesson (st.fragment)."""
    lesson_anonymity()


if tabs[5].open:
    with tabs[5]:
        _lesson_6()
