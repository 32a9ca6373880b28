"""Releasing many users at once: the schemes of :mod:`lmdk_core.engine.release`, in lockstep.

The users of a partition are stacked into matrices of shape (U, T_max) — user u's
timestamps t = 0..T_u−1 (its rows sorted by time), padding beyond T_u ignored — and the
release runs over all users together:

* **static schemes** (event, user, w-event, Uniform, Skip): the budget of user u is
  the scheme's allocation for T_u and L_u, computed with the same formulas as
  :func:`lmdk_core.engine.allocation.allocate` (Uniform ε/(|L_u|+1), or ε/|L_u| when every
  timestamp is a landmark; Skip 0 at landmarks and ε elsewhere); the noisy values are
  drawn per user from its own stream; approximations (ε_t = 0) repeat the last release
  (a running maximum of publication indices along each row); nothing before the first
  release (withheld, NaN).
* **Adaptive** (Katsomallos et al., CODASPY 2022, as read in docs/definitions.md; the
  single-trace version is :func:`lmdk_core.engine.release._adaptive`): one step per timestamp
  t, each a handful of vector operations over the users — publish where the user's
  coin is below its sampling rate (always at its first timestamp), compare the change
  of the published value with the noise scale (the mechanism's expected error at ε_t)
  and move the rate by ±step within [min_rate, 1], and hand an approximated landmark's
  share b on: each of the k later landmarks and every later timestamp of that user get
  ``+b/(k+1)`` — the rules of :mod:`lmdk_core.adaptive.rules`, applied to all users at
  once. Nothing loops over users in Python (numpy noise; exact noise below). With
  numpy's Laplace noise on a series, a block large enough to pay for numba's load runs
  the compiled kernel of :mod:`lmdk_core.adaptive.block_kernel` instead: the same steps
  one user after the other, the same floats (tests/engine/test_population_block_kernel.py).

Randomness: each user's coins and standard noise are drawn from that user's stream
before the loop (T_u coins, T_u standard variates), so a user's release does not depend
on the partition it is in. ``noise='exact'`` instead draws each Laplace / Geometric
value with the exact sampler applied to the value
(:mod:`lmdk_core.mechanisms.exact_noise`; Mironov, CCS 2012), and each location with
the exact Planar Laplace of a declared region
(:mod:`lmdk_core.mechanisms.exact_planar`); numpy's Planar Laplace is
:data:`PLANAR_PROTECTION`.

Exact noise over many users: the exact sampler has a fixed cost per call, so the values
of all the users released together are sent in as few calls as possible. Each scheme runs as a
*stepper* (a generator) that hands out its exact-noise requests — the values to release
and their budgets ε_t — and gets the released values back; :func:`lockstep_release_many`
runs several steppers (blocks of users) side by side and answers each round of requests
with one call of :func:`~lmdk_core.mechanisms.exact_noise.exact_laplace` /
``exact_geometric`` over the concatenated values, whatever their scales Δf/ε_t. A
static scheme asks once (every publication of every user of the blocks: one call for
the whole group). Adaptive's next
decisions depend on the values just released, so with exact noise each user runs
Adaptive's loop on its own (:func:`~lmdk_core.adaptive.exact_draws.exact_publications`,
a few Python operations per step, its coins drawn ahead from its stream) and draws ahead
in batches: a publishing user without a candidate at its current budget asks for the
values from t through its first landmark after t (its budget cannot change before; only
the timestamps its coins allow to publish, and on past the landmarks its coins make sure
publications, :func:`~lmdk_core.adaptive.exact_draws.batch_plan`); a round collects the
requests of every user waiting for a batch — at most one plus the number of landmarks,
not one per timestamp. A candidate is
released only at the budget it was drawn at; the others are discarded unreleased.
The exact sampler draws every element independently from OS entropy, and each element
released at scale b = Δf/ε_t is ε_t-DP for a change of Δf in that element
(docs/noise.md),
so releasing user u's value in the same vector as other users' values spends exactly
the budget it would spend alone, and the other users' released values do not depend on
u's data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from lmdk_core.adaptive import block_kernel
from lmdk_core.adaptive.exact_draws import exact_publications
from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rates_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.scheme_settings import SchemeSettings
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import agree, counted
from lmdk_core.mechanisms import Mechanism

__all__ = ["PLANAR_PROTECTION", "LockstepRelease", "exact_release", "lockstep_release",
           "lockstep_release_many", "planned_budgets", "uses_exact"]

#: what protects a Planar Laplace release drawn with numpy (``noise='fast'``)
PLANAR_PROTECTION = (
    "Planar Laplace (Andrés et al., CCS 2013) drawn with numpy's floating-point gamma and "
    "uniform samplers and moved along the WGS84 geodesic; the discretisation and truncation "
    "of Andrés et al. §5 are NOT applied, so these locations carry geo-indistinguishability "
    "up to floating-point effects (Mironov, CCS 2012), not the exact guarantee")


@dataclass
class LockstepRelease:
    """Released matrices of a partition: ``released`` (U, T_max) or (U, T_max, 2), NaN
    where withheld or padded; ``epsilon_t`` spent (0 where approximated or padded);
    ``published`` True where a fresh noisy value came from the raw data."""

    released: np.ndarray
    epsilon_t: np.ndarray
    published: np.ndarray


def planned_budgets(scheme: str, lengths: np.ndarray, landmarks: np.ndarray,
                    epsilon: float, *, window: int | None,
                    max_landmarks: int | None = None) -> np.ndarray:
    """The (U, T_max) planned allocation (Adaptive: its Uniform start); 0 on padding.
    With a declared bound k (``max_landmarks``) Uniform and Adaptive's start are ε/(k+1)
    for every user, whatever the user's landmarks (docs/privacy-model.md); a user with
    more than k landmark events is refused."""
    key = scheme_info(scheme).key
    U, T = landmarks.shape
    active = np.arange(T)[None, :] < lengths[:, None]
    n_lm = landmarks.sum(axis=1)
    if max_landmarks is not None and U:
        from lmdk_core.engine.allocation import check_max_landmarks

        over = int(np.count_nonzero(n_lm > max_landmarks))
        if over:
            raise InputError(
                f"{counted(over, 'user')} {agree(over, 'has', 'have')} more landmark events "
                f"than the declared bound k = "
                f"{int(max_landmarks)} (the most: {int(n_lm.max())}); declare a larger k "
                "(extra.max_landmarks of the configuration, or the app's 'Declared bound on "
                "landmark events k')")
        k = check_max_landmarks(max_landmarks)
        if key in ("uniform", "adaptive"):
            return np.where(active, epsilon / (k + 1), 0.0)
    if key == "event":
        share = np.full(U, float(epsilon))
    elif key == "user":
        share = epsilon / lengths.astype(float)
    elif key == "w-event":
        if window is None or isinstance(window, bool) or int(window) != window or window < 1:
            raise InputError(f"the w-event scheme needs a whole-number window w >= 1, got "
                             f"{window!r}")
        share = np.full(U, epsilon / int(window))
    elif key in ("uniform", "adaptive"):
        denom = np.where(n_lm == lengths, n_lm, n_lm + 1).astype(float)
        share = epsilon / denom
    else:  # skip
        out = np.where(active & ~landmarks, float(epsilon), 0.0)
        return out
    return np.where(active, share[:, None], 0.0)


def _forward_fill(noisy: np.ndarray, published: np.ndarray) -> np.ndarray:
    """Repeat each row's last publication (NaN before the first)."""
    U, T = published.shape
    idx = np.where(published, np.arange(T)[None, :], -1)
    np.maximum.accumulate(idx, axis=1, out=idx)
    rows = np.arange(U)[:, None]
    out = noisy[rows, np.maximum(idx, 0)].astype(float, copy=True)
    out[idx < 0] = np.nan
    return out


