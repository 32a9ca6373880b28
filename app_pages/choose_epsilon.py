"""Choose ε: from an accuracy target, from what an attacker learns, and over a schedule of
repeated releases (engine: lmdk_core.decision.accuracy, lmdk_core.decision.attacker,
lmdk_core.decision.composition)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings, set_setting
from app_support.components import cached_posterior_curve, cached_sweep, smoothing_table
from app_support.current_data import CurrentData, data_choice
from app_support.figure_memo import content_key, memo_figure
from app_support.live_chart import live_chart
from app_support.session import keep_page_state, leakage_target
from lmdk_core.decision.accuracy import EPS_RANGE, AccuracyTarget, accuracy_at
from lmdk_core.decision.adaptive_accuracy import min_adaptive_runs
from lmdk_core.decision.attacker import (
    averaging_attack,
    certainty_sentence,
    planning_scheme,
    posterior_bound,
    simulate_repeat_inference,
)
from lmdk_core.decision.choice_tables import (
    event_rows,
    partial_ranges,
    repeat_rows,
    solution_notes,
    solution_rows,
    uncovered_event_sentence,
)
from lmdk_core.decision.composition import DEFAULT_DELTA, per_release_epsilon, schedule_summary
from lmdk_core.decision.epsilon_search import solve_epsilon
from lmdk_core.engine.allocation import SCHEMES, allocate
from lmdk_core.figures.choose import accuracy_figure, averaging_figure, posterior_figure
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import counted
from lmdk_core.foundation.setting_limits import LIMITS
from lmdk_core.leakage.conservative import conservative_name, is_estimated, range_text

STATIC = ["uniform", "skip", "w-event", "user", "event"]
EPS_LIM = LIMITS["epsilon"]

keep_page_state({K.W_ACC_KIND: "within", K.W_ACC_BOUND_SERIES: 1.0,
                 K.W_ACC_BOUND_TRACK: 300.0, K.W_ACC_PROB: 95.0,
                 K.W_ACC_PER: "each", K.W_ACC_SCHEMES: ["uniform", "skip", "user"],
                 K.W_ACC_RUNS: 200, K.W_ATT_PRIOR: 10.0, K.W_ATT_DAYS: [1, 7, 30, 365],
                 K.W_REP_RELEASES: 52, K.W_REP_TARGET: 5.0, K.W_REP_DELTA: DEFAULT_DELTA})


def _apply(eps: float, scheme: str | None = None) -> None:
    if not EPS_LIM.low <= eps <= EPS_LIM.high:
        st.session_state[K.CHOOSE_MSG] = (f"ε = {eps:.4g} is outside the explorer's range "
                                       f"({EPS_LIM.describe()}); it was not applied.")
        return
    set_setting("epsilon", float(round(eps, 6)))
    if scheme is not None:
        set_setting("scheme", scheme)
    st.session_state.pop(K.LEAKAGE_TARGET, None)
    st.session_state[K.CHOOSE_MSG] = (f"Applied ε = {eps:.4g}" + (
        f" with {SCHEMES[scheme].label}" if scheme else "") + " to the sidebar.")
    st.session_state[K.CHOOSE_RERUN_APP] = True


def _follow_apply() -> None:
    """First thing in each tab's fragment: after an Apply (a button inside the fragment,
    whose click reruns only the fragment) rerun the whole page, so that the sidebar, the
    message and the other tabs show the new ε. A whole run clears the request at the top
    of the page before any tab is drawn, so only a fragment's own run asks for it."""
    if st.session_state.pop(K.CHOOSE_RERUN_APP, False):
        st.rerun()


st.title(":material/tune: Choose ε")
st.caption("Nobody thinks in ε. Start from what matters — how accurate the release must be, "
           "what an attacker could learn, how often you publish — and get the ε that "
           "delivers it. Every number below is computed from the noise distributions or "
           "simulated on your data, not asserted.")
cur: CurrentData = data_choice()
unit = cur.unit
settings = current_settings()
eps_now = settings.epsilon
# a whole run already shows the applied ε: no tab needs to ask for one (_follow_apply)
st.session_state.pop(K.CHOOSE_RERUN_APP, None)
if msg := st.session_state.pop(K.CHOOSE_MSG, None):
    st.info(msg, icon=":material/info:")

mech_kw: dict[str, Any]  # the mechanism's keyword arguments of the accuracy functions
if cur.is_track:
    values = np.column_stack([cur.track.lat, cur.track.lon])
    mech_kw = {"radius": settings.radius}
    mech_text = f"Planar Laplace, r = {settings.radius:g} m"
