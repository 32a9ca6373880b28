"""Population: one configuration released for every user of a long table, in-process."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings
from app_support.components import render_population_utility
from app_support.live_chart import live_chart
from app_support.population_session import (
    NOISE,
    SOURCES,
    batch_command,
    batch_config,
    batch_settings,
    cancel_release,
    current_population,
    demo_parquet,
    estimate_model,
    open_user,
    pop_region,
    population_counts,
    population_plans,
    population_sensitivity,
    release_key,
    request_release,
    run_release,
    sampler,
)
from app_support.report_button import TEACHING_HELP
from app_support.session import (
    correlation_spec,
    keep_page_state,
    leakage_target,
)
from app_support.statistics_view import render_statistics
from lmdk_core.engine.allocation import SCHEMES
from lmdk_core.figures.population import (
    error_figure,
    landmark_count_figure,
    short_number,
    tpl_figure,
    verdict_figure,
)
from lmdk_core.files.export import (
    confidential_filename,
    mechanism_text,
    publishable_filename,
    teaching_filename,
    teaching_note,
)
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import agree, counted
from lmdk_core.foundation.quoting import quote_user_text, shorten_user_text
from lmdk_core.foundation.setting_limits import LIMITS
from lmdk_core.landmarks.discovery import DEFAULT_DEVIATION_K, DEFAULT_DEVIATION_WINDOW
from lmdk_core.leakage.model import MAX_LEAKAGE_STATES
from lmdk_core.mechanisms.exact_planar import PlanarRegion
from lmdk_core.population.dask_driver import AUDIT_LABEL
from lmdk_core.population.in_process import (
    NO_LEAKAGE,
    audit_csv,
    batch_config_is_confidential,
    batch_config_json,
    publishable_csv,
    verdict_colours,
)
from lmdk_core.population.landmarks import DiscoverySettings
from lmdk_core.population.partition import UNDECLARED_K_LABEL
from lmdk_core.population.preview import preview_table

keep_page_state({
    K.POP_SOURCE: "demo_series", K.POP_NOISE: "exact", K.POP_LM_SOURCE: "flags",
    K.POP_VIEW: "users", K.POP_REGION: "", K.POP_DECLARE_K: True,
    K.POP_DEV_WINDOW: int(st.session_state.get(K.DEV_WINDOW, DEFAULT_DEVIATION_WINDOW)),
    K.POP_DEV_WINDOW_AUTO: bool(st.session_state.get(K.DEV_WINDOW_AUTO, True)),
    K.POP_DEV_K: float(st.session_state.get(K.DEV_K, DEFAULT_DEVIATION_K)),
})


# ---------------------------------------------------------------- page
st.title(":material/groups: Population")
st.caption(
    "Tune a view on one person, then release a whole population with the same settings: "
    "every user gets the sidebar's ε, scheme and mechanism on their own landmarks, with "
    "their own independent noise (landmark privacy, Katsomallos et al., CODASPY 2022). "
    "See how the verdicts, the leakage and the error spread over the users, open any "
    "user on the Timeline or the Map, and get the command that runs the same release "
    "on the full dataset.")

st.header("1. Population")
st.radio("Population", list(SOURCES), key=K.POP_SOURCE, format_func=SOURCES.get,
         horizontal=True, label_visibility="collapsed")
pop = current_population()
if pop is None:
    st.info("Upload a long table and choose its columns to continue.", icon=":material/info:")
    st.stop()
frame = pop["frame"]
kind = pop["kind"]
n_users, n_repeat, n_repeat_users = population_counts(pop["key"], frame)
flagged = "landmark" in frame
shown = pop["name"] if pop["key"].startswith("demo") else quote_user_text(pop["name"])
st.caption(f"**{shown}**: {counted(n_users, 'user')}, {counted(len(frame), 'row')} "
           f"({'values' if kind == 'series' else 'GPS points'}); "
           + ("landmarks flagged in the file." if flagged else "no landmark flags."))
if n_repeat:  # the repeated-timestamp rule (docs/data-formats.md), as on the Map
    st.caption(f"{counted(n_repeat, 'row')} of {counted(n_repeat_users, 'user')} "
               f"{agree(n_repeat, 'has', 'have')} the same time as the row before "
               f"{agree(n_repeat, 'it', 'them')}: kept, each its own timestamp, in file order "
               "(as on the Map and in "
               "`lmdk geo-release`).")

st.radio("View", ["users", "statistics"], key=K.POP_VIEW, horizontal=True,
         format_func={"users": "Each user's own release",
                      "statistics": "Statistics per window (counts, totals)"}.get,
         help="Statistics: one value per window (and map cell) for the whole population, "
              "with landmark privacy for every user — what organisations publish.")
if st.session_state[K.POP_VIEW] == "statistics":
    render_statistics(pop)
    st.stop()

st.header("2. Landmarks and release settings")
c1, c2 = st.columns([1, 1])
if flagged:
    c1.radio("Landmarks", ["flags", "discover"], key=K.POP_LM_SOURCE, horizontal=True,
             format_func={"flags": "From the flag column",
                          "discover": "Discovered per user"}.get)
use_flags = flagged and st.session_state[K.POP_LM_SOURCE] == "flags"
if not use_flags:
    with c1.container(border=True):
        if kind == "series":
            st.caption("Per user: values more than k robust standard deviations from a "
                       "rolling median, daily/weekly profile removed (the Timeline's "
                       "Suggest).")
            d1, d2 = st.columns(2)
            d1.toggle("Window from each user's sampling interval", key=K.POP_DEV_WINDOW_AUTO,
                      help="A day of readings (24 to 1,440, at most a quarter of the "
                           "user's series); off: the window below.")
            d1.number_input("Window (timestamps)",
                            min_value=LIMITS["spike_window"].low,
                            max_value=LIMITS["spike_window"].high,
                            step=1, disabled=bool(st.session_state[K.POP_DEV_WINDOW_AUTO]),
                            key=K.POP_DEV_WINDOW)
            d2.number_input("k (robust standard deviations)",
                            min_value=LIMITS["spike_k"].low,
                            max_value=LIMITS["spike_k"].high,
                            step=0.5, key=K.POP_DEV_K)
        else:
            st.caption("Per user: stay points (the Map's suggestions, Li et al. 2008); "
                       "each stay is released as ONE landmark event, from its centroid, "
                       "whatever its number of fixes (docs/stays.md).")
            d1, d2 = st.columns(2)
            d1.number_input("Stay radius (metres)",
                            min_value=LIMITS["stay_distance"].low,
                            max_value=LIMITS["stay_distance"].high,
                            step=10.0, format="%.0f", key=K.W_STAY_DISTANCE)
            d2.number_input("Stay duration (minutes)",
                            min_value=LIMITS["stay_minutes"].low,
                            max_value=LIMITS["stay_minutes"].high,
                            step=5.0, format="%.0f", key=K.W_STAY_MINUTES)
s = current_settings()
discovery = DiscoverySettings(
    window=(None if st.session_state.get(K.POP_DEV_WINDOW_AUTO, True)
            else int(st.session_state[K.POP_DEV_WINDOW])),
    k=float(st.session_state[K.POP_DEV_K]),
    distance_m=s.stay_distance, duration_min=s.stay_minutes)
with c2:
    if kind == "series":
        st.radio("Noise", list(NOISE), key=K.POP_NOISE, format_func=NOISE.get, horizontal=True,
                 help="Exact: discrete Laplace noise, resistant to floating-point attacks "
                      "(Mironov, CCS 2012) — the publishable file's. Fast: numpy's, for "
                      "exploring (reproducible in the teaching mode).")
    else:
        st.number_input("Protection radius r (metres)", min_value=LIMITS["radius"].low,
                        max_value=LIMITS["radius"].high, step=25.0, format="%.0f",
                        key=K.W_RADIUS, help="The Map page's setting (Planar Laplace).")
        region_text = st.text_input(
            "Declared region for the publishable file: LAT,LON,KM", key=K.POP_REGION,
            placeholder="e.g. 48.86,2.35,50",
            help="The public area holding every track (centre in degrees, radius in km, at "
                 "most 2000), declared, never computed from the data. With it the tracks "
                 "are released with exact Planar Laplace on its grid (docs/noise.md); "
                 "without it with numpy's, for exploring only.")
        if region_text.strip() and pop_region() is None:
            try:
                PlanarRegion.parse(region_text)
            except InputError as exc:
                st.error(f"Region not used: {exc}.")
    mech = (mechanism_text(s.mechanism, sensitivity=population_sensitivity(pop))
            if kind == "series" else mechanism_text("planar_laplace", radius=s.radius))
    st.caption(f"From the sidebar: ε = {s.epsilon:g} per user, "
               f"{SCHEMES[s.scheme].label}, {mech}"
               + (" (Δf declared with the upload; to change it, load the population again "
                  "with another Δf)" if kind == "series" and "sensitivity" in pop else "")
               + ".")

with c2:
    st.checkbox(f"Declare k = {s.max_landmarks} for every user (the sidebar's "
                "bound on landmark events)", key=K.POP_DECLARE_K,
                help="Uniform and Adaptive then spend ε/(k+1) for every user whatever their "
                     "landmarks, so the file is publishable; a user with more landmark "
                     "events than k refuses the release (raise k, a public bound, or mark "
                     "fewer). Off: each user's scale follows their own count, and the file "
                     "is exploratory.")
settings = batch_settings(pop, discovery)
scale_unit = settings.radius if kind == "track" else settings.sensitivity
try:
    settings.make_mechanism()
    plans = population_plans(pop, discovery, use_flags)
    preview = preview_table(plans, epsilon=settings.epsilon, scheme=settings.scheme,
                            window=s.window, mechanism=settings.mechanism, scale_unit=scale_unit,
                            max_landmarks=settings.max_landmarks)
except InputError as exc:
    st.error(f"Cannot release this population: {exc}.", icon=":material/error:")
    st.stop()
alpha = leakage_target()
spec = correlation_spec(kind)
unit = pop["unit"] if kind == "series" else "m"

st.header("3. At these settings, before any noise")
st.caption("Answered at once for every ε, scheme and mechanism: each user's planned "
           "budget ε_t, the verifier's verdict on it (all landmarks plus any one timestamp "
           "spend at most ε) and the expected error at that budget. No noise is drawn; "
           "the measured error and the landmark TPL come with the release below."
           + (" Adaptive: its starting allocation (Uniform, ε/(|L|+1)); the release "
              "skips and redistributes from there, and the verifier checks what it spent."
              if settings.scheme == "adaptive" else ""))
expected = pd.to_numeric(preview["expected_error"], errors="coerce").to_numpy(dtype=float)
render_population_utility(preview["utility"].astype(str).tolist(), expected, unit)
if settings.max_landmarks is not None:
    over = int(preview["utility"].astype(str).str.startswith("refused").sum())
    if over:
        st.error(f"**{counted(over, 'user has', 'users have')} more landmark events than the "
                 f"declared k = {settings.max_landmarks}:** the release would be refused. "
                 "Raise k in the sidebar (a public bound, the same for everyone), mark "
                 "fewer landmarks, or untick the declared k (the file is then exploratory).",
                 icon=":material/error:")
p = st.columns(4)
p[0].metric("Users", f"{len(preview):,}")
p[1].metric("Planned: pass the verifier", f"{int(preview['landmark_private'].sum()):,}",
            help="The verifier's verdict on each user's planned allocation.")
p[2].metric("Median landmarks per user", f"{float(preview['n_landmarks'].median()):g}")
p[3].metric("Median expected error",
            f"{short_number(float(np.nanmedian(expected)))} {unit}".strip()
            if np.isfinite(expected).any() else "—")

st.header("4. Release the population")
key = release_key(pop, settings, use_flags)
results: dict = st.session_state.setdefault(K.POP_RESULTS, {})
if st.session_state.get(K.POP_REQUEST) == key and key not in results:
    running = st.empty()  # Cancel goes once the release is done (as on Compare)
    running.button("Cancel", key="pop_cancel", on_click=cancel_release,
                   icon=":material/cancel:",
                   help="Stops the release; the result shown before (if any) is kept.")
    try:
        run_release(pop, settings, use_flags, key)
    except InputError as exc:
        st.session_state[K.POP_REQUEST] = None
        st.error(f"Cannot release this population: {exc}.", icon=":material/error:")
        st.stop()
    finally:
        running.empty()
elif key not in results:
    st.button("Release the population", key="pop_release", type="primary",
              on_click=request_release, args=(key,), icon=":material/play_arrow:",
              help="Draws every user's noise and computes the verifier's verdict on what "
                   "each release spent, the landmark TPL and the measured error.")
# a Cancel that reached the server after the release had finished cancelled nothing
if st.session_state.get(K.POP_CANCELLED) and key not in results:
    st.info("Release cancelled: nothing was drawn for these settings.",
            icon=":material/cancel:")
shown = results.get(key)
current = shown is not None
if shown is None:
    last = results.get(st.session_state.get(K.POP_LAST))
    if last is not None and last["pop"] == pop["key"]:
        shown = last
if shown is None:
    st.caption("Nothing released yet at these settings.")
else:
    st.session_state[K.POP_RESULT] = (shown["key"], shown["result"])
    if current:
        st.success(f"Released at the current settings: {shown['label']}.",
                   icon=":material/check_circle:")
    else:
        st.warning(f"The release below is for OTHER settings ({shown['label']}), not the "
                   "current ones: press **Release the population** to release at these. "
                   "Its downloads are offered only for a release at the current settings.",
                   icon=":material/history:")

if shown is not None:
    result, rs = shown["result"], shown["settings"]
    audit = result.audit
    colours = verdict_colours(audit, rs.epsilon, alpha)
    st.header("5. Over all users (released)")
    render_population_utility(audit["utility"].astype(str).tolist(),
                              pd.to_numeric(audit["expected_error"], errors="coerce").to_numpy(
                                  dtype=float), unit)
    m = st.columns(5)
    m[0].metric("Released users", f"{len(audit):,}")
    m[1].metric("Pass the verifier", f"{int(audit['landmark_private'].sum()):,}",
                help="The verifier's verdict on each user's spent allocation: all landmarks "
                     "plus any one timestamp spend at most ε.")
    m[2].metric("Amber (correlation)", f"{int(np.sum(colours == 'amber')):,}",
                help="Landmark-private if values were independent, but the largest landmark "
                     "TPL under the session's correlation model exceeds "
                     + ("ε." if alpha is None else f"α = {alpha:g}."))
    n_grey = int(np.sum(colours == NO_LEAKAGE))
    if n_grey:  # never counted as green or amber: say why (issue 25)
        why = audit.loc[colours == NO_LEAKAGE, "leakage_note"].astype(str).value_counts()
        st.warning(f"{counted(n_grey, 'user')} passed the verifier but "
                   f"{agree(n_grey, 'has', 'have')} "
                   f"no landmark TPL, so no leakage verdict (counted apart, grey): "
                   + "; ".join(f"{n} × {quote_user_text(reason, 200)}" for reason, n in
                               why.head(3).items()),
                   icon=":material/help:")
    m[3].metric("Median |L|", f"{float(audit['n_landmarks'].median()):g}")
    m[4].metric("Median MAE", f"{short_number(float(audit['mae'].median()))} {unit}".strip())
    g1, g2 = st.columns(2)
    live_chart(landmark_count_figure(audit), key="pop_fig_lm", where=g1)
    live_chart(verdict_figure(colours), key="pop_fig_verdict", where=g2)
    g3, g4 = st.columns(2)
    live_chart(tpl_figure(audit, rs.epsilon if alpha is None else alpha,
                          "ε" if alpha is None else "α"), key="pop_fig_tpl", where=g3)
    live_chart(error_figure(audit, unit), key="pop_fig_error", where=g4)
    st.caption(f"Landmark TPL under the session's correlation model ({spec['model']}"
               + (f": {quote_user_text(st.session_state[K.CORR_MATRICES]['forward'][0])}"
                  if spec["model"] == "matrix"
                  else "") + "), per user as in the privacy report. Noise: "
               + sampler(rs) + ".")

    st.header("6. Users")
    order = pd.Series(colours).map({"red": 0, "amber": 1, NO_LEAKAGE: 2,
                                         "green": 3}).to_numpy()
    table = pd.DataFrame({
        "user": audit["user"].astype(str), "verdict": colours, "|L|": audit["n_landmarks"],
        "worst total": audit["worst_total"].round(4),
        "max landmark TPL": audit["max_landmark_tpl"].round(4),
        "utility": audit["utility"].astype(str),
        f"expected error ({unit})": pd.to_numeric(audit["expected_error"]).round(4),
        f"MAE ({unit})": audit["mae"].round(4), f"RMSE ({unit})": audit["rmse"].round(4),
        "published": audit["n_published"], "approximated": audit["n_approximated"]})
    table = table.assign(_o=order, _t=-audit["max_landmark_tpl"].fillna(0)).sort_values(
        ["_o", "_t", "user"]).drop(columns=["_o", "_t"]).reset_index(drop=True)
    st.dataframe(table, key="pop_table", height=260, hide_index=True, width="stretch")
    users_sorted = table["user"].tolist()
    raw_user = {str(u): u for u in audit["user"]}
    u1, u2 = st.columns([3, 1], vertical_alignment="bottom")
    if st.session_state.get(K.POP_USER) not in users_sorted:
        st.session_state[K.POP_USER] = users_sorted[0]
    u1.selectbox("User (worst first)", users_sorted, key=K.POP_USER,
                 format_func=lambda u: shorten_user_text(u, 40))
    target = "Timeline" if kind == "series" else "Map"
    u2.button(f"Open in {target}", type="primary", key="pop_open", on_click=open_user,
              args=(pop, raw_user[st.session_state[K.POP_USER]], discovery, use_flags),
              icon=":material/open_in_new:" if kind == "series" else ":material/map:",
              help=f"Adds this user's {'series' if kind == 'series' else 'track'} with its "
                   f"landmarks to the session, selects it and opens the {target} page.")
    if st.session_state.get(K.POP_OPEN_ERROR):
        st.error(st.session_state[K.POP_OPEN_ERROR], icon=":material/error:")
switch = st.session_state.pop(K.POP_SWITCH, None)
if switch:
    st.switch_page(switch)

st.header("7. Correlation model from the whole population")
st.caption("Cao et al. (ICDE 2017) estimate the Markov transition matrix from many users' "
           "sequences: here the transitions between consecutive timestamps of every user are "
           "pooled (never across users), over "
           + ("the bins of all users' values." if kind == "series" else
              "grid cells of the whole population.")
           + " The estimate becomes the session's model, as an uploaded matrix: the Leakage, "
           "Timeline, Map and Compare pages and the audit above use it.")
with st.container(border=True):
    e = st.columns(3)
    if kind == "series":
        e[0].number_input("Bins (states)", min_value=2, max_value=MAX_LEAKAGE_STATES, step=1,
                          key=K.W_CORR_BINS)
        e[1].radio("Binning", ["width", "quantile"], key=K.W_CORR_BINNING, horizontal=True,
                   format_func={"width": "equal width", "quantile": "equal counts"}.get)
    else:
        e[0].number_input("Grid cell size (metres)", min_value=10.0, max_value=100_000.0,
                          step=50.0, format="%.0f", key=K.W_CELL_SIZE)
    e[2].number_input("Smoothing (added to every count)", min_value=0.0, max_value=10.0,
                      step=0.1, format="%.3g", key=K.W_CORR_SMOOTHING)
    st.button("Estimate from all users and use it", key="pop_estimate", on_click=estimate_model,
              args=(pop,), icon=":material/hub:")
if st.session_state.get(K.POP_MODEL_ERROR):
    st.error(st.session_state[K.POP_MODEL_ERROR], icon=":material/error:")
elif st.session_state.get(K.POP_MODEL_NOTE) and spec["model"] == "matrix":
    s1, s2 = st.columns([5, 1], vertical_alignment="center")
    s1.success(f"In force: {st.session_state[K.POP_MODEL_NOTE]}", icon=":material/hub:")
    s2.page_link("app_pages/leakage.py", label="Leakage page", icon=":material/water_drop:")

st.header("8. Downloads and the batch command")
teaching = teaching_note(s.seed) if s.reproducible else None
undeclared_k = settings.shows_landmark_count()
header = [
    (f"Landmark Privacy Explorer — {teaching}" if teaching else
     f"Landmark Privacy Explorer — {UNDECLARED_K_LABEL}" if undeclared_k else
     "Landmark Privacy Explorer — publishable population release (released values only)"),
    f"epsilon: {settings.epsilon:g} per user (landmark privacy, Katsomallos et al. CODASPY "
    "2022)",
    f"scheme: {SCHEMES[settings.scheme].label}", f"mechanism: {mech}",
    f"noise: {sampler(settings)}",
    "withheld timestamps (nothing released yet) are empty"] + (
    [f"noise drawn from the fixed teaching seed {s.seed}"
     if settings.noise == "fast" else
     "noise: the exact sampler (not seeded), but made in the teaching mode"]
    if teaching else [])
if shown is not None and current:
    d1, d2 = st.columns(2)
    try:
        pub = publishable_csv(result, header)
    except InputError as exc:
        d1.info(f"No publishable file: {exc}.", icon=":material/block:")
    else:
        if teaching:  # the fixed seed: never called publishable
            d1.download_button("TEACHING — released population (CSV), not publishable", pub,
                               key="pop_dl_release",
                               file_name=teaching_filename(f"population_{kind}", "csv"),
                               mime="text/csv", icon=":material/school:", help=TEACHING_HELP)
        elif kind == "track" and settings.noise != "exact":
            d1.warning("**Exploratory, not publishable:** these tracks carry numpy's "
                       "floating-point Planar Laplace. Declare a region above to release "
                       "them with the exact sampler.", icon=":material/warning:")
            d1.download_button("EXPLORATORY — released population (CSV), not publishable",
                               pub, key="pop_dl_release",
                               file_name=f"lmdk_EXPLORATORY_population_{kind}.csv",
                               mime="text/csv", icon=":material/science:")
        elif undeclared_k:
            d1.warning("**Exploratory, not publishable:** with Uniform or Adaptive and no "
                       "declared bound k, each user's noise scale follows that user's own "
                       "landmark count. Tick *Declare k for every user* above, choose "
                       "Skip, or run `lmdk batch` with `extra.max_landmarks` declared in "
                       "the configuration.",
                       icon=":material/warning:")
            d1.download_button("EXPLORATORY — released population (CSV), not publishable",
                               pub, key="pop_dl_release",
                               file_name=f"lmdk_EXPLORATORY_population_{kind}.csv",
                               mime="text/csv", icon=":material/science:")
        else:
            d1.download_button("Released population (CSV)", pub, key="pop_dl_release",
                               file_name=publishable_filename(f"population_{kind}", "csv"),
                               mime="text/csv", icon=":material/download:",
                               help="Publishable: user, time and the released value(s) only — "
                                    "no raw values, landmark flags, budgets or seed.")
    meta = {"epsilon": f"{settings.epsilon:g}", "scheme": settings.scheme,
            "mechanism": mech, "noise": sampler(settings),
            "landmarks": "flag column" if use_flags else "discovered per user",
            "correlation model": json.dumps(correlation_spec(kind))[:200],
            "seed": (str(s.seed) if s.reproducible
                     else "fresh 128-bit OS entropy (not recorded)")}
    with d2.expander(":material/lock: CONFIDENTIAL — per-user audit"):
        st.caption(AUDIT_LABEL + ".")
        st.download_button("CONFIDENTIAL — per-user audit (CSV)", audit_csv(result, meta),
                           key="pop_dl_audit", file_name=confidential_filename("population_audit",
                                                                               "csv"),
                           mime="text/csv", icon=":material/lock:")
with st.expander(":material/terminal: Batch command for the whole dataset (Dask)"):
    st.markdown("The same settings, on every user of the file, on a local Dask cluster "
                "(or `--scheduler tcp://host:8786`). Save the configuration next to the "
                "data; it holds the release settings, the correlation model and the "
                "detectors' parameters — no data, landmarks or seed (a transition matrix, "
                "derived from the data, makes it confidential).")
    st.code(batch_command(pop, use_flags), language="bash")
    if pop["key"].startswith("demo"):
        st.download_button("The demo population (Parquet)", demo_parquet(pop["key"]),
                           file_name="population.parquet", mime="application/octet-stream",
                           key="pop_dl_demo", icon=":material/download:",
                           help="Generated data (no real person): try the command on it.")
    cfg = batch_config(pop, settings, use_flags)
    try:
        if batch_config_is_confidential(cfg):
            st.download_button("CONFIDENTIAL — Batch configuration with the transition "
                               "matrix (JSON)", batch_config_json(cfg),
                               file_name=confidential_filename("batch_config", "json"),
                               mime="application/json", key="pop_dl_config",
                               icon=":material/lock:",
                               help="The correlation model is a transition matrix (estimated "
                                    "from the users' raw values, or uploaded): derived data "
                                    "about the population. Keep this file with the raw data.")
        else:
            st.download_button("Batch configuration (JSON)", batch_config_json(cfg),
                               file_name="lmdk_batch_config.json", mime="application/json",
                               key="pop_dl_config", icon=":material/settings:",
                               help="Settings only: no data, landmarks, seed or anything "
                                    "estimated from the data.")
    except InputError as exc:
        st.error(f"Cannot write the configuration: {exc}.", icon=":material/error:")
    st.caption("The batch draws exact noise by default (`--noise fast` for numpy) "
               + ("and, in the teaching mode, the seed above; " if s.reproducible
                  else "and fresh OS entropy for every run; ")
               + "it writes the publishable file only when every user's release is "
               "landmark-private.")
