"""Timeline: mark landmarks on a time series, release it, read budget and verdict."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings, set_setting
from app_support.components import (
    cached_series_release,
    error_metrics,
    model_caption,
    render_verdict,
)
from app_support.correlation_state import STRENGTH_LABEL, strength_ladder
from app_support.current_data import current_data, view_config
from app_support.download_buttons import (
    RESTORE_HELP,
    reference_uploader,
    reload_note,
    restore_uploaded_config,
    series_downloads,
)
from app_support.live_chart import chart_selection, live_chart, scrubbed_epsilon
from app_support.series_upload import column_choices, on_series_upload
from app_support.session import (
    DEMO_SERIES,
    add_series,
    current_series,
    series_landmarks,
    series_runs,
    set_series_landmarks,
    set_series_runs,
    settings_on_page,
    take_epsilon,
)
from lmdk_core.data.demo import demo_series_landmarks
from lmdk_core.decision.mechanism_choice import clamp_to_bounds, mechanism_problems
from lmdk_core.figures import hover_labels, timeline_figure
from lmdk_core.figures.chart_selection import (
    BOX_MODES,
    apply_selection,
    point_timestamp,
    timestamps_in_box,
)
from lmdk_core.figures.decimation import DISPLAY_MAX_POINTS
from lmdk_core.figures.epsilon_preview import LINEAR_SCHEMES, slider_range, timeline_preview
from lmdk_core.figures.style import spans_years
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.setting_limits import LIMITS
from lmdk_core.foundation.validation import parse_landmark_entry, picker_entries
from lmdk_core.landmarks.discovery import (
    DEFAULT_DEVIATION_K,
    DEFAULT_DEVIATION_WINDOW,
    DEFAULT_MAX_SUGGESTED_EVENTS,
    SCORE_EXPLAINED,
    sampling_window,
    series_suggestions,
    shown_score,
    suggestion_events,
)

CHART_KEY = K.TIMELINE_CHART
SELECT_KEY = K.W_LM_SELECT
#: up to this many landmarks the picker has one chip per landmark; above, one chip per run
#: of consecutive timestamps (a box over 150 points is one chip, not 150: a picker of
#: hundreds of chips is hard to read, and the browser took ~0.3 s to redraw it per rerun)
PICKER_MAX_SINGLE = 50

name, series = current_series()
T = len(series)
BOX_MODE_KEY = K.TIMELINE_BOX_MODE
st.session_state.setdefault(BOX_MODE_KEY, "add")
st.session_state.setdefault(K.TIMELINE_CHART_VERSION, 0)


def chart_key() -> str:
    """The chart's widget key; a new one forgets the chart's last selection (so the same
    box drawn again after switching between add and remove counts as a new selection)."""
    return f"{CHART_KEY}_{st.session_state[K.TIMELINE_CHART_VERSION]}"


def _on_box_mode() -> None:
    if not st.session_state.get(BOX_MODE_KEY):  # clicking the chosen mode again unselects
        st.session_state[BOX_MODE_KEY] = "add"
    st.session_state[K.TIMELINE_CHART_VERSION] += 1


def label(t: int) -> str:
    """The hover label of timestamp t (labels are made for the few shown, never for all
    T: a 200,000-row series must not cost seconds per rerun)."""
    return hover_labels(series.time[[int(t)]], series.time_kind,
                        years=spans_years(series.time))[0]


def entry_timestamps(entry: object) -> list[int]:
    """The landmarks of one picker entry: a chip (t or a run ``(first, last)``) or a typed
    entry in the landmark syntax (:func:`lmdk_core.foundation.validation.parse_landmark_entry`)."""
    return parse_landmark_entry(entry, T, "series")


# ---------------------------------------------------------------- callbacks
def _on_chart_select() -> None:
    """A click toggles the clicked point; a box or lasso adds or removes (the explicit
    mode beside the chart) every covered timestamp. A box is answered from the full data
    (the chart of a long series draws only min/max per pixel)."""
    sel = chart_selection(chart_key())
    boxes, lassos = sel["box"], sel["lasso"]
    hit = {t for p in sel["points"]
           if (t := point_timestamp(p)) is not None and 0 <= t < T}
    for box in boxes:
        data_panel = box.get("yref", "y") in ("y", None)
        hit.update(timestamps_in_box(series.time, series.time_kind, box,
                                     [series.values] if data_panel else []).tolist())
    if hit:
        set_series_landmarks(apply_selection(
            series_landmarks(name), hit, is_box=bool(boxes or lassos),
            mode=st.session_state.get(BOX_MODE_KEY) or "add"), name)


def _on_multiselect() -> None:
    """The picker lists only the current landmarks (never every timestamp); a typed
    timestamp is added, a removed chip (a landmark or a run of them) is removed."""
    entries = st.session_state[SELECT_KEY] or []
    kept, errors = [], []
    for e in entries:
        try:
            kept.extend(entry_timestamps(e))
        except InputError as exc:
            errors.append(str(exc))
    st.session_state[K.PICKER_ERROR] = "; ".join(errors) or None
    set_series_landmarks(sorted(set(kept)), name)


def _on_scrub() -> None:
    """The chart's ε slider was let go: its ε becomes the session's (as if typed in the
    sidebar, which forgets a calibrated target)."""
    take_epsilon(scrubbed_epsilon(chart_key()))


def _clear() -> None:
    set_series_landmarks([], name)
    set_series_runs([], name)


def _forget_runs() -> None:
    """Protect every reading of the accepted runs on its own (each a landmark event)."""
    set_series_runs([], name)


def _demo_events() -> None:
    set_series_landmarks(demo_series_landmarks(), name)


def _suggest() -> None:
    window = (None if st.session_state.get(K.DEV_WINDOW_AUTO, True)
              else int(st.session_state[K.DEV_WINDOW]))
    try:  # daily/weekly profile removed; the window from the sampling interval
        found = series_suggestions(series.time, series.time_kind, series.values, window=window,
                                   k=float(st.session_state[K.DEV_K]))
    except InputError as exc:
        st.session_state[K.SUGGEST_ERROR] = str(exc)
        return
    st.session_state[K.SUGGEST_ERROR] = None
    st.session_state[K.SUGGESTIONS][name] = [
        (s.timestamp, s.score, s.direction) for s in found.found]
    st.session_state.setdefault(K.SUGGEST_INFO, {})[name] = (found.window_note,
                                                             found.left_out)


def _accept_suggestions() -> None:
    """The suggested readings become landmarks; with 'the run, as one event' (the
    default) each run of consecutive suggested readings is one landmark event
    (docs/series-events.md)."""
    found = {t for t, _, _ in st.session_state[K.SUGGESTIONS].pop(name, [])}
    runs = series_runs(name)
    set_series_landmarks(set(series_landmarks(name)) | found, name)
    if st.session_state.get(K.W_RUN_MARK, "event") == "event":
        set_series_runs([*runs, *(r for r in suggestion_events(found) if r[1] > r[0])], name)


def _dismiss_suggestions() -> None:
    st.session_state[K.SUGGESTIONS].pop(name, None)


def _derived_series(label: str, values: np.ndarray) -> None:
    """Add a copy of the current series with new values (and its landmarks)."""
    new = add_series(f"{name} ({label})", replace(series, values=values,
                                                  name=f"{series.name} ({label})"),
                     landmarks=series_landmarks(name))
    set_series_runs(series_runs(name), new)


def _add_rounded() -> None:
    _derived_series("rounded", np.round(series.values))


def _add_clamped(lower: float, upper: float) -> None:
    clamp = clamp_to_bounds(series.values, lower, upper)
    _derived_series(f"clamped to [{lower:g}, {upper:g}]", clamp.values)
    set_setting("sensitivity", clamp.sensitivity)


# ---------------------------------------------------------------- page
st.title(":material/show_chart: Timeline")
st.caption(
    f"{quote_user_text(name)} — {T} timestamps"
    + (f", unit {quote_user_text(series.unit)}" if series.unit else "")
    + ". Click a point on the chart to mark or unmark it as a landmark; use the box or "
    "lasso tool of the chart toolbar to toggle several at once."
)

with st.expander(":material/upload_file: Use your own data, or restore a saved view"):
    c1, c2 = st.columns(2)
    c1.file_uploader("Series CSV with columns `time,value` (times: whole numbers or ISO "
                     "dates, increasing)", type=["csv", "txt"], key=K.SERIES_UPLOAD,
                     on_change=on_series_upload)
    c2.file_uploader("Configuration JSON (downloaded below)", type=["json"],
                     help=RESTORE_HELP,
                     key=K.CONFIG_UPLOAD, on_change=restore_uploaded_config,
                     args=(K.CONFIG_UPLOAD, "series"))
    column_choices()
reload_note(name != DEMO_SERIES, key="timeline_forget_tab")
reference_uploader("series", "series_reference_upload")
if st.session_state.get(K.UPLOAD_ERROR):
    st.error(st.session_state[K.UPLOAD_ERROR], icon=":material/error:")
for note in getattr(series, "notes", ()):  # e.g. repeated times kept (docs/data-formats.md)
    st.caption(note)

landmarks = series_landmarks(name)
runs = series_runs(name)
chips = picker_entries(landmarks, PICKER_MAX_SINGLE)
st.session_state[SELECT_KEY] = chips
ends = sorted({t for c in chips for t in (c if isinstance(c, tuple) else (c,))})
lm_labels = dict(zip(ends, hover_labels(series.time[ends], series.time_kind,
                                              years=spans_years(series.time)),
                     strict=True)) if ends else {}


def _when(t: int) -> str:
    """The time of t, or '' when the series' times are just t again (0, 1, 2, …)."""
    label = lm_labels[t]
    return "" if label == str(t) else label


