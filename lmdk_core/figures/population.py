"""Figures of the Population page: distributions over users of a population release.

Figure builders only (the audit table in, plotly figures out): the number of landmarks
per user, the verdict colours, the largest landmark TPL per user against ε (or the
leakage target α) and the measured error per user. Colours: landmarks and leakage as in
:mod:`lmdk_core.figures`; verdicts green / amber / red.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from lmdk_core.figures.common import COLORS
from lmdk_core.figures.style import VERDICT_COLORS as STYLE_VERDICT_COLORS
from lmdk_core.figures.style import plotly_layout, plotly_title
from lmdk_core.foundation.quoting import plotly_text, plotly_texts

__all__ = ["VERDICT_COLORS", "error_figure", "landmark_count_figure", "short_number",
           "tpl_figure", "verdict_figure"]

#: the bar colour of each verdict
VERDICT_COLORS = STYLE_VERDICT_COLORS
VERDICT_NAMES = {"green": "private", "amber": "only if independent",
                 "red": "not private", "grey": "leakage not computed"}

_HEIGHT = 300


def _layout(fig: go.Figure, title: str, x: str, y: str = "users") -> go.Figure:
    """A Population chart's style: white template, title, axis titles, no legend."""
    fig.update_layout(template="plotly_white", **plotly_layout(titles=True, left=55, bottom=50))
    fig.update_layout(title=plotly_title(title), height=_HEIGHT, showlegend=False,
                      bargap=0.05)
    fig.update_xaxes(title_text=x)
    fig.update_yaxes(title_text=y)
    return fig


def landmark_count_figure(audit: pd.DataFrame) -> go.Figure:
    """Histogram of |L| (landmarks per user), one bar per count."""
    n = audit["n_landmarks"].to_numpy(dtype=int)
    fig = go.Figure(go.Histogram(x=n, xbins=dict(start=-0.5, end=float(n.max(initial=0)) + 0.5,
                                                 size=1),
                                 marker_color=COLORS["landmark"],
                                 hovertemplate="|L| = %{x}: %{y} users<extra></extra>"))
    return _layout(fig, f"Landmarks per user (median {np.median(n):g})", "|L| (landmarks)")


def verdict_figure(colours: np.ndarray) -> go.Figure:
    """Bars: how many users got each verdict colour."""
    keys = list(VERDICT_COLORS)
    counts = [int(np.sum(np.asarray(colours) == k)) for k in keys]
    fig = go.Figure(go.Bar(x=[VERDICT_NAMES[k] for k in keys], y=counts, text=counts,
                           textposition="outside",
                           marker_color=[VERDICT_COLORS[k] for k in keys],
                           hovertemplate="%{x}: %{y} users<extra></extra>"))
    fig = _layout(fig, "Verdict per user", "")
    fig.update_yaxes(range=[0, max(counts + [1]) * 1.2])
    return fig


def tpl_figure(audit: pd.DataFrame, bound: float, bound_name: str = "ε") -> go.Figure:
    """Histogram of each user's largest landmark TPL, with the bound (ε or α) as a
    vertical line; an empty chart with a note when no TPL was computed."""
    v = audit["max_landmark_tpl"].to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    fig = go.Figure()
    if v.size:
        fig.add_trace(go.Histogram(x=v, nbinsx=30, marker_color=COLORS["landmark_tpl"],
                                   hovertemplate="TPL %{x}: %{y} users<extra></extra>"))
        fig.add_vline(x=bound, line=dict(color=COLORS["epsilon"], dash="dash", width=2),
                      annotation_text=f"{bound_name} = {bound:g}",
                      annotation_position="top right")
        title = f"Largest landmark TPL per user (median {np.median(v):.3g})"
    else:
        title = "Largest landmark TPL per user: not computed (no correlation model)"
    return _layout(fig, title, "max landmark TPL")


def error_figure(audit: pd.DataFrame, unit: str = "") -> go.Figure:
    """Box plots over users of the measured MAE and RMSE (every user a point; the user
    ids, text from the input file, escaped for plotly)."""
    unit = plotly_text(unit)
    u = f" ({unit})" if unit else ""
    users = plotly_texts(audit["user"].astype(str))
    fig = go.Figure()
    for col, name in (("mae", "MAE"), ("rmse", "RMSE")):
        fig.add_trace(go.Box(y=audit[col].to_numpy(dtype=float), name=name, boxpoints="all",
                             jitter=0.4, pointpos=0, marker=dict(size=3, opacity=0.5),
                             line_color=COLORS["released"], text=users,
                             hovertemplate="user %{text}: %{y:.3g}<extra>" + name
                             + "</extra>"))
    mae = audit["mae"].to_numpy(dtype=float)
    med = np.nanmedian(mae) if np.isfinite(mae).any() else float("nan")
    sp = f" {unit}" if unit else ""
    return _layout(fig, f"Measured error per user (median MAE {short_number(med)}{sp})", "",
                   f"error{u}")


def short_number(x: float) -> str:
    """3 significant digits, but whole numbers with thousands separators from 1,000 on
    (2,940 m rather than 2.94e+03 m)."""
    if not np.isfinite(x):
        return "—"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"
