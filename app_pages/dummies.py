"""Dummy landmarks: hide the real landmarks among privately selected dummy ones."""

from __future__ import annotations

import numpy as np
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings
from app_support.components import cached_series_release, model_caption, render_verdict
from app_support.current_data import current_data
from app_support.figure_memo import memo_figure, release_figure_key
from app_support.live_chart import live_chart
from app_support.session import current_series, series_landmarks
from lmdk_core.decision.utility import release_utility
from lmdk_core.decision.verdict import privacy_verdict
from lmdk_core.dummies import (
    METRICS,
    OPTIMAL_MAX_REGULAR,
    DummyOptions,
    dummy_options,
    release_series_with_dummies,
    select_option,
)
from lmdk_core.figures import timeline_figure
from lmdk_core.figures.dummies import options_strip_figure, selection_probability_figure
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import counted
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.setting_limits import LIMITS

#: default selection budget: on the demo week (T = 168, 5 landmarks, heuristic, gap std)
#: ε_sel = 1 gives max/min selection probability 1.14 (near uniform), 10 gives 3.8, 20 gives
#: 14 (the 10 likeliest of 163 options hold 22% instead of 6%), 50 gives 742
DEFAULT_EPS_SEL = 20.0

#: widget key of the expander with the option charts (its open state is tracked)
OPTIONS_EXPANDER_KEY = K.DL_OPTIONS_OPEN

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
    format_func={"current": f"Current series ({quote_user_text(name)}, {len(series)} "
                            "timestamps)",
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
eps_sel = c3.number_input("Selection budget ε_sel",
                          min_value=LIMITS["selection_epsilon"].low,
                          max_value=LIMITS["selection_epsilon"].high,
                          value=DEFAULT_EPS_SEL, step=5.0, key="dl_eps_sel",
                          help="The Exponential mechanism's ε for choosing L′. Its utility "
                               "has a large sensitivity (up to (T−1)/2), so small values draw "
                               "almost uniformly among all options: on the demo week ε_sel = 1 "
                               "makes the likeliest option only 1.14× as likely as the least "
                               f"likely; {DEFAULT_EPS_SEL:g} makes it about 14× as likely.")

if not landmarks:
    st.info("Mark at least one landmark first (Timeline page, or the example above).",
            icon=":material/info:")
    st.stop()
if method == "optimal" and R > OPTIMAL_MAX_REGULAR:
    st.error(
        f"The optimal search is limited to {OPTIMAL_MAX_REGULAR} regular timestamps; this "
        f"data has {R} (T = {T}, {counted(len(landmarks), 'landmark')}). Its cost grows "
        "like R!: "
        "use the heuristic, or the small example.", icon=":material/error:")
    st.stop()

key = (T, tuple(landmarks), method, metric)
store = st.session_state.setdefault(K.DL_OPTIONS, {})
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
s = current_settings()
seed = s.seed
sel = select_option(opts, eps_sel, seed)

# ---- summary of the draw (the full lists are in the expander)
p = sel.probabilities
top = np.sort(p)[::-1]
k10 = min(10, len(opts))
st.header("The drawn set L′")
try:
    dr = release_series_with_dummies(
        values, landmarks, epsilon=s.epsilon, epsilon_selection=eps_sel, scheme=s.scheme,
        mechanism=s.mechanism, sensitivity=s.sensitivity, method=method, metric=metric, seed=seed,
        window=s.window)
    plain = cached_series_release(values, tuple(landmarks), s.epsilon, s.scheme, s.mechanism,
                                  s.sensitivity, seed, s.window)
except InputError as exc:
    st.error(f"Cannot release: {exc}", icon=":material/error:")
    st.stop()
acc = dr.accounting()
err_l = plain.metrics()["expected_mae_published"]
err_d = dr.release.metrics()["expected_mae_published"]
m1, m2, m3, m4 = st.columns(4)
m1.metric("Drawn option", f"L{sel.index + 1} of {len(opts)}",
          help="Drawn with the Exponential mechanism and the shared random seed.")
m2.metric("Size |L′|", f"{len(acc['landmarks_used'])}",
          f"{counted(sel.dummies.size, 'dummy', 'dummies')} added to "
          f"{counted(len(landmarks), 'landmark')}", delta_color="off")
m3.metric("Expected error with L′", f"{err_d:.3g}" if np.isfinite(err_d) else "—",
          (f"{err_d / err_l:.2g}× the error with L alone ({err_l:.3g})"
           if np.isfinite(err_d) and np.isfinite(err_l) and err_l > 0 else None),
          delta_color="off",
          help="Mean absolute error expected at the noisy releases (Laplace: Δf/ε_t) with "
               "the sidebar scheme: more landmarks in L′ means less budget per timestamp.")
m4.metric("Chance of the drawn option", f"{p[sel.index] / (1 / len(opts)):.2g}× uniform",
          f"10 likeliest options: {top[:k10].sum():.0%} (uniform {k10 / len(opts):.0%})",
          delta_color="off",
          help="The drawn option's selection probability relative to a uniform draw "
               f"(1/{len(opts)}), and how much the 10 likeliest options hold together: how "
               "strongly the Exponential mechanism favours sets shaped like L at this ε_sel. "
               "Near 1× and near the uniform share, the draw is close to uniform.")

# the two charts are drawn only while the expander is open (opening it reruns the page):
# a closed expander's charts were still built, sent and drawn by the browser on every
# change, over a third of the browser's work per rerun
details = st.expander(f"All {len(opts)} options and their selection probabilities",
                      key=OPTIONS_EXPANDER_KEY, on_change="rerun")
with details:
    st.caption(f"Metric of L: {opts.original_metric:.3g}. Objective |mean metric − m(L)| = "
               f"{opts.objective:.3g} (what the optimal search minimises). Sensitivity of "
               f"the utility Δu = {sel.sensitivity:g}. Probabilities from {p.min():.3g} to "
               f"{p.max():.3g} (uniform {1 / len(opts):.3g}).")
    if details.open:
        live_chart(options_strip_figure(opts, sel.index), key="dummies_options")
        live_chart(selection_probability_figure(sel), key="dummies_selection")

st.markdown(
    f"**L** = {sorted(landmarks)} → **L′** = {acc['landmarks_used']} "
    f"(dummies {acc['dummies']}). Budget spent: ε_sel = {acc['epsilon_selection']:g} on "
    f"choosing L′, ε = {acc['epsilon_release']:g} on the values (landmark release with L′).")
if source == "current":
    cur = current_data("series")
    model, leak, note = cur.leakage(dr.release.epsilon_t, landmarks)
    render_verdict(cur.verdict(dr.release, leak, model, note),
                   utility=cur.utility(dr.release))
    model_caption(model, note)
else:
    render_verdict(privacy_verdict(dr.release.epsilon_t, landmarks, s.epsilon,
                                   model_note="the small example has no correlation model."),
                   utility=release_utility(dr.release,
                                           sensitivity=s.sensitivity))
with st.expander("What is protected, and what is not", expanded=True):
    st.markdown(
        "- **The values**: the release is landmark ε-private for L′. Since L ⊆ L′, every "
        "sum Σ over L∪{t} is at most the sum over L′∪{t}, so the real landmarks get the "
        "same ε (the verdict above is for L).\n"
        "- **Which timestamps are landmarks — only partly.** Anyone who sees L′ (or an "
        "allocation or published flags that reveal it) learns that every timestamp "
        "**outside L′ is certainly not a landmark**: those are not hidden at all. Inside "
        f"L′ the {len(landmarks)} real landmarks sit among {sel.dummies.size} dummies; "
        "that is all the cover there is.\n"
        "- **ε_sel is not a guarantee for L.** The Exponential mechanism's ε_sel bounds how "
        "much the *choice among these options* depends on the metric of L, but the options "
        "themselves are built from L (each contains L). So ε_sel + ε is the budget spent, "
        "not a differential-privacy guarantee that hides L.\n"
        "- Publish only L′ (if anything) — never the option list or these probabilities, "
        "which are computed from L.")
# built once per release drawn (a digest of its arrays): a change that leaves the release
# as it was (the same L′ and seed) does not rebuild it
live_chart(memo_figure(
    release_figure_key("dummies", np.arange(T), {"release": dr.release}, None, (460,)),
    lambda: timeline_figure(np.arange(T), "number", dr.release, height=460)),
    key="dummies_release")