else:
    values = cur.series.values
    mech_kw = {"mechanism": settings.mechanism, "sensitivity": settings.sensitivity}
    mech_text = f"{settings.mechanism.capitalize()}, Δf = {settings.sensitivity:g}"
lm = list(cur.landmarks)
# accuracy → ε releases a track's accepted stays as one landmark event each (docs/stays.md)
acc_kw: dict[str, Any] = {**mech_kw, **({"stays": cur.stays} if cur.stays else {})}
n_fix = sum(b - a + 1 for a, b in cur.stays)
group, *member = ("stay", "fix", "fixes") if cur.is_track else ("run", "reading", "readings")
lm_text = (f"{counted(len(lm) - n_fix + len(cur.stays), 'landmark event')} "
           f"({counted(len(cur.stays), group)} of {counted(n_fix, *member)}, "
           "each one event)" if cur.stays else counted(len(lm), "landmark"))
st.caption(f"{cur.length:,} timestamps, {lm_text}, {mech_text}, current ε = "
           f"{eps_now:g} ({SCHEMES[settings.scheme].label}).")

# keyed and tracked: the tab chosen stays chosen across reruns (an Apply moves the
# attacker's prior, and an untracked tab bar would return to its first tab)
tab_acc, tab_att, tab_rep = st.tabs(["Accuracy → ε", "What an attacker learns",
                                     "Repeated releases"], key="choose_tab",
                                    on_change="rerun")


@st.cache_data(max_entries=32, show_spinner=False)
def _static_solutions(values: np.ndarray, lm: tuple, target: AccuracyTarget,
                      schemes: tuple, window: int, mech: tuple) -> list:
    kw = dict(mech)
    return [solve_epsilon(values, list(lm), s, target, window=window, **kw) for s in schemes]


@st.cache_data(max_entries=32, show_spinner=False)
def _accuracy_curves(values: np.ndarray, lm: tuple, target: AccuracyTarget, schemes: tuple,
                     window: int, mech: tuple, grid: np.ndarray) -> dict:
    kw = dict(mech)
    return {s: np.array([accuracy_at(values, list(lm), float(e), s, target, window=window,
                                     **kw) for e in grid]) for s in schemes}


# ------------------------------------------------------------------ accuracy → ε
def _accuracy_target() -> AccuracyTarget:
    """The target's widgets (kind, bound, probability, 'applies to', schemes) and the
    target they describe; an invalid one shows what is wrong and stops the tab."""
    bound_key = f"w_acc_bound_{cur.kind}"
    c1, c2, c3 = st.columns([2, 1.2, 1.2])
    c1.radio("Target", ["within", "mean"], key=K.W_ACC_KIND, horizontal=True,
             format_func={"within": "within ± bound with a probability",
                          "mean": "mean error at most"}.get)
    c2.number_input(f"Bound ({unit})" if unit else "Bound",
                    min_value=LIMITS["accuracy_bound"].low,
                    max_value=LIMITS["accuracy_bound"].high, key=bound_key,
                    format="%.4g", help="In the data's units; metres for a track.")
    if st.session_state[K.W_ACC_KIND] == "within":
        c3.slider("Probability (%)", 50.0, 99.9, key=K.W_ACC_PROB, step=0.5)
    per_options = ["each", "typical"] + (["all"] if st.session_state[K.W_ACC_KIND] == "within"
                                         else [])
    if st.session_state.get(K.W_ACC_PER) not in per_options:
        st.session_state[K.W_ACC_PER] = "each"
    st.radio("Applies to", per_options, key=K.W_ACC_PER, horizontal=True,
             format_func={"each": "each released reading, on its own",
                          "typical": "a typical released reading (average over the release)",
                          "all": "all released readings at once"}.get,
             help="'Each' and 'typical' differ only where a scheme repeats values (Skip's "
                  "landmarks, Adaptive's skips): a repeated value's error is the data's change "
                  "plus the old noise. 'Each' is a statement about every reading separately; "
                  "'all at once' asks for every reading to be within the bound together, "
                  "which needs a larger ε.")
    st.multiselect("Schemes", STATIC, key=K.W_ACC_SCHEMES,
                   format_func=lambda k: SCHEMES[k].label)
    try:
        target = AccuracyTarget(st.session_state[K.W_ACC_KIND], float(st.session_state[bound_key]),
                                float(st.session_state[K.W_ACC_PROB]) / 100,
                                st.session_state[K.W_ACC_PER])
    except InputError as exc:
        st.error(str(exc), icon=":material/error:")
        st.stop()
    st.markdown(f"**Target:** {target.describe(unit)}.")
    return target


