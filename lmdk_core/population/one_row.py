"""Users of one reading and no landmark, released and audited together as vectors.

A population of many tiny users (a meter read once, a survey answer) spent most of its
time in per-user Python: the detectors, the stacking, the verifier, the utility verdict
and the landmark TPL, each called once per user on one-element arrays (about 0.5–1 ms a
user). For a series user with ONE reading and no landmark flag, under any scheme (event,
user, w-event, Uniform, Skip, and Adaptive, whose first reading always publishes), every
one of those has a closed form that depends on the user's reading only through the noise
or through ``|x|``:

* **landmarks**: none. The detectors find nothing in one reading (its robust σ is 0, so
  every deviation score is 0; a level shift needs at least three readings), so the
  planned budget is the scheme's share for a user with no landmark
  (:func:`~lmdk_core.population.lockstep.planned_budgets`, vectorised) and it is spent
  on that one reading (published; nothing is repeated, so no post-processing noise).
* **noise**: ``--noise fast`` draws each user's value with :meth:`Mechanism.perturb` from
  the user's own stream (:func:`~lmdk_core.population.streams.user_generator`), exactly
  as the lockstep path does (Adaptive: its coin, then the standard variates drawn
  ahead); exact noise is one call of the exact sampler for all of them.
* **audit**: the verifier's verdict (:func:`lmdk_core.engine.verifier.verify`) and the
  expected error depend on ``ε_t`` only, so they are computed by the same functions once
  per distinct ``ε_t``; the data scale of one reading is ``|x|`` (interquartile range and
  standard deviation are 0; :func:`lmdk_core.decision.utility.data_scale`), the measured
  error ``|released − x|``; the landmark TPL of one timestamp without landmarks is
  ``L_B(0) + ε_t + L_F(0) + ε_t − ε_t = ε_t`` (Cao et al., ICDE 2017: both loss
  functions vanish at 0), with the correlation model's note computed once.

Every other user takes the lockstep path. The result is the same rows, bit for bit, as
the lockstep path gives these users (``tests/engine/test_population_one_row.py`` checks
it on random populations against that path).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.engine.allocation import scheme_info
from lmdk_core.population.audit import AUDIT_COLUMNS, UserTrace, landmark_tpls, user_audit
from lmdk_core.population.lockstep import planned_budgets
from lmdk_core.population.streams import user_generator

__all__ = ["OneRowRelease", "one_row_users", "release_one_row"]

#: the schemes whose one-reading user spends its planned share on its reading (Adaptive's
#: first reading always publishes, at its Uniform start)
_SCHEMES = ("event", "user", "w-event", "uniform", "skip", "adaptive")


def one_row_users(lengths: np.ndarray, starts: np.ndarray, flags: np.ndarray | None,
                  settings) -> np.ndarray:
    """Which users (mask over ``lengths``) take this module's path: one reading, not
    flagged, a series under a static scheme (see the module docstring)."""
    if settings.kind != "series" or scheme_info(settings.scheme).key not in _SCHEMES:
        return np.zeros(lengths.size, dtype=bool)
    one = lengths == 1
    if flags is not None:
        one &= ~flags[starts]
    return one


@dataclass
class OneRowRelease:
    """The released values (unrounded, one per user) and the audit columns
    (:data:`~lmdk_core.population.audit.AUDIT_COLUMNS`) of one-reading users."""

    released: np.ndarray
    audit: dict[str, np.ndarray]


def release_one_row(users: np.ndarray, times: np.ndarray, x: np.ndarray, time_kind: str,
                    mech, settings) -> OneRowRelease:
    """Release and audit users of one reading each (``users``, ``times``, ``x`` one entry
    per user) with ``settings`` (a :class:`~lmdk_core.population.partition.BatchSettings`);
    see the module docstring."""
    n = x.size
    lengths = np.ones(n, dtype=int)
    no_landmarks = np.zeros((n, 1), dtype=bool)
    eps = planned_budgets(settings.scheme, lengths, no_landmarks, settings.epsilon,
                          window=settings.window,
                          max_landmarks=settings.max_landmarks)[:, 0]
    mech.check_budget(np.unique(eps))
    released = _noisy(users, x, eps, mech, settings)
    return OneRowRelease(released, _audit(users, times, x, eps, released, time_kind, mech,
                                          settings))


def _noisy(users, x, eps, mech, settings) -> np.ndarray:
    """Each user's released value: the exact sampler once for all (exact noise), or
    :meth:`perturb`'s draws (:meth:`perturb_one`) from each user's own stream (numpy
    noise), as the lockstep path."""
    from lmdk_core.population.lockstep import exact_release, uses_exact

    if uses_exact(mech, settings.noise):
        return np.asarray(exact_release(mech, x, eps), dtype=float)
    from lmdk_core.mechanisms.base import check_finite_release

    root = settings.root_entropy
    if scheme_info(settings.scheme).key == "adaptive":
        return _adaptive_noisy(users, x, eps, mech, root)
    draw = mech.perturb_one  # perturb's draws on one element; values and budgets checked
    with np.errstate(over="ignore"):
        out = np.array([draw(v, e, user_generator(root, user)) for v, e, user in
                        zip(x.tolist(), eps.tolist(), users.tolist(), strict=True)],
                       dtype=float)
    return check_finite_release(out)


def _adaptive_noisy(users, x, eps, mech, root: int) -> np.ndarray:
    """Adaptive with numpy's noise on one reading: the first reading always publishes,
    at the planned budget, from the draws the lockstep path makes ahead from the user's
    stream — its coin, then the mechanism's standard variates
    (:meth:`~lmdk_core.mechanisms.base.Mechanism.presample`) — released together
    (:meth:`~lmdk_core.mechanisms.base.Mechanism.release_presampled`)."""
    drawn = []
    for user in users.tolist():
        gen = user_generator(root, user)
        gen.random(1)  # the coin of t = 0 (drawn, never read: the first reading publishes)
        drawn.append(mech.presample(gen, 1))
    variates = tuple(np.concatenate(v) for v in zip(*drawn, strict=True))
    return np.asarray(mech.release_presampled(x, eps, variates), dtype=float)


def _audit(users, times, x, eps, released, time_kind, mech, settings) -> dict[str, np.ndarray]:
    """The audit columns: per distinct ``ε_t`` the verifier's verdict and the expected
    error from :func:`~lmdk_core.population.audit.user_audit` itself (on a reading of 1),
    the rest element-wise (module docstring)."""
    from lmdk_core.decision.utility import MARGINAL, NOISE_RATIO, NOT_USEFUL, USEFUL, USEFUL_RATIO

    n = x.size
    values, inverse = np.unique(eps, return_inverse=True)
    rows = [user_audit(users[0], UserTrace(times[:1], np.ones(1), np.ones(1), np.array([e]),
                                           np.ones(1, dtype=bool), np.zeros(0, dtype=int)),
                       epsilon=settings.epsilon, kind=time_kind, distance=mech.distance,
                       leakage=settings.leakage, mechanism=settings.mechanism,
                       scale_unit=settings.sensitivity, groups=None,
                       tpl=(float("nan"), "")) for e in values.tolist()]

    def per_eps(key: str, dtype) -> np.ndarray:
        return np.array([r[key] for r in rows], dtype=dtype)[inverse]

    err = mech.distance(released, x)
    typical = per_eps("expected_error", float)
    scale = np.abs(x)  # one reading: its level |median| (IQR and std are 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = typical / scale  # also the worst error's ratio: one reading
    level = np.where(ratio > NOISE_RATIO, NOT_USEFUL, MARGINAL).astype(object)
    level[(ratio <= USEFUL_RATIO) & (ratio <= 1)] = USEFUL
    level[~(scale > 0)] = "not judged"
    tpl, note = _tpls(users, times, x, eps, time_kind, settings)
    out = {
        "user": users,
        "n_timestamps": np.ones(n, dtype=np.int64),
        "n_landmarks": np.zeros(n, dtype=np.int64),
        "landmark_private": per_eps("landmark_private", bool),
        "worst_timestamp": per_eps("worst_timestamp", np.int64),
        "worst_total": per_eps("worst_total", float),
        "max_landmark_tpl": tpl,
        "leakage_note": note,
        "mae": err.astype(float),
        "rmse": np.sqrt(err.astype(float) ** 2),
        "n_published": np.ones(n, dtype=np.int64),
        "n_approximated": np.zeros(n, dtype=np.int64),
        "n_withheld": np.zeros(n, dtype=np.int64),
        "expected_error": typical,
        "data_scale": scale,
        "utility": level,
    }
    return {c: out[c] for c in AUDIT_COLUMNS}


def _tpls(users, times, x, eps, time_kind, settings) -> tuple[np.ndarray, np.ndarray]:
    """The landmark TPL column and its note: NaN and the model's note when the model has
    no matrices (or the column is off), else ``ε_t`` (module docstring); the model of the
    first user stands for all (one reading: no transition to count)."""
    n = eps.size
    first = landmark_tpls(settings.leakage, [(times[:1], x[:1], time_kind, eps[:1],
                                              np.zeros(0, dtype=int))])[0]
    note = np.full(n, first[1], dtype=object)
    if np.isnan(first[0]):
        return np.full(n, np.nan), note
    return eps.astype(float, copy=True), note
