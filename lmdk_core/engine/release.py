"""Releasing a series or a trajectory under a landmark-privacy scheme.

One engine for both: the values are a numeric series (shape (T,)) released with the
Laplace or Geometric mechanism, or a trajectory (shape (T, 2), ``[lat, lon]``) released
with Planar Laplace. At each timestamp t the release either

* **publishes** a fresh noisy value from the raw data, spending ε_t, or
* **approximates**: shows the last released value plus fresh noise of the regular law
  (post-processing, spends 0; :mod:`lmdk_core.engine.repeat_noise`, so no run of
  identical values shows where the approximations are); if nothing was released yet
  there is nothing to repeat and the value is withheld (NaN).

Static schemes (event, user, w-event, Uniform, Skip) publish wherever their planned
ε_t > 0. **Adaptive** (Katsomallos et al. 2022's "Adaptive" mechanism, as read in
docs/definitions.md): the budget starts as Uniform; a sampling component publishes at t with
probability
equal to the current sampling rate (always at the first timestamp). After each noisy
publication it compares the change ``d(o_t, o_prev)`` between the last two
publications with the noise scale (the mechanism's expected error at ε_t, Δf/ε_t for
Laplace): if the noise scale is larger the change is within noise and the rate is
lowered, otherwise raised. It uses only published outputs, so the decisions are
post-processing. When a *landmark* is approximated, its reserved share b is handed to
the future: each of the k later landmarks and every later regular timestamp gets
``+b/(k+1)``; approximating a regular timestamp frees nothing (regular timestamps do
not compose). The theorem's total ``Σ_{L∪{t}} ε_i`` can only go down, and the final
allocation is always passed through the verifier.

**Stays as events** (``stays=``, trajectories only; docs/stays.md,
:mod:`lmdk_core.engine.stay_events`): each stay is released once, from its centroid, as one
landmark event of the condensed timeline, and each of its fixes publishes that release
plus fresh noise of the regular law (post-processing); the verifier checks the grouped
form of the theorem. **Runs as events** (``runs=`` of :func:`release_series`;
docs/series-events.md, :mod:`lmdk_core.engine.run_events`) are the same for a series:
each run of readings is released once, from its level (mean).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.adaptive import adaptive_run
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.engine.allocation import allocate, planned_shares, scheme_info
from lmdk_core.engine.repeat_noise import regular_share, renoise_at
from lmdk_core.engine.scheme_settings import SchemeSettings
from lmdk_core.engine.share_allocation import ShareAllocation
from lmdk_core.engine.stay_events import condense, condensed_points, stay_members
from lmdk_core.engine.verifier import Verdict, check_groups, verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import as_generator, check_epsilon, check_landmarks
from lmdk_core.mechanisms import Geometric, Laplace, Mechanism, PlanarLaplace
from lmdk_core.mechanisms.base import check_finite_release
from lmdk_core.mechanisms.exact_planar import ExactPlanarLaplace, PlanarRegion
from lmdk_core.mechanisms.planar_laplace import check_coordinates

__all__ = [
    "AdaptiveSettings",
    "Release",
    "SchemeSettings",
    "adaptive_release_errors",
    "numeric_mechanism",
    "release",
    "release_series",
    "release_trajectory",
]

NUMERIC_MECHANISMS: dict[str, type[Laplace] | type[Geometric]] = {"laplace": Laplace,
                                                                   "geometric": Geometric}
#: the noise samplers: "fast" (numpy, seeded, exploration) or "exact" (exact_noise)
NOISE_CHOICES = ("fast", "exact")


@dataclass
class Release:
    """A finished release and everything the UI/CLI shows about it.

    ``epsilon_t`` is the budget actually spent (0 where approximated or withheld),
    ``published[t]`` is True where a fresh noisy value was released from the raw data,
    ``errors[t]`` the absolute error (metres for trajectories; NaN where withheld) and
    ``expected_errors[t]`` the mechanism's expected error at ε_t (NaN off publications).

    A static scheme's release keeps its budgets in compact form (``spent``, ``planned``:
    a :class:`~lmdk_core.engine.share_allocation.ShareAllocation`, one share and the
    timestamps without one); ``epsilon_t``, ``planned_epsilon_t``, ``published``,
    ``expected_errors`` and ``renoised`` are then built when first read (and kept): the
    same arrays, not made by a release nobody reads them from (docs/performance.md).
    """

    original: np.ndarray
    released: np.ndarray
    verdict: Verdict
    scheme: str
    mechanism: str
    epsilon: float
    landmarks: np.ndarray
    errors: np.ndarray
    #: the budget spent per timestamp: an array, or a static scheme's compact form
    spent: np.ndarray | ShareAllocation = field(repr=False)
    #: the scheme's planned budget per timestamp: an array or the compact form
    planned: np.ndarray | ShareAllocation = field(repr=False)
    #: the noise sampler: "fast" (numpy's floating-point samplers) or "exact" (exact_noise)
    noise: str = "fast"
    #: stays of a track (runs of a series' readings) released as one landmark event each
    #: (inclusive ranges); () = none
    stays: tuple[tuple[int, int], ...] = ()
    #: the declared bound k on landmark events (public; None: not declared, exploring)
    max_landmarks: int | None = None
    #: the budget ε_reg of the fresh post-processing noise on repeated values (a regular
    #: timestamp's planned share; spent nowhere: post-processing)
    renoise_epsilon: float = 0.0
    #: the timestamps that got that noise, when known as indices (the compact form)
    renoised_at: np.ndarray | None = field(default=None, repr=False)
    #: the mechanism (its expected errors are computed from it when first read)
    law: Mechanism | None = field(default=None, repr=False)
    #: the arrays given or already built, by attribute name
    arrays: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def epsilon_t(self) -> np.ndarray:
        """The budget actually spent per timestamp (0 where approximated or withheld)."""
        return self._budgets("epsilon_t", self.spent)

    @property
    def planned_epsilon_t(self) -> np.ndarray:
        """The scheme's planned budget per timestamp."""
        return self._budgets("planned_epsilon_t", self.planned)

    def _budgets(self, name: str, form: np.ndarray | ShareAllocation) -> np.ndarray:
        """``form`` as an array (built once from the compact form)."""
        if isinstance(form, np.ndarray):
            return form
        if name not in self.arrays:
            self.arrays[name] = form.array()
        return self.arrays[name]

    @property
    def published(self) -> np.ndarray:
        """True where a fresh noisy value was released from the raw data (ε_t > 0)."""
        if "published" not in self.arrays:
            self.arrays["published"] = _compact(self.spent).fresh()
        return self.arrays["published"]

    @published.setter
    def published(self, value: np.ndarray) -> None:
        self.arrays["published"] = value

    @property
    def expected_errors(self) -> np.ndarray:
        """The mechanism's expected error at each publication's ε_t, NaN elsewhere."""
        if "expected_errors" not in self.arrays:
            if self.law is None:
                raise ValueError("a compact release needs its mechanism for expected errors")
            alloc = _compact(self.spent)
            idx = None if not alloc.zero_at.size else np.flatnonzero(self.published)
            eps = self.epsilon_t
            self.arrays["expected_errors"] = _expected_errors(
                self.law, eps, idx, eps if idx is None else eps[idx])
        return self.arrays["expected_errors"]

    @expected_errors.setter
    def expected_errors(self, value: np.ndarray) -> None:
        self.arrays["expected_errors"] = value

    @property
    def renoised(self) -> np.ndarray | None:
        """Where fresh post-processing noise of the regular law was added to a repeated
        value (approximations, every fix of a stay; :mod:`lmdk_core.engine.repeat_noise`);
        None only on a release that was not renoised (an inner step)."""
        if "renoised" not in self.arrays:
            if self.renoised_at is None:
                return None
            mask = np.zeros(self.original.shape[0], dtype=bool)
            mask[self.renoised_at] = True
            self.arrays["renoised"] = mask
        return self.arrays["renoised"]

    @renoised.setter
    def renoised(self, value: np.ndarray) -> None:
        self.arrays["renoised"] = value

    @property
    def withheld(self) -> np.ndarray:
        """Timestamps where nothing could be released (approximation before any release)."""
        r = self.released
        return np.isnan(r) if r.ndim == 1 else np.isnan(r).any(axis=1)

    @property
    def measured_mae(self) -> float:
        """The measured MAE, ``mean |o_t − x_t|`` over the released timestamps (NaN when
        none): :meth:`metrics`' ``mae`` alone (the sweep of Compare reads only it)."""
        return _error_summary(self.errors[~np.isnan(self.errors)], mae_only=True)["mae"]

    def metrics(self) -> dict[str, float]:
        """Measured MAE/RMSE (over released timestamps), the expected error of the noisy
        publications, and counts of published / approximated / withheld timestamps."""
        pub = self.published
        return {
            **_error_summary(self.errors[~np.isnan(self.errors)]),
            "mae_published": float(self.errors[pub].mean()) if pub.any() else float("nan"),
            "expected_mae_published": (
                float(np.nanmean(self.expected_errors[pub])) if pub.any() else float("nan")
            ),
            "n_published": int(pub.sum()),
            "n_approximated": int((~pub & ~self.withheld).sum()),
            "n_withheld": int(self.withheld.sum()),
        }


