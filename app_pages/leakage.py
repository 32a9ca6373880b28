"""Leakage: temporal privacy leakage under a Markov model, and ε calibration (ConTPL-like)."""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings, set_setting
from app_support.components import (
    MAX_LEAKAGE_STATES,
    cached_loss,
    cached_sweep,
    model_losses,
    render_verdict,
    variant_losses,
)
from app_support.current_data import CurrentData, data_choice
from app_support.figure_memo import content_key, memo_figure
from app_support.live_chart import live_chart
from app_support.session import (
    CORRELATION_KINDS,
    MAX_EPSILON,
    MIN_EPSILON,
    STRENGTH_LABEL,
    keep_page_state,
    leakage_target,
    strength_ladder,
)
from lmdk_core.data.digest import array_digest, sha256_hex
from lmdk_core.decision.verdict import LEAKAGE_RTOL, privacy_verdict
from lmdk_core.engine.allocation import SCHEMES, uniform_total_for_share
from lmdk_core.figures.common import data_labels
from lmdk_core.figures.leakage import (
    leakage_curves_figure,
    matrix_heatmap,
    series_state_labels,
    track_state_labels,
)
from lmdk_core.files.export import (
    CONFIDENTIAL_LABEL,
    confidential_filename,
    csv_with_header,
    leakage_frame,
)
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import counted
from lmdk_core.foundation.quoting import quote_user_text, shorten_user_text
from lmdk_core.leakage import (
    CalibrationResult,
    calibrate_epsilon,
    calibrate_scale,
    divergence_threshold,
    load_matrix_csv,
    temporal_leakage,
    tpl_supremum,
)
from lmdk_core.leakage.conservative import (
    conservative_name,
    is_estimated,
    range_text,
    smoothing_variants,
)
from lmdk_core.leakage.estimation import Discretization, GridStates

SOURCES = {k: v for k, v in CORRELATION_KINDS.items() if k != "none"}
BACKWARD = {"same": "Same as forward", "bayes": "Bayes (from forward + stationary)",
            "estimated": "Estimated (reversed transitions)", "matrix": "Uploaded CSV"}

settings = current_settings()
keep_page_state({K.LK_ALLOC: "scheme", "lk_const_eps": 0.1,
                 K.LK_TARGET: settings.epsilon, K.LK_CAL_KIND: "scale"})
if not st.session_state.get(K.LK_TARGET_EDITED):  # α follows ε until the user sets it
    st.session_state[K.LK_TARGET] = settings.epsilon


SMOOTHING: dict[str, Any] = {"label": "Smoothing (added to every count)", "min_value": 0.0,
             "max_value": 10.0, "step": 0.1, "format": "%.3g", "key": K.W_CORR_SMOOTHING,
             "help": "Additive smoothing of the counted transitions. 1 (add-one) is robust "
                     "for few data; with many states and few moves it pulls every row "
                     "towards uniform and understates the correlation — try 0.1 or 0.01."}


def sparse_note(states: np.ndarray, n: int) -> None:
    """A caption when the counted moves are few for the number of states."""
    per_state = (len(states) - 1) / max(n, 1)
    if per_state < 10:
        st.caption(f"Only about {per_state:.1f} observed moves per state: the estimate "
                   "leans on the smoothing (a smaller value keeps more of the data's "
                   "correlation).")


