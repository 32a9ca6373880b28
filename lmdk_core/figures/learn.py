"""Plotly figure builders for the Learn page: results of :mod:`lmdk_core.teaching` in,
figures out (no streamlit). Colours follow :data:`lmdk_core.figures.COLORS`; the two
neighbouring data sets are blue (D) and orange (D′) everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lmdk_core.figures.common import (
    COLORS,
    hline,
    plain_figure,
    subplot_axes,
    subplot_layout,
    template_json,
    with_template,
)
from lmdk_core.figures.style import rgba
from lmdk_core.teaching.adversary import posterior_bound, posterior_lower_bound
from lmdk_core.teaching.composition import CorrelatedWindow, PostProcessing
from lmdk_core.teaching.definition import NeighbourDensities
from lmdk_core.teaching.levels import ProtectionLevel
from lmdk_core.teaching.mechanisms import NoiseCloud, RRSurvey

__all__ = [
    "correlation_figure",
    "discount_figure",
    "exponential_figure",
    "geometric_figure",
    "laplace_mechanism_figure",
    "neighbours_figure",
    "noise_cloud_figure",
    "post_processing_figure",
    "posterior_figure",
    "protection_levels_figure",
    "randomized_response_figure",
]

D_COLOR = COLORS["released"]
D2_COLOR = COLORS["approximated"]
BAND = rgba(COLORS["total"], 0.15)


def _layout(fig: go.Figure, height: int, top: int = 50, legend_y: float = 1.02,
            **kw) -> go.Figure:
    """The Learn charts' height, margins, legend above and white template (set by
    :func:`~lmdk_core.figures.common.with_template`: the same figure, ~35 ms faster)."""
    fig.update_layout(height=height, margin={"l": 60, "r": 20, "t": top, "b": 50},
                      legend={"orientation": "h", "yanchor": "bottom", "y": legend_y, "x": 0},
                      **kw)
    return with_template(fig, "plotly_white")


def neighbours_figure(nd: NeighbourDensities, interval: tuple[float, float] | None = None
                      ) -> go.Figure:
    """Top: the Laplace output densities on D and on its neighbour D′ (and, if given, an
    interval of outputs O shaded). Bottom: the privacy loss ``ln(p_D(x)/p_D′(x))``
    inside the band ``[−ε, ε]``.

    Written as plain dictionaries on the cached subplot grid
    (:func:`~lmdk_core.figures.common.subplot_layout`,
    :func:`~lmdk_core.figures.common.plain_figure`): lesson 1 rebuilds it on every step
    of its sliders, and plotly's validation of each trace, line and axis took ~20 ms."""
    layout = subplot_layout(2, 1, shared_xaxes=True, vertical_spacing=0.12,
                            row_heights=(0.62, 0.38), subplot_titles=(
                                "What the analyst may see: density of the released count",
                                "Privacy loss ln(p_D(x) / p_D′(x)) — always between −ε and ε"))
    top, bottom = subplot_axes(1), subplot_axes(2)
    data = [{"type": "scatter", "x": nd.x, "y": nd.density_d,
             "name": f"D: true count {nd.count_d:g}", "line": {"color": D_COLOR, "width": 2.5},
             "hovertemplate": "output %{x:.2f}<br>density %{y:.4f}<extra>D</extra>", **top},
            {"type": "scatter", "x": nd.x, "y": nd.density_d2,
             "name": f"D′: one more person, count {nd.count_d2:g}",
             "line": {"color": D2_COLOR, "width": 2.5, "dash": "dash"},
             "hovertemplate": "output %{x:.2f}<br>density %{y:.4f}<extra>D′</extra>", **top}]
    if interval is not None:
        m = (nd.x >= interval[0]) & (nd.x <= interval[1])
        if m.any():
            data += [{"type": "scatter", "x": nd.x[m], "y": y[m], "fill": "tozeroy",
                      "mode": "none", "fillcolor": rgba(colour, 0.25), "name": name,
                      "hoverinfo": "skip", **top}
                     for y, colour, name in ((nd.density_d, D_COLOR, "outputs in O (from D)"),
                                             (nd.density_d2, D2_COLOR,
                                              "outputs in O (from D′)"))]
    eps = nd.epsilon
    data += [{"type": "scatter", "x": [nd.x[0], nd.x[-1], nd.x[-1], nd.x[0]],
              "y": [-eps, -eps, eps, eps], "fill": "toself", "fillcolor": BAND, "mode": "none",
              "name": "allowed: |loss| ≤ ε", "hoverinfo": "skip", **bottom},
             {"type": "scatter", "x": nd.x, "y": nd.log_ratio, "name": "privacy loss",
              "line": {"color": COLORS["total"], "width": 2.5},
              "hovertemplate": "output %{x:.2f}<br>loss %{y:.3f}<extra></extra>", **bottom}]
    for y in (eps, -eps):
        hline(layout, y, 2)
    layout["annotations"].append({"showarrow": False, "text": f"+ε = {eps:g}",
                                  "x": nd.x[-1], "xanchor": "right", "xref": "x2", "y": eps,
                                  "yanchor": "bottom", "yref": "y2"})
    layout["yaxis"]["title"] = {"text": "density"}
    layout["yaxis2"].update(title={"text": "loss"}, range=[-1.6 * eps, 1.6 * eps])
    layout["xaxis2"]["title"] = {"text": "released count x"}
    # the legend sits above the first subplot title
    return plain_figure(data, _plain_layout(layout, 580, top=110, legend_y=1.1))


