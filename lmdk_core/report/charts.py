"""The report's charts: plotly figures of a :class:`ReportData` (the app's own builders
and style) and their HTML as static inline SVG (no script, no CDN: the file opens
offline and stays small)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.engine.release import Release
from lmdk_core.figures import COLORS, timeline_figure
from lmdk_core.figures.common import bar_width
from lmdk_core.report.compute import LeakageSummary, ReportData
from lmdk_core.report.svg import figure_svg

__all__ = ["figures_html", "report_figures"]


def _x_axis(data: Series | Track) -> np.ndarray:
    """The charts' x values: the dates or numeric times when complete, else t."""
    if data.time_kind == "datetime" and not pd.isna(np.asarray(data.time)).any():
        return np.asarray(data.time)
    if data.time_kind == "number":
        return np.asarray(data.time)
    return np.arange(len(data))


def _fix_bars(fig: go.Figure, x: np.ndarray) -> go.Figure:
    """Give every bar the same width and pin the time axis to the data: plotly pads
    the axis of a bar trace by that trace's own point spacing, so a trace of two
    far-apart landmarks would stretch the axis by half the gap."""
    x = np.asarray(x)
    w = bar_width(x)
    if w is None:
        return fig
    fig.update_traces(width=w, selector={"type": "bar"})
    lo: str | float
    hi: str | float
    if np.issubdtype(x.dtype, np.datetime64):
        ms = x.astype("datetime64[ms]")
        pad = np.timedelta64(int(w), "ms")
        lo, hi = (str(np.datetime_as_string(v, unit="ms")) for v in (ms[0] - pad, ms[-1] + pad))
    else:
        lo, hi = float(x[0]) - w, float(x[-1]) + w
    fig.update_xaxes(range=[lo, hi])
    return fig


def _leakage_figure(x: np.ndarray, rel: Release, leak: LeakageSummary) -> go.Figure:
    """The theorem's total, TPL and landmark TPL against ε (Cao et al. ICDE'17)."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=rel.verdict.totals, name="Σ ε_i over L∪{t} (no correlation)",
                             mode="lines", line={"color": COLORS["total"], "width": 1.5,
                                                 "shape": "hvh"}))
    fig.add_trace(go.Scatter(x=x, y=leak.tpl, name="TPL (one timestamp)", mode="lines",
                             line={"color": COLORS["tpl"], "width": 2, "dash": "dot"}))
    fig.add_trace(go.Scatter(x=x, y=leak.landmark_tpl, name="landmark TPL (L ∪ {t})",
                             mode="lines", line={"color": COLORS["landmark_tpl"], "width": 2}))
    fig.add_hline(y=rel.epsilon, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                  annotation_text=f"ε = {rel.epsilon:g}", annotation_position="top left")
    fig.update_yaxes(title_text="privacy leakage", rangemode="tozero")
    return _layout(fig, 340)


def _layout(fig: go.Figure, height: int) -> go.Figure:
    """A report chart's height, white template, margins and legend above."""
    fig.update_layout(height=height, template="plotly_white",
                      margin={"l": 60, "r": 20, "t": 40, "b": 40},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0})
    return fig


def _error_figure(x: np.ndarray, rel: Release, unit: str, distance: bool) -> go.Figure:
    """Measured error (published, approximated) and the expected error."""
    fig = go.Figure()
    pub = rel.published
    approx = ~pub & ~rel.withheld
    name = "displacement" if distance else "absolute error"
    fig.add_trace(go.Scatter(x=x[pub], y=rel.errors[pub], mode="markers",
                             name=f"measured {name} (published)",
                             marker={"color": COLORS["released"], "size": 5}))
    if approx.any():
        fig.add_trace(go.Scatter(x=x[approx], y=rel.errors[approx], mode="markers",
                                 name=f"measured {name} (approximated, ε_t = 0)",
                                 marker={"color": COLORS["approximated"], "size": 6,
                                         "symbol": "circle-open"}))
    exp = np.where(pub, rel.expected_errors, np.nan)
    fig.add_trace(go.Scatter(x=x, y=exp, mode="lines", connectgaps=False,
                             name="expected " + ("2r/ε_t" if distance else "mean error at ε_t"),
                             line={"color": COLORS["epsilon"], "dash": "dash", "width": 1.5}))
    fig.update_yaxes(title_text=f"{name} ({unit})" if unit else name)
    if distance:
        fig.update_yaxes(type="log", dtick="D2")
    return _layout(fig, 340)