# ---------------------------------------------------------------- cached engine calls
class _CalibrationResults:
    """Calibration results shared by every session of this server (at most ``size``; the
    oldest goes first). Not ``st.cache_data``: the search reports its progress to a bar
    drawn by the page, and a cached function that writes to an element created outside it
    cannot be replayed on a cache hit (Streamlit's ``CacheReplayClosureError`` for the
    second person who calibrated the same thing)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[tuple, CalibrationResult] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> CalibrationResult | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: tuple, value: CalibrationResult) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)


@st.cache_resource(show_spinner=False)
def _calibration_results() -> _CalibrationResults:
    return _CalibrationResults(32)


def cached_calibration(kind: str, target: float, eps_t: np.ndarray, landmarks: tuple[int, ...],
                       pb: bytes, pf: bytes, n: int, progress=None,
                       also: tuple[tuple[bytes, bytes], ...] = ()) -> CalibrationResult:
    """The calibration of ``eps_t`` to ``target`` (Cao et al. ICDE'17's loss functions of
    the backward/forward matrices ``pb``/``pf``), computed once per server for the same
    inputs; ``progress(fraction, message)`` is called only when it is computed. ``also``:
    more (backward, forward) matrices whose worst case the scale keeps ≤ target (an
    estimated model's smoothing range, :mod:`lmdk_core.leakage.conservative`)."""
    key = (kind, float(target), landmarks, n, array_digest(eps_t), sha256_hex(pb),
           sha256_hex(pf), tuple(sha256_hex(b) + sha256_hex(f) for b, f in also))
    store = _calibration_results()
    hit = store.get(key)
    if hit is not None:
        return hit
    lb, lf = cached_loss(pb, n), cached_loss(pf, n)
    if kind == "constant":
        res = calibrate_epsilon(target, lb, lf, length=int(eps_t.size), progress=progress)
    else:
        res = calibrate_scale(eps_t, target, lb, lf, list(landmarks), progress=progress,
                              also=[(cached_loss(b, n), cached_loss(f, n)) for b, f in also])
    store.put(key, res)
    return res


# ---------------------------------------------------------------- callbacks
def _on_upload(which: str) -> None:
    f = st.session_state.get(K.matrix_upload_key(which))
    if f is None:
        return
    try:
        P = load_matrix_csv(f.getvalue(), name=quote_user_text(f.name))
        if P.shape[0] > MAX_LEAKAGE_STATES:
            raise InputError(f"it has {P.shape[0]} states; this page handles up to "
                             f"{MAX_LEAKAGE_STATES} (use `lmdk leakage` for larger ones)")
        other = st.session_state[K.CORR_MATRICES].get(
            "forward" if which == "backward" else "backward")
        if which == "backward" and other is not None and other[1].shape != P.shape:
            raise InputError(f"it has {P.shape[0]} states but the forward matrix has "
                             f"{other[1].shape[0]}; the backward matrix needs the same "
                             "states as the forward one")
    except InputError as exc:
        st.session_state[K.LK_UPLOAD_ERROR] = (
            f"Could not use {quote_user_text(f.name)}: {exc}. The previous matrix and all "
            "settings are unchanged.")
        return
    st.session_state[K.LK_UPLOAD_ERROR] = None
    st.session_state[K.CORR_MATRICES][which] = (shorten_user_text(f.name, 60), P)


def _target_edited() -> None:
    st.session_state[K.LK_TARGET_EDITED] = True


def _apply(kind: str, value: float, n_landmarks: int, T: int, target: float) -> None:
    if kind == "constant":
        eps = uniform_total_for_share(value, T, n_landmarks)
        set_setting("scheme", "uniform")
        note = (f"Applied: Uniform with ε = {eps:.4g}, which spends the calibrated "
                f"{value:.4g} at every timestamp.")
    else:
        now = current_settings()
        eps = value * now.epsilon
        note = (f"Applied: ε = {eps:.4g} ({value:.4g} × the previous ε) with the "
                f"{SCHEMES[now.scheme].label} scheme.")
    if not MIN_EPSILON <= eps <= MAX_EPSILON:
        st.session_state[K.LK_APPLIED] = (f"Not applied: ε = {eps:.4g} is outside the sidebar's "
                                       f"range [{MIN_EPSILON:g}, {MAX_EPSILON:g}].")
        return
    set_setting("epsilon", float(eps))
    st.session_state[K.LEAKAGE_TARGET] = float(target)  # the verdicts now compare with α
    st.session_state[K.LK_ALLOC] = "scheme"
    st.session_state[K.LK_CONFIRM] = False
    st.session_state[K.LK_APPLIED] = (note + f" The verdicts on every page now check landmark "
                                   f"TPL against α = {target:g}.")


# ---------------------------------------------------------------- page
st.title(":material/water_drop: Temporal privacy leakage")
st.caption(
    "When consecutive values are correlated (a person at home at 3:00 is likely at home "
    "at 3:05), an adversary who knows the correlation learns more than ε_t about a "
    "timestamp. Cao et al. (ICDE'17) measure it with a Markov model: backward leakage "
    "(BPL) accumulates from the past, forward leakage (FPL) from the future, and TPL = "
    "BPL + FPL − ε_t. Landmark TPL is the leakage of all landmarks plus one timestamp."
)
cur: CurrentData = data_choice()
T = cur.length
landmarks = cur.landmarks

# ---- 1. the correlation model (the session's: Timeline, Map, Compare and the report use it)
st.header("1. Correlation model (transition matrix)")
kind_key = K.correlation_kind_key(cur.kind)
back_key = K.correlation_backward_key(cur.kind)
src = st.radio("Matrix", list(SOURCES), key=kind_key, format_func=SOURCES.get,
               horizontal=True,
               help="The model you choose here is the session's: the Timeline, Map and "
                    "Compare verdicts and the privacy report use it too.")
if st.session_state.get(K.LK_UPLOAD_ERROR):
    st.error(st.session_state[K.LK_UPLOAD_ERROR], icon=":material/error:")
if src == "smoothed":
    c1, c2, c3 = st.columns(3)
    c1.select_slider(STRENGTH_LABEL, key=K.W_CORRELATION_STRENGTH,
                     options=strength_ladder(settings.correlation_strength),
                     format_func=lambda s: f"{s:g}",
                     help="Cao et al.'s smoothing: P = (B + s)/(1 + n·s). s → 0: "
                          "deterministic moves (strongest); large s: nearly uniform.")
    c2.number_input("States n", min_value=2, max_value=200, step=1, key=K.W_CORR_STATES)
    c3.radio("Base B", ["identity", "shift"], key=K.W_CORR_BASE, horizontal=True,
             format_func={"identity": "stay (identity)", "shift": "move on (i → i+1)"}.get,
             help="Where the chain goes when it is most correlated.")
    st.caption("States 0…n−1 are abstract levels of the value (e.g. low to high "
               "consumption).")
elif src == "estimated" and not cur.is_track:
    c1, c2, c3 = st.columns(3)
    c1.number_input("Bins (states)", min_value=2, max_value=MAX_LEAKAGE_STATES, step=1,
                    key=K.W_CORR_BINS)
    c2.radio("Binning", ["width", "quantile"], key=K.W_CORR_BINNING, horizontal=True,
             format_func={"width": "equal width", "quantile": "equal counts"}.get)
    c3.number_input(**SMOOTHING)
elif src == "estimated":
    c1, c2 = st.columns(2)
    c1.number_input("Grid cell size (metres)", min_value=10.0, max_value=100_000.0,
                    step=50.0, format="%.0f", key=K.W_CELL_SIZE,
                    help="Each visited square cell is a state (the Map page's setting).")
    c2.number_input(**SMOOTHING)
else:
    st.file_uploader("Forward matrix CSV: n lines of n comma-separated probabilities, no "
                     "header; every row sums to 1", type=["csv", "txt"],
                     key=K.matrix_upload_key("forward"), on_change=_on_upload, args=("forward",))
    if "forward" not in st.session_state[K.CORR_MATRICES]:
        st.info("Upload a matrix to continue, e.g. `0.9,0.1` / `0.2,0.8` for two states. "
                "Until then the other pages keep the default model.", icon=":material/info:")
        st.stop()

back_options = ["same", "bayes"] + (["estimated"] if src == "estimated" else []) \
    + (["matrix"] if src == "matrix" else [])
if st.session_state.get(back_key) not in back_options:
    st.session_state[back_key] = "estimated" if src == "estimated" else "same"
bsrc = st.radio("Backward matrix P_B (for BPL)", back_options, key=back_key,
                format_func=BACKWARD.get, horizontal=True,
                help="BPL uses Pr(previous state | current state). Cao et al. derive it "
                     "from the forward matrix by Bayes' rule for a stationary chain.")
if bsrc == "matrix":
    st.file_uploader("Backward matrix CSV (same format)", type=["csv", "txt"],
                     key=K.matrix_upload_key("backward"), on_change=_on_upload, args=("backward",))
    if "backward" not in st.session_state[K.CORR_MATRICES]:
        st.info("Upload the backward matrix, or choose another option (until then the "
                "forward matrix is used both ways).", icon=":material/info:")
try:
    corr = cur.correlation()  # the same cached builder the other pages use
    if not corr.computed:
        raise InputError(corr.note or "no correlation model")
except InputError as exc:
    st.error(f"Cannot build the matrix: {exc}", icon=":material/error:")
    st.stop()
forward, backward = corr.forward, corr.backward
if forward is None or backward is None:  # not computed: refused above
    st.stop()
states = corr.states
if isinstance(states, Discretization):  # an estimated series model
    labels, hover = series_state_labels(states.edges, cur.unit), None
    sparse_note(states.states, states.n_states)
elif isinstance(states, GridStates):  # an estimated track (grid) model
    labels, hover = track_state_labels(states.centre_lat, states.centre_lon)
    sparse_note(states.states, states.n_states)
else:
    labels, hover = [str(k) for k in range(forward.shape[0])], None
model = corr.short

n_states = forward.shape[0]
st.session_state[K.LK_N_STATES] = n_states  # read by tests and the caption below


def _heatmap(where, key: str, matrix: np.ndarray, title: str, **kw) -> None:
    """A transition matrix's heatmap, built once per matrix, labels and title."""
    fig = memo_figure(content_key(key, matrix, labels, hover, title, kw),
                      lambda: matrix_heatmap(matrix, labels, hover=hover, title=title, **kw))
    live_chart(fig, key=key, where=where)


if backward is forward or np.array_equal(backward, forward):
    _heatmap(st, "lk_heat", forward, f"Transition probabilities, {n_states} states (used "
             "both ways)")
else:
    h1, h2 = st.columns(2)
    _heatmap(h1, "lk_heat_f", forward, f"Forward P_F, {n_states} states (for FPL)")
    _heatmap(h2, "lk_heat_b", backward, f"Backward P_B, {n_states} states (for BPL)",
             col_title="previous state")
if corr.key in ("estimated", "grid"):
    st.caption(f"{corr.description[0].upper()}{corr.description[1:]} Cao et al. assume the "
               "attacker knows these matrices; anyone with this data can count them. They are "
               "derived from the raw data and never written to a shared file (a saved "
               "configuration keeps only this recipe).")
lb, lf = model_losses(corr)

# ---- 2. the allocation
st.header("2. Budget per timestamp")
alloc = st.radio("Allocation", ["scheme", "constant"], key=K.LK_ALLOC, horizontal=True,
                 format_func={"scheme": f"Sidebar scheme ({SCHEMES[settings.scheme].label}, "
                                        f"ε = {settings.epsilon:.4g}) on the "
                                        f"{counted(len(landmarks), 'landmark')}",
                              "constant": "The same ε at every timestamp"}.get)
if alloc == "constant":
    const = st.number_input("ε per timestamp", min_value=0.001, max_value=100.0, step=0.05,
                            format="%.4g", key="lk_const_eps")
    eps_t = np.full(T, float(const))
    utility = cur.allocation_utility(eps_t)
else:
    try:
        lk_rel = cur.release(settings.scheme)
        eps_t = lk_rel.epsilon_t
        utility = cur.utility(lk_rel)
    except InputError as exc:
        st.error(f"Cannot allocate: {exc}.", icon=":material/error:")
        st.stop()
    if settings.scheme == "adaptive":
        st.caption("Adaptive's budget depends on its noisy releases: this is the allocation "
                   "it actually spent with the current seed.")

# ---- 3. the curves
st.header("3. Leakage per timestamp")
res = temporal_leakage(eps_t, lb, lf, landmarks if landmarks else None)
# the one verdict of this allocation under this (the session's) model; an estimated
# model's verdict is the worst over the smoothing range (lmdk_core.leakage.conservative)
sweep = (cached_sweep(json.dumps(corr.spec, sort_keys=True), cur.key, eps_t,
                      tuple(landmarks), corr) if is_estimated(corr) else None)
render_verdict(privacy_verdict(
    eps_t, landmarks, settings.epsilon,
    landmark_tpl=(sweep.worst if sweep is not None else res.landmark_tpl
                  if res.landmark_tpl is not None else res.tpl),
    model=conservative_name(corr) if sweep is not None else model,
    time_labels=data_labels(cur.data),
    leakage_target=leakage_target(), backward=lb, forward=lf,
    alternatives=variant_losses(corr) if sweep is not None else (),
    estimated=range_text(corr.spec.get("smoothing")) if sweep is not None else None,
    advise=alloc == "scheme" and settings.scheme != "adaptive"), utility=utility,
    key="lk_apply_advice", sweep=sweep)
top = float(np.max(eps_t))
constant = bool(np.all(eps_t == eps_t[0]))
sup = tpl_supremum(top, lb, lf) if top > 0 else 0.0
m = st.columns(5)
m[0].metric("Max BPL", f"{res.bpl.max():.3g}")
m[1].metric("Max FPL", f"{res.fpl.max():.3g}")
m[2].metric("Max TPL", f"{res.tpl.max():.3g}", help="The leakage of one timestamp.")
m[3].metric("Max landmark TPL",
            f"{res.landmark_tpl.max():.3g}" if res.landmark_tpl is not None else "—",
            help="The leakage of all landmarks plus one timestamp (no landmarks: —).")
m[4].metric("Long-run limit of TPL" if constant else "Long-run TPL bound",
            "∞" if math.isinf(sup) else f"{sup:.3g}",
            help="The supremum of TPL (Cao et al.'s Theorem 10): what TPL tends to over an "
                 "endless series with the constant budget " + (f"{top:g}." if constant else
                                       f"max ε_t = {top:g} (an upper bound for this "
                                       "allocation)."))
if math.isinf(sup):
    th = min(divergence_threshold(lb), divergence_threshold(lf))
    st.warning(
        f"**The long-run leakage is unbounded** at ε_t = {top:g}: some current state makes "
        "a set of next states impossible that another state reaches with high probability, so each "
        "release adds a fixed amount of leakage that never fades and TPL grows without "
        f"bound as the series gets longer. It stays finite for ε_t < {th:.3g}. The "
        f"{T:,} timestamps here still have the finite leakage shown.",
        icon=":material/all_inclusive:")
lk_in = (cur.data.time, cur.data.time_kind, res, settings.epsilon)
lk_kw: dict[str, Any] = {"supremum": sup, "target": float(st.session_state[K.LK_TARGET])}
live_chart(memo_figure(content_key("lk_curves", *lk_in, lk_kw), lambda: leakage_curves_figure(
    *lk_in, **lk_kw)), key="lk_curves")
with st.expander(f":material/lock: {CONFIDENTIAL_LABEL} — leakage per timestamp"):
    st.download_button(
        "CONFIDENTIAL — Leakage per timestamp (CSV)",
        lambda: csv_with_header([CONFIDENTIAL_LABEL, "leakage per timestamp with ε_t and "
                                 "the landmark flags: do not publish"],
                                leakage_frame(cur.data.time, cur.data.time_kind, res)),
        file_name=confidential_filename("leakage", "csv"), mime="text/csv",
        icon=":material/lock:", key="lk_download", on_click="ignore",
        help="t, time, ε_t, landmark, BPL, FPL, TPL and landmark TPL. The ε_t and landmark "
             "columns reveal the landmark set: for internal analysis only.")
st.caption(f"Model: {model}; backward: {BACKWARD[bsrc].lower()}. Without correlation "
           "(all rows equal) BPL = FPL = TPL = ε_t and the landmark TPL is the theorem's "
           "total Σ over L∪{t}.")

# ---- 4. calibration
st.header("4. Calibrate ε to a target leakage")
c1, c2 = st.columns([1, 2], vertical_alignment="bottom")
target = c1.number_input("Target α (most leakage you accept)", min_value=0.001,
                         max_value=100.0, step=0.1, format="%.4g", key=K.LK_TARGET,
                         on_change=_target_edited,
                         help="The most leakage you accept at any timestamp, in the units "
                              "of ε. Starts at the sidebar's ε (until you change it).")
kinds = {"scale": "Scale the sidebar allocation: landmark TPL ≤ α",
         "constant": "Largest constant ε per timestamp: TPL ≤ α"}
if alloc == "constant":  # the constant allocation calibrates as a constant
    st.session_state[K.LK_CAL_KIND] = "constant"
kind = c2.radio("Find", list(kinds), key=K.LK_CAL_KIND, format_func=kinds.get,
                horizontal=True, disabled=alloc == "constant")
try:
    base_eps = cur.release(settings.scheme).epsilon_t if kind == "scale" else eps_t
except InputError as exc:
    st.error(f"Cannot calibrate: {exc}.", icon=":material/error:")
    st.stop()
# the search evaluates the leakage dozens of times (minutes on long series): it runs only
# on request, with a progress bar, and its result is kept per settings
# an estimated model: the scale keeps landmark TPL ≤ α under every smoothing of the range
also = tuple((np.ascontiguousarray(v.backward).tobytes(),
              np.ascontiguousarray(v.forward).tobytes())
             for v in smoothing_variants(corr)) if kind == "scale" else ()
cal_key = (kind, float(target), tuple(landmarks), n_states,
           array_digest(base_eps, backward, forward), len(also))
cals: dict = st.session_state.setdefault(K.LK_CALIBRATIONS, {})
cal = cals.get(cal_key)
if cal is None:
    ask = st.empty()  # Calibrate and its note go once the result is there
    k1, k2 = ask.container().columns([1, 3], vertical_alignment="center")
    go = k1.button("Calibrate", key="lk_calibrate", type="primary", icon=":material/tune:",
                   width="stretch")
    k2.caption(f"Searches the largest budget whose leakage stays ≤ α = {float(target):g} "
               f"(a few dozen leakage evaluations over {T:,} timestamps)"
               + (f" under every smoothing of {range_text(corr.spec.get('smoothing'))} "
                  "(the model is estimated from the data)" if also else "")
               + "; runs when you ask.")
    if go:
        bar = st.progress(0.0, text="Calibrating…")
        try:
            cal = cached_calibration(
                kind, float(target), base_eps, tuple(landmarks),
                np.ascontiguousarray(backward).tobytes(),
                np.ascontiguousarray(forward).tobytes(), n_states,
                progress=lambda f, msg: bar.progress(min(max(float(f), 0.0), 1.0),
                                                      text=str(msg)), also=also)
        except InputError as exc:
            bar.empty()
            st.error(f"Cannot calibrate: {exc}.", icon=":material/error:")
            st.stop()
        bar.empty()
        ask.empty()
        while len(cals) >= 16:
            cals.pop(next(iter(cals)))
        cals[cal_key] = cal
    else:
        applied = st.session_state.pop(K.LK_APPLIED, None)  # shown once, after the click
        if applied:
            (st.warning if applied.startswith("Not") else st.success)(
                applied, icon=":material/done:")
        st.stop()
r1, r2, r3 = st.columns(3)
if cal.kind == "constant":
    r1.metric("Largest ε per timestamp", f"{cal.value:.4g}")
    r2.metric("Achieved max TPL", f"{cal.achieved:.4g}", help=f"≤ α = {cal.target:g}")
    applied_eps = uniform_total_for_share(cal.value, T, len(landmarks))
    r3.metric("As a Uniform release", f"ε = {applied_eps:.4g}",
              help="Uniform with this total spends the calibrated ε at every timestamp "
                   "and is landmark-private. Its landmark TPL is larger than the TPL.")
    new_eps = applied_eps
    assert cal.epsilon_t is not None  # calibrated for this series' length
    lt = temporal_leakage(cal.epsilon_t, lb, lf, landmarks).landmark_tpl
    assert lt is not None  # the landmarks were given
    confirm_needed = bool(lt.max() > cal.target * (1 + LEAKAGE_RTOL))
    if confirm_needed:
        st.warning(
            f"**Amber: this keeps the leakage of one timestamp ≤ α, not the landmarks'.** "
            f"With ε = {cal.value:.4g} at every timestamp the landmarks plus one timestamp "
            f"leak up to **{lt.max():.3g}** > α = {cal.target:g}; the verdicts would stay "
            "amber. To bound that too, choose *Scale the sidebar allocation*.",
            icon=":material/warning:")
else:
    new_eps = cal.value * settings.epsilon
    confirm_needed = False
    r1.metric("Scale factor", f"{cal.value:.4g}",
              help="Multiply every ε_t of the sidebar allocation by this.")
    r2.metric("Achieved max landmark TPL" if landmarks else "Achieved max TPL",
              f"{cal.achieved:.4g}", help=f"≤ α = {cal.target:g}")
    r3.metric("New total ε", f"{cal.value * settings.epsilon:.4g}",
              help=f"The {SCHEMES[settings.scheme].label} scheme with this ε.")
with st.expander("Under the hood"):
    st.markdown(
        f"- The leakage only grows with the budget, so the largest feasible value is found "
        f"by a bracketing search (regula falsi with bisection safeguards): "
        f"{cal.evaluations} leakage evaluations over these {T:,} timestamps.\n"
        "- BPL_t = L_B(BPL_{t−1}) + ε_t and FPL_t = L_F(FPL_{t+1}) + ε_t, where L is Cao "
        "et al.'s loss function of the matrix; TPL_t = BPL_t + FPL_t − ε_t. Landmark TPL "
        "restarts both recursions between consecutive members of L ∪ {t} and adds them up.\n"
        "- The long-run limit is Cao et al.'s Theorem 10 (a fixed point of the recursion).")
cur_eps = settings.epsilon
if new_eps > cur_eps * (1 + 1e-12):
    st.warning(
        f"**Applying this raises ε** from your {cur_eps:g} to **{new_eps:.4g}**: every "
        f"release spends more, and for independent values the landmark guarantee becomes "
        f"{new_eps:.4g} instead of {cur_eps:g}. It happens because α = {cal.target:g} is "
        f"above what the current allocation leaks; lower α to keep ε = {cur_eps:g} or less.",
        icon=":material/trending_up:")
elif new_eps < cur_eps * (1 - 1e-12):
    st.info(f"Applying this lowers ε from {cur_eps:g} to {new_eps:.4g} (more noise, and the "
            f"landmark TPL stays ≤ α = {cal.target:g} under this model).",
            icon=":material/trending_down:")
confirmed = True
if confirm_needed:
    confirmed = st.checkbox("I understand that the landmarks plus one timestamp would still "
                            "leak more than α; apply anyway", key=K.LK_CONFIRM)
st.button("Apply to the sidebar", type="primary", icon=":material/done:", on_click=_apply,
          args=(cal.kind, cal.value, len(landmarks), T, cal.target),
          disabled=not confirmed,
          help="Set the shared ε (and, for a constant budget, the Uniform scheme); the "
               "verdicts then check landmark TPL against α under this session's model.")
if kind == "scale" and settings.scheme == "adaptive":
    st.caption("Adaptive decides what to publish from its noisy outputs, so after scaling "
               "its realised allocation may differ; the page recomputes it after applying.")
applied = st.session_state.pop(K.LK_APPLIED, None)  # shown once, after the click
if applied:
    (st.warning if applied.startswith("Not") else st.success)(applied, icon=":material/done:")
