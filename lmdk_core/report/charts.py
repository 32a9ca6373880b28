"""The report's charts: figures of a :class:`ReportData` as plotly's JSON in plain
dictionaries (:class:`~lmdk_core.figures.figure_spec.FigureSpec`: the app's own
builders and style, without plotly's objects) and their HTML as static inline SVG (no
script, no CDN: the file opens offline and stays small).

Until 2026-12 these were ``go.Figure`` objects built with ``add_trace``,
``add_hline``, ``update_traces`` and ``update_xaxes``; the dictionaries here are what
those calls wrote (tests/engine/test_report_chart_specs.py draws both on random
releases and compares the SVG), without importing plotly (its import and objects were a
quarter of ``lmdk report``'s CPU time).
"""

from __future__ import annotations

import re

import numpy as np

from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.engine.release import Release
from lmdk_core.figures.common import COLORS, bar_width, hline
from lmdk_core.figures.figure_spec import FigureSpec
from lmdk_core.figures.timeline import timeline_spec
from lmdk_core.report.compute import LeakageSummary, ReportData
from lmdk_core.report.svg import figure_svg

__all__ = ["figures_html", "report_figures"]

#: a layout key of an x axis ('xaxis', 'xaxis2', …)
_X_AXIS_KEY = re.compile(r"xaxis\d*")


def _has_missing_times(time: np.ndarray) -> bool:
    """Whether a time column holds a missing value (NaT; ``pd.isna`` for other dtypes)."""
    if time.dtype.kind == "M":
        return bool(np.isnat(time).any())
    import pandas as pd

    return bool(pd.isna(time).any())


def _x_axis(data: Series | Track) -> np.ndarray:
    """The charts' x values: the dates or numeric times when complete, else t."""
    if data.time_kind == "datetime" and not _has_missing_times(np.asarray(data.time)):
        return np.asarray(data.time)
    if data.time_kind == "number":
        return np.asarray(data.time)
    return np.arange(len(data))


def _scatter(**props) -> dict:
    """A scatter trace's JSON."""
    return {"type": "scatter", **props}


def _fix_bars(spec: FigureSpec, x: np.ndarray) -> FigureSpec:
    """Give every bar the same width and pin the time axis to the data: plotly pads
    the axis of a bar trace by that trace's own point spacing, so a trace of two
    far-apart landmarks would stretch the axis by half the gap. (Plotly's
    ``update_traces(width=…, selector={"type": "bar"})`` and ``update_xaxes(range=…)``:
    every x axis of the layout, ``xaxis`` when it has none.)"""
    x = np.asarray(x)
    w = bar_width(x)
    if w is None:
        return spec
    for tr in spec.data:
        if tr.get("type") == "bar":
            tr["width"] = w
    lo: str | float
    hi: str | float
    if np.issubdtype(x.dtype, np.datetime64):
        ms = x.astype("datetime64[ms]")
        pad = np.timedelta64(int(w), "ms")
        lo, hi = (str(np.datetime_as_string(v, unit="ms")) for v in (ms[0] - pad, ms[-1] + pad))
    else:
        lo, hi = float(x[0]) - w, float(x[-1]) + w
    keys = [k for k in spec.layout if _X_AXIS_KEY.fullmatch(k)] or ["xaxis"]
    for k in keys:
        spec.layout.setdefault(k, {})["range"] = [lo, hi]
    return spec


def _layout(spec: FigureSpec, height: int) -> FigureSpec:
    """A report chart's height, margins and legend above (its white template is
    plotly's look in the app; the SVG has its own)."""
    spec.layout.update(height=height, margin={"l": 60, "r": 20, "t": 40, "b": 40},
                       legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0})
    return spec


def _epsilon_line(spec: FigureSpec, epsilon: float) -> None:
    """The dashed ε reference labelled at its top left (plotly's ``add_hline``)."""
    hline(spec.layout, epsilon, 1, text=f"ε = {epsilon:g}")


def _y_axis(spec: FigureSpec, **props) -> None:
    """Settings of the y axis (plotly's ``update_yaxes`` of a one-panel figure)."""
    spec.layout.setdefault("yaxis", {}).update(props)


def _leakage_figure(x: np.ndarray, rel: Release, leak: LeakageSummary) -> FigureSpec:
    """The theorem's total, TPL and landmark TPL against ε (Cao et al. ICDE'17)."""
    spec = FigureSpec([
        _scatter(x=x, y=rel.verdict.totals, name="Σ ε_i over L∪{t} (no correlation)",
                 mode="lines", line={"color": COLORS["total"], "width": 1.5, "shape": "hvh"}),
        _scatter(x=x, y=leak.tpl, name="TPL (one timestamp)", mode="lines",
                 line={"color": COLORS["tpl"], "width": 2, "dash": "dot"}),
        _scatter(x=x, y=leak.landmark_tpl, name="landmark TPL (L ∪ {t})", mode="lines",
                 line={"color": COLORS["landmark_tpl"], "width": 2}),
    ])
    _epsilon_line(spec, rel.epsilon)
    _y_axis(spec, title={"text": "privacy leakage"}, rangemode="tozero")
    return _layout(spec, 340)


