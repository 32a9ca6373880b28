"""Map: mark landmarks on a trajectory, release it with Planar Laplace, read the budget,
the verdict, the displacement and the leakage."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings
from app_support.components import (
    cached_averaging,
    cached_track_release,
    model_caption,
    render_verdict,
)
from app_support.current_data import current_data, view_config
from app_support.download_buttons import (
    RESTORE_HELP,
    reference_uploader,
    reload_note,
    restore_uploaded_config,
    track_downloads,
)
from app_support.map_scrub import map_scrub, scrubbed_settings
from app_support.session import (
    settings_on_page,
    take_epsilon,
)
from app_support.track_columns_choice import track_column_choices
from app_support.track_edits import (
    CANDIDATE_KEY,
    MAP_KEY,
    SELECT_KEY,
    STAYS_KEY,
    TABLE_TOGGLE_KEY,
    accept_candidates,
    candidate_label,
    candidate_options,
    clear_landmarks,
    demo_landmarks,
    metres,
    on_map_click,
    on_multiselect,
    on_stay_select,
    on_table_edit,
    on_upload,
    stay_chip,
    stay_key,
    stay_suggestions,
    switch_visit,
)
from app_support.track_map import track_map
from app_support.track_session import (
    DEMO_TRACK,
    DEMO_TRACK_KEY,
    DEMO_TRACK_REGION,
    MAX_TRACK_POINTS,
    current_track,
    track_landmarks,
    track_stays,
)
from lmdk_core.data.demo_track import demo_track_events
from lmdk_core.data.track_building import DEFAULT_WAYPOINT_MAX_M
from lmdk_core.engine.release import Release
from lmdk_core.figures.common import data_labels
from lmdk_core.figures.map import (
    displacement_summary,
    landmark_frame,
    map_payload,
)
from lmdk_core.figures.track_budget import PANEL_HEIGHT, budget_panels
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import agree, counted
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.setting_limits import LIMITS
from lmdk_core.leakage.model import CorrelationModel

name, track = current_track()
T = len(track)
labels = data_labels(track)


# ---------------------------------------------------------------- page
st.title(":material/map: Map")
st.caption(
    f"{quote_user_text(name)} — {T:,} points. Click a point on the map to mark or unmark it as a "
    "landmark; edit the Landmarks list (beside the map, or below it on a phone; as a table "
    "with the switch under it). Locations "
    "are released with Planar Laplace (geo-indistinguishability) at each timestamp's "
    "budget ε_t; ε, the scheme and the seed are the shared settings (in the sidebar; on a "
    "phone also right above the verdict)."
)

with st.expander(":material/upload_file: Use your own track, or restore a saved view"):
    c1, c2 = st.columns(2)
    c1.file_uploader(
        f"Track: CSV with time, latitude and longitude columns (`time,lat,lon`, "
        f"`timestamp,latitude,longitude`, `X;Y;t` …; time optional), GPX (tracks; waypoints "
        f"within {DEFAULT_WAYPOINT_MAX_M / 1000:g} km of the track become landmark "
        f"candidates), FIT, TCX, KML, GeoJSON or a GeoLife `.plt`. "
        f"Up to {MAX_TRACK_POINTS:,} points.",
        type=["csv", "txt", "gpx", "plt", "fit", "tcx", "kml", "geojson", "json", "gpkg"],
        key=K.TRACK_UPLOAD, on_change=on_upload)
    c2.file_uploader("Configuration JSON (downloaded below)", type=["json"],
                     help=RESTORE_HELP,
                     key=K.TRACK_CONFIG_UPLOAD, on_change=restore_uploaded_config,
                     args=(K.TRACK_CONFIG_UPLOAD, "track"))
    track_column_choices()
reload_note(st.session_state[K.TRACK_KEYS].get(name) != DEMO_TRACK_KEY,
            key="map_forget_tab")
reference_uploader("track", "track_reference_upload")
if st.session_state.get(K.TRACK_UPLOAD_ERROR):
    st.error(st.session_state[K.TRACK_UPLOAD_ERROR], icon=":material/error:")
for warning in track.warnings:
    st.warning(warning, icon=":material/warning:")
if track.notes:
    st.info("\n".join(f"- {note}" for note in track.notes), icon=":material/info:")

c = st.columns([3, 2, 2, 2], vertical_alignment="bottom")
c[0].selectbox("Track", list(st.session_state[K.TRACK_SETS]), key=K.W_TRACK_NAME,
               help="The demo day, or a track you uploaded above.")
c[1].number_input(
    "Protection radius r (metres)", min_value=LIMITS["radius"].low,
    max_value=LIMITS["radius"].high, step=25.0,
    format="%.0f", key=K.W_RADIUS,
    help="Geo-indistinguishability: two places within r metres are ε_t-indistinguishable "
         "at each timestamp. The mean displacement is 2r/ε_t.")
c[2].toggle("2r/ε_t circles", key=K.W_SHOW_CIRCLES,
            help="A dashed circle of radius 2r/ε_t (the mean displacement) around each "
                 "published point (at most 100, evenly spread over time).")
c[3].toggle("Online map tiles", key=K.W_TILES,
            help="Off (default): a plain offline background; nothing leaves this machine. "
                 "On: background tiles are fetched from OpenStreetMap's servers.")
settings = current_settings()
if settings.tiles:
    st.caption(":material/public: Online tiles: your browser asks OpenStreetMap for the "
               "tiles of this track's area, which reveals where it is.")

def _release(landmarks: list[int], accepted: list[tuple[int, int]], radius: float) -> Release:
    """The track's release at the sidebar's settings (stays released as one event each)."""
    s = current_settings()
    try:
        return cached_track_release(
            track.lat, track.lon, tuple(landmarks), s.epsilon, radius, s.scheme, s.seed,
            s.window, tuple(accepted), s.max_landmarks)
    except InputError as exc:
        st.error(f"Cannot release this track: {exc}", icon=":material/error:")
        st.stop()


def _averaging_line(rel: Release, radius: float) -> None:
    """What a moving average of the released track recovers, under the verdict: the
    figure of ``lmdk geo-release``'s ``averaging:`` line (simulated releases of their
    own seed; docs/correlation.md)."""
    eff = cached_averaging(track.lat, track.lon, tuple(rel.landmarks.tolist()), rel.epsilon,
                           radius, rel.scheme, current_settings().window, tuple(rel.stays),
                           rel.max_landmarks)
    st.markdown(f":material/blur_on: **Averaging consecutive points.** {eff.sentence()}")


def _displacement_metrics(rel: Release, summary: pd.DataFrame) -> None:
    """Mean, expected and 95th-percentile displacement; published / approximated counts."""
    counts = rel.metrics()
    mc = st.columns(4)
    mc[0].metric("Mean displacement", metres(summary.iloc[0, 0]),
                 help="Mean distance between a noisy released point and the true one.")
    mc[1].metric("Expected (2r/ε_t)", metres(summary.iloc[0, 1]),
                 help="Planar Laplace's mean displacement 2r/ε_t, averaged over the published "
                      "timestamps.")
    mc[2].metric("95th percentile", metres(summary.iloc[2, 0]),
                 help=f"Expected: {metres(summary.iloc[2, 1])} (Gamma(2, r/ε_t) quantile).")
    mc[3].metric("Published / approximated", f"{counts['n_published']} / "
                 f"{counts['n_approximated']}",
                 help="Published = fresh noisy location (spends ε_t). Approximated = last "
                      "release repeated (spends nothing)."
                      + (f" {counts['n_withheld']} withheld (nothing to repeat yet)."
                         if counts["n_withheld"] else ""))


def _map_column(rel: Release, radius: float, stays: list,
                accepted: list[tuple[int, int]]) -> None:
    """The map (true path, released points, stays, suggestions, waypoints) and its toggle."""
    s = current_settings()
    track_map(map_payload(track, rel, radius, tiles=s.tiles, show_released=s.show_released,
                       show_circles=s.show_circles,
                       suggestions=[p for p in stays if p.span not in accepted],
                       waypoints=track.waypoints, events=accepted),
              key=MAP_KEY, height=620, on_toggle=on_map_click)
    st.toggle("Show the released points", key=K.W_SHOW_RELEASED,
              help="Blue dots: the published (noisy) locations, drawn under the true "
                   "path and not joined (orange rings: approximations that repeat the "
                   "last release and spend nothing). To join them, switch on 'Released "
                   "points joined' with the map's Layers button.")


def _accepted_stays(accepted: list[tuple[int, int]]) -> None:
    """The accepted stays as chips (remove one to drop it) and what they cost."""
    n_fix = sum(b - a + 1 for a, b in accepted)
    st.markdown(f"**Stays, one landmark event each ({len(accepted)})**")
    keys = [stay_key(s) for s in accepted]
    st.session_state[STAYS_KEY] = keys
    st.multiselect(
        "Stays", options=keys, key=STAYS_KEY, label_visibility="collapsed",
        format_func=stay_chip, on_change=on_stay_select,
        help="Remove a chip to drop that stay.")
    st.caption(
        f":material/shield: {counted(len(accepted), 'stay')} "
        f"({counted(n_fix, 'fix', 'fixes')}) {agree(len(accepted), 'costs', 'cost')} "
        f"{counted(len(accepted), 'landmark event')}, not {n_fix:,}: each stay is released once, "
        "from its centroid, and all its fixes publish that point (ε_t = 0 after the "
        "first). Red rings on the map; see docs/stays.md.")


def _landmark_picker(landmarks: list[int]) -> None:
    """The landmarks as chips; a typed t is added."""
    if st.session_state.get(K.TRACK_STAY_NOTE):
        st.info(st.session_state[K.TRACK_STAY_NOTE], icon=":material/info:")
    st.markdown(f"**Landmarks ({len(landmarks)})**")
    st.session_state[SELECT_KEY] = landmarks
    st.multiselect(
        "Landmarks", options=landmarks, key=SELECT_KEY, label_visibility="collapsed",
        format_func=lambda t: f"t={t} · {labels[t]}" if isinstance(t, int) else str(t),
        on_change=on_multiselect, accept_new_options=True,
        help=f"Type a point's t (0 to {T - 1}) and press Enter to add it; remove a chip to "
             "unmark it. The map and the budget follow.",
        placeholder="No landmarks: click points on the map or type a t here")
    if st.session_state.get(K.TRACK_PICKER_ERROR):
        st.error(f"Not added: {st.session_state[K.TRACK_PICKER_ERROR]}.",
                 icon=":material/error:")


def _landmark_table(landmarks: list[int], rel: Release) -> None:
    """The editable landmark table (keep, t, time, lat, lon, ε_t), drawn on request.

    Closed by default: Streamlit's data grid rebuilds its hidden screen-reader table
    ~200 ms after every change of its data, so a grid always on screen made every click,
    ε step and scheme change wait ~0.25 s more; the picker above marks and unmarks by t
    with the mouse and the keyboard alike."""
    if not st.toggle("Edit the landmarks as a table", key=TABLE_TOGGLE_KEY,
                     help="A table of the landmarks with their coordinates and ε_t: untick "
                          "keep to remove one, edit a t or add a row to mark another."):
        return
    table = landmark_frame(track, landmarks, rel.epsilon_t)
    table.insert(0, "keep", True)
    # room above the table for its toolbar (on a phone it covered the picker). The
    # columns a person reads first come first and are narrow (coordinates to 4 decimals,
    # about 10 m), so keep, t, lat, lon and ε_t fit a phone's 390 px; the time follows
    st.container(key="lmdk_table_gap").data_editor(
        table, key=f"track_lm_table_{st.session_state[K.TRACK_TABLE_VERSION]}",
        on_change=on_table_edit, num_rows="dynamic", hide_index=True, width="stretch",
        height=min(300, 38 + 35 * (len(table) + 1)),
        disabled=["time", "lat", "lon", "ε_t"],
        column_order=["keep", "t", "lat", "lon", "ε_t", "time"],
        column_config={
            "keep": st.column_config.CheckboxColumn("keep", help="Untick to remove.",
                                                    width=60),
            "t": st.column_config.NumberColumn("t", min_value=0, max_value=T - 1, step=1,
                                               help="0-based timestamp; edit or add a row.",
                                               width=52),
            "lat": st.column_config.NumberColumn("lat", format="%.4f", width=68,
                                                 help="Latitude of the true point (°)."),
            "lon": st.column_config.NumberColumn("lon", format="%.4f", width=68,
                                                 help="Longitude of the true point (°)."),
            "ε_t": st.column_config.NumberColumn("ε_t", format="%.3g", width=56),
            "time": st.column_config.TextColumn("time", width=132),
        })


def _revisit_hint(landmarks: list[int]) -> None:
    """After a click on a spot the track passes several times: the other visits."""
    revisit = st.session_state.get(K.TRACK_REVISIT)
    if revisit and revisit[0] == name:
        _, chosen, visits = revisit
        st.caption(f":material/history: The track passes this spot {len(visits)} times; the "
                   f"click {'marked' if chosen in landmarks else 'unmarked'} **t={chosen}** "
                   f"({labels[chosen]}). Meant another visit?")
        others = [v for v in visits if v != chosen][:6]
        vc = st.columns(max(1, len(others)))
        for col, v in zip(vc, others, strict=False):
            col.button(f"t={v} · {labels[v]}", key=f"track_visit_{v}", on_click=switch_visit,
                       args=(chosen, v), width="stretch")


def _landmark_buttons() -> None:
    """The notes on refused table edits; Clear, and the demo's landmarks on the demo
    track."""
    for note in st.session_state.get(K.TRACK_TABLE_NOTES) or []:
        st.error(f"Not applied: {note}. The other edits and your landmarks are kept.",
                 icon=":material/error:")
    b1, b2 = st.columns(2)
    b1.button("Clear", on_click=clear_landmarks, width="stretch", icon=":material/clear_all:",
              help="Remove every landmark of this track.")
    if name == DEMO_TRACK:
        b2.button("Demo landmarks", on_click=demo_landmarks, width="stretch",
                  icon=":material/restart_alt:",
                  help="; ".join(text for _, text in demo_track_events()) + ".")


def _suggestion_controls(stays: list, stay_note: str | None) -> None:
    """The stay-point detector's switch and thresholds, and the candidates to accept."""
    st.markdown("**Suggest landmarks**")
    st.toggle("Suggest stay points", key=K.W_SUGGEST,
              help="Places where the track stayed within a distance for at least a time "
                   "(Li et al. 2008; Project Lachesis). Shown as orange circles.")
    suggest = current_settings().suggest
    if suggest:
        s1, s2 = st.columns(2)
        s1.number_input("Within (metres)",
                        min_value=LIMITS["stay_distance"].low,
                        max_value=LIMITS["stay_distance"].high,
                        step=25.0,
                        format="%.0f", key=K.W_STAY_DISTANCE)
        s2.number_input("For at least (minutes)",
                        min_value=LIMITS["stay_minutes"].low,
                        max_value=LIMITS["stay_minutes"].high,
                        step=5.0,
                        format="%.0f", key=K.W_STAY_MINUTES)
        if track.time_kind == "index" or track.n_missing_times:
            st.number_input("Minutes between points (the track has no times)"
                            if track.time_kind == "index" else
                            f"Minutes between points ({counted(track.n_missing_times, 'point')} "
                            f"{agree(track.n_missing_times, 'has', 'have')} no time, so stays "
                            "use this fixed interval)",
                            min_value=LIMITS["minutes_per_point"].low,
                            max_value=LIMITS["minutes_per_point"].high,
                            step=1.0, key=K.W_MINUTES_PER_POINT)
        if stay_note:
            st.info(stay_note, icon=":material/info:")
    options = candidate_options(stays)
    if options:
        st.radio("Accepting a stay protects", ["event", "visit", "arrival"],
                 key=K.W_STAY_MARK, horizontal=True,
                 format_func={"event": "the visit, as one event",
                              "visit": "every fix, each a landmark",
                              "arrival": "its first fix only"}.get,
                 help="One event (recommended): the stay is released once, from its "
                      "centroid, and its fixes publish that point, so its cost does not "
                      "grow with its fixes. Every fix: each fix is a landmark of its own; "
                      "Uniform then divides ε by the number of fixes (hundreds on a GPS "
                      "log: the noise grows to hundreds of km). First fix: only the "
                      "arrival is protected.")
        st.session_state[CANDIDATE_KEY] = [k for k in st.session_state.get(CANDIDATE_KEY, [])
                                           if k in options]
        st.multiselect(f"Candidates ({len(options)})", options, key=CANDIDATE_KEY,
                       format_func=lambda k: candidate_label(k, stays),
                       placeholder="Pick suggestions to accept")
        a1, a2 = st.columns(2)
        a1.button("Accept selected", on_click=accept_candidates, args=(False,), width="stretch",
                  icon=":material/done:")
        a2.button("Accept all", on_click=accept_candidates, args=(True,), width="stretch",
                  icon=":material/done_all:",
                  help="Accepts every suggested stay; waypoints only when picked above.")
    elif suggest and not (stay_note or "").startswith("No stay points"):
        st.caption("No stay found with these thresholds.")


