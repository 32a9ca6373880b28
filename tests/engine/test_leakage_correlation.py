"""Correlation models: validation, CSV loading, strength models, estimation, Bayes."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import distance_m
from lmdk_core.leakage import (
    LossFunction,
    backward_matrix,
    check_transition_matrix,
    discretize_series,
    load_matrix_csv,
    smoothed_matrix,
    stationary_distribution,
    trajectory_cells,
    transition_matrices,
    transition_matrix,
)


@pytest.mark.parametrize(
    "matrix, fragment",
    [
        ([[1.0, 0.0], [0.5, 0.4]], "row 1 sums to 0.9, not 1"),
        ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], "must be square"),
        ([[1.2, -0.2], [0.5, 0.5]], "cannot be negative"),
        ([[np.nan, 1.0], [0.5, 0.5]], "must be finite"),
        ([0.5, 0.5], "2-dimensional"),
        ([[]], "empty"),
        ([["a", "b"], ["c", "d"]], "square table of numbers"),
    ],
)
def test_matrix_validation_messages(matrix, fragment):
    with pytest.raises(InputError, match=fragment):
        check_transition_matrix(matrix)


def test_row_sum_tolerance_is_1e_9():
    check_transition_matrix([[0.5, 0.5 + 5e-10], [0.0, 1.0]])
    with pytest.raises(InputError, match="row 0"):
        check_transition_matrix([[0.5, 0.5 + 5e-9], [0.0, 1.0]])


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "empty"),
        ("\n  \n", "empty"),
        ("a,b\n0.5,0.5\n0.5,0.5\n", "line 1, column 1: `a` is not a number"),
        ("0.5,0.5\n0.5,x\n", "line 2, column 2"),
        ("0.5,0.5\n1\n", "line 2 has 1 numbers but line 1 has 2"),
        ("0.5,0.5\n0.5,0.5\n0.5,0.5\n", "3 rows of 2 numbers"),
        ("0.5,0.4\n0.5,0.5\n", "row 0 sums to 0.9"),
    ],
)
def test_matrix_csv_errors(text, fragment):
    with pytest.raises(InputError, match=fragment):
        load_matrix_csv(text.encode())


def test_matrix_csv_reads_paths_uploads_and_bom(tmp_path):
    f = tmp_path / "P.csv"
    f.write_text("0.9,0.1\n0.2,0.8\n")
    np.testing.assert_array_equal(load_matrix_csv(f), [[0.9, 0.1], [0.2, 0.8]])
    np.testing.assert_array_equal(load_matrix_csv(io.BytesIO(b"\xef\xbb\xbf1,0\r\n0,1,\n")),
                                  np.eye(2))
    with pytest.raises(InputError, match="no such file"):
        load_matrix_csv(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="not a text"):
        load_matrix_csv(b"\xff\xfe\x00\x81")


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12), st.floats(0.0, 50.0), st.sampled_from(["identity", "shift",
                                                                   "random"]))
def test_smoothed_matrix_is_stochastic_and_weaker_with_larger_s(n, s, base):
    P = smoothed_matrix(n, s, base, seed=0)
    check_transition_matrix(P)
    assert np.allclose(P.max(axis=1), (1 + s) / (1 + n * s))
    if n > 1:
        a = 1.0
        stronger = LossFunction(smoothed_matrix(n, s / 2, base, seed=0))(a)
        assert LossFunction(P)(a) <= stronger + 1e-12


def test_smoothed_matrix_errors():
    with pytest.raises(InputError, match="s"):
        smoothed_matrix(3, -1.0)
    with pytest.raises(InputError, match="identity, shift or random"):
        smoothed_matrix(3, 0.1, "diagonal")
    with pytest.raises(InputError, match="whole number"):
        smoothed_matrix(0, 0.1)


def test_discretize_width_and_quantile():
    v = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 10.0])
    d = discretize_series(v, 5, "width")
    np.testing.assert_array_equal(d.edges, [0, 2, 4, 6, 8, 10])
    np.testing.assert_array_equal(d.states, [0, 0, 1, 1, 2, 4])
    assert d.n_states == 5 and d.centres[0] == 1.0
    q = discretize_series(v, 3, "quantile")
    assert q.n_states == 3 and np.bincount(q.states).tolist() == [2, 2, 2]
    const = discretize_series([2.0, 2.0, 2.0], 4)
    assert const.n_states == 1 and np.all(const.states == 0)
    with pytest.raises(InputError, match="width or quantile"):
        discretize_series(v, 3, "kmeans")
    with pytest.raises(InputError, match="not finite"):
        discretize_series([1.0, np.nan], 3)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.integers(1, 30),
       st.sampled_from(["normal", "rounded", "few", "signed zeros"]))
def test_quantile_bins_equal_numpy_quantile_bit_for_bit(seed, n, k, kind):
    """The quantile edges, found on the sorted values, are numpy's quantiles of the raw
    values bit for bit (ties, whole numbers, -0.0 next to 0.0 included), and every value
    falls in the bin ``searchsorted`` gives."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n) * 10.0 ** float(rng.integers(-3, 4))
    if kind == "rounded":
        v = np.round(v)  # -0.0 among them
    elif kind == "few":
        v = rng.choice([-1.5, 0.0, 2.0, 7.25], n)
    elif kind == "signed zeros":
        v = np.where(rng.random(n) < 0.5, rng.choice([0.0, -0.0], n), v)
    d = discretize_series(v, k, "quantile")
    edges = np.unique(np.quantile(v, np.linspace(0.0, 1.0, k + 1)))
    if edges.size == 1:  # a constant series: one state around its value
        assert d.n_states == 1 and np.all(d.states == 0)
        return
    assert d.edges.tobytes() == edges.tobytes()
    want = np.clip(np.searchsorted(edges, v, side="right") - 1, 0, edges.size - 2)
    assert d.states.tolist() == want.tolist()


