"""Temporal-correlation models: transition matrices, their validation and estimation.

Cao, Yoshikawa, Xiao, Xiong, "Quantifying Differential Privacy under Temporal
Correlations" (ICDE'17; TKDE'18) model the correlation of a user's values at
consecutive timestamps by a time-homogeneous Markov chain over ``n`` states:

* the *forward* matrix ``P_F[i, j] = Pr(l_t = j | l_{t-1} = i)``,
* the *backward* matrix ``P_B[j, i] = Pr(l_{t-1} = i | l_t = j)``.

Both are row-stochastic ``n × n`` matrices. This module

* validates a matrix (:func:`check_transition_matrix`) and reads one from a CSV file
  (:func:`load_matrix_csv`: ``n`` lines of ``n`` comma-separated numbers, no header);
* builds a matrix from a single *strength* parameter (:func:`smoothed_matrix`), as in
  Cao et al.'s experiments: Laplacian smoothing ``P = (B + s) / (1 + n·s)`` of a
  strongly correlated base matrix ``B`` with one 1 per row — the smaller ``s``, the
  stronger the correlation (``s = 0``: deterministic moves; ``s → ∞``: independent);
* estimates matrices from data: a numeric series discretised into bins
  (:func:`discretize_series`), a trajectory mapped onto square grid cells
  (:func:`trajectory_cells`), transitions counted with additive smoothing
  (:func:`transition_matrix`, :func:`transition_matrices`);
* derives the backward matrix from a forward matrix and a distribution of the
  previous state by Bayes' rule (:func:`backward_matrix`):
  ``P_B[j, i] = π_i P_F[i, j] / Σ_k π_k P_F[k, j]``, with the stationary
  distribution (:func:`stationary_distribution`) as the default ``π``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.data.tables import Source, read_bytes
from lmdk_core.engine.quoting import quote_user_text
from lmdk_core.engine.validation import InputError, as_generator

__all__ = [
    "ROW_SUM_TOLERANCE",
    "MAX_STATES",
    "Discretization",
    "GridStates",
    "check_transition_matrix",
    "parse_matrix_text",
    "load_matrix_csv",
    "smoothed_matrix",
    "discretize_series",
    "trajectory_cells",
    "transition_matrix",
    "transition_matrices",
    "stationary_distribution",
    "backward_matrix",
]

#: rows of a transition matrix must sum to 1 within this absolute tolerance.
ROW_SUM_TOLERANCE = 1e-9
#: largest number of states accepted from files and builders (memory is O(n²)).
MAX_STATES = 5000


def check_transition_matrix(matrix: ArrayLike, name: str = "the transition matrix") -> np.ndarray:
    """Validate a row-stochastic matrix and return it as a C-contiguous float array.

    Requirements: 2-D, square (``n × n``, ``1 <= n <= MAX_STATES``), finite,
    non-negative, every row summing to 1 within :data:`ROW_SUM_TOLERANCE`.
    States (rows, columns) are numbered from 0 in the messages.

    Parameters
    ----------
    matrix : array_like
        The matrix.
    name : str
        How error messages name it.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InputError
        Saying which entry or row is wrong and how to fix it.

    Examples
    --------
    >>> check_transition_matrix([[1, 0], [0.5, 0.5]]).tolist()
    [[1.0, 0.0], [0.5, 0.5]]
    >>> try:
    ...     check_transition_matrix([[1, 0], [0.5, 0.4]])
    ... except ValueError as exc:  # an InputError, whose message is meant for the user
    ...     print(str(exc)[:55])
    the transition matrix: row 1 sums to 0.9, not 1; each r
    """
    try:
        P = np.array(matrix, dtype=float)
    except (TypeError, ValueError):
        raise InputError(
            f"{name} must be a square table of numbers (n rows of n probabilities)"
        ) from None
    if P.ndim != 2:
        raise InputError(
            f"{name} must be 2-dimensional (n rows of n probabilities), got {P.ndim} dimension(s)"
        )
    rows, cols = P.shape
    if rows == 0 or cols == 0:
        raise InputError(f"{name} is empty; give n rows of n probabilities")
    if rows != cols:
        raise InputError(
            f"{name} has {rows} rows of {cols} numbers; a transition matrix must be square "
            "(n rows of n numbers, one per state)"
        )
    if rows > MAX_STATES:
        raise InputError(f"{name} has {rows} states; at most {MAX_STATES} are supported")
    bad = np.argwhere(~np.isfinite(P))
    if bad.size:
        r, c = bad[0]
        raise InputError(f"{name}: entry ({r}, {c}) is {P[r, c]!r}; every entry must be finite")
    bad = np.argwhere(P < 0)
    if bad.size:
        r, c = bad[0]
        raise InputError(
            f"{name}: entry ({r}, {c}) is {P[r, c]:g}; probabilities cannot be negative"
        )
    sums = P.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    if off.size:
        r = int(off[0])
        raise InputError(
            f"{name}: row {r} sums to {sums[r]:.12g}, not 1; each row must be a probability "
            f"distribution over the {rows} states (divide the row by its sum)"
        )
    return np.ascontiguousarray(P)


def parse_matrix_text(text: str, name: str = "the matrix file") -> np.ndarray:
    r"""Parse ``n`` lines of ``n`` comma-separated numbers (no header) and validate them.

    Parameters
    ----------
    text : str
        The file's text.
    name : str
        How error messages name the file.

    Returns
    -------
    numpy.ndarray
        The validated matrix.

    Examples
    --------
    >>> parse_matrix_text("0.9,0.1\n0.2,0.8\n").tolist()
    [[0.9, 0.1], [0.2, 0.8]]
    """
    lines = [(i + 1, ln.strip()) for i, ln in enumerate(text.splitlines())]
    lines = [(i, ln) for i, ln in lines if ln]
    if not lines:
        raise InputError(f"{name} is empty; it needs n lines of n comma-separated numbers")
    if len(lines) > MAX_STATES:
        raise InputError(
            f"{name} has {len(lines)} lines; at most {MAX_STATES} states are supported"
        )
    rows: list[list[float]] = []
    width = None
    for lineno, ln in lines:
        cells = [c.strip() for c in ln.split(",")]
        if cells and cells[-1] == "":  # tolerate one trailing comma
            cells = cells[:-1]
        values = []
        for col, cell in enumerate(cells, start=1):
            try:
                values.append(float(cell))
            except ValueError:
                hint = " (the file must not have a header line)" if lineno == lines[0][0] else ""
                raise InputError(
                    f"{name}, line {lineno}, column {col}: {quote_user_text(cell)} is not a "
                    f"number{hint}"
                ) from None
        if width is None:
            width = len(values)
        elif len(values) != width:
            raise InputError(
                f"{name}, line {lineno} has {len(values)} numbers but line {lines[0][0]} has "
                f"{width}; every line needs the same count (n numbers per line)"
            )
        rows.append(values)
    return check_transition_matrix(np.array(rows, dtype=float), name=name)


def load_matrix_csv(source: Source, name: str = "the matrix file") -> np.ndarray:
    r"""Read a transition matrix CSV: ``n`` lines of ``n`` comma-separated numbers, no header.

    ``source`` is a path, bytes, or a file-like object (e.g. a Streamlit upload).

    Parameters
    ----------
    source : str, path, bytes or file-like
        Where the CSV is.
    name : str
        How error messages name the file.

    Returns
    -------
    numpy.ndarray
        The validated matrix.

    Examples
    --------
    >>> load_matrix_csv(b"0.5,0.5\n0.25,0.75\n").tolist()
    [[0.5, 0.5], [0.25, 0.75]]
    """
    data = read_bytes(source, name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{name} is not a text (CSV) file") from None
    return parse_matrix_text(text, name=name)


def _check_n_states(n: object, name: str = "the number of states") -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"{name} must be a whole number >= 1, got {n!r}")
    if n > MAX_STATES:
        raise InputError(f"{name} is {n}; at most {MAX_STATES} states are supported")
    return int(n)


def _check_nonneg(value: object, name: str) -> float:
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {value!r}") from None
    if not np.isfinite(x) or x < 0:
        raise InputError(f"{name} must be a finite number >= 0, got {value!r}")
    return x


def smoothed_matrix(
    n_states: int,
    strength: float,
    base: str = "identity",
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Correlation from one parameter: ``P = (B + s) / (1 + n·s)`` (Cao et al., Sec. VI).

    ``B`` has exactly one 1 per row: ``"identity"`` (stay in the same state),
    ``"shift"`` (move from state i to i+1 mod n) or ``"random"`` (a random
    permutation drawn with ``seed``). ``s = strength >= 0``: ``s = 0`` is the
    strongest correlation (deterministic transitions, the loss function is
    ``L(α) = α``), large ``s`` approaches the uniform matrix (no correlation).

    Parameters
    ----------
    n_states : int
        The number of states n.
    strength : float
        The smoothing s >= 0 (small s: strong correlation).
    base : {"identity", "shift", "random"}
        The base matrix B.
    seed : int, optional
        Seed of the ``"random"`` base.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> smoothed_matrix(2, 0.1).round(4).tolist()  # (I + 0.1) / 1.2
    [[0.9167, 0.0833], [0.0833, 0.9167]]
    >>> smoothed_matrix(3, 0.5, "shift").round(4).tolist()
    [[0.2, 0.6, 0.2], [0.2, 0.2, 0.6], [0.6, 0.2, 0.2]]
    """
    n = _check_n_states(n_states)
    s = _check_nonneg(strength, "the smoothing strength s")
    key = str(base).strip().lower()
    if key == "identity":
        perm = np.arange(n)
    elif key == "shift":
        perm = (np.arange(n) + 1) % n
    elif key == "random":
        perm = as_generator(seed).permutation(n)
    else:
        raise InputError(f"unknown base matrix {base!r}; choose identity, shift or random")
    P = np.full((n, n), s)
    P[np.arange(n), perm] += 1.0
    P /= 1.0 + n * s
    return P


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
    k = _check_n_states(n_bins, "the number of bins")
    key = str(method).strip().lower()
    lo, hi = float(v.min()), float(v.max())
    if lo == hi:
        edges = np.array([lo - 0.5, hi + 0.5])
    elif key == "width":
        edges = np.linspace(lo, hi, k + 1)
    elif key == "quantile":
        edges = np.unique(np.quantile(v, np.linspace(0.0, 1.0, k + 1)))
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
    size = _check_nonneg(cell_size_m, "the cell size (metres)")
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


