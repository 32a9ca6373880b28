"""Timeline: mark landmarks on a time series, release it, read budget and verdict."""

from __future__ import annotations

import numpy as np
import streamlit as st

from app_pages.components import (
    SERIES_STATES,
    cached_series_leakage,
    cached_series_release,
    error_metrics,
    leakage_note,
    verdict_badge,
)
from app_pages.current_data import current_data, view_config
from app_pages.report_button import report_download_button
from app_pages.session import (
    DEMO_SERIES,
    STRENGTH_LABEL,
    add_series,
    current_series,
    series_landmarks,
    set_series_landmarks,
    set_setting,
    setting,
    strength_ladder,
)
from lmdk_core.config import config_from_json, config_to_json
from lmdk_core.data.demo import demo_series_landmarks
from lmdk_core.data.series import load_series_csv
from lmdk_core.discovery import (
    DEFAULT_DEVIATION_K,
    DEFAULT_DEVIATION_WINDOW,
    deviation_suggestions,
)
from lmdk_core.export import series_release_frame
from lmdk_core.figures import hover_labels, timeline_figure
from lmdk_core.validation import InputError

CHART_KEY = "timeline_chart"
SELECT_KEY = "w_lm_select"

name, series = current_series()
T = len(series)
labels = hover_labels(series.time, series.time_kind)


# ---------------------------------------------------------------- callbacks
def _on_chart_select() -> None:
    state = st.session_state.get(CHART_KEY)
    points = (state or {}).get("selection", {}).get("points", []) if state else []
    hit = sorted({int(p["customdata"][0]) for p in points if p.get("customdata")})
    if hit:
        lm = set(series_landmarks(name))
        set_series_landmarks(lm.symmetric_difference(hit), name)


def _on_multiselect() -> None:
    set_series_landmarks(st.session_state[SELECT_KEY], name)


def _clear() -> None:
    set_series_landmarks([], name)


def _demo_events() -> None:
    set_series_landmarks(demo_series_landmarks(), name)


def _suggest() -> None:
    try:
        found = deviation_suggestions(series.values, int(st.session_state.dev_window),
                                      float(st.session_state.dev_k))
    except InputError as exc:
        st.session_state.suggest_error = str(exc)
        return
    st.session_state.suggest_error = None
    st.session_state.suggestions[name] = [
        (s.timestamp, s.score, s.direction) for s in found]


def _accept_suggestions() -> None:
    found = st.session_state.suggestions.pop(name, [])
    set_series_landmarks(set(series_landmarks(name)) | {t for t, _, _ in found}, name)


def _dismiss_suggestions() -> None:
    st.session_state.suggestions.pop(name, None)


def _on_upload() -> None:
    f = st.session_state.get("series_upload")
    if f is None:
        return
    try:
        s = load_series_csv(f.getvalue(), name=f.name)
    except InputError as exc:
        st.session_state.upload_error = (f"Could not use {f.name}: {exc}. Your current data, "
                                         "landmarks and settings are unchanged.")
        return
    st.session_state.upload_error = None
    add_series(f"Upload: {f.name}", s)


def _on_config() -> None:
    f = st.session_state.get("config_upload")
    if f is None:
        return
    try:
        cfg = config_from_json(f.getvalue())
        if cfg.data_kind != "series":
            raise InputError("this configuration is for a trajectory; open it on the Map page")
        if cfg.dataset == "demo-household":
            target, s = DEMO_SERIES, st.session_state.series_sets[DEMO_SERIES]
        elif cfg.dataset == "embedded":
            import pandas as pd

            table = pd.DataFrame(cfg.data).to_csv(index=False).encode()
            s = load_series_csv(table, name="restored series")
            target = None
        else:
            raise InputError(f"unknown dataset {cfg.dataset!r}")
        if any(t >= len(s) for t in cfg.landmarks):
            raise InputError("a landmark lies beyond the end of the series")
    except InputError as exc:
        st.session_state.upload_error = (f"Could not restore {f.name}: {exc}. Nothing was "
                                         "changed.")
        return
    st.session_state.upload_error = None
    if target is None:
        target = add_series("Restored: " + f.name, s)
    st.session_state.w_series_name = target
    set_series_landmarks(cfg.landmarks, target)
    for k in ("epsilon", "scheme", "window", "mechanism", "sensitivity", "seed",
              "correlation_strength"):
        set_setting(k, getattr(cfg, k))


# ---------------------------------------------------------------- page
st.title(":material/show_chart: Timeline")
st.caption(
    f"**{name}** — {T} timestamps"
    + (f", unit {series.unit}" if series.unit else "")
    + ". Click a point on the chart to mark or unmark it as a landmark; use the box or "
    "lasso tool of the chart toolbar to toggle several at once."
)

with st.expander(":material/upload_file: Use your own data, or restore a saved view"):
    c1, c2 = st.columns(2)
    c1.file_uploader("Series CSV with columns `time,value` (times: whole numbers or ISO "
                     "dates, increasing)", type=["csv", "txt"], key="series_upload",
                     on_change=_on_upload)
    c2.file_uploader("Configuration JSON (downloaded below)", type=["json"],
                     key="config_upload", on_change=_on_config)
if st.session_state.get("upload_error"):
    st.error(st.session_state.upload_error, icon=":material/error:")

