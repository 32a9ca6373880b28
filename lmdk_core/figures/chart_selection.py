"""What a chart selection means in timestamps (no streamlit here).

A long series is drawn decimated (:mod:`lmdk_core.figures.decimation`), so the points a box
selection returns are only the drawn ones. :func:`timestamps_in_box` answers from the
full data instead: every timestamp whose time lies in the box's x range and one of
whose curves lies in its y range. :func:`apply_selection` turns a click or a box into
the new landmark set, with an explicit mode for boxes (add or remove: selecting the
same region twice must not silently undo the first selection).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["BOX_MODES", "apply_selection", "timestamps_in_box", "point_timestamp"]

#: what a box or lasso selection does with the timestamps it covers
BOX_MODES = {"add": "Add to the landmarks", "remove": "Remove from the landmarks"}


def point_timestamp(point: dict) -> int | None:
    """The timestamp index t of one selected chart point (its ``customdata``: a number,
    a list whose first entry is the number, or — a row of a binary-encoded 2-D array as
    the browser returns it — ``{"0": number}``), or None."""
    cd = point.get("customdata")
    if isinstance(cd, dict):
        cd = cd.get("0", next(iter(cd.values()), None))
    if isinstance(cd, (list, tuple)):
        cd = cd[0] if cd else None
    try:
        return int(float(cd)) if cd is not None else None
    except (TypeError, ValueError):
        return None


def _as_axis_numbers(values, time_kind: str) -> np.ndarray:
    """Times as numbers on the chart's x axis (ns for dates; plotly's date strings parsed)."""
    if time_kind == "datetime":
        import pandas as pd

        v = np.asarray(values)
        if v.dtype.kind != "M":  # plotly's strings: "2024-03-04 05:30", with seconds or not
            v = pd.to_datetime(pd.Series([str(s) for s in v]), format="mixed").to_numpy()
        return np.asarray(v, dtype="datetime64[ns]").astype(np.int64).astype(float)
    return np.asarray(values, dtype=float)


def timestamps_in_box(time: np.ndarray, time_kind: str, box: dict,
                      curves: Sequence[np.ndarray] = ()) -> np.ndarray:
    """Timestamps whose time lies within the box's x range and, when ``curves`` are
    given, where at least one curve lies within its y range (NaN never does). ``box``
    is a plotly selection box: ``{"x": [x0, x1], "y": [y0, y1]}`` in axis units (ISO
    strings on a date axis)."""
    xs = box.get("x") or []
    if len(xs) < 2:
        return np.zeros(0, dtype=np.int64)
    t = _as_axis_numbers(time, time_kind)
    bx = _as_axis_numbers(xs[:2], time_kind)
    inside = (t >= bx.min()) & (t <= bx.max())
    ys = box.get("y") or []
    if curves and len(ys) >= 2:
        inside &= _any_curve_within(curves, ys, inside.shape)
    return np.flatnonzero(inside)


def _any_curve_within(curves: Sequence[np.ndarray], ys: Sequence, shape: tuple) -> np.ndarray:
    """True at each timestamp where at least one curve lies within the box's y range
    (its first two values, in either order; NaN never does)."""
    y0, y1 = sorted(float(v) for v in ys[:2])
    hit = np.zeros(shape, dtype=bool)
    for c in curves:
        c = np.asarray(c, dtype=float)
        hit |= (c >= y0) & (c <= y1)
    return hit


def apply_selection(landmarks: Iterable[int], hit: Iterable[int], *, is_box: bool,
                    mode: str = "add") -> list[int]:
    """The landmark set after a selection: a click (``is_box`` False) toggles the
    clicked timestamps; a box or lasso adds (``mode='add'``) or removes
    (``mode='remove'``) every covered timestamp, so repeating it changes nothing."""
    lm = {int(t) for t in landmarks}
    hit_set = {int(t) for t in hit}
    if not is_box:
        return sorted(lm ^ hit_set)
    if mode not in BOX_MODES:
        raise ValueError(f"unknown box mode {mode!r}; choose one of {', '.join(BOX_MODES)}")
    return sorted(lm | hit_set) if mode == "add" else sorted(lm - hit_set)