def _check_states(states: ArrayLike, n_states: int | None) -> tuple[np.ndarray, int]:
    s = np.asarray(states)
    if s.ndim != 1 or s.size == 0:
        raise InputError("the state sequence must be a non-empty 1-D list of whole numbers")
    if s.dtype.kind == "f":
        if not np.all(np.isfinite(s)) or np.any(s != np.round(s)):
            raise InputError("states must be whole numbers (0-based state indices)")
        s = s.astype(int)
    elif s.dtype.kind not in "iu":
        raise InputError("states must be whole numbers (0-based state indices)")
    if np.any(s < 0):
        raise InputError("states must be >= 0 (0-based state indices)")
    n = int(s.max()) + 1 if n_states is None else _check_n_states(n_states)
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
) -> tuple[np.ndarray, np.ndarray]:
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
    tuple of numpy.ndarray
        ``(P_F, P_B)``.

    Examples
    --------
    >>> F, B = transition_matrices([0, 1, 1, 2], 3, 0)
    >>> F.tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.5, 0.5], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]]
    >>> B.tolist()  # reversed: 1 came from 0 or 1, 2 from 1; 0 never reached (uniform)
    [[0.3333333333333333, 0.3333333333333333, 0.3333333333333333], [0.5, 0.5, 0.0], [0.0, 1.0, 0.0]]
    """
    s, n = _check_states(states, n_states)
    k = _check_nonneg(smoothing, "the smoothing")
    C = np.zeros((n, n))
    if s.size > 1:
        np.add.at(C, (s[:-1], s[1:]), 1.0)
    return _normalise_counts(C, k), _normalise_counts(C.T.copy(), k)


def stationary_distribution(matrix: ArrayLike) -> np.ndarray:
    """A stationary distribution ``π = π P`` of a row-stochastic matrix.

    Solved as the least-squares solution of ``(Pᵀ − I) π = 0, Σ π = 1``; for a
    reducible chain this is a positive mixture of the closed classes' distributions.

    Parameters
    ----------
    matrix : array_like
        A row-stochastic matrix.

    Returns
    -------
    numpy.ndarray
        π (non-negative, summing to 1).

    Examples
    --------
    >>> stationary_distribution([[0.9, 0.1], [0.2, 0.8]]).round(4).tolist()
    [0.6667, 0.3333]
    """
    P = check_transition_matrix(matrix)
    n = P.shape[0]
    A = np.vstack([P.T - np.eye(n), np.ones((1, n))])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    pi, *_ = np.linalg.lstsq(A, b, rcond=None)
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def backward_matrix(forward: ArrayLike, initial: ArrayLike | None = None) -> np.ndarray:
    """Backward matrix by Bayes' rule: ``P_B[j, i] = π_i P_F[i, j] / Σ_k π_k P_F[k, j]``.

    ``π`` (``initial``) is the distribution of the previous state; by default the
    stationary distribution of ``P_F`` (Cao et al. assume a stationary chain).

    Parameters
    ----------
    forward : array_like
        The forward matrix ``P_F``.
    initial : array_like, optional
        The distribution π of the previous state.

    Returns
    -------
    numpy.ndarray
        ``P_B``.

    Examples
    --------
    >>> backward_matrix([[0.5, 0.5], [0.0, 1.0]], [0.5, 0.5]).round(4).tolist()
    [[1.0, 0.0], [0.3333, 0.6667]]
    """
    PF = check_transition_matrix(forward, "the forward matrix")
    n = PF.shape[0]
    if initial is None:
        pi = stationary_distribution(PF)
    else:
        try:
            pi = np.asarray(initial, dtype=float)
        except (TypeError, ValueError):
            raise InputError("the initial distribution must be numbers") from None
        if pi.shape != (n,):
            raise InputError(
                f"the initial distribution needs {n} probabilities (one per state), got "
                f"{pi.size}"
            )
        if not np.all(np.isfinite(pi)) or np.any(pi < 0):
            raise InputError("the initial distribution must be finite and non-negative")
        if abs(pi.sum() - 1.0) > ROW_SUM_TOLERANCE:
            raise InputError(
                f"the initial distribution sums to {pi.sum():.12g}, not 1; normalise it"
            )
    joint = pi[:, None] * PF  # joint[i, j] = Pr(prev = i, cur = j)
    col = joint.sum(axis=0)
    zero = np.flatnonzero(col <= 0)
    if zero.size:
        j = int(zero[0])
        raise InputError(
            f"state {j} has probability 0 after one step under the given distribution, so "
            f"row {j} of the backward matrix is undefined; use a distribution that reaches "
            "every state, or smooth the forward matrix"
        )
    PB = joint.T / col[:, None]
    PB /= PB.sum(axis=1, keepdims=True)
    return PB
