"""What the browser needs to redraw the Timeline's chart at any ε while a slider moves.

A static scheme (event, user, w-event, Uniform, Skip) spends ``ε_t = ε·share_t``, and a
Laplace release publishes ``x_t + Δf/ε_t · u_t`` with one unit draw ``u_t`` per
timestamp (Dwork et al., TCC 2006); an approximation repeats an earlier publication
(post-processing, the same law). So the whole chart at another total ε' follows from the
chart at ε:

* a released value ``y`` whose noise came from the true value ``b`` (the value itself, or
  that of the publication it repeats) becomes ``b + (y − b)·ε/ε'`` — the same draw,
  scaled (the preview of Skip and Uniform at ε is the release at ε);
* every budget of the middle panel (ε_t, the theorem's totals ``Σ_{L∪{t}} ε_i``) becomes
  ``y·ε'/ε``, so the theorem's verdict (totals ≤ ε) does not change with ε;
* TPL and landmark TPL under a correlation model are not linear in ε: they are read off
  a grid of totals (:mod:`lmdk_core.leakage.epsilon_grid`), interpolated in log ε;
* the verdict's colour and number: red when the theorem fails, else amber when the
  largest landmark TPL (from the grid) exceeds ε'·(1 + rtol), else green.

Adaptive decides where to publish from its own noisy outputs, so its chart at ε' is not
the one at ε scaled: :func:`timeline_preview` then sends the slider alone (the chart
follows when the slider is let go). The preview is never a release: what a download
publishes is drawn afresh on the server. Arrays travel as base64 float32.
"""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go

from lmdk_core.decision.verdict import LEAKAGE_RTOL
from lmdk_core.engine.release import Release
from lmdk_core.figures.decimation import display_indices
from lmdk_core.leakage.epsilon_grid import GridLeakage

__all__ = ["SLIDER_HIGH", "SLIDER_LOW", "SLIDER_STEPS", "noise_bases", "slider_range",
           "timeline_preview"]

#: the slider's usual range of ε (log scale); a current ε outside widens it
SLIDER_LOW, SLIDER_HIGH = 0.01, 10.0
#: positions of the slider over its range (an arrow key moves one: ~4 % per step)
SLIDER_STEPS = 180
#: schemes whose budgets are ε times a fixed share (the preview scales their release)
LINEAR_SCHEMES = frozenset({"event", "user", "w-event", "uniform", "skip"})


def b64(values: np.ndarray) -> str:
    """An array as base64 of little-endian float32 (what the browser decodes)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f4").tobytes()).decode()


def slider_range(epsilon: float) -> tuple[float, float]:
    """The slider's range: :data:`SLIDER_LOW` … :data:`SLIDER_HIGH`, widened to hold
    ``epsilon``."""
    return min(SLIDER_LOW, float(epsilon)), max(SLIDER_HIGH, float(epsilon))


def noise_bases(rel: Release) -> np.ndarray:
    """For each timestamp the true value its released value carries noise around: its
    own where it published, that of the publication it repeats where it approximated
    (NaN where withheld)."""
    x = np.asarray(rel.original, dtype=float)
    T = x.shape[0]
    src = np.where(rel.published, np.arange(T), -1)
    np.maximum.accumulate(src, out=src)
    base = np.full(T, np.nan)
    ok = src >= 0
    base[ok] = x[src[ok]]
    return base


def _y(trace) -> np.ndarray:
    return np.asarray(trace.y if trace.y is not None else [], dtype=float)


def _t(trace) -> np.ndarray:
    return np.asarray(trace.customdata, dtype=np.int64).reshape(-1)


def _epsilon_marks(layout, epsilon: float) -> tuple[list[int], list[int]]:
    """The indices of the ε reference lines (dashed, at y = ε) and of their labels."""
    shapes = [i for i, s in enumerate(layout.shapes or ())
              if s.type == "line" and s.y0 == epsilon and s.y1 == epsilon
              and s.line.dash == "dash"]
    labels = [i for i, a in enumerate(layout.annotations or ())
              if a.y == epsilon and str(a.text or "").startswith("ε =")]
    return shapes, labels


def timeline_preview(fig: go.Figure, rel: Release, *,
                     leakage: dict[str, np.ndarray] | None = None,
                     grid: GridLeakage | None = None) -> dict:
    """The preview of the Timeline figure ``fig`` (:func:`~lmdk_core.figures.timeline_figure`
    of ``rel``) as a JSON-ready dict: the slider (``epsilon``, ``low``, ``high``,
    ``steps``), one rule per trace that moves with ε (``scale``: y·ε'/ε; ``noise``: b +
    (y − b)·ε/ε' with the bases ``base``; ``grid``: one row of values per grid ε), the
    ε lines and labels to move, and the verdict's numbers (``private``, ``ratio`` =
    largest total / ε, ``peak`` = the largest landmark TPL per grid ε, ``rtol``).
    ``leakage`` is the leakage panel the figure shows (None: none), ``grid`` its values
    on the grid of totals (``curves`` computed when the panel is shown)."""
    eps = float(rel.epsilon)
    low, high = slider_range(eps)
    spec: dict = {"epsilon": eps, "low": low, "high": high, "steps": SLIDER_STEPS,
                  "live": rel.scheme in LINEAR_SCHEMES, "traces": []}
    totals = np.asarray(rel.verdict.totals, dtype=float)
    spec["verdict"] = {"private": bool(rel.verdict.private),
                       "ratio": float(totals.max() / eps) if totals.size else 0.0,
                       "rtol": LEAKAGE_RTOL,
                       "peak": b64(grid.max_landmark_tpl) if grid is not None else None}
    if not spec["live"]:
        return spec
    if grid is not None:
        spec["grid"] = b64(grid.grid)
    spec["shapes"], spec["annotations"] = _epsilon_marks(fig.layout, eps)
    base = noise_bases(rel)
    lm = np.asarray(rel.landmarks, dtype=np.int64)
    curves = {"TPL": grid.tpl, "landmark TPL": grid.landmark_tpl} if grid is not None \
        else {}
    for i, tr in enumerate(fig.data):
        axis = tr.yaxis or "y"
        rule: dict | None = None
        if axis == "y2":
            rule = {"rule": "scale"}
        elif axis == "y" and (tr.name == "released"
                              or str(tr.name).startswith("approximated")):
            rule = {"rule": "noise", "base": b64(base[_t(tr)])}
        elif axis == "y3" and leakage and curves.get(tr.name) is not None:
            now = np.asarray(leakage[tr.name], dtype=float)
            idx = display_indices(now.size, [now], lm)
            rule = {"rule": "grid", "grid": b64(curves[tr.name][:, idx])}
        if rule is not None:
            spec["traces"].append({"i": i, "y0": b64(_y(tr)), **rule})
    return spec
