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
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.release import Release
from lmdk_core.figures.common import subplot_axes
from lmdk_core.figures.decimation import display_indices
from lmdk_core.leakage.epsilon_grid import GridLeakage

__all__ = ["SLIDER_HIGH", "SLIDER_LOW", "SLIDER_STEPS", "compare_preview", "noise_bases",
           "slider_range", "timeline_preview"]

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
    """The indices of the ε reference lines (dashed, at y = ε) and of their labels
    (read off the layout's plain dict: plotly's shape objects cost ~5 ms a chart)."""
    plain = layout.to_plotly_json()
    shapes = [i for i, s in enumerate(plain.get("shapes") or ())
              if s.get("type") == "line" and s.get("y0") == epsilon
              and s.get("y1") == epsilon and (s.get("line") or {}).get("dash") == "dash"]
    labels = [i for i, a in enumerate(plain.get("annotations") or ())
              if a.get("y") == epsilon and str(a.get("text") or "").startswith("ε =")]
    return shapes, labels


def _verdict_numbers(rel: Release, grid: GridLeakage | None) -> dict:
    """The preview verdict's numbers of ``rel``: whether the theorem holds, the largest
    total over ε (the same at every ε), the leakage tolerance and the largest landmark
    TPL per grid ε (None without a grid)."""
    totals = np.asarray(rel.verdict.totals, dtype=float)
    return {"private": bool(rel.verdict.private),
            "ratio": float(totals.max() / float(rel.epsilon)) if totals.size else 0.0,
            "rtol": LEAKAGE_RTOL,
            "peak": b64(grid.max_landmark_tpl) if grid is not None else None}


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
    spec["verdict"] = _verdict_numbers(rel, grid)
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
        elif axis == "y3" and leakage and (curve := curves.get(tr.name)) is not None:
            now = np.asarray(leakage[tr.name], dtype=float)
            idx = display_indices(now.size, [now], lm)
            rule = {"rule": "grid", "grid": b64(curve[:, idx])}
        if rule is not None:
            spec["traces"].append({"i": i, "y0": b64(_y(tr)), **rule})
    return spec


def compare_preview(fig: go.Figure, releases: dict[str, Release], *,
                    leakage: dict[str, dict[str, np.ndarray]] | None = None,
                    grids: dict[str, GridLeakage] | None = None) -> dict:
    """The preview of Compare's side-by-side figure ``fig``
    (:func:`~lmdk_core.figures.compare.side_by_side_figure` of the series ``releases``,
    one column per scheme, all at the same ε) as a JSON-ready dict, with
    :func:`timeline_preview`'s rules per column: the released values' noise scaled
    (``noise``), the budget row scaled (``scale``), the leakage row off each scheme's
    grid (``grid``; ``grids`` maps a scheme to its :class:`GridLeakage`, every one on
    the same grid of ε). A column whose scheme is not static (Adaptive) does not move:
    its traces (``frozen``) are drawn faint at another ε, its verdict says it follows
    when the slider is let go. ``verdicts`` holds each
    column's numbers (:func:`timeline_preview`'s ``verdict``, with its ``label``);
    ``axes`` the rows' y-ranges at another ε (``fit``: from 0 to ``pad`` × the largest of
    ε and what the row shows; ``spread``: the 1st–99th percentile of the moving released
    values and the fixed ``lo`` … ``hi`` of the rest, padded by ``pad`` of the span, as
    the figure's own ranges are made)."""
    keys = list(releases)
    k = len(keys)
    eps = float(releases[keys[0]].epsilon)
    grids = grids or {}
    low, high = slider_range(eps)
    live = {s for s in keys if releases[s].scheme in LINEAR_SCHEMES}
    spec: dict = {"epsilon": eps, "low": low, "high": high, "steps": SLIDER_STEPS,
                  "live": bool(live), "traces": [], "axes": [], "frozen": [],
                  "verdicts": [{"label": scheme_info(s).label, "live": s in live,
                                **_verdict_numbers(releases[s], grids.get(s))}
                               for s in keys]}
    if not live:
        return spec
    some_grid = next((g for g in grids.values() if g is not None), None)
    if some_grid is not None:
        spec["grid"] = b64(some_grid.grid)
    spec["shapes"], spec["annotations"] = _epsilon_marks(fig.layout, eps)
    rows = 3 if leakage else 2
    where = {subplot_axes(r, c, k)["yaxis"]: (r, c) for r in range(1, rows + 1)
             for c in range(1, k + 1)}
    lms = np.unique(np.concatenate([np.asarray(r.landmarks, dtype=np.int64)
                                    for r in releases.values()]))
    static: dict[int, list[float]] = {r: [] for r in range(1, rows + 1)}
    for i, tr in enumerate(fig.data):
        row, col = where.get(tr.yaxis or "y", (0, 0))
        if not row:
            continue
        s = keys[col - 1]
        if s not in live:  # drawn faint while the slider moves, not in the rows' ranges
            spec["frozen"].append(i)
            continue
        rel, y = releases[s], _y(tr)
        rule = _compare_rule(tr.name, row, rel, y, lms, (leakage or {}).get(s),
                             grids.get(s))
        if rule is None:
            static[row].extend(_static_extent(tr.name, row, y))
            continue
        spec["traces"].append({"i": i, "y0": b64(y), "row": row, **rule})
    names = [[f"yaxis{subplot_axes(r, c, k)['yaxis'][1:]}" for c in range(1, k + 1)]
             for r in range(1, rows + 1)]
    fixed = np.asarray(static[1], dtype=float)
    fixed = fixed[np.isfinite(fixed)]
    spec["axes"].append({"row": 1, "axes": names[0], "rule": "spread", "pad": 0.05,
                         "lo": float(fixed.min()) if fixed.size else None,
                         "hi": float(fixed.max()) if fixed.size else None})
    for r in range(2, rows + 1):
        spec["axes"].append({"row": r, "axes": names[r - 1], "rule": "fit", "pad": 1.08,
                             "top": max([0.0, *static[r]])})
    return spec