def exact_release(mech: Mechanism, x: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """``x`` released by the mechanism's exact sampler at budgets ``eps`` (the exact
    Planar Laplace releases location rows at their ε directly)."""
    if mech.exact_sampler is None:
        return mech.perturb(x, eps)
    return mech.exact_sampler(x, mech.scale(eps))


def uses_exact(mech: Mechanism, noise: str) -> bool:
    """Exact noise was asked for and the mechanism draws exactly (the Laplace and
    Geometric exact samplers; the exact Planar Laplace of a declared region; numpy's
    Planar Laplace is :data:`PLANAR_PROTECTION`)."""
    return noise == "exact" and (mech.exact_sampler is not None or mech.noise == "exact")


def _static(x, lengths, planned, mech, gens, noise):
    """Stepper of the static schemes: one exact-noise request (every publication)."""
    published = planned > 0
    noisy = np.array(x, dtype=float, copy=True)
    if uses_exact(mech, noise):
        if published.any():
            noisy[published] = yield x[published], planned[published]
    else:
        for u, gen in enumerate(gens):
            pub = published[u, : lengths[u]]
            if pub.any():
                noisy[u, : lengths[u]][pub] = mech.perturb(
                    x[u, : lengths[u]][pub], planned[u, : lengths[u]][pub], gen)
    if x.ndim == 3:
        la = _forward_fill(noisy[:, :, 0], published)
        lo = _forward_fill(noisy[:, :, 1], published)
        released = np.stack([la, lo], axis=2)
    else:
        released = _forward_fill(noisy, published)
    spent = np.where(published, planned, 0.0)
    return LockstepRelease(released, spent, published)


class _Predrawn(NamedTuple):
    """Each user's coins (U × T) and standard variates (one U × T array per variate of
    the mechanism; None when no noise was drawn ahead)."""

    coins: np.ndarray
    variates: tuple[np.ndarray, ...] | None


def _predraw(gens, lengths, T, mech: Mechanism, noise: bool = True) -> _Predrawn:
    """Each user's coins and (``noise``) standard variates for every one of its
    timestamps, coins first (:meth:`~lmdk_core.mechanisms.base.Mechanism.presample`); the
    exact path draws its noise from the exact sampler instead, and only the coins here."""
    U = len(gens)
    coins = np.ones((U, T))
    if not noise:
        for u, gen in enumerate(gens):
            coins[u, :int(lengths[u])] = gen.random(int(lengths[u]))
        return _Predrawn(coins, None)
    variates: tuple[np.ndarray, ...] | None = None
    for u, gen in enumerate(gens):
        n = int(lengths[u])
        coins[u, :n] = gen.random(n)
        drawn = mech.presample(gen, n)
        if variates is None:
            variates = tuple(np.zeros((U, T)) for _ in drawn)
        for v, d in zip(variates, drawn, strict=True):
            v[u, :n] = d
    return _Predrawn(coins, variates)


def _adaptive_exact(x, lengths, landmarks, planned, mech, gens, settings: AdaptiveSettings):
    """Stepper of Adaptive with exact noise: one
    :func:`~lmdk_core.adaptive.exact_draws.exact_publications` per user (its coins drawn
    ahead from its stream); each round asks for the batches of every user waiting for
    one, together."""
    U, T = planned.shape
    coins = _predraw(gens, lengths, T, mech, noise=False).coins
    users = [u for u in range(U) if lengths[u] > 0]
    runs = {u: exact_publications(x[u, :lengths[u]], landmarks[u, :lengths[u]],
                                  start=float(planned[u, 0]), mech=mech,
                                  coins=coins[u, :lengths[u]], settings=settings)
            for u in users}
    parts: dict[int, tuple] = {}
    pending: dict[int, tuple[np.ndarray, float]] = {}

    def advance(u: int, answer) -> None:
        try:
            pending[u] = runs[u].send(answer)
        except StopIteration as stop:
            parts[u] = stop.value

    for u in users:
        advance(u, None)
    while pending:
        keys = list(pending)
        requests = [pending.pop(u) for u in keys]
        sizes = [len(v) for v, _ in requests]
        answer = yield (np.concatenate([v for v, _ in requests]),
                        np.repeat([e for _, e in requests], sizes))
        for u, out in zip(keys, np.split(np.asarray(answer, dtype=float),
                                         np.cumsum(sizes)[:-1]), strict=True):
            advance(u, out)
    published = np.zeros((U, T), dtype=bool)
    noisy = np.full(x.shape, np.nan)
    spent = np.zeros((U, T))
    for u, (pub_t, pub_out, pub_eps) in parts.items():
        published[u, pub_t] = True
        noisy[u, pub_t] = pub_out
        spent[u, pub_t] = pub_eps
    if x.ndim == 3:  # locations: each coordinate held alike
        released = np.stack([_forward_fill(noisy[:, :, 0], published),
                             _forward_fill(noisy[:, :, 1], published)], axis=2)
    else:
        released = _forward_fill(noisy, published)
    released[np.arange(T)[None, :] >= lengths[:, None]] = np.nan
    return LockstepRelease(released, spent, published)


def _adaptive_compiled(x, lengths, landmarks, planned, mech: Mechanism, gens,
                       settings: AdaptiveSettings) -> LockstepRelease | None:
    """Adaptive with numpy's Laplace noise on a series block by the compiled kernel
    (:mod:`lmdk_core.adaptive.block_kernel`: the numpy path's floats, one user after
    the other), where it applies and pays; None (nothing drawn) where it does not."""
    if x.ndim != 2 or mech.numpy_draws != "laplace" or not mech.can_presample:
        return None
    start = block_kernel.constant_start(planned, lengths)
    U, T = planned.shape
    if start is None or not block_kernel.use_compiled(U, T, block_kernel.FORCE_COMPILED):
        return None
    out = block_kernel.adaptive_laplace_block(
        x, lengths, landmarks, start, gens, scale_unit=float(mech.scale(1.0)),
        settings=settings, presample=lambda gen, n: mech.presample(gen, n)[0])
    return None if out is None else LockstepRelease(*out)


def _adaptive(x, lengths, landmarks, planned, mech, gens, settings: AdaptiveSettings):
    """Stepper of Adaptive with numpy noise (no exact-noise requests): the compiled
    kernel for a large enough series block with Laplace noise (:func:`_adaptive_compiled`),
    else one vector step per timestamp over the users.

    The loop runs on time-major copies (T, U): a step reads one contiguous row of each
    matrix instead of one element per user ``T`` floats apart (a page apart at a year of
    hours), the same floats in the same operations; the result is turned back to (U, T).
    """
    compiled = _adaptive_compiled(x, lengths, landmarks, planned, mech, gens, settings)
    if compiled is not None:
        return compiled
    U, T = planned.shape
    track = x.ndim == 3
    coins, drawn = _predraw(gens, lengths, T, mech)
    # time-major copies: row t holds every user's timestamp t
    xt = np.ascontiguousarray(np.swapaxes(x, 0, 1))
    coins_t = np.ascontiguousarray(coins.T)
    variates = tuple(np.ascontiguousarray(v.T) for v in drawn or ())  # None: nothing to draw
    eps = np.ascontiguousarray(planned.T)
    lm = np.ascontiguousarray(landmarks.T)
    published = np.zeros((T, U), dtype=bool)
    released = np.full(xt.shape, np.nan)
    rate = np.full(U, float(settings.initial_rate))
    last = np.full((U, 2) if track else (U,), np.nan)
    has_last = np.zeros(U, dtype=bool)
    # later[t, u] = landmarks of u strictly after t
    later = np.cumsum(lm[::-1], axis=0)[::-1] - lm
    with np.errstate(divide="ignore"):
        scale = np.where(eps > 0, mech.expected_error(np.where(eps > 0, eps, 1.0).ravel())
                         .reshape(eps.shape), np.inf)
    # users are all active before the shortest one ends, and all have a publication to
    # compare with once each has published once: then the masks are not needed
    everyone = np.ones(U, dtype=bool)
    all_active_until = int(lengths.min()) if U else 0
    all_had = False
    for t in range(T):
        if t < all_active_until:
            active = everyone
        else:
            active = lengths > t
            if not active.any():
                break
        coin_pub = publishes(coins_t[t], rate)
        pub = active & coin_pub if all_had else active & (~has_last | coin_pub)
        ip = np.flatnonzero(pub)  # the publishing users, in order
        if ip.size:
            out = mech.release_presampled(xt[t][ip], eps[t][ip],
                                          tuple(v[t][ip] for v in variates))
            if all_had:
                idx, fresh = ip, out
            else:
                had = has_last[ip]
                idx, fresh = ip[had], out[had]
            if idx.size:
                within = within_noise(scale[t][idx], mech.distance(fresh, last[idx]))
                rate[idx] = rates_after_publication(rate[idx], within, settings.min_rate,
                                                    settings.step)
            released[t][ip] = out
            last[ip] = out
            if not all_had:
                has_last[ip] = True
                all_had = bool(has_last.all())
            published[t][ip] = True
        if ip.size == U:
            continue  # nobody skips
        iskip = np.flatnonzero(active & ~pub)
        if iskip.size:
            released[t][iskip] = last[iskip]
            hand = iskip[lm[t][iskip]]
            if hand.size and t + 1 < T:
                block = handed_on_budget(eps[t + 1:, hand], eps[t, hand][None, :],
                                         later[t, hand][None, :])
                eps[t + 1:, hand] = block
                scale[t + 1:, hand] = mech.expected_error(block.ravel()).reshape(block.shape)
            eps[t][iskip] = 0.0
    eps[np.arange(T)[:, None] >= lengths[None, :]] = 0.0
    return LockstepRelease(np.ascontiguousarray(np.swapaxes(released, 0, 1)),
                           np.ascontiguousarray(eps.T), np.ascontiguousarray(published.T))


def _stepper(x, lengths, landmarks, settings: SchemeSettings, mech: Mechanism, gens,
             noise: str):
    """One block's release: a :class:`LockstepRelease`, or a generator of its exact-noise
    requests (:func:`_drive`)."""
    lengths = np.asarray(lengths, dtype=int)
    planned = planned_budgets(settings.scheme, lengths, landmarks, settings.epsilon,
                              window=settings.window, max_landmarks=settings.max_landmarks)
    fresh = planned[planned > 0]
    if fresh.size:
        mech.check_budget(np.unique(fresh))
    if scheme_info(settings.scheme).key == "adaptive":
        adaptive = settings.adaptive_or_default()
        if uses_exact(mech, noise):
            return _adaptive_exact(x, lengths, landmarks, planned, mech, gens, adaptive)
        return _adaptive(x, lengths, landmarks, planned, mech, gens, adaptive)
    return _static(x, lengths, planned, mech, gens, noise)


def _drive(steppers: list, mech) -> list[LockstepRelease]:
    """Run steppers (or releases already made) side by side; every round of their
    exact-noise requests is answered by one exact call over all the requested values (one
    exact-sampler call per round; see the module docstring)."""
    results: list[LockstepRelease | None] = [None] * len(steppers)
    pending: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def advance(i: int, answer) -> None:
        try:
            pending[i] = steppers[i].send(answer)
        except StopIteration as stop:
            results[i] = stop.value

    for i, stepper in enumerate(steppers):
        if isinstance(stepper, LockstepRelease):  # a release without exact noise
            results[i] = stepper
        else:
            advance(i, None)
    while pending:
        keys = list(pending)
        requests = [pending.pop(i) for i in keys]
        sizes = np.cumsum([len(v) for v, _ in requests])[:-1]
        values = exact_release(mech, np.concatenate([v for v, _ in requests]),
                        np.concatenate([e for _, e in requests]))
        for i, out in zip(keys, np.split(values, sizes), strict=True):
            advance(i, out)
    done = [r for r in results if r is not None]
    if len(done) != len(results):
        raise RuntimeError("a lockstep release stopped without its result")
    return done


def lockstep_release(x: np.ndarray, lengths: np.ndarray, landmarks: np.ndarray,
                     *, scheme: str, epsilon: float, mech: Mechanism,
                     gens: list[np.random.Generator], noise: str = "exact",
                     window: int | None = None,
                     adaptive: AdaptiveSettings | None = None) -> LockstepRelease:
    """Release U users at once.

    ``x``: values (U, T_max) or ``[lat, lon]`` (U, T_max, 2), padded beyond each user's
    length; ``lengths`` (U,); ``landmarks`` (U, T_max) bool; ``gens`` one generator per
    user; ``noise`` 'exact' (the exact sampler for Laplace / Geometric) or 'fast' (numpy).
    """
    return lockstep_release_many([(x, lengths, landmarks, gens)], scheme=scheme,
                                 epsilon=epsilon, mech=mech, noise=noise, window=window,
                                 adaptive=adaptive)[0]


def lockstep_release_many(blocks: list[tuple], *, scheme: str, epsilon: float,
                          mech: Mechanism, noise: str = "exact",
                          window: int | None = None,
                          adaptive: AdaptiveSettings | None = None,
                          max_landmarks: int | None = None) -> list[LockstepRelease]:
    """:func:`lockstep_release` of several blocks ``(x, lengths, landmarks, gens)`` of
    users at once, their exact noise drawn together (one exact-sampler call for all the
    blocks' publications under a static scheme, one per round of requests under
    Adaptive). Each user's release is the one it gets alone."""
    if noise not in ("exact", "fast"):
        raise InputError(f"noise must be 'exact' or 'fast', got {noise!r}")
    settings = SchemeSettings(epsilon, scheme, window, adaptive, max_landmarks)
    steppers = [_stepper(x, lengths, lm, settings, mech, gens, noise)
                for x, lengths, lm, gens in blocks]
    return _drive(steppers, mech)
