"""Dummy landmarks: hide the real landmarks among privately selected dummy ones."""

from __future__ import annotations

import numpy as np
import streamlit as st

from app_pages.components import verdict_badge
from app_pages.session import current_series, series_landmarks, setting
from lmdk_core.dummies import (
    METRICS,
    OPTIMAL_MAX_REGULAR,
    DummyOptions,
    dummy_options,
    release_series_with_dummies,
    select_option,
)
from lmdk_core.dummy_figures import options_strip_figure, selection_probability_figure
from lmdk_core.figures import timeline_figure
from lmdk_core.validation import InputError

METRIC_LABELS = {
    "gap_std": "Spread of the gaps between landmarks (std)",
    "nearest_mean": "Mean distance to the nearest landmark",
}

st.title(":material/scatter_plot: Dummy landmarks")
st.caption(
    "Publishing *which* timestamps are landmarks can itself reveal them. Instead, add "
    "dummy landmarks: build a chain of ever larger sets L ⊂ L₁ ⊂ L₂ ⊂ … whose shape "
    "resembles L, draw one set L′ with the Exponential mechanism (its own budget ε_sel), "
    "and release the data treating L′ as the landmark set."
)

name, series = current_series()
source = st.radio(
    "Data", ["current", "example"], horizontal=True, key="dl_source",
    format_func={"current": f"Current series ({name}, {len(series)} timestamps)",
                 "example": "Small example (lets the optimal search run)"}.get,
)
if source == "current":
    values = series.values
    landmarks = series_landmarks(name)
    st.caption(f"Landmarks from the Timeline page: {landmarks or 'none'}")
else:
    c1, c2 = st.columns([1, 3])
    T_ex = c1.slider("Length T", 4, 16, 12, key="dl_T")
    landmarks = c2.multiselect("Landmarks", list(range(T_ex)), default=[2, 3, 9],
                               key="dl_example_lm")
    landmarks = [t for t in landmarks if t < T_ex]
    values = series.values[:T_ex] if len(series) >= T_ex else np.zeros(T_ex)
T = len(values)
R = T - len(landmarks)

c1, c2, c3 = st.columns(3)
method = c1.radio("Method", ["heuristic", "optimal"], horizontal=True, key="dl_method",
                  format_func={"heuristic": "Heuristic (greedy)",
                               "optimal": "Optimal (exhaustive)"}.get,
                  help="Heuristic: add, one at a time, the timestamp that keeps the metric "
                       "closest to the original. Optimal: the chain whose mean metric is "
                       f"closest, over all R! orders; refused above R = {OPTIMAL_MAX_REGULAR} "
                       "regular timestamps (12! ≈ 479 million chains).")
metric = c2.selectbox("Metric", list(METRICS), key="dl_metric",
                      format_func=lambda k: METRIC_LABELS.get(k, k),
                      help="How the shape of a landmark set is measured (series start and "
                           "end count as boundaries).")
eps_sel = c3.number_input("Selection budget ε_sel", min_value=0.01, max_value=1000.0,
                          value=1.0, step=0.5, key="dl_eps_sel",
                          help="Spent on choosing L′ (Exponential mechanism), on top of the "
                               "release's ε.")

if not landmarks:
    st.info("Mark at least one landmark first (Timeline page, or the example above).",
            icon=":material/info:")
    st.stop()
if method == "optimal" and R > OPTIMAL_MAX_REGULAR:
    st.error(
        f"The optimal search is limited to {OPTIMAL_MAX_REGULAR} regular timestamps; this "
        f"data has {R} (T = {T}, {len(landmarks)} landmarks). Its cost grows like R!: "
        "use the heuristic, or the small example.", icon=":material/error:")
    st.stop()

key = (T, tuple(landmarks), method, metric)
store = st.session_state.setdefault("dl_options", {})
if key not in store:
    bar = st.progress(0.0, text="Building options…")
    try:
        store[key] = dummy_options(T, landmarks, method, metric,
                                   progress=lambda f, m: bar.progress(min(max(f, 0.0), 1.0),
                                                                      text=m))
    except InputError as exc:
        bar.empty()
        st.error(f"Cannot build the options: {exc}", icon=":material/error:")
        st.stop()
    bar.empty()
opts: DummyOptions = store[key]
seed = int(setting("seed"))
sel = select_option(opts, eps_sel, seed)

m1, m2, m3, m4 = st.columns(4)
m1.metric("Metric of L", f"{opts.original_metric:.3g}")
m2.metric("Options", len(opts), help="Each adds one more dummy, up to the whole series.")
m3.metric("Objective |mean metric − m(L)|", f"{opts.objective:.3g}",
          help="What the optimal search minimises (seed's Algorithm 1).")
m4.metric("Drawn option", f"L{sel.index + 1}", f"{sel.dummies.size} dummies added",
          delta_color="off", help="The option drawn with the shared random seed.")

st.plotly_chart(options_strip_figure(opts, sel.index), width="stretch")
st.plotly_chart(selection_probability_figure(sel), width="stretch")
pmax, pmin = sel.probabilities.max(), sel.probabilities.min()
st.caption(
    f"Probabilities range from {pmin:.3g} to {pmax:.3g} (uniform would be "
    f"{1 / len(opts):.3g}). The utility's sensitivity Δu = {sel.sensitivity:g} is large — one "
    "changed landmark can move the metric by up to (T−1)/2 — so at small ε_sel the draw is "
    "close to uniform: the price of a sound guarantee. Raise ε_sel to favour similar sets."
)

st.subheader("Release with L′")
try:
    dr = release_series_with_dummies(
        values, landmarks, float(setting("epsilon")), eps_sel, setting("scheme"),
        setting("mechanism"), float(setting("sensitivity")), method=method, metric=metric,
        seed=seed, window=int(setting("window")))
except InputError as exc:
    st.error(f"Cannot release: {exc}", icon=":material/error:")
    st.stop()
acc = dr.accounting()
st.markdown(
    f"**L** = {sorted(landmarks)} → **L′** = {acc['landmarks_used']} "
    f"(dummies {acc['dummies']}).  \n"
    f"**Budget:** ε_sel = {acc['epsilon_selection']:g} (choosing L′) + ε = "
    f"{acc['epsilon_release']:g} (landmark release with L′) = **{acc['epsilon_total']:g} in "
    "total** by sequential composition."
)
verdict_badge(dr.release.verdict)
st.caption(
    "Verdict for L′ (what the release used). Since L ⊆ L′, it also holds for the real "
    f"landmarks: {'yes' if acc['private_for_original'] else 'no'}. Only L′ may be "
    "published — never the option list or these probabilities, which are computed from L."
)
st.plotly_chart(timeline_figure(np.arange(T), "number", dr.release, height=460),
                width="stretch")