def _compact(form: np.ndarray | ShareAllocation) -> ShareAllocation:
    """``form`` as a compact allocation (a release without the array it derives from
    carries the compact form)."""
    if not isinstance(form, ShareAllocation):
        raise ValueError("this attribute of the release is built from a compact allocation")
    return form


def _error_summary(e: np.ndarray, mae_only: bool = False) -> dict[str, float]:
    """MAE, RMSE, median, 95th percentile and maximum of the errors ``e`` (NaN for none;
    ``mae_only``: the MAE alone)."""
    if not e.size:
        return dict.fromkeys(("mae",) if mae_only else
                             ("mae", "rmse", "median_error", "p95_error", "max_error"),
                             float("nan"))
    if mae_only:
        return {"mae": float(e.mean())}
    return {"mae": float(e.mean()), "rmse": float(np.sqrt(np.mean(e**2))),
            "median_error": float(np.median(e)), "p95_error": float(np.percentile(e, 95)),
            "max_error": float(e.max())}


def numeric_mechanism(name: str, *, sensitivity: float = 1.0,
                      noise: str = "fast") -> Laplace | Geometric:
    """The series mechanism called ``name`` ('laplace' or 'geometric'), with numpy's
    samplers (``noise="fast"``) or the exact ones (``noise="exact"``: the
    mechanism's :meth:`~lmdk_core.mechanisms.base.Mechanism.exact`)."""
    key = str(name).strip().lower()
    if key not in NUMERIC_MECHANISMS:
        raise InputError(
            f"unknown mechanism {name!r} for a series; choose laplace or geometric"
        )
    if noise not in NOISE_CHOICES:
        raise InputError(f"unknown noise sampler {noise!r}; choose exact or fast")
    mech = NUMERIC_MECHANISMS[key](sensitivity)
    return mech.exact() if noise == "exact" else mech


