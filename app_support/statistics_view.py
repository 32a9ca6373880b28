"""The Population page's Statistics view: a statistic of the population per time window
released with landmark privacy for every user (``lmdk_core.aggregate``, docs/aggregate.md).

Widgets and rendering only: the release, the levels and the files come from the engine;
the figures from :mod:`lmdk_core.figures.aggregate`. The true statistic is drawn on
screen only (marked CONFIDENTIAL) and leaves the app only in the CONFIDENTIAL audit.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings
from app_support.live_chart import live_chart
from app_support.session import keep_page_state
from lmdk_core.aggregate.cells import parse_bbox
from lmdk_core.aggregate.levels import expected_error_curves, landmark_share
from lmdk_core.aggregate.output_files import (
    AUDIT_LABEL,
    audit_frame,
    grids_declared,
    header_lines,
    publishable_frame,
)
from lmdk_core.aggregate.population_release import (
    DEFAULT_W,
    AggregateRequest,
    aggregate_population,
)
from lmdk_core.aggregate.statistics import statistic
from lmdk_core.aggregate.temporal_leakage import aggregate_leakage, stay_matrix
from lmdk_core.aggregate.windows import parse_width
from lmdk_core.figures.aggregate import (
    cell_map_figure,
    level_error_figure,
    statistic_time_figure,
)
from lmdk_core.files.export import confidential_filename, publishable_filename
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import counted

__all__ = ["render_statistics"]

WINDOWS = {"1h": "1 hour", "30min": "30 minutes", "3h": "3 hours", "1d": "1 day"}
LANDMARKS = {"personal": "Each user's own (flags), bounded by k",
             "public": "Public landmark times (common to everyone)",
             "none": "None"}
SCHEMES = {"uniform": "Uniform", "skip": "Skip", "adaptive": "Adaptive (public, sum/count)",
           "event": "Event-level", "w-event": "w-event", "user": "User-level"}
NOISE = {"exact": "Exact (floating-point safe)", "fast": "Fast (numpy, seeded)"}
#: the ε grid of the level comparison
EPSILONS = np.logspace(-2, 1, 41)
#: kept results (one per population and settings)
KEPT = 4


def _defaults(pop: dict) -> None:
    """Sensible first settings for the population (declared bounds a privacy officer
    would state for household meters; a cell size for a 4 km square)."""
    keep_page_state({
        K.ST_WINDOW: "1h", K.ST_STAT: "sum", K.ST_LO: 0.0, K.ST_HI: 3.0, K.ST_CELL: 500.0,
        K.ST_LM_KIND: "personal" if "landmark" in pop["frame"] else "none", K.ST_K: 5,
        K.ST_OVER_K: "drop", K.ST_TIMES: "", K.ST_SCHEME: "uniform", K.ST_NOISE: "exact",
        K.ST_STAY: 0.0})
    if st.session_state.get(K.ST_GRIDS_FOR) != pop["key"]:  # a new population: its grids
        start, end, box = pop.get("grids", ("", "", ""))
        st.session_state.update({K.ST_START: start, K.ST_END: end, K.ST_BBOX: box,
                                 K.ST_GRIDS_FOR: pop["key"]})


def _settings_widgets(pop: dict) -> None:
    track = pop["kind"] == "track"
    c1, c2, c3 = st.columns(3)
    c1.selectbox("Window", list(WINDOWS), key=K.ST_WINDOW, format_func=WINDOWS.__getitem__)
    if track:
        c2.number_input("Cell size (metres)", min_value=50.0, max_value=50_000.0, step=50.0,
                        format="%.0f", key=K.ST_CELL,
                        help="Users per square cell per window; each user in the cell of "
                             "their first fix of the window.")
    else:
        c2.radio("Statistic", ["sum", "mean", "count"], key=K.ST_STAT, horizontal=True,
                 help="Per window, of each user's mean reading clamped to the declared "
                      "bounds (one contribution per user per window).")
        b1, b2 = c3.columns(2)
        b1.number_input(f"Declared LO {pop['unit']}".strip(), step=0.5, key=K.ST_LO,
                        help="Readings below are clamped to LO: a bound you state, not one "
                             "read from the data.")
        b2.number_input(f"Declared HI {pop['unit']}".strip(), step=0.5, key=K.ST_HI)
    g1, g2, g3 = st.columns(3)
    grid_help = ("A public setting you declare, as the windows' width: the file says "
                 "'declared'. Left empty, it is read from the data, and the release is "
                 "exploratory, not publishable.")
    g1.text_input("Declared period start", key=K.ST_START, placeholder="2024-04-01T00:00",
                  help=grid_help)
    g2.text_input("Declared period end (exclusive)", key=K.ST_END,
                  placeholder="2024-04-15T00:00", help=grid_help)
    if track:
        g3.text_input("Declared map box: south, west, north, east", key=K.ST_BBOX,
                      placeholder="48.87, 2.33, 48.906, 2.385", help=grid_help)
    d1, d2, d3 = st.columns(3)
    d1.radio("Landmarks", list(LANDMARKS), key=K.ST_LM_KIND, format_func=LANDMARKS.get)
    kind = st.session_state[K.ST_LM_KIND]
    if kind == "personal":
        d2.number_input("k: landmark windows per user (declared)", min_value=0,
                        max_value=10_000, step=1, key=K.ST_K,
                        help="Every window gets ε/(k+1); a user with more landmark windows "
                             "follows the rule beside.")
        d2.radio("Users with more than k", ["drop", "refuse"], key=K.ST_OVER_K,
                 horizontal=True,
                 format_func={"drop": "drop extra landmark windows",
                              "refuse": "leave the user out"}.get)
    elif kind == "public":
        d2.text_input("Landmark times (comma-separated)", key=K.ST_TIMES,
                      placeholder="2024-04-05T18:00, 2024-04-06T20:00",
                      help="Moments common to everyone (a storm, a festival): their windows "
                           "are the landmarks of every user.")
    d3.selectbox("Scheme", list(SCHEMES), key=K.ST_SCHEME, format_func=SCHEMES.__getitem__)
    d3.radio("Noise", list(NOISE), key=K.ST_NOISE, format_func=NOISE.get, horizontal=True)


def _request(pop: dict) -> AggregateRequest:
    ss = st.session_state
    track = pop["kind"] == "track"
    stat = (statistic("cells") if track else
            statistic(ss[K.ST_STAT], (float(ss[K.ST_LO]), float(ss[K.ST_HI]))))
    kind = ss[K.ST_LM_KIND]
    times = None
    if kind == "public":
        times = tuple(t.strip() for t in str(ss[K.ST_TIMES]).split(",") if t.strip())
        if not times:
            raise InputError("type at least one public landmark time, or choose another "
                             "kind of landmarks")
    personal = kind == "personal"
    if personal and "landmark" not in pop["frame"]:
        raise InputError("this population has no landmark flags: choose public landmark "
                         "times or none")
    start, end = (str(ss[K.ST_START]).strip() or None), (str(ss[K.ST_END]).strip() or None)
    box = str(ss[K.ST_BBOX]).strip() if track else ""
    s = current_settings()
    return AggregateRequest(
        statistic=stat, width=parse_width(ss[K.ST_WINDOW]), start=start, end=end,
        bbox=parse_bbox(box) if box else None,
        epsilon=s.epsilon, scheme=ss[K.ST_SCHEME],
        cell_size=float(ss[K.ST_CELL]) if track else None,
        w=s.window if ss[K.ST_SCHEME] == "w-event" else None,
        landmark_times=times, k=int(ss[K.ST_K]) if personal else None,
        landmark_flags=personal, over_k=ss[K.ST_OVER_K], noise=ss[K.ST_NOISE],
        seed=s.seed if ss[K.ST_NOISE] == "fast" else None)


def _result(pop: dict, req: AggregateRequest):
    """The release for these settings, made once and kept (exact noise is not seeded:
    a rerun must not redraw it)."""
    key = json.dumps([pop["key"], repr(req)], default=str)
    kept: dict = st.session_state.setdefault(K.ST_RESULTS, {})
    if key not in kept:
        kept[key] = aggregate_population(pop["frame"], pop["time_kind"], req)
        while len(kept) > KEPT:
            kept.pop(next(iter(kept)))
    return kept[key]


def _verdicts(result) -> None:
    users = result.partial.users
    n = len(users)
    m = st.columns(5)
    m[0].metric("Windows × cells", f"{result.spec.windows.count:,} × {result.spec.n_cells:,}")
    eps = result.release.allocation[result.release.published]
    m[1].metric("ε_t", f"{eps[0]:.4g}" if eps.size and np.all(eps == eps[0]) else "varies",
                help="The budget of every released window (public: it follows from ε and "
                     "k or the public landmarks).")
    m[2].metric("Private users", f"{int(users['landmark_private'].sum()):,}/{n:,}",
                help="Every user verified on their own contributions: their landmark "
                     "windows plus any one other window spend at most ε.")
    m[3].metric("Dropped (CONFIDENTIAL)", f"{int(users['dropped'].sum()):,}",
                help="CONFIDENTIAL. Contributions of users with more than k landmark "
                     "windows (or every landmark contribution under Skip) left out.")
    m[4].metric("Users refused", f"{int(users['refused'].sum()):,}", help="CONFIDENTIAL.")
    if result.publishable:
        st.success(f"Landmark-private for every user: {result.verdict.summary()}.",
                   icon=":material/verified_user:")
    else:
        st.error(f"NOT landmark-private for {counted(result.not_private, 'user')} "
                 f"({result.verdict.summary()}): no publishable file. Choose Uniform or "
                 "Skip, or raise k.", icon=":material/gpp_bad:")


@st.cache_data(show_spinner=False, max_entries=8)
def _leakage(allocation: bytes, kind: str, k: int | None, windows: tuple[int, ...],
             cells: int, stay: float):
    """Temporal leakage of the plan's public budgets under the declared stay model."""
    from lmdk_core.aggregate.plan import LandmarkSetting

    setting = LandmarkSetting(kind=kind, windows=np.array(windows, dtype=int), k=k)
    return aggregate_leakage(np.frombuffer(allocation), setting, stay_matrix(cells, stay))


