"""Compare: 2–4 schemes side by side on the same data, and their error against ε."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings
from app_support.components import (
    ICONS,
    compact_verdict_text,
    model_caption,
    render_utility,
    render_verdict,
    shared_plain_verdict,
)
from app_support.current_data import CurrentData, data_choice, view_config
from app_support.download_buttons import confidential_downloads
from app_support.figure_memo import content_key, memo_figure, release_figure_key
from app_support.live_chart import live_chart, scrubbed_epsilon
from app_support.report_button import release_note_button
from app_support.session import keep_page_state, settings_on_page, take_epsilon
from lmdk_core.decision.comparison import (
    UtilitySweep,
    epsilon_grid,
    series_release_fn,
    sweep_reading,
    track_release_fn,
    utility_sweep,
)
from lmdk_core.engine.allocation import SCHEMES, allocate
from lmdk_core.figures.common import data_labels, subplot_axes
from lmdk_core.figures.compare import side_by_side_figure, utility_figure
from lmdk_core.figures.epsilon_preview import LINEAR_SCHEMES, compare_preview, slider_range
from lmdk_core.files.export import CONFIDENTIAL_LABEL, confidential_filename, csv_with_header
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

SCHEMES_KEY = K.W_COMPARE_SCHEMES
#: sweeps kept per browser session (revisiting a setting is instant)
MAX_STORED_SWEEPS = 12

settings = current_settings()
keep_page_state({SCHEMES_KEY: ["uniform", "skip", "adaptive"], K.W_SWEEP_RUNS: 20,
                 K.W_SWEEP_POINTS: 9, K.W_SWEEP_LOW: round(settings.epsilon / 10, 4),
                 K.W_SWEEP_HIGH: round(settings.epsilon * 10, 4)})

def _centre_sweep(eps: float) -> None:
    st.session_state[K.W_SWEEP_LOW] = round(eps / 10, 4)
    st.session_state[K.W_SWEEP_HIGH] = round(eps * 10, 4)


st.title(":material/compare: Compare schemes")
st.caption(
    "The same data, landmarks, ε and seed under 2–4 budget schemes, aligned on one time "
    "axis; below, how the error of each scheme falls as ε grows, over many random runs."
)

cur: CurrentData = data_choice()
labels = data_labels(cur.data)
st.multiselect(
    "Schemes (2 to 4)", list(SCHEMES), key=SCHEMES_KEY, max_selections=4,
    format_func=lambda k: SCHEMES[k].label,
    help="; ".join(f"{s.label}: {s.description}" for s in SCHEMES.values()))
schemes: list[str] = list(st.session_state[SCHEMES_KEY])
eps = settings.epsilon
what = (f"{quote_user_text(cur.name)} — {cur.length:,} timestamps, {len(cur.landmarks)} "
        f"landmarks (edit them on the {'Map' if cur.is_track else 'Timeline'} page), "
        f"ε = {eps:g}, "
        + (f"teaching seed {settings.seed}, " if settings.reproducible else
           "one fresh random seed, "))
what += (f"Planar Laplace with r = {settings.radius:g} m." if cur.is_track else
         f"{settings.mechanism.capitalize()} with Δf = {settings.sensitivity:g}.")
st.caption(what)
if len(schemes) < 2:
    st.info("Pick at least two schemes to compare.", icon=":material/info:")
    st.stop()

# ---------------------------------------------------------------- side by side
try:
    releases = {s: cur.release(s) for s in schemes}
except InputError as exc:
    st.error(f"Cannot release this data: {exc}", icon=":material/error:")
    st.stop()

# the one verdict per scheme: theorem + landmark TPL under the session's correlation model
model, note = None, None
leaks: dict = {}
for s, rel in releases.items():
    model, leak, note = cur.leakage(rel.epsilon_t)
    if leak is None:
        break
    leaks[s] = leak
# every scheme's leakage, or None when the model gives none
leakage: dict | None = leaks if len(leaks) == len(releases) else None
verdicts = {s: cur.verdict(rel, leakage[s] if leakage else None, model, note)
            for s, rel in releases.items()}
model_caption(model, note)
show_leak = st.toggle("Temporal leakage (TPL and landmark TPL)", value=True,
                      key="compare_leakage")

def num(x: float) -> str:
    """An error in the data's unit ('1.33 kWh', '1,204 m') or a dash."""
    fmt = ",.0f" if cur.is_track else ".3g"
    return f"{x:{fmt}}" + (f" {cur.unit}" if cur.unit else "") if np.isfinite(x) else "—"