def _panels(rel: Release, radius: float, model: CorrelationModel | None,
            leakage: dict[str, np.ndarray] | None, model_note: str | None) -> None:
    """The budget / displacement / leakage panels and their switches."""
    k0, k1, k2, k3 = st.columns([2, 2, 2, 3], vertical_alignment="bottom")
    k0.toggle("Displacement per point", key=K.W_POINT_DISPLACEMENT,
              help="A panel with the displacement of every released point (log scale) against "
                   "the expected 2r/ε_t. The summary table below gives its mean, median and "
                   "95th percentile either way.")
    k1.toggle("Temporal leakage (TPL)", key=K.W_TRACK_LEAKAGE,
              help="Cao et al. (ICDE'17): how much a release leaks when locations are "
                   "correlated in time, under the session's correlation model (by default "
                   "estimated from this track: its points are mapped to square grid cells, the "
                   "states, and the moves between cells are counted with add-one smoothing).")
    s = current_settings()
    if s.track_leakage and s.corr_kind_track == "estimated":
        k2.number_input("Grid cell size (metres)", min_value=10.0, max_value=100_000.0, step=50.0,
                        format="%.0f", key=K.W_CELL_SIZE,
                        help="The cell size of the session's estimated model (shared with the "
                             "Leakage page).")
    if not s.track_leakage:
        leakage = None  # the panel is off; the verdict above still uses the model
    elif leakage is None or model is None:  # (leakage comes with its model)
        k3.warning(f"No leakage: {model_note}", icon=":material/warning:")
    else:
        k3.caption(
            f"**{model.n_states} states**. Largest TPL "
            f"**{np.max(leakage['TPL']):.3g}**, largest landmark TPL "
            f"**{np.max(leakage['landmark TPL']):.3g}** against ε = {rel.epsilon:g}.")

    # Vega-Lite panels whose specification depends only on the track and the panels
    # shown: a change of landmarks, ε or scheme replaces their data in place, where a
    # changed plotly figure was rebuilt from scratch in the browser (twice)
    for k, (data, spec) in enumerate(budget_panels(
            track, rel, radius, leakage=leakage,
            displacement=s.point_displacement)):
        st.vega_lite_chart(data, spec, width="stretch", height=PANEL_HEIGHT,
                           key=f"track_budget_panel_{k}")


