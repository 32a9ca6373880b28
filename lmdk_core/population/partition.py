"""Releasing one partition (a group of whole users): validate, find each user's
landmarks, release in lockstep, audit.

Pure pandas/numpy; the Dask driver (:mod:`lmdk_core.population.dask_driver`) runs it on
every partition, and the app and the tests call it directly on small populations. Users
are stacked in blocks of at most :data:`BLOCK_CELLS` (user × timestamp) cells, and the
blocks released together in waves of at most :data:`WAVE_CELLS` cells, which bounds the
memory of the lockstep matrices whatever the partition size. The blocks of a wave draw
their exact noise together (one call of the exact sampler per round of requests, whatever
the scales, for all their users; :func:`~lmdk_core.population.lockstep.
lockstep_release_many`); a partition of the batch's default size is one wave.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.engine.release import AdaptiveSettings
from lmdk_core.engine.repeat_noise import regular_share, renoise
from lmdk_core.engine.stay_events import Condensed, condense, condensed_points, stay_members
from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms import Geometric, Laplace, PlanarLaplace
from lmdk_core.mechanisms.exact_planar import ExactPlanarLaplace, PlanarRegion
from lmdk_core.population.audit import (
    AUDIT_COLUMNS,
    LeakageSettings,
    UserTrace,
    landmark_tpls,
    user_audit,
)
from lmdk_core.population.landmarks import (
    DiscoverySettings,
    UserLandmarks,
    find_user_landmarks,
)
from lmdk_core.population.lockstep import lockstep_release_many, planned_budgets
from lmdk_core.population.one_row import one_row_users, release_one_row
from lmdk_core.population.streams import user_generator
from lmdk_core.population.table import (
    PopulationColumns,
    check_whole_numbers,
    prepare_users,
    user_arrays,
    user_starts,
)

if TYPE_CHECKING:
    import pandas as pd

    from lmdk_core.files.config import ViewConfig

__all__ = ["BLOCK_CELLS", "UNDECLARED_K_LABEL", "BatchSettings", "PartitionResult",
           "WAVE_CELLS", "release_partition"]

#: the first words of a population file whose Uniform or Adaptive release has no declared
#: k: each user's noise scale ε/(|L_u|+1) then gives away that user's landmark count
UNDECLARED_K_LABEL = ("EXPLORATORY, not publishable: no declared bound k, so each user's "
                      "noise scale follows that user's own landmark count (declare "
                      "extra.max_landmarks in the configuration, or use Skip)")

#: largest number of (user, timestamp) cells stacked in one lockstep block
BLOCK_CELLS = 2_000_000
#: largest number of cells of the blocks released together (exact noise drawn together)
WAVE_CELLS = 2 * BLOCK_CELLS


@dataclass(frozen=True)
class BatchSettings:
    """Everything a partition needs: the release settings of a saved view, the noise
    path and the root entropy of the per-user streams."""

    kind: str  # 'series' or 'track'
    epsilon: float
    scheme: str
    window: int | None
    mechanism: str  # 'laplace', 'geometric' or 'planar_laplace'
    sensitivity: float
    radius: float
    noise: str  # 'exact' or 'fast'
    root_entropy: int
    #: the declared bound k on each user's landmark events (public; Uniform ε/(k+1));
    #: without it Uniform and Adaptive are exploratory (:data:`UNDECLARED_K_LABEL`)
    max_landmarks: int | None = None
    #: the declared region of an exact track release, ``LAT,LON,KM`` (public; the
    #: configuration's ``extra.region`` or ``lmdk batch --region``)
    region: str | None = None
    adaptive: AdaptiveSettings = field(default_factory=AdaptiveSettings)
    discovery: DiscoverySettings = field(default_factory=DiscoverySettings)
    leakage: LeakageSettings = field(default_factory=LeakageSettings)

    def shows_landmark_count(self) -> bool:
        """Whether each user's noise scale follows the user's own landmark count: Uniform
        and Adaptive's start are ε/(|L_u|+1) unless a bound k is declared. Such a release
        is exploratory, never publishable (docs/privacy-model.md)."""
        return self.max_landmarks is None and self.scheme in ("uniform", "adaptive")

    def release_decimals(self) -> int:
        """Decimal places of a released value in a publishable file: a step at most 1/1000
        of the noise scale at ε (:func:`lmdk_core.files.export.release_decimals`, from ε
        and Δf, or r in degrees for tracks: public settings only)."""
        from lmdk_core.files.export import release_decimals

        track = self.kind == "track"
        return release_decimals(self.epsilon, self.radius if track else self.sensitivity,
                                degrees=track)

    @classmethod
    def from_config(cls, cfg: ViewConfig, kind: str, noise: str, root_entropy: int,
                    leakage: bool = True) -> BatchSettings:
        """Settings of configuration ``cfg`` for a population of ``kind``."""
        if cfg.data_kind != kind:
            page = "Timeline (series)" if cfg.data_kind == "series" else "Map (tracks)"
            given = "a value column" if kind == "series" else "lat/lon columns"
            raise InputError(f"the configuration was saved from the {page} page but the batch "
                             f"was given {given}; use a configuration of the same kind")
        if noise not in ("exact", "fast"):
            raise InputError(f"--noise must be exact or fast, got {noise!r}")
        extra = cfg.extra if isinstance(cfg.extra, dict) else {}
        return cls(
            kind=kind, epsilon=float(cfg.epsilon), scheme=cfg.scheme, window=int(cfg.window),
            mechanism=cfg.mechanism if kind == "series" else "planar_laplace",
            sensitivity=float(cfg.sensitivity), radius=float(cfg.radius), noise=noise,
            root_entropy=int(root_entropy),
            max_landmarks=_declared_k(extra),
            region=_declared_region(extra) if kind == "track" else None,
            discovery=DiscoverySettings.from_extra(extra),
            leakage=LeakageSettings(spec=extra.get("correlation"),
                                    strength=float(cfg.correlation_strength),
                                    cell_size_m=float(extra.get("cell_size_m", 250.0)),
                                    enabled=bool(leakage)),
        )

    def make_mechanism(self) -> Laplace | Geometric | PlanarLaplace:
        """The mechanism object of these settings: for tracks with exact noise the exact
        Planar Laplace on the grid of the declared region (refused without one)."""
        if self.mechanism == "planar_laplace":
            if self.noise == "exact":
                if self.region is None:
                    raise InputError(
                        "exact noise for tracks releases on the grid of a declared region: "
                        "add --region LAT,LON,KM (a public area holding every track; or "
                        "\"region\" in the configuration's extra), or use --noise fast to "
                        "explore")
                return ExactPlanarLaplace(self.radius, PlanarRegion.parse(self.region))
            return PlanarLaplace(self.radius)
        if self.mechanism == "geometric":
            return Geometric(self.sensitivity)
        return Laplace(self.sensitivity)


@dataclass
class PartitionResult:
    """The publishable rows, the audit rows and the time kind of one partition."""

    released: pd.DataFrame
    audit: pd.DataFrame
    time_kind: str


def _blocks(lengths: np.ndarray) -> list[slice]:
    out, start, longest = [], 0, 0
    for i, n in enumerate(lengths.tolist()):
        longest_new = max(longest, n)
        if i > start and longest_new * (i - start + 1) > BLOCK_CELLS:
            out.append(slice(start, i))
            start, longest_new = i, n
        longest = longest_new
    out.append(slice(start, lengths.size))
    return out


def _waves(blocks: list[slice], lengths: np.ndarray) -> list[list[slice]]:
    """Consecutive blocks grouped while their cells add up to at most WAVE_CELLS."""
    out: list[list[slice]] = []
    cells = 0
    for blk in blocks:
        c = int(lengths[blk].max()) * (blk.stop - blk.start)
        if out and cells + c <= WAVE_CELLS:
            out[-1].append(blk)
            cells += c
        else:
            out.append([blk])
            cells = c
    return out


@dataclass
class _Block:
    """One block's users stacked: rows ``lo … lo + rows.size`` of the partition, the
    (user, position) of each of those rows, values ``x`` (U, T_max[, 2]), landmarks.

    A track whose stays are released as one landmark event each (docs/stays.md) is
    stacked *condensed*: each stay one timestamp holding its centroid, a landmark
    (``conds[u]``; None when the user has no stay), so ``c_lengths`` are the stacked
    lengths and ``pos`` points every row at its condensed timestamp."""

    lo: int
    offsets: np.ndarray  # each user's first row, from lo
    lengths: np.ndarray
    rows: np.ndarray
    pos: np.ndarray
    x: np.ndarray
    landmarks: np.ndarray
    landmark_lists: list
    gens: list
    c_lengths: np.ndarray
    conds: list


@dataclass(frozen=True)
class _Users:
    """A prepared partition as arrays: ``users``, ``times``, ``data`` (values (N,) or
    ``[lat, lon]`` rows (N, 2)), landmark ``flags`` (None without a flag column), each
    user's first row ``starts`` and number of rows ``lengths``, and the ``time_kind``."""

    users: np.ndarray
    times: np.ndarray
    data: np.ndarray
    flags: np.ndarray | None
    starts: np.ndarray
    lengths: np.ndarray
    time_kind: str

    @classmethod
    def of(cls, frame: pd.DataFrame, track: bool, time_kind: str) -> _Users:
        """The arrays of a frame prepared by :func:`prepare_users` (sorted by user)."""
        users = frame["user"].to_numpy()
        bounds = user_starts(users)
        data, times, flags = user_arrays(frame, track)
        return cls(users, times, data, flags, bounds[:-1], np.diff(bounds), time_kind)


