"""The report's charts as plain plotly JSON (lmdk_core.report.charts, FigureSpec) draw
the same SVG as the plotly figures they replace.

Until 2026-12 the report built ``go.Figure`` objects (``add_trace``, ``add_hline``,
``update_traces``, ``update_xaxes``, ``update_layout``) and the SVG renderer read their
``to_plotly_json``; that construction is kept below, verbatim, as the oracle. On random
series (number and datetime times, NaT, short and long enough to be decimated and drawn
as steps) and tracks (pieces, withheld points, with and without landmarks), releases of
every scheme and leakage computed or not, every figure's SVG is the same string.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.decision.release_verdict import LeakageSummary
from lmdk_core.engine.release import release_series, release_trajectory
from lmdk_core.figures import COLORS, timeline_figure
from lmdk_core.figures.common import bar_width
from lmdk_core.files.config import ViewConfig
from lmdk_core.report.charts import report_figures
from lmdk_core.report.compute import ReportData
from lmdk_core.report.svg import figure_svg


# ------------------------------------------------ the plotly construction (the oracle)
def _x_axis(data: Series | Track) -> np.ndarray:
    if data.time_kind == "datetime" and not pd.isna(np.asarray(data.time)).any():
        return np.asarray(data.time)
    if data.time_kind == "number":
        return np.asarray(data.time)
    return np.arange(len(data))


def _fix_bars(fig: go.Figure, x: np.ndarray) -> go.Figure:
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


def _leakage_figure(x, rel, leak) -> go.Figure:
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
    fig.update_layout(height=height, template="plotly_white",
                      margin={"l": 60, "r": 20, "t": 40, "b": 40},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0})
    return fig


def _error_figure(x, rel, unit, distance) -> go.Figure:
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


def _budget_figure(x, rel) -> go.Figure:
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


def _path_figure(track: Track, rel) -> go.Figure:
    lat0 = float(np.mean(track.lat))
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=track.with_gaps(track.lon), y=track.with_gaps(track.lat),
                             mode="lines+markers", name="original",
                             line={"color": COLORS["original"], "width": 1.5},
                             marker={"size": 3}))
    ok = ~rel.withheld
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


def plotly_report_figures(rd: ReportData) -> dict[str, go.Figure]:
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


# ------------------------------------------------------------------ random reports
SCHEMES = ("uniform", "skip", "adaptive", "event", "user", "w-event")


def _times(draw, T: int, kind: str) -> np.ndarray:
    """Times of ``kind``: whole or fractional numbers, or hourly / irregular dates
    (some NaT when ``nat``)."""
    if kind == "number":
        step = draw(st.sampled_from([1, 3, 0.5]))
        return np.arange(T) * step + draw(st.integers(-5, 5))
    start = np.datetime64("2024-03-04T00:00", "us") + np.timedelta64(
        draw(st.integers(0, 10 ** 6)), "m")
    gaps = np.asarray(draw(st.lists(st.integers(1, 600), min_size=T, max_size=T)))
    t = start + np.cumsum(gaps).astype("timedelta64[m]")
    if draw(st.booleans()) and T > 2:
        t[draw(st.integers(0, T - 1))] = np.datetime64("NaT")
    return t


def _leakage(draw, T: int) -> LeakageSummary:
    """TPL and landmark TPL (or none: not computed)."""
    if not draw(st.booleans()):
        return LeakageSummary(None, None, None)  # type: ignore[arg-type]
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    tpl = rng.gamma(2.0, 0.5, T)
    return LeakageSummary(None, tpl, tpl + rng.gamma(1.0, 0.5, T))  # type: ignore[arg-type]


@st.composite
def series_reports(draw) -> ReportData:
    T = draw(st.sampled_from([1, 2, 3, 7, 40, 168]) | st.integers(1, 60)
             | st.sampled_from([1200, 4500]))
    kind = draw(st.sampled_from(["number", "datetime"]))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    values = np.round(rng.gamma(2.0, 0.5, T), 2)
    landmarks = sorted(set(draw(st.lists(st.integers(0, T - 1), max_size=min(T, 6)))))
    scheme = draw(st.sampled_from(SCHEMES))
    rel = release_series(values, landmarks, epsilon=draw(st.sampled_from([0.5, 1.0, 3.0])),
                         scheme=scheme, sensitivity=1.0, seed=seed, window=5,
                         max_landmarks=10)
    unit = draw(st.sampled_from(["", "kWh", "<b>°C</b>"]))
    data = Series(time=_times(draw, T, kind), values=values, time_kind=kind, unit=unit)
    return ReportData(ViewConfig(), data, rel, _leakage(draw, T),
                      datetime(2026, 12, 7, tzinfo=UTC))


@st.composite
def track_reports(draw) -> ReportData:
    T = draw(st.integers(1, 80))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    lat = 48.85 + np.cumsum(rng.normal(0, 0.0005, T))
    lon = 2.35 + np.cumsum(rng.normal(0, 0.0005, T))
    segment = np.cumsum(rng.random(T) < draw(st.sampled_from([0.0, 0.05, 0.3])))
    kind = draw(st.sampled_from(["datetime", "number", "index"]))
    time = (_times(draw, T, "datetime") if kind == "datetime"
            else np.arange(T, dtype=float) * 30 if kind == "number" else np.arange(T))
    landmarks = sorted(set(draw(st.lists(st.integers(0, T - 1), max_size=min(T, 5)))))
    rel = release_trajectory(lat, lon, landmarks, epsilon=draw(st.sampled_from([0.5, 2.0])),
                             radius=100.0, scheme=draw(st.sampled_from(SCHEMES)), seed=seed,
                             window=4, max_landmarks=10)
    data = Track(lat=lat, lon=lon, time=time, time_kind=kind, segment=segment)
    return ReportData(ViewConfig(data_kind="track", dataset="demo-paris"), data, rel,
                      _leakage(draw, T), datetime(2026, 12, 7, tzinfo=UTC))


def _drawn(fig) -> str:
    """The figure's SVG, or the error drawing it raised (the same one either way: a
    series with a missing time has no date axis to draw)."""
    try:
        return figure_svg(fig)
    except ValueError as exc:
        return f"ValueError: {exc}"


def _same_svg(rd: ReportData) -> None:
    ours, theirs = report_figures(rd), plotly_report_figures(rd)
    assert list(ours) == list(theirs)
    for key in ours:
        assert _drawn(ours[key]) == _drawn(theirs[key]), key


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_reports())
def test_series_charts_draw_the_svg_of_the_plotly_figures(rd):
    _same_svg(rd)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(track_reports())
def test_track_charts_draw_the_svg_of_the_plotly_figures(rd):
    _same_svg(rd)


def test_the_budget_spec_is_the_timeline_figure_with_the_axis_pinned():
    """The series' budget chart is the Timeline figure's JSON (the app's figure), its
    bars one width and every x axis pinned to the data, as plotly's update_* set them."""
    T = 30
    values = np.linspace(0.1, 3.0, T)
    rel = release_series(values, [3, 20], epsilon=1.0, scheme="uniform", seed=1)
    data = Series(time=np.arange(T) * 2, values=values)
    rd = ReportData(ViewConfig(), data, rel, LeakageSummary(None, None, None),  # type: ignore[arg-type]
                    datetime(2026, 12, 7, tzinfo=UTC))
    spec = report_figures(rd)["budget"]
    fig = plotly_report_figures(rd)["budget"]
    layout = fig.layout.to_plotly_json()
    for ours, theirs in zip(spec.data, [t.to_plotly_json() for t in fig.data], strict=True):
        assert ours.keys() == theirs.keys()
        for k in ours:
            np.testing.assert_array_equal(np.asarray(ours[k], dtype=object),
                                          np.asarray(theirs[k], dtype=object))
    for k in ("xaxis", "xaxis2", "yaxis", "yaxis2", "shapes", "annotations", "height"):
        assert spec.layout[k] == layout[k], k