def _hold(outs: np.ndarray, published: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The released values: ``outs[k]`` (the publication at ``idx[k]``) from ``idx[k]`` to
    the next publication, NaN before the first. One pass over the series (a running
    count of publications used as an index), no mask or copy of the series; with few
    unpublished timestamps (Skip) only those are filled (:func:`_fill_holes`)."""
    outs = np.asarray(outs, dtype=float)
    T = published.size
    if not idx.size:
        return np.full((T,) + outs.shape[1:], np.nan)
    if T - idx.size <= idx.size // 8:  # few repeated timestamps (Skip): fill only those
        return _fill_holes(outs, published, idx)
    if idx[0] == 0:  # nothing withheld (always so for Adaptive)
        which = np.cumsum(published, dtype=np.intp)
        which -= 1
        return outs.take(which, axis=0)
    # publication count so far: 0 before the first, indexing a leading NaN row
    lead = np.full((1,) + outs.shape[1:], np.nan)
    return np.concatenate([lead, outs]).take(np.cumsum(published, dtype=np.intp), axis=0)


def _fill_holes(outs: np.ndarray, published: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """:func:`_hold` by scattering the publications and filling each unpublished
    timestamp with the last publication before it (NaN before the first): the same
    values, one buffer of the series and work on the holes only (no running count)."""
    released = np.empty((published.size,) + outs.shape[1:])
    released[idx] = outs
    holes = np.flatnonzero(~published)
    before = np.searchsorted(idx, holes) - 1  # the publication last before each hole
    filled = outs[np.maximum(before, 0)]
    filled[before < 0] = np.nan
    released[holes] = filled
    return released


def _adaptive(
    values: np.ndarray,
    landmarks: np.ndarray,
    planned: np.ndarray,
    mech: Mechanism,
    gen: np.random.Generator,
    settings: AdaptiveSettings,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Adaptive release: released values, spent budgets, published flags (the
    reference's outputs, :func:`lmdk_core.adaptive.reference.adaptive_reference`)."""
    return _adaptive_release(values, landmarks, planned, mech, gen, settings)[:3]


def _adaptive_release(
    values: np.ndarray,
    landmarks: np.ndarray,
    planned: np.ndarray,
    mech: Mechanism,
    gen: np.random.Generator,
    settings: AdaptiveSettings,
):
    """The Adaptive release as ``(released, spent, published, pub_t, pub_eps, errors)``
    by the fastest variant that applies (:func:`lmdk_core.adaptive.adaptive_run`);
    ``errors`` is None unless the variant measured them (the caller then does)."""
    T = planned.size
    if T and planned.min() != planned.max():
        raise ValueError("the Adaptive release starts from a constant (Uniform) budget")
    is_lm = np.zeros(T, dtype=bool)
    is_lm[landmarks] = True
    start = planned[0] if T else 0.0
    kind, result = adaptive_run(values, is_lm, start=start, mech=mech, gen=gen, settings=settings)
    if kind == "release":
        return result
    return (*_assemble_parts(values.shape, T, *result), None)


def _assemble_parts(shape: tuple, T: int, pub_t, pub_out, pub_eps):
    """Released values (the last publication repeated), spent budgets, published flags,
    and the published timestamps and their budgets as arrays.

    ``pub_t`` are the published timestamps in increasing order (the first is 0)."""
    published = np.zeros(T, dtype=bool)
    eps = np.zeros(T)
    idx = np.asarray(pub_t, dtype=np.intp)
    pub_eps = np.asarray(pub_eps, dtype=float)
    if not idx.size:
        return np.full(shape, np.nan), eps, published, idx, pub_eps
    published[idx] = True
    eps[idx] = pub_eps
    outs = np.asarray(pub_out, dtype=float).reshape((idx.size,) + tuple(shape[1:]))
    return _hold(outs, published, idx), eps, published, idx, pub_eps


def release(
    values: ArrayLike,
    landmarks: Iterable[int] | None,
    *,
    epsilon: float,
    scheme: str,
    mechanism: Mechanism,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
    stays: Iterable[tuple[int, int]] | None = None,
    max_landmarks: int | None = None,
) -> Release:
    """Release ``values`` (T,) or trajectory rows (T, 2) under ``scheme`` with ``mechanism``.

    The data come first and by position; every setting is keyword-only (``seed`` and
    ``window`` are both whole numbers: a swap must not pass silently). The settings
    travel on as one :class:`~lmdk_core.engine.scheme_settings.SchemeSettings`.

    Parameters
    ----------
    values : array_like
        The series (T,) or trajectory rows (T, 2) ``[lat, lon]``.
    landmarks : iterable of int or None
        The landmark timestamps.
    epsilon : float
        The total budget ε.
    scheme : str
        A scheme of :data:`lmdk_core.engine.allocation.SCHEMES` (Katsomallos et al.,
        CODASPY 2022).
    mechanism : Mechanism
        The noise mechanism (its law, sensitivity or radius, and sampler).
    seed : int or numpy.random.Generator, optional
        The noise seed (None: fresh OS entropy).
    window : int, optional
        w of the ``w-event`` scheme.
    adaptive : AdaptiveSettings, optional
        Adaptive's sampling-rate settings (None: the defaults).
    stays : iterable of (int, int), optional
        A trajectory's stays or a series' runs: inclusive ranges ``(start, end)``, each
        protected as one landmark event (:func:`_release_stays`).
    max_landmarks : int, optional
        The declared bound k on landmark events (Uniform spends ε/(k+1); more than k
        events are refused; see :func:`lmdk_core.engine.allocation.allocate`).

    Returns
    -------
    Release
        The release, its allocation checked by the verifier (told k).
    """
    x = np.asarray(values, dtype=float)
    if x.ndim not in (1, 2) or x.shape[0] == 0:
        raise InputError("there is nothing to release: the data are empty")
    T = x.shape[0]
    grp = (check_groups(stays, T, "run" if x.ndim == 1 else "stay") if stays is not None
           else ())
    settings = SchemeSettings(epsilon, scheme, window, adaptive, max_landmarks)
    if grp:
        return _release_stays(x, landmarks, grp, settings, mechanism, seed)
    gen = as_generator(seed)
    return _release_held(x, landmarks, settings, mechanism, gen, renoise=True)


def _release_held(x: np.ndarray, landmarks, settings: SchemeSettings, mechanism: Mechanism,
                  gen: np.random.Generator, *, renoise: bool = False) -> Release:
    """The release, every approximation showing the last publication plus fresh noise
    of the regular law with ``renoise`` (:func:`_renoised`), or holding it as it is
    without (the scheme's own output, which :func:`_release_stays` expands).

    A static scheme keeps its plan in compact form (one share, the timestamps without
    one: :func:`~lmdk_core.engine.allocation.planned_shares`); the verifier checks that
    form exactly and the release builds no array of budgets. With numpy's Laplace noise
    the publications and the repeats' fresh noise are one draw in one buffer
    (:func:`_laplace_release`)."""
    T = x.shape[0]
    eps_total = check_epsilon(settings.epsilon)
    max_landmarks = settings.max_landmarks
    lm = check_landmarks(landmarks, T)
    info = scheme_info(settings.scheme)
    plan = planned_shares(info.key, T, lm, eps_total, window=settings.window,
                          max_landmarks=max_landmarks)
    # every planned share must lie in the mechanism's usable range (a share that
    # underflowed to 0, or one whose noise scale overflows, is refused with the range);
    # Adaptive only raises budgets, so checking its Uniform start covers its release.
    # The checks read the smallest and largest share only: the one share, if any
    # timestamp gets it (Skip with every timestamp a landmark publishes nothing).
    mechanism.check_budget(np.full(2, plan.share) if plan.first_fresh < T else np.zeros(0))

    def finished(released: np.ndarray, verdict: Verdict, errors: np.ndarray,
                 spent: np.ndarray | ShareAllocation, planned: np.ndarray | ShareAllocation,
                 arrays: dict[str, np.ndarray]) -> Release:
        return Release(original=x, released=released, verdict=verdict, scheme=info.key,
                       mechanism=mechanism.name, epsilon=eps_total, landmarks=lm,
                       errors=errors, spent=spent, planned=planned, noise=mechanism.noise,
                       max_landmarks=verdict.max_landmarks, law=mechanism, arrays=arrays)

    if info.key == "adaptive":
        planned = plan.array()
        released, spent, published, idx, pub_eps, errors = _adaptive_release(
            x, lm, planned, mechanism, gen, settings.adaptive_or_default())
        verdict = verify(spent, lm, eps_total, max_landmarks=max_landmarks)
        if errors is None:
            errors = _measure_errors(mechanism, released, x)
        rel = finished(released, verdict, errors, spent, planned,
                       {"published": published,
                        "expected_errors": _expected_errors(mechanism, spent, idx, pub_eps)})
        return _renoised(rel, mechanism, gen, ~published) if renoise else rel
    share = regular_share(plan, lm)
    # the repeated timestamps that show a value: those after the first publication
    shown = plan.zero_at[min(plan.first_fresh, plan.zero_at.size):]
    arrays: dict[str, np.ndarray] = {}
    # numpy's Laplace draws (a capability, not the class: tests/engine/
    # test_mechanism_contract.py); cast only tells the type checker what that means
    if renoise and _one_laplace_draw(mechanism, x, plan, share, shown):
        released = _laplace_release(x, plan, cast(Laplace, mechanism), gen)
        renoised_now = True
    else:
        released, _, arrays["published"], _, _ = _planned_release(x, plan.array(), mechanism,
                                                                   gen)
        renoised_now = False
    verdict = verify(plan, lm, eps_total, max_landmarks=max_landmarks)
    errors = _measure_errors(mechanism, released, x)
    rel = finished(released, verdict, errors, plan, plan, arrays)
    if not renoise:
        return rel
    rel.renoise_epsilon = share
    rel.renoised_at = shown
    if shown.size and not renoised_now:
        rel.released, rel.errors = _renoise_shown(rel.released, x, shown, mechanism, share, gen,
                                                  rel.errors)
    return rel


def _one_laplace_draw(mechanism: Mechanism, x: np.ndarray, plan: ShareAllocation,
                      share: float, shown: np.ndarray) -> bool:
    """Whether :func:`_laplace_release` applies: numpy's Laplace noise (not the exact
    sampler) on a series, a timestamp published, and the repeats' noise of the
    publications' law."""
    return (mechanism.numpy_draws == "laplace" and x.ndim == 1 and plan.first_fresh < plan.length
            and (not shown.size or share == plan.share))


def _laplace_release(x: np.ndarray, plan: ShareAllocation, mechanism: Laplace,
                     gen: np.random.Generator) -> np.ndarray:
    """A static scheme's renoised release of a series with numpy's Laplace noise, in one
    buffer: ``x_t + Lap(Δf/s)`` at every timestamp outside Z, and at every timestamp of Z
    after the first publication the last publication before it plus fresh
    ``Lap(Δf/s)`` (the regular law: Skip's ε; :mod:`lmdk_core.engine.repeat_noise`), NaN
    before the first publication.

    The same floats as publishing then renoising (:func:`_planned_release`,
    :func:`_renoise_shown`; tests/engine/test_release_buffers.py): those draw the n
    publications' noise, then the repeats' noise in increasing t, at the same scale; one
    call draws that sequence (:meth:`Laplace.noise_draws`). The publications' draws are
    moved to their timestamps in the draws' own buffer (:func:`_spread`), ``x`` is added
    in place, and the repeats are written over."""
    T, z, f0 = plan.length, plan.zero_at, plan.first_fresh
    n = T - z.size
    draws = mechanism.noise_draws(plan.share, T - f0, gen)
    with np.errstate(over="ignore"):
        if not z.size:  # every timestamp published (Uniform, event, user, w-event)
            draws += x
            return check_finite_release(draws)
        again = draws[n:].copy()  # the repeats' fresh noise, in increasing t
        out = _spread(draws, n, plan)
        out += x  # right at every publication; the repeats are written over below
        again += out[_last_fresh_before(z)[f0:]]
    out[z[f0:]] = again
    out[:f0] = np.nan
    check_finite_release(out[f0:])
    return out


def _spread(draws: np.ndarray, n: int, plan: ShareAllocation) -> np.ndarray:
    """An array of the series whose timestamps outside ``plan.zero_at`` hold ``draws[:n]``
    in order (the others unset). With few such timestamps, in ``draws`` itself: each
    block between two of them moves right by the number before it, the last block
    first (numpy copies an overlapping slice correctly); otherwise a fresh buffer filled
    through the mask of the publications."""
    T, z = plan.length, plan.zero_at
    if draws.size == T and z.size <= T // 512:
        ends = z.tolist() + [T]
        for j in range(z.size, 0, -1):
            a, b = ends[j - 1] + 1, ends[j]
            if b > a:
                draws[a:b] = draws[a - j:b - j]
        return draws
    out = np.empty(T)
    out[plan.fresh()] = draws[:n]
    return out


def _last_fresh_before(z: np.ndarray) -> np.ndarray:
    """For each timestamp of ``z`` (sorted, unique), the last timestamp before it outside
    ``z``: the start of its run of consecutive timestamps, minus one (−1 for the run
    starting at 0)."""
    new_run = np.ones(z.size, dtype=bool)
    new_run[1:] = np.diff(z) != 1
    return z[new_run][np.cumsum(new_run) - 1] - 1


def _planned_release(x: np.ndarray, planned: np.ndarray, mechanism: Mechanism,
                     gen: np.random.Generator):
    """A release spending the planned budgets as they are: ``(released, spent,
    published, idx, pub_eps)``, a fresh value where ε_t > 0 and the last one repeated
    elsewhere; ``idx`` is None when every timestamp is fresh (no gathers)."""
    published = planned > 0
    if published.all():  # every timestamp fresh: no gathers, nothing to repeat
        spent = planned.copy()
        released = np.asarray(mechanism.perturb(x, spent, gen), dtype=float)
        return released.reshape(x.shape), spent, published, None, spent
    idx = np.flatnonzero(published)
    spent = np.where(published, planned, 0.0)
    pub_eps = spent[idx]
    outs = mechanism.perturb(x[idx], pub_eps, gen) if idx.size else x[idx]
    return _hold(outs, published, idx), spent, published, idx, pub_eps


def _expected_errors(mechanism: Mechanism, spent: np.ndarray, idx: np.ndarray | None,
                     pub_eps: np.ndarray) -> np.ndarray:
    """The mechanism's expected error at every published timestamp's ε_t, NaN elsewhere
    (``idx`` None: every timestamp published)."""
    if idx is None:
        return np.asarray(mechanism.expected_error(spent), dtype=float)
    expected = np.full(spent.size, np.nan)
    if idx.size:
        expected[idx] = mechanism.expected_error(pub_eps)
    return expected


def _release_stays(x: np.ndarray, landmarks, stays: tuple[tuple[int, int], ...],
                   settings: SchemeSettings, mechanism: Mechanism,
                   seed: int | np.random.Generator | None) -> Release:
    """A trajectory release with every stay protected as one landmark event
    (docs/stays.md), or a series release with every run of readings protected so
    (docs/series-events.md).

    The stays (runs) are condensed (:func:`lmdk_core.engine.stay_events.condense`): each
    becomes one landmark timestamp holding its centroid (a run: its level,
    :func:`lmdk_core.engine.run_events.run_level`); the other landmarks and the regular
    timestamps stay as they are. The scheme releases the condensed trajectory as usual;
    then every fix of a stay gets its stay's released point plus fresh noise of the
    regular law (post-processing, ε_t = 0; :func:`_renoised`) and the stay's budget sits
    at its first fix. The allocation on the full timeline is
    verified in the grouped form of the theorem, ``Σ_{g ∩ (L∪{t}) ≠ ∅} ε_g ≤ ε``.
    """
    if (x.ndim == 2) != (mechanism.data_kind == "location"):
        raise InputError("stays are ranges of a track's fixes (Planar Laplace), runs ranges "
                         "of a series' readings (Laplace, Geometric)")
    T = x.shape[0]
    eps_total = check_epsilon(settings.epsilon)
    lm = np.union1d(check_landmarks(landmarks, T), stay_members(stays)).astype(int)
    cond = condense(T, stays)
    gen = as_generator(seed)
    rc = _release_held(condensed_points(x, cond, whole=mechanism.data_kind == "count"),
                       np.unique(cond.index[lm]), settings, mechanism, gen)
    idx = cond.index
    released = rc.released[idx]
    spent = np.zeros(T)
    spent[cond.rep] = rc.epsilon_t
    planned = np.zeros(T)
    planned[cond.rep] = rc.planned_epsilon_t
    published = np.zeros(T, dtype=bool)
    published[cond.rep] = rc.published
    expected = np.full(T, np.nan)
    expected[cond.rep] = rc.expected_errors
    held = Release(
        original=x,
        released=released,
        verdict=verify(spent, lm, eps_total, groups=stays, max_landmarks=settings.max_landmarks),
        scheme=rc.scheme,
        mechanism=rc.mechanism,
        epsilon=eps_total,
        landmarks=lm,
        errors=_measure_errors(mechanism, released, x),
        spent=spent,
        planned=planned,
        noise=rc.noise,
        stays=stays,
        max_landmarks=rc.max_landmarks,
        law=mechanism,
        arrays={"published": published, "expected_errors": expected},
    )
    repeated = ~published
    repeated[stay_members(stays)] = True
    return _renoised(held, mechanism, gen, repeated)


def _renoised(rel: Release, mechanism: Mechanism, gen: np.random.Generator,
              repeated: np.ndarray) -> Release:
    """``rel`` with fresh post-processing noise of the regular law on every ``repeated``
    timestamp that shows a value (approximations, every fix of a stay;
    :func:`lmdk_core.engine.repeat_noise.renoise`): no runs of identical values, no
    budget (ε_t unchanged), errors measured again."""
    share = regular_share(rel.planned_epsilon_t, rel.landmarks)
    shown = np.asarray(repeated, dtype=bool) & ~rel.withheld
    rel.renoised = shown
    rel.renoise_epsilon = share
    if shown.any():
        rel.released, rel.errors = _renoise_shown(rel.released, rel.original, shown,
                                                  mechanism, share, gen, rel.errors)
    return rel


def _renoise_shown(released: np.ndarray, x: np.ndarray, shown: np.ndarray,
                   mechanism: Mechanism, share: float, gen: np.random.Generator,
                   errors: np.ndarray | None):
    """``(released, errors)`` after fresh noise of the regular law at the ``shown``
    repeated timestamps (a mask, or their indices in increasing order; ``released``, a
    fresh array of the release, changed in place), the errors measured again there
    (``errors`` given: changed in place at ``shown`` only, the distance being element by
    element; None: measured everywhere)."""
    idx = shown if shown.dtype != bool else np.flatnonzero(shown)
    out = renoise_at(released, idx, mechanism, share, gen)
    if errors is None:
        return out, _measure_errors(mechanism, out, x)
    errors[idx] = _measure_errors(mechanism, out[idx], x[idx])
    return out, errors


#: the most bytes of allocations :func:`adaptive_release_errors` keeps verdicts for
_VERDICT_MEMO_BYTES = 8 << 20


def adaptive_release_errors(x: np.ndarray, landmarks, *, epsilon: float,
                            mechanism: Mechanism,
                            generators: Iterable[np.random.Generator]
                            ) -> Iterator[tuple[np.ndarray, bool]]:
    """For each generator, one whole Adaptive release of ``x`` (a series (T,) or
    trajectory rows (T, 2), no stays or runs): its errors ``d(o_t, x_t)`` (NaN where
    withheld) and whether :func:`~lmdk_core.engine.verifier.verify` found its spent
    allocation landmark-private — the same floats as ``release(x, landmarks,
    epsilon=epsilon, scheme="adaptive", mechanism=mechanism, seed=gen)`` gives for each
    (tests/engine/test_adaptive_simulations.py), with the inputs, the Uniform start and
    its budget check done once instead of per release (Monte Carlo accuracy simulates
    thousands of releases;
    :mod:`lmdk_core.decision.adaptive_accuracy`). Every release's spent allocation still
    goes through the verifier."""
    T = x.shape[0]
    eps_total = check_epsilon(epsilon)
    lm = check_landmarks(landmarks, T)
    planned = allocate("adaptive", T, lm, eps_total)
    mechanism.check_budget(_fresh_range(planned, None))
    settings = AdaptiveSettings()
    share = regular_share(planned, lm)
    verdicts: dict[bytes, bool] = {}  # verify is a function of the allocation: once each
    for gen in generators:
        released, spent, published, _, _, errors = _adaptive_release(
            x, lm, planned, mechanism, gen, settings)
        key = spent.tobytes()
        if key not in verdicts:
            if len(verdicts) * len(key) > _VERDICT_MEMO_BYTES:
                verdicts.clear()  # long releases rarely repeat a pattern: bound the memo
            verdicts[key] = bool(verify(spent, lm, eps_total).private)
        private = verdicts[key]
        withheld = np.isnan(released) if released.ndim == 1 else np.isnan(released).any(
            axis=1)
        shown = ~published & ~withheld
        if shown.any():
            released, errors = _renoise_shown(released, x, shown, mechanism, share, gen,
                                              errors)
        elif errors is None:
            errors = _measure_errors(mechanism, released, x)
        yield errors, private


def _measure_errors(mechanism, released: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Each timestamp's error ``d(released_t, x_t)``, NaN where withheld (nothing released
    yet). The distance of a NaN is NaN, so a series needs no mask; trajectory rows are
    masked only when some are withheld."""
    if x.ndim == 1:
        return np.asarray(mechanism.distance(released, x), dtype=float)
    withheld = np.isnan(released).any(axis=1)
    if withheld.any():
        errors = np.full(x.shape[0], np.nan)
        if not withheld.all():
            errors[~withheld] = mechanism.distance(released[~withheld], x[~withheld])
        return errors
    return np.asarray(mechanism.distance(released, x), dtype=float)


def _fresh_range(planned: np.ndarray, skipped: np.ndarray | None) -> np.ndarray:
    """The smallest and largest planned share outside ``skipped`` (the landmarks Skip
    does not publish), as a 2-element array; empty when every timestamp is skipped.

    Every mechanism's budget check depends on these two only (the smallest against the
    usable range, finiteness and sign), so it is the check of the whole allocation."""
    if skipped is None or not skipped.size:
        return np.array([planned.min(), planned.max()])
    fresh = np.ones(planned.size, dtype=bool)
    fresh[skipped] = False
    if not fresh.any():
        return np.zeros(0)
    return np.array([planned.min(where=fresh, initial=np.inf),
                     planned.max(where=fresh, initial=-np.inf)])


def release_series(
    values: ArrayLike,
    landmarks: Iterable[int] | None,
    *,
    epsilon: float,
    scheme: str,
    mechanism: str = "laplace",
    sensitivity: float = 1.0,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
    noise: str = "fast",
    max_landmarks: int | None = None,
    runs: Iterable[tuple[int, int]] | None = None,
) -> Release:
    """Release a numeric series with the Laplace or Geometric mechanism, its noise drawn
    by numpy (``noise="fast"``, reproducible from ``seed``) or by the exact sampler
    (``noise="exact"``, OS entropy: ``seed`` then only drives Adaptive's sampling).

    Every published value is ``x_t + Lap(Δf/ε_t)`` (Dwork et al., TCC 2006) under the
    budgets of ``scheme`` (Katsomallos et al., CODASPY 2022); the allocation actually
    spent is checked by :func:`~lmdk_core.engine.verifier.verify` (``Release.verdict``).

    Parameters
    ----------
    values : array_like
        The series, one finite number per timestamp.
    landmarks : iterable of int or None
        The landmark timestamps.
    epsilon : float
        The total budget ε.
    scheme : str
        A scheme of :data:`lmdk_core.engine.allocation.SCHEMES`.
    mechanism : str
        ``laplace`` or ``geometric`` (whole-number data).
    sensitivity : float
        Δf: the most one timestamp's value can change.
    seed : int or numpy.random.Generator, optional
        The noise seed (None: fresh OS entropy).
    window : int, optional
        w of the ``w-event`` scheme.
    adaptive : AdaptiveSettings, optional
        Adaptive's sampling and skipping parameters.
    noise : str
        ``fast`` (numpy) or ``exact`` (:mod:`lmdk_core.mechanisms.exact_noise`).
    max_landmarks : int, optional
        The declared bound k on landmark events (public): Uniform spends ε/(k+1)
        whatever |L| ≤ k is; more landmark events than k are refused (a run counts once).
    runs : iterable of (int, int), optional
        Runs of consecutive readings (inclusive ranges), each protected as ONE landmark
        event: one release of the run's level (its mean), every reading of the run
        publishes it plus fresh noise of the regular law (docs/series-events.md).

    Returns
    -------
    Release
        Released values, the budgets spent, what was published and the verdict.

    Examples
    --------
    >>> r = release_series([3.0, 4.0, 5.0, 4.0, 3.0], [2], epsilon=1.0, scheme="skip", seed=7)
    >>> r.epsilon_t.tolist(), r.verdict.private
    ([1.0, 1.0, 0.0, 1.0, 1.0], True)
    >>> r.renoised.tolist()  # Skip's landmark: the last release plus fresh noise (no budget)
    [False, False, True, False, False]
    """
    try:
        x = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError("the series values must be numbers") from None
    if x.ndim != 1:
        raise InputError("a series is one column of numbers")
    if x.size and not (np.isfinite(x.min()) and np.isfinite(x.max())):  # NaN propagates
        bad = int(np.flatnonzero(~np.isfinite(x))[0])
        raise InputError(f"the series has a missing or infinite value at t={bad}")
    mech = numeric_mechanism(mechanism, sensitivity=sensitivity, noise=noise)
    mech.check_values(x)
    return release(x, landmarks, epsilon=epsilon, scheme=scheme, mechanism=mech, seed=seed,
                   window=window, adaptive=adaptive, stays=runs, max_landmarks=max_landmarks)


def release_trajectory(
    lat: ArrayLike,
    lon: ArrayLike,
    landmarks: Iterable[int] | None,
    *,
    epsilon: float,
    radius: float,
    scheme: str,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
    stays: Iterable[tuple[int, int]] | None = None,
    max_landmarks: int | None = None,
    noise: str = "fast",
    region: PlanarRegion | None = None,
) -> Release:
    """Release a trajectory with Planar Laplace (protection radius ``radius`` metres);
    errors are displacements in metres.

    Every published fix is ``x_t`` displaced by Planar Laplace noise of scale r/ε_t
    (Andrés et al., CCS 2013) under the budgets of ``scheme`` (Katsomallos et al.,
    CODASPY 2022); the allocation spent is checked by the verifier.

    Parameters
    ----------
    lat, lon : array_like
        The fixes' latitudes and longitudes (degrees).
    landmarks : iterable of int or None
        The landmark timestamps (fix indices).
    epsilon : float
        The total budget ε.
    radius : float
        r, the protection radius in metres.
    scheme : str
        A scheme of :data:`lmdk_core.engine.allocation.SCHEMES`.
    seed : int or numpy.random.Generator, optional
        The noise seed (None: fresh OS entropy).
    window : int, optional
        w of the ``w-event`` scheme.
    adaptive : AdaptiveSettings, optional
        Adaptive's sampling-rate settings.
    stays : iterable of (int, int), optional
        Ranges of fixes protected as one landmark event each (docs/stays.md).
    max_landmarks : int, optional
        The declared bound k on landmark events (a stay counts once).
    noise : str
        ``fast``: numpy's floating-point draws (reproducible from ``seed``, exploration);
        ``exact``: the exact sampler on the grid of the declared ``region``
        (:mod:`lmdk_core.mechanisms.exact_planar`, Andrés et al., CCS 2013, §5; OS
        entropy: ``seed`` then only drives Adaptive's sampling).
    region : PlanarRegion, optional
        The declared region of an exact release.

    Returns
    -------
    Release
        Released fixes, the budgets spent, what was published and the verdict.
    """
    la, lo = check_coordinates(lat, lon)
    if noise not in NOISE_CHOICES:
        raise InputError(f"unknown noise sampler {noise!r}; choose exact or fast")
    mech = ExactPlanarLaplace(radius, region) if noise == "exact" else PlanarLaplace(radius)
    points = np.column_stack([la, lo])
    mech.check_values(points)  # an exact release refuses locations outside its region
    return release(points, landmarks, epsilon=epsilon, scheme=scheme, mechanism=mech, seed=seed,
                   window=window, adaptive=adaptive, stays=stays, max_landmarks=max_landmarks)