def _temporal_leakage(result) -> None:
    """Tracks: TPL of the release under a declared model of how users move between cells
    (Cao et al., ICDE 2017), beside the verdict."""
    spec, plan = result.spec, result.plan
    if spec.cells is None or plan.scheme == "adaptive":
        return
    with st.expander("Temporal correlation: what an attacker who knows how people move "
                     "learns", expanded=False):
        st.slider("Declared model: chance that a user stays in the same cell from one "
                  "window to the next", 0.0, 0.99, step=0.01, key=K.ST_STAY,
                  help="Otherwise the user moves to any cell with equal chance. A public "
                       "model you state (Cao et al., ICDE 2017), never one counted from "
                       "the data. 0 = windows independent.")
        stay = float(st.session_state[K.ST_STAY])
        with st.spinner("Computing the leakage…"):
            leak = _leakage(np.asarray(plan.allocation, dtype=float).tobytes(),
                            spec.landmarks.kind, spec.landmarks.k,
                            tuple(int(i) for i in spec.landmarks.windows), spec.n_cells,
                            stay)
        c1, c2 = st.columns(2)
        c1.metric("Largest TPL of one window", f"{leak.max_tpl:.3g}")
        c2.metric("Landmark TPL" + (" (bound for any k landmark windows)" if leak.bound
                                    else ""), f"{leak.landmark_tpl:.3g}")
        if leak.landmark_tpl <= spec.epsilon + 1e-12:
            st.success(f"Under this model the landmark leakage stays within ε = "
                       f"{spec.epsilon:g}.", icon=":material/verified_user:")
        else:
            st.warning(f"Under this model an attacker who knows how users move learns up "
                       f"to {leak.landmark_tpl:.3g} > ε = {spec.epsilon:g} about a user's "
                       "landmark windows: lower ε, or publish coarser windows.",
                       icon=":material/warning:")