def test_transition_counts_with_smoothing():
    s = [0, 1, 1, 2, 0, 1]
    PF, PB = transition_matrices(s, 3, smoothing=0.0)
    np.testing.assert_allclose(PF, [[0, 1, 0], [0, 0.5, 0.5], [1, 0, 0]])
    # backward: Pr(prev = i | cur = j) from the same steps
    np.testing.assert_allclose(PB, [[0, 0, 1], [2 / 3, 1 / 3, 0], [0, 1, 0]])
    P1 = transition_matrix(s, 4, smoothing=1.0)
    np.testing.assert_allclose(P1[0], [1 / 6, 3 / 6, 1 / 6, 1 / 6])
    np.testing.assert_allclose(P1[3], [0.25] * 4)  # never visited: uniform
    np.testing.assert_allclose(transition_matrix([2], 3, smoothing=0.0), np.full((3, 3), 1 / 3))
    with pytest.raises(InputError, match="outside 0..2"):
        transition_matrix([0, 3], 3)
    with pytest.raises(InputError, match="whole numbers"):
        transition_matrix([0.5, 1])


def test_trajectory_cells_square_grid():
    # three points ~10 m apart, one 500 m north: two cells of 100 m
    lat = np.array([48.0, 48.00009, 48.0, 48.0045])
    lon = np.array([11.0, 11.0, 11.00013, 11.0])
    g = trajectory_cells(lat, lon, 100.0)
    assert g.n_states in (2, 3)
    assert g.states[0] == 0 and g.states[-1] == g.n_states - 1
    # every point is within a half-diagonal of its cell centre
    d = distance_m(lat, lon, g.centre_lat[g.states], g.centre_lon[g.states])
    assert np.all(d <= 100 * np.sqrt(2) / 2 + 1.0)
    P = transition_matrix(g.states, g.n_states)
    check_transition_matrix(P)
    with pytest.raises(InputError, match="greater than 0"):
        trajectory_cells(lat, lon, 0.0)
    with pytest.raises(InputError, match="one pair per point"):
        trajectory_cells(lat, lon[:2], 10.0)
    with pytest.raises(InputError, match="-90 and 90"):
        trajectory_cells([91.0], [0.0], 10.0)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 6), st.integers(0, 10_000))
def test_backward_by_bayes(n, seed):
    rng = np.random.default_rng(seed)
    PF = rng.random((n, n)) + 0.01
    PF /= PF.sum(axis=1, keepdims=True)
    pi = stationary_distribution(PF)
    np.testing.assert_allclose(pi @ PF, pi, atol=1e-12)
    PB = backward_matrix(PF)
    check_transition_matrix(PB)
    # Pr(prev = i, cur = j) both ways
    np.testing.assert_allclose(pi[:, None] * PF, (PB * (pi @ PF)[:, None]).T, atol=1e-12)
    init = rng.dirichlet(np.ones(n))
    PB2 = backward_matrix(PF, init)
    j = 0
    want = init * PF[:, j] / np.sum(init * PF[:, j])
    np.testing.assert_allclose(PB2[j], want, atol=1e-12)


def test_backward_errors():
    with pytest.raises(InputError, match="state 1 has probability 0"):
        backward_matrix([[1.0, 0.0], [1.0, 0.0]], [0.5, 0.5])
    with pytest.raises(InputError, match="needs 2 probabilities"):
        backward_matrix(np.eye(2), [1.0])
    with pytest.raises(InputError, match="sums to"):
        backward_matrix(np.eye(2), [0.5, 0.6])
