"""Adaptive's accuracy, by simulating whole releases.

**Adaptive** depends on the noise it draws — which readings are published depends on
the noise too — so its accuracy is estimated by simulating R whole releases per ε
(independent streams of one ``numpy.random.SeedSequence``) and measuring every
released reading's actual error: ``each`` is the minimum over t of the fraction of
releases in which reading t is within ±a (lower Clopper–Pearson bound per t at the
stated confidence; the minimum of those bounds is a valid lower bound of the minimum),
``typical`` the mean over releases of each release's fraction of readings within ±a
(one-sided normal bound over the R independent releases), ``all`` the fraction of
releases with every reading within ±a (Clopper–Pearson); for a mean error, the mean
over releases with a one-sided normal bound (per t for ``each``).

The exact floor below which Adaptive cannot meet an 'each'/'all' target
(:func:`adaptive_epsilon_floor`) and the fewest runs that can certify a probability
(:func:`min_adaptive_runs`) are here too (used by :mod:`lmdk_core.decision.epsilon_search`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.decision.accuracy import AccuracyTarget, meets_target
from lmdk_core.decision.accuracy_model import AccuracyModel, accuracy_model
from lmdk_core.decision.clopper_pearson import lower_bound_at_least
from lmdk_core.decision.noise_laws import laplace_epsilon_for, planar_epsilon_for
from lmdk_core.engine.allocation import allocate
from lmdk_core.foundation.validation import check_landmarks

__all__ = ["AdaptiveAccuracy", "AdaptiveErrors", "adaptive_accuracy", "adaptive_epsilon_floor",
           "adaptive_errors", "adaptive_expected_errors", "estimate_from_errors",
           "estimate_meets_target", "min_adaptive_runs", "utility_runs"]

#: simulated timestamps (runs × T) for the expected error of Adaptive's utility line:
#: 256 whole releases of a short series, down to 32 for 1,563 timestamps and more
UTILITY_STEPS = 50_000
#: their seed: a public constant (the line does not depend on the release's own noise)
UTILITY_SEED = 35


class AdaptiveErrors(NamedTuple):
    """The errors of simulated Adaptive releases (:func:`adaptive_errors`)."""

    #: the absolute error of every reading in every release, (runs, T); NaN where withheld
    errors: np.ndarray
    #: whether the verifier found every release landmark-private (with
    #: ``adaptive_errors(checked=False)``: every release it verified)
    private: bool


class AdaptiveAccuracy(NamedTuple):
    """Monte Carlo accuracy of Adaptive at one ε (:func:`adaptive_accuracy`)."""

    #: the estimate of the target's quantity (a probability or a mean error)
    estimate: float
    #: its one-sided bound at the confidence, in the target's favourable direction
    bound: float
    #: whether the verifier found every simulated release landmark-private
    private: bool


def adaptive_errors(values: ArrayLike, landmarks: Iterable[int] | None, epsilon: float, *,
                    mechanism: str = "laplace", sensitivity: float | None = 1.0,
                    radius: float | None = None, runs: int = 100,
                    seed: int | None = None,
                    stays: Iterable[tuple[int, int]] | None = None,
                    checked: bool = True) -> AdaptiveErrors:
    """The absolute error of every reading in ``runs`` whole Adaptive releases at
    ``epsilon`` — an array (runs, T), NaN where a reading is withheld — and whether the
    verifier found every release landmark-private. Release r uses the r-th child of
    ``SeedSequence(seed)``: the same seed gives the same releases at every ε (common
    random numbers). ``checked=False``, for a caller that reads only the errors (the
    utility line's expected error: nothing of these simulated releases is shown or
    released): the simulated series releases after the first (which goes through the
    checked release path) skip the verifier (``private`` covers the releases verified),
    the errors are the same floats (about 40 % of the line's time on the demo week)."""
    from lmdk_core.engine.release import release_series, release_trajectory
    from lmdk_core.foundation.setting_limits import check_setting

    model = accuracy_model(values, mechanism, sensitivity, radius, stays)
    n = int(check_setting("runs", runs, label="the number of Monte Carlo runs"))
    lm = list(check_landmarks(landmarks, model.T))
    out = np.empty((n, model.T))
    all_private = True
    seq = np.random.SeedSequence(seed)
    gens = (np.random.default_rng(seq.spawn(1)[0]) for _ in range(n))  # children 0..n−1
    for r, gen in enumerate(gens):
        if model.mechanism == "planar_laplace":
            rel = release_trajectory(model.values[:, 0], model.values[:, 1], lm, epsilon=epsilon,
                                     radius=model.scale_unit, scheme="adaptive", seed=gen,
                                     stays=list(model.stays) or None)
        else:
            rel = release_series(model.values, lm, epsilon=epsilon, scheme="adaptive",
                                 mechanism=model.mechanism, sensitivity=model.scale_unit, seed=gen,
                                 runs=list(model.stays) or None)
        all_private &= bool(rel.verdict.private)
        out[r] = rel.errors
        if not model.stays:  # the first release checked the inputs: the others need not
            break
    if model.stays:
        return AdaptiveErrors(out, all_private)
    batch = _batched_releases(model, lm, epsilon, n, seed, seq, checked)
    if batch is not None:  # the same floats as the loop below (checked in its tests)
        errors, private = batch
        out[1:] = errors
        return AdaptiveErrors(out, all_private & private)
    for r, (errors, private) in enumerate(_unchecked_releases(model, lm, epsilon, gens),
                                          start=1):
        all_private &= private
        out[r] = errors
    return AdaptiveErrors(out, all_private)


#: the most doubles (runs × (2T − 1)) the releases of a series are simulated together for
#: (:mod:`lmdk_core.adaptive.simulations`): 16 MiB of draws and their logarithms
BATCH_DOUBLES = 1 << 20


def _batched_releases(model: AccuracyModel, lm: list[int], epsilon: float, n: int,
                      seed: int | None, seq: np.random.SeedSequence, checked: bool = True
                      ) -> tuple[np.ndarray, bool] | None:
    """(errors of releases 1..n−1, whether the verifier found each private) of a series
    with numpy's Laplace noise, simulated together
    (:func:`lmdk_core.adaptive.simulations.laplace_releases`) — the floats of
    :func:`_unchecked_releases`; None where that does not apply (other noise, a track,
    too many draws). ``seq`` has spawned child 0 (the checked release) and spawns the
    others unless a whole-number seed's are kept. A row its draws cannot replay goes
    through the generator path. ``checked=False``: only such replayed rows are verified
    (the others' errors are the same floats, their privacy is not looked at)."""
    from lmdk_core.adaptive import AdaptiveSettings
    from lmdk_core.adaptive.simulations import draws_per_release, laplace_releases
    from lmdk_core.engine.release import adaptive_release_errors, numeric_mechanism
    from lmdk_core.engine.repeat_noise import regular_share
    from lmdk_core.engine.verifier import verify

    width = draws_per_release(model.T)
    if model.mechanism == "planar_laplace" or n < 2 or (n - 1) * width > BATCH_DOUBLES:
        return None
    mech = numeric_mechanism(model.mechanism, sensitivity=model.scale_unit)
    if mech.numpy_draws != "laplace" or not width:
        return None
    x = np.asarray(model.values, dtype=float)
    eps_total = float(epsilon)
    planned = allocate("adaptive", model.T, lm, eps_total)
    lm_at = np.asarray(lm, dtype=np.intp)
    is_lm = np.zeros(model.T, dtype=bool)
    is_lm[lm_at] = True
    draws = _release_uniforms(seed, seq, n, width)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflowing row is replayed
        released, spent, ok = laplace_releases(x, is_lm, start=float(planned[0]), mech=mech,
                                               share=regular_share(planned, lm_at), draws=draws,
                                               settings=AdaptiveSettings())
        errors = np.asarray(mech.distance(released, x), dtype=float)
    verdicts: dict[bytes, bool] = {}  # verify is a function of the allocation: once each
    private = True
    for r in range(n - 1):
        if not ok[r]:  # numpy would have drawn otherwise: the release from its generator
            [(errors[r], row_private)] = adaptive_release_errors(
                x, lm, epsilon=epsilon, mechanism=mech,
                generators=[np.random.default_rng(draws.children[r])])
            private &= row_private
            continue
        if not checked:
            continue
        key = spent[r].tobytes()
        if key not in verdicts:
            verdicts[key] = bool(verify(spent[r], lm, eps_total).private)
        private &= verdicts[key]
    return errors, private


def _release_uniforms(seed: int | None, seq: np.random.SeedSequence, n: int, width: int):
    """The leading doubles of releases 1..n−1 (children 1..n−1 of ``SeedSequence(seed)``),
    kept across calls for a whole-number seed: the search over ε simulates the same
    releases at every ε (common random numbers)."""
    if isinstance(seed, int) and not isinstance(seed, bool):
        return _seeded_uniforms(seed, n, width)
    return _uniforms_of(seq, n, width)


@functools.lru_cache(maxsize=2)
def _seeded_uniforms(seed: int, n: int, width: int):
    """:func:`_release_uniforms` of a whole-number seed (read-only arrays)."""
    seq = np.random.SeedSequence(seed)
    seq.spawn(1)  # child 0: the checked release
    draws = _uniforms_of(seq, n, width)
    for a in (draws.uniforms, draws.high, draws.log, draws.usable):
        a.setflags(write=False)
    return draws


def _uniforms_of(seq: np.random.SeedSequence, n: int, width: int):
    """The leading doubles of the next n − 1 children of ``seq`` (it has spawned child
    0), the children kept."""
    from lmdk_core.adaptive.simulations import leading_uniforms

    children = seq.spawn(n - 1)
    return leading_uniforms(children, width)


def _unchecked_releases(model: AccuracyModel, lm: list[int], epsilon: float,
                        gens: Iterable[np.random.Generator]):
    """(errors, private) of one whole Adaptive release per generator, with the mechanism
    built once (:func:`lmdk_core.engine.release.adaptive_release_errors`), for inputs a
    first release through the checked path has accepted."""
    from lmdk_core.engine.release import adaptive_release_errors, numeric_mechanism
    from lmdk_core.mechanisms import Mechanism, PlanarLaplace
    from lmdk_core.mechanisms.planar_laplace import check_coordinates

    mech: Mechanism
    if model.mechanism == "planar_laplace":
        x = np.column_stack(check_coordinates(model.values[:, 0], model.values[:, 1]))
        mech = PlanarLaplace(model.scale_unit)
    else:
        x = np.asarray(model.values, dtype=float)
        mech = numeric_mechanism(model.mechanism, sensitivity=model.scale_unit)
    return adaptive_release_errors(x, lm, epsilon=epsilon, mechanism=mech, generators=gens)


def adaptive_expected_errors(values: ArrayLike, landmarks: Iterable[int] | None,
                             epsilon: float, *, mechanism: str = "laplace",
                             sensitivity: float | None = 1.0, radius: float | None = None,
                             stays: Iterable[tuple[int, int]] | None = None,
                             runs: int | None = None, seed: int = UTILITY_SEED
                             ) -> np.ndarray:
    """The expected absolute error of each reading of an Adaptive release,
    ``E|o_t − x_t|`` over the whole release's randomness (its sampling coins and its
    noise), estimated as the mean over ``runs`` simulated whole releases
    (:func:`adaptive_errors`, ``SeedSequence(seed)``); NaN where no run released t.
    ``runs`` defaults to :func:`utility_runs` of the release's length.

    Why not the closed forms of :mod:`lmdk_core.decision.expected_error` at the pattern
    actually drawn: Adaptive's later decisions depend on the noise it published
    (Katsomallos et al., CODASPY 2022: a change within the noise lowers the sampling
    rate), so given the pattern a repeated publication's noise is not Lap(Δf/ε_t) — runs
    of skips follow small changes, i.e. noise close to the previous one — and the closed
    form over-stated the error by 7–15 % (26 % for the typical value). Averaging whole
    releases has no such bias; the standard error of each reading's mean is
    ``sd/√runs``, of the mean over readings far less (tests/engine/test_utility.py)."""
    if runs is None:
        runs = utility_runs(np.shape(values)[0])
    errors, _ = adaptive_errors(values, landmarks, epsilon, mechanism=mechanism,
                                sensitivity=sensitivity, radius=radius, runs=runs,
                                seed=seed, stays=stays, checked=False)
    released = ~np.isnan(errors)
    n = released.sum(axis=0)
    total = np.where(released, errors, 0.0).sum(axis=0)
    return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def utility_runs(T: int) -> int:
    """Whole releases simulated for the utility line of a T-timestamp Adaptive release:
    ``⌈UTILITY_STEPS / T⌉`` within [32, 256] — on a 400-reading random walk 256 runs
    give the mean expected error to a standard deviation of 2.3 % over seeds (64 runs:
    5 %); longer releases average over more readings per run."""
    return int(np.clip(np.ceil(UTILITY_STEPS / max(int(T), 1)), 32, 256))


def _clopper_pearson_lower(k: np.ndarray, n: np.ndarray, confidence: float) -> np.ndarray:
    """One-sided lower confidence bound of a binomial proportion (Clopper–Pearson):
    the ``1 − confidence`` quantile of Beta(k, n − k + 1); 0 when k = 0. The quantile is
    ``scipy.special.betaincinv`` (the same Boost routine as ``scipy.stats.beta.ppf``, the
    same floats, without the ~0.4 s import of ``scipy.stats``)."""
    from scipy.special import betaincinv

    k = np.asarray(k, float)
    n = np.asarray(n, float)
    with np.errstate(invalid="ignore"):
        lo = betaincinv(np.maximum(k, 1e-300), n - k + 1, 1.0 - confidence)
    return np.where(k > 0, lo, 0.0)


def estimate_from_errors(errors: np.ndarray, target: AccuracyTarget,
                         confidence: float = 0.95) -> tuple[float, float]:
    """(estimate, one-sided bound at ``confidence`` in the target's favourable direction)
    of ``target`` from simulated whole releases: ``errors`` (runs, T), NaN = withheld.
    See the module docstring (Adaptive) for each reading of the target."""
    from scipy.special import ndtri  # the normal quantile (what scipy.stats.norm.ppf calls)

    err = np.asarray(errors, float)
    z = float(ndtri(confidence))
    if target.kind == "within":
        released = ~np.isnan(err)
        inside = released & (np.nan_to_num(err, nan=np.inf) <= target.bound)
        return _WITHIN_ESTIMATES[target.per](inside, released, confidence, z)
    if target.per == "each":
        return _each_mean_error(err, z)
    return _typical_mean_error(err, z)


def _each_within(inside: np.ndarray, released: np.ndarray, confidence: float,
                 z: float) -> tuple[float, float]:
    """'each': the smallest per-reading share within, with its Clopper–Pearson bound."""
    counts = _within_counts(inside, released, "each")
    if counts is None:
        return float("nan"), float("nan")
    k_t, n_t = counts
    return _share(k_t, n_t), float(np.min(_clopper_pearson_lower(k_t, n_t, confidence)))


def _all_within_share(inside: np.ndarray, released: np.ndarray, confidence: float,
                      z: float) -> tuple[float, float]:
    """'all': the share of releases with every reading within (Clopper–Pearson)."""
    k, R = _within_counts(inside, released, "all")  # type: ignore[misc]
    return _share(k, R), float(_clopper_pearson_lower(k, R, confidence)[0])


def _within_counts(inside: np.ndarray, released: np.ndarray,
                   per: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(successes k, trials n) behind an 'each' (per reading: releases within the bound,
    releases that published it; None when no reading was ever published) or an 'all'
    target (one pair: releases with every reading within, all releases)."""
    if per == "all":
        R = inside.shape[0]
        return (np.array([int(np.sum(inside.sum(axis=1) == released.sum(axis=1)))]),
                np.array([R]))
    n_t = released.sum(axis=0)
    ok = n_t > 0
    return (inside.sum(axis=0)[ok], n_t[ok]) if ok.any() else None


def _share(k: np.ndarray, n: np.ndarray) -> float:
    """The smallest share k / n."""
    return float(np.min(k / n))


def estimate_meets_target(errors: np.ndarray, target: AccuracyTarget,
                          confidence: float = 0.95) -> tuple[float, bool]:
    """(estimate, whether its one-sided bound at ``confidence`` meets ``target``): the
    same as :func:`estimate_from_errors` then
    :func:`~lmdk_core.decision.accuracy.meets_target`, but for an 'each' or 'all'
    probability target the Clopper–Pearson comparison is decided from the binomial tail
    (:func:`~lmdk_core.decision.clopper_pearson.lower_bound_at_least`) without scipy
    whenever that is certain."""
    if target.kind == "within" and target.per in ("each", "all"):
        err = np.asarray(errors, float)
        released = ~np.isnan(err)
        inside = released & (np.nan_to_num(err, nan=np.inf) <= target.bound)
        counts = _within_counts(inside, released, target.per)
        met = (None if counts is None
               else lower_bound_at_least(counts[0], counts[1], confidence,
                                         target.probability))
        if counts is not None and met is not None:
            return _share(*counts), met
    est, bound = estimate_from_errors(errors, target, confidence)
    return est, meets_target(bound, target)


def _typical_within(inside: np.ndarray, released: np.ndarray, confidence: float,
                    z: float) -> tuple[float, float]:
    """'typical': the mean per-release share within, with a one-sided normal bound."""
    n_r = released.sum(axis=1)
    frac = inside.sum(axis=1)[n_r > 0] / n_r[n_r > 0]
    if frac.size < 2:
        return float("nan"), float("nan")
    m = float(frac.mean())
    return m, m - z * float(frac.std(ddof=1)) / np.sqrt(frac.size)


#: the estimate of a probability target, by its reading
_WITHIN_ESTIMATES = {"each": _each_within, "all": _all_within_share,
                     "typical": _typical_within}


def _each_mean_error(err: np.ndarray, z: float) -> tuple[float, float]:
    """'each' mean error: the largest per-reading mean, with a one-sided normal bound."""
    n_t = (~np.isnan(err)).sum(axis=0)
    ok = n_t > 1
    if not ok.any():
        return float("nan"), float("nan")
    e = err[:, ok]
    m_t = np.nanmean(e, axis=0)
    sd_t = np.nanstd(e, axis=0, ddof=1)
    return float(m_t.max()), float(np.max(m_t + z * sd_t / np.sqrt(n_t[ok])))


def _typical_mean_error(err: np.ndarray, z: float) -> tuple[float, float]:
    """'typical' mean error: the mean of the per-release means, one-sided normal bound."""
    per_run = np.array([np.nanmean(row) for row in err if np.any(~np.isnan(row))])
    if per_run.size < 2:
        return float("nan"), float("nan")
    m = float(per_run.mean())
    return m, m + z * float(per_run.std(ddof=1)) / np.sqrt(per_run.size)


def adaptive_accuracy(values: ArrayLike, landmarks: Iterable[int] | None, epsilon: float,
                      target: AccuracyTarget, *, mechanism: str = "laplace",
                      sensitivity: float | None = 1.0, radius: float | None = None,
                      runs: int = 100, seed: int | None = None,
                      confidence: float = 0.95,
                      stays: Iterable[tuple[int, int]] | None = None
                      ) -> AdaptiveAccuracy:
    """Monte Carlo accuracy of Adaptive at ``epsilon``: (estimate, one-sided bound at
    ``confidence`` in the target's favourable direction — the lower bound of a
    probability, the upper bound of a mean error — and whether the verifier found every
    run landmark-private). Whole releases are simulated (:func:`adaptive_errors`) and
    every reading's actual error is measured: which readings Adaptive publishes depends
    on the noise, so the noise law given the publication pattern is not the plain one."""
    errors, private = adaptive_errors(values, landmarks, epsilon, mechanism=mechanism,
                                      sensitivity=sensitivity, radius=radius, runs=runs,
                                      seed=seed, stays=stays)
    est, bound = estimate_from_errors(errors, target, confidence)
    return AdaptiveAccuracy(est, bound, private)


def adaptive_epsilon_floor(model: AccuracyModel, lm: np.ndarray,
                           target: AccuracyTarget) -> float:
    """A total ε below which Adaptive (Katsomallos et al., CODASPY'22) cannot meet an
    'each' or 'all' target: its first reading is always published with the planned
    Uniform share c·ε (c = 1/(|L|+1) for the landmarks ``lm``), and that reading alone
    must meet the target — exactly, not statistically. Laplace: ``1 − e^{−a·c·ε/Δf} ≥
    p``, ``Δf/(c·ε) ≤ m``; Planar Laplace: Lambert's W, ``2r/(c·ε) ≤ m`` (for a
    probability p within ±a, or a mean error m). 0 for 'typical' and for Geometric noise
    (no floor used). :func:`~lmdk_core.decision.epsilon_search.solve_epsilon` starts
    Adaptive's search there.

    >>> m = accuracy_model([0.0] * 4, "laplace", 1.0, None)
    >>> round(adaptive_epsilon_floor(m, np.array([1]), AccuracyTarget("mean", 0.5)), 6)
    4.0
    """
    if target.per == "typical" or model.mechanism == "geometric":
        return 0.0
    c = float(allocate("uniform", model.T, lm, 1.0)[0])
    if target.kind == "mean":
        per = (model.scale_unit if model.mechanism == "laplace" else 2 * model.scale_unit)
        return per / (c * target.bound)
    if model.mechanism == "laplace":
        e_t = laplace_epsilon_for(target.bound, target.probability, model.scale_unit)
    else:
        e_t = planar_epsilon_for(target.bound, target.probability, model.scale_unit)
    return float(e_t / c * (1 - 1e-9))


def min_adaptive_runs(probability: float, confidence: float = 0.95) -> int:
    """The fewest simulated releases R that can certify an 'each'/'all' target of
    ``probability`` p at ``confidence``: with all R releases within the bound the one-sided
    Clopper–Pearson lower bound is (1 − confidence)^(1/R), so R ≥ ln(1 − confidence) / ln p
    (p = 0.95 at 95 %: 59 runs)."""
    return int(np.ceil(np.log(1 - confidence) / np.log(probability)))
