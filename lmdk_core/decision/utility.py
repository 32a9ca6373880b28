"""Utility beside privacy: the expected error of a release, against the data's own scale.

A release can be landmark-private and still be noise. This module says, for a release
setting (the allocation ε_t, the mechanism, the sensitivity Δf of a series or the
protection radius r of a track, and the data), **how far a released reading is expected
to be from the truth**, in the data's units, and whether that is small next to how much
the data themselves vary. Every page, the privacy report, the release note and the
``lmdk`` JSON take their utility line from :func:`utility_verdict` (or
:func:`release_utility`), shown next to the privacy verdict of :mod:`lmdk_core.decision.verdict`.

**Expected error of one released reading** (the exact laws of
:mod:`lmdk_core.decision.accuracy`):

* a timestamp **published** with budget ε_t carries the mechanism's noise Z:

  - Laplace, b = Δf/ε_t (Dwork et al., TCC 2006): ``E|Z| = Δf/ε_t``;
  - two-sided Geometric, α = e^{−ε_t/Δf} (Ghosh et al., STOC 2009):
    ``E|Z| = 2α/(1 − α²)`` (exact; ≈ Δf/ε_t when ε_t ≪ Δf);
  - Planar Laplace with protection radius r (Andrés et al., "Geo-indistinguishability",
    CCS 2013): the displacement is Gamma(2, r/ε_t), ``E R = 2r/ε_t`` metres;

* an **approximated** timestamp (Skip's landmarks, Adaptive's skips; Katsomallos et al.,
  "Landmark privacy", CODASPY 2022) repeats the last publication s(t): its error is the
  data's change since then plus that publication's noise, ``E|δ_t + Z_{s(t)}|`` with
  ``δ_t = x_{s(t)} − x_t`` (for a track, δ_t is the distance in metres between the two
  true points): ``|δ| + b·e^{−|δ|/b}`` for Laplace, ``|d| + 2α^{|d|+1}/(1 − α²)`` for
  Geometric, and the integral over the noise's angle and radius for Planar Laplace;
* a **withheld** timestamp (nothing published yet to repeat) has no error: it is left
  out and counted.

The expectation is over the noise, at the publication pattern given (a static scheme's
``ε_t > 0``; for Adaptive, the pattern of the release actually drawn).

**Summary over t.** ``typical`` is the median over released timestamps, ``worst`` the
largest, ``mean`` the average (what the measured MAE estimates).

**The data's own scale.**

* series: the **interquartile range** (75th − 25th percentile) — the spread of the
  middle half of the readings, not moved by a few landmark spikes; when it is 0 (most
  readings equal) the standard deviation; when that is 0 too (a constant series) the
  series' level ``|median|``; a series that is constant 0 has no scale;
* track: the **extent**, the diagonal (geodesic, metres) of the box holding the middle
  95 % of the latitudes and of the longitudes (2.5th to 97.5th percentile each, so that
  a few GPS spikes do not inflate it); a track at one place has no scale.

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
larger r, a smaller Δf than one event changes).

See ``docs/utility.md``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.decision.accuracy import _geometric_mean
from lmdk_core.engine.validation import InputError, check_positive

__all__ = [
    "USEFUL", "MARGINAL", "NOT_USEFUL", "USEFUL_RATIO", "NOISE_RATIO",
    "DataScale", "UtilityVerdict", "data_scale", "expected_errors", "release_utility",
    "utility_verdict", "format_amount", "planar_offset_mean",
]

USEFUL, MARGINAL, NOT_USEFUL = "useful", "marginal", "not useful"
#: typical expected error at most this fraction of the data's scale: useful
USEFUL_RATIO = 0.1
#: typical expected error above this fraction of the data's scale: not useful (noise)
NOISE_RATIO = 0.5
MECHANISMS = ("laplace", "geometric", "planar_laplace")


# ------------------------------------------------------------------ formatting
def format_amount(value: float, unit: str) -> str:
    """``value`` with its unit, metres switching to km above 1 km (3 significant digits)."""
    if not np.isfinite(value):
        return "—"
    if unit == "m":
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


def data_scale(values: ArrayLike, unit: str = "") -> DataScale:
    """The data's own scale (see the module docstring): IQR → std → |median| for a
    series (shape (T,)), the 95 % box diagonal in metres for a track (shape (T, 2),
    ``[lat, lon]``). NaN readings are ignored."""
    x = np.asarray(values, dtype=float)
    if x.ndim == 2:
        if x.shape[1] != 2:
            raise InputError("a track is a (T, 2) array of [lat, lon]")
        ok = np.isfinite(x).all(axis=1)
        if not ok.any():
            return DataScale(0.0, "extent", "the track (no valid point)")
        lat, lon = x[ok, 0], x[ok, 1]
        lon0 = float(np.median(lon))
        rel_lon = (lon - lon0 + 180.0) % 360.0 - 180.0  # unwrapped around the median
        la = np.percentile(lat, [2.5, 97.5])
        lo = np.percentile(rel_lon, [2.5, 97.5]) + lon0
        from lmdk_core.engine.geodesy import distance_m

        d = float(distance_m(la[0], lo[0], la[1], lo[1]))
        if not d > 0:
            return DataScale(0.0, "extent", "the track's extent (0 m: it stays at one place)")
        return DataScale(d, "extent", f"the track's extent ({format_amount(d, 'm')} corner "
                                      "to corner, middle 95 % of its points)")
    x = x[np.isfinite(x)]
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


# ------------------------------------------------------------------ per-timestamp expected error
#: the table of the planar offset mean: β = δ/s from 1e-6 to 1e6, log-spaced
_TABLE_BETA = (1e-6, 1e6, 1000)


@functools.cache
def _offset_table():
    """A cubic spline in log β of the excess ``M(β) − β − (β + 2)e^{−β}`` of the engine's
    exact planar mean (:func:`lmdk_core.decision.accuracy._planar_mean_unit`), built once per
    process (about 1 s): within 2e-9 relative of the exact mean (measured 1.03e-9 over
    20,000 random β; tested)."""
    from scipy.interpolate import CubicSpline

    from lmdk_core.decision.accuracy import _planar_mean_unit

    b = np.geomspace(*_TABLE_BETA)
    excess = _planar_mean_unit(b) - b - (b + 2.0) * np.exp(-b)
    return CubicSpline(np.log(b), excess)


def planar_offset_mean(delta: ArrayLike, s: ArrayLike) -> np.ndarray:
    """``E|δ·e + R·u(θ)|`` for R ~ Gamma(2, s) (Planar Laplace at ε_t = r/s; Andrés et
    al. CCS 2013) and θ uniform: the error of a repeated point δ metres from the truth.

    It is ``s·M(δ/s)`` with M the engine's one implementation,
    :func:`lmdk_core.decision.accuracy._planar_mean_unit` (over the angle
    ``max(δ, R)·₂F₁(−½, −½; 1; min²/max²)``, over R Gauss–Legendre panels graded toward
    the kink at R = δ; exact to a few ulps). A page evaluates it for every repeated
    point of a track on every rerun (1,700 points of a 5,000-point Adaptive release took
    4.4 s), so M is read from a cubic spline of its smooth part
    ``M(β) − β − (β + 2)e^{−β}`` on 1,000 log-spaced β in [1e-6, 1e6] (within 2e-9
    relative); beyond the table ``M(β) = β + 1.5/β`` (the noise's E R²/2 = 3 over 2β,
    below 1e-12 relative) and below it ``M(0) = 2`` joined quadratically to the table