def chip_label(entry: object) -> str:
    """'t=12 · Mon …' for a landmark, 't=100–239 · … – … (140 timestamps)' for a run
    (without the times when they are the timestamps themselves)."""
    if isinstance(entry, tuple):
        a, b = entry
        when = f" · {_when(a)} – {_when(b)}" if _when(a) or _when(b) else ""
        return f"t={a}–{b}{when} ({b - a + 1} timestamps)"
    if entry not in lm_labels:
        return str(entry)
    return f"t={entry} · {_when(entry)}" if _when(entry) else f"t={entry}"


st.session_state.setdefault(K.SUGGESTIONS, {})
# the picker, then its buttons: one row on a wide screen (wide enough for "Suggest"
# with its icons), the buttons in one row under the picker on a phone
lc1, lc2, lc3, lc4 = st.container(key="lmdk_wrap_landmarks").columns(
    [5, 1, 1.5, 1.5], vertical_alignment="bottom")
lc1.multiselect(
    f"Landmarks ({len(landmarks)})", options=chips, key=SELECT_KEY,
    format_func=chip_label, on_change=_on_multiselect, accept_new_options=True,
    help=f"Type a timestamp t (0 to {T - 1}) and press Enter to add it; remove a chip to "
         "unmark it. The chart and the budget follow. Above "
         f"{PICKER_MAX_SINGLE} landmarks, each run of consecutive timestamps is one chip.",
    placeholder="No landmarks: click points on the chart or type a timestamp t here",
)
lc2.button("Clear", on_click=_clear, width="stretch",
           help="Remove every landmark of this series.")
