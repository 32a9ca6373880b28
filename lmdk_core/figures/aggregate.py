"""Figures of a population statistic per window (the Population page's Statistics view).

Figure builders only (arrays in, plotly figures out; docs/aggregate.md):

* :func:`statistic_time_figure` — the released statistic over the windows with its 95 %
  interval as a band, and (when given) the true statistic, dashed grey and named
  CONFIDENTIAL: it is drawn on screen only, never in a download;
* :func:`cell_map_figure` — the released count of every cell of one window as a plain
  scatter on longitude/latitude axes (no map tiles, no network request), marker size and
  colour by count;
* :func:`level_error_figure` — expected |error| against ε, one line per level (event,
  w-event, user, landmark), log-log, with the measured error of each level at the
  current ε as a marker.

Colours: released blue, truth grey (docs/chart-style.md); levels with the scheme colours
of the Compare page.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lmdk_core.figures.common import COLORS
from lmdk_core.figures.style import SCHEME_COLORS, plotly_layout, plotly_title, rgba
from lmdk_core.foundation.quoting import plotly_text

__all__ = ["LEVEL_COLORS", "cell_map_figure", "level_error_figure", "statistic_time_figure"]

#: one colour per level (the scheme colours of the same names; landmark as Uniform)
LEVEL_COLORS = {"event": SCHEME_COLORS["event"], "w-event": SCHEME_COLORS["w-event"],
                "user": SCHEME_COLORS["user"], "landmark": SCHEME_COLORS["uniform"]}
_HEIGHT = 340


def _style(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    fig.update_layout(template="plotly_white", **plotly_layout(titles=True, left=60,
                                                               bottom=60))
    fig.update_layout(title=plotly_title(title), height=_HEIGHT)
    fig.update_xaxes(title_text=x)
    fig.update_yaxes(title_text=y)
    return fig


def statistic_time_figure(windows: list[str], released: np.ndarray, low: np.ndarray,
                          high: np.ndarray, truth: np.ndarray | None, *, title: str,
                          unit: str = "") -> go.Figure:
    """Released values with their 95 % band over the windows; the truth (CONFIDENTIAL,
    on screen only) dashed grey when given."""
    x = [w.rstrip("Z") for w in windows]
    band = COLORS["released"]
    traces = [
        go.Scatter(x=x, y=high, mode="lines", line=dict(width=0), hoverinfo="skip",
                   showlegend=False),
        go.Scatter(x=x, y=low, mode="lines", line=dict(width=0), fill="tonexty",
                   fillcolor=rgba(band, 0.18), name="95 % interval", hoverinfo="skip"),
        go.Scatter(x=x, y=released, mode="lines", line=dict(color=band, width=1.6),
                   name="released", hovertemplate="%{x}: %{y:.4g}<extra>released</extra>"),
    ]
    if truth is not None:
        traces.append(go.Scatter(x=x, y=truth, mode="lines",
                                 line=dict(color=COLORS["original"], width=1.2, dash="dash"),
                                 name="true (CONFIDENTIAL, on screen only)",
                                 hovertemplate="%{x}: %{y:.4g}<extra>true</extra>"))
    fig = _style(go.Figure(traces), title, "window", plotly_text(unit) if unit else "value")
    fig.update_layout(legend=dict(orientation="h", y=-0.32))
    return fig


def cell_map_figure(lat: np.ndarray, lon: np.ndarray, counts: np.ndarray,
                    title: str) -> go.Figure:
    """The released count of each cell, at its centre, on plain lon/lat axes (equal
    scale at the cells' latitude); negative counts (noise) drawn at the smallest size."""
    c = np.asarray(counts, dtype=float)
    top = max(float(np.nanmax(c, initial=0.0)), 1.0)
    size = 6 + 30 * np.clip(c, 0, None) / top
    fig = go.Figure(go.Scatter(
        x=lon, y=lat, mode="markers",
        marker=dict(size=size, color=c, colorscale="Blues", cmin=min(0.0, float(np.nanmin(
            c, initial=0.0))), cmax=top, showscale=True, line=dict(width=0.5, color="#444"),
            colorbar=dict(title="released")),
        hovertemplate="lat %{y:.4f}, lon %{x:.4f}: %{marker.color:.3g}<extra></extra>"))
    fig = _style(fig, title, "longitude", "latitude")
    mid = float(np.mean(lat)) if np.size(lat) else 0.0
    fig.update_yaxes(scaleanchor="x", scaleratio=1 / max(np.cos(np.radians(mid)), 1e-6))
    return fig


def level_error_figure(epsilons: np.ndarray, curves: dict[str, np.ndarray],
                       epsilon: float, measured: dict[str, float], unit: str = "") -> go.Figure:
    """Expected |error| vs ε, one line per level, log-log; the measured error of each
    level at the current ε as a marker (CONFIDENTIAL: measured on the raw data)."""
    traces = []
    for level, err in curves.items():
        colour = LEVEL_COLORS.get(level, COLORS["released"])
        traces.append(go.Scatter(x=epsilons, y=err, mode="lines", name=f"{level} (expected)",
                                 line=dict(color=colour, width=2),
                                 hovertemplate=f"{level}: ε %{{x:.3g}} → %{{y:.4g}}"
                                               "<extra></extra>"))
        if np.isfinite(measured.get(level, np.nan)):
            traces.append(go.Scatter(x=[epsilon], y=[measured[level]], mode="markers",
                                     name=f"{level} (measured)", showlegend=False,
                                     marker=dict(color=colour, size=10, symbol="diamond"),
                                     hovertemplate=f"{level} measured at ε %{{x:.3g}}: "
                                                   "%{y:.4g}<extra></extra>"))
    fig = _style(go.Figure(traces), "Expected error per released value vs ε (diamonds: "
                 "measured here)", "ε", f"mean |error| {plotly_text(unit)}".strip())
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig.update_layout(legend=dict(orientation="h", y=-0.32))
    return fig
