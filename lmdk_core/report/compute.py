"""The report's computation: from a :class:`~lmdk_core.files.config.ViewConfig` to
:class:`ReportData` (no HTML here; :mod:`lmdk_core.report.render` lays it out).

The release is **recomputed with the engine** — the same data, landmarks, ε, scheme,
mechanism and seed give the same noise — with the verifier's verdict, and the temporal
privacy leakage (TPL, Cao et al. ICDE'17 / TKDE'18) and landmark TPL under a stated
correlation model (:func:`correlation_model`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import TypeGuard

import numpy as np

from lmdk_core.data.series import Series, load_series_csv
from lmdk_core.data.track import Track
from lmdk_core.decision.comparison import (
    ReleaseFn,
    compare_schemes,
    series_release_fn,
    track_release_fn,
)
from lmdk_core.decision.release_verdict import LeakageSummary, release_leakage, release_verdict
from lmdk_core.decision.utility import UtilityVerdict, release_utility
from lmdk_core.decision.verdict import PrivacyVerdict
from lmdk_core.engine.allocation import DEFAULT_MAX_LANDMARKS, scheme_info
from lmdk_core.engine.release import Release
from lmdk_core.engine.stay_events import stay_members
from lmdk_core.engine.verifier import check_groups
from lmdk_core.figures.common import hover_labels
from lmdk_core.files.config import ViewConfig, view_groups
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import counted
from lmdk_core.leakage.model import (
    DEFAULT_CELL_SIZE_M,
    DEFAULT_SERIES_STATES,
    MAX_LEAKAGE_STATES,
    CorrelationModel,
    correlation_from_spec,
)

__all__ = [
    "DEFAULT_CELL_SIZE_M",
    "DEFAULT_MAX_LANDMARKS",
    "DEFAULT_SERIES_STATES",
    "MAX_LEAKAGE_STATES",
    "CorrelationModel",
    "LeakageSummary",
    "ReportData",
    "compute_report",
    "correlation_model",
    "declared_max_landmarks",
    "landmark_events",
    "leakage_target",
    "load_view_data",
    "mixture_quantile",
    "model_share",
    "release_leakage",
    "release_verdict",
    "report_filename",
    "source_file",
    "utility_of",
]

SERIES_DEMOS = {"demo-household"}
TRACK_DEMOS = {"demo-paris"}


# ====================================================================== data
def extra_setting(cfg: ViewConfig, key: str, default=None):
    """``cfg.extra[key]`` (the pages' extra settings), ``default`` when it is absent or
    ``extra`` is not a mapping."""
    return cfg.extra.get(key, default) if isinstance(cfg.extra, dict) else default


def custom_title(cfg: ViewConfig) -> str | None:
    """The configuration's own title (``extra.title``) without surrounding blanks; None
    when it has none (or it is blank or not text)."""
    custom = extra_setting(cfg, "title")
    return custom.strip() if isinstance(custom, str) and custom.strip() else None


def load_view_data(cfg: ViewConfig) -> Series | Track:
    """The series or track a configuration describes: a built-in demo or its embedded
    table (``data`` = {column: [values]}: ``time,value`` or ``[time,]lat,lon``)."""
    cfg.validate()
    return _load_series(cfg) if cfg.data_kind == "series" else _load_track(cfg)


def _load_series(cfg: ViewConfig) -> Series:
    """The household demo or the embedded ``time,value`` table."""
    if cfg.dataset in SERIES_DEMOS:
        from lmdk_core.data.demo import demo_series

        return demo_series()
    if cfg.dataset == "embedded":
        return load_series_csv(_embedded_csv(cfg, ("time", "value")),
                               name=_embedded_name(cfg, "embedded series"))
    raise InputError(f"config: unknown series dataset {cfg.dataset!r}; expected "
                     "'demo-household' or 'embedded'")


def _load_track(cfg: ViewConfig) -> Track:
    """The Paris demo track or the embedded ``[time,]lat,lon`` table."""
    if cfg.dataset in TRACK_DEMOS:
        try:
            from lmdk_core.data.demo_track import demo_track
        except ImportError:
            raise InputError("config: the demo track 'demo-paris' is not available in this "
                             "version; embed the track in 'data' instead") from None
        return demo_track()
    if cfg.dataset == "embedded":
        # the track readers (GPX, FIT, KML, … and their parsers) load only for a track
        from lmdk_core.data.track_loading import load_track

        return load_track(_embedded_csv(cfg, ("lat", "lon")),
                          name=_embedded_name(cfg, "embedded track"), file_format="csv")
    raise InputError(f"config: unknown track dataset {cfg.dataset!r}; expected 'demo-paris' "
                     "or 'embedded'")


def source_file(cfg: ViewConfig) -> dict[str, str] | None:
    """``extra.source_file``: the uploaded file an embedded table was read from,
    ``{"name": ..., "sha256": ...}`` (the app records it with the view; the internal
    report names it), None when the configuration has none. Anything else is refused."""
    ref = extra_setting(cfg, "source_file")
    if ref is None:
        return None
    if not (isinstance(ref, dict) and isinstance(ref.get("name"), str)
            and ref["name"].strip() and isinstance(ref.get("sha256"), str)) \
            or set(ref) - {"name", "sha256"}:
        raise InputError('config: extra.source_file must be {"name": "...", "sha256": "..."}')
    return ref


def _embedded_name(cfg: ViewConfig, default: str) -> str:
    """The name of an embedded table: its source file's name, else ``default``."""
    ref = source_file(cfg)
    return ref["name"].strip() if ref is not None else default


def _is_table(data: object) -> TypeGuard[dict[str, list]]:
    """Whether ``data`` maps column names to lists (the embedded table's form)."""
    return isinstance(data, dict) and all(isinstance(v, list) for v in data.values())


def _embedded_csv(cfg: ViewConfig, needed: tuple[str, ...]) -> bytes:
    """The embedded table as CSV bytes, after checking it is columns of equal length
    holding the ``needed`` ones."""
    import pandas as pd

    data = cfg.data
    if not _is_table(data):
        raise InputError("config: 'data' must map column names to lists of values")
    missing = [c for c in needed if c not in data]
    if missing:
        raise InputError(f"config: the embedded data have no {missing[0]!r} column")
    lengths = {len(v) for v in data.values()}
    if len(lengths) != 1:
        raise InputError("config: the embedded data columns have different lengths")
    return pd.DataFrame(data).to_csv(index=False).encode()


# ====================================================================== correlation
def correlation_model(cfg: ViewConfig, data: Series | Track,
                      seed: int | None = None) -> CorrelationModel:
    """The correlation model of a configuration: ``cfg.extra['correlation']`` (the model
    the app's session had in force when the configuration was saved; format in
    :mod:`lmdk_core.leakage.model`), read by
    :func:`~lmdk_core.leakage.model.correlation_from_spec`.

    Without it, a model estimated from the data: for a **series** 10 equal-count bins
    with the transitions counted (add-one smoothing; forward and backward); for a
    **track** grid cells of ``cfg.extra['cell_size_m']`` metres (default 250) with the
    moves between cells counted (add-one smoothing).

    A model estimated with differential privacy (``{"model": "private", ...}``) draws its
    noisy counts from ``seed`` (independently of the release's noise) for at most
    :func:`declared_max_landmarks` landmark events.
    """
    spec = extra_setting(cfg, "correlation")
    cell = extra_setting(cfg, "cell_size_m", DEFAULT_CELL_SIZE_M)
    private = isinstance(spec, dict) and str(spec.get("model", "")).strip().lower() == "private"
    return correlation_from_spec(spec, data, default_strength=cfg.correlation_strength,
                                 default_cell_size=cell,
                                 max_landmarks=declared_max_landmarks(cfg) if private else None,
                                 seed=seed)


def declared_max_landmarks(cfg: ViewConfig) -> int:
    """k, the declared bound on the landmark events: the configuration's
    ``extra.max_landmarks``, else :data:`DEFAULT_MAX_LANDMARKS` — never the number of
    landmarks marked, which the public note would otherwise reveal (Uniform's ε/(k+1)
    sets its expected error; the private correlation model's noise is calibrated to k).
    A view marking more than k landmarks is refused with a message saying how to
    declare a larger k."""
    k = extra_setting(cfg, "max_landmarks")
    if k is None:
        k = DEFAULT_MAX_LANDMARKS
    elif isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise InputError("config: extra.max_landmarks must be a whole number >= 0")
    events = landmark_events(cfg)
    if events > k:
        raise InputError(f"config: the view marks {counted(events, 'landmark event')}, more "
                         "than the "
                         f"declared bound k = {k}; declare a larger k (extra.max_landmarks, "
                         f'e.g. "max_landmarks": {events}) or mark fewer landmarks')
    return int(k)


def landmark_events(cfg: ViewConfig) -> int:
    """The landmark events a view marks: its landmarks, a stay of a track or a run of a
    series counting as one event (docs/stays.md, docs/series-events.md) — a confidential
    number, compared with k only."""
    stays = view_groups(cfg)
    members = set(stay_members(stays).tolist())
    return len(stays) + sum(1 for t in cfg.landmarks if t not in members)


def model_share(model: CorrelationModel) -> float:
    """The share ε_M of the budget a correlation model spends: its ``epsilon`` for a
    model estimated with differential privacy, else 0 (a public setting, or a model
    whose figures stay on screen)."""
    return float(model.spec["epsilon"]) if model.key == "private" else 0.0


# ====================================================================== the report data
@dataclass(frozen=True)
class ReportData:
    """Everything the report shows, computed from a configuration."""

    cfg: ViewConfig
    data: Series | Track
    release: Release
    leakage: LeakageSummary
    generated: datetime
    #: the Compare page's schemes: (scheme, its release, its leakage), same seed and model
    comparison: tuple[tuple[str, Release, LeakageSummary], ...] = ()

    @property
    def is_track(self) -> bool:
        return isinstance(self.data, Track)

    @property
    def series(self) -> Series:
        """The data of a series report (TypeError for a track's)."""
        if not isinstance(self.data, Series):
            raise TypeError("a track report has no series")
        return self.data

    # computed once per report (the page, the note and the command's summary line all
    # read them; the verdict's calibration advice is a search of a few dozen landmark-TPL
    # runs): functions of the frozen fields above
    @cached_property
    def labels(self) -> list[str]:
        """A human label for each timestamp (date/time or number)."""
        return hover_labels(self.data.time, self.data.time_kind)

    @cached_property
    def verdict(self) -> PrivacyVerdict:
        """The one verdict (theorem + landmark TPL under the model) of the release."""
        return release_verdict(self.release, self.leakage, self.labels,
                               leakage_target(self.cfg))

    @cached_property
    def utility(self) -> UtilityVerdict:
        """The utility line of the release (:mod:`lmdk_core.decision.utility`)."""
        return utility_of(self.cfg, self.data, self.release)


def utility_of(cfg: ViewConfig, data: Series | Track, rel: Release) -> UtilityVerdict:
    """:func:`lmdk_core.decision.utility.release_utility` of a release of ``data`` under the
    configuration's Δf (series) or protection radius r (track)."""
    if isinstance(data, Track):
        return release_utility(rel, radius=cfg.radius, times=data.time)
    return release_utility(rel, sensitivity=cfg.sensitivity, unit=data.unit)


def _is_positive_number(value) -> bool:
    """Whether ``value`` is a finite number > 0 (an int or float, not a bool)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) \
        and bool(np.isfinite(value)) and value > 0


def leakage_target(cfg: ViewConfig) -> float | None:
    """``extra.leakage_target``: the landmark-TPL target α a calibration applied (None:
    the verdict compares landmark TPL with ε)."""
    raw = extra_setting(cfg, "leakage_target")
    if raw is None:
        return None
    if not _is_positive_number(raw):
        raise InputError("config: extra.leakage_target must be a number > 0")
    return float(raw)


def compute_report(cfg: ViewConfig, *, now: datetime | None = None) -> ReportData:
    """Validate ``cfg``, load its data, recompute the release (verifier included) and the
    leakage. Raises :class:`InputError` with a clear message on any bad input."""
    cfg.validate()
    data = load_view_data(cfg)
    _check_landmarks_within(cfg, len(data))
    # one release per scheme (the configuration's first, then the compared ones), all
    # from the generator of the seed, as the pages make them
    keys = _compare_keys(cfg)
    from lmdk_core.foundation.setting_limits import fresh_seed

    seed = cfg.seed if cfg.seed is not None else fresh_seed()  # None: fresh, not recorded
    model = correlation_model(cfg, data, seed)
    # a model estimated with DP spends ε_M; the release spends the rest (composition)
    release_epsilon = cfg.epsilon - model_share(model)
    if not release_epsilon > 0:
        raise InputError(f"config: the private correlation model's share ε_M = "
                         f"{model_share(model):g} leaves nothing of ε = {cfg.epsilon:g} for "
                         "the release; choose a smaller share")
    releases = compare_schemes(_release_fn(cfg, data), [cfg.scheme, *keys], release_epsilon,
                               seed)
    leakage_target(cfg)  # checked now: a bad target is a clear error, not a late one
    leaks = {k: release_leakage(r, model) for k, r in releases.items()}
    comparison = tuple((k, releases[k], leaks[k]) for k in keys)
    return ReportData(cfg, data, releases[cfg.scheme], leaks[cfg.scheme],
                      now or datetime.now(UTC), comparison)


def _check_landmarks_within(cfg: ViewConfig, T: int) -> None:
    """Every landmark of the configuration is a timestamp of the data (0..T-1)."""
    bad = [t for t in cfg.landmarks if t >= T]
    if bad:
        raise InputError(f"config: landmark {bad[0]} lies beyond the end of the data "
                         f"({T} timestamps, numbered 0..{T - 1})")


def _release_fn(cfg: ViewConfig, data: Series | Track) -> ReleaseFn:
    """The release of the configuration's data with its mechanism settings."""
    groups = view_groups(cfg)
    if isinstance(data, Track):
        check_groups(groups, len(data))
        return track_release_fn(data.lat, data.lon, cfg.landmarks, radius=cfg.radius,
                                window=cfg.window, stays=groups,
                                max_landmarks=declared_max_landmarks(cfg))
    check_groups(groups, len(data), "run")
    return series_release_fn(data.values, cfg.landmarks, mechanism=cfg.mechanism,
                             sensitivity=cfg.sensitivity, window=cfg.window,
                             max_landmarks=declared_max_landmarks(cfg), runs=groups)


def _is_name_list(value, least: int, most: int) -> bool:
    """Whether ``value`` is a list of ``least`` to ``most`` strings."""
    return isinstance(value, list) and all(isinstance(k, str) for k in value) \
        and least <= len(value) <= most


def _compare_keys(cfg: ViewConfig) -> list[str]:
    """The schemes of ``extra.compare_schemes`` (the Compare page's choice), validated and
    without duplicates; empty when the configuration has none."""
    keys = extra_setting(cfg, "compare_schemes")
    if keys is None:
        return []
    if not _is_name_list(keys, 1, 6):
        raise InputError("config: extra.compare_schemes must be a list of 1 to 6 scheme names")
    return list(dict.fromkeys(scheme_info(k).key for k in keys))


def report_filename(cfg: ViewConfig, now: datetime | None = None) -> str:
    """``lmdk_CONFIDENTIAL_report_<series|track>_<YYYYMMDD-HHMM>.html`` (the internal
    report holds the raw data, the landmarks and the seed)."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M")
    return f"lmdk_CONFIDENTIAL_report_{cfg.data_kind}_{stamp}.html"


# ====================================================================== error
def mixture_quantile(mech, eps: np.ndarray, q: float) -> float:
    """Quantile q of the displacement when ε_t is drawn uniformly from ``eps``."""
    if eps.size == 0:
        return float("nan")
    from scipy.optimize import brentq

    vals, counts = np.unique(eps, return_counts=True)
    w = counts / counts.sum()

    def f(d: float) -> float:
        return float(sum(wi * mech.displacement_cdf(d, e) for wi, e in zip(w, vals,
                                                                            strict=True))) - q

    hi = float(mech.displacement_quantile(q, vals.min())) * 1.01 + 1e-9
    lo = float(mech.displacement_quantile(q, vals.max())) * 0.99
    return float(brentq(f, lo, hi)) if f(lo) < 0 < f(hi) else float(
        mech.displacement_quantile(q, vals[0]))