def _stack(blk: slice, us: _Users, track: bool, settings: BatchSettings) -> _Block:
    """The users of block ``blk`` stacked for the lockstep release (see :class:`_Block`)."""
    b_starts, b_len = us.starts[blk], us.lengths[blk]
    lo = int(b_starts[0])
    offsets = b_starts - lo
    rows = np.repeat(np.arange(b_len.size), b_len)
    pos = np.arange(int(b_len.sum())) - np.repeat(offsets, b_len)
    spans = list(zip(b_starts.tolist(), b_len.tolist(), strict=True))
    found = [find_user_landmarks(us.times[s:s + n], us.data[s:s + n], us.time_kind,
                                 settings.discovery,
                                 None if us.flags is None else us.flags[s:s + n])
             for s, n in spans]
    conds, c_len = _condense_stays(found, b_len)
    x = _stacked_values(us.data, spans, conds, int(c_len.max()), track,
                        (lo, rows, pos, offsets), whole=settings.mechanism == "geometric")
    lm = _landmark_matrix(found, conds, int(c_len.max()))
    gens = [user_generator(settings.root_entropy, us.users[s]) for s in b_starts.tolist()]
    return _Block(lo, offsets, b_len, rows, pos, x, lm, [f.landmarks for f in found], gens,
                  c_len, conds)