def _displacement_table(summary: pd.DataFrame) -> None:
    """Measured against expected displacement (Planar Laplace: mean 2r/ε_t, Gamma(2)
    quantiles)."""
    st.markdown("**Displacement: measured vs expected** (Planar Laplace at the published "
                "points: mean 2r/ε_t; median and 95th percentile of Gamma(2, r/ε_t))")
    # a small static table of formatted numbers (a pandas Styler cost ~20 ms per rerun)
    # the index column is named: an empty header cell is a table header a screen reader
    # cannot announce (axe-core: empty-table-header)
    st.table(summary.map(metres).rename(columns=lambda c: c.replace(" (m)", ""))
             .rename_axis("displacement (m)"))


# Everything in landmark_workspace depends on the landmarks, so it is one fragment: a click
# on the map, an edit of the list or the table, the suggestion and panel switches rerun
# only this part (the sidebar and the page's head are not redrawn). A change of the track,
# the radius or a shared setting reruns the whole page, as it must: they are outside. The
# one widget inside that changes a shared setting, the verdict's "Apply the calibration"
# (ε), asks for a whole rerun (:func:`_follow_shared_settings`).
@st.fragment
def landmark_workspace() -> None:
    """The verdict, the map, the landmark list and table, the suggestions, the budget /
    displacement / leakage panels, the displacement summary and the downloads of the
    current track."""
    _follow_shared_settings()
    _keep_fragment_settings()
    landmarks = track_landmarks(name)
    accepted = track_stays(name)  # stays protected as one landmark event each
    s = current_settings()
    radius = s.radius
    rel = _release(landmarks, accepted, radius)

    # the one verdict: the theorem plus landmark TPL under the session's correlation model
    cur = current_data("track")
    model, leakage, model_note = cur.leakage(rel.epsilon_t)
    render_verdict(cur.verdict(rel, leakage, model, model_note), utility=cur.utility(rel),
                   key="map_calibrate",
                   sweep=cur.sweep(rel, model) if leakage is not None else None)
    model_caption(model, model_note)
    _averaging_line(rel, radius)
    summary = displacement_summary(rel, radius)
    _displacement_metrics(rel, summary)

    stays, stay_note = stay_suggestions() if s.suggest else ([], None)
    left, right = st.columns([3, 2], gap="medium")
    with left:
        _map_column(rel, radius, stays, accepted)
    with right:
        if accepted:
            _accepted_stays(accepted)
        _landmark_picker(landmarks)
        _landmark_table(landmarks, rel)
        _revisit_hint(landmarks)
        _landmark_buttons()
        _suggestion_controls(stays, stay_note)

    # ---------------------------------------------------------------- budget, displacement, leakage
    st.header("Budget, displacement and leakage")
    _panels(rel, radius, model, leakage, model_note)
    _displacement_table(summary)
    with st.expander("How to read this"):
        st.markdown(
            "- **Map**: grey is the true path with its points (click one to make it a "
            "landmark, click a red landmark to remove it). Blue is what would be published; "
            "orange rings are *approximations* (the last release repeated, no budget spent; "
            "Skip and Adaptive). Dashed circles show the mean displacement 2r/ε_t. Orange "
            "discs are suggested stays; purple dots are waypoints or named places. Switch "
            "layers on and off in the top-right box.\n"
            "- **ε_t**: the blue area is the budget spent at each timestamp (red stars at "
            "landmarks); the green line is the theorem's total, the landmarks' budgets plus "
            "ε_t. Landmark privacy holds when it never rises above the dashed ε line. Hover "
            "a panel for the values at a timestamp; drag or scroll to pan and zoom, "
            "double-click to reset.\n"
            "- **Displacement** (switch on *Displacement per point*): how far each released "
            "point lies from the true one (log scale); the dashed line is the expected "
            "2r/ε_t. Halving ε_t doubles it.\n"
            "- **Leakage**: TPL (dotted purple) is the leakage of one timestamp once "
            "correlation between consecutive locations is accounted for; landmark TPL (red) "
            "is that of all landmarks "
            "plus one timestamp (equal to the green total when there is no correlation)."
        )


    # ---------------------------------------------------------------- downloads
    # publishable files first (released locations only); confidential ones behind their expander
    cfg = view_config(current_data("track"), page="map")
    track_downloads(track, rel, cfg, key="map", dataset_name=name,
                    region_default=DEMO_TRACK_REGION if cfg.dataset == DEMO_TRACK_KEY else "")