def _plain_layout(layout: dict, height: int, top: int = 50, legend_y: float = 1.02
                  ) -> dict:
    """:func:`_layout`'s height, margins, legend and template written into a plain
    ``layout`` dictionary (in place; returned)."""
    layout.update(height=height, margin={"l": 60, "r": 20, "t": top, "b": 50},
                  legend={"orientation": "h", "yanchor": "bottom", "y": legend_y, "x": 0},
                  template=template_json("plotly_white"))
    return layout


def posterior_figure(prior: float, epsilon: float,
                     compare: Sequence[float] = (0.1, 0.5, 1.0, 2.0, 5.0)) -> go.Figure:
    """The adversary's largest (and smallest) posterior after one ε-DP output, against
    the prior: ``p·e^ε/(1 − p + p·e^ε)``; thin lines for other values of ε."""
    p = np.linspace(0.0, 1.0, 201)
    fig = go.Figure()
    for e in compare:
        if abs(e - epsilon) < 1e-12:
            continue
        fig.add_trace(go.Scatter(x=p, y=posterior_bound(p, e), mode="lines",
                                 line={"color": "#c7c7c7", "width": 1},
                                 name=f"ε = {e:g}", showlegend=False,
                                 hovertemplate=f"ε = {e:g}<br>prior %{{x:.2f}} → at most "
                                 "%{y:.3f}<extra></extra>"))
        i = 60
        fig.add_annotation(x=p[i], y=float(posterior_bound(p[i], e)), text=f"ε={e:g}",
                           showarrow=False, font={"size": 10, "color": COLORS["original"]},
                           xanchor="right", yanchor="bottom")
    lo = posterior_lower_bound(p, epsilon)
    hi = posterior_bound(p, epsilon)
    fig.add_trace(go.Scatter(x=np.concatenate([p, p[::-1]]), y=np.concatenate([hi, lo[::-1]]),
                             fill="toself", fillcolor=rgba(COLORS["landmark"], 0.12), mode="none",
                             name="possible beliefs after the release", hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=p, y=hi, mode="lines", name=f"largest posterior at ε = {epsilon:g}",
                             line={"color": COLORS["landmark"], "width": 3},
                             hovertemplate="prior %{x:.2f} → at most %{y:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="no information (ε = 0)",
                             line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                             hoverinfo="skip"))
    post = float(posterior_bound(prior, epsilon))
    fig.add_trace(go.Scatter(x=[prior], y=[post], mode="markers+text", name="your prior",
                             marker={"size": 12, "color": COLORS["landmark"],
                                     "line": {"color": "white", "width": 2}},
                             text=[f"  {prior:.0%} → {post:.1%}"], textposition="middle right",
                             hoverinfo="skip"))
    fig.update_xaxes(title_text="prior belief p (before the release)", range=[0, 1],
                     tickformat=".0%")
    fig.update_yaxes(title_text="belief after the release", range=[0, 1.02], tickformat=".0%")
    return _layout(fig, 440)