def _condense_stays(found: list[UserLandmarks],
                    lengths: np.ndarray) -> tuple[list[Condensed | None], np.ndarray]:
    """Each user with stays condensed (each stay one landmark event, docs/stays.md; None
    for the others) and the users' stacked lengths."""
    conds: list[Condensed | None] = []
    c_len = lengths.copy()
    for u, f in enumerate(found):
        cond = condense(int(lengths[u]), f.stays) if f.stays else None
        if cond is not None:
            c_len[u] = cond.condensed_length
        conds.append(cond)
    return conds, c_len


def _landmark_matrix(found: list[UserLandmarks], conds: list[Condensed | None],
                     T: int) -> np.ndarray:
    """The stacked landmark flags (U, T): a condensed user's landmarks are its groups'
    condensed timestamps and its other landmarks' own."""
    lm = np.zeros((len(found), T), dtype=bool)
    for u, (f, cond) in enumerate(zip(found, conds, strict=True)):
        # a condensed user's landmarks sit at their condensed timestamps: a stay's or a
        # run's members all at the group's one, a single landmark at its own
        lm[u, f.landmarks if cond is None else cond.index[np.asarray(f.landmarks, int)]] = True
    return lm


def _stacked_values(data: np.ndarray, spans: list[tuple[int, int]],
                    conds: list[Condensed | None], T: int, track: bool,
                    layout: tuple[int, np.ndarray, np.ndarray, np.ndarray],
                    whole: bool = False) -> np.ndarray:
    """The users' values stacked (U, T[, 2]), NaN past each user's end. ``layout`` is
    the block's ``(lo, rows, pos, offsets)``; a condensed user's rows have their ``pos``
    pointed at their condensed timestamps (in place)."""
    lo, rows, pos, offsets = layout
    x = np.full((len(spans), T, 2) if track else (len(spans), T), np.nan)
    if all(c is None for c in conds):
        x[rows, pos] = data[lo:lo + rows.size]
        return x
    for u, ((s, n), cond) in enumerate(zip(spans, conds, strict=True)):
        if cond is None:
            x[u, :n] = data[s:s + n]
        else:
            x[u, :cond.condensed_length] = condensed_points(data[s:s + n], cond, whole)
            pos[offsets[u]:offsets[u] + n] = cond.index
    return x


def _declared_k(extra: dict) -> int | None:
    """k of a batch configuration: ``extra.max_landmarks`` (Uniform ε/(k+1) for every
    user, users with more landmark events refused), or None when the configuration
    declares none (then each user's Uniform share still follows the user's own |L_u| —
    declare k for a publishable batch; docs/privacy-model.md)."""
    from lmdk_core.engine.allocation import check_max_landmarks

    k = extra.get("max_landmarks")
    return None if k is None else check_max_landmarks(k, 0, "config: extra.max_landmarks")