with lc3.popover("Suggest", icon=":material/auto_awesome:", width="stretch",
                 help="Find unusual values to consider as landmarks."):
    st.markdown("Flag timestamps whose value is far from the usual level (a rolling "
                "median): more than *k* robust standard deviations away.")
    auto_w, auto_how = sampling_window(series.time, series.time_kind, len(series))
    st.toggle("Window from the sampling interval", value=True, key=K.DEV_WINDOW_AUTO,
              help="A day of readings, 24 to 1,440 and at most a quarter of the series; "
                   "off: the window below.")
    if st.session_state.get(K.DEV_WINDOW_AUTO, True):
        st.caption(f"This series: {auto_how}.")
    st.number_input("Window (timestamps)",
                    min_value=LIMITS["spike_window"].low,
                    max_value=LIMITS["spike_window"].high,
                    value=DEFAULT_DEVIATION_WINDOW, key=K.DEV_WINDOW,
                    disabled=st.session_state.get(K.DEV_WINDOW_AUTO, True),
                    help="Length of the rolling median that defines the usual level "
                         "(and the shortest level shift).")
    st.number_input("k (robust standard deviations)",
                    min_value=LIMITS["spike_k"].low,
                    max_value=LIMITS["spike_k"].high,
                    value=DEFAULT_DEVIATION_K, step=0.5, key=K.DEV_K,
                    help="Larger k = fewer, more extreme suggestions.")
    st.button("Find suggestions", on_click=_suggest, type="primary")
