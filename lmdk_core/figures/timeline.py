"""The Timeline page's figure: data, budget and leakage panels on one time axis."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.engine.release import Release
from lmdk_core.figures.common import (
    BARS_MAX_POINTS,
    COLORS,
    bar_width,
    display_values,
    hline,
    subplot_axes,
    subplot_layout,
)
from lmdk_core.figures.decimation import display_indices
from lmdk_core.figures.figure_spec import FigureSpec
from lmdk_core.figures.style import (
    AXIS_TITLES,
    LANDMARK_BAR_PATTERN,
    date_hover_format,
    left_titles,
    plotly_date_axis,
    plotly_layout,
    spans_years,
)
from lmdk_core.foundation.quoting import plotly_text

if TYPE_CHECKING:  # the figure is made by plotly for the app; the report draws the spec
    import plotly.graph_objects as go

__all__ = ["timeline_figure", "timeline_spec"]

#: above this many points, scatter traces switch to WebGL
WEBGL_THRESHOLD = 3000
#: at most this many markers of the original series are drawn (SVG) in the visible range:
#: above it plotly draws an evenly spaced subset (``marker.maxdisplayed``), all of them
#: once zoomed in that far. At the full view of a long series the markers overlap into a
#: band anyway (2,000 points on ~900 pixels); the line still joins every point and every
#: point can still be hovered, clicked and box-selected. Each drawn marker is a DOM node
#: the browser rebuilds on every rerun: 2,000 of them were a third of the chart's time.
MARKERS_MAX_DISPLAYED = 500
#: vertical gap between the panels (fraction of the figure's height)
PANEL_SPACING = 0.07


def _trace(kind: str):
    """A builder of plain trace dicts of plotly type ``kind`` (``{"type": kind, …}``).
    The figure is made from them once, without plotly's per-property validation: that
    validation was most of the figure's build time (~80 % on the demo week), paid again on
    every rerun, and the figure's JSON is the same (tests/engine/test_timeline_figure.py
    checks the built figure against plotly's validated one)."""
    def build(**props) -> dict:
        return {"type": kind, **props}
    build.__name__ = kind
    return build


SCATTER, SCATTERGL, BAR = _trace("scatter"), _trace("scattergl"), _trace("bar")


@dataclass
class _Axis:
    """What every panel's traces share: the time axis, the marked timestamps and how a
    trace is drawn (the scatter type, the hover's time and unit)."""

    x: np.ndarray
    T: int
    time_kind: str
    is_lm: np.ndarray
    lm_idx: np.ndarray
    scatter: Callable[..., dict]
    unit_suffix: str
    years: bool = False  # the dates span more than one calendar year

    @property
    def when(self) -> str:
        """The hover's time: the x value (a date formatted as the style says)."""
        return ("%{x|" + date_hover_format(self.years) + "}" if self.time_kind == "datetime"
                else "%{x}")

    def panel(self, row: int) -> dict[str, str]:
        return subplot_axes(row)


def _tcol(idx: np.ndarray) -> np.ndarray:
    """The timestamp index t of each drawn point, as hover data (``customdata[0]``)."""
    return np.asarray(idx, dtype=np.int64).reshape(-1, 1)


def timeline_figure(
    time: np.ndarray,
    time_kind: str,
    rel: Release,
    *,
    unit: str = "",
    leakage: dict[str, np.ndarray] | None = None,
    suggestions: list[int] | None = None,
    height: int | None = None,
    uirevision: str | None = "timeline",
) -> go.Figure:
    """The Timeline's plotly figure: :func:`timeline_spec` made into a figure once
    (:meth:`~lmdk_core.figures.figure_spec.FigureSpec.figure`, not validated again)."""
    return timeline_spec(time, time_kind, rel, unit=unit, leakage=leakage,
                         suggestions=suggestions, height=height,
                         uirevision=uirevision).figure()