def _charts(pop: dict, result) -> None:
    spec, rel = result.spec, result.release
    labels = spec.windows.labels()
    unit = pop["unit"] if spec.cells is None else "users"
    if spec.cells is None:
        title = f"Released {spec.statistic.kind} per window, 95 % interval"
        live_chart(statistic_time_figure(labels, rel.released[:, 0], rel.low[:, 0], rel.high[:, 0],
                                         result.truth[:, 0], title=title, unit=unit),
                   key="st_fig_time")
    else:
        lat, lon = spec.cells.centres()
        order = np.argsort(-np.nansum(rel.released, axis=0))  # released data only
        names = {int(c): f"cell {int(c)} ({lat[c]:.4f}, {lon[c]:.4f})" for c in order}
        if st.session_state.get(K.ST_CELL_PICK) not in names:
            st.session_state[K.ST_CELL_PICK] = int(order[0])
        st.selectbox("Cell (busiest released first)", list(names), key=K.ST_CELL_PICK,
                     format_func=names.__getitem__)
        c = int(st.session_state[K.ST_CELL_PICK])
        live_chart(statistic_time_figure(labels, rel.released[:, c], rel.low[:, c],
                                         rel.high[:, c], result.truth[:, c],
                                         title=f"Users in {names[c]} per window, 95 % interval",
                                         unit=unit), key="st_fig_time")
        if st.session_state.get(K.ST_WINDOW_PICK) not in labels:
            st.session_state[K.ST_WINDOW_PICK] = labels[int(np.argmax(
                np.nansum(rel.released, axis=1)))]
        st.select_slider("Window on the map", labels, key=K.ST_WINDOW_PICK)
        t = labels.index(st.session_state[K.ST_WINDOW_PICK])
        live_chart(cell_map_figure(lat, lon, rel.released[t],
                                   f"Released users per cell, {labels[t]}"),
                   key="st_fig_map")
    st.caption("Dashed grey: the TRUE statistic — CONFIDENTIAL, shown on this screen only, "
               "never in the publishable download.")