def _protected_cells(levels: Sequence[ProtectionLevel]) -> go.Scatter:
    """An open orange square on every cell protected together with the chosen timestamp."""
    xs, ys = [], []
    for lv in levels:
        for t in np.flatnonzero(lv.protected):
            xs.append(int(t))
            ys.append(lv.label)
    return go.Scatter(x=xs, y=ys, mode="markers", name="protected together with t",
                      marker={"symbol": "square-open", "size": 36,
                              "color": COLORS["approximated"], "line": {"width": 3}},
                      hoverinfo="skip")


def _timestamp_tick(t: int, landmarks: set[int], focus: int) -> str:
    """The label of column ``t``: red "t L" for a landmark, bold for the chosen one."""
    if t in landmarks:
        return f"<span style='color:{COLORS['landmark']}'><b>{t} L</b></span>"
    return f"<b>{t}</b>" if t == focus else str(t)


def protection_levels_figure(levels: Sequence[ProtectionLevel], landmarks: Sequence[int],
                             focus: int, epsilon: float) -> go.Figure:
    """A grid, one row per level and one column per timestamp: the colour and number in
    a cell is ε_t; orange frames mark the events protected together with the chosen
    timestamp (``focus``); landmark columns are labelled in red."""
    T = levels[0].epsilon_t.size
    lm = set(int(t) for t in landmarks)
    names = [lv.label for lv in levels][::-1]
    z = np.array([lv.epsilon_t for lv in levels][::-1])
    text = [[f"{v:.2g}" for v in row] for row in z]
    fig = go.Figure(go.Heatmap(
        z=z, x=list(range(T)), y=names, text=text, texttemplate="%{text}",
        textfont={"size": 11},
        colorscale="Blues", zmin=0, zmax=epsilon, xgap=3, ygap=3,
        colorbar={"title": {"text": "ε_t"}, "thickness": 12},
        hovertemplate="%{y}<br>t=%{x}: ε_t = %{z:.3g}<extra></extra>"))
    fig.add_trace(_protected_cells(levels))
    fig.update_xaxes(tickmode="array", tickvals=list(range(T)),
                     ticktext=[_timestamp_tick(t, lm, focus) for t in range(T)],
                     title_text="timestamp (L = landmark; bold = the chosen timestamp t)")
    fig.update_yaxes(autorange=True)
    return _layout(fig, 330, showlegend=True)


def laplace_mechanism_figure(samples: np.ndarray, value: float, epsilon: float,
                             sensitivity: float) -> go.Figure:
    """Histogram of Laplace releases of ``value`` with the exact density ``Lap(Δf/ε)``
    and the mean absolute error ``Δf/ε`` marked on both sides."""
    b = sensitivity / epsilon
    x = np.linspace(value - 7 * b, value + 7 * b, 401)
    fig = go.Figure()
    fig.add_trace(go.Histogram(x=samples, histnorm="probability density", name="releases",
                               marker={"color": COLORS["released"], "opacity": 0.55},
                               nbinsx=60))
    fig.add_trace(go.Scatter(x=x, y=np.exp(-np.abs(x - value) / b) / (2 * b), mode="lines",
                             name=f"exact density, scale Δf/ε = {b:.3g}",
                             line={"color": COLORS["epsilon"], "width": 2}))
    fig.add_vline(x=value, line={"color": COLORS["original"], "width": 2},
                  annotation_text=f"true value {value:g}", annotation_position="top")
    for s in (-1, 1):
        fig.add_vline(x=value + s * b, line={"color": COLORS["total"], "dash": "dot"})
    fig.update_xaxes(title_text="released value (dotted: true value ± mean error Δf/ε)",
                     range=[value - 7 * b, value + 7 * b])
    fig.update_yaxes(title_text="density")
    return _layout(fig, 360, top=80, legend_y=1.1)


