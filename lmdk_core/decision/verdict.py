"""One honest verdict: the landmark-privacy theorem plus, when a correlation model is
assumed, landmark temporal privacy leakage under that model.

Two quantities decide whether a release may be called landmark ε-private:

1. **The theorem** (Katsomallos et al., "Landmark privacy: configurable differential
   privacy protection for time series", CODASPY 2022): a release of *independent*
   per-timestamp ε_t-DP mechanisms is landmark ε-private if for every t
   ``Σ_{i∈L∪{t}} ε_i ≤ ε`` (a sufficient condition; necessary only when every ε_t is
   tight). Checked by the one verifier,
   :func:`lmdk_core.engine.verifier.verify` (with its own tolerance).
2. **Landmark TPL** under an assumed Markov correlation (Cao et al., ICDE 2017 / TKDE
   2018, extended to landmarks in :func:`lmdk_core.leakage.landmark_tpl`): the leakage
   of all landmarks plus one timestamp when consecutive values are correlated. Without
   correlation it equals the theorem's total; with correlation it is larger.

The verdict has three colours:

* **red** — the theorem fails: not landmark-private even for independent values;
* **amber** — the theorem holds, but under the assumed correlation
  ``max_t landmark_TPL_t > ε·(1 + LEAKAGE_RTOL)``: landmark-private *if consecutive
  values were independent*, not under the assumed correlation;
* **green** — the theorem holds and (when a model is given) landmark TPL stays
  ``≤ ε·(1 + LEAKAGE_RTOL)`` at every t. With no correlation model the verdict is the
  theorem's alone (green or red).

Every page, the privacy report and ``lmdk`` JSON take their verdict from
:func:`privacy_verdict`. Each verdict carries ``why``: **one plain sentence** saying why
it has its colour. An amber verdict given the correlation model's matrices (or loss
functions) also carries **advice that works**, computed and checked
(:func:`calibration_advice`): lowering ε alone cannot turn it green — under correlation
landmark TPL grows about in proportion to ε, so it stays the same multiple of ε — but
spending less than ε *while keeping the target* does: scale the allocation by the
largest ``c`` with ``max_t landmark TPL(c·ε_t) ≤ α`` (Cao et al.'s calibration, the
ConTPL demo), i.e. set the total to ``c·ε`` and the leakage target to ``α`` (default the
ε the user chose). The advice is only offered after the verdict of the scaled
allocation has been computed and is green. See ``docs/correlation.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.engine.verifier import Verdict, verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import counted

__all__ = ["GREEN", "AMBER", "RED", "LEAKAGE_RTOL", "CalibrationAdvice", "PrivacyVerdict",
           "calibration_advice", "privacy_verdict"]

GREEN, AMBER, RED = "green", "amber", "red"

#: relative tolerance on landmark TPL ≤ ε. Landmark TPL is the result of two loss-function
#: recursions (sums of logarithms); without correlation it reproduces the theorem's total
#: up to rounding of a few ulps per step, so 1e-9 of ε is far above rounding and far below
#: any figure the app or the report prints (3–4 significant digits).
LEAKAGE_RTOL = 1e-9


@dataclass(frozen=True)
class CalibrationAdvice:
    """The advice of an amber verdict, checked: spend ``epsilon`` (= ``scale`` × the
    current ε, every ε_t scaled alike) and landmark TPL stays ≤ ``target`` (reached:
    ``achieved``) under the same model — the verdict of that allocation is green."""

    scale: float
    epsilon: float
    target: float
    achieved: float
    estimated: str | None = None

    def sentence(self) -> str:
        """The advice in one sentence (for an estimated model: under every smoothing of
        the range ``estimated``)."""
        under = ("under this model" if self.estimated is None else
                 f"under the model estimated with every smoothing of {self.estimated}")
        return (f"Calibrate: spending ε = {self.epsilon:.3g} (every ε_t × {self.scale:.3g}, "
                f"same scheme) keeps landmark TPL ≤ {self.target:.4g} {under} "
                f"(it reaches {self.achieved:.3g}), which turns the verdict green.")

    def to_dict(self) -> dict:
        return {"calibrated_epsilon": float(self.epsilon), "calibration_scale": float(self.scale),
                "calibrated_landmark_tpl_max": float(self.achieved)}


@dataclass(frozen=True)
class PrivacyVerdict:
    """Outcome of :func:`privacy_verdict`.

    ``colour`` is ``"green"``, ``"amber"`` or ``"red"``; ``headline`` a few words for a
    badge; ``sentence`` the plain-language explanation. ``estimated`` is the smoothing
    range in words when the model was estimated from the data (landmark TPL is then the
    worst over that range), else None. ``worst_timestamp`` is where the
    verdict is decided: the theorem's worst t (green, red) or the t of the largest
    landmark TPL (amber). ``landmark_tpl_max`` is ``None`` when no correlation model was
    given (or it could not be evaluated: ``model_note`` says why). ``why`` is one plain
    sentence saying why the verdict has its colour; ``advice`` (amber only, when the
    model's matrices were given) the checked calibration that turns it green.
    """

    colour: str
    headline: str
    sentence: str
    epsilon: float
    theorem: Verdict
    worst_timestamp: int
    landmark_tpl_max: float | None = None
    landmark_tpl_timestamp: int | None = None
    model: str | None = None
    model_note: str | None = None
    leakage_target: float | None = None
    why: str = ""
    advice: CalibrationAdvice | None = None
    estimated: str | None = None

    @property
    def private(self) -> bool:
        """The theorem's verdict (independent releases)."""
        return self.theorem.private

    @property
    def green(self) -> bool:
        return self.colour == GREEN

    def to_dict(self) -> dict:
        """The JSON keys: the verifier's (``landmark_private``, ``worst_timestamp``,
        ``worst_total``) plus ``verdict`` (the colour) and, when a correlation model was
        given, ``landmark_tpl_max`` and ``landmark_tpl_timestamp``."""
        out = {**self.theorem.to_dict(), "verdict": self.colour,
               "verdict_why": self.why, "verdict_sentence": self.sentence}
        if self.landmark_tpl_max is not None:
            # set together by privacy_verdict
            assert self.landmark_tpl_timestamp is not None and self.leakage_target is not None
            out["landmark_tpl_max"] = float(self.landmark_tpl_max)
            out["landmark_tpl_timestamp"] = int(self.landmark_tpl_timestamp)
            out["leakage_target"] = float(self.leakage_target)
            out["correlation_model_estimated"] = self.estimated is not None
            if self.estimated is not None:
                out["smoothing_range"] = self.estimated
        if self.advice is not None:
            out.update(self.advice.to_dict())
        return out


def _at(t: int, labels: Sequence[str] | None) -> str:
    return f"t={t}" + (f" ({labels[t]})" if labels is not None and t < len(labels) else "")


def privacy_verdict(
    epsilon_t: ArrayLike,
    landmarks: Iterable[int] | None,
    epsilon: float,
    *,
    landmark_tpl: ArrayLike | None = None,
    backward=None,
    forward=None,
    model: str | None = None,
    model_note: str | None = None,
    time_labels: Sequence[str] | None = None,
    leakage_target: float | None = None,
    groups: Iterable[tuple[int, int]] | None = None,
    advise: bool = True,
    advice: CalibrationAdvice | None = None,
    alternatives: Sequence[tuple] = (),
    estimated: str | None = None,
) -> PrivacyVerdict:
    """The verdict of allocation ``epsilon_t`` for landmark set ``landmarks`` and budget ε.

    The theorem is checked with :func:`~lmdk_core.engine.verifier.verify`. The correlation
    model is given either as the already computed landmark TPL per timestamp
    (``landmark_tpl``) or as backward/forward transition matrices or loss functions
    (``forward`` defaults to ``backward``), in which case landmark TPL is computed with
    :func:`lmdk_core.leakage.landmark_tpl`. ``model`` names the model in the sentence;
    ``model_note`` explains why a model could not be evaluated (the verdict is then the
    theorem's, and the sentence says so). ``time_labels`` (one per timestamp) name the
    worst timestamp in words. ``leakage_target`` (default ε) is the most landmark TPL
    accepted under the model — a calibration to a target α stores α here; the sentence
    then names it.
    ``groups``: stays protected as one landmark event each (the verifier's grouped
    form; docs/stays.md). ``advise``: an amber verdict given ``backward`` (with or without
    ``landmark_tpl``) computes :func:`calibration_advice` (a few dozen landmark-TPL
    evaluations, linear in the length) and names it in the sentence; ``advice`` passes
    an advice computed (and cached) by the caller instead.
    ``alternatives``: more ``(backward, forward)`` models; landmark TPL computed here and
    the advice then take the worst over all of them (the conservative model of an
    estimated correlation, :mod:`lmdk_core.leakage.conservative`). ``estimated``: the
    model was estimated from the data and landmark TPL (given or computed) is the worst
    over this smoothing range, in words (``"1, 0.5, 0.1 and 0.01"``); the sentences say
    so.

    Returns
    -------
    PrivacyVerdict
        ``colour`` green (the theorem holds and landmark TPL ≤ the target, or no model),
        amber (the theorem holds but landmark TPL under the model exceeds it: Cao et
        al., ICDE 2017) or red (the theorem fails), with a headline and a sentence.

    Examples
    --------
    >>> import numpy as np
    >>> from lmdk_core.engine.allocation import allocate
    >>> eps_t = allocate("uniform", 5, [1, 3], 1.0)
    >>> privacy_verdict(eps_t, [1, 3], 1.0).colour
    'green'
    >>> privacy_verdict(allocate("event", 5, [1, 3], 1.0), [1, 3], 1.0).colour
    'red'
    >>> sticky = np.array([[0.9, 0.1], [0.1, 0.9]])  # a value tends to stay the same
    >>> v = privacy_verdict(eps_t, [1, 3], 1.0, backward=sticky, advise=False)
    >>> v.colour, round(v.landmark_tpl_max, 3)
    ('amber', 1.797)
    """
    theorem = verify(epsilon_t, landmarks, epsilon, groups=groups)
    lm_list = theorem.landmarks.tolist()
    lt = _landmark_tpl_values(theorem, epsilon_t, lm_list, landmark_tpl, backward, forward,
                              alternatives)
    ctx = _VerdictContext(theorem, _leakage_target(theorem.epsilon, leakage_target),
                          _who_is_protected(theorem), time_labels, model, model_note,
                          *_tpl_peak(lt), estimated if lt is not None else None)
    if not theorem.private:
        return _red_verdict(ctx)
    if ctx.lt_max is None:
        return _green_without_model(ctx)
    if ctx.tpl_within_target:
        return _green_under_model(ctx)
    if advice is None and advise and backward is not None and np.isfinite(ctx.lt_max):
        advice = calibration_advice(epsilon_t, lm_list, epsilon=theorem.epsilon, target=ctx.alpha,
                                    backward=backward, forward=forward, groups=groups,
                                    alternatives=alternatives, estimated=ctx.estimated)
    return _amber_verdict(ctx, advice)


def _landmark_tpl_values(theorem: Verdict, epsilon_t: ArrayLike, lm_list: list[int],
                         landmark_tpl: ArrayLike | None, backward, forward,
                         alternatives: Sequence[tuple] = ()) -> np.ndarray | None:
    """Landmark TPL per timestamp: the given values (checked against the length), computed
    from ``backward``/``forward`` (:func:`lmdk_core.leakage.landmark_tpl`; with
    ``alternatives``, the curve of the model whose largest landmark TPL is the worst,
    :func:`lmdk_core.leakage.conservative.worst_curve`), or None."""
    if landmark_tpl is not None:
        lt = np.asarray(landmark_tpl, dtype=float)
        if lt.shape != theorem.totals.shape:
            raise InputError(f"landmark TPL has {lt.size} values for {theorem.totals.size} "
                             "timestamps")
        return lt
    if backward is None:
        return None
    from lmdk_core.leakage import landmark_tpl as _landmark_tpl
    from lmdk_core.leakage.conservative import worst_curve

    if not alternatives:
        return _landmark_tpl(epsilon_t, lm_list, backward, forward)
    return worst_curve(epsilon_t, lm_list, [(backward, forward), *alternatives])[0]


def _leakage_target(eps: float, leakage_target: float | None) -> float:
    """The accepted landmark TPL α: ``leakage_target``, default ε; must be finite and > 0."""
    alpha = eps if leakage_target is None else float(leakage_target)
    if not np.isfinite(alpha) or alpha <= 0:
        raise InputError(f"the leakage target must be a number > 0, got {leakage_target!r}")
    return alpha


def _tpl_peak(lt: np.ndarray | None) -> tuple[float | None, int | None]:
    """(largest landmark TPL, its timestamp), or (None, None) without a model; NaN refused."""
    if lt is None:
        return None, None
    if np.any(np.isnan(lt)):
        raise InputError("landmark TPL contains NaN")
    lt_t = int(np.argmax(lt))
    return float(lt[lt_t]), lt_t


def _who_is_protected(theorem: Verdict) -> str:
    """Who the verdict speaks about: the landmarks (or, with stays, the landmark events)
    plus any one timestamp (docs/stays.md: a stay counts as one event, not its fixes)."""
    n_lm = theorem.landmarks.size
    if not theorem.groups:
        return f"the {counted(n_lm, 'landmark')} plus any one timestamp"
    n_g = len(theorem.groups)
    n_fix = sum(b - a + 1 for a, b in theorem.groups)
    singles = (f", and {counted(n_lm - n_fix, 'single landmark')}" if n_lm > n_fix else "")
    return (f"the {counted(n_g + n_lm - n_fix, 'landmark event')} ({counted(n_g, 'stay')} "
            f"of {n_fix:,} fixes, each one event{singles}) plus any one timestamp")


@dataclass(frozen=True)
class _VerdictContext:
    """What every colour's sentences are made of: the theorem's verdict, the leakage target
    α, who is protected, the labels and model names, and the landmark TPL peak."""

    theorem: Verdict
    alpha: float
    who: str
    time_labels: Sequence[str] | None
    model: str | None
    model_note: str | None
    lt_max: float | None
    lt_t: int | None
    estimated: str | None = None

    @property
    def eps(self) -> float:
        """The budget ε checked by the theorem."""
        return self.theorem.epsilon

    @property
    def tpl_within_target(self) -> bool:
        """Whether the largest landmark TPL is finite and ``≤ α·(1 + LEAKAGE_RTOL)``."""
        lt = self.lt_max
        return lt is not None and bool(np.isfinite(lt) and lt <= self.alpha * (1 + LEAKAGE_RTOL))

    @property
    def peak_t(self) -> int:
        """Where landmark TPL peaks (a verdict under a model has a peak)."""
        if self.lt_t is None:
            raise ValueError("no landmark TPL peak: the verdict has no correlation model")
        return self.lt_t

    @property
    def alpha_name(self) -> str:
        """``"ε"`` when the target is the budget, else ``"the target α"``."""
        return "ε" if self.alpha == self.eps else "the target α"

    @property
    def bound(self) -> str:
        """The bound landmark TPL is compared with, in words with its value."""
        return (f"ε = {self.eps:.4g}" if self.alpha == self.eps
                else f"the leakage target α = {self.alpha:.4g}")

    @property
    def model_tail(self) -> str:
        """`` — model X.`` when the model is named, else ``.``; for an estimated model
        the range of smoothing its worst case was taken over."""
        tail = f" — model {self.model}" if self.model else ""
        if self.estimated:
            tail += (f"{' (' if tail else ' — model estimated from the raw data ('}the worst "
                     f"over smoothing {self.estimated})")
        return tail + "."

    @property
    def under(self) -> str:
        """How the sentence names the model: ``"the assumed correlation (X)"``, or for an
        estimated model ``"the correlation estimated from the data (X; the worst over
        smoothing …)"``."""
        if self.estimated:
            named = self.model or "estimated from the data"
            return f"the correlation {named} (the worst over smoothing {self.estimated})"
        return "the assumed correlation" + (f" ({self.model})" if self.model else "")

    @property
    def spend(self) -> str:
        """The theorem's sentence start: who spends at most the worst total ≤ ε (4 digits)."""
        return (f"{self.who[0].upper()}{self.who[1:]} spend at most "
                f"{self.theorem.worst_total:.4g} ≤ ε = {self.eps:.4g}")

    def at(self, t: int) -> str:
        """Timestamp ``t`` in words (with its label when there is one)."""
        return _at(t, self.time_labels)

    def verdict(self, colour: str, headline: str, sentence: str, worst: int, why: str,
                advice: CalibrationAdvice | None = None) -> PrivacyVerdict:
        """The :class:`PrivacyVerdict` of this context with the given colour and words."""
        return PrivacyVerdict(colour, headline, sentence, self.eps, self.theorem, worst,
                              self.lt_max, self.lt_t, self.model, self.model_note,
                              self.alpha, why, advice, self.estimated)


def _red_verdict(ctx: _VerdictContext) -> PrivacyVerdict:
    """Red: the theorem fails, the budget is overspent at the worst timestamp."""
    th = ctx.theorem
    n_bad = th.violations.size
    t = th.worst_timestamp
    sentence = (f"At {ctx.at(t)} the landmarks plus that timestamp spend "
                f"{th.worst_total:.4g} > ε = {ctx.eps:.4g}; {n_bad} timestamp"
                f"{'s are' if n_bad != 1 else ' is'} over budget. Not landmark-private "
                "even if consecutive values were independent: choose another scheme or "
                "fewer landmarks.")
    why = (f"Red because the budget itself is overspent: at {ctx.at(t)} "
           f"the {counted(th.landmarks.size, 'landmark')} plus that timestamp spend "
           f"{th.worst_total:.3g} > ε = {ctx.eps:.3g}, whatever the correlation.")
    return ctx.verdict(RED, "Not landmark-private", sentence, t, why)


def _spent_short(ctx: _VerdictContext) -> str:
    """Who spends at most the worst total ≤ ε, at 3 significant digits (the ``why``)."""
    return f"{ctx.who} spend at most {ctx.theorem.worst_total:.3g} ≤ ε = {ctx.eps:.3g}"


def _green_without_model(ctx: _VerdictContext) -> PrivacyVerdict:
    """Green on the theorem alone: no correlation model was evaluated."""
    th = ctx.theorem
    note = ctx.model_note
    tail = (f" No correlation model was evaluated: {note}" if note else
            " This assumes consecutive values are independent (no correlation model).")
    why = (f"Green because {_spent_short(ctx)}; no correlation model was evaluated"
           + (f" ({note.strip().rstrip('.')})" if note else "")
           + ", so this holds if consecutive values are independent.")
    sentence = f"{ctx.spend} (largest total at {ctx.at(th.worst_timestamp)})." + tail
    return ctx.verdict(GREEN, "Landmark-private", sentence, th.worst_timestamp, why)


def _amber_verdict(ctx: _VerdictContext, advice: CalibrationAdvice | None) -> PrivacyVerdict:
    """Amber: the theorem holds but landmark TPL under the model exceeds the target α."""
    about = "any one timestamp" if ctx.theorem.landmarks.size == 0 else ctx.who
    knows = "counts in this data" if ctx.estimated else "knows"
    why = (f"Amber because the data's consecutive values are correlated: an attacker "
           f"who {knows} how they follow each other learns up to {ctx.lt_max:.3g} about "
           f"{about}, more than {ctx.alpha_name} = {ctx.alpha:.3g}, where independent "
           f"values would leak {ctx.theorem.worst_total:.3g}" + ctx.model_tail)
    act = (advice.sentence() if advice is not None else
           "Lowering ε alone does not help (landmark TPL stays about the same multiple "
           "of ε): calibrate the allocation to a target leakage (the Leakage page, "
           "`lmdk calibrate`), use a scheme that spends less on the correlated stretch, "
           "or check that the model fits the data.")
    sentence = (f"{ctx.spend}: landmark-private if consecutive values were independent. "
                f"Under {ctx.under} landmark TPL reaches "
                f"{ctx.lt_max:.4g} > {ctx.bound} at {ctx.at(ctx.peak_t)}. {act}")
    return ctx.verdict(AMBER, "Landmark-private only if values were independent",
                       sentence, ctx.peak_t, why, advice)


def _green_under_model(ctx: _VerdictContext) -> PrivacyVerdict:
    """Green under the model: the theorem holds and landmark TPL stays ≤ the target α."""
    th = ctx.theorem
    sentence = (f"{ctx.spend} (largest total at {ctx.at(th.worst_timestamp)}); under "
                f"{ctx.under} landmark TPL stays at most {ctx.lt_max:.4g} "
                f"≤ {ctx.bound} (largest at {ctx.at(ctx.peak_t)}).")
    if ctx.estimated:
        sentence += (" The model is an estimate from this data: an attacker who knows a "
                     "stronger correlation than any of these fits could learn more.")
        attacker = ("for an attacker who counts how consecutive values follow each other "
                    "in this data, with any of these smoothings")
    else:
        attacker = "even for an attacker who knows how consecutive values follow each other"
    why = (f"Green because {_spent_short(ctx)} and, {attacker}, landmark TPL stays at most "
           f"{ctx.lt_max:.3g} ≤ {ctx.alpha_name} = {ctx.alpha:.3g}" + ctx.model_tail)
    return ctx.verdict(GREEN, "Landmark-private", sentence, th.worst_timestamp, why)


#: Longest allocation for which the verdict computes the calibration advice itself (a
#: few dozen landmark-TPL evaluations: about a second at this length). Longer series get
#: the general advice, and the Leakage page / ``lmdk calibrate`` compute it on request.
ADVICE_MAX_LENGTH = 20_000


def calibration_advice(epsilon_t: ArrayLike, landmarks: Iterable[int] | None,
                       *, epsilon: float, target: float, backward, forward=None, rtol: float = 1e-6,
                       groups: Iterable[tuple[int, int]] | None = None,
                       alternatives: Sequence[tuple] = (),
                       estimated: str | None = None
                       ) -> CalibrationAdvice | None:
    """The checked advice for an amber verdict: the largest ``c`` with
    ``max_t landmark TPL(c·ε_t) ≤ target`` (:func:`lmdk_core.leakage.calibrate_scale`,
    Cao et al.'s calibration), returned only after the verdict of ``c·ε_t`` at total
    ``c·ε`` with leakage target ``target`` has been computed and is green (None
    otherwise, e.g. when ``c·ε`` is below the explorer's smallest ε, or for allocations
    longer than :data:`ADVICE_MAX_LENGTH`). ``groups``: stays
    protected as one event each, passed to the verifier as in :func:`privacy_verdict`.
    ``alternatives``: more ``(backward, forward)`` models; the target then holds under
    every one of them (the worst over them is calibrated and checked: the conservative
    model of an estimated correlation, :mod:`lmdk_core.leakage.conservative`);
    ``estimated`` names their smoothing range in the advice's sentence.

    Why not "lower ε": for small budgets the loss function is nearly linear, so landmark
    TPL is about a fixed multiple of ε and stays above ε for every ε; only decoupling the
    spend (``c·ε``) from the target (``α``) brings it under.
    """
    from lmdk_core.foundation.setting_limits import LIMITS
    from lmdk_core.leakage.calibration import calibrate_scale
    from lmdk_core.leakage.conservative import worst_curve
    from lmdk_core.leakage.tpl import landmark_tpl as _landmark_tpl

    lm = list(landmarks) if landmarks is not None else []
    eps_t = np.asarray(epsilon_t, dtype=float)
    if not np.any(eps_t > 0) or eps_t.size > ADVICE_MAX_LENGTH:
        return None
    cal = calibrate_scale(eps_t, target, backward, forward, lm, rtol=rtol,
                          also=alternatives)
    assert cal.epsilon_t is not None  # a scale calibration returns its allocation
    new_eps = cal.value * float(epsilon)
    if not LIMITS["epsilon"].low <= new_eps <= LIMITS["epsilon"].high:
        return None
    # the search has computed each model's maximum at c already: only the worst curve
    lt = (worst_curve(cal.epsilon_t, lm, [(backward, forward), *alternatives],
                      peaks=cal.model_peaks)[0]
          if alternatives else _landmark_tpl(cal.epsilon_t, lm, backward, forward))
    check = privacy_verdict(cal.epsilon_t, lm, new_eps, landmark_tpl=lt,
                            leakage_target=target, advise=False, groups=groups)
    if check.colour != GREEN:
        return None
    return CalibrationAdvice(scale=float(cal.value), epsilon=float(new_eps),
                             target=float(target), achieved=float(np.max(lt)),
                             estimated=estimated)
