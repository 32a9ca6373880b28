"""The exact discrete Laplace sampler (lmdk_core.mechanisms.discrete_laplace) and its grid.

Seeded streams: the law tests swap the OS entropy for a seeded word source
(``numpy.random.PCG64(seed).random_raw``, seeds stated at each test) so they are
deterministic; each rejects at p < 1e-4. The comparison with OpenDP's sampler draws
OpenDP's values from OS entropy (it cannot be seeded): that test rejects at p < 1e-7,
its false-failure probability.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms import discrete_laplace as dl
from lmdk_core.mechanisms import entropy
from lmdk_core.mechanisms.exact_noise import (
    _ROUNDING,
    exact_geometric,
    exact_laplace,
    grid_index,
    laplace_grid,
)


def _seeded_words(seed: int):
    """A word source giving the same stream whatever the sizes asked for."""
    bits = np.random.PCG64(seed)
    return lambda words: words.__setitem__(slice(None), bits.random_raw(words.size))


@pytest.fixture
def seeded(monkeypatch):
    """``seeded(seed, size)``: a fresh stream reading words of the seeded source."""
    def make(seed: int, size: int = entropy.WORDS) -> entropy.EntropyStream:
        monkeypatch.setattr(entropy, "PROVIDER", [_seeded_words(seed)])
        return entropy.EntropyStream(size)
    return make


def _draw(t, j, which, s, compiled: bool, monkeypatch) -> np.ndarray:
    monkeypatch.setattr(dl, "FORCE_COMPILED", compiled)
    return dl.discrete_laplace(np.asarray(t), np.asarray(j), np.asarray(which), s)


def _pmf(scale: Fraction, ys: np.ndarray) -> np.ndarray:
    """P(Y = y) = (1 − a)/(1 + a)·a^|y|, a = exp(−1/scale)."""
    a = np.exp(-1.0 / float(scale))
    return (1 - a) / (1 + a) * a ** np.abs(ys)


# -- the compiled kernel is the reference, bit for bit --------------------------------

@settings(max_examples=40, deadline=None)
@given(scales=st.lists(st.tuples(st.integers(1, 2**51), st.integers(0, 62)), min_size=1,
                       max_size=4),
       n=st.integers(1, 300), seed=st.integers(0, 2**32), size=st.sampled_from([1, 3, 64]))
def test_kernel_draws_what_the_reference_draws(scales, n, seed, size):
    """Same seeded words → same values, for any scales t/2^j, even with buffers of 1–64
    words (the kernel stops, the buffer is refilled keeping the unread words, the value
    is drawn again: the resumption must be invisible); the next draws agree too."""
    t = [s[0] for s in scales]
    j = [s[1] for s in scales]
    which = np.random.default_rng(seed).integers(0, len(scales), n)
    got = []
    for compiled in (False, True):
        with pytest.MonkeyPatch.context() as mp:
            s = entropy.EntropyStream(size)
            mp.setattr(entropy, "PROVIDER", [_seeded_words(seed)])
            first = _draw(t, j, which, s, compiled, mp)
            got.append((first, _draw(t, j, which[:5], s, not compiled, mp)))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])


# -- the law ---------------------------------------------------------------------------

@pytest.mark.parametrize("t, j, seed", [(1, 0, 1), (3, 1, 2), (1789569707, 29, 3),
                                        (1073741825, 31, 4), (5, 3, 5)])
def test_draws_follow_the_exact_pmf(t, j, seed, seeded, monkeypatch):
    """χ² of 40,000 draws (seed as given) against P(Y = y) ∝ exp(−|y|·2^j/t), cells
    |y| ≤ 12 with expected count ≥ 5 and both tails pooled; the same counts reject the
    law of a 10 % larger scale."""
    scale = Fraction(t, 2**j)
    z = _draw([t], [j], np.zeros(40_000, dtype=np.int64), seeded(seed), True, monkeypatch)
    ys = np.arange(-12, 13)
    probs = _pmf(scale, ys)
    keep = probs * z.size >= 5
    ys, probs = ys[keep], probs[keep]
    counts = np.array([(z == y).sum() for y in ys])
    cells = np.append(counts, z.size - counts.sum())
    expected = np.append(probs, 1 - probs.sum()) * z.size
    assert stats.chisquare(cells, expected).pvalue > 1e-4
    wrong = np.append(_pmf(scale * Fraction(11, 10), ys), 0)
    wrong[-1] = 1 - wrong.sum()
    assert stats.chisquare(cells, wrong * z.size).pvalue < 1e-4


def test_laplace_release_is_the_laplace_law_on_its_grid(seeded, monkeypatch):
    """Seed 11: 50,000 values at scale 2.5 and Δf = 1: KS against Lap(2.5) (the grid is
    2⁻³⁰ of the scale, far below what KS resolves), every released value on the grid,
    and the mean |Z| within 5 standard errors of the exact discrete mean."""
    seeded(11)
    monkeypatch.setattr(entropy, "_STREAM", entropy.EntropyStream())
    x = np.random.default_rng(0).uniform(-100, 100, 50_000)
    out = exact_laplace(x, 2.5, 1.0)
    g, t, j = laplace_grid(2.5, 1.0)
    assert np.all(out / g == np.round(out / g))
    z = out - grid_index(x, np.array([g])) * g
    assert stats.kstest(z, stats.laplace(scale=2.5).cdf).pvalue > 1e-4
    assert abs(np.abs(z).mean() / 2.5 - 1) < 5 / np.sqrt(z.size)
    assert stats.kstest(z, stats.laplace(scale=2.75).cdf).pvalue < 1e-4


def test_the_law_agrees_with_opendps_sampler():
    """Two-sample tests against OpenDP (OS entropy, unseeded: rejecting at p < 1e-7 is
    the false-failure probability): 20,000 Laplace values at scale 1.7 (KS) and 20,000
    geometric counts at scale 1/0.7 (χ² of the table of |z| ≤ 6 and beyond)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    n = 20_000
    lap = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                            dp.l1_distance(T=float), scale=1.7)
    ours = exact_laplace(np.zeros(n), 1.7, 1.0)
    theirs = np.asarray(lap([0.0] * n))
    assert stats.ks_2samp(ours, theirs).pvalue > 1e-7
    geo = dp.m.make_geometric(dp.vector_domain(dp.atom_domain(T="i64")),
                              dp.l1_distance(T="i64"), scale=1 / 0.7)
    ours = exact_geometric(np.zeros(n), 1 / 0.7)
    theirs = np.asarray(geo([0] * n))
    edges = np.concatenate([[-np.inf], np.arange(-6.5, 7), [np.inf]])
    table = np.vstack([np.histogram(ours, edges)[0], np.histogram(theirs, edges)[0]])
    assert stats.chi2_contingency(table).pvalue > 1e-7