# one verdict box when every scheme gets the same verdict (three identical amber
# paragraphs side by side said it three times); each column keeps its own numbers
shared = len(schemes) > 1 and len({(v.colour, v.headline) for v in verdicts.values()}) == 1
settings_on_page(scheme=False)  # phones: ε in view of the verdicts
if shared:
    first = verdicts[schemes[0]]
    {"green": st.success, "amber": st.warning, "red": st.error}[first.colour](
        f"**{first.headline}** — all {len(schemes)} schemes. "
        + shared_plain_verdict([verdicts[s] for s in schemes]),
        icon=ICONS[first.colour])
cols = st.columns(len(schemes))
for col, s in zip(cols, schemes, strict=True):
    rel = releases[s]
    m = rel.metrics()
    with col:
        st.markdown(f"**{SCHEMES[s].label}**")
        if shared:  # the deciding numbers only, under the shared box's icon
            st.markdown(f"{ICONS[verdicts[s].colour]} "
                        + compact_verdict_text(verdicts[s]).split("**: ", 1)[-1])
            if (uv := cur.utility(rel)) is not None:
                render_utility(uv, compact=True)
        else:
            render_verdict(verdicts[s], compact=True, utility=cur.utility(rel))
        lines = [f"{'Mean displacement' if cur.is_track else 'MAE (measured)'} "
                 f"**{num(m['mae'])}** · expected {num(m['expected_mae_published'])}",
                 f"Published {m['n_published']} · approximated {m['n_approximated']}"
                 + (f" · withheld {m['n_withheld']}" if m["n_withheld"] else "")]
        if leakage and show_leak:
            lines.append(f"Max TPL {np.max(leakage[s]['TPL']):.3g} · max landmark TPL "
                         f"**{np.max(leakage[s]['landmark TPL']):.3g}**")
        st.markdown("  \n".join(lines),
                    help=("Measured over every released timestamp, approximations included; "
                          "expected: " + ("2r/ε_t" if cur.is_track else "Δf/ε_t (Laplace)")
                          + " averaged over the noisy releases."))

shown_leak = leakage if show_leak else None
fig_extra = (cur.data.time_kind, getattr(cur.data, "utc", None), cur.unit, cur.is_track,
             tuple(schemes))


def _side_by_side() -> go.Figure:
    return side_by_side_figure(cur.data.time, cur.data.time_kind, releases, leakage=shown_leak,
                               unit=cur.unit, distance=cur.is_track, labels=labels)


def _one_scheme(s: str, both: go.Figure) -> go.Figure:
    """One scheme's column on its own (a phone's tab), on the side-by-side y-ranges."""
    rows = 3 if shown_leak else 2
    one = side_by_side_figure(cur.data.time, cur.data.time_kind, {s: releases[s]},
                              leakage={s: shown_leak[s]} if shown_leak else None,
                              unit=cur.unit, distance=cur.is_track, labels=labels,
                              height=560 if shown_leak else 420)
    for r in range(1, rows + 1):  # the y-ranges of the side-by-side chart
        mine = one.layout[f"yaxis{subplot_axes(r, 1, 1)['yaxis'][1:]}"]
        theirs = both.layout[f"yaxis{subplot_axes(r, 1, len(schemes))['yaxis'][1:]}"]
        if theirs.range is not None:
            mine.range = theirs.range
    return one


# built once per drawn content (a digest of every array they show): a toggle or a scheme
# added beside them does not rebuild the charts that did not change
both_key = release_figure_key("compare", cur.data.time, releases, shown_leak, fig_extra)
both = memo_figure(both_key, _side_by_side)
# a wide screen: one column per scheme. A phone: one scheme per tab, on the same y-ranges
# (three columns in ~90 px each had overlapping ticks). Both are drawn; the style of
# app_support/accessibility.py shows the one that fits the screen ('lmdk_wide_' /
# 'lmdk_narrow_' containers).


