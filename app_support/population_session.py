"""The Population page's state: the population chosen (a demo or an upload and its
column choice), the batch settings read from the session, the releases kept per settings,
opening one user on the Timeline or the Map, the population-wide correlation model and
the batch's configuration and ``lmdk batch`` command (Katsomallos et al., CODASPY 2022:
every user released with the same settings on their own landmarks)."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings
from app_support.session import (
    add_series,
    correlation_spec,
    set_series_runs,
)
from app_support.track_session import MAX_TRACK_POINTS, add_track, set_track_stays
from lmdk_core.cli.batch_commands import batch_command_line, batch_options
from lmdk_core.data.digest import sha256_hex
from lmdk_core.engine.allocation import SCHEMES
from lmdk_core.engine.release import AdaptiveSettings
from lmdk_core.files.config import ViewConfig
from lmdk_core.files.export import (
    PLANAR_NOISE,
    mechanism_text,
    noise_text,
)
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text, shorten_user_text
from lmdk_core.foundation.setting_limits import LIMITS
from lmdk_core.leakage.model import MAX_LEAKAGE_STATES
from lmdk_core.mechanisms.exact_planar import ExactPlanarLaplace
from lmdk_core.population.audit import LeakageSettings
from lmdk_core.population.demo_population import (
    DEMO_POPULATION_SERIES_COLUMNS,
    DEMO_POPULATION_TRACK_COLUMNS,
    demo_neighbourhood,
    demo_population_series,
    demo_population_tracks,
)
from lmdk_core.population.in_process import (
    batch_dataset,
    population_correlation,
    read_table_bytes,
    release_in_process,
    standardise,
    user_landmarks,
    user_series,
    user_stays,
    user_track,
)
from lmdk_core.population.landmarks import DiscoverySettings
from lmdk_core.population.partition import BatchSettings
from lmdk_core.population.preview import user_plans
from lmdk_core.population.table import PopulationColumns, repeated_times_count

#: the demos' public grids, declared as a publisher would (their period and, for the
#: commuters, the 4 km square round the Opéra they are drawn in): start, end, box
DEMO_GRIDS = {"demo_series": ("2024-04-01T00:00", "2024-05-01T00:00", ""),
              "demo_tracks": ("2024-03-05T00:00", "2024-03-06T00:00",
                              "48.87, 2.33, 48.906, 2.385"),
              "demo_neighbourhood": ("2024-04-01T00:00", "2024-04-15T00:00", "")}
SOURCES = {"demo_series": "Demo: 200 households (hourly meter, 30 days)",
           "demo_tracks": "Demo: 100 commuters (one day each)",
           "demo_neighbourhood": "Demo: a neighbourhood of 1,000 households (14 days)",
           "upload": "Upload a long table (CSV or Parquet)"}
NOISE = {"exact": "Exact (safe, for publication)", "fast": "Fast (numpy, exploration)"}
NONE = "(none: discover per user)"



# ---------------------------------------------------------------- data
@st.cache_resource(show_spinner=False)
def demo_population(which: str) -> tuple[pd.DataFrame, str]:
    """A demo population, validated and standardised once per server (read-only)."""
    if which == "demo_series":
        return standardise(demo_population_series(), DEMO_POPULATION_SERIES_COLUMNS)
    if which == "demo_neighbourhood":
        return standardise(demo_neighbourhood(), DEMO_POPULATION_SERIES_COLUMNS)
    return standardise(demo_population_tracks(), DEMO_POPULATION_TRACK_COLUMNS)


@st.cache_data(show_spinner=False, max_entries=8)
def population_counts(key: str, _frame: pd.DataFrame) -> tuple[int, int, int]:
    """(users, rows with the same time as the row before them, users with such rows) of
    the population ``key`` (``current_population()['key']``: the demo's name, or the
    upload's SHA-256 with its columns), counted once: the repeated times took ~9 ms of
    every ε step or scheme change on the 144,000 rows of the demo households."""
    return (int(_frame["user"].nunique()), *repeated_times_count(_frame))


@st.cache_data(show_spinner=False, max_entries=2)
def demo_parquet(which: str) -> bytes:
    """The generated demo population as the batch's input file."""
    import io

    buf = io.BytesIO()
    make = {"demo_series": demo_population_series, "demo_tracks": demo_population_tracks,
            "demo_neighbourhood": demo_neighbourhood}[which]
    make().to_parquet(buf, index=False)
    return buf.getvalue()


def _on_upload() -> None:
    f = st.session_state.get(K.POP_UPLOAD)
    if f is None:
        return
    try:
        raw = read_table_bytes(f.getvalue(), f.name)
    except InputError as exc:
        st.session_state[K.POP_ERROR] = (f"Could not read {quote_user_text(f.name)}: {exc}. "
                                      "The population loaded before is unchanged.")
        return
    st.session_state[K.POP_ERROR] = None
    st.session_state[K.POP_RAW] = {"name": f.name, "frame": raw,
                                "sha256": sha256_hex(f.getvalue())}


def _guess(columns: list[str], words: tuple[str, ...], skip: set[str]) -> int:
    for i, c in enumerate(columns):
        if c not in skip and any(w in c.lower() for w in words):
            return i
    return next((i for i, c in enumerate(columns) if c not in skip), 0)


#: what the upload form says about the declared Δf (never computed from the data)
DECLARED_DF_HELP = (
    "How much one event can change one reading, in the data's unit — from the meter's or "
    "survey's specification (e.g. the range of a reading, highest − lowest), not from "
    "these data: a Δf read off the data depends on them. The noise scale is Δf/ε_t. A "
    "population you upload gets its own Δf, never the demo's or the Timeline's.")


def declared_population_sensitivity(value: object) -> float:
    """The Δf declared for an uploaded series population: a number in the sensitivity
    range; absent (None) or out of range is an :class:`InputError` saying how to declare
    it (docs/population.md: Δf is declared with the upload, never derived)."""
    from lmdk_core.foundation.setting_limits import check_setting

    if value is None:
        raise InputError("declare Δf for this population (the field 'Declared Δf'): how "
                         "much one event can change one reading, from the meter's "
                         "specification; it is never computed from the data")
    return float(check_setting("sensitivity", value, label="the declared Δf"))


def population_sensitivity(pop: dict) -> float:
    """The Δf a series population is released with: the one declared with an upload, or
    for a demo population the sidebar's declared Δf."""
    if "sensitivity" in pop:
        return float(pop["sensitivity"])
    return current_settings().sensitivity


def _load_upload(cols: PopulationColumns, sensitivity: float | None = None) -> None:
    pending = st.session_state.get(K.POP_RAW)
    if pending is None:
        return
    try:
        frame, time_kind = standardise(pending["frame"], cols)
    except InputError as exc:
        st.session_state[K.POP_ERROR] = (f"Could not use {quote_user_text(pending['name'])}: "
                                      f"{exc}. The population loaded before is unchanged.")
        return
    st.session_state[K.POP_ERROR] = None
    declared = {} if sensitivity is None else {"sensitivity": float(sensitivity)}
    st.session_state[K.POP_UPLOADED] = {
        "key": f"{pending['sha256']}:{json.dumps(cols.__dict__, sort_keys=True)}"
               + (f":df={sensitivity!r}" if sensitivity is not None else ""),
        "name": pending["name"], "frame": frame, "time_kind": time_kind,
        "kind": cols.kind, "cols": cols, "unit": "", "sha256": pending["sha256"],
        **declared}


def upload_section() -> dict | None:
    """The uploader and the column pickers; the population loaded last (or None)."""
    st.file_uploader("Long table: one row per (user, time)", type=["csv", "parquet", "pq"],
                     key=K.POP_UPLOAD, on_change=_on_upload,
                     help="Columns: a user id, a time (whole numbers or ISO dates), a value "
                          "(series) or latitude and longitude (tracks), optionally a "
                          "landmark flag (1/true). Up to 1,000 users in the app.")
    pending = st.session_state.get(K.POP_RAW)
    if pending is not None:
        columns = list(pending["frame"].columns)
        st.caption(f"{quote_user_text(pending['name'])}: {len(pending['frame']):,} rows, "
                   f"columns {', '.join(quote_user_text(c, 30) for c in columns[:12])}")
        with st.form("pop_columns", border=True):
            c = st.columns(5)
            user = c[0].selectbox("User column", columns,
                                  index=_guess(columns, ("user", "id", "house", "person"), set()))
            time = c[1].selectbox("Time column", columns,
                                  index=_guess(columns, ("time", "date", "hour", "ts"), {user}))
            kind = c[2].radio("Data", ["series", "track"], horizontal=True,
                              format_func={"series": "value", "track": "lat/lon"}.get)
            value = c[3].selectbox("Value column (series)", columns,
                                   index=_guess(columns, ("value", "kwh", "count"), {user, time}))
            lat = c[3].selectbox("Latitude (tracks)", columns,
                                 index=_guess(columns, ("lat",), {user, time}))
            lon = c[3].selectbox("Longitude (tracks)", columns,
                                 index=_guess(columns, ("lon", "lng"), {user, time}))
            declared_df = c[2].number_input(
                "Declared Δf (series)", value=None, min_value=LIMITS["sensitivity"].low,
                max_value=LIMITS["sensitivity"].high, step=0.5, format="%.3g",
                key=K.POP_DECLARED_DF, placeholder="e.g. 0.5", help=DECLARED_DF_HELP)
            flag = c[4].selectbox("Landmark flag", [NONE] + columns,
                                  index=0 if not any(w in " ".join(columns).lower()
                                                     for w in ("landmark", "event", "flag"))
                                  else 1 + _guess(columns, ("landmark", "event", "flag"),
                                                  {user, time}))
            submitted = st.form_submit_button("Load this population", type="primary")
        if submitted:
            try:
                cols = PopulationColumns(
                    user=user, time=time, value=value if kind == "series" else None,
                    lat=lat if kind == "track" else None, lon=lon if kind == "track" else None,
                    landmark=None if flag == NONE else flag)
                df = (declared_population_sensitivity(declared_df) if kind == "series"
                      else None)
            except InputError as exc:
                st.session_state[K.POP_ERROR] = (f"{exc}. The population loaded before is "
                                              "unchanged.")
            else:
                _load_upload(cols, df)
    if st.session_state.get(K.POP_ERROR):
        st.error(st.session_state[K.POP_ERROR], icon=":material/error:")
    return st.session_state.get(K.POP_UPLOADED)


def current_population() -> dict | None:
    """The population of the page's choice: key, name, standardised frame, kinds."""
    source = st.session_state[K.POP_SOURCE]
    if source == "upload":
        return upload_section()
    frame, time_kind = demo_population(source)
    series = source != "demo_tracks"
    cols = DEMO_POPULATION_SERIES_COLUMNS if series else DEMO_POPULATION_TRACK_COLUMNS
    return {"key": source, "name": SOURCES[source], "frame": frame, "time_kind": time_kind,
            "kind": "series" if series else "track", "cols": cols,
            "unit": "kWh" if series else "", "grids": DEMO_GRIDS[source]}


# ---------------------------------------------------------------- settings
def batch_settings(pop: dict, discovery: DiscoverySettings) -> BatchSettings:
    """The sidebar's (and the Map page's) settings as the batch's settings; a series
    population's Δf is :func:`population_sensitivity` (an upload's own declaration)."""
    kind = pop["kind"]
    s = current_settings()
    return BatchSettings(
        kind=kind, epsilon=s.epsilon, scheme=s.scheme, window=s.window,
        mechanism=s.mechanism if kind == "series" else "planar_laplace",
        sensitivity=population_sensitivity(pop) if kind == "series" else s.sensitivity,
        radius=s.radius,
        noise=(st.session_state[K.POP_NOISE] if kind == "series"
               else "exact" if pop_region() is not None else "fast"),
        region=pop_region() if kind == "track" else None,
        root_entropy=s.seed, adaptive=AdaptiveSettings(), discovery=discovery,
        max_landmarks=s.max_landmarks if st.session_state.get(K.POP_DECLARE_K) else None,
        leakage=LeakageSettings(spec=correlation_spec(kind), strength=s.correlation_strength,
                                cell_size_m=s.cell_size))


def pop_region() -> str | None:
    """The declared region of the tracks' exact release (the page's *Declared region*
    input, ``LAT,LON,KM``) normalised, or None when none is declared or it is malformed
    (the page shows why)."""
    from lmdk_core.mechanisms.exact_planar import PlanarRegion

    text = str(st.session_state.get(K.POP_REGION) or "").strip()
    if not text:
        return None
    try:
        return PlanarRegion.parse(text).text()
    except InputError:
        return None


def sampler(settings: BatchSettings) -> str:
    if settings.kind == "track":
        mech = settings.make_mechanism()
        # exact noise for tracks: the exact Planar Laplace on the declared region's grid
        return mech.sampler if settings.noise == "exact" and isinstance(
            mech, ExactPlanarLaplace) else PLANAR_NOISE
    return noise_text(settings.noise)


#: releases kept per session (the last ones, one per settings)
KEPT_RELEASES = 4


def release_key(pop: dict, settings: BatchSettings, use_flags: bool) -> str:
    """The inputs of a release: population, every setting (correlation model, seed and
    detectors included) and the landmark source."""
    return sha256_hex(json.dumps([pop["key"], repr(settings), use_flags],
                                 default=str).encode())


def population_plans(pop: dict, discovery: DiscoverySettings, use_flags: bool) -> list:
    """Every user's landmarks, found once per population and detector settings and kept
    for the session (the slow part of the preview; :func:`user_plans`)."""
    key = json.dumps([pop["key"], pop["kind"], use_flags,
                      None if use_flags else repr(discovery)])
    kept = st.session_state.get(K.POP_PLANS)
    if kept is not None and kept[0] == key:
        return kept[1]
    plans = user_plans(pop["frame"], pop["kind"], discovery, use_flags)
    st.session_state[K.POP_PLANS] = (key, plans)
    return plans


def request_release(key: str) -> None:
    """Button callback: release at the settings of ``key`` on this run."""
    st.session_state[K.POP_REQUEST] = key
    st.session_state[K.POP_CANCELLED] = False


def cancel_release() -> None:
    """Button callback: the rerun it triggers stops the release under way (Streamlit
    stops a running script at its next element when a widget changes)."""
    st.session_state[K.POP_REQUEST] = None
    st.session_state[K.POP_CANCELLED] = True


def run_release(pop: dict, settings: BatchSettings, use_flags: bool, key: str) -> None:
    """Release the whole population with a progress bar and keep it for the session
    under ``key`` (a rerun never draws a second, independent release)."""
    frame = pop["frame"] if use_flags else pop["frame"].drop(columns="landmark",
                                                             errors="ignore")
    bar = st.progress(0.0, text="Releasing every user…")
    res = release_in_process(frame, pop["kind"], settings, progress=lambda d, n: bar.progress(
        d / n, text=f"Releasing every user… {d:,} of {n:,}"))
    bar.empty()
    results = st.session_state[K.POP_RESULTS]
    results[key] = {"key": key, "pop": pop["key"], "result": res, "settings": settings,
                    "label": release_label(settings, use_flags)}
    while len(results) > KEPT_RELEASES:
        results.pop(next(iter(results)))
    st.session_state[K.POP_LAST] = key
    st.session_state[K.POP_REQUEST] = None


def release_label(settings: BatchSettings, use_flags: bool) -> str:
    """The settings of a release in one line (shown when they are not the current ones)."""
    mech = (mechanism_text(settings.mechanism, sensitivity=settings.sensitivity)
            if settings.kind == "series" else mechanism_text("planar_laplace",
                                                              radius=settings.radius))
    return (f"ε = {settings.epsilon:g}, {SCHEMES[settings.scheme].label}, {mech}, "
            f"{sampler(settings)} noise, landmarks "
            + ("from the flag column" if use_flags else "discovered per user"))


def open_user(pop: dict, user: object, discovery: DiscoverySettings, use_flags: bool) -> None:
    """Button callback: add the user's series / track with its landmarks to the session
    and select it (before the sidebar is drawn); the page then switches to the Timeline /
    Map page."""
    st.session_state[K.POP_OPEN_ERROR] = None
    try:
        frame = pop["frame"] if use_flags else pop["frame"].drop(columns="landmark",
                                                                 errors="ignore")
        lm = user_landmarks(frame, user, pop["time_kind"], discovery)
        label = (f"{shorten_user_text(pop['name'], 40)} · user "
                 f"{shorten_user_text(str(user), 30)}")
        if pop["kind"] == "series":
            name = add_series(label, user_series(frame, user, pop["time_kind"], pop["unit"]),
                              lm)
            # the runs the batch released as one landmark event each (docs/series-events.md)
            set_series_runs(user_stays(frame, user, pop["time_kind"], discovery), name)
            st.session_state[K.POP_SWITCH] = "app_pages/timeline.py"
            return
        track = user_track(frame, user, pop["time_kind"])
        # the stays the batch released as one landmark event each (docs/stays.md)
        stays = user_stays(frame, user, pop["time_kind"], discovery)
        # a stay's fixes are its one event; a flagged fix outside every run of flags
        # stays a landmark of its own, as in the batch
        lm = ([t for t in lm if not any(a <= t <= b for a, b in stays)]
              if "landmark" in frame else [] if stays else lm)
        if len(track) > MAX_TRACK_POINTS:
            raise InputError(f"user {quote_user_text(str(user), 30)} has {len(track):,} "
                             f"points; the Map page handles up to {MAX_TRACK_POINTS:,}")
    except InputError as exc:
        st.session_state[K.POP_OPEN_ERROR] = f"Cannot open this user: {exc}."
        return
    if label in st.session_state[K.TRACK_SETS]:  # opened before: replace, do not duplicate
        st.session_state[K.TRACK_SETS][label] = track
        st.session_state[K.TRACK_LANDMARKS][label] = sorted(lm)
        st.session_state[K.W_TRACK_NAME] = label
    else:
        add_track(label, track, lm)
    set_track_stays(stays, label)
    st.session_state[K.POP_SWITCH] = "app_pages/map.py"


def estimate_model(pop: dict) -> None:
    """Estimate the matrices from every user and make them the session's model (the
    Leakage page's 'uploaded matrix' path)."""
    ss = st.session_state
    kind = pop["kind"]
    try:
        m = population_correlation(
            pop["frame"], kind, bins=int(ss[K.W_CORR_BINS]), binning=ss[K.W_CORR_BINNING],
            smoothing=float(ss[K.W_CORR_SMOOTHING]), cell_size_m=float(ss[K.W_CELL_SIZE]),
            unit=pop["unit"], max_states=MAX_LEAKAGE_STATES)
    except InputError as exc:
        ss[K.POP_MODEL_ERROR] = f"Cannot estimate the matrix: {exc}."
        return
    ss[K.POP_MODEL_ERROR] = None
    name = f"population estimate ({m.users:,} users, {m.n_states} states)"
    ss[K.CORR_MATRICES] = {"forward": (name, m.forward), "backward": (name, m.backward)}
    ss[K.correlation_kind_key(kind)] = "matrix"
    ss[K.correlation_backward_key(kind)] = "matrix"
    ss[K.POP_MODEL_NOTE] = f"{name}: {m.description}."


def batch_config(pop: dict, settings: BatchSettings, use_flags: bool) -> ViewConfig:
    """The configuration of the batch: the release settings, the correlation model and
    the detectors' parameters; no data, no landmarks, no seed (the batch draws fresh OS
    entropy unless given --seed)."""
    d = settings.discovery
    s = current_settings()
    extra = {"correlation": correlation_spec(pop["kind"]), "cell_size_m": s.cell_size}
    if settings.region is not None:  # the declared region of the tracks' exact release
        extra["region"] = settings.region
    if settings.max_landmarks is not None:  # the declared bound k (public)
        extra["max_landmarks"] = int(settings.max_landmarks)
    if not use_flags:
        extra["discovery"] = {"window": d.window, "k": d.k, "season": d.season,
                              "distance_m": d.distance_m, "duration_min": d.duration_min}
    # provenance: an uploaded population is named by its file (name + SHA-256), never as
    # a demo dataset (lmdk report refuses a batch configuration and says which file)
    return ViewConfig(
        data_kind=pop["kind"], **batch_dataset(pop["kind"], pop["name"], pop.get("sha256")),
        time_kind=pop["time_kind"] if pop["time_kind"] == "datetime"
        else "number", landmarks=[], epsilon=settings.epsilon, scheme=settings.scheme,
        window=s.window, mechanism=s.mechanism,
        sensitivity=settings.sensitivity, radius=settings.radius, seed=None,
        correlation_strength=s.correlation_strength, page="population",
        extra=extra)


def batch_command(pop: dict, use_flags: bool) -> str:
    """The ``lmdk batch`` command that runs this page's release on the full dataset."""
    cols: PopulationColumns = pop["cols"]
    s = current_settings()
    return batch_command_line(batch_options(
        cols, "population.parquet" if pop["key"].startswith("demo") else pop["name"],
        landmark_col=cols.landmark if use_flags else None,
        seed=s.seed if s.reproducible else None))