def timeline_spec(
    time: np.ndarray,
    time_kind: str,
    rel: Release,
    *,
    unit: str = "",
    leakage: dict[str, np.ndarray] | None = None,
    suggestions: list[int] | None = None,
    height: int | None = None,
    uirevision: str | None = "timeline",
) -> FigureSpec:
    """Aligned panels on one time axis: data (original vs released, landmarks marked),
    per-timestamp budget (bars, landmarks coloured, approximations marked, the
    theorem's total Σ_{L∪{t}} ε_i against ε), and, if given, the leakage curves
    (``leakage`` maps 'TPL' / 'landmark TPL' to arrays). ``suggestions`` are timestamps
    proposed as landmarks, drawn as open diamonds. Above
    :data:`~lmdk_core.figures.decimation.DISPLAY_MAX_POINTS` timestamps each curve is decimated
    for display (:func:`~lmdk_core.figures.decimation.display_indices`: min/max per pixel-wide
    bucket; landmarks and suggestions always drawn); every trace's ``customdata`` holds
    the real timestamp index t of each drawn point. Of more than
    :data:`MARKERS_MAX_DISPLAYED` original values in view, plotly draws that many markers
    (evenly spaced; the line joins them all). ``uirevision`` (plotly) keeps the user's
    zoom and tool across reruns while it stays the same.

    Built in named steps — :func:`_data_traces`, :func:`_budget_traces`,
    :func:`_leakage_traces`, :func:`_timeline_layout` — as plain traces with their
    panel's axes and one layout, the figure made once at the end (the same figure as
    ``make_subplots`` + ``add_trace(row=…)`` + ``add_hline``, in a third of the time),
    as plain dictionaries: the report draws them without plotly."""
    T = rel.original.shape[0]
    is_lm = np.zeros(T, dtype=bool)
    is_lm[rel.landmarks] = True
    lm_idx = np.flatnonzero(is_lm)
    sug = np.zeros(0, dtype=int)
    if suggestions:
        sug = np.asarray(sorted(set(suggestions) - set(rel.landmarks.tolist())), dtype=int)
        sug = sug[(sug >= 0) & (sug < T)]
    # what is drawn: every point of a short series; of a long one the min and max of each
    # pixel-wide bucket of each curve, plus the landmarks and suggestions (display only:
    # the release, its downloads and every figure computed here stay complete)
    idx_orig = display_indices(T, [rel.original], np.concatenate([lm_idx, sug]))
    ax = _Axis(x=np.asarray(time), T=T, time_kind=time_kind, is_lm=is_lm, lm_idx=lm_idx,
               scatter=SCATTERGL if idx_orig.size > WEBGL_THRESHOLD else SCATTER,
               unit_suffix=f" {plotly_text(unit)}" if unit else "",
               years=time_kind == "datetime" and spans_years(time))
    traces, idx_rel = _data_traces(ax, rel, idx_orig, sug)
    traces += _budget_traces(ax, rel, idx_rel, decimated=idx_orig.size < T)
    if leakage:
        traces += _leakage_traces(ax, leakage)
    layout = _timeline_layout(rel, unit, time_kind, leakage=bool(leakage), years=ax.years,
                              decimated=idx_orig.size < T, height=height,
                              uirevision=uirevision)
    # the traces and layout are plain dicts of plotly's schema: made into a figure
    # without validating every property again (see _trace)
    return FigureSpec(traces, layout)


def _original_trace(ax: _Axis, rel: Release, idx_orig: np.ndarray):
    """The original values (grey line with dots; smaller dots above 500 timestamps, and
    at most MARKERS_MAX_DISPLAYED of them drawn by an SVG scatter)."""
    marker = {"size": 6 if ax.T <= 500 else 4, "color": COLORS["original"]}
    if ax.scatter is SCATTER and idx_orig.size > MARKERS_MAX_DISPLAYED:
        marker["maxdisplayed"] = MARKERS_MAX_DISPLAYED
    return ax.scatter(
        x=ax.x[idx_orig], y=display_values(rel.original[idx_orig]), name="original",
        mode="lines+markers",
        line={"color": COLORS["original"], "width": 1.5},
        marker=marker,
        customdata=_tcol(idx_orig),
        hovertemplate="t=%{customdata[0]} · " + ax.when + "<br>original %{y:.4g}"
        + ax.unit_suffix + "<extra>click to toggle landmark</extra>",
        **ax.panel(1),
    )