def _levels(pop: dict, result) -> None:
    spec = result.spec
    unit = pop["unit"] if spec.cells is None else "users"
    w = current_settings().window if st.session_state[K.ST_SCHEME] == "w-event" else min(
        DEFAULT_W, spec.windows.count)
    curves = expected_error_curves(spec.statistic, spec.windows.count, w,
                                   landmark_share(result.release, spec.epsilon), EPSILONS)
    measured = {lv.level: lv.measured_error for lv in result.levels}
    if all(np.isnan(v).all() for v in curves.values()):
        st.caption("The mean has no closed-form expected error: the table gives the "
                   "measured error of each level.")
    else:
        live_chart(level_error_figure(EPSILONS, curves, spec.epsilon, measured, unit),
                   key="st_fig_levels")
    st.dataframe(pd.DataFrame([{"level": lv.level, "ε_t": lv.epsilon_t,
                                "expected |error|": lv.expected_error,
                                "measured |error| (CONFIDENTIAL)": lv.measured_error}
                               for lv in result.levels]),
                 hide_index=True, key="st_levels_table")


def _downloads(result, noise: str, w: int | None) -> None:
    from lmdk_core.report.aggregate_note import render_aggregate_note

    if result.publishable and not grids_declared(result):
        st.warning("**Exploratory, not publishable:** the period or the map box was read "
                   "from the data, so the files' grid depends on the raw data. Declare the "
                   "period (and the map box) above to publish.", icon=":material/warning:")
    d1, d2 = st.columns(2)
    if result.publishable:
        seeded = noise == "fast" and current_settings().reproducible
        lines = header_lines(result, noise, seeded)
        text = "".join(f"# {line}\n" for line in lines) + publishable_frame(result).to_csv(
            index=False)
        d1.download_button("Released statistics (CSV)", text, key="st_dl_release",
                           file_name=publishable_filename("population_statistics", "csv"),
                           mime="text/csv", icon=":material/download:",
                           help="Publishable: window, cell, released value and its 95 % "
                                "interval under the public settings.")
        d1.download_button("Public release note (HTML)",
                           render_aggregate_note(result, noise, seeded, w),
                           key="st_dl_note",
                           file_name=publishable_filename("population_note", "html"),
                           mime="text/html", icon=":material/description:",
                           help="For readers of the statistics: the public settings, the "
                                "declared k, the noise and the expected error of each "
                                "protection level; nothing from the raw data.")
        with d1.expander("What the publishable header says"):
            st.code("\n".join(lines), language=None)
    with d2.expander(":material/lock: CONFIDENTIAL — audit"):
        st.caption(AUDIT_LABEL + ".")
        st.download_button("CONFIDENTIAL — true statistics and budgets (CSV)",
                           f"# {AUDIT_LABEL}\n" + audit_frame(result).to_csv(index=False),
                           key="st_dl_audit",
                           file_name=confidential_filename("statistics_audit", "csv"),
                           mime="text/csv", icon=":material/lock:")
        st.download_button("CONFIDENTIAL — per-user verdicts (CSV)",
                           f"# {AUDIT_LABEL}\n" + result.partial.users.to_csv(index=False),
                           key="st_dl_users",
                           file_name=confidential_filename("statistics_users", "csv"),
                           mime="text/csv", icon=":material/lock:")


def render_statistics(pop: dict) -> None:
    """The Statistics view of the population ``pop`` (the page's population dict)."""
    _defaults(pop)
    st.header("2. A statistic per window")
    st.caption("What a city or a utility publishes: users per map cell per hour, a "
               "neighbourhood's hourly total — released with landmark privacy for every "
               "user at the sidebar's ε (Katsomallos et al., CODASPY 2022; docs/aggregate.md). "
               "Each user contributes once per window; with each user's own landmarks, "
               "every window gets ε/(k+1) for a declared k.")
    _settings_widgets(pop)
    try:
        req = _request(pop)
        result = _result(pop, req)
    except InputError as exc:
        st.error(f"Cannot release this statistic: {exc}.", icon=":material/error:")
        return
    st.header("3. Verdict over the users")
    _verdicts(result)
    _temporal_leakage(result)
    st.header("4. Released over time")
    _charts(pop, result)
    st.header("5. Levels side by side at the same ε")
    _levels(pop, result)
    st.header("6. Downloads")
    _downloads(result, req.noise, req.w)