# -- the grid and the accounting -------------------------------------------------------

_positive = st.floats(1e-6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(x=st.floats(-1e9, 1e9), d=st.floats(0, 1), sens=_positive, eps=st.floats(1e-9, 1e3))
def test_neighbours_move_at_most_the_rounded_sensitivity(x, d, sens, eps):
    """For |x − x′| ≤ Δf the grid indices differ by at most Δ_g = ⌈Δf/g⌉, and the
    discrete scale pays for it: Δ_g·2^j/t ≤ ε exactly (ε the double the verifier
    counts; the scale handed to the sampler is the rounded double Δf/ε)."""
    b = sens / eps
    g, t, j = laplace_grid(b, sens)
    units = -(-Fraction(sens) // Fraction(g))
    x2 = x + d * sens
    if abs(Fraction(x2) - Fraction(x)) > Fraction(sens):
        x2 = np.nextafter(x2, x)
    n1, n2 = grid_index(np.array([x, x2]), np.array([g]))
    assert abs(n2 - n1) <= units
    assert units * Fraction(2**j, t) <= Fraction(eps)
    # the price of the grid: the scale exceeds Δf/ε by a hair
    assert Fraction(t, 2**j) * Fraction(g) <= Fraction(b) * (1 + Fraction(1, 2**28) +
                                                              Fraction(g) / Fraction(sens))


@settings(max_examples=200, deadline=None)
@given(eps=st.floats(1e-9, 1e6), sens=st.integers(1, 10**5))
def test_geometric_scale_pays_for_its_budget(eps, sens):
    b = sens / eps
    t, j = dl.dyadic_upper_scale(Fraction(b) * _ROUNDING)
    assert sens * Fraction(2**j, t) <= Fraction(eps)
    assert Fraction(t, 2**j) <= Fraction(b) * (1 + Fraction(1, 2**29))


def test_grid_index_rounds_half_up_and_handles_subnormals():
    g = np.array([2.0])
    x = np.array([5e-324, -5e-324, 1.0, -1.0, 3.0, 2.0**60 + 2048])
    np.testing.assert_array_equal(grid_index(x, g), [0, 0, 1, 0, 2, 2.0**59 + 1024])


def test_out_of_range_scales_are_refused():
    with pytest.raises(InputError, match="beyond the exact sampler's range"):
        exact_laplace([0.0], 1e300, 1.0)
    with pytest.raises(InputError, match="beyond the exact sampler's range"):
        exact_geometric([0.0], 1e17)
    with pytest.raises(InputError, match="sensitivity"):
        exact_laplace([0.0], 1.0, 0.0)


# -- the entropy stream ------------------------------------------------------------------

def test_a_forked_child_never_reuses_its_parents_buffered_bits():
    """After a fork the child discards the parent's buffer (os.register_at_fork): it finds
    its buffer empty (position at the end, every word zeroed), so its first draw refills
    from the OS instead of reading the parent's next bits; the parent's buffer is
    untouched. Deterministic (no statistics)."""
    import os

    s = entropy.stream()
    dl.discrete_laplace(np.array([5]), np.array([0]), np.zeros(10, dtype=np.int64))
    pos = int(s.state[0])
    assert 0 < pos < s.words.size  # the parent has unread words buffered
    parent_next = s.words[pos:pos + 4].copy()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what it would read next, then leave at once
        os.close(r)
        child = entropy.stream()
        unread = int(child.state[0]) >= child.words.size and not child.words.any()
        os.write(w, b"1" if unread else b"0")
        os._exit(0)
    os.close(w)
    answer = os.read(r, 1)
    os.close(r)
    os.waitpid(pid, 0)
    assert answer == b"1"
    np.testing.assert_array_equal(s.words[pos:pos + 4], parent_next)  # parent untouched