def _approximations(rel: Release, idx_rel: np.ndarray, *, decimated: bool) -> np.ndarray:
    """The approximated timestamps (neither published nor withheld); of a decimated
    series only those the released curve draws."""
    ap = np.flatnonzero(~rel.published & ~rel.withheld)
    return np.intersect1d(ap, idx_rel) if decimated else ap


def _data_traces(ax: _Axis, rel: Release, idx_orig: np.ndarray,
                 sug: np.ndarray) -> tuple[list, np.ndarray]:
    """The top panel: original (line with dots), released (line), approximations (open
    circles), suggested landmarks (open diamonds) and landmarks (stars). Returns the
    traces and the drawn timestamps of the released curve."""
    x, u, when, scatter = ax.x, ax.unit_suffix, ax.when, ax.scatter
    released = np.asarray(rel.released, dtype=float)
    idx_rel = display_indices(ax.T, [released],
                              np.concatenate([ax.lm_idx, np.flatnonzero(np.isnan(released))]))
    traces: list = [_original_trace(ax, rel, idx_orig)]
    traces.append(scatter(
        x=x[idx_rel], y=display_values(released[idx_rel]), name="released", mode="lines",
        line={"color": COLORS["released"], "width": 1.5},
        customdata=_tcol(idx_rel),
        hovertemplate="t=%{customdata[0]} · " + when + "<br>released %{y:.4g}" + u
        + "<extra></extra>",
        connectgaps=False,
        **ax.panel(1),
    ))
    ap = _approximations(rel, idx_rel, decimated=idx_orig.size < ax.T)
    if ap.size:
        traces.append(scatter(
            x=x[ap], y=released[ap], name="approximated (ε_t = 0)",
            mode="markers",
            marker={"symbol": "circle-open", "size": 7, "color": COLORS["approximated"]},
            customdata=_tcol(ap),
            hovertemplate="t=%{customdata[0]} · " + when + "<br>approximation (last "
            "release repeated) %{y:.4g}" + u + "<extra></extra>",
            **ax.panel(1),
        ))
    if sug.size:
        traces.append(scatter(
            x=x[sug], y=rel.original[sug], name="suggested landmark", mode="markers",
            marker={"symbol": "diamond-open", "size": 14, "color": COLORS["landmark"],
                    "line": {"width": 2}},
            customdata=_tcol(sug),
            hovertemplate="SUGGESTED t=%{customdata[0]} · " + when + "<br>%{y:.4g}" + u
            + "<extra>click to accept</extra>",
            **ax.panel(1),
        ))
    lm_idx = ax.lm_idx
    if lm_idx.size:
        traces.append(scatter(
            x=x[lm_idx], y=rel.original[lm_idx], name="landmark", mode="markers",
            marker={"symbol": "star", "size": 13, "color": COLORS["landmark"],
                    "line": {"width": 1, "color": "white"}},
            customdata=_tcol(lm_idx),
            hovertemplate="LANDMARK t=%{customdata[0]} · " + when + "<br>%{y:.4g}" + u
            + "<extra>click to remove</extra>",
            **ax.panel(1),
        ))
    return traces, idx_rel


def _budget_traces(ax: _Axis, rel: Release, idx_rel: np.ndarray, *,
                   decimated: bool) -> list:
    """The budget panel: ε_t as bars (regular and landmark, one colour per trace: a
    per-bar colour array is slow to validate; a filled step line above
    :data:`~lmdk_core.figures.common.BARS_MAX_POINTS`), approximations as crosses at 0,
    and the theorem's total Σ_{L∪{t}} ε_i as a step line."""
    x, scatter, lm_idx, T = ax.x, ax.scatter, ax.lm_idx, ax.T
    traces: list = []
    eps_t = np.asarray(rel.epsilon_t, dtype=float)
    idx_eps = display_indices(T, [eps_t], lm_idx)
    if T > BARS_MAX_POINTS:
        traces += _budget_steps(ax, eps_t, idx_eps)
    else:
        traces += _budget_bars(ax, eps_t, idx_eps)
    zero = np.flatnonzero(~rel.published)
    if decimated:
        zero = np.intersect1d(zero, np.union1d(idx_eps, idx_rel))
    if zero.size:
        traces.append(scatter(
            x=x[zero], y=np.zeros(zero.size), name="nothing spent (approximated)",
            mode="markers", marker={"symbol": "x", "size": 7, "color": COLORS["approximated"]},
            hoverinfo="skip", showlegend=False,
            **ax.panel(2),
        ))
    totals = np.asarray(rel.verdict.totals, dtype=float)
    idx_tot = display_indices(T, [totals], lm_idx)
    traces.append(scatter(
        x=x[idx_tot], y=display_values(totals[idx_tot]),
        name="landmarks + this timestamp (must stay ≤ ε)",
        mode="lines", line={"color": COLORS["total"], "width": 1.5, "shape": "hvh"},
        hovertemplate="Σ over L∪{t} = %{y:.4g}<extra></extra>",
        **ax.panel(2),
    ))
    return traces