def _static_extent(name: str, row: int, y: np.ndarray) -> list[float]:
    """What a trace that does not move adds to its row's y-range: released values their
    1st and 99th percentile (as the figure's data range), others their extremes (the
    largest only below the data row, whose ranges start at 0)."""
    v = y[np.isfinite(y)]
    if not v.size:
        return []
    if row > 1:
        return [float(v.max())]
    if name == "released":
        return [float(np.percentile(v, 1)), float(np.percentile(v, 99))]
    return [float(v.min()), float(v.max())]


def _compare_rule(name: str, row: int, rel: Release, y: np.ndarray, lms: np.ndarray,
                  leak: dict[str, np.ndarray] | None, grid: GridLeakage | None
                  ) -> dict | None:
    """How a trace of Compare's row ``row`` moves with ε (None: it does not). The
    timestamps a trace shows are those the figure chose (:func:`display_indices` of its
    values, every landmark kept); a trace whose values are not the ones expected gets
    no rule (it keeps still rather than move wrongly)."""
    T = int(np.asarray(rel.original).shape[0])
    if row == 2:
        return {"rule": "scale"}
    if row == 1 and name == "released":
        idx = display_indices(T, [np.asarray(rel.released, dtype=float)], lms)
        if not _same(y, np.asarray(rel.released, dtype=float)[idx]):
            return None
        return {"rule": "noise", "base": b64(noise_bases(rel)[idx])}
    if row == 3 and leak is not None and grid is not None and grid.tpl is not None:
        curve = {"TPL": grid.tpl, "landmark TPL": grid.landmark_tpl}.get(name)
        if curve is None or name not in leak:
            return None
        now = np.asarray(leak[name], dtype=float)
        idx = display_indices(T, [now], lms)
        if not _same(y, now[idx]):
            return None
        return {"rule": "grid", "grid": b64(curve[:, idx])}
    return None


def _same(shown: np.ndarray, values: np.ndarray) -> bool:
    """Whether a trace shows ``values`` (float32 precision, NaN where NaN)."""
    return shown.shape == values.shape and bool(np.allclose(
        shown, values, rtol=1e-6, atol=1e-9 * (1 + np.nanmax(np.abs(values), initial=0)),
        equal_nan=True))