landmarks = series_landmarks(name)
st.session_state[SELECT_KEY] = landmarks
st.session_state.setdefault("suggestions", {})
lc1, lc2, lc3, lc4 = st.columns([6, 1.1, 1.1, 1.1], vertical_alignment="bottom")
lc1.multiselect(
    f"Landmarks ({len(landmarks)})", options=list(range(T)), key=SELECT_KEY,
    format_func=lambda t: f"t={t} · {labels[t]}", on_change=_on_multiselect,
    help="Add or remove landmarks precisely; the chart and the budget follow.",
    placeholder="No landmarks: click points on the chart or pick timestamps here",
)
lc2.button("Clear", on_click=_clear, width="stretch",
           help="Remove every landmark of this series.")
with lc3.popover("Suggest", icon=":material/auto_awesome:", width="stretch",
                 help="Find unusual values to consider as landmarks."):
    st.markdown("Flag timestamps whose value is far from the usual level (a rolling "
                "median): more than *k* robust standard deviations away.")
    st.number_input("Window (timestamps)", min_value=3, max_value=10_000,
                    value=DEFAULT_DEVIATION_WINDOW, key="dev_window",
                    help="Length of the rolling median that defines the usual level.")
    st.number_input("k (robust standard deviations)", min_value=0.5, max_value=50.0,
                    value=DEFAULT_DEVIATION_K, step=0.5, key="dev_k",
                    help="Larger k = fewer, more extreme suggestions.")
    st.button("Find suggestions", on_click=_suggest, type="primary")
if name == DEMO_SERIES:
    lc4.button("Demo events", on_click=_demo_events, width="stretch",
               help="The demo week's notable events: a night-time device, a hospital "
                    "visit, a party.")
if st.session_state.get("suggest_error"):
    st.error(f"Cannot suggest landmarks: {st.session_state.suggest_error}",
             icon=":material/error:")
pending = st.session_state.suggestions.get(name)
if pending is not None:
    new = [(t, sc, d) for t, sc, d in pending if t not in landmarks]
    if new:
        listing = ", ".join(f"t={t} ({labels[t]}, {sc:.1f}σ {d})" for t, sc, d in new[:12])
        more = f" and {len(new) - 12} more" if len(new) > 12 else ""
        sc1, sc2, sc3 = st.columns([6, 1.1, 1.1], vertical_alignment="center")
        sc1.info(f"**{len(new)} suggested landmark{'s' if len(new) != 1 else ''}** (open "
                 f"diamonds on the chart; click one to accept it alone): {listing}{more}.",
                 icon=":material/auto_awesome:")
        sc2.button("Accept all", on_click=_accept_suggestions, width="stretch")
        sc3.button("Dismiss", on_click=_dismiss_suggestions, width="stretch")
    else:
        st.info("No new suggestions: every unusual value is already a landmark, or none "
                "stands out at this k.", icon=":material/info:")

try:
    rel = cached_series_release(
        series.values, tuple(landmarks), float(setting("epsilon")), setting("scheme"),
        setting("mechanism"), float(setting("sensitivity")), int(setting("seed")),
        int(setting("window")),
    )
except InputError as exc:
    st.error(f"Cannot release this series: {exc}", icon=":material/error:")
    st.stop()

verdict_badge(rel.verdict, labels[rel.verdict.worst_timestamp])
error_metrics(rel, series.unit)

k1, k2, k3 = st.columns([2, 3, 4], vertical_alignment="bottom")
k1.toggle("Temporal leakage (TPL)", key="w_series_leakage",
          help="Cao et al. (ICDE'17): how much a release leaks when consecutive values are "
               "correlated. Adds a third panel with TPL and landmark TPL.")
leakage = None
if setting("series_leakage"):
    k2.select_slider(
        STRENGTH_LABEL, key="w_correlation_strength",
        options=strength_ladder(float(setting("correlation_strength"))),
        format_func=lambda s: f"{s:g}",
        help=f"Cao et al.'s smoothed model: {SERIES_STATES} states, P = (I + s)/(1 + n·s). "
             "s → 0: the value never changes (strongest correlation, leakage grows without "
             "bound); large s: nearly independent values (leakage ≈ the theorem's total). "
             "The Leakage page lets you estimate or upload the matrix.")
    leakage = cached_series_leakage(rel.epsilon_t, tuple(landmarks),
                                    float(setting("correlation_strength")))
    k3.caption(
        f"Largest TPL **{np.max(leakage['TPL']):.3g}** (one timestamp), largest landmark TPL "
        f"**{np.max(leakage['landmark TPL']):.3g}** (all landmarks + one timestamp) against "
        f"ε = {rel.epsilon:g}. Without correlation the landmark TPL equals the green total.")
    leakage_note(float(np.max(leakage["landmark TPL"])), rel.epsilon)

fig = timeline_figure(series.time, series.time_kind, rel, unit=series.unit, leakage=leakage,
                      suggestions=[t for t, _, _ in (pending or [])])
st.plotly_chart(fig, key=CHART_KEY, on_select=_on_chart_select,
                selection_mode=("points", "box", "lasso"), width="stretch")

with st.expander("How to read this"):
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
cfg = view_config(current_data("series"), page="timeline")
d1, d2, d3, _ = st.columns([1, 1, 1, 1])
d1.download_button("Released series (CSV)",
                   series_release_frame(series, rel).to_csv(index=False),
                   file_name="released_series.csv", mime="text/csv", icon=":material/download:")
d2.download_button("Configuration (JSON)", config_to_json(cfg), icon=":material/download:",
                   file_name="lmdk_view.json", mime="application/json",
                   help="Upload it above to restore exactly this view (seed included).")
with d3:
    report_download_button(cfg, key="timeline_report")