if name == DEMO_SERIES:
    lc4.button("Demo events", on_click=_demo_events, width="stretch",
               help="The demo week's notable events: a night-time device, a hospital "
                    "visit, a party.")
if runs:
    n_read = sum(b - a + 1 for a, b in runs)
    n_events = len(landmarks) - n_read + len(runs)
    rc1, rc2 = st.columns([6, 2], vertical_alignment="center")
    rc1.caption(
        f":material/shield: **{len(runs)} run{'s' if len(runs) != 1 else ''} of readings, "
        f"one landmark event each** ({', '.join(f't={a}–{b}' for a, b in runs[:6])}"
        f"{' …' if len(runs) > 6 else ''}): {n_read:,} readings cost {len(runs)} landmark "
        f"event{'s' if len(runs) != 1 else ''}, not {n_read:,} — {n_events:,} landmark "
        "events in all, which the declared k must cover. Each run is released once, from "
        "its mean, and its readings publish that level plus fresh noise "
        "(docs/series-events.md). Unmark a reading to split its run.")
    rc2.button("Protect each reading on its own", on_click=_forget_runs, width="stretch",
               help="Every reading of the runs becomes a landmark event of its own (k must "
                    "then cover them all).")
if st.session_state.get(K.PICKER_ERROR):
    st.error(f"Not added: {st.session_state[K.PICKER_ERROR]}.", icon=":material/error:")
if st.session_state.get(K.SUGGEST_ERROR):
    st.error(f"Cannot suggest landmarks: {st.session_state[K.SUGGEST_ERROR]}",
             icon=":material/error:")
pending = st.session_state[K.SUGGESTIONS].get(name)
if pending is not None:
    new = [(t, sc, d) for t, sc, d in pending if t not in landmarks]
    if new:
        listing = ", ".join(f"t={t} ({label(t)}, {shown_score(sc)} {d})"
                            for t, sc, d in new[:12])
        more = f" and {len(new) - 12} more" if len(new) > 12 else ""
        sc1, sc2, sc3 = st.columns([6, 1.1, 1.1], vertical_alignment="center")
        n_ev = len(suggestion_events(t for t, _, _ in new))
        sc1.info(f"**{len(new)} suggested landmark{'s' if len(new) != 1 else ''}** in {n_ev} "
                 f"event{'s' if n_ev != 1 else ''} (runs of consecutive timestamps; open "
                 f"diamonds on the chart; click one to accept it alone): {listing}{more}.",
                 icon=":material/auto_awesome:")
        how, left_out = st.session_state.get(K.SUGGEST_INFO, {}).get(name, ("", 0))
        if how:
            sc1.caption(f"Rolling-median window of {how}."
                        + (f" {left_out:,} weaker event{'s' if left_out != 1 else ''} "
                           f"left out: at most {DEFAULT_MAX_SUGGESTED_EVENTS} are offered "
                           "(raise k for fewer)." if left_out else "")
                        + f" Scores: {SCORE_EXPLAINED}.")
        if n_ev < len(new):
            st.session_state.setdefault(K.W_RUN_MARK, "event")
            sc1.radio("Accepting a run protects", ["event", "readings"], key=K.W_RUN_MARK,
                      horizontal=True,
                      format_func={"event": "the run, as one event",
                                   "readings": "every reading, each a landmark"}.get,
                      help="One event (recommended): the run is released once, from its "
                           "mean, and its readings publish that level plus fresh noise, so "
                           "its cost does not grow with its readings and k counts it once. "
                           "Every reading: each is a landmark event of its own; Uniform "
                           "then divides ε by their number.")
        sc2.button("Accept all", on_click=_accept_suggestions, width="stretch")
        sc3.button("Dismiss", on_click=_dismiss_suggestions, width="stretch")
    else:
        st.info("No new suggestions: every unusual value is already a landmark, or none "
                "stands out at this k.", icon=":material/info:")

# the chart one clicks comes right under the landmarks (at 1440×900 it was below the fold,
# under the verdict); it is drawn into this place at the end, once the release is known
chart_area = st.container()