def _declared_region(extra: dict) -> str | None:
    """The declared region of a track batch, ``extra.region`` (``LAT,LON[,KM]``), checked
    and normalised; None when the configuration declares none."""
    text = extra.get("region")
    if text is None:
        return None
    try:
        return PlanarRegion.parse(str(text)).text()
    except InputError as exc:
        raise InputError(f"config: extra.region: {exc}") from None


def release_partition(raw: pd.DataFrame, cols: PopulationColumns,
                      settings: BatchSettings) -> PartitionResult:
    """Release every user of ``raw`` (rows of whole users, any order)."""
    import pandas as pd

    frame, time_kind = prepare_users(raw, cols)
    track = settings.kind == "track"
    if frame.empty:
        empty = pd.DataFrame({c: [] for c in _released_columns(track)})
        return PartitionResult(empty, pd.DataFrame(columns=AUDIT_COLUMNS), time_kind)
    mech = settings.make_mechanism()
    if mech.data_kind == "count":
        check_whole_numbers(frame["user"].to_numpy(), frame["value"].to_numpy())
    us = _Users.of(frame, track, time_kind)
    one = one_row_users(us.lengths, us.starts, us.flags, settings)
    if one.any():  # users of one reading: vectors, not a Python loop per user
        released_all, audit = _release_with_one_row(us, one, track, mech, settings)
    else:
        released_all, audits = _release_waves(us, track, mech, settings)
        audit = pd.DataFrame(audits, columns=AUDIT_COLUMNS)
    # the publishable rows: rounded to what the noise justifies (post-processing of
    # released values; the audit above was computed from the unrounded release)
    released_all = np.round(released_all, settings.release_decimals())
    out = pd.DataFrame({"user": us.users, "time": frame["time"].to_numpy()})
    for k, name in enumerate(_released_columns(track)[2:]):
        out[name] = released_all[:, k]
    return PartitionResult(out, audit, time_kind)


def _release_with_one_row(us: _Users, one: np.ndarray, track: bool, mech,
                          settings: BatchSettings) -> tuple[np.ndarray, pd.DataFrame]:
    """The released rows and the audit of a partition whose users ``one`` (mask over its
    users) have one reading each (:mod:`lmdk_core.population.one_row`); the others go
    through the lockstep waves. The audit keeps the partition's user order."""
    import pandas as pd

    rows = us.starts[one]
    fast = release_one_row(us.users[rows], us.times[rows], us.data[rows], us.time_kind,
                           mech, settings)
    released_all = np.full((us.users.size, 2 if track else 1), np.nan)
    released_all[rows, 0] = fast.released
    audit = pd.DataFrame(fast.audit, columns=AUDIT_COLUMNS)
    if one.all():
        return released_all, audit
    keep = np.repeat(~one, us.lengths)
    rest = _Users(us.users[keep], us.times[keep], us.data[keep],
                  None if us.flags is None else us.flags[keep], np.r_[0, np.cumsum(
                      us.lengths[~one])[:-1]], us.lengths[~one], us.time_kind)
    rest_rows, audits = _release_waves(rest, track, mech, settings)
    released_all[keep] = rest_rows
    both = pd.concat([audit, pd.DataFrame(audits, columns=AUDIT_COLUMNS)], ignore_index=True)
    order = np.argsort(np.r_[np.flatnonzero(one), np.flatnonzero(~one)], kind="stable")
    return released_all, both.iloc[order].reset_index(drop=True)


def _released_columns(track: bool) -> list[str]:
    """The columns of the publishable rows."""
    return ["user", "time"] + (["released_lat", "released_lon"] if track else ["released"])


def _release_waves(us: _Users, track: bool, mech,
                   settings: BatchSettings) -> tuple[np.ndarray, list[dict]]:
    """Every user released in lockstep, wave by wave of stacked blocks: the released rows
    (N, 1 or 2; unrounded) in the partition's row order, and the audit rows."""
    n_out = 2 if track else 1
    released_all = np.full((us.users.size, n_out), np.nan)
    audits: list[dict] = []
    for wave in _waves(_blocks(us.lengths), us.lengths):
        stacked = [_stack(blk, us, track, settings) for blk in wave]
        rels = lockstep_release_many([(b.x, b.c_lengths, b.landmarks, b.gens) for b in stacked],
                                     scheme=settings.scheme, epsilon=settings.epsilon, mech=mech,
                                     noise=settings.noise, window=settings.window,
                                     adaptive=settings.adaptive,
                                     max_landmarks=settings.max_landmarks)
        for b, rel in zip(stacked, rels, strict=True):
            rows = _renoised_rows(b, rel, mech, settings, n_out)
            released_all[b.lo:b.lo + b.rows.size] = rows
            tpls = _block_tpls(b, rel, us, settings)
            audits += [_audit_user(b, rel, u, us, mech, settings, rows, tpls[u])
                       for u in range(b.lengths.size)]
    return released_all, audits