def _error_figure(x: np.ndarray, rel: Release, unit: str, distance: bool) -> FigureSpec:
    """Measured error (published, approximated) and the expected error."""
    spec = FigureSpec()
    pub = rel.published
    approx = ~pub & ~rel.withheld
    name = "displacement" if distance else "absolute error"
    spec.data.append(_scatter(x=x[pub], y=rel.errors[pub], mode="markers",
                              name=f"measured {name} (published)",
                              marker={"color": COLORS["released"], "size": 5}))
    if approx.any():
        spec.data.append(_scatter(x=x[approx], y=rel.errors[approx], mode="markers",
                                  name=f"measured {name} (approximated, ε_t = 0)",
                                  marker={"color": COLORS["approximated"], "size": 6,
                                          "symbol": "circle-open"}))
    exp = np.where(pub, rel.expected_errors, np.nan)
    spec.data.append(_scatter(x=x, y=exp, mode="lines", connectgaps=False,
                              name="expected " + ("2r/ε_t" if distance
                                                  else "mean error at ε_t"),
                              line={"color": COLORS["epsilon"], "dash": "dash",
                                    "width": 1.5}))
    _y_axis(spec, title={"text": f"{name} ({unit})" if unit else name})
    if distance:
        _y_axis(spec, type="log", dtick="D2")
    return _layout(spec, 340)


def _budget_figure(x: np.ndarray, rel: Release) -> FigureSpec:
    """ε_t per timestamp (regular, landmark bars) and the theorem's total vs ε."""
    is_lm = np.zeros(rel.epsilon_t.size, dtype=bool)
    is_lm[rel.landmarks] = True
    spec = FigureSpec()
    for mask, kind in ((~is_lm, "regular"), (is_lm, "landmark")):
        if mask.any():
            spec.data.append({"type": "bar", "x": x[mask], "y": rel.epsilon_t[mask],
                              "name": f"ε_t ({kind})",
                              "marker": {"color": COLORS[kind], "line": {"width": 0}}})
    spec.data.append(_scatter(x=x, y=rel.verdict.totals, name="Σ ε_i over L∪{t}",
                              mode="lines", line={"color": COLORS["total"], "width": 1.5,
                                                  "shape": "hvh"}))
    _epsilon_line(spec, rel.epsilon)
    _y_axis(spec, title={"text": "ε_t"}, rangemode="tozero")
    spec.layout.update(barmode="overlay", bargap=0.15)
    return _layout(_fix_bars(spec, x), 340)


def _path_figure(track: Track, rel: Release) -> FigureSpec:
    """A track's original path and its released points (broken at gaps)."""
    lat0 = float(np.mean(track.lat))
    spec = FigureSpec()
    # one line per piece (GPX track segment): NaN breaks the line at every gap
    spec.data.append(_scatter(x=track.with_gaps(track.lon), y=track.with_gaps(track.lat),
                              mode="lines+markers", name="original",
                              line={"color": COLORS["original"], "width": 1.5},
                              marker={"size": 3}))
    ok = ~rel.withheld
    # withheld points (nothing released yet) are NaN too: no marker there
    spec.data.append(_scatter(x=track.with_gaps(np.where(ok, rel.released[:, 1], np.nan)),
                              y=track.with_gaps(np.where(ok, rel.released[:, 0], np.nan)),
                              mode="lines+markers", name="released",
                              line={"color": COLORS["released"], "width": 1},
                              marker={"size": 3}))
    lm = rel.landmarks
    if lm.size:
        spec.data.append(_scatter(x=track.lon[lm], y=track.lat[lm], mode="markers",
                                  name="landmark", text=[f"t={t}" for t in lm],
                                  marker={"symbol": "star", "size": 13,
                                          "color": COLORS["landmark"],
                                          "line": {"width": 1, "color": "white"}}))
    spec.layout["xaxis"] = {"title": {"text": "longitude"}}
    _y_axis(spec, title={"text": "latitude"}, scaleanchor="x",
            scaleratio=1.0 / max(np.cos(np.radians(lat0)), 1e-6))
    return _layout(spec, 520)


def report_figures(rd: ReportData) -> dict[str, FigureSpec]:
    """The report's figures by key: 'path' (tracks), 'budget', 'error', 'leakage' (when
    computed)."""
    rel, data = rd.release, rd.data
    x = _x_axis(data)
    figs: dict[str, FigureSpec] = {}
    if isinstance(data, Track):
        figs["path"] = _path_figure(data, rel)
        figs["budget"] = _budget_figure(x, rel)
        figs["error"] = _error_figure(x, rel, "m", distance=True)
    else:
        figs["budget"] = timeline_spec(data.time, data.time_kind, rel, unit=data.unit)
        figs["budget"].layout.update(clickmode="event")
        _fix_bars(figs["budget"], np.asarray(data.time))
        figs["error"] = _error_figure(np.asarray(x), rel, data.unit, distance=False)
    if rd.leakage.computed:
        figs["leakage"] = _leakage_figure(np.asarray(x), rel, rd.leakage)
    return figs


def figures_html(figs: dict[str, FigureSpec]) -> dict[str, str]:
    """Each figure as an HTML fragment (``figure#fig-<key>``): static inline SVG
    (:func:`~lmdk_core.report.svg.figure_svg`), no script: plotly.js alone weighs 4.8 MB,
    and the report must open offline on any device."""
    return {key: f'<figure id="fig-{key}" class="chart">{figure_svg(fig)}</figure>'
            for key, fig in figs.items()}