def _budget_figure(x: np.ndarray, rel: Release) -> go.Figure:
    """ε_t per timestamp (regular, landmark bars) and the theorem's total vs ε."""
    is_lm = np.zeros(rel.epsilon_t.size, dtype=bool)
    is_lm[rel.landmarks] = True
    fig = go.Figure()
    for mask, kind in ((~is_lm, "regular"), (is_lm, "landmark")):
        if mask.any():
            fig.add_trace(go.Bar(x=x[mask], y=rel.epsilon_t[mask], name=f"ε_t ({kind})",
                                 marker={"color": COLORS[kind], "line": {"width": 0}}))
    fig.add_trace(go.Scatter(x=x, y=rel.verdict.totals, name="Σ ε_i over L∪{t}", mode="lines",
                             line={"color": COLORS["total"], "width": 1.5, "shape": "hvh"}))
    fig.add_hline(y=rel.epsilon, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                  annotation_text=f"ε = {rel.epsilon:g}", annotation_position="top left")
    fig.update_yaxes(title_text="ε_t", rangemode="tozero")
    fig.update_layout(barmode="overlay", bargap=0.15)
    return _layout(_fix_bars(fig, x), 340)


def _path_figure(track: Track, rel: Release) -> go.Figure:
    """A track's original path and its released points (broken at gaps)."""
    lat0 = float(np.mean(track.lat))
    fig = go.Figure()
    # one line per piece (GPX track segment): NaN breaks the line at every gap
    fig.add_trace(go.Scatter(x=track.with_gaps(track.lon), y=track.with_gaps(track.lat),
                             mode="lines+markers", name="original",
                             line={"color": COLORS["original"], "width": 1.5},
                             marker={"size": 3}))
    ok = ~rel.withheld
    # withheld points (nothing released yet) are NaN too: no marker there
    fig.add_trace(go.Scatter(x=track.with_gaps(np.where(ok, rel.released[:, 1], np.nan)),
                             y=track.with_gaps(np.where(ok, rel.released[:, 0], np.nan)),
                             mode="lines+markers",
                             name="released", line={"color": COLORS["released"], "width": 1},
                             marker={"size": 3}))
    lm = rel.landmarks
    if lm.size:
        fig.add_trace(go.Scatter(x=track.lon[lm], y=track.lat[lm], mode="markers",
                                 name="landmark", text=[f"t={t}" for t in lm],
                                 marker={"symbol": "star", "size": 13,
                                         "color": COLORS["landmark"],
                                         "line": {"width": 1, "color": "white"}}))
    fig.update_xaxes(title_text="longitude")
    fig.update_yaxes(title_text="latitude", scaleanchor="x",
                     scaleratio=1.0 / max(np.cos(np.radians(lat0)), 1e-6))
    return _layout(fig, 520)


def report_figures(rd: ReportData) -> dict[str, go.Figure]:
    """The report's figures by key: 'path' (tracks), 'budget', 'error', 'leakage' (when
    computed)."""
    rel, data = rd.release, rd.data
    x = _x_axis(data)
    figs: dict[str, go.Figure] = {}
    if isinstance(data, Track):
        figs["path"] = _path_figure(data, rel)
        figs["budget"] = _budget_figure(x, rel)
        figs["error"] = _error_figure(x, rel, "m", distance=True)
    else:
        figs["budget"] = timeline_figure(data.time, data.time_kind, rel, unit=data.unit)
        figs["budget"].update_layout(clickmode="event", template="plotly_white")
        _fix_bars(figs["budget"], np.asarray(data.time))
        figs["error"] = _error_figure(np.asarray(x), rel, data.unit, distance=False)
    if rd.leakage.computed:
        figs["leakage"] = _leakage_figure(np.asarray(x), rel, rd.leakage)
    return figs


def figures_html(figs: dict[str, go.Figure]) -> dict[str, str]:
    """Each figure as an HTML fragment (``figure#fig-<key>``): static inline SVG
    (:func:`~lmdk_core.report.svg.figure_svg`), no script: plotly.js alone weighs 4.8 MB,
    and the report must open offline on any device."""
    return {key: f'<figure id="fig-{key}" class="chart">{figure_svg(fig)}</figure>'
            for key, fig in figs.items()}
