"""Home: what landmark privacy is and what each page does."""

import streamlit as st

st.title(":material/shield_lock: Landmark Privacy Explorer")
st.markdown(
    """
**Landmark privacy** is a form of *differential privacy* for data that arrive over
time — a smart-meter series, a step counter, a GPS track. Some moments matter more than
others: a night at the hospital, the home address, a spike that reveals a medical
device. Those are the **landmarks**. Landmark privacy protects *all landmarks together*
and *every other event on its own*: for every timestamp t, the budget spent at the
landmarks plus the budget spent at t adds up to at most ε. Compared with protecting the
whole series (user-level), far less noise is needed; compared with protecting single
events (event-level), the landmarks cannot be singled out by combining releases.

This tool lets you mark landmarks, choose the total budget ε and a **scheme** that
spreads it over time, and see at once the released data, the budget spent at each
timestamp, a **verdict** from the landmark-privacy verifier (with the worst timestamp
when it fails), and the measured error next to the expected one. Every allocation
shown has been checked against the theorem; the releases are real draws of the
mechanisms (the Compare page averages its error curves over many such draws).
"""
)

st.header("New to differential privacy?")
st.markdown(
    "The **Learn** page explains the ideas behind this tool in six short interactive "
    "lessons: the definition, what ε means to an adversary, event-, user-, w-event- and "
    "landmark-level protection, the mechanisms (Laplace, Geometric, Planar Laplace, "
    "Exponential, Randomized response), how releases compose, and why k-anonymity breaks "
    "when data are published again and again."
)
st.page_link("app_pages/learn.py", label="**Learn** — differential privacy step by step",
             icon=":material/school:")

st.header("Pages")
c1, c2 = st.columns(2)
with c1:
    st.page_link("app_pages/timeline.py", label="**Timeline** — time series",
                 icon=":material/show_chart:")
    st.caption(
        "Mark landmarks by clicking points on the chart (or box/lasso-select several), "
        "release the series with Laplace or Geometric noise under any scheme, compare "
        "original and released data, read the per-timestamp budget and the verdict, and "
        "download the release and a configuration that reproduces it."
    )
    st.page_link("app_pages/map.py", label="**Map** — trajectories", icon=":material/map:")
    st.caption(
        "A day in Paris (or your CSV/GPX track) on a map: click points to make them "
        "landmarks or accept suggested stays, release the locations with Planar Laplace "
        "for a protection radius r, and compare the released path, the budget, the verdict, "
        "the displacement (measured vs expected 2r/ε_t) and the temporal leakage."
    )
with c2:
    st.page_link("app_pages/compare.py", label="**Compare** — schemes side by side",
                 icon=":material/compare:")
    st.caption(
        "Two to four schemes on the same data and landmarks, aligned on one time axis: "
        "released data, budget, leakage, verdict and error; then the error of each scheme "
        "against ε over many random runs, with a plain-language reading of the chart."
    )
    st.page_link("app_pages/leakage.py", label="**Leakage** — temporal correlation",
                 icon=":material/water_drop:")
    st.caption(
        "How much a release leaks when consecutive values are correlated (Cao et al.'s "
        "BPL, FPL and TPL, and the landmark TPL), for a correlation you set, estimate from "
        "the data or upload; then calibrate ε to a target leakage and apply it."
    )
    st.page_link("app_pages/dummies.py", label="**Dummy landmarks** — hide the landmarks",
                 icon=":material/scatter_plot:")
    st.caption(
        "Hide which timestamps are landmarks among privately chosen dummy ones, with the "
        "selection probabilities and the total budget spelled out."
    )

st.markdown("**Shared settings** (sidebar): ε, the scheme, the mechanism, the sensitivity "
            "and the random seed are shared by all pages and kept while you switch pages, "
            "as are the correlation strength and the choice of series or trajectory on the "
            "analysis pages. Landmarks are kept per dataset. The Timeline, Map and Compare "
            "pages offer downloads: the released data, a configuration that restores the "
            "view, and a privacy report; the Leakage page its curves as CSV.")

with st.expander("The schemes in one line each"):
    from lmdk_core.engine.allocation import SCHEMES

    for s in SCHEMES.values():
        st.markdown(f"- **{s.label}** — {s.description}")