def _apply_buttons(sols: list) -> None:
    """One Apply button per scheme that reaches the target (disabled, with the reason,
    when the scheme is not landmark-private or the ε is outside the explorer's range)."""
    for c, s in zip(st.columns(len(sols)), sols, strict=True):
        if s.epsilon is not None:
            in_range = EPS_LIM.low <= s.epsilon <= EPS_LIM.high
            why = ("Not landmark-private with these landmarks." if not s.landmark_private
                   else None if in_range else
                   f"Outside the explorer's range of ε ({EPS_LIM.describe()}).")
            c.button(f"Apply {SCHEMES[s.scheme].label}, ε = {s.epsilon:.3g}",
                     key=f"apply_{s.scheme}", on_click=_apply, args=(s.epsilon, s.scheme),
                     disabled=why is not None, help=why)


def _static_answers(target: AccuracyTarget) -> None:
    """The exact solutions of the static schemes: table, notes, Apply buttons and the
    accuracy-against-ε chart."""
    schemes = tuple(st.session_state[K.W_ACC_SCHEMES])
    mech = tuple(sorted(acc_kw.items()))
    window = current_settings().window
    try:
        sols = _static_solutions(values, tuple(lm), target, schemes, window, mech)
    except InputError as exc:
        st.error(f"Cannot solve: {exc}", icon=":material/error:")
        return
    if not sols:
        return
    st.dataframe(pd.DataFrame(solution_rows(sols, target, unit)), hide_index=True,
                 width="stretch")
    # the notes (the only explanation of 'unreachable') as text under the table: a
    # fifth column was scrolled out of sight on a phone
    st.markdown(solution_notes(sols))
    _apply_buttons(sols)
    found = [s.epsilon for s in sols if s.epsilon is not None]
    lo = min([eps_now, *found]) / 10
    hi = max([eps_now, *found]) * 3
    grid = np.geomspace(max(lo, EPS_RANGE[0]), min(hi, EPS_RANGE[1]), 60)
    curves = _accuracy_curves(values, tuple(lm), target, schemes, window, mech, grid)
    fig_kw: dict[str, Any] = {"kind": target.kind, "current_epsilon": eps_now, "unit": unit,
              "target": target.probability if target.kind == "within" else target.bound,
              "solutions": {s.scheme: s.epsilon for s in sols}, "per": target.per}
    live_chart(memo_figure(content_key("choose_accuracy", grid, curves, fig_kw),
                           lambda: accuracy_figure(grid, curves, **fig_kw)),
               key="choose_accuracy_chart")
    st.caption("Exact: Laplace and Geometric error laws, Planar Laplace's Gamma(2) "
               "radius (Andrés et al. CCS 2013), mixed over the allocation's ε_t; a "
               "repeated value adds the data's change to the old noise. The smallest ε "
               "is found on a log grid (with the accuracy's maximum inside every cell "
               "when a repeated value makes it rise and fall) and refined by bisection; "
               "'all at once' is exact for Laplace and Geometric, a union bound for "
               "Planar Laplace.")
    for sentence in partial_ranges(sols):
        st.info(sentence, icon=":material/info:")


def _estimate_adaptive(target: AccuracyTarget, runs: int, need: int) -> None:
    """Simulate Adaptive's ε for the target (after the 'Estimate' click) and keep it."""
    if runs < need:
        st.error(f"{runs} runs cannot certify {target.probability:.1%} for "
                 f"{'each reading' if target.per == 'each' else 'all readings at once'}"
                 f" even if every release is within the bound: set 'Runs per ε (R)' "
                 f"to at least {need}.", icon=":material/error:")
        return
    bar = st.progress(0.0, text="Simulating Adaptive…")
    try:
        sol = solve_epsilon(values, lm, "adaptive", target, runs=runs, seed=None,
                            progress=lambda f: bar.progress(min(f, 1.0)), **acc_kw)
        st.session_state[K.ADAPTIVE_SOLUTION] = sol
    except InputError as exc:
        st.error(f"Cannot simulate Adaptive: {exc}", icon=":material/error:")
    bar.empty()