# ---------------------------------------------------------------- mechanism and Δf
settings = current_settings()
mechanism = settings.mechanism
problems = mechanism_problems(series.values, mechanism, settings.sensitivity)
if problems:  # say everything that must change at once, keep the page alive
    st.error(
        "**The Geometric mechanism cannot release this series yet:**\n"
        + "\n".join(f"- {p.problem}; **fix:** {p.fix}." for p in problems)
        + "\n\nUntil then the page shows the **Laplace** release with the same ε and Δf.",
        icon=":material/error:")
    f1, f2, f3 = st.columns(3)
    f1.button("Use Laplace", on_click=set_setting, args=("mechanism", "laplace"),
              icon=":material/swap_horiz:", width="stretch")
    if any(p.kind == "sensitivity" for p in problems):
        whole = float(max(1, int(np.ceil(settings.sensitivity))))
        f2.button(f"Set Δf = {whole:g}", on_click=set_setting, args=("sensitivity", whole),
                  width="stretch")
    if any(p.kind == "data" for p in problems):
        f3.button("Round the values (new dataset)", on_click=_add_rounded, width="stretch",
                  help="Adds a copy of this series rounded to whole numbers; the original "
                       "stays in the list.")
    mechanism = "laplace"

with st.expander(":material/straighten: Sensitivity Δf from data bounds"):
    st.caption(
        "As diffprivlib and OpenDP do: state the smallest and largest value one reading "
        "can take (from the meter's or survey's specification, not from these data — "
        "bounds read off the data leak them). Values outside are clamped to the bounds; "
        "one person's reading then changes a value by at most Δf = upper − lower.")
    lo_default = float(np.floor(np.min(series.values)))
    hi_default = float(np.ceil(np.max(series.values)))
    b1, b2 = st.columns(2)
    lo = b1.number_input("Lower bound", value=lo_default, key=f"w_bound_lo_{name}")
    hi = b2.number_input("Upper bound", value=max(hi_default, lo_default + 1),
                         key=f"w_bound_hi_{name}")
    try:
        clamp = clamp_to_bounds(series.values, lo, hi)
    except InputError as exc:
        st.error(f"{exc}.", icon=":material/error:")
    else:
        st.markdown(
            f"Δf = {clamp.upper:g} − {clamp.lower:g} = **{clamp.sensitivity:g}**; "
            f"**{clamp.n_clamped:,}** of {T:,} values would be clamped ({clamp.n_below:,} "
            f"below, {clamp.n_above:,} above). The data range is {np.min(series.values):g} "
            f"to {np.max(series.values):g} (a hint only).")
        st.button(f"Clamp the values and use Δf = {clamp.sensitivity:g}",
                  on_click=_add_clamped, args=(clamp.lower, clamp.upper),
                  help="Adds a clamped copy of this series (the original stays in the list) "
                       "and sets the sidebar's Δf.")

try:
    rel = cached_series_release(
        series.values, tuple(landmarks), settings.epsilon, settings.scheme, mechanism,
        settings.sensitivity, settings.seed, settings.window, settings.max_landmarks,
        tuple(runs),
    )
except InputError as exc:
    st.error(f"Cannot release this series: {exc}", icon=":material/error:")
    st.stop()

# the one verdict: the theorem plus landmark TPL under the session's correlation model
cur = current_data("series")
model, leakage, model_note = cur.leakage(rel.epsilon_t)
verdict = cur.verdict(rel, leakage, model, model_note)
settings_on_page()  # phones: ε and the scheme in view of the verdict
render_verdict(verdict, utility=cur.utility(rel), key="timeline_calibrate",
               sweep=cur.sweep(rel, model) if leakage is not None else None)
if name == DEMO_SERIES and verdict.colour == "amber":
    st.caption(":material/school: The demo opens amber on purpose: a household's hourly "
               "readings follow each other closely, so ε alone understates what an attacker "
               "who knows that learns. The calibration above is the fix; the Leakage page "
               "shows the model.")
model_caption(model, model_note)
error_metrics(rel, series.unit)