def _budget_steps(ax: _Axis, eps_t: np.ndarray, idx_eps: np.ndarray) -> list:
    """ε_t of a long series: one filled step line (one SVG path) and the landmarks as
    markers, not T bars (thousands of bars took the browser a second per rerun)."""
    x, when, lm_idx = ax.x, ax.when, ax.lm_idx
    traces = [ax.scatter(
        x=x[idx_eps], y=display_values(eps_t[idx_eps]), name="ε_t (regular)",
        mode="lines", fill="tozeroy",
        line={"color": COLORS["regular"], "width": 1, "shape": "hv"},
        customdata=_tcol(idx_eps),
        hovertemplate="t=%{customdata[0]} · " + when + "<br>ε_t = %{y:.4g}<extra></extra>",
        showlegend=False,
        **ax.panel(2),
    )]
    if lm_idx.size:
        traces.append(ax.scatter(
            x=x[lm_idx], y=eps_t[lm_idx], name="ε_t (landmark)", mode="markers",
            marker={"symbol": "triangle-up", "size": 8, "color": COLORS["landmark"]},
            customdata=_tcol(lm_idx),
            hovertemplate="t=%{customdata[0]} · " + when + " (landmark)"
            "<br>ε_t = %{y:.4g}<extra></extra>",
            showlegend=False,
            **ax.panel(2),
        ))
    return traces


def _budget_bars(ax: _Axis, eps_t: np.ndarray, idx_eps: np.ndarray) -> list:
    """ε_t as one bar per timestamp: regular and landmark bars in two traces of one
    width (:func:`~lmdk_core.figures.common.bar_width`, not each trace's own spacing),
    each landmark bar hatched and with a star on top (not only a colour)."""
    x, when = ax.x, ax.when
    width = bar_width(x)
    traces: list = []
    for mask, kind in ((~ax.is_lm, "regular"), (ax.is_lm, "landmark")):
        sel = idx_eps[mask[idx_eps]]
        if not sel.size:
            continue
        traces.append(BAR(
            x=x[sel], y=display_values(eps_t[sel]), name=f"ε_t ({kind})", width=width,
            marker={"color": COLORS[kind], "line": {"width": 0},
                    **({"pattern": LANDMARK_BAR_PATTERN} if kind == "landmark" else {})},
            customdata=_tcol(sel),
            hovertemplate="t=%{customdata[0]} · " + when + " (" + kind + ")"
            "<br>ε_t = %{y:.4g}<extra></extra>",
            showlegend=False,
            **ax.panel(2),
        ))
        if kind == "landmark":  # a shape on top, not only a colour (colour-blind, grey)
            traces.append(ax.scatter(
                x=x[sel], y=display_values(eps_t[sel]), name="ε_t (landmark)",
                mode="markers", marker={"symbol": "star", "size": 9,
                                        "color": COLORS["landmark"],
                                        "line": {"width": 1, "color": "white"}},
                customdata=_tcol(sel), hoverinfo="skip", showlegend=False,
                **ax.panel(2),
            ))
    return traces