def _adaptive_box(target: AccuracyTarget) -> None:
    """Adaptive's ε by Monte Carlo, on request, with its Apply button."""
    with st.expander("Adaptive (Monte Carlo)"):
        st.caption("Adaptive decides from the noise it draws, so its accuracy is simulated: "
                   "R whole releases per ε, every reading's actual error measured, and the "
                   "target must hold for the 95 % one-sided confidence bound — Clopper–Pearson "
                   "on each reading's (or, for 'all at once', each release's) share within "
                   "the bound, a normal approximation for a typical reading. 'Each' and "
                   "'all at once' need more runs to certify a high probability (e.g. 59 for "
                   "95 %); on the 168-point demo 1,000 runs take about 7 s of computing.")
        st.slider("Runs per ε (R)", 10, 1000, key=K.W_ACC_RUNS, step=10)
        runs = int(st.session_state[K.W_ACC_RUNS])
        need = (min_adaptive_runs(target.probability)
                if target.kind == "within" and target.per != "typical" else 0)
        if st.button("Estimate Adaptive's ε", icon=":material/play_arrow:"):
            _estimate_adaptive(target, runs, need)
        sol = st.session_state.get(K.ADAPTIVE_SOLUTION)
        if sol is None:
            return
        if sol.epsilon is None:
            st.warning(f"Adaptive cannot reach it: {sol.reason}.", icon=":material/warning:")
        else:
            st.success(f"Adaptive reaches {sol.target.describe(unit)} from ε ≈ "
                       f"**{sol.epsilon:.3g}** ({sol.method}).",
                       icon=":material/check_circle:")
            st.button(f"Apply Adaptive, ε = {sol.epsilon:.3g}", on_click=_apply,
                      args=(sol.epsilon, "adaptive"), key="apply_adaptive")


@st.fragment
def _accuracy_tab() -> None:
    """The "Accuracy → ε" tab: its own widgets rerun only this tab (st.fragment);
    an Apply reruns the whole page, whose sidebar shows the new ε."""
    _follow_apply()
    target = _accuracy_target()
    _static_answers(target)
    _adaptive_box(target)


# only the open tab is computed and drawn (the tabs track which one is open, and a tab
# click reruns the page): an ε step computed the attacker's simulations (60 releases) and
# charts of tabs nobody was looking at
if tab_acc.open:
    with tab_acc:
        _accuracy_tab()


# ------------------------------------------------------------------ attacker
@st.cache_data(max_entries=32, show_spinner=False)
def _repeat_table(values: np.ndarray, lm: tuple, eps: float, window: int, mech: tuple) -> list:
    kw = dict(mech)
    out = []
    for s in ("uniform", "skip", "adaptive"):
        r = simulate_repeat_inference(values, list(lm), s, eps, window=window, runs=20,
                                      seed=None, **kw)
        out.append((s, r))
    return out


def _certainty(prior: float, events: list) -> None:
    """What the attacker's suspicion can grow to: the error when Δf does not cover the
    data's own landmark events (in bold red), otherwise the bound ε gives."""
    sentence = uncovered_event_sentence(events, current_settings().sensitivity, unit,
                                        eps_now, prior)
    if sentence is not None:
        st.error(sentence, icon=":material/error:")
    else:
        st.markdown("**" + certainty_sentence(eps_now, prior) + "**")


def _posterior_section(prior: float, plan_scheme: str, eps_t: np.ndarray,
                       events: list) -> None:
    """The certainty sentences and the posterior-against-ε chart (independent values and,
    under the session's correlation model, the largest landmark TPL)."""
    grid = np.geomspace(0.01, 10, 25)
    corr = None
    model, leak, note = cur.leakage(eps_t)
    _certainty(prior, events)
    if leak is not None and model is not None:  # leakage comes with its model
        spec = json.dumps(model.spec, sort_keys=True)
        # an estimated model: the worst over the smoothing range, and how it moves
        sweep = cached_sweep(spec, cur.key, eps_t, tuple(lm), model) \
            if is_estimated(model) else None
        tpl_now = float(np.max(sweep.worst if sweep is not None else leak["landmark TPL"]))
        corr = cached_posterior_curve(spec, cur.key, prior, grid, plan_scheme, cur.length,
                                      tuple(lm), current_settings().window,
                                      model).correlated
        name = (f"{conservative_name(model)}, estimated from this data: the worst over "
                f"smoothing {range_text(model.spec.get('smoothing'))}" if sweep is not None
                else model.short)
        st.markdown(certainty_sentence(tpl_now, prior, epsilon=eps_now, correlated=True)
                    + f" (model: {name}; change it on the Leakage page)")
        if sweep is not None:
            with st.expander("How landmark TPL moves with the model"):
                st.markdown(smoothing_table(sweep, leakage_target() or eps_now))
                st.caption("The chart's correlated curve is the model's own smoothing "
                           f"({model.spec.get('smoothing'):g}); the sentence above takes "
                           "the worst row.")
    elif note:
        st.caption(f"No correlation view: {note}")
    scheme = current_settings().scheme
    fig_in = (grid, posterior_bound(prior, grid), corr, prior, eps_now)
    live_chart(memo_figure(content_key("choose_posterior", *fig_in),
                           lambda: posterior_figure(*fig_in)),
               key="choose_posterior_chart")
    st.caption("Posterior bound p·e^x/(1 − p + p·e^x) for a privacy loss x (the Bayesian "
               "reading of differential privacy); under temporal correlation x is the "
               "largest landmark TPL (Cao et al. ICDE 2017 / TKDE 2018)"
               + (" of Uniform, Adaptive's starting allocation." if scheme == "adaptive"
                  else f" of {SCHEMES[scheme].label}."))


