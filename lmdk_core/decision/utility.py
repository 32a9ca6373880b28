"""Utility beside privacy: the expected error of a release, against the data's own scale.

A release can be landmark-private and still be noise. This module says, for a release
setting (the allocation ε_t, the mechanism, the sensitivity Δf of a series or the
protection radius r of a track, and the data), **how far a released reading is expected
to be from the truth**, in the data's units, and whether that is small next to how much
the data themselves vary. Every page, the privacy report, the release note and the
``lmdk`` JSON take their utility line from :func:`utility_verdict` (or
:func:`release_utility`), shown next to the privacy verdict of :mod:`lmdk_core.decision.verdict`.

**Expected error of one released reading**: the noise's mean at a published timestamp,
the data's change since the last publication plus that publication's noise and the
fresh noise it is shown with at a repeated one, none at a withheld one
(:mod:`lmdk_core.decision.expected_error`, with the exact laws of
:mod:`lmdk_core.decision.noise_laws`).

**Summary over t.** ``typical`` is the median over released timestamps of each one's
expected (mean) error — with one law for every point (Uniform) simply that law's mean;
the sentences say "on average", not "typical", since it is a mean over the noise —
``worst`` the largest, ``mean`` the average (what the measured MAE estimates).

**The data's own scale.**

* series: the **interquartile range** (75th − 25th percentile) — the spread of the
  middle half of the readings, not moved by a few landmark spikes; when it is 0 (most
  readings equal) the standard deviation; when that is 0 too (a constant series) the
  series' level ``|median|``; a series that is constant 0 has no scale;
* track: the **extent**, the diagonal (geodesic, metres) of the box holding the middle
  95 % of the latitudes and of the longitudes (2.5th to 97.5th percentile each, so that
  a few GPS spikes do not inflate it); a track at one place has no scale. A track with
  times over more than one day is judged **day by day** — the median over its days
  (24 hours each from the first fix) of each day's extent — because that is what a
  person asks of it: where was I that day. A traveller's 2,000 km over a week no
  longer makes a released point 32 km off look small (docs/utility.md).

**The verdict** compares ``ratio = typical / scale``:

* **useful** — ``ratio ≤`` :data:`USEFUL_RATIO` (a tenth of the scale) and no reading's
  expected error exceeds the scale: the release keeps the data's shape;
* **marginal** — ``ratio ≤`` :data:`NOISE_RATIO` (half the scale), or useful typical
  readings with some worse than the whole scale: broad levels survive, single readings
  do not;
* **not useful** — ``ratio >`` :data:`NOISE_RATIO`, or nothing is released: the noise
  is comparable to everything the data vary over.

A datum without scale (a constant-0 series, a one-place track) cannot be compared: the
verdict is *marginal* and says to judge the error against what readers need. The
advice for a release that is not useful names what works (a larger ε, fewer landmarks,
a scheme that publishes where values drift, one event per stay) and what does not (a
larger r, a smaller Δf than one event changes): :mod:`lmdk_core.decision.utility_advice`.

See ``docs/utility.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.decision.expected_error import (
    expected_errors,
    publication_flags,
    series_mechanism,
)
from lmdk_core.decision.utility_advice import AdviceSetting, release_advice
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_positive

__all__ = [
    "USEFUL", "MARGINAL", "NOT_USEFUL", "USEFUL_RATIO", "NOISE_RATIO",
    "DataScale", "ExpectedUtility", "UtilityLine", "UtilityVerdict", "data_scale",
    "declared_utility", "expected_utility",
    "release_utility", "utility_verdict", "format_amount",
]

USEFUL, MARGINAL, NOT_USEFUL = "useful", "marginal", "not useful"
#: typical expected error at most this fraction of the data's scale: useful
USEFUL_RATIO = 0.1
#: typical expected error above this fraction of the data's scale: not useful (noise)
NOISE_RATIO = 0.5


# ------------------------------------------------------------------ formatting
def format_amount(value: float, unit: str) -> str:
    """``value`` with its unit, metres switching to km above 1 km (3 significant digits)."""
    if not np.isfinite(value):
        return "—"
    if unit == "m":
        if abs(value) >= 1e6:  # 1,107 km, not 1.11e+03 km
            return f"{value / 1000:,.0f} km"
        return f"{value / 1000:.3g} km" if abs(value) >= 1000 else f"{value:.3g} m"
    return f"{value:.3g} {unit}".rstrip()


def _ratio_phrase(ratio: float) -> str:
    """"30 % of", "1.7 times", "24 times" (followed by the scale's description)."""
    if ratio >= 10:
        return f"{ratio:.0f} times"
    if ratio >= 1:
        return f"{ratio:.1f} times"
    if ratio < 0.01:
        return "under 1 % of"
    pct = f"{ratio * 100:.0f}"
    if float(pct) / 100 in (USEFUL_RATIO, NOISE_RATIO) and ratio * 100 != float(pct):
        pct = f"{ratio * 100:.1f}"  # 10.1 %, not 10 %, when the verdict is above 10 %
    return f"{pct} % of"


# ------------------------------------------------------------------ the data's scale
@dataclass(frozen=True)
class DataScale:
    """How much the data vary: ``value`` in the data's units (0: no scale), ``name``
    what it is ("interquartile range", "extent" …) and ``description`` a phrase for a
    sentence ("the series' spread (interquartile range 1.2 kWh)")."""

    value: float
    name: str
    description: str


def data_scale(values: ArrayLike, unit: str = "", times: ArrayLike | None = None
               ) -> DataScale:
    """The data's own scale (see the module docstring): IQR → std → |median| for a
    series (shape (T,)), the 95 % box diagonal in metres for a track (shape (T, 2),
    ``[lat, lon]``) — with ``times`` (datetime64, NaT allowed) spanning more than one
    day, the median over its days of each day's diagonal. NaN readings are ignored.

    >>> import numpy as np
    >>> day = np.datetime64("2024-05-01T08:00") + np.arange(4) * np.timedelta64(12, "h")
    >>> lat = np.array([0.0, 0.01, 10.0, 10.01])  # two days, 1.1 km each, 1,100 km apart
    >>> x = np.c_[lat, np.zeros(4)]
    >>> round(data_scale(x).value / 1000), round(data_scale(x, times=day).value)
    (1107, 1051)
    >>> data_scale(x, times=day).name
    "typical day's extent"
    """
    x = np.asarray(values, dtype=float)
    if x.ndim == 2:
        return _track_scale(x, times)
    return _series_scale(x[np.isfinite(x)], unit)


#: one day in nanoseconds: a track's days run 24 hours each from its first fix
_DAY_NS = 86_400 * 10**9


def _box_diagonal(lat: np.ndarray, lon: np.ndarray) -> float:
    """The geodesic diagonal (metres) of the box holding the middle 95 % of the latitudes
    and of the longitudes (unwrapped around the median longitude)."""
    from lmdk_core.foundation.geodesy import distance_m

    lon0 = float(np.median(lon))
    rel_lon = (lon - lon0 + 180.0) % 360.0 - 180.0  # unwrapped around the median
    la = np.percentile(lat, [2.5, 97.5])
    lo = np.percentile(rel_lon, [2.5, 97.5]) + lon0
    return float(distance_m(la[0], lo[0], la[1], lo[1]))


def _track_scale(x: np.ndarray, times: ArrayLike | None = None) -> DataScale:
    """A track's extent (:func:`_box_diagonal`), or with times over more than one day the
    median of its days' extents (days at one place left out)."""
    if x.shape[1] != 2:
        raise InputError("a track is a (T, 2) array of [lat, lon]")
    ok = np.isfinite(x).all(axis=1)
    if not ok.any():
        return DataScale(0.0, "extent", "the track (no valid point)")
    d = _box_diagonal(x[ok, 0], x[ok, 1])
    if not d > 0:
        return DataScale(0.0, "extent", "the track's extent (0 m: it stays at one place)")
    whole = DataScale(d, "extent", f"the track's extent ({format_amount(d, 'm')} corner "
                                   "to corner, middle 95 % of its points)")
    days = _day_extents(x, ok, times)
    if days.size < 2:
        return whole
    v = float(np.median(days))
    return DataScale(v, "typical day's extent",
                     f"a typical day's extent ({format_amount(v, 'm')} corner to corner, "
                     f"the median over the track's {days.size} days; the whole track spans "
                     f"{format_amount(d, 'm')})")


def _day_extents(x: np.ndarray, ok: np.ndarray, times: ArrayLike | None) -> np.ndarray:
    """Each day's extent (metres) of a track whose ``times`` are datetimes: days of 24
    hours from the first fix, those with at least two points that move; empty without
    datetimes or within one day."""
    if times is None:
        return np.zeros(0)
    t = np.asarray(times)
    if not np.issubdtype(t.dtype, np.datetime64) or t.shape[0] != x.shape[0]:
        return np.zeros(0)
    t = t.astype("datetime64[ns]").astype(np.int64)
    good = ok & (t != np.iinfo(np.int64).min)  # NaT
    if good.sum() < 2:
        return np.zeros(0)
    day = (t[good] - t[good].min()) // _DAY_NS
    pts = x[good]
    out = []
    for d in np.unique(day):
        sel = pts[day == d]
        if sel.shape[0] >= 2:
            e = _box_diagonal(sel[:, 0], sel[:, 1])
            if e > 0:
                out.append(e)
    return np.asarray(out)


def _series_scale(x: np.ndarray, unit: str) -> DataScale:
    """A series' scale (its finite readings ``x``): the interquartile range, else the
    standard deviation, else the level |median|; none for a constant-0 series."""
    if x.ndim != 1 or x.size == 0:
        raise InputError("the data must be a non-empty series or a track")
    q1, q3 = np.percentile(x, [25, 75])
    if q3 - q1 > 0:
        v = float(q3 - q1)
        return DataScale(v, "interquartile range",
                         f"the series' spread (interquartile range {format_amount(v, unit)})")
    sd = float(np.std(x))
    if sd > 0:
        return DataScale(sd, "standard deviation",
                         f"the series' spread (standard deviation {format_amount(sd, unit)}; "
                         "the interquartile range is 0)")
    level = float(abs(np.median(x)))
    if level > 0:
        return DataScale(level, "level", f"the series' level ({format_amount(level, unit)}; "
                                         "the series is constant, its spread is 0)")
    return DataScale(0.0, "level", "the series (constant 0: no spread and no level)")


# ------------------------------------------------------------------ the verdict
@dataclass(frozen=True)
class UtilityVerdict:
    """Outcome of :func:`utility_verdict`.

    ``level`` is ``"useful"``, ``"marginal"`` or ``"not useful"``; ``headline`` a few
    words for a badge; ``sentence`` the plain-language explanation (with the advice when
    not useful). Errors are in ``unit`` (metres for tracks); ``typical`` is the median,
    ``worst`` the largest and ``mean`` the average expected error over released
    timestamps (NaN when nothing is released); ``ratio = typical / scale``.
    """

    level: str
    headline: str
    sentence: str
    unit: str
    typical: float
    worst: float
    mean: float
    scale: DataScale
    ratio: float
    n_released: int
    n_approximated: int
    n_withheld: int
    mechanism: str
    advice: str = ""

    @property
    def useful(self) -> bool:
        return self.level == USEFUL

    @property
    def label(self) -> str:
        """The level in words for a badge: "useful", "marginal", "not useful" or
        "not judged" (no scale to compare with)."""
        if self.level == MARGINAL and not self.scale.value > 0 and self.n_released:
            return "not judged"
        return self.level

    def short(self) -> str:
        """The deciding numbers in one phrase, for a narrow column or a terminal:
        "typical error 1.2 kWh (1.7 times the interquartile range 0.723 kWh)"."""
        if self.n_released == 0:
            return "nothing is released"
        tail = (f" ({_ratio_phrase(self.ratio)} the {self.scale.name} "
                f"{format_amount(self.scale.value, self.unit)})" if self.scale.value > 0
                else " (no scale to compare with)")
        return f"mean error {format_amount(self.typical, self.unit)}{tail}"

    def to_dict(self) -> dict:
        """The JSON keys (``utility_*``): level, sentence, the expected errors, the scale
        and its name. Nothing here is a raw value or a landmark position: the errors and
        the scale are aggregates (one number each)."""
        def num(v: float) -> float | None:
            return float(v) if np.isfinite(v) else None
        return {
            "utility": self.level,
            "utility_sentence": self.sentence,
            "expected_error_typical": num(self.typical),
            "expected_error_worst": num(self.worst),
            "expected_error_mean": num(self.mean),
            "expected_error_unit": self.unit,
            "data_scale": num(self.scale.value),
            "data_scale_name": self.scale.name,
            "error_to_scale": num(self.ratio),
        }


class UtilityLine(NamedTuple):
    """The utility line of a publishable text (:func:`declared_utility`)."""

    #: useful, marginal, not useful, or "not judged"
    level: str
    #: the sentence that says why
    sentence: str


def declared_utility(errors: ArrayLike, scale: float | None, scale_name: str,
                     unit: str = "") -> UtilityLine:
    """``(level, sentence)`` of the utility line of a *publishable* text (the public
    release note), from public settings only: ``errors`` are the mechanism's expected
    errors at the budgets of the noisy publications (Laplace Δf/ε_t, Geometric
    2a/(1 − a²), Planar Laplace 2r/ε_t — properties of the mechanism, not measurements),
    ``scale`` a *declared* scale — the declared range HI − LO of a reading (= Δf under
    declared bounds), or the declared Δf — named ``scale_name``. The rule of
    :func:`utility_verdict` with ``typical = median(errors)``: useful when ``typical ≤
    USEFUL_RATIO · scale`` and no error exceeds the scale, not useful above
    ``NOISE_RATIO · scale``, marginal between. No scale (a track: nothing declared about
    its extent): ``"not judged"``. Nothing here is computed from the raw data.

    >>> declared_utility([2.9 * 6] * 3, 2.9, "the declared Δf", "kWh")[0]
    'not useful'
    >>> declared_utility([0.1] * 3, 2.0, "the declared range")[0]
    'useful'
    """
    e = np.asarray(errors, dtype=float)
    if e.size == 0:
        return UtilityLine(NOT_USEFUL, "This release is not useful: nothing is released.")
    typical, worst = float(np.median(e)), float(np.max(e))
    amount = format_amount(typical, unit)
    if scale is None or not scale > 0:
        return UtilityLine("not judged", f"Utility not judged in this note: the expected "
                                         f"error of a noisy value is {amount}, and no scale of "
                                         "the data was declared to compare it with (the data's "
                                         "own spread is computed from the raw data and not "
                                         "stated here).")
    ratio = typical / float(scale)
    compared = (f"the expected error of a noisy value, {amount}, is "
                f"{_ratio_phrase(ratio)} {scale_name} ({format_amount(float(scale), unit)})")
    rule = (f" (useful: at most {USEFUL_RATIO:.0%} of it; noise: above {NOISE_RATIO:.0%}; "
            "both numbers are public settings, not measurements of the data)")
    if ratio <= USEFUL_RATIO and worst <= scale:
        return UtilityLine(USEFUL, f"Useful: {compared}{rule}.")
    if ratio > NOISE_RATIO:
        return UtilityLine(NOT_USEFUL, f"This release is not useful at this scale: {compared} "
                                       f"— the noise hides a change of that size{rule}.")
    return UtilityLine(MARGINAL, f"Marginal: {compared} — broad levels survive, single values "
                                 f"do not{rule}.")


def utility_verdict(values: ArrayLike, epsilon_t: ArrayLike, published: ArrayLike | None = None,
                    *, mechanism: str | None = "laplace", sensitivity: float | None = None,
                    radius: float | None = None, epsilon: float | None = None,
                    n_landmarks: int = 0, scheme: str | None = None, unit: str | None = None,
                    sources: ArrayLike | None = None,
                    scale: DataScale | None = None,
                    errors: ArrayLike | None = None,
                    fresh: ArrayLike | None = None,
                    times: ArrayLike | None = None,
                    readings_in_runs: int = 0,
                    better_scheme: str = "") -> UtilityVerdict:
    """The utility verdict of a release setting (module docstring for the formulas).

    ``epsilon`` (the total budget), ``n_landmarks`` and ``scheme`` only shape the advice
    ("raise ε to about …", "fewer landmarks"); ``unit`` defaults to metres for a track.
    ``scale``: ``data_scale(values, unit)`` when the caller already has it (it does not
    depend on the budget: the Population page's preview computes it once per user, not
    on every change of ε). ``errors``: each reading's expected error when it is not
    the closed form at the pattern given — an Adaptive release's, simulated over whole
    releases (:func:`lmdk_core.decision.adaptive_accuracy.adaptive_expected_errors`).
    ``fresh``: the budget of the fresh post-processing noise of each repeated value
    (:func:`lmdk_core.decision.expected_error.expected_errors`). ``times``: a track's
    times (datetime64), so that a track over several days is judged by a typical day's
    extent (:func:`data_scale`). ``readings_in_runs`` and ``better_scheme`` only shape
    the advice (:class:`~lmdk_core.decision.utility_advice.AdviceSetting`).

    Returns
    -------
    UtilityVerdict
        ``level`` useful / marginal / not useful from the ratio of the typical expected
        error to the data's own scale, with a sentence and advice.

    Examples
    --------
    Laplace noise of scale Δf/ε_t = 1 on readings spread over 0–100:

    >>> import numpy as np
    >>> x = np.linspace(0, 100, 50)
    >>> u = utility_verdict(x, np.full(50, 1.0), sensitivity=1.0)
    >>> u.level, u.typical, u.ratio
    ('useful', 1.0, 0.02)
    >>> utility_verdict(x, np.full(50, 0.001), sensitivity=1.0).level
    'not useful'
    """
    x = np.asarray(values, dtype=float)
    mech = series_mechanism(x, mechanism)
    eps = np.asarray(epsilon_t, dtype=float)
    err, pub, facts = _summary(x, eps, published, mech, sensitivity, radius, unit, sources,
                               scale, errors, fresh, times)
    sc = facts.scale
    if facts.n_released == 0:
        return _nothing_released(facts)
    if not sc.value > 0:
        return _not_judged(facts)
    if facts.level == USEFUL:
        keeps = "the route's shape" if facts.track else "the series' shape"
        sentence = f"Useful: {facts.off}, {facts.compared}. The release keeps {keeps}.{facts.notes}"
        return facts.verdict(USEFUL, "Useful", sentence)
    # the declared r or Δf (checked here too: with measured ``errors`` nothing needed it yet)
    declared = (check_positive(radius, "protection radius r") if mech == "planar_laplace"
                else check_positive(sensitivity, "sensitivity Δf"))
    setting = AdviceSetting(mech, declared,
                            USEFUL_RATIO * sc.value, epsilon, n_landmarks, scheme,
                            track=x.ndim == 2, stays_as_events=sources is not None,
                            readings_in_runs=readings_in_runs, better_scheme=better_scheme)
    advice = release_advice(err, pub, eps, setting)
    return _marginal_or_noise(facts, advice)


class ExpectedUtility(NamedTuple):
    """The two columns of the Population page's preview (:func:`expected_utility`)."""

    #: the median expected error of the released readings (NaN when nothing is released)
    typical: float
    #: the verdict's badge (:attr:`UtilityVerdict.label`)
    label: str


def expected_utility(values: ArrayLike, epsilon_t: ArrayLike, published: ArrayLike | None = None,
                     *, mechanism: str | None = "laplace", sensitivity: float | None = None,
                     radius: float | None = None, unit: str | None = None,
                     sources: ArrayLike | None = None,
                     scale: DataScale | None = None,
                     times: ArrayLike | None = None,
                     fresh: ArrayLike | None = None) -> ExpectedUtility:
    """``(typical, label)`` of :func:`utility_verdict` at the same inputs — the median
    expected error of the released readings (NaN when nothing is released) and the
    verdict's badge (``UtilityVerdict.label``) — without its sentences and advice (the
    advice searches for the ε that would do: the Population page's preview needs only
    these two columns, for every user on every change of ε)."""
    x = np.asarray(values, dtype=float)
    mech = series_mechanism(x, mechanism)
    _, _, facts = _summary(x, np.asarray(epsilon_t, dtype=float), published, mech,
                           sensitivity, radius, unit, sources, scale, fresh=fresh,
                           times=times)
    if facts.n_released and not facts.scale.value > 0:
        return ExpectedUtility(facts.typical, "not judged")
    return ExpectedUtility(facts.typical, facts.level)


def _summary(x: np.ndarray, eps: np.ndarray, published: ArrayLike | None, mech: str,
             sensitivity: float | None, radius: float | None, unit: str | None,
             sources: ArrayLike | None, scale: DataScale | None,
             errors: ArrayLike | None = None, fresh: ArrayLike | None = None,
             times: ArrayLike | None = None
             ) -> tuple[np.ndarray, np.ndarray, _ErrorSummary]:
    """The expected errors (``errors`` when given, else the closed forms), the
    publication flags and their summary (the data's scale computed unless given)."""
    unit = _unit_of(x, unit)
    if errors is None:
        err = expected_errors(x, eps, published, mechanism=mech, sensitivity=sensitivity,
                              radius=radius, sources=sources, fresh=fresh)
    else:
        err = np.asarray(errors, dtype=float)
        if err.shape != eps.shape:
            raise InputError("the expected errors must have one entry per timestamp")
    pub = publication_flags(eps, published)
    sc = data_scale(x, unit, times) if scale is None else scale
    return err, pub, _ErrorSummary.of(err, pub, unit, sc, mech, track=x.ndim == 2)


def _unit_of(x: np.ndarray, unit: str | None) -> str:
    """The errors' unit: metres for a track, else the series' unit (or none)."""
    return "m" if x.ndim == 2 else (unit or "")


@dataclass(frozen=True)
class _ErrorSummary:
    """The expected errors of a release summarised for the verdict's sentences: counts of
    released / approximated / withheld readings, typical (median), worst and mean error."""

    unit: str
    scale: DataScale
    mechanism: str
    track: bool
    n_released: int
    n_approximated: int
    n_withheld: int
    typical: float = float("nan")
    worst: float = float("nan")
    mean: float = float("nan")

    @classmethod
    def of(cls, err: np.ndarray, pub: np.ndarray, unit: str, scale: DataScale, mech: str,
           track: bool) -> _ErrorSummary:
        """The summary of expected errors ``err`` (NaN = withheld) at publication ``pub``."""
        released = np.isfinite(err)
        counts = (int(released.sum()), int((released & ~pub).sum()), int((~released).sum()))
        if not counts[0]:
            return cls(unit, scale, mech, track, *counts)
        e = err[released]
        return cls(unit, scale, mech, track, *counts, float(np.median(e)), float(np.max(e)),
                   float(np.mean(e)))

    @property
    def level(self) -> str:
        """The verdict's level: not useful when nothing is released; marginal without a
        scale; useful when the typical error is within USEFUL_RATIO of the scale and the
        worst within the scale; not useful beyond NOISE_RATIO; marginal between."""
        if self.n_released == 0:
            return NOT_USEFUL
        if not self.scale.value > 0:
            return MARGINAL
        if self.ratio <= USEFUL_RATIO and self.worst / self.scale.value <= 1:
            return USEFUL
        return NOT_USEFUL if self.ratio > NOISE_RATIO else MARGINAL

    @property
    def noun(self) -> str:
        """"point" for a track, "reading" for a series."""
        return "point" if self.track else "reading"

    @property
    def ratio(self) -> float:
        """Typical error over the data's scale (∞ without a scale)."""
        return self.typical / self.scale.value if self.scale.value > 0 else float("inf")

    @property
    def notes(self) -> str:
        """What the counts of approximated and withheld readings mean, as sentences."""
        notes = ""
        if self.n_approximated:
            notes += (f" {self.n_approximated:,} repeated {self.noun}s (approximations) count "
                      "the change since the last publication plus its noise and the fresh "
                      "noise each repeat is shown with.")
        if self.n_withheld:
            notes += (f" {self.n_withheld:,} withheld {self.noun}s (nothing to repeat yet) "
                      "are left out.")
        return notes

    @property
    def off(self) -> str:
        """How far a typical released reading is expected from the truth (and the worst)."""
        worst = ("" if self.worst <= self.typical * 1.005 else
                 f" (the worst {format_amount(self.worst, self.unit)})")
        return (f"a released {self.noun} is on average "
                f"{format_amount(self.typical, self.unit)} from the truth" + worst)

    @property
    def compared(self) -> str:
        """The ratio in words against the scale's description."""
        return f"{_ratio_phrase(self.ratio)} {self.scale.description}"

    def verdict(self, level: str, headline: str, sentence: str,
                advice: str = "") -> UtilityVerdict:
        """The :class:`UtilityVerdict` of this summary at ``level``."""
        return UtilityVerdict(level, headline, sentence, self.unit, self.typical, self.worst,
                              self.mean, self.scale, self.ratio, self.n_released,
                              self.n_approximated, self.n_withheld, self.mechanism, advice)


def _nothing_released(facts: _ErrorSummary) -> UtilityVerdict:
    """Not useful: every ε_t is 0, nothing is released."""
    advice = "raise ε, or choose a scheme that publishes (every ε_t is 0 here)"
    sentence = (f"This release is not useful: nothing is released (every ε_t is 0, so "
                f"no released {facts.noun} carries the data). Try: {advice}.")
    return UtilityVerdict(NOT_USEFUL, "Not useful", sentence, facts.unit, float("nan"),
                          float("nan"), float("nan"), facts.scale, float("inf"), 0, 0,
                          facts.n_withheld, facts.mechanism, advice)


def _not_judged(facts: _ErrorSummary) -> UtilityVerdict:
    """Marginal, not judged: the data have no scale to compare the error with."""
    sentence = (f"Utility not judged: {facts.off}, but there is no scale to compare it with — "
                f"{facts.scale.description}. Judge it against what readers need.{facts.notes}")
    return facts.verdict(MARGINAL, "Utility not judged", sentence)


def _marginal_or_noise(facts: _ErrorSummary, advice: str) -> UtilityVerdict:
    """Marginal (ratio ≤ NOISE_RATIO) or not useful, with the advice that works."""
    if facts.level == NOT_USEFUL:
        sentence = (f"This release is not useful: {facts.off}, {facts.compared} — the noise "
                    f"hides what the data show.{facts.notes} Try: {advice}.")
        return facts.verdict(NOT_USEFUL, "Not useful", sentence, advice)
    if facts.ratio > USEFUL_RATIO:
        why = ("the rough area survives, the route does not" if facts.track else
               "broad levels survive, single readings do not")
    else:
        why = (f"most {facts.noun}s are close, but the worst is farther off than the data's "
               f"whole {facts.scale.name}")
    sentence = (f"Marginal: {facts.off}, {facts.compared}: {why}.{facts.notes} To improve it: "
                f"{advice}.")
    return facts.verdict(MARGINAL, "Marginal utility", sentence, advice)


def release_utility(rel, *, sensitivity: float | None = None, radius: float | None = None,
                    unit: str | None = None, times: ArrayLike | None = None) -> UtilityVerdict:
    """:func:`utility_verdict` of a finished :class:`lmdk_core.engine.release.Release` (its
    data, spent ε_t and publication pattern; Δf or r as the release used them). A track
    released with stays as events (docs/stays.md) publishes each stay's centroid (a
    series' runs, their level: docs/series-events.md): the error of its fixes is counted
    from there, and the advice counts landmark events (one per stay or run) rather than
    fixes. An Adaptive release's expected errors are simulated
    over whole releases from a public seed
    (:func:`lmdk_core.decision.adaptive_accuracy.adaptive_expected_errors`): at the
    pattern it drew, the closed forms over-state them. ``times``: a track's times, for
    its scale (:func:`data_scale`: a typical day's extent over several days)."""
    stays = tuple(getattr(rel, "stays", ()) or ())
    sources = None
    n_events = int(np.size(rel.landmarks))
    declared = getattr(rel, "max_landmarks", None)
    if stays:
        from lmdk_core.engine.stay_events import condense, condensed_points

        cond = condense(rel.original.shape[0], stays)
        sources = condensed_points(rel.original, cond,
                                   whole=rel.mechanism == "geometric")[cond.index]
        n_events -= sum(b - a for a, b in stays)
    errors = None
    if rel.scheme == "adaptive":
        from lmdk_core.decision.adaptive_accuracy import adaptive_expected_errors

        errors = adaptive_expected_errors(rel.original, rel.landmarks, rel.epsilon,
                                          mechanism=rel.mechanism, sensitivity=sensitivity,
                                          radius=radius, stays=stays or None)
    uv = utility_verdict(rel.original, rel.epsilon_t, rel.published,
                         mechanism=rel.mechanism, sensitivity=sensitivity, radius=radius,
                         epsilon=rel.epsilon,
                         # with a declared k, Uniform's share is ε/(k+1): k is what to lower
                         n_landmarks=n_events if declared is None else int(declared),
                         scheme=rel.scheme, unit=unit, sources=sources, errors=errors,
                         fresh=_fresh_of(rel), readings_in_runs=_readings_in_runs(rel),
                         times=times)
    if uv.useful or rel.scheme not in ("uniform", "adaptive") or not np.size(rel.landmarks):
        return uv
    better = _skip_tip(rel, uv, sensitivity=sensitivity, radius=radius, unit=unit,
                       times=times)
    if not better:
        return uv
    return utility_verdict(rel.original, rel.epsilon_t, rel.published,
                           mechanism=rel.mechanism, sensitivity=sensitivity, radius=radius,
                           epsilon=rel.epsilon,
                           n_landmarks=n_events if declared is None else int(declared),
                           scheme=rel.scheme, unit=unit, sources=sources, errors=errors,
                           fresh=_fresh_of(rel), readings_in_runs=_readings_in_runs(rel),
                           better_scheme=better, times=times)


#: the utility levels from worst to best (a scheme is named in the advice when better)
_LEVEL_ORDER = (NOT_USEFUL, MARGINAL, USEFUL)


def _skip_tip(rel, uv: UtilityVerdict, *, sensitivity: float | None, radius: float | None,
              unit: str | None, times: ArrayLike | None = None) -> str:
    """Skip at the same ε, Δf (or r) and landmarks, in words, when its expected utility is
    a better level than ``uv``'s; "" otherwise. Skip spends ε at every regular timestamp
    and nothing at the landmarks (a stay's or run's readings included), which repeat the
    last release plus fresh noise at ε (Katsomallos et al., CODASPY 2022; where Uniform's
    ε/(k+1) drowns a series in noise, Skip keeps the regular readings exact to Δf/ε)."""
    from lmdk_core.engine.allocation import allocate

    T = int(np.size(rel.epsilon_t))
    eps = allocate("skip", T, rel.landmarks, float(rel.epsilon))
    fresh = np.where(eps > 0, 0.0, float(rel.epsilon))
    typical, level = expected_utility(rel.original, eps, eps > 0, mechanism=rel.mechanism,
                                      sensitivity=sensitivity, radius=radius, unit=unit,
                                      scale=uv.scale, fresh=fresh, times=times)
    if level not in _LEVEL_ORDER or _LEVEL_ORDER.index(level) <= _LEVEL_ORDER.index(uv.level):
        return ""
    noun = "point" if rel.original.ndim == 2 else "reading"
    return (f"use Skip (scheme skip: ε at every regular {noun}, nothing at the landmarks, "
            f"which repeat the last release): a typical {noun} would be expected "
            f"{format_amount(typical, uv.unit)} from the truth — {level}")


def _readings_in_runs(rel) -> int:
    """Landmark readings of a series in runs of two or more consecutive landmarks that
    are not released as one event each (0 for a track, or when runs are released so)."""
    if rel.original.ndim != 1 or getattr(rel, "stays", ()):
        return 0
    from lmdk_core.foundation.validation import landmark_runs

    return sum(b - a + 1 for a, b in landmark_runs(rel.landmarks) if b > a)


def _fresh_of(rel) -> np.ndarray | None:
    """The budget of the fresh noise on each repeated value of ``rel`` (None: none)."""
    mask = getattr(rel, "renoised", None)
    if mask is None:
        return np.zeros(np.size(rel.epsilon_t))
    return np.where(mask, float(rel.renoise_epsilon), 0.0)