def _renoised_rows(b: _Block, rel, mech, settings: BatchSettings, n_out: int) -> np.ndarray:
    """The block's released rows (its users' timestamps, each stay expanded to its
    fixes), every repeated value — an approximation, every fix of a stay — with fresh
    post-processing noise of the regular law drawn from the user's own stream after its
    release (:func:`lmdk_core.engine.repeat_noise.renoise`; the same draws as the single
    trace engine's :func:`lmdk_core.engine.release.release`). No budget; no runs of
    identical values in the publishable file."""
    rows = rel.released[b.rows, b.pos].reshape(-1, n_out)
    planned = planned_budgets(settings.scheme, b.c_lengths, b.landmarks, settings.epsilon,
                              window=settings.window, max_landmarks=settings.max_landmarks)
    for u in range(b.lengths.size):
        n, m, cond = int(b.lengths[u]), int(b.c_lengths[u]), b.conds[u]
        repeated = ~rel.published[u, :m]
        if cond is not None:
            full = np.ones(n, dtype=bool)
            full[cond.rep] = repeated
            full[stay_members(cond.stays)] = True
            repeated = full
        if not repeated.any():
            continue
        share = regular_share(planned[u, :m], np.flatnonzero(b.landmarks[u, :m]))
        s = int(b.offsets[u])
        mine = rows[s:s + n] if n_out == 2 else rows[s:s + n, 0]
        rows[s:s + n] = renoise(mine, repeated, mech, share, b.gens[u]).reshape(n, n_out)
    return rows


def _block_tpls(b: _Block, rel, us: _Users, settings: BatchSettings) -> list[tuple[float, str]]:
    """The audit's ``(largest landmark TPL, note)`` of every user of block ``b``, all at
    once (:func:`lmdk_core.population.audit.landmark_tpls`)."""
    users = []
    for u in range(b.lengths.size):
        s, n = b.lo + int(b.offsets[u]), int(b.lengths[u])
        eps_u = _user_budgets(rel, u, n, b.conds[u])[0]
        users.append((us.times[s:s + n], us.data[s:s + n], us.time_kind, eps_u,
                      b.landmark_lists[u]))
    return landmark_tpls(settings.leakage, users)


def _audit_user(b: _Block, rel, u: int, us: _Users, mech, settings: BatchSettings,
                rows: np.ndarray, tpl: tuple[float, str] | None = None) -> dict:
    """The audit row of user ``u`` of block ``b`` from its lockstep release ``rel`` and
    the block's released ``rows`` (:func:`_renoised_rows`); ``tpl`` as in
    :func:`~lmdk_core.population.audit.user_audit`."""
    s, n = b.lo + int(b.offsets[u]), int(b.lengths[u])
    cond = b.conds[u]
    track = settings.kind == "track"
    mine = rows[int(b.offsets[u]):int(b.offsets[u]) + n]
    eps_u, pub_u = _user_budgets(rel, u, n, cond)
    trace = UserTrace(us.times[s:s + n], us.data[s:s + n], mine if track else mine[:, 0],
                      eps_u, pub_u, b.landmark_lists[u])
    return user_audit(
        us.users[s], trace, epsilon=settings.epsilon, kind=us.time_kind,
        distance=mech.distance, leakage=settings.leakage, mechanism=settings.mechanism,
        scale_unit=settings.radius if track else settings.sensitivity,
        groups=None if cond is None else cond.stays, tpl=tpl)


def _user_budgets(rel, u: int, n: int, cond: Condensed | None) -> tuple[np.ndarray, np.ndarray]:
    """``(ε_t, published)`` of user ``u`` over its ``n`` timestamps; a condensed user's
    expanded: a stay's budget and publication sit at its first fix."""
    if cond is None:
        return rel.epsilon_t[u, :n], rel.published[u, :n]
    m = cond.condensed_length
    eps_u = np.zeros(n)
    eps_u[cond.rep] = rel.epsilon_t[u, :m]
    pub_u = np.zeros(n, dtype=bool)
    pub_u[cond.rep] = rel.published[u, :m]
    return eps_u, pub_u