def _events_section(events: list, prior: float) -> None:
    """The data's own landmark events: what each changes and what that lets an attacker
    learn at the sidebar's Δf."""
    from lmdk_core.figures.common import data_labels

    st.header("What the landmark events change")
    st.dataframe(pd.DataFrame(event_rows(events, data_labels(cur.data), unit, prior)),
                 hide_index=True, width="stretch")
    total = sum(e.log_ratio for e in events)
    now = current_settings()
    st.caption(
        f"Each landmark event (a run of consecutive landmarks) changes its readings by "
        f"d_t, measured against the typical value at that time; released with noise "
        f"Lap(Δf/ε_t), the output is at most exp(Σ|d_t|·ε_t/Δf) times more likely with "
        f"the event than without it (Dwork & Roth, Thm 3.6). At Δf = "
        f"{now.sensitivity:g} {unit} all landmark events together give "
        f"{np.exp(min(total, 700)):,.3g}× (e^ε = {np.exp(eps_now):.3g}); landmark "
        "privacy promises at most e^ε only when every change is ≤ Δf. Computed on this "
        "data with the current allocation"
        + (" (Adaptive: its starting Uniform allocation)." if now.scheme == "adaptive"
           else "."))


def _repeat_section() -> None:
    """Which timestamps an attacker flags as landmarks from repeated or withheld values."""
    st.header("Which timestamps are landmarks?")
    try:
        table = _repeat_table(values, tuple(lm), eps_now, current_settings().window,
                              tuple(sorted(mech_kw.items())))
    except InputError as exc:
        st.error(f"Cannot simulate: {exc}", icon=":material/error:")
        return
    st.dataframe(pd.DataFrame(repeat_rows(table)), hide_index=True, width="stretch")
    for s, r in table:
        st.markdown(f"- **{SCHEMES[s].label}**: {r.sentence()}")
    st.caption("Simulated: 20 releases per scheme at the current ε; the attacker flags "
               "every value that repeats the previous one exactly (fresh noise never "
               "does) or is withheld. Dummy landmarks hide this pattern.")


def _averaging_chart(res, scheme: str) -> None:
    """The averaging attack's error against the days of releases, with its caption."""
    live_chart(averaging_figure(res.days, res.simulated_mean, res.simulated_p90,
                                res.rice_mean, res.estimates, largest_days=int(res.days[-1])),
               key="choose_averaging_chart")
    st.caption(
        "Each day the same routine is released with fresh Planar Laplace "
        "noise; the attacker averages the released points of the stay. 200 "
        "simulated attackers; the red crosses are the normal-limit (Rice) "
        "mean. "
        + (f"Points of this stay repeat an earlier point, so the estimate "
           f"converges to it, {res.offset_m:,.0f} m from the true place."
           if res.offset_m >= 1 else
           "Where a scheme repeats an earlier point at the stay (Skip), the "
           "estimate converges to that point instead.")
        + (" Adaptive is shown with its starting (Uniform) allocation."
           if scheme == "adaptive" else ""))


