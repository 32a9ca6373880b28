"""Transition matrices estimated from data: a series cut into bins, a track on a grid.

Cao, Yoshikawa, Xiao, Xiong (ICDE'17; TKDE'18) assume the adversary knows the Markov
chain of a user's values; one who holds the data can estimate it (docs/correlation.md).
This module maps a numeric series to states (:func:`discretize_series`: equal-width or
equal-count bins), a trajectory to square grid cells (:func:`trajectory_cells`), and
counts the transitions between consecutive states with additive smoothing
(:func:`transition_matrix`, :func:`transition_matrices`:
``P_F[i, j] = (c_ij + k) / (Σ_j c_ij + n·k)``; the backward matrix counts the same
steps reversed).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.sorted_unique import distinct_sorted
from lmdk_core.foundation.validation import check_nonnegative
from lmdk_core.leakage.correlation import MAX_STATES, check_n_states

__all__ = [
    "Discretization",
    "GridStates",
    "TransitionMatrices",
    "discretize_series",
    "quantile_transitions_many",
    "quantiles_of_sorted",
    "trajectory_cells",
    "transition_matrix",
    "transition_matrices",
]


@dataclass(frozen=True)
class Discretization:
    """A numeric series mapped to states: ``states[t]`` is the bin of value t.

    ``edges`` has ``n_states + 1`` increasing values; bin k is ``[edges[k], edges[k+1])``
    (the last bin also holds its right edge).
    """

    states: np.ndarray
    edges: np.ndarray
    method: str

    @property
    def n_states(self) -> int:
        return int(self.edges.size - 1)

    @property
    def centres(self) -> np.ndarray:
        """Mid-point of every bin (a representative value per state)."""
        return 0.5 * (self.edges[:-1] + self.edges[1:])


def _finite_series(values: ArrayLike, name: str) -> np.ndarray:
    try:
        v = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers") from None
    if v.ndim != 1 or v.size == 0:
        raise InputError(f"{name} must be a non-empty 1-D list of numbers")
    bad = np.flatnonzero(~np.isfinite(v))
    if bad.size:
        raise InputError(f"{name}: value {int(bad[0])} is not finite; remove or fill it")
    return v


def quantiles_of_sorted(S: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """``np.quantile(S, probs, axis=1)`` (the default, linear method) of rows ``S``
    already sorted and free of NaN, bit for bit, without its partition and copies.

    numpy's linear method (Hyndman & Fan's 7th) reads, for ``n`` values, the virtual
    index ``v = (n − 1)·p``, its floor ``i`` (``-1``, the last value, where ``v ≥ n − 1``)
    and ``γ = v − i``, and interpolates ``a = S[i]``, ``b = S[i + 1]`` as ``a + (b − a)·γ``,
    or ``b − (b − a)·(1 − γ)`` where ``γ ≥ 0.5``; here the same operations on the same
    doubles, element by element (tests/engine/test_quantiles_of_sorted.py checks it
    against ``np.quantile``). Returns shape ``(len(probs), rows)``."""
    n = S.shape[1]
    v = (n - 1) * np.asarray(probs, dtype=float)
    prev = np.floor(v)
    nxt = prev + 1
    last = v >= n - 1
    prev[last] = -1
    nxt[last] = -1
    lo, hi = prev.astype(np.intp), nxt.astype(np.intp)
    gamma = (v - lo)[:, None]
    a, b = S[:, lo].T, S[:, hi].T
    diff = b - a
    out = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


def discretize_series(values: ArrayLike, n_bins: int, method: str = "width") -> Discretization:
    """Map a numeric series to ``n_bins`` states: equal-width or quantile bins.

    ``method="width"`` splits ``[min, max]`` into equal bins; ``"quantile"`` puts the
    bin edges at the quantiles so each bin holds about the same number of values
    (edges shared by tied values are merged, so fewer bins may result). A constant
    series gives a single state.

    Parameters
    ----------
    values : array_like
        The finite numbers of the series.
    n_bins : int
        The number of bins asked for.
    method : {"width", "quantile"}
        Equal-width or equal-count bins.

    Returns
    -------
    Discretization

    Examples
    --------
    >>> d = discretize_series([0.0, 1, 2, 10], 2)
    >>> d.states.tolist(), d.edges.tolist()
    ([0, 0, 0, 1], [0.0, 5.0, 10.0])
    >>> discretize_series([1.0, 2, 3, 1, 2, 3, 3, 1], 3, "quantile").states.tolist()
    [0, 1, 2, 0, 1, 2, 2, 0]
    """
    v = _finite_series(values, "the series")
    k = check_n_states(n_bins, "the number of bins")
    key = str(method).strip().lower()
    lo, hi = float(v.min()), float(v.max())
    if lo == hi:
        edges = np.array([lo - 0.5, hi + 0.5])
    elif key == "width":
        edges = np.linspace(lo, hi, k + 1)
    elif key == "quantile":
        # np.quantile reads order statistics only: the sorted values hold the same ones,
        # and quantiles_of_sorted interpolates them as np.quantile does, bit for bit,
        # without its partition (numpy's vectorised sort takes about half the time of
        # the partition at these 2(k + 1) positions) nor its copies. Not when -0.0 and
        # 0.0 mix: which of the two equal values lands at a position may differ, and the
        # edge's sign with it (np.quantile and np.unique on the values as given).
        neg_zero = bool(np.any(np.signbit(v) & (v == 0.0)))
        probs = np.linspace(0.0, 1.0, k + 1)
        edges = (np.unique(np.quantile(v, probs)) if neg_zero else
                 distinct_sorted(quantiles_of_sorted(np.sort(v)[None, :], probs)[:, 0]))
    else:
        raise InputError(f"unknown binning method {method!r}; choose width or quantile")
    states = np.searchsorted(edges, v, side="right") - 1
    states = np.clip(states, 0, edges.size - 2)
    return Discretization(states=states.astype(int), edges=edges, method=key)


@dataclass(frozen=True)
class GridStates:
    """A trajectory mapped onto square cells; only visited cells become states.

    ``states[t]`` is the state (cell) of point t; state k is cell ``cells[k]`` =
    (column, row) of the grid, with centre ``centre_lat[k], centre_lon[k]``. States
    are numbered in order of first visit.
    """

    states: np.ndarray
    cells: np.ndarray
    centre_lat: np.ndarray
    centre_lon: np.ndarray
    cell_size_m: float

    @property
    def n_states(self) -> int:
        return int(self.cells.shape[0])


def trajectory_cells(lat: ArrayLike, lon: ArrayLike, cell_size_m: float) -> GridStates:
    """Map (lat, lon) points onto square grid cells of ``cell_size_m`` metres.

    The grid lives in an azimuthal equidistant projection (WGS84) centred on the
    track's mean position, so cells are true squares in metres near the track.

    Parameters
    ----------
    lat, lon : array_like
        The points' coordinates in degrees (WGS84).
    cell_size_m : float
        The side of a cell in metres (> 0).

    Returns
    -------
    GridStates

    Examples
    --------
    >>> g = trajectory_cells([46.0, 46.0, 46.001], [14.0, 14.0001, 14.0], 100)
    >>> g.states.tolist(), g.n_states
    ([0, 1, 2], 3)
    """
    from pyproj import Transformer  # local: only this function needs it

    la = _finite_series(lat, "the latitudes")
    lo = _finite_series(lon, "the longitudes")
    if la.size != lo.size:
        raise InputError(
            f"got {la.size} latitudes but {lo.size} longitudes; give one pair per point"
        )
    if np.any(np.abs(la) > 90):
        raise InputError("latitudes must lie between -90 and 90 degrees")
    if np.any(np.abs(lo) > 180):
        raise InputError("longitudes must lie between -180 and 180 degrees")
    size = check_nonnegative(cell_size_m, "the cell size (metres)")
    if size <= 0:
        raise InputError("the cell size must be greater than 0 metres")
    lat0, lon0 = float(np.mean(la)), float(np.mean(lo))
    tr = Transformer.from_crs(
        "EPSG:4326",
        f"+proj=aeqd +lat_0={lat0} +lon_0={lon0} +ellps=WGS84 +units=m",
        always_xy=True,
    )
    x, y = tr.transform(lo, la)
    ij = np.stack([np.floor(np.asarray(x) / size), np.floor(np.asarray(y) / size)], axis=1)
    ij = ij.astype(np.int64)
    _, first, inverse = np.unique(ij, axis=0, return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    order = np.argsort(first, kind="stable")  # number states by first visit
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    states = rank[inverse]
    cells = ij[np.sort(first)]
    cx = (cells[:, 0] + 0.5) * size
    cy = (cells[:, 1] + 0.5) * size
    clon, clat = tr.transform(cx, cy, direction="INVERSE")
    return GridStates(
        states=states.astype(int),
        cells=cells,
        centre_lat=np.asarray(clat, dtype=float),
        centre_lon=np.asarray(clon, dtype=float),
        cell_size_m=size,
    )


def _whole_states(states: ArrayLike) -> np.ndarray:
    """A non-empty 1-D sequence of whole numbers >= 0 as ints (floats must be integral)."""
    s = np.asarray(states)
    if s.ndim != 1 or s.size == 0:
        raise InputError("the state sequence must be a non-empty 1-D list of whole numbers")
    whole = s.dtype.kind in "iu" or (
        s.dtype.kind == "f" and np.all(np.isfinite(s)) and not np.any(s != np.round(s)))
    if not whole:
        raise InputError("states must be whole numbers (0-based state indices)")
    s = s.astype(int)
    if np.any(s < 0):
        raise InputError("states must be >= 0 (0-based state indices)")
    return s


def _check_states(states: ArrayLike, n_states: int | None) -> tuple[np.ndarray, int]:
    """The state sequence as ints and the number of states n (given, or the largest
    state + 1); every state must lie in ``0..n-1`` and n within :data:`MAX_STATES`."""
    s = _whole_states(states)
    n = int(s.max()) + 1 if n_states is None else check_n_states(n_states)
    if int(s.max()) >= n:
        raise InputError(f"state {int(s.max())} is outside 0..{n - 1}; raise the number of states")
    if n > MAX_STATES:
        raise InputError(f"{n} states; at most {MAX_STATES} are supported")
    return s.astype(int), n


def _normalise_counts(C: np.ndarray, smoothing: float) -> np.ndarray:
    n = C.shape[0]
    C = C + smoothing
    tot = C.sum(axis=1, keepdims=True)
    empty = tot[:, 0] == 0
    P = np.divide(C, tot, out=np.full_like(C, 1.0 / n), where=tot > 0)
    P[empty] = 1.0 / n
    return P


class TransitionMatrices(NamedTuple):
    """The forward and backward transition matrices of a correlation model (Cao et al.,
    ICDE 2017): ``forward[i, j] = P(s_t = j | s_{t−1} = i)``, ``backward[j, i] =
    P(s_{t−1} = i | s_t = j)``."""

    forward: np.ndarray
    backward: np.ndarray


def transition_matrix(
    states: ArrayLike, n_states: int | None = None, smoothing: float = 1.0
) -> np.ndarray:
    """Forward matrix estimated from a state sequence with additive smoothing.

    ``P_F[i, j] = (c_ij + k) / (Σ_j c_ij + n·k)`` where ``c_ij`` counts the steps
    i → j in ``states`` and ``k = smoothing >= 0``. A state never left (no outgoing
    step) gets a uniform row — the ``k → 0`` limit of smoothing.

    Parameters
    ----------
    states : array_like of int
        The state at each timestamp (0-based).
    n_states : int, optional
        The number of states (default: the largest state + 1).
    smoothing : float
        The count k added to every transition (>= 0).

    Returns
    -------
    numpy.ndarray
        ``P_F``.

    Examples
    --------
    >>> transition_matrix([0, 1, 1, 0], 2, 0).tolist()  # 0→1; 1→1, 1→0
    [[0.0, 1.0], [0.5, 0.5]]
    """
    return transition_matrices(states, n_states, smoothing)[0]


def transition_matrices(
    states: ArrayLike, n_states: int | None = None, smoothing: float = 1.0
) -> TransitionMatrices:
    """``(P_F, P_B)`` estimated from one state sequence with additive smoothing.

    The backward matrix counts the same steps reversed: ``P_B[j, i] ∝ c_ij + k``.

    Parameters
    ----------
    states : array_like of int
        The state at each timestamp (0-based).
    n_states : int, optional
        The number of states (default: the largest state + 1).
    smoothing : float
        The count k added to every transition (>= 0).

    Returns
    -------
    TransitionMatrices
        ``(P_F, P_B)``: ``forward`` and ``backward``.

    Examples
    --------
    >>> F, B = transition_matrices([0, 1, 1, 2], 3, 0)
    >>> F.tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.5, 0.5], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]]
    >>> B.tolist()  # reversed: 1 came from 0 or 1, 2 from 1; 0 never reached (uniform)
    [[0.3333333333333333, 0.3333333333333333, 0.3333333333333333], [0.5, 0.5, 0.0], [0.0, 1.0, 0.0]]
    """
    s, n = _check_states(states, n_states)
    k = check_nonnegative(smoothing, "the smoothing")
    # c_ij = the number of steps i → j, counted on the flat index i·n + j (whole numbers,
    # the same floats as adding 1.0 per step)
    C = np.bincount(s[:-1] * n + s[1:], minlength=n * n).reshape(n, n).astype(float) \
        if s.size > 1 else np.zeros((n, n))
    return TransitionMatrices(_normalise_counts(C, k), _normalise_counts(C.T.copy(), k))


def _numba_loaded() -> bool:
    """Whether numba is imported (this project imports it only to run a compiled kernel:
    one more loads from numba's cache in ~0.01 s)."""
    return "numba" in sys.modules


def _compiled_codes(X: np.ndarray, rows: np.ndarray, S: np.ndarray, Qs: np.ndarray,
                    idx: list[int]) -> list[tuple[int, np.ndarray, int]]:
    """The ``(series, flat transitions, states)`` of the loop of
    :func:`quantile_transitions_many` for the rows ``rows`` of ``X`` (sorted: ``S``;
    their quantiles: the columns of ``Qs``), the same integers, the states and codes of
    all rows in one compiled call
    (:func:`~lmdk_core.leakage.transition_kernel.transition_codes_kernel`); constant rows
    left out, as there."""
    from lmdk_core.leakage.transition_kernel import transition_codes_kernel

    live = [j for j in range(rows.size) if S[j, 0] != S[j, -1]]
    if not live:
        return []
    edges = [distinct_sorted(Qs[:, j]) for j in live]
    n_edges = np.array([e.size for e in edges], dtype=np.intp)
    padded = np.full((len(live), int(n_edges.max())), np.inf)
    for i, e in enumerate(edges):
        padded[i, :e.size] = e
    values = X[rows[live]]
    codes = np.empty((len(live), values.shape[1] - 1), dtype=np.intp)
    kernel = transition_codes_kernel()
    if kernel is None:  # pragma: no cover - numba is a dependency
        raise RuntimeError("numba is imported but its njit is not available")
    kernel(values, padded, n_edges, codes)
    return [(idx[int(rows[j])], codes[i], int(n_edges[i]) - 1) for i, j in enumerate(live)]


def quantile_transitions_many(series: list[np.ndarray], n_bins: int,
                              smoothing: float = 1.0) -> list[TransitionMatrices | None]:
    """``transition_matrices(d.states, d.n_states, smoothing)`` of ``d =
    discretize_series(v, n_bins, "quantile")`` for every series ``v``, the same matrices
    bit for bit (Cao et al., ICDE'17: a correlation model estimated from the data), the
    series of one length binned together: one sort of their stacked values, their
    quantiles along the rows in one :func:`quantiles_of_sorted` (the same order
    statistics, interpolated element by element as for one series), their transitions counted in
    one ``np.bincount``; where numba is loaded already (a population batch) the states
    and transition codes of all series in one compiled pass
    (:mod:`~lmdk_core.leakage.transition_kernel`, the same integers). The population
    audit estimates one model per user.

    None where a series is left to the one-series functions: not a 1-D array of at
    least two numbers (integers are read as floats, as there), a value not finite (their
    error), a constant series, or -0.0 and 0.0 mixed (:func:`discretize_series` then
    does not sort first)."""
    k = check_n_states(n_bins, "the number of bins")
    smooth = check_nonnegative(smoothing, "the smoothing")
    out: list[TransitionMatrices | None] = [None] * len(series)
    by_length: dict[int, list[int]] = {}
    values: dict[int, np.ndarray] = {}  # as _finite_series reads them: float64
    for i, v in enumerate(series):
        ok = isinstance(v, np.ndarray) and v.dtype.kind in "iuf" and v.ndim == 1 \
            and v.size >= 2
        if ok:
            values[i] = np.asarray(v, dtype=float)
            by_length.setdefault(v.size, []).append(i)
    probs = np.linspace(0.0, 1.0, k + 1)
    counted: list[tuple[int, np.ndarray, int]] = []  # (series, flat transitions, states)
    for idx in by_length.values():
        X = np.stack([values[i] for i in idx])
        ok = np.isfinite(X).all(axis=1) & ~(np.signbit(X) & (X == 0.0)).any(axis=1)
        rows = np.flatnonzero(ok)
        if rows.size == 0:
            continue
        S = np.sort(X[rows], axis=1)
        Qs = quantiles_of_sorted(S, probs)  # (k + 1, rows)
        if _numba_loaded():  # loaded anyway (a batch): every row's codes at once
            counted += _compiled_codes(X, rows, S, Qs, idx)
            continue
        for j, r in enumerate(rows.tolist()):
            if S[j, 0] == S[j, -1]:
                continue  # constant: one state (discretize_series' own edges)
            edges = distinct_sorted(Qs[:, j])
            states = np.searchsorted(edges, X[r], side="right") - 1
            states = np.clip(states, 0, edges.size - 2).astype(int)
            n = edges.size - 1
            counted.append((idx[r], states[:-1] * n + states[1:], n))
    if not counted:
        return out
    # every series' n × n counts after the previous ones': one bincount
    sizes = np.array([n * n for *_, n in counted], dtype=np.intp)
    offset = np.r_[0, np.cumsum(sizes)[:-1]]
    flat = np.concatenate([f + o for (_, f, _), o in zip(counted, offset.tolist(),
                                                         strict=True)])
    counts = np.bincount(flat, minlength=int(sizes.sum())).astype(float)
    for (i, _, n), o in zip(counted, offset.tolist(), strict=True):
        C = counts[o:o + n * n].reshape(n, n)
        out[i] = TransitionMatrices(_normalise_counts(C, smooth),
                                    _normalise_counts(C.T.copy(), smooth))
    return out