def _preview() -> dict | None:
    """The ε slider's preview of the side-by-side chart (series; docs/app.md): each
    static scheme's column redrawn in the browser at the slider's ε, its leakage off a
    grid of ε computed once per landmarks and scheme (not per ε)."""
    if cur.is_track:  # a track's displacement is not its noise scaled (approximations)
        return None
    grids = {s: cur.leakage_grid(model, allocate(s, cur.length, cur.landmarks, 1.0,
                                                 window=settings.window),
                                 slider_range(eps), curves=True)
             for s in schemes if s in LINEAR_SCHEMES}
    return compare_preview(both, releases, leakage=shown_leak, grids=grids)


live_chart(both, key="compare_side_by_side", where=st.container(key="lmdk_wide_compare"),
           scrub=_preview(),
           on_scrub=lambda: take_epsilon(scrubbed_epsilon("compare_side_by_side")))
with st.container(key="lmdk_narrow_compare"):
    # only the open tab's chart is built and sent (a tab click reruns the page): the
    # hidden charts of the other tabs were built, sent and drawn on every change
    tabs = st.tabs([SCHEMES[s].label for s in schemes], key="compare_phone_tab",
                   on_change="rerun")
    for tab, s in zip(tabs, schemes, strict=True):
        if tab.open:
            one = memo_figure(f"{both_key}|{s}", functools.partial(_one_scheme, s, both))
            live_chart(one, key=f"compare_one_{s}", where=tab)
with st.expander("How to read this"):
    st.markdown(
        "- One column per scheme; every row shares its y-axis, so heights compare "
        "directly.\n"
        + ("- **Top**: how far each released location lies from the true one (log scale); "
           "dotted: the expected 2r/ε_t.\n" if cur.is_track else
           "- **Top**: grey is the true series, blue what would be published; red stars "
           "are landmarks.\n")
        + "- **Middle**: the budget ε_t (red at landmarks; orange × where nothing was "
        "spent because the last release was repeated). The green line is the theorem's "
        "total, landmarks plus t; it must stay under the dashed ε.\n"
        "- **Bottom**: temporal privacy leakage — TPL (dotted) for one timestamp, "
        "landmark TPL (red) for all landmarks plus one timestamp — against ε."
    )

# ---------------------------------------------------------------- utility vs ε
def _cancel_sweep() -> None:
    # clicking during a sweep stops that script run at its next progress update (a rerun
    # interrupts it); this run then only says so
    st.session_state[K.COMPARE_CANCELLED] = True


def _run_sweep(grid: np.ndarray, runs: int, key: tuple, store: dict) -> UtilitySweep | None:
    """The Monte Carlo sweep, with a progress bar and a Cancel button; stored per
    settings. None (and an error shown) when the data cannot be swept."""
    if cur.is_track:
        fn = track_release_fn(cur.track.lat, cur.track.lon, cur.landmarks,
                              radius=settings.radius, window=settings.window, stays=cur.stays)
    else:
        fn = series_release_fn(cur.series.values, cur.landmarks, mechanism=settings.mechanism,
                               sensitivity=settings.sensitivity, window=settings.window,
                               runs=cur.stays)
    running = st.empty()  # the bar and Cancel go once the sweep is done
    p1, p2 = running.container().columns([5, 1], vertical_alignment="center")
    bar = p1.progress(0.0, text="Running the releases…")
    p2.button("Cancel", key="compare_cancel", on_click=_cancel_sweep, icon=":material/stop:",
              width="stretch")
    try:
        out = utility_sweep(fn, schemes, grid, runs=runs, seed=settings.seed,
                            landmarks=cur.landmarks,
                            progress=lambda f, msg: bar.progress(min(f, 1.0), text=msg))
    except InputError as exc:
        running.empty()
        st.error(f"Cannot sweep ε: {exc}.", icon=":material/error:")
        return None
    running.empty()
    while len(store) >= MAX_STORED_SWEEPS:
        store.pop(next(iter(store)))
    store[key] = out
    return out


