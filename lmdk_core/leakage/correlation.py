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
* (estimating matrices from data is in :mod:`~lmdk_core.leakage.estimation`);
* derives the backward matrix from a forward matrix and a distribution of the
  previous state by Bayes' rule (:func:`backward_matrix`):
  ``P_B[j, i] = π_i P_F[i, j] / Σ_k π_k P_F[k, j]``, with the stationary
  distribution (:func:`stationary_distribution`) as the default ``π``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.data.tables import Source, read_bytes
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.validation import as_generator, check_nonnegative

__all__ = [
    "ROW_SUM_TOLERANCE",
    "MAX_STATES",
    "check_n_states",
    "check_transition_matrix",
    "check_transition_matrices",
    "parse_matrix_text",
    "load_matrix_csv",
    "smoothed_matrix",
    "stationary_distribution",
    "backward_matrix",
]

#: rows of a transition matrix must sum to 1 within this absolute tolerance.
ROW_SUM_TOLERANCE = 1e-9
#: largest number of states accepted from files and builders (memory is O(n²)).
MAX_STATES = 5000


def check_transition_matrix(matrix: ArrayLike | None,
                            name: str = "the transition matrix") -> np.ndarray:
    """Validate a row-stochastic matrix and return it as a C-contiguous float array.

    Requirements: 2-D, square (``n × n``, ``1 <= n <= MAX_STATES``), finite,
    non-negative, every row summing to 1 within :data:`ROW_SUM_TOLERANCE`.
    States (rows, columns) are numbered from 0 in the messages.

    Parameters
    ----------
    matrix : array_like
        The matrix (None, a missing entry, is refused as not 2-D).
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
    P = _square_matrix(matrix, name)
    _check_entries(P, name)
    sums = P.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    if off.size:
        r = int(off[0])
        raise InputError(
            f"{name}: row {r} sums to {sums[r]:.12g}, not 1; each row must be a probability "
            f"distribution over the {P.shape[0]} states (divide the row by its sum)"
        )
    return np.ascontiguousarray(P)


def check_transition_matrices(matrices: list[ArrayLike],
                              name: str = "the transition matrix") -> list[np.ndarray]:
    """``[check_transition_matrix(m, name) for m in matrices]``, the same arrays and the
    same first error: float arrays of one shape are stacked and checked in one go (the
    population audit's two estimated matrices per user: 456 small checks per block cost
    ~19 ms, one stacked check well under 1 ms); anything else, or any matrix the stacked
    check finds wrong, goes through :func:`check_transition_matrix` one by one, so the
    message names the same entry or row."""
    shapes = {m.shape if isinstance(m, np.ndarray) and m.dtype == np.float64 else None
              for m in matrices}
    if len(matrices) >= 2 and len(shapes) == 1:
        (shape,) = shapes
        if shape is not None and len(shape) == 2 and shape[0] == shape[1] \
                and 1 <= shape[0] <= MAX_STATES:
            S = np.stack(matrices)  # a copy, C-contiguous: each S[i] as np.array(m) gives
            # check_transition_matrix's rules: entries finite, non-negative, rows sum to 1
            if np.isfinite(S).all() and not (S < 0).any() \
                    and not (np.abs(S.sum(axis=2) - 1.0) > ROW_SUM_TOLERANCE).any():
                return list(S)
    return [check_transition_matrix(m, name) for m in matrices]


def _square_matrix(matrix: ArrayLike | None, name: str) -> np.ndarray:
    """``matrix`` as a float array of shape ``n × n`` with ``1 <= n <= MAX_STATES``."""
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
    return P


def _check_entries(P: np.ndarray, name: str) -> None:
    """Every entry finite and non-negative (the first bad one named)."""
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
    lines = _numbered_lines(text, name)
    first = lines[0][0]
    rows: list[list[float]] = []
    for lineno, ln in lines:  # line by line: the first fault met is the one reported
        values = _matrix_row(ln, lineno, lineno == first, name)
        if rows and len(values) != len(rows[0]):
            raise InputError(
                f"{name}, line {lineno} has {len(values)} numbers but line {first} has "
                f"{len(rows[0])}; every line needs the same count (n numbers per line)"
            )
        rows.append(values)
    return check_transition_matrix(np.array(rows, dtype=float), name=name)


def _numbered_lines(text: str, name: str) -> list[tuple[int, str]]:
    """The non-blank lines with their 1-based line numbers; InputError for none or more
    than :data:`MAX_STATES`."""
    lines = [(i + 1, ln.strip()) for i, ln in enumerate(text.splitlines())]
    lines = [(i, ln) for i, ln in lines if ln]
    if not lines:
        raise InputError(f"{name} is empty; it needs n lines of n comma-separated numbers")
    if len(lines) > MAX_STATES:
        raise InputError(
            f"{name} has {len(lines)} lines; at most {MAX_STATES} states are supported"
        )
    return lines


def _matrix_row(line: str, lineno: int, is_first: bool, name: str) -> list[float]:
    """The numbers of one line (one trailing comma tolerated); InputError naming the
    first cell that is not a number (on the first line: perhaps a header)."""
    cells = [c.strip() for c in line.split(",")]
    if cells and cells[-1] == "":  # tolerate one trailing comma
        cells = cells[:-1]
    values = []
    for col, cell in enumerate(cells, start=1):
        try:
            values.append(float(cell))
        except ValueError:
            hint = " (the file must not have a header line)" if is_first else ""
            raise InputError(
                f"{name}, line {lineno}, column {col}: {quote_user_text(cell)} is not a "
                f"number{hint}"
            ) from None
    return values


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


def check_n_states(n: object, name: str = "the number of states") -> int:
    """A number of Markov states n (a transition matrix is n × n): a whole number in
    ``1..MAX_STATES``, returned as an int, else :class:`InputError` naming ``name``.

    >>> check_n_states(3)
    3
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"{name} must be a whole number >= 1, got {n!r}")
    if n > MAX_STATES:
        raise InputError(f"{name} is {n}; at most {MAX_STATES} states are supported")
    return int(n)


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
    n = check_n_states(n_states)
    s = check_nonnegative(strength, "the smoothing strength s")
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


def _check_distribution(initial: ArrayLike, n: int) -> np.ndarray:
    """``initial`` as a probability distribution over the ``n`` states."""
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
    return pi


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
    pi = (stationary_distribution(PF) if initial is None
          else _check_distribution(initial, PF.shape[0]))
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
