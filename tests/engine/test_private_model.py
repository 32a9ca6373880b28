"""The correlation model estimated with differential privacy and its share of ε; the
declared bound k of the public note (issue 35, item 5; docs/correlation.md,
docs/privacy-model.md).

* The post-processing gives stochastic matrices whatever the noisy counts (negative,
  zero rows).
* The budget is counted: the release spends ε − ε_M, the verifier checks the total
  ``ε_M + Σ_{i∈L∪{t}} ε_i ≤ ε`` (its ``shared`` budget), and a share that leaves
  nothing for the release is refused.
* The note depends on the raw data only through the noisy counts: two neighbours whose
  noisy counts coincide give the same note byte for byte.
* k is declared (default 5), never the number of landmarks marked.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.verifier import landmark_totals, verify
from lmdk_core.files.config import ViewConfig
from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage import private_model
from lmdk_core.leakage.private_model import PrivateCounts, private_matrices
from lmdk_core.report.compute import DEFAULT_MAX_LANDMARKS, compute_report
from lmdk_core.report.release_note import build_release_note, public_view

NOW = datetime(2026, 12, 6, 8, 0, tzinfo=UTC)
LANDMARKS = demo_series_landmarks()
PRIVATE = {"model": "private", "bins": 8, "low": 0.0, "high": 6.0, "epsilon": 0.25,
           "smoothing": 1.0}


def _config(values: np.ndarray, correlation: dict | None = PRIVATE, epsilon: float = 1.0,
            landmarks=LANDMARKS, **extra) -> ViewConfig:
    """A view of ``values`` embedded as a table, with the given correlation model."""
    if correlation is not None:
        extra["correlation"] = correlation
    return ViewConfig(dataset="embedded",
                      data={"time": list(range(values.size)), "value": values.tolist()},
                      landmarks=list(landmarks), epsilon=epsilon, scheme="uniform",
                      sensitivity=2.9, seed=11, extra=extra)


@settings(max_examples=200, deadline=None)
@given(noisy=arrays(np.int64, st.tuples(st.integers(2, 12)).map(lambda n: (n[0], n[0])),
                    elements=st.integers(-50, 50)),
       smoothing=st.sampled_from([1.0, 0.5, 0.1, 1e-3]))
def test_the_private_matrices_are_stochastic_for_any_noisy_counts(noisy, smoothing):
    """Every row of P_F and P_B is a probability vector with no zero (smoothing > 0),
    even for rows whose noisy counts are all negative."""
    forward, backward = private_matrices(noisy, smoothing)
    for P in (forward, backward):
        assert P.shape == noisy.shape
        assert np.all(P > 0)
        np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_a_smoothing_that_is_not_positive_is_refused(bad):
    with pytest.raises(InputError, match="smoothing"):
        private_matrices(np.ones((3, 3), dtype=int), bad)


def test_the_release_spends_the_rest_and_the_verifier_counts_the_share():
    """ε = 1 with ε_M = 0.25: the released values spend 0.75 (Uniform: 0.75/(k+1) per
    timestamp); the note's theorem is the verifier's check of ε_M + Σ_{L∪{t}} ε_i ≤ 1."""
    x = demo_series().values.astype(float)
    rd = compute_report(_config(x))
    assert rd.release.epsilon == pytest.approx(0.75)
    assert rd.release.verdict.private
    view = public_view(rd)
    theorem = view.theorem
    assert theorem.epsilon == 1.0 and theorem.shared == 0.25 and theorem.private
    k = DEFAULT_MAX_LANDMARKS
    np.testing.assert_allclose(view.epsilon_t, 0.75 / (k + 1))
    assert theorem.worst_total == pytest.approx(1.0)  # 0.25 + (k + 1)·0.75/(k + 1)
    np.testing.assert_allclose(
        theorem.totals, landmark_totals(view.epsilon_t, range(k)) + 0.25)
    # a release that spent all of ε on the values would break the bound with the share
    spent_all = allocate("uniform", len(x), list(range(k)), 1.0)
    assert not verify(spent_all, range(k), 1.0, shared=0.25).private
    assert verify(spent_all, range(k), 1.0).private


@settings(max_examples=200, deadline=None)
@given(T=st.integers(1, 40), seed=st.integers(0, 2**32 - 1),
       share=st.floats(0.0, 2.0, allow_nan=False))
def test_the_shared_budget_is_added_to_every_total(T, seed, share):
    """verify(shared=s): the totals are the theorem's plus s, private iff the largest is
    ≤ ε (within the verifier's rounding allowance)."""
    rng = np.random.default_rng(seed)
    eps_t = rng.uniform(0, 0.5, T)
    lm = sorted(rng.choice(T, size=rng.integers(0, min(T, 4) + 1), replace=False).tolist())
    plain, shared = verify(eps_t, lm, 1.0), verify(eps_t, lm, 1.0, shared=share)
    np.testing.assert_allclose(shared.totals, plain.totals + share, rtol=0, atol=1e-15)
    if abs(shared.worst_total - 1.0) > 1e-12:
        assert shared.private == (shared.worst_total < 1.0)


@pytest.mark.parametrize("bad", [-0.1, float("inf"), float("nan")])
def test_a_bad_shared_budget_is_refused(bad):
    with pytest.raises(InputError, match="shared budget"):
        verify([0.1, 0.1], [0], 1.0, shared=bad)


@pytest.mark.parametrize("share", [1.0, 1.5])
def test_a_share_that_leaves_nothing_for_the_release_is_refused(share):
    x = demo_series().values.astype(float)
    with pytest.raises(InputError, match="leaves nothing"):
        compute_report(_config(x, {**PRIVATE, "epsilon": share}))


def test_neighbours_with_the_same_noisy_counts_give_the_same_note(monkeypatch):
    """Everything the note says under the private model is a function of public settings
    and of the noisy counts: force both neighbours' noisy counts to one matrix (as the
    noise could make them) and the notes are identical byte for byte; give them noisy
    counts that differ and the notes differ (the test could fail)."""
    x = demo_series().values.astype(float)
    y = x.copy()
    y[57] += 2.8  # a regular reading, changed by less than Δf, into another bin
    assert np.floor(x[57] / 0.75) != np.floor(y[57] / 0.75)
    same_seed = [compute_report(_config(v)).leakage.model.noisy_counts for v in (x, y)]
    assert not np.array_equal(*same_seed)  # the data do reach the noisy counts
    rng = np.random.default_rng(3)
    fixed = rng.integers(0, 40, (8, 8))
    drawn: dict[bytes, np.ndarray] = {}

    def counts_of(states, n, epsilon, k, rng):
        delta = private_model.count_sensitivity(k, len(states))
        z = drawn[np.asarray(states).tobytes()] if drawn else fixed
        return PrivateCounts(z.copy(), float(epsilon), delta, float(np.exp(-epsilon / delta)))

    monkeypatch.setattr(private_model, "noisy_transition_counts", counts_of)
    notes = [build_release_note(_config(v), now=NOW) for v in (x, y)]
    assert notes[0] == notes[1]
    assert "ε_M = 0.25" in notes[0] and "landmark TPL" in notes[0]
    other = fixed.copy()
    other[0] = 0  # noisy counts that differ: the note says so
    states_y = private_model.declared_bins(y, 0.0, 6.0, 8).states
    drawn[states_y.tobytes()] = other
    assert build_release_note(_config(y), now=NOW) != notes[0]


def test_k_is_declared_never_the_landmarks_marked():
    """Without a declared k the note speaks of the default k = 5 whatever the number of
    landmarks marked (1, 3 or 5 give the same note); more landmark events than k are
    refused with how to declare k, and a declared k is stated."""
    x = demo_series().values.astype(float)
    notes = {build_release_note(_config(x, None, landmarks=lm), now=NOW)
             for lm in ([27], [27, 85, 139], list(LANDMARKS))}
    assert len(notes) == 1
    assert f"at most {DEFAULT_MAX_LANDMARKS}; the number of landmarks is not" in notes.pop()
    six = [*LANDMARKS, 100]
    with pytest.raises(InputError, match="max_landmarks"):
        build_release_note(_config(x, None, landmarks=six), now=NOW)
    note = build_release_note(_config(x, None, landmarks=six, max_landmarks=8), now=NOW)
    assert "at most 8; the number of landmarks is not" in note
    with pytest.raises(InputError, match="max_landmarks"):
        build_release_note(_config(x, None, max_landmarks=True), now=NOW)


def test_the_note_under_the_private_model_is_the_worst_over_the_smoothing_range():
    """The DP-estimated model is an estimate too: the note's bound on landmark TPL is
    the largest over adding each smoothing of the range (and the model's own) to the
    same noisy counts, and the note says so (issue 35, item 6)."""
    from lmdk_core.leakage.conservative import SMOOTHING_RANGE
    from lmdk_core.leakage.tpl import tpl

    x = demo_series().values.astype(float)
    rd = compute_report(_config(x, {**PRIVATE, "smoothing": 0.3}))
    view = public_view(rd)
    noisy = rd.leakage.model.noisy_counts
    assert noisy is not None
    const = np.full(x.size, float(np.max(view.epsilon_t)))
    bounds = {}
    for a in (*SMOOTHING_RANGE, 0.3):
        forward, backward = private_matrices(noisy, a)
        per_t = tpl(const, backward, forward)
        bounds[a] = float(np.sort(per_t)[-(DEFAULT_MAX_LANDMARKS + 1):].sum())
    assert view.landmark_bound == pytest.approx(max(bounds.values()), rel=1e-12)
    assert view.landmark_bound > bounds[0.3]  # the own smoothing alone would say less
    note = build_release_note(_config(x, {**PRIVATE, "smoothing": 0.3}), now=NOW)
    assert "worst over adding 1, 0.5, 0.3, 0.1 and 0.01 to every noisy count" in note