def geometric_figure(k: np.ndarray, pmf: np.ndarray, value: int) -> go.Figure:
    """Probability of each whole-number release ``value + k`` (two-sided geometric)."""
    fig = go.Figure(go.Bar(x=value + k, y=pmf, marker={"color": COLORS["released"]},
                           name="P(release)",
                           hovertemplate="release %{x}: probability %{y:.3f}<extra></extra>"))
    fig.add_vline(x=value, line={"color": COLORS["original"], "width": 2},
                  annotation_text=f"true count {value}", annotation_position="top")
    fig.update_xaxes(title_text="released count (whole numbers only)")
    fig.update_yaxes(title_text="probability")
    return _layout(fig, 300, showlegend=False)


def _circle(r: float, n: int = 181) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points of the circle of radius ``r`` around (0, 0)."""
    a = np.linspace(0, 2 * np.pi, n)
    return r * np.cos(a), r * np.sin(a)


def noise_cloud_figure(cloud: NoiseCloud) -> go.Figure:
    """Planar Laplace releases of one location (metres east/north of it), with circles at
    the protection radius r, the mean displacement 2r/ε and the 95th percentile."""
    fig = go.Figure()
    # SVG, not WebGL: a WebGL layer would hide the circles drawn after it
    fig.add_trace(go.Scatter(x=cloud.x, y=cloud.y, mode="markers", name="released locations",
                               marker={"size": 4, "color": COLORS["released"], "opacity": 0.45},
                               hovertemplate="%{x:.0f} m east, %{y:.0f} m north<extra></extra>"))
    for r, name, dash, color in (
        (cloud.radius, f"protection radius r = {cloud.radius:,.0f} m", "dash",
         COLORS["landmark"]),
        (cloud.expected_mean, f"mean displacement 2r/ε = {cloud.expected_mean:,.0f} m",
         "solid", COLORS["total"]),
        (cloud.p95, f"95 % of releases within {cloud.p95:,.0f} m", "dot", COLORS["epsilon"]),
    ):
        cx, cy = _circle(r)
        fig.add_trace(go.Scatter(x=cx, y=cy, mode="lines", name=name,
                                 line={"color": color, "dash": dash, "width": 2},
                                 hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[0], y=[0], mode="markers", name="true location",
                             marker={"symbol": "star", "size": 18, "color": COLORS["landmark"],
                                     "line": {"color": "white", "width": 1}}))
    lim = 1.1 * max(cloud.p95, cloud.radius)
    fig.update_xaxes(title_text="metres east", range=[-lim, lim], zeroline=False)
    fig.update_yaxes(title_text="metres north", range=[-lim, lim], scaleanchor="x",
                     scaleratio=1, zeroline=False)
    return _layout(fig, 520)


def exponential_figure(names: Sequence[str], utilities: Sequence[float],
                       probabilities: np.ndarray) -> go.Figure:
    """Selection probability of each candidate; the bar text gives its utility."""
    fig = go.Figure(go.Bar(
        x=list(names), y=probabilities, text=[f"{u:g} visits" for u in utilities],
        textposition="outside", marker={"color": COLORS["released"]},
        hovertemplate="%{x}: chosen with probability %{y:.1%}<extra></extra>"))
    fig.update_yaxes(title_text="probability of being announced", range=[0, 1.1],
                     tickformat=".0%")
    return _layout(fig, 320, showlegend=False)


def randomized_response_figure(s: RRSurvey) -> go.Figure:
    """True share of "yes", share of "yes" reports, and the unbiased estimate with a 95 %
    interval (±1.96 standard errors)."""
    labels = ["true share of 'yes'", "share of 'yes' reports", "estimate from the reports"]
    vals = [s.true_proportion, s.observed, s.estimate]
    colors = [COLORS["original"], COLORS["approximated"], COLORS["released"]]
    fig = go.Figure(go.Bar(
        x=labels, y=vals, marker={"color": colors},
        text=[f"{v:.1%}" for v in vals], textposition="inside", insidetextanchor="middle",
        textfont={"color": "white", "size": 14},
        hovertemplate="%{x}: %{y:.1%}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=[labels[2]], y=[s.estimate], mode="markers", marker={"size": 1, "opacity": 0},
        error_y={"type": "data", "array": [1.96 * s.std_error], "color": COLORS["epsilon"],
                 "thickness": 2, "width": 10},
        hovertemplate=f"95 % interval: ±{1.96 * s.std_error:.1%}<extra></extra>"))
    fig.update_yaxes(title_text="share of people", tickformat=".0%",
                     range=[min(0, min(vals) - 0.1), max(1.0, max(vals) + 0.15)])
    return _layout(fig, 320, showlegend=False)


def discount_figure(epsilons: np.ndarray, weights: np.ndarray) -> go.Figure:
    """Budget of each release and its discounted contribution ``g(i)·ε_i``."""
    i = np.arange(1, epsilons.size + 1)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=i, y=epsilons, name="ε_i", marker={"color": "#c7c7c7"}))
    fig.add_trace(go.Bar(x=i, y=weights * epsilons, name="g(i)·ε_i (discounted)",
                         marker={"color": COLORS["released"]}))
    fig.update_xaxes(title_text="release i (1 = oldest, last = newest)", dtick=1)
    fig.update_yaxes(title_text="budget")
    return _layout(fig, 300, barmode="overlay")


def correlation_figure(cw: CorrelatedWindow) -> go.Figure:
    """ε_t bars, Cao et al.'s backward (BPL) and forward (FPL) leakage, the chosen window
    shaded."""
    T = cw.epsilon_t.size
    t = np.arange(T)
    fig = go.Figure()
    fig.add_vrect(x0=cw.start - 0.5, x1=cw.end + 0.5, fillcolor=rgba(COLORS["landmark"], 0.10),
                  line_width=0, annotation_text="window", annotation_position="top left")
    fig.add_trace(go.Bar(x=t, y=cw.epsilon_t, name="ε_t", marker={"color": "#c7c7c7"}))
    fig.add_trace(go.Scatter(x=t, y=cw.bpl, name="backward leakage α^B (past releases)",
                             mode="lines+markers", line={"color": COLORS["tpl"], "width": 2}))
    fig.add_trace(go.Scatter(x=t, y=cw.fpl, name="forward leakage α^F (future releases)",
                             mode="lines+markers",
                             line={"color": COLORS["approximated"], "width": 2, "dash": "dot"}))
    fig.update_xaxes(title_text="timestamp", dtick=1 if T <= 30 else None)
    fig.update_yaxes(title_text="privacy loss", rangemode="tozero")
    return _layout(fig, 330)


def post_processing_figure(pp: PostProcessing) -> go.Figure:
    """The true series, its Laplace release and two post-processed versions."""
    t = np.arange(pp.original.size)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=t, y=pp.original, name="true",
                             line={"color": COLORS["original"], "width": 3}))
    fig.add_trace(go.Scatter(x=t, y=pp.released,
                             name=f"released (MAE {pp.mae['released']:.2f})",
                             line={"color": COLORS["released"], "width": 1}, mode="lines+markers",
                             marker={"size": 4}))
    fig.add_trace(go.Scatter(x=t, y=pp.clipped, name=f"clipped at 0 (MAE {pp.mae['clipped']:.2f})",
                             line={"color": COLORS["approximated"], "width": 1, "dash": "dot"}))
    fig.add_trace(go.Scatter(x=t, y=pp.smoothed,
                             name=f"clipped + smoothed (MAE {pp.mae['smoothed']:.2f})",
                             line={"color": COLORS["total"], "width": 2.5}))
    fig.update_xaxes(title_text="hour")
    fig.update_yaxes(title_text="count")
    return _layout(fig, 340)