def _averaging_section() -> None:
    """A track: how well an attacker locates a stay point by averaging daily releases."""
    from lmdk_core.landmarks.discovery import track_stay_points

    st.header("Averaging a place over repeated releases")
    try:
        stays, stay_notes = track_stay_points(cur.track)
    except InputError as exc:
        stays, stay_notes = [], []
        st.caption(f"No stay points: {exc}")
    for note in stay_notes:
        st.caption(note)
    if not stays:
        return
    labels = [f"stay {i + 1}: {s.describe()}" for i, s in enumerate(stays)]
    i = st.selectbox("Place (a stay point of the track)", range(len(stays)),
                     format_func=labels.__getitem__)
    st.multiselect("Days of releases", [1, 3, 7, 14, 30, 90, 182, 365], key=K.W_ATT_DAYS)
    days = sorted(st.session_state[K.W_ATT_DAYS]) or [1]
    now = current_settings()
    scheme = now.scheme
    try:
        res = averaging_attack(cur.track.lat, cur.track.lon, lm, stays[i].timestamps, scheme=scheme,
                               epsilon=eps_now, radius=now.radius, days=days, window=now.window,
                               runs=200)
    except InputError as exc:
        st.error(f"Cannot simulate: {exc}", icon=":material/error:")
        return
    st.markdown("**" + res.sentence() + "**")
    if not res.withheld:
        _averaging_chart(res, scheme)


@st.fragment
def _attacker_tab() -> None:
    """The "What an attacker learns" tab: its own widgets rerun only this tab (st.fragment);
    an Apply reruns the whole page, whose sidebar shows the new ε."""
    _follow_apply()
    st.slider("Attacker's prior suspicion (%)", 1.0, 50.0, key=K.W_ATT_PRIOR, step=1.0,
              help="How likely the attacker thinks a statement about the landmarks is "
                   "before seeing the release (e.g. 'a landmark reading exceeded 3 kWh').")
    prior = float(st.session_state[K.W_ATT_PRIOR]) / 100
    now = current_settings()
    plan_scheme = planning_scheme(now.scheme)
    eps_t = allocate(plan_scheme, cur.length, lm, eps_now, window=now.window)
    events = []
    if not cur.is_track and lm:
        from lmdk_core.decision.sensitivity import landmark_events

        events = landmark_events(cur.series, lm, eps_t, now.sensitivity)
    _posterior_section(prior, plan_scheme, eps_t, events)
    if events:
        _events_section(events, prior)
    _repeat_section()
    if cur.is_track:
        _averaging_section()


if tab_att.open:
    with tab_att:
        _attacker_tab()


# ------------------------------------------------------------------ repeated releases
@st.fragment
def _repeated_tab() -> None:
    """The "Repeated releases" tab: its own widgets rerun only this tab (st.fragment);
    an Apply reruns the whole page, whose sidebar shows the new ε."""
    _follow_apply()
    c1, c2, c3 = st.columns(3)
    c1.number_input("Releases in the schedule (k)", min_value=1, max_value=100_000, step=1,
                    key=K.W_REP_RELEASES, help="e.g. 52 weekly releases of the same people")
    c2.number_input("Target total ε over the schedule", min_value=1e-4, max_value=1e4,
                    key=K.W_REP_TARGET, format="%.4g")
    c3.selectbox("δ' (advanced composition)", [1e-9, 1e-6, 1e-5, 1e-3], key=K.W_REP_DELTA,
                 format_func=lambda d: f"{d:g}")
    k = int(st.session_state[K.W_REP_RELEASES])
    d = float(st.session_state[K.W_REP_DELTA])
    sched = schedule_summary(eps_now, k, d)
    st.markdown(f"**With ε = {eps_now:g} per release and {k} releases:**")
    for s in sched.sentences():
        st.markdown(f"- {s}")
    per = per_release_epsilon(float(st.session_state[K.W_REP_TARGET]), k, d)
    st.markdown(
        f"**For a total of {float(st.session_state[K.W_REP_TARGET]):g} over the schedule**, each "
        f"release may spend ε = **{per['epsilon']:.4g}** ({per['best']} composition; basic "
        f"{per['basic']:.4g}, advanced {per['advanced']:.4g} with δ' = {d:g}).")
    st.button(f"Apply ε = {per['epsilon']:.3g} per release", on_click=_apply,
              args=(per["epsilon"],), key="apply_schedule")
    st.caption("Basic composition: k·ε (Dwork et al. TCC 2006). Advanced composition: "
               "√(2k·ln(1/δ'))·ε + k·ε·(e^ε − 1), with probability 1 − δ' (Dwork, "
               "Rothblum, Vadhan FOCS 2010). Landmark privacy protects the landmarks of one "
               "release together; a landmark that recurs in every release is one fact seen "
               "k times and composes across releases.")


if tab_rep.open:
    with tab_rep:
        _repeated_tab()