#: the settings whose widgets are drawn inside the fragment, some only some of the time
#: (the grid cell size with the leakage panel, the stay thresholds with the suggestions)
FRAGMENT_SETTINGS = (K.W_SHOW_RELEASED, K.W_SUGGEST, K.W_STAY_DISTANCE, K.W_STAY_MINUTES,
                     K.W_MINUTES_PER_POINT, K.W_STAY_MARK, K.W_POINT_DISPLACEMENT,
                     K.W_TRACK_LEAKAGE, K.W_CELL_SIZE)


def _keep_fragment_settings() -> None:
    """Re-assign the settings of the fragment's widgets at the start of each of its runs,
    as app.py does for the whole page's: Streamlit forgets the state of a widget a run
    did not draw, and a fragment's run does not pass through app.py (the grid cell size,
    hidden while the leakage panel is off, was gone when it came back: a KeyError)."""
    for k in FRAGMENT_SETTINGS:
        if k in st.session_state:
            st.session_state[k] = st.session_state[k]


def _follow_shared_settings() -> None:
    """First thing in the fragment: when a widget inside it changed ε (the verdict's
    "Apply the calibration"), rerun the whole page so that the sidebar shows the new ε."""
    if st.session_state.get(K.MAP_EPSILON_DRAWN) != current_settings().epsilon:
        st.rerun()


def _take_scrub() -> None:
    """The ε and r sliders were let go: their values become the session's ε (as if
    typed, :func:`~app_support.session.take_epsilon`) and r (within its limits)."""
    eps, radius = scrubbed_settings(SCRUB_KEY)
    if radius is not None:
        st.session_state[K.W_RADIUS] = min(max(radius, LIMITS["radius"].low),
                                           LIMITS["radius"].high)
    if eps is not None and eps != current_settings().epsilon:
        take_epsilon(eps)


SCRUB_KEY = "map_scrub"
# phones: ε and the scheme in view of the verdict (outside the fragment: a shared setting
# reruns the whole page)
settings_on_page()
# ε and r scrubbed in the browser: the map previews the release while a slider moves
# (app_support/map_scrub.py); outside the fragment, so letting go is one whole-page run
map_scrub(epsilon=settings.epsilon, radius=settings.radius, key=SCRUB_KEY,
          on_scrub=_take_scrub)
st.session_state[K.MAP_EPSILON_DRAWN] = settings.epsilon  # the ε the sidebar shows
landmark_workspace()