def _leakage_traces(ax: _Axis, leakage: dict[str, np.ndarray]) -> list:
    """The leakage panel: TPL dotted, landmark TPL solid."""
    traces = []
    for name, values in leakage.items():
        v = np.asarray(values, dtype=float)
        idx_v = display_indices(ax.T, [v], ax.lm_idx)
        color = COLORS["landmark_tpl"] if "landmark" in name else COLORS["tpl"]
        traces.append(ax.scatter(
            x=ax.x[idx_v], y=display_values(v[idx_v]), name=name, mode="lines",
            line={"color": color, "width": 2,
                  "dash": "solid" if "landmark" in name else "dot"},
            hovertemplate=name + " = %{y:.4g}<extra></extra>",
            **ax.panel(3),
        ))
    return traces


def _panel_titles(decimated: bool, leakage: bool) -> list[str]:
    """The titles of the panels, top to bottom: data, budget and (optionally) leakage."""
    titles = ["Data: original vs released" + (" (drawn: min/max per pixel)" if decimated
                                             else ""),
              "Budget spent at each timestamp (ε_t)"]
    if leakage:
        titles.append("Privacy leakage under temporal correlation")
    return titles


def _panel_axes(layout: dict, rows: int, unit: str, time_kind: str,
                years: bool = False) -> None:
    """Each panel's y-axis title (budget and leakage from 0) and, for dates, the style's
    tick labels on every time axis: no year, the day under the hour."""
    layout["yaxis"]["title"] = {"text": plotly_text(unit) if unit else AXIS_TITLES["value"]}
    layout["yaxis2"].update(title={"text": AXIS_TITLES["budget"]}, rangemode="tozero")
    if rows == 3:
        layout["yaxis3"].update(title={"text": AXIS_TITLES["leakage"]}, rangemode="tozero")
    if time_kind == "datetime":
        for row in range(1, rows + 1):
            layout[f"xaxis{'' if row == 1 else row}"].update(plotly_date_axis(years))


def _timeline_layout(rel: Release, unit: str, time_kind: str, *, leakage: bool,
                     years: bool = False, decimated: bool, height: int | None,
                     uirevision: str | None) -> dict:
    """The panels (a cached ``make_subplots`` grid), their titles, the ε reference on the
    budget and leakage panels, the axis titles and the figure-wide settings, in the
    style of :mod:`lmdk_core.figures.style` (docs/chart-style.md)."""
    titles = _panel_titles(decimated, leakage)
    rows = len(titles)
    layout = subplot_layout(rows, shared_xaxes=True, vertical_spacing=PANEL_SPACING,
                            row_heights=[0.5, 0.25, 0.25] if leakage else [0.62, 0.38],
                            subplot_titles=titles)
    for row in range(2, rows + 1):  # the ε reference on the budget and leakage panels
        hline(layout, rel.epsilon, row, text=f"ε = {rel.epsilon:g}")
    _panel_axes(layout, rows, unit, time_kind, years)
    left_titles(layout)
    layout.update(plotly_layout(titles=True, legend_y=-0.1))  # toolbar band, legend below
    layout.update(
        height=height or (720 if leakage else 560),
        hovermode="closest",
        bargap=0.15,
        barmode="overlay",
        clickmode="event+select",
        # keep zoom, pan and the chosen tool across reruns (a click re-sends the figure)
        uirevision=uirevision,
        # the chart's text alternative (the app names the chart by it for screen readers)
        meta={"alt": _alt_text(rel, unit, leakage)},
    )
    return layout


def _alt_text(rel: Release, unit: str, leakage: bool) -> str:
    """What the Timeline chart shows, in words: the text alternative of the chart."""
    T = rel.original.shape[0]
    n = len(rel.landmarks)
    worst = float(np.max(rel.verdict.totals)) if T else 0.0
    text = (f"Timeline chart of {T} timestamps. Top panel: the original values "
            f"{'in ' + unit + ' ' if unit else ''}(grey line with dots) and the released "
            f"values (blue line); {n} landmark{'s' if n != 1 else ''} marked with "
            f"stars. Middle panel: the budget ε_t spent at each timestamp (bars, the "
            f"landmarks' bars dark, hatched and starred) and the landmarks plus each "
            f"timestamp together "
            f"(green line, at most {worst:.3g}) against ε = {rel.epsilon:g} (dashed).")
    if leakage:
        text += (" Bottom panel: the temporal privacy leakage per timestamp (TPL dotted, "
                 "landmark TPL solid) against ε.")
    return text + " To mark a landmark without the chart, type its t in the Landmarks field."