# Not a fragment: Cancel must interrupt a running sweep, and a click inside a fragment
# does not preempt a running script (Streamlit queues fragment reruns), so the sweep
# stopped only when it was done. This part runs with the page; the side-by-side columns
# above come from caches then (releases, leakage, calibrations, utility lines, figures).
def error_against_epsilon() -> None:
    """The Monte Carlo sweep of the error against ε (run on request, kept per
    settings), its chart and reading, and the page's downloads."""
    st.header("Error against ε")
    c = st.columns([1, 1, 1, 1], vertical_alignment="bottom")
    low = c[0].number_input("From ε", min_value=0.001, max_value=1000.0, format="%.3g",
                            key=K.W_SWEEP_LOW)
    high = c[1].number_input("To ε", min_value=0.001, max_value=1000.0, format="%.3g",
                             key=K.W_SWEEP_HIGH)
    points = c[2].slider("ε values", 3, 15, key=K.W_SWEEP_POINTS,
                         help="Spaced evenly on a log scale.")
    runs = c[3].slider("Runs R per ε and scheme", 5, 200, key=K.W_SWEEP_RUNS,
                       help="Monte Carlo runs with different noise; the band shows their "
                            "spread (10th–90th percentile).")
    if float(high) <= float(low):
        st.error("Cannot sweep ε: *To ε* must be greater than *From ε*.",
                 icon=":material/error:")
        return
    grid = epsilon_grid(float(low), float(high), int(points))
    if not float(low) <= eps <= float(high):
        st.info(f"The current ε = {eps:g} is outside the swept range.",
                icon=":material/info:")
        st.button(f"Sweep around ε = {eps:g} (from ε/10 to 10ε)", on_click=_centre_sweep,
                  args=(eps,))

    key = (cur.key, tuple(cur.landmarks), cur.stays, tuple(schemes), tuple(grid),
           int(runs), settings.seed, settings.window, settings.radius, settings.mechanism,
           settings.sensitivity)
    store: dict = st.session_state.setdefault(K.COMPARE_SWEEPS, {})
    sweep: UtilitySweep | None = store.get(key)
    if sweep is None:
        n_rel = len(schemes) * len(grid) * int(runs)
        ask = st.empty()  # "Run the sweep" goes once the sweep is done
        r1, r2 = ask.container().columns([1, 3], vertical_alignment="center")
        run = r1.button("Run the sweep", key="compare_run", type="primary",
                        icon=":material/play_arrow:", width="stretch")
        if st.session_state.pop(K.COMPARE_CANCELLED, False) and not run:
            r2.warning("Sweep cancelled: nothing was kept. Change the settings or run it "
                       "again.", icon=":material/stop_circle:")
        else:
            r2.caption(f"{n_rel:,} releases of {cur.length:,} timestamps ({len(schemes)} "
                       f"schemes × {len(grid)} ε values × {int(runs)} runs). Runs only when "
                       "you ask; the result is kept for these settings.")
        if run:
            sweep = _run_sweep(grid, int(runs), key, store)
            if sweep is not None:
                ask.empty()

    table = None
    if sweep is not None:
        # built once per sweep and ε (a rerun for a toggle above does not rebuild it)
        chart = memo_figure(content_key("compare_utility", key, eps, cur.unit),
                            lambda: utility_figure(sweep, unit=cur.unit, current=eps,
                                                   distance=cur.is_track))
        live_chart(chart, key="compare_utility")
        lm_leak = ({s: float(np.max(leakage[s]["landmark TPL"])) for s in schemes}
                   if leakage else None)
        st.markdown("**Reading the chart**\n\n" + "\n".join(
            f"- {s}" for s in sweep_reading(sweep, eps, cur.unit, lm_leak)))
        st.caption(
            f"{sweep.runs} runs per point; run r at the i-th ε uses the same random numbers "
            "for every scheme (seed, i, r), so the curves differ by the scheme, not by luck. "
            "Lines are means, bands the 10th–90th percentile; dashed lines are schemes that "
            "are not landmark-private.")
        table = pd.DataFrame(sweep.to_records())
        with st.expander("The numbers"):
            st.dataframe(table, hide_index=True, width="stretch")

    # publishable: the release note; confidential (computed from the raw data and the
    # landmarks): the sweep, the configuration and the internal report
    compare_cfg = view_config(cur, page="compare", extra={"compare_schemes": schemes})
    d1, _ = st.columns([1, 3])
    with d1:
        release_note_button(compare_cfg, key="compare_note")
    confidential_downloads(compare_cfg, "compare", cur.name, [
        ("Error against ε (CSV)",
         csv_with_header([CONFIDENTIAL_LABEL, "errors measured on the raw data under each "
                          "scheme with the landmark set: do not publish"], table),
         confidential_filename("compare_sweep", "csv"), "text/csv")] if table is not None
        else [])


error_against_epsilon()
