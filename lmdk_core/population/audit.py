"""The CONFIDENTIAL per-user audit of a population release.

For every user: the number of timestamps and of landmarks, the verdict of the one
landmark-privacy verifier (:func:`lmdk_core.engine.verifier.verify`: private or not, the worst
timestamp and its total ``Σ_{i∈L∪{t}} ε_i``; Katsomallos et al., CODASPY 2022), the
largest landmark TPL under the configuration's correlation model (Cao et al., ICDE 2017
/ TKDE 2018; the model of :func:`lmdk_core.leakage.model.correlation_from_spec`, as the
privacy report uses it, built from that user's data when the model is estimated), and
the measured error (MAE and RMSE over the released timestamps; metres for tracks) with
the counts of published, approximated and withheld timestamps, and the utility line of
:mod:`lmdk_core.decision.utility`: the typical expected error at the user's allocation, the
user's own data scale (interquartile range of the series, extent of the track) and the
level (useful / marginal / not useful).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from lmdk_core.engine.verifier import verify

__all__ = ["AUDIT_COLUMNS", "LeakageSettings", "UserTrace", "landmark_tpls", "user_audit"]

AUDIT_COLUMNS = ["user", "n_timestamps", "n_landmarks", "landmark_private", "worst_timestamp",
                 "worst_total", "max_landmark_tpl", "mae", "rmse", "n_published",
                 "n_approximated", "n_withheld", "expected_error", "data_scale", "utility",
                 "leakage_note"]


@dataclass(frozen=True)
class LeakageSettings:
    """The correlation model of the audit's landmark TPL: ``spec`` as in
    ``extra.correlation`` (None = the default model), ``strength`` the configuration's
    ``correlation_strength``, ``cell_size_m`` the grid default; ``enabled`` False skips
    the landmark TPL (column left empty)."""

    spec: dict | None = None
    strength: float = 0.1
    cell_size_m: float = 250.0
    enabled: bool = True


@dataclass(frozen=True)
class UserTrace:
    """One user's data and release, as the audit reads them (one row per timestamp).

    ``time`` the timestamps; ``original`` the raw values (T,) or ``[lat, lon]`` rows
    (T, 2); ``released`` the released values (same shape, NaN where withheld);
    ``epsilon_t`` the budget spent at each timestamp; ``published`` where a fresh noisy
    value was released; ``landmarks`` the landmark timestamps (indices).
    """

    time: np.ndarray
    original: np.ndarray
    released: np.ndarray
    epsilon_t: np.ndarray
    published: np.ndarray
    landmarks: np.ndarray


_LOSS_CACHE: dict[str, tuple] = {}


def _losses(settings: LeakageSettings, time, data, kind: str):
    """``((backward, forward) loss functions, "")``, or ``(None, why)`` when the model
    has no matrices (``why`` empty when the user chose no correlation model, else the
    model's reason, e.g. more grid cells than the leakage handles). Data-independent
    models (smoothed, matrix) are built once per process."""
    from lmdk_core.leakage.model import correlation_from_spec

    model_key = _model_key(settings, data)
    shared = model_key in ("smoothed", "matrix", "none")
    key = json.dumps([settings.spec, settings.strength, data.ndim], sort_keys=True,
                     default=str)
    if shared and key in _LOSS_CACHE:
        return _LOSS_CACHE[key]
    model = correlation_from_spec(settings.spec, _user_data(time, data, kind),
                                  default_strength=settings.strength,
                                  default_cell_size=settings.cell_size_m)
    out: tuple[tuple | None, str] = (None, "" if model_key == "none" else (model.note or ""))
    if model.backward is not None and model.forward is not None:
        out = (_loss_pair(model), "")
    if shared:
        _LOSS_CACHE[key] = out
    return out


def _model_key(settings: LeakageSettings, data: np.ndarray) -> str:
    """The name of the correlation model the audit uses for ``data``."""
    return str((settings.spec or {}).get("model", "grid" if data.ndim == 2
                                         else "estimated")).strip().lower()


def _losses_many(settings: LeakageSettings, users: list[tuple]) -> list[tuple]:
    """:func:`_losses` of every ``(time, original, kind, …)`` of ``users``, the same loss
    functions bit for bit: the models estimated from each user's data (a series' default
    binned model for all of them together, :func:`_series_pairs`), their loss functions
    built together (:func:`lmdk_core.leakage.loss.loss_functions`)."""
    from lmdk_core.leakage.loss import loss_functions
    from lmdk_core.leakage.model import correlation_from_spec

    out: list = []
    fresh: list[tuple[int, list]] = []  # (position, its matrices) estimated from data
    series: list[tuple[int, object]] = []  # (position, Series) of the estimated model
    for time, original, kind, *_ in users:
        model_key = _model_key(settings, original)
        if model_key in ("smoothed", "matrix", "none"):
            out.append(_losses(settings, time, original, kind))
            continue
        data = _user_data(time, original, kind)
        out.append(None)
        if model_key == "estimated" and original.ndim == 1:
            series.append((len(out) - 1, data))
            continue
        model = correlation_from_spec(settings.spec, data,
                                      default_strength=settings.strength,
                                      default_cell_size=settings.cell_size_m)
        if model.backward is None or model.forward is None:
            out[-1] = (None, model.note or "")
            continue
        fresh.append((len(out) - 1, _pair_matrices(model)))
    if series:
        pairs = _series_pairs(settings, [d for _, d in series])
        fresh += [(j, m) for (j, _), m in zip(series, pairs, strict=True)]
        fresh.sort(key=lambda f: f[0])
    built = iter(loss_functions([m for _, ms in fresh for m in ms]))
    for j, ms in fresh:
        lb = next(built)
        lf = lb if len(ms) == 1 else next(built)
        out[j] = ((lb, lf), "")
    return out


def _series_pairs(settings: LeakageSettings, datas: list) -> list[list]:
    """:func:`_pair_matrices` of the estimated correlation model of every series of
    ``datas`` (Cao et al., ICDE 2017: the values cut into bins, the transitions
    counted), the same matrices bit for bit: the first user's model by
    :func:`~lmdk_core.leakage.model.correlation_from_spec` (which checks the
    specification), then the binned matrices of all the others at once
    (:func:`~lmdk_core.leakage.estimation.quantile_transitions_many`) where the
    specification bins by quantiles, each backward matrix as the model chooses it;
    a series that function leaves aside gets its own model."""
    from lmdk_core.leakage.correlation import backward_matrix
    from lmdk_core.leakage.estimation import quantile_transitions_many
    from lmdk_core.leakage.model import correlation_from_spec

    def one(data) -> list:
        return _pair_matrices(correlation_from_spec(
            settings.spec, data, default_strength=settings.strength,
            default_cell_size=settings.cell_size_m))

    first = correlation_from_spec(settings.spec, datas[0], default_strength=settings.strength,
                                  default_cell_size=settings.cell_size_m)
    spec = first.spec or {}
    if len(datas) == 1 or spec.get("binning") != "quantile":
        return [_pair_matrices(first)] + [one(d) for d in datas[1:]]
    how = spec.get("backward")
    out = [_pair_matrices(first)]
    for data, est in zip(datas[1:], quantile_transitions_many(
            [d.values for d in datas[1:]], int(spec["bins"]), float(spec["smoothing"])),
            strict=True):
        if est is None:
            out.append(one(data))
        elif how == "estimated":
            out.append([est.backward, est.forward])
        elif how == "bayes":
            out.append([backward_matrix(est.forward), est.forward])
        else:  # "same": one matrix both ways
            out.append([est.forward])
    return out


def _pair_matrices(model) -> list:
    """The matrices :func:`_loss_pair` builds loss functions of: the backward one, and
    the forward one unless it is the same matrix."""
    return [model.backward] if model.forward is model.backward else [model.backward,
                                                                     model.forward]


def _user_data(time, data: np.ndarray, kind: str):
    """One user's data as a :class:`~lmdk_core.data.track.Track` (``data`` of shape
    (T, 2)) or a :class:`~lmdk_core.data.series.Series`."""
    from lmdk_core.data.series import Series
    from lmdk_core.data.track import Track

    if data.ndim == 2:
        return Track(lat=data[:, 0], lon=data[:, 1], time=time,
                     time_kind="datetime" if kind == "datetime" else "number")
    return Series(time=time, values=data, time_kind=kind)


def _loss_pair(model) -> tuple:
    """The (backward, forward) loss functions of a model with both matrices (one function
    when they are the same matrix)."""
    from lmdk_core.leakage.loss import loss_function

    lb = loss_function(model.backward)
    lf = lb if model.forward is model.backward else loss_function(model.forward)
    return lb, lf


def _landmark_tpl(leakage: LeakageSettings, time, original: np.ndarray, kind: str,
                  epsilon_t: np.ndarray, landmarks) -> tuple[float, str]:
    """``(largest landmark TPL, note)``: NaN with the reason (empty when no model was
    chosen or the leakage is off) when it cannot be computed."""
    if not leakage.enabled:
        return float("nan"), ""
    from lmdk_core.leakage.tpl import max_landmark_tpl

    losses, note = _losses(leakage, time, original, kind)
    if losses is None:
        return float("nan"), note
    return max_landmark_tpl(epsilon_t, landmarks, *losses), note


def landmark_tpls(leakage: LeakageSettings,
                  users: list[tuple[np.ndarray, np.ndarray, str, np.ndarray, object]]
                  ) -> list[tuple[float, str]]:
    """``(largest landmark TPL, note)`` of every ``(time, original, kind, ε_t, landmarks)``
    of ``users``, as one :func:`_landmark_tpl` each, bit for bit: the loss functions per
    user (:func:`_losses`), the maxima of all users at once
    (:func:`lmdk_core.leakage.tpl_many.max_landmark_tpls`; Cao et al., ICDE 2017;
    Katsomallos et al., CODASPY 2022)."""
    if not leakage.enabled:
        return [(float("nan"), "")] * len(users)
    from lmdk_core.leakage.tpl_many import max_landmark_tpls

    out: list[tuple[float, str]] = []
    problems, where = [], []
    for (*_, eps, landmarks), (losses, note) in zip(users, _losses_many(leakage, users),
                                                    strict=True):
        if losses is not None:
            where.append(len(out))
            problems.append((eps, landmarks, *losses))
        out.append((float("nan"), note))
    for j, v in zip(where, max_landmark_tpls(problems) if problems else [], strict=True):
        out[j] = (float(v), out[j][1])
    return out


def _error_sources(original: np.ndarray, n: int, groups,
                   n_landmarks: int) -> tuple[np.ndarray | None, int]:
    """``(sources, events)``: with stays (``groups``) each stay publishes its centroid's
    release, so errors count from there and a stay is one landmark event."""
    if not groups:
        return None, n_landmarks
    from lmdk_core.engine.stay_events import condense, condensed_points

    cond = condense(n, groups)
    return (condensed_points(original, cond)[cond.index],
            n_landmarks - sum(b - a for a, b in cond.stays))


def user_audit(user: object, trace: UserTrace, *, epsilon: float, kind: str, distance,
               leakage: LeakageSettings, mechanism: str = "laplace", scale_unit: float = 1.0,
               groups=None, tpl: tuple[float, str] | None = None) -> dict:
    """One audit row (keys :data:`AUDIT_COLUMNS`) for one user's release ``trace``
    (:class:`UserTrace`) under the total budget ``epsilon``; ``kind`` 'series' or 'track';
    ``distance`` the mechanism's error metric; ``leakage`` the correlation model of the
    landmark TPL; ``mechanism`` and ``scale_unit`` (Δf, or r for Planar Laplace) give its
    expected error; ``groups``: its stays released as one landmark event each, checked in
    the verifier's grouped form (docs/stays.md); ``tpl``: its ``(largest landmark TPL,
    note)`` when already computed (:func:`landmark_tpls`)."""
    from lmdk_core.decision.utility import data_scale, expected_utility

    time, original, released = trace.time, trace.original, trace.released
    epsilon_t, published, landmarks = trace.epsilon_t, trace.published, trace.landmarks

    verdict = verify(epsilon_t, landmarks, epsilon, groups=groups)
    withheld = np.isnan(released) if released.ndim == 1 else np.isnan(released).any(axis=1)
    ok = ~withheld
    err = distance(released[ok], original[ok]) if ok.any() else np.zeros(0)
    tpl_max, tpl_note = tpl if tpl is not None else _landmark_tpl(
        leakage, time, original, kind, epsilon_t, landmarks)
    planar = mechanism == "planar_laplace"
    sources, _ = _error_sources(original, len(epsilon_t), groups, len(landmarks))
    # the verdict's typical error, badge and scale only: expected_utility is
    # utility_verdict without its sentences and the advice's search for a better ε
    # (tests/engine/test_utility.py checks that they agree), a third of its cost per user
    times = time if kind == "track" else None
    scale = data_scale(original, "m" if kind == "track" else "", times)
    typical, label = expected_utility(original, epsilon_t, published, mechanism=mechanism,
                                      sensitivity=None if planar else scale_unit,
                                      radius=scale_unit if planar else None, sources=sources,
                                      scale=scale, times=times)
    return {
        "user": user,
        "n_timestamps": int(epsilon_t.size),
        "n_landmarks": int(len(landmarks)),
        "landmark_private": bool(verdict.private),
        "worst_timestamp": int(verdict.worst_timestamp),
        "worst_total": float(verdict.worst_total),
        "max_landmark_tpl": tpl_max,
        "leakage_note": tpl_note,  # why max_landmark_tpl is empty ('' when computed)
        **_error_stats(err),
        "n_published": int(published.sum()),
        "n_approximated": int((~published & ok).sum()),
        "n_withheld": int(withheld.sum()),
        "expected_error": typical,
        "data_scale": scale.value,
        "utility": label,
    }


def _error_stats(err: np.ndarray) -> dict[str, float]:
    """``mae`` and ``rmse`` of the released timestamps' errors (NaN when none)."""
    if not err.size:
        return {"mae": float("nan"), "rmse": float("nan")}
    return {"mae": float(np.mean(err)), "rmse": float(np.sqrt(np.mean(err ** 2)))}
