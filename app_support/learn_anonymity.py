"""Learn page, lesson 6 (why not k-anonymity): a toy table generalised to k-anonymity,
l-diversity and t-closeness, and the intersection attack over two releases.

Every number comes from :mod:`lmdk_core.teaching.anonymity`; the widgets (keys
``learn_*``) are the page's own.
"""

from __future__ import annotations

import streamlit as st

from lmdk_core.teaching.adversary import posterior_bound
from lmdk_core.teaching.anonymity import (
    AGE_LEVELS,
    LOCATION_LEVELS,
    anonymity_report,
    intersection_attack,
    toy_microdata,
)

PEOPLE = [name for name, *_ in toy_microdata().itertuples(index=False)]


def _anonymity_table(variant: str) -> None:
    """One release: the toy table generalised, its k, l and t, and its groups."""
    c1, c2 = st.columns(2, gap="large")
    with c1:
        st.markdown("**Original microdata** (Name is the identifier)")
        st.dataframe(toy_microdata(variant), hide_index=True, width="stretch")
    with c2:
        g1, g2 = st.columns(2)
        age_lv = g1.selectbox("Generalise Age to", list(AGE_LEVELS), index=2,
                              format_func=AGE_LEVELS.__getitem__, key="learn_k_age")
        loc_lv = g2.selectbox("Generalise Location to", list(LOCATION_LEVELS), index=1,
                              format_func=LOCATION_LEVELS.__getitem__, key="learn_k_loc")
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
        r1 = (st.selectbox("Age", list(AGE_LEVELS), index=2, format_func=AGE_LEVELS.__getitem__,
                           key="learn_i_age1"),
              st.selectbox("Location", list(LOCATION_LEVELS), index=1,
                           format_func=LOCATION_LEVELS.__getitem__, key="learn_i_loc1"))
    with a2:
        st.markdown("**Release 2**")
        r2 = (st.selectbox("Age", list(AGE_LEVELS), index=3, format_func=AGE_LEVELS.__getitem__,
                           key="learn_i_age2"),
              st.selectbox("Location", list(LOCATION_LEVELS), index=0,
                           format_func=LOCATION_LEVELS.__getitem__, key="learn_i_loc2"))
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


def lesson_anonymity() -> None:
    """Lesson 6: why k-anonymity fails for data published over time."""
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