(M'(0) = 0). δ = 0 gives 2s.
    """
    d = np.abs(np.asarray(delta, dtype=float))
    sc = np.asarray(s, dtype=float)
    d, sc = np.broadcast_arrays(d, sc)
    beta = d / sc
    lo, hi, _ = _TABLE_BETA
    b = np.clip(beta, lo, hi)
    m = _offset_table()(np.log(b)) + b + (b + 2.0) * np.exp(-b)
    m = np.where(beta > hi, beta + 1.5 / np.where(beta > hi, beta, 1.0), m)
    m_lo = float(_offset_table()(np.log(lo))) + lo + (lo + 2.0) * np.exp(-lo)
    m = np.where(beta < lo, 2.0 + (m_lo - 2.0) * (beta / lo) ** 2, m)
    return sc * m


def _mechanism(values: np.ndarray, mechanism: str | None) -> str:
    if values.ndim == 2:
        return "planar_laplace"
    mech = str(mechanism or "laplace").strip().lower().replace(" ", "_")
    if mech not in ("laplace", "geometric"):
        raise InputError(f"unknown mechanism {mechanism!r} for a series; choose laplace or "
                         "geometric")
    return mech


def expected_errors(values: ArrayLike, epsilon_t: ArrayLike, published: ArrayLike | None = None,
                    *, mechanism: str | None = "laplace", sensitivity: float | None = None,
                    radius: float | None = None, sources: ArrayLike | None = None
                    ) -> np.ndarray:
    """Expected absolute error of each released reading (module docstring): the noise's
    mean at published t, ``E|δ_t + Z_{s(t)}|`` at approximated t, NaN where withheld.

    ``values`` is a series (T,) or a track (T, 2) ``[lat, lon]`` (errors in metres);
    ``published`` defaults to ``epsilon_t > 0``. Laplace/Geometric need ``sensitivity``
    (Δf), Planar Laplace ``radius`` (r, metres). ``sources`` (same shape as ``values``):
    the value a publication at t added its noise to, when it is not ``values[t]`` — a
    stay released as one event publishes its centroid (docs/stays.md), so
    ``δ_t = source_{s(t)} − x_t`` at every fix of the stay, its first one included.
    """
    x = np.asarray(values, dtype=float)
    eps = np.asarray(epsilon_t, dtype=float)
    if x.ndim not in (1, 2) or x.shape[0] != eps.size or eps.ndim != 1:
        raise InputError(f"the allocation has {eps.size} budgets for {x.shape[0]} readings")
    if np.any(~np.isfinite(eps)) or np.any(eps < 0):
        raise InputError("every ε_t must be a finite number ≥ 0")
    pub = eps > 0 if published is None else np.asarray(published, dtype=bool)
    if pub.shape != eps.shape:
        raise InputError("the publication flags must have one entry per timestamp")
    if np.any(pub & (eps <= 0)):
        raise InputError("a published timestamp needs ε_t > 0")
    mech = _mechanism(x, mechanism)
    scale = check_positive(radius if mech == "planar_laplace" else sensitivity,
                           "protection radius r" if mech == "planar_laplace"
                           else "sensitivity Δf")
    T = eps.size
    y = x if sources is None else np.asarray(sources, dtype=float)
    if y.shape != x.shape:
        raise InputError("the publication sources must have the shape of the data")

    def noise_mean(e: np.ndarray) -> np.ndarray:
        """E|Z| of a publication at budget e (no offset)."""
        if mech == "laplace":
            return scale / e
        if mech == "geometric":  # 2α/(1 − α²), 1 − α² = −expm1(−2ε/Δf): exact for tiny ε
            return 2.0 * np.exp(-e / scale) / -np.expm1(-2.0 * e / scale)
        return 2.0 * scale / e

    if sources is None and pub.all():  # every timestamp published from its own value
        return noise_mean(eps)
    idx = np.where(pub, np.arange(T), -1)
    np.maximum.accumulate(idx, out=idx)
    r = np.flatnonzero(idx >= 0)  # released (not withheld)
    src = idx[r]
    e = eps[src]
    vals = noise_mean(e)
    # the readings whose error has an offset: repeated ones, or any whose publication
    # noised another value (a stay's centroid)
    cand = np.flatnonzero(src != r) if sources is None else np.arange(r.size)
    if cand.size:
        t, st = r[cand], src[cand]
        if x.ndim == 1:
            d = np.abs(np.nan_to_num(y[st] - x[t]))
        else:
            from lmdk_core.engine.geodesy import distance_m

            d = np.nan_to_num(distance_m(y[st, 0], y[st, 1], x[t, 0], x[t, 1]))
        nz = d != 0
        cand, d, ec = cand[nz], d[nz], e[cand[nz]]
        if mech == "laplace":
            b = scale / ec
            # |δ| + b·e^{−|δ|/b}; past |δ|/b = 60 the second term is below |δ|'s last bit
            vals[cand] = d + b * np.exp(-np.minimum(d / b, 60.0))
        elif mech == "geometric":
            vals[cand] = _geometric_mean(d, np.exp(-ec / scale))
        else:
            vals[cand] = planar_offset_mean(d, scale / ec)
    out = np.full(T, np.nan)
    out[r] = vals
    return out


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
        return f"typical error {format_amount(self.typical, self.unit)}{tail}"

    def public_sentence(self) -> str:
        """The verdict for a *publishable* text (the release note): the level in words
        without any number computed from the raw data — no scale (it is the data's
        spread or extent), no worst error (a repeated reading's error is the data's
        change), no landmark count in the advice."""
        rule = (f"(a typical expected error of at most {USEFUL_RATIO:.0%} of the data's "
                f"spread is useful, above {NOISE_RATIO:.0%} it is noise; the spread itself is "
                "computed from the raw data and not stated here)")
        if self.n_released == 0:
            return "This release is not useful: nothing is released."
        if self.label == "not judged":
            return ("Utility not judged: the data do not vary, so the expected error cannot "
                    "be compared with their spread.")
        if self.level == USEFUL:
            return ("Useful: the expected error of a released value is small next to how "
                    f"much the data vary {rule}.")
        if self.level == MARGINAL:
            return ("Marginal: the expected error of a released value is a sizeable part of "
                    f"how much the data vary — broad levels survive, single values do not "
                    f"{rule}.")
        return ("This release is not useful: the expected error of a released value is "
                "comparable to or larger than how much the data themselves vary — the noise "
                f"hides what the data show {rule}.")

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


def _needed_budget(mech: str, scale_unit: float, target: float) -> float:
    """The ε_t at which a published reading's expected error equals ``target``:
    Laplace Δf/a, Planar Laplace 2r/a, Geometric −Δf·ln α with 2α/(1−α²) = a, i.e.
    α = (√(1 + a²) − 1)/a."""
    if mech == "laplace":
        return scale_unit / target
    if mech == "planar_laplace":
        return 2.0 * scale_unit / target
    a = target
    alpha = (np.sqrt(1.0 + a * a) - 1.0) / a
    return float(-scale_unit * np.log(alpha)) if alpha > 0 else float("inf")


def utility_verdict(values: ArrayLike, epsilon_t: ArrayLike, published: ArrayLike | None = None,
                    *, mechanism: str | None = "laplace", sensitivity: float | None = None,
                    radius: float | None = None, epsilon: float | None = None,
                    n_landmarks: int = 0, scheme: str | None = None, unit: str | None = None,
                    sources: ArrayLike | None = None,
                    scale: DataScale | None = None) -> UtilityVerdict:
    """The utility verdict of a release setting (module docstring for the formulas).

    ``epsilon`` (the total budget), ``n_landmarks`` and ``scheme`` only shape the advice
    ("raise ε to about …", "fewer landmarks"); ``unit`` defaults to metres for a track.
    ``scale``: ``data_scale(values, unit)`` when the caller already has it (it does not
    depend on the budget: the Population page's preview computes it once per user, not
    on every change of ε).

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
    mech = _mechanism(x, mechanism)
    unit = "m" if x.ndim == 2 else (unit or "")
    err = expected_errors(x, epsilon_t, published, mechanism=mech, sensitivity=sensitivity,
                          radius=radius, sources=sources)
    eps = np.asarray(epsilon_t, dtype=float)
    pub = eps > 0 if published is None else np.asarray(published, dtype=bool)
    sc = data_scale(x, unit) if scale is None else scale
    released = np.isfinite(err)
    n_rel = int(released.sum())
    n_appr = int((released & ~pub).sum())
    n_with = int((~released).sum())
    scale_unit = float(radius if mech == "planar_laplace" else sensitivity)
    track = x.ndim == 2
    noun = "point" if track else "reading"
    notes = ""
    if n_appr:
        notes += (f" {n_appr:,} repeated {noun}s (approximations) count the change since the "
                  "last publication plus its noise.")
    if n_with:
        notes += f" {n_with:,} withheld {noun}s (nothing to repeat yet) are left out."

    if n_rel == 0:
        advice = "raise ε, or choose a scheme that publishes (every ε_t is 0 here)"
        sentence = (f"This release is not useful: nothing is released (every ε_t is 0, so "
                    f"no released {noun} carries the data). Try: {advice}.")
        return UtilityVerdict(NOT_USEFUL, "Not useful", sentence, unit, float("nan"),
                              float("nan"), float("nan"), sc, float("inf"), 0, 0, n_with, mech,
                              advice)

    e = err[released]
    typical, worst, mean = float(np.median(e)), float(np.max(e)), float(np.mean(e))
    off = (f"a typical released {noun} is expected {format_amount(typical, unit)} from the "
           "truth" + ("" if worst <= typical * 1.005 else
                      f" (the worst {format_amount(worst, unit)})"))
    if not sc.value > 0:
        sentence = (f"Utility not judged: {off}, but there is no scale to compare it with — "
                    f"{sc.description}. Judge it against what readers need.{notes}")
        return UtilityVerdict(MARGINAL, "Utility not judged", sentence, unit, typical, worst,
                              mean, sc, float("inf"), n_rel, n_appr, n_with, mech)
    ratio = typical / sc.value
    worst_ratio = worst / sc.value
    compared = f"{_ratio_phrase(ratio)} {sc.description}"
    if ratio <= USEFUL_RATIO and worst_ratio <= 1:
        keeps = "the route's shape" if track else "the series' shape"
        sentence = f"Useful: {off}, {compared}. The release keeps {keeps}.{notes}"
        return UtilityVerdict(USEFUL, "Useful", sentence, unit, typical, worst, mean, sc,
                              ratio, n_rel, n_appr, n_with, mech)

    advice = _advice(x, err, pub, eps, mech, scale_unit, sc, epsilon, n_landmarks, scheme,
                     stays_as_events=sources is not None)
    if ratio <= NOISE_RATIO:
        if ratio > USEFUL_RATIO:
            why = ("the rough area survives, the route does not" if track else
                   "broad levels survive, single readings do not")
        else:
            why = (f"most {noun}s are close, but the worst is farther off than the data's "
                   f"whole {sc.name}")
        sentence = f"Marginal: {off}, {compared}: {why}.{notes} To improve it: {advice}."
        return UtilityVerdict(MARGINAL, "Marginal utility", sentence, unit, typical, worst,
                              mean, sc, ratio, n_rel, n_appr, n_with, mech, advice)
    sentence = (f"This release is not useful: {off}, {compared} — the noise hides what the "
                f"data show.{notes} Try: {advice}.")
    return UtilityVerdict(NOT_USEFUL, "Not useful", sentence, unit, typical, worst, mean, sc,
                          ratio, n_rel, n_appr, n_with, mech, advice)


def _advice(x: np.ndarray, err: np.ndarray, pub: np.ndarray, eps: np.ndarray, mech: str,
            scale_unit: float, sc: DataScale, epsilon: float | None, n_landmarks: int,
            scheme: str | None, stays_as_events: bool = False) -> str:
    """What works, most effective first, and what does not (module docstring)."""
    tips: list[str] = []
    target = USEFUL_RATIO * sc.value
    pub_err = err[pub]
    noun = "point" if x.ndim == 2 else "reading"
    appr = np.isfinite(err) & ~pub
    # repeated readings that drift from the truth: more noise budget does not fix them
    drift = bool(appr.any() and np.median(err[appr]) > 2 * (np.median(pub_err) if pub_err.size
                                                            else 0.0))
    if drift:
        tips.append("publish where the values change (Uniform publishes every timestamp; "
                    "Skip and Adaptive repeat old values that drift from the truth)")
    if pub_err.size:
        eps_pub = float(np.median(eps[pub]))
        need = _needed_budget(mech, scale_unit, target)
        if epsilon is not None and np.isfinite(need) and eps_pub > 0:
            total = float(epsilon) * need / eps_pub
            tips.append(f"raise ε to about {total:.3g} (each published {noun} needs ε_t ≈ "
                        f"{need:.3g}; it gets {eps_pub:.3g} now)")
        else:
            tips.append(f"raise ε_t to about {need:.3g} per published reading")
        if n_landmarks and epsilon is not None and eps_pub < float(epsilon) / 2 and (
                scheme is None or scheme in ("uniform", "adaptive")):
            tips.append(f"fewer landmarks ({n_landmarks:,} landmarks share ε, so each "
                        f"{noun} gets {eps_pub / float(epsilon):.2g} of it)")
            if x.ndim == 2 and n_landmarks >= 20 and not stays_as_events:
                tips.append("protect each stay as one event rather than each of its points")
    if mech == "planar_laplace":
        tips.append("a larger r is not a fix (the displacement grows as 2r/ε_t); a smaller r "
                    "shrinks it but hides less")
    else:
        tips.append("a smaller Δf is not a fix unless one event really changes a value by "
                    "less")
    return "; ".join(tips)


def release_utility(rel, *, sensitivity: float | None = None, radius: float | None = None,
                    unit: str | None = None) -> UtilityVerdict:
    """:func:`utility_verdict` of a finished :class:`lmdk_core.engine.release.Release` (its
    data, spent ε_t and publication pattern; Δf or r as the release used them). A track
    released with stays as events (docs/stays.md) publishes each stay's centroid: the
    error of its fixes is counted from there, and the advice counts landmark events
    (one per stay) rather than fixes."""
    stays = tuple(getattr(rel, "stays", ()) or ())
    sources = None
    n_events = int(np.size(rel.landmarks))
    if stays:
        from lmdk_core.engine.stay_events import condense, condensed_points

        cond = condense(rel.original.shape[0], stays)
        sources = condensed_points(rel.original, cond)[cond.index]
        n_events -= sum(b - a for a, b in stays)
    return utility_verdict(rel.original, rel.epsilon_t, rel.published,
                           mechanism=rel.mechanism, sensitivity=sensitivity, radius=radius,
                           epsilon=rel.epsilon, n_landmarks=n_events,
                           scheme=rel.scheme, unit=unit, sources=sources)