k1, k2, k3 = st.columns([2, 3, 4], vertical_alignment="bottom")
k1.toggle("Temporal leakage (TPL)", key=K.W_SERIES_LEAKAGE,
          help="Cao et al. (ICDE'17): how much a release leaks when consecutive values are "
               "correlated. Adds a third panel with TPL and landmark TPL.")
if settings.series_leakage and settings.corr_kind_series == "smoothed":
    k2.select_slider(
        STRENGTH_LABEL, key=K.W_CORRELATION_STRENGTH,
        options=strength_ladder(settings.correlation_strength),
        format_func=lambda s: f"{s:g}",
        help="The strength s of the session's correlation model (Cao et al.'s smoothed "
             "matrix P = (I + s)/(1 + n·s)), shared with the Leakage page. s → 0: the value "
             "never changes (strongest correlation, leakage grows without bound); large s: "
             "nearly independent values (leakage ≈ the theorem's total).")
if not settings.series_leakage:
    leakage = None  # the panel is off; the verdict above still uses the model
elif leakage is not None:
    k3.caption(
        f"Largest TPL **{np.max(leakage['TPL']):.3g}** (one timestamp), largest landmark TPL "
        f"**{np.max(leakage['landmark TPL']):.3g}** (all landmarks + one timestamp) against "
        f"ε = {rel.epsilon:g}. Without correlation the landmark TPL equals the green total.")

chart_area.segmented_control(
    "Box / lasso selection", list(BOX_MODES), key=BOX_MODE_KEY, format_func=BOX_MODES.__getitem__,
    on_change=_on_box_mode,
    help="What the box and lasso tools of the chart toolbar do with the timestamps they "
         "cover: add them all, or remove them all (selecting the same region twice changes "
         "nothing more). A single click on a point always toggles it.")
fig = timeline_figure(series.time, series.time_kind, rel, unit=series.unit, leakage=leakage,
                      suggestions=[t for t, _, _ in (pending or [])],
                      uirevision=f"timeline:{name}")  # zoom survives clicks, not a new series
# the ε slider above the chart redraws it in the browser while it moves (a preview:
# the same noise draws scaled, the leakage off a grid of ε; docs/app.md)
grid = None
if rel.scheme in LINEAR_SCHEMES:
    # the release's own plan per unit of ε (linear in ε): the declared k and the runs
    # released as one event each included (docs/series-events.md)
    share = rel.planned_epsilon_t / rel.epsilon
    grid = cur.leakage_grid(model, share, slider_range(rel.epsilon),
                            curves=leakage is not None)
live_chart(fig, key=chart_key(), where=chart_area, on_select=_on_chart_select,
           scrub=timeline_preview(fig, rel, leakage=leakage, grid=grid), on_scrub=_on_scrub)
if T > DISPLAY_MAX_POINTS:
    chart_area.caption(f"{T:,} timestamps: each curve is drawn with its minimum and maximum per "
               "pixel column, landmarks always (the release, the verdict and every download "
               "use all timestamps). Zoom in to see single points.")

with chart_area.expander("How to read this"):
    st.markdown(
        "- **Top**: grey is the true series, blue what would be published. Red stars are "
        "landmarks. Orange rings are *approximations*: the last release repeated, costing "
        "no budget (Skip and Adaptive).\n"
        "- **Middle**: bars are the budget ε_t spent at each timestamp (red at landmarks). "
        "The green line is the theorem's total: the landmarks' budgets plus ε_t. Landmark "
        "privacy holds when it never rises above the dashed ε line.\n"
        "- **Bottom** (when *Temporal leakage* is on): if consecutive values are "
        "correlated, an adversary who knows the correlation learns more than ε_t about one "
        "timestamp. TPL (dotted purple) is that leakage for one timestamp; landmark TPL "
        "(red) for all landmarks plus one timestamp. Compare them with the dashed ε line.\n"
        "- Expected error: Laplace noise has mean absolute error Δf/ε_t, so halving ε_t "
        "doubles the error. Released values can be negative or otherwise impossible: that "
        "is the noise. Clamping them to a valid range afterwards is post-processing and "
        "costs no privacy."
    )

# ---------------------------------------------------------------- downloads
# publishable files first (released values only); confidential ones behind their expander
cfg = view_config(current_data("series"), page="timeline")
series_downloads(series, rel, cfg, key="timeline", dataset_name=name)
