"""Figures of the Compare page: schemes side by side, and error against ε.

Figure builders only (data in, plotly figures out). The colours of data, landmarks,
budget and leakage are those of :mod:`lmdk_core.figures`; each scheme has its own
colour in the utility chart (:data:`SCHEME_COLORS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from lmdk_core.decision.comparison import UtilitySweep
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.release import Release
from lmdk_core.figures.common import (
    BARS_MAX_POINTS,
    COLORS,
    bar_width,
    display_values,
    hline,
    hover_labels,
    plain_figure,
    subplot_axes,
    subplot_layout,
)
from lmdk_core.figures.decimation import DISPLAY_BUCKETS, DISPLAY_MAX_POINTS, display_indices
from lmdk_core.figures.style import (
    LANDMARK_BAR_PATTERN,
    left_titles,
    plotly_date_axis,
    plotly_layout,
    rgba,
)
from lmdk_core.figures.style import SCHEME_COLORS as STYLE_SCHEME_COLORS
from lmdk_core.foundation.quoting import plotly_text, plotly_texts

__all__ = ["SCHEME_COLORS", "side_by_side_figure", "utility_figure"]

#: one colour per scheme (the style's, docs/chart-style.md), each with its own dash
SCHEME_COLORS = STYLE_SCHEME_COLORS
SCHEME_DASHES = {"event": "dot", "user": "dashdot", "w-event": "longdash", "uniform": "solid",
                 "skip": "solid", "adaptive": "solid"}


def log_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    """1–2–5 tick values covering [low, high] on a log axis, with plain labels."""
    if not _positive_finite(low, high):
        return [], []
    vals = [v for v in _one_two_five(low, high) if low / 1.5 <= v <= high * 1.5]
    return vals, [f"{v:g}" for v in vals]


def _positive_finite(*values: float) -> bool:
    """Whether every value is finite and > 0 (can be drawn on a log axis)."""
    return all(bool(np.isfinite(v)) and v > 0 for v in values)


def _one_two_five(low: float, high: float) -> list[float]:
    """1, 2 and 5 × 10^k from a decade below ``low`` to the decade of ``high``."""
    return [m * 10.0**k for k in range(int(np.floor(np.log10(low))) - 1,
                                       int(np.ceil(np.log10(high))) + 1) for m in (1, 2, 5)]


def _wanted(index: int, wanted: int | None) -> bool:
    """Whether row or column ``index`` is the ``wanted`` one (any, for None)."""
    return wanted is None or index == wanted


class _Grid:
    """The side-by-side grid being built: one column per scheme, the shared time axis,
    the traces as plain dictionaries and the layout they go into."""

    def __init__(self, x: np.ndarray, labels: np.ndarray, releases: Mapping[str, Release],
                 rows: int) -> None:
        self.x, self.labels, self.rows = x, labels, rows
        self.T = x.shape[0]
        self.keys = list(releases)
        self.k = len(self.keys)
        self.width = bar_width(x)  # one width for every bar trace (not each trace's own)
        # a long series is drawn with min/max per pixel column (landmarks always), chosen
        # before the traces are built: the releases and every number on the page stay
        # complete, and neither plotly nor the hover labels handle 20,000 points a trace
        self.lms = np.unique(np.concatenate([np.asarray(r.landmarks, dtype=np.int64)
                                             for r in releases.values()]))
        self.layout = subplot_layout(
            rows, self.k, shared_xaxes=True, shared_yaxes=True, vertical_spacing=0.08,
            horizontal_spacing=0.025,
            column_titles=[scheme_info(s).label for s in self.keys],
            row_heights=[0.45, 0.27, 0.28] if rows == 3 else [0.6, 0.4])
        self.data: list[dict] = []
        self._shown: set[str] = set()

    def drawn(self, y: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Timestamps of ``y`` to draw (within ``mask`` when given)."""
        if mask is None:
            return display_indices(self.T, [np.asarray(y, dtype=float)], self.lms)
        sub = np.flatnonzero(mask)
        return sub[display_indices(sub.size, [np.asarray(y, dtype=float)[sub]],
                                   np.flatnonzero(np.isin(sub, self.lms)))]

    def ys(self, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``y`` at ``idx``; as float32 when decimated (sent as 4 bytes a value)."""
        y = np.asarray(y, dtype=float)[idx]
        return display_values(y) if self.T > DISPLAY_MAX_POINTS else y

    def legend(self, group: str) -> bool:
        """Show each legend entry once, from the first column that draws it."""
        if group in self._shown:
            return False
        self._shown.add(group)
        return True

    def add(self, trace: dict, row: int, col: int) -> None:
        self.data.append({**trace, **subplot_axes(row, col, self.k)})

    def eps_line(self, epsilon: float, row: int, col: int) -> None:
        """The dashed ε reference line (what ``add_hline`` drew), labelled in column 1."""
        hline(self.layout, epsilon, row, col, self.k, width=1.2,
              text=f"ε = {epsilon:g}" if col == 1 else None)

    def axes(self, kind: str, row: int | None = None, col: int | None = None):
        """The layout dicts of the x or y axes of a row and/or column (all by default)."""
        for r in range(1, self.rows + 1):
            for c in range(1, self.k + 1):
                if _wanted(r, row) and _wanted(c, col):
                    name = subplot_axes(r, c, self.k)[f"{kind}axis"]  # 'x3': 'xaxis3'
                    yield self.layout[f"{kind}axis{name[1:]}"]


def side_by_side_figure(
    time: np.ndarray,
    time_kind: str,
    releases: Mapping[str, Release],
    *,
    leakage: Mapping[str, Mapping[str, np.ndarray]] | None = None,
    unit: str = "",
    distance: bool = False,
    height: int | None = None,
    labels: Sequence[str] | None = None,
) -> go.Figure:
    """One column per scheme, rows aligned on the same time axis and the same y-ranges:
    the data (original vs released; for a track the displacement in metres), the budget
    ε_t with the theorem's total Σ_{L∪{t}} ε_i against ε, and — if ``leakage`` maps each
    scheme to {'TPL': ..., 'landmark TPL': ...} — the leakage curves. ``labels``: the
    hover labels of all timestamps (:func:`~lmdk_core.figures.common.hover_labels` of
    ``time``), when the caller has them already.

    The traces and the layout are written as plain dictionaries into a figure that
    plotly does not validate again (the grid of subplots comes from a cached
    ``make_subplots``, :func:`~lmdk_core.figures.common.subplot_layout`): validating ~25
    traces, the 2–3 × k axes and the ε lines one by one took most of the Compare page's
    script time on every rerun. Built in named steps: per column :func:`_data_row`,
    :func:`_budget_row` and :func:`_leakage_row`, then :func:`_grid_axes` and
    :func:`_grid_layout`."""
    x = np.asarray(time)
    unit = plotly_text(unit)  # user text (a column name) drawn by plotly
    all_labels = np.asarray(hover_labels(x, time_kind) if labels is None
                            else plotly_texts(labels))
    if all_labels.shape != (x.shape[0],):
        raise ValueError(f"{all_labels.shape[0]} hover labels for {x.shape[0]} timestamps")
    g = _Grid(x, all_labels, releases, 3 if leakage else 2)
    for c, key in enumerate(g.keys, start=1):
        rel = releases[key]
        _data_row(g, c, rel, unit, distance)
        _budget_row(g, c, rel)
        if leakage and key in leakage:
            _leakage_row(g, c, rel, leakage[key])
    _grid_axes(g, releases, leakage, time_kind=time_kind, unit=unit, distance=distance)
    _grid_layout(g, releases, leakage, height=height)
    return plain_figure(g.data, g.layout)


def _data_row(g: _Grid, c: int, rel: Release, unit: str, distance: bool) -> None:
    """Row 1 of column ``c``: original and released values (a track: the displacement
    and Planar Laplace's expected 2r/ε_t), the landmarks as stars."""
    x, lm = g.x, rel.landmarks
    if distance:
        i = g.drawn(rel.errors)
        g.add({"type": "scatter", "x": x[i], "y": g.ys(rel.errors, i), "mode": "lines",
               "name": "displacement (m)",
               "line": {"color": COLORS["released"], "width": 1.2}, "legendgroup": "data",
               "showlegend": g.legend("data"), "customdata": g.labels[i],
               "hovertemplate": "%{customdata}<br>displacement %{y:,.0f} m<extra></extra>",
               }, 1, c)
        i = g.drawn(rel.expected_errors)
        g.add({"type": "scatter", "x": x[i], "y": g.ys(rel.expected_errors, i),
               "mode": "lines", "name": "expected 2r/ε_t",
               "line": {"color": COLORS["epsilon"], "width": 1, "dash": "dot"},
               "legendgroup": "expected", "showlegend": g.legend("expected"),
               "hoverinfo": "skip", "connectgaps": False}, 1, c)
        y_lm = rel.errors[lm]
    else:
        u = f" {unit}" if unit else ""
        i = g.drawn(rel.original)
        g.add({"type": "scatter", "x": x[i], "y": g.ys(rel.original, i), "mode": "lines",
               "name": "original", "line": {"color": COLORS["original"], "width": 1.2},
               "legendgroup": "original", "showlegend": g.legend("original"),
               "hoverinfo": "skip"}, 1, c)
        i = g.drawn(rel.released)
        g.add({"type": "scatter", "x": x[i], "y": g.ys(rel.released, i), "mode": "lines",
               "name": "released", "line": {"color": COLORS["released"], "width": 1.2},
               "legendgroup": "data", "showlegend": g.legend("data"),
               "customdata": g.labels[i], "connectgaps": False,
               "hovertemplate": "%{customdata}<br>released %{y:.4g}" + u
               + "<extra></extra>"}, 1, c)
        y_lm = rel.original[lm]
    if lm.size:
        g.add({"type": "scatter", "x": x[lm], "y": y_lm, "mode": "markers",
               "name": "landmark",
               "marker": {"symbol": "star", "size": 10, "color": COLORS["landmark"]},
               "legendgroup": "landmark", "showlegend": g.legend("landmark"),
               "customdata": g.labels[lm],
               "hovertemplate": "LANDMARK %{customdata}<extra></extra>"}, 1, c)


def _budget_row(g: _Grid, c: int, rel: Release) -> None:
    """Row 2 of column ``c``: approximations as crosses at 0, ε_t (bars, or a filled
    step line above BARS_MAX_POINTS), the theorem's total and the ε line."""
    x = g.x
    approx = ~rel.published
    if approx.any():
        i = np.flatnonzero(approx)
        if i.size > DISPLAY_MAX_POINTS:  # at most one marker per pixel-wide bucket
            i = np.unique(i[np.linspace(0, i.size - 1, DISPLAY_BUCKETS).astype(int)])
        g.add({"type": "scatter", "x": x[i], "y": np.zeros(i.size), "mode": "markers",
               "name": "nothing spent (approximated)",
               "marker": {"symbol": "x", "size": 6, "color": COLORS["approximated"]},
               "legendgroup": "approx", "showlegend": g.legend("approx"),
               "hoverinfo": "skip"}, 2, c)
    if g.T > BARS_MAX_POINTS:
        _budget_steps(g, c, rel)
    else:
        _budget_bars(g, c, rel)
    i = g.drawn(rel.verdict.totals)
    g.add({"type": "scatter", "x": x[i], "y": g.ys(rel.verdict.totals, i), "mode": "lines",
           "name": "landmarks + this timestamp (must stay ≤ ε)",
           "line": {"color": COLORS["total"], "width": 1.5, "shape": "hvh"},
           "legendgroup": "total", "showlegend": g.legend("total"),
           "hovertemplate": "Σ over L∪{t} = %{y:.4g}<extra></extra>"}, 2, c)
    g.eps_line(rel.epsilon, 2, c)


def _budget_steps(g: _Grid, c: int, rel: Release) -> None:
    """ε_t of a long series: thousands of bars per column took the browser over a second
    to draw, so a filled step line (one SVG path) and the landmarks as markers."""
    x, lm = g.x, rel.landmarks
    i = g.drawn(rel.epsilon_t)
    g.add({"type": "scatter", "x": x[i], "y": g.ys(rel.epsilon_t, i), "mode": "lines",
           "name": "ε_t (regular)", "fill": "tozeroy",
           "line": {"color": COLORS["regular"], "width": 1, "shape": "hv"},
           "legendgroup": "bar-regular", "showlegend": g.legend("bar-regular"),
           "customdata": g.labels[i],
           "hovertemplate": "%{customdata}<br>ε_t = %{y:.4g}<extra></extra>"}, 2, c)
    if lm.size:
        g.add({"type": "scatter", "x": x[lm], "y": rel.epsilon_t[lm],
               "mode": "markers", "name": "ε_t (landmark)",
               "marker": {"symbol": "triangle-up", "size": 8,
                          "color": COLORS["landmark"]},
               "legendgroup": "bar-landmark", "showlegend": g.legend("bar-landmark"),
               "customdata": g.labels[lm],
               "hovertemplate": "%{customdata}<br>ε_t = %{y:.4g}"
                                "<extra>landmark</extra>"}, 2, c)


def _budget_bars(g: _Grid, c: int, rel: Release) -> None:
    """ε_t as one bar per timestamp (regular and landmark traces of one width), each
    landmark bar with a marker on top: a shape, not only a colour."""
    x = g.x
    is_lm = np.zeros(x.size, dtype=bool)
    is_lm[rel.landmarks] = True
    for mask, kind in ((~is_lm, "regular"), (is_lm, "landmark")):
        if not mask.any():
            continue
        i = g.drawn(rel.epsilon_t, mask)
        g.add({"type": "bar", "x": x[i], "y": g.ys(rel.epsilon_t, i),
               "name": f"ε_t ({kind})", "width": g.width,
               "marker": {"color": COLORS[kind], "line": {"width": 0},
                          **({"pattern": LANDMARK_BAR_PATTERN} if kind == "landmark"
                             else {})},
               "opacity": 0.75, "legendgroup": f"bar-{kind}",
               "showlegend": g.legend(f"bar-{kind}"), "customdata": g.labels[i],
               "hovertemplate": "%{customdata}<br>ε_t = %{y:.4g}<extra>" + kind
               + "</extra>"}, 2, c)
        if kind == "landmark":
            g.add({"type": "scatter", "x": x[i], "y": g.ys(rel.epsilon_t, i),
                   "mode": "markers", "name": "ε_t (landmark)", "showlegend": False,
                   "legendgroup": "bar-landmark", "hoverinfo": "skip",
                   "marker": {"symbol": "triangle-up", "size": 8,
                              "color": COLORS["landmark"]}}, 2, c)


def _leakage_row(g: _Grid, c: int, rel: Release, curves: Mapping[str, np.ndarray]) -> None:
    """Row 3 of column ``c``: TPL dotted, landmark TPL solid, and the ε line."""
    for name, values in curves.items():
        is_l = "landmark" in name
        i = g.drawn(values)
        g.add({"type": "scatter", "x": g.x[i], "y": g.ys(values, i), "mode": "lines",
               "name": name, "legendgroup": name, "showlegend": g.legend(name),
               "line": {"color": COLORS["landmark_tpl" if is_l else "tpl"],
                        "width": 1.8, "dash": "solid" if is_l else "dot"},
               "hovertemplate": name + " = %{y:.4g}<extra></extra>"}, 3, c)
    g.eps_line(rel.epsilon, 3, c)


def _data_row_axes(g: _Grid, releases: Mapping[str, Release], unit: str,
                   distance: bool) -> None:
    """Row 1 (the data): its title; a log scale for distances, else a y-range that clips
    the tails, so a very noisy scheme (user-level) does not flatten the others."""
    next(g.axes("y", 1, 1))["title"] = {"text": "displacement (m)" if distance
                                        else (unit or "value")}
    for ax in g.axes("y", row=1):
        if distance:
            ax["type"] = "log"
        else:
            ax["range"] = _data_range(releases)


def _time_axes(g: _Grid, time_kind: str) -> None:
    """Every column on the same time range; dates with few ticks per column (with 3–4
    columns on a phone, 5 two-line labels per column ran into each other and into the
    next column's)."""
    for ax in g.axes("x"):
        ax["matches"] = "x"
        if time_kind == "datetime":
            ax.update(**plotly_date_axis(), nticks=5 if g.k <= 2 else 2)


def _budget_row_axes(g: _Grid, releases: Mapping[str, Release]) -> None:
    """Row 2 (ε_t): from 0 to above the largest total and every ε."""
    top = max(max(float(np.max(r.verdict.totals)), r.epsilon) for r in releases.values())
    for ax in g.axes("y", row=2):
        ax["range"] = [0, 1.08 * top]
    next(g.axes("y", 2, 1))["title"] = {"text": "ε_t"}


def _leakage_row_axes(g: _Grid, releases: Mapping[str, Release],
                      leakage: Mapping[str, Mapping[str, np.ndarray]]) -> None:
    """Row 3 (leakage): from 0 to above the largest leakage and every ε."""
    top = max(max(float(np.max(v)) for v in leakage[s].values()) for s in leakage)
    top = max(top, max(r.epsilon for r in releases.values()))
    for ax in g.axes("y", row=3):
        ax["range"] = [0, 1.08 * top]
    next(g.axes("y", 3, 1))["title"] = {"text": "leakage (ε units)"}


def _grid_axes(g: _Grid, releases: Mapping[str, Release],
               leakage: Mapping[str, Mapping[str, np.ndarray]] | None, *, time_kind: str,
               unit: str, distance: bool) -> None:
    """Axis titles in the first column, one time range for every column, and explicit
    y-ranges on every row (plotly.js lets one row's explicit range leak into the
    autorange of other rows of matched axes)."""
    _data_row_axes(g, releases, unit, distance)
    _time_axes(g, time_kind)
    _budget_row_axes(g, releases)
    if leakage:
        _leakage_row_axes(g, releases, leakage)


def _grid_layout(g: _Grid, releases: Mapping[str, Release],
                 leakage: Mapping[str, Mapping[str, np.ndarray]] | None, *,
                 height: int | None) -> None:
    """Height, bars, margins, the legend below the panels and the text alternative, in
    the style of :mod:`lmdk_core.figures.style`."""
    left_titles(g.layout)  # the scheme names at the left of their columns
    # the toolbar band above the titles, the legend below the panels (docs/chart-style.md)
    g.layout.update(plotly_layout(titles=True, legend_y=-0.1))
    g.layout.update(
        height=height or (740 if leakage else 560), barmode="overlay",
        bargap=0.1, hovermode="closest",
        # the chart's text alternative (the app names the chart by it for screen readers)
        meta={"alt": (
            f"Side-by-side chart of {len(releases)} schemes over {g.T} timestamps, one "
            "column each: the original and released data on top, the budget ε_t per "
            "timestamp below (landmarks' bars dark, with a triangle)"
            + (", the leakage at the bottom" if leakage else "") + ". Largest total of the "
            "landmarks plus one timestamp: " + "; ".join(
                f"{k}: {float(np.max(r.verdict.totals)):.3g} against ε = {r.epsilon:g}"
                for k, r in releases.items()) + ".")},
    )


def _data_range(releases: Mapping[str, Release]) -> list[float]:
    """y-range of the data row: the originals and the 1st–99th percentile of every
    release, padded by 5% (points beyond are clipped, still visible on hover)."""
    first = next(iter(releases.values()))
    lo, hi = float(np.min(first.original)), float(np.max(first.original))
    for rel in releases.values():
        r = rel.released[np.isfinite(rel.released)]
        if r.size:
            lo = min(lo, float(np.percentile(r, 1)))
            hi = max(hi, float(np.percentile(r, 99)))
    pad = 0.05 * (hi - lo) if hi > lo else 1.0
    return [lo - pad, hi + pad]


def _utility_band(sweep: UtilitySweep, s: int, lo: np.ndarray,
                  hi: np.ndarray) -> go.Scatter | None:
    """Scheme ``s``'s band from the 10th to the 90th percentile of the runs (a filled
    polygon; none with fewer than two finite ε)."""
    eps, key = sweep.epsilons, sweep.schemes[s]
    ok = np.isfinite(lo[s]) & np.isfinite(hi[s])
    if ok.sum() < 2:
        return None
    return go.Scatter(
        x=np.concatenate([eps[ok], eps[ok][::-1]]),
        y=np.concatenate([hi[s][ok], lo[s][ok][::-1]]),
        mode="lines", fill="toself", fillcolor=rgba(SCHEME_COLORS.get(key, "#333333"), 0.15),
        line={"width": 0}, hoverinfo="skip", showlegend=False, legendgroup=key,
    )


def _utility_mean(sweep: UtilitySweep, s: int, mean: np.ndarray, lo: np.ndarray,
                  hi: np.ndarray, what: str, u: str) -> go.Scatter:
    """Scheme ``s``'s mean error against ε: its colour and dash when landmark-private at
    every ε, else thin and dashed with "(not landmark-private)" in its name."""
    key = sweep.schemes[s]
    label = scheme_info(key).label
    private = bool(sweep.private[s].all())
    return go.Scatter(
        x=sweep.epsilons, y=mean[s], mode="lines+markers", legendgroup=key,
        name=label + ("" if private else " (not landmark-private)"),
        line={"color": SCHEME_COLORS.get(key, "#333333"), "width": 2.5 if private else 1.5,
              "dash": SCHEME_DASHES.get(key, "solid") if private else "dash"},
        marker={"size": 6},
        customdata=np.column_stack([lo[s], hi[s], 100 * sweep.published[s]]),
        hovertemplate=label + "<br>ε = %{x:.3g}<br>" + what + " %{y:.3g} " + u
        + "<br>10–90%: %{customdata[0]:.3g} – %{customdata[1]:.3g}"
        + "<br>published from raw data: %{customdata[2]:.0f}%<extra></extra>",
    )


def _current_epsilon_line(current: float | None, eps: np.ndarray, ylo: float,
                          yhi: float) -> go.Scatter | None:
    """A dotted vertical line at the current ε when it lies within the swept range (a
    trace, not ``add_vline``: shapes and annotations take log10 positions on log axes)."""
    if current is None or not eps[0] / 1.001 <= current <= eps[-1] * 1.001:
        return None
    if not (np.isfinite(ylo) and np.isfinite(yhi)):
        return None
    return go.Scatter(
        x=[current, current], y=[ylo, yhi], mode="lines", name=f"current ε = {current:g}",
        line={"color": COLORS["epsilon"], "dash": "dot", "width": 1.5},
        hoverinfo="skip")


def utility_figure(sweep: UtilitySweep, *, unit: str = "", current: float | None = None,
                   distance: bool = False) -> go.Figure:
    """Mean error of each scheme against ε (log–log) with a band from the 10th to the
    90th percentile of the R runs; schemes that are not landmark-private are dashed."""
    mean = sweep.mean()
    lo, hi = sweep.band()
    eps = sweep.epsilons
    fig = go.Figure()
    what = "mean displacement" if distance else "mean absolute error"
    u = "m" if distance else plotly_text(unit)
    for s in range(len(sweep.schemes)):
        band = _utility_band(sweep, s, lo, hi)
        if band is not None:
            fig.add_trace(band)
        fig.add_trace(_utility_mean(sweep, s, mean, lo, hi, what, u))
    with np.errstate(all="ignore"):
        ylo = float(np.nanmin(np.where(lo > 0, lo, np.nan)))
        yhi = float(np.nanmax(hi))
    line = _current_epsilon_line(current, eps, ylo, yhi)
    if line is not None:
        fig.add_trace(line)
    xt, xl = log_ticks(float(eps[0]), float(eps[-1]))
    yt, yl = log_ticks(ylo, yhi)
    fig.update_layout(**plotly_layout(titles=False, bottom=50, legend_y=-0.18))
    fig.update_layout(
        height=460, hovermode="closest",
        xaxis={"title": "total privacy budget ε (log scale)", "type": "log",
               "tickvals": xt, "ticktext": xl},
        yaxis={"title": (f"{what} ({u})" if u else what) + " (log scale)", "type": "log",
               "tickvals": yt, "ticktext": yl},
    )
    return fig
