"""Figure builders: engine results in, plotly figures out (no streamlit here).

Colours are the same on every chart: original data grey, released data blue,
landmarks red, approximated (nothing spent) orange, the ε reference black dashed.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from lmdk_core.release import Release

__all__ = ["COLORS", "timeline_figure", "hover_labels"]

COLORS = {
    "original": "#7f7f7f",
    "released": "#1f77b4",
    "landmark": "#d62728",
    "approximated": "#ff7f0e",
    "regular": "#1f77b4",
    "epsilon": "#111111",
    "tpl": "#9467bd",
    "landmark_tpl": "#d62728",
    "total": "#2ca02c",
}

#: above this many points, scatter traces switch to WebGL
WEBGL_THRESHOLD = 3000


def hover_labels(time: np.ndarray, time_kind: str) -> list[str]:
    """Short human labels for timestamps ('Tue 05 Mar 03:00' or the number)."""
    t = np.asarray(time)
    if time_kind == "datetime":
        import pandas as pd

        return [pd.Timestamp(x).strftime("%a %d %b %H:%M") if not pd.isna(x) else "?"
                for x in t]
    return [f"{x:g}" if isinstance(x, (float, np.floating)) else str(x) for x in t]


def timeline_figure(
    time: np.ndarray,
    time_kind: str,
    rel: Release,
    *,
    unit: str = "",
    leakage: dict[str, np.ndarray] | None = None,
    suggestions: list[int] | None = None,
    height: int | None = None,
) -> go.Figure:
    """Aligned panels on one time axis: data (original vs released, landmarks marked),
    per-timestamp budget (bars, landmarks coloured, approximations marked, the
    theorem's total Σ_{L∪{t}} ε_i against ε), and, if given, the leakage curves
    (``leakage`` maps 'TPL' / 'landmark TPL' to arrays). ``suggestions`` are timestamps
    proposed as landmarks, drawn as open diamonds."""
    T = rel.original.shape[0]
    x = np.asarray(time)
    t_idx = np.arange(T)
    labels = hover_labels(x, time_kind)
    is_lm = np.zeros(T, dtype=bool)
    is_lm[rel.landmarks] = True
    rows = 3 if leakage else 2
    heights = [0.5, 0.25, 0.25] if leakage else [0.62, 0.38]
    titles = ["Data: original vs released", "Budget spent at each timestamp (ε_t)"]
    if leakage:
        titles.append("Privacy leakage under temporal correlation")
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.07,
                        row_heights=heights, subplot_titles=titles)
    scatter = go.Scattergl if T > WEBGL_THRESHOLD else go.Scatter
    u = f" {unit}" if unit else ""
    custom = np.column_stack([t_idx, labels])
    status = np.where(rel.published, "published (noisy)",
                      np.where(rel.withheld, "withheld (nothing released yet)",
                               "approximated (last release repeated)"))

    fig.add_trace(scatter(
        x=x, y=rel.original, name="original", mode="lines+markers",
        line={"color": COLORS["original"], "width": 1.5},
        marker={"size": 6 if T <= 500 else 4, "color": COLORS["original"]},
        customdata=custom,
        hovertemplate="t=%{customdata[0]} · %{customdata[1]}<br>original %{y:.4g}" + u
        + "<extra>click to toggle landmark</extra>",
    ), row=1, col=1)
    fig.add_trace(scatter(
        x=x, y=rel.released, name="released", mode="lines",
        line={"color": COLORS["released"], "width": 1.5},
        customdata=np.column_stack([t_idx, labels, status]),
        hovertemplate="t=%{customdata[0]} · %{customdata[1]}<br>released %{y:.4g}" + u
        + "<br>%{customdata[2]}<extra></extra>",
        connectgaps=False,
    ), row=1, col=1)
    approx = ~rel.published & ~rel.withheld
    if approx.any():
        fig.add_trace(scatter(
            x=x[approx], y=rel.released[approx], name="approximated (ε_t = 0)",
            mode="markers",
            marker={"symbol": "circle-open", "size": 7, "color": COLORS["approximated"]},
            customdata=custom[approx],
            hovertemplate="t=%{customdata[0]} · %{customdata[1]}<br>approximation %{y:.4g}"
            + u + "<extra></extra>",
        ), row=1, col=1)
    if suggestions:
        sug = np.asarray(sorted(set(suggestions) - set(rel.landmarks.tolist())), dtype=int)
        if sug.size:
            fig.add_trace(scatter(
                x=x[sug], y=rel.original[sug], name="suggested landmark", mode="markers",
                marker={"symbol": "diamond-open", "size": 14, "color": COLORS["landmark"],
                        "line": {"width": 2}},
                customdata=custom[sug],
                hovertemplate="SUGGESTED t=%{customdata[0]} · %{customdata[1]}<br>%{y:.4g}" + u
                + "<extra>click to accept</extra>",
            ), row=1, col=1)
    if is_lm.any():
        fig.add_trace(scatter(
            x=x[is_lm], y=rel.original[is_lm], name="landmark", mode="markers",
            marker={"symbol": "star", "size": 13, "color": COLORS["landmark"],
                    "line": {"width": 1, "color": "white"}},
            customdata=custom[is_lm],
            hovertemplate="LANDMARK t=%{customdata[0]} · %{customdata[1]}<br>%{y:.4g}" + u
            + "<extra>click to remove</extra>",
        ), row=1, col=1)

    # two bar traces with one colour each: a per-bar colour array is slow to validate
    for mask, kind in ((~is_lm, "regular"), (is_lm, "landmark")):
        if not mask.any():
            continue
        fig.add_trace(go.Bar(
            x=x[mask], y=rel.epsilon_t[mask], name=f"ε_t ({kind})",
            marker={"color": COLORS[kind], "line": {"width": 0}},
            customdata=np.column_stack([t_idx[mask], np.asarray(labels)[mask], status[mask]]),
            hovertemplate="t=%{customdata[0]} · %{customdata[1]} (" + kind + ")"
            "<br>ε_t = %{y:.4g}<br>%{customdata[2]}<extra></extra>",
            showlegend=False,
        ), row=2, col=1)
    if approx.any() or rel.withheld.any():
        zero = ~rel.published
        fig.add_trace(scatter(
            x=x[zero], y=np.zeros(int(zero.sum())), name="nothing spent (approximated)",
            mode="markers", marker={"symbol": "x", "size": 7, "color": COLORS["approximated"]},
            hoverinfo="skip", showlegend=False,
        ), row=2, col=1)
    fig.add_trace(scatter(
        x=x, y=rel.verdict.totals, name="landmarks + this timestamp (must stay ≤ ε)", mode="lines",
        line={"color": COLORS["total"], "width": 1.5, "shape": "hvh"},
        hovertemplate="Σ over L∪{t} = %{y:.4g}<extra></extra>",
    ), row=2, col=1)
    fig.add_hline(y=rel.epsilon, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                  annotation_text=f"ε = {rel.epsilon:g}", annotation_position="top left",
                  row=2, col=1)
    if leakage:
        for name, values in leakage.items():
            color = COLORS["landmark_tpl"] if "landmark" in name else COLORS["tpl"]
            fig.add_trace(scatter(
                x=x, y=values, name=name, mode="lines",
                line={"color": color, "width": 2,
                      "dash": "solid" if "landmark" in name else "dot"},
                hovertemplate=name + " = %{y:.4g}<extra></extra>",
            ), row=3, col=1)
        fig.add_hline(y=rel.epsilon, line={"color": COLORS["epsilon"], "dash": "dash",
                                           "width": 1}, row=3, col=1,
                      annotation_text=f"ε = {rel.epsilon:g}", annotation_position="top left")
    fig.update_yaxes(title_text=unit or "value", row=1, col=1)
    fig.update_yaxes(title_text="ε_t", rangemode="tozero", row=2, col=1)
    if leakage:
        fig.update_yaxes(title_text="leakage (ε units)", rangemode="tozero", row=3, col=1)
    fig.update_layout(
        height=height or (720 if leakage else 560),
        margin={"l": 60, "r": 20, "t": 40, "b": 40},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.04, "x": 0},
        hovermode="closest",
        bargap=0.15,
        barmode="overlay",
        clickmode="event+select",
    )
    return fig

