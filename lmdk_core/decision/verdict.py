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

from lmdk_core.engine.validation import InputError
from lmdk_core.engine.verifier import Verdict, verify

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

    def sentence(self) -> str:
        """The advice in one sentence."""
        return (f"Calibrate: spending ε = {self.epsilon:.3g} (every ε_t × {self.scale:.3g}, "
                f"same scheme) keeps landmark TPL ≤ {self.target:.4g} under this model "
                f"(it reaches {self.achieved:.3g}), which turns the verdict green.")

    def to_dict(self) -> dict:
        return {"calibrated_epsilon": float(self.epsilon), "calibration_scale": float(self.scale),
                "calibrated_landmark_tpl_max": float(self.achieved)}


@dataclass(frozen=True)
class PrivacyVerdict:
    """Outcome of :func:`privacy_verdict`.

    ``colour`` is ``"green"``, ``"amber"`` or ``"red"``; ``headline`` a few words for a
    badge; ``sentence`` the plain-language explanation. ``worst_timestamp`` is where the
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
            out["landmark_tpl_max"] = float(self.landmark_tpl_max)
            out["landmark_tpl_timestamp"] = int(self.landmark_tpl_timestamp)
            out["leakage_target"] = float(self.leakage_target)
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
    eps = theorem.epsilon
    lm_list = theorem.landmarks.tolist()
    lt = None
    if landmark_tpl is None and backward is not None:
        from lmdk_core.leakage import landmark_tpl as _landmark_tpl

        lt = _landmark_tpl(epsilon_t, lm_list, backward, forward)
    elif landmark_tpl is not None:
        lt = np.asarray(landmark_tpl, dtype=float)
        if lt.shape != theorem.totals.shape:
            raise InputError(f"landmark TPL has {lt.size} values for {theorem.totals.size} "
                             "timestamps")
    alpha = eps if leakage_target is None else float(leakage_target)
    if not np.isfinite(alpha) or alpha <= 0:
        raise InputError(f"the leakage target must be a number > 0, got {leakage_target!r}")
    bound = f"ε = {eps:.4g}" if alpha == eps else f"the leakage target α = {alpha:.4g}"
    lt_max = lt_t = None
    if lt is not None:
        if np.any(np.isnan(lt)):
            raise InputError("landmark TPL contains NaN")
        lt_t = int(np.argmax(lt))
        lt_max = float(lt[lt_t])
    named = f" ({model})" if model else ""
    n_lm = theorem.landmarks.size
    who = f"the {n_lm} landmark{'s' if n_lm != 1 else ''} plus any one timestamp"
    if theorem.groups:  # stays as events: count events, not fixes (docs/stays.md)
        n_g = len(theorem.groups)
        n_fix = sum(b - a + 1 for a, b in theorem.groups)
        n_ev = n_g + n_lm - n_fix
        who = (f"the {n_ev} landmark event{'s' if n_ev != 1 else ''} ({n_g} stay"
               f"{'s' if n_g != 1 else ''} of {n_fix:,} fixes, each one event"
               + (f", and {n_lm - n_fix} single landmark{'s' if n_lm - n_fix != 1 else ''}"
                  if n_lm > n_fix else "") + ") plus any one timestamp")
    if not theorem.private:
        n_bad = theorem.violations.size
        t = theorem.worst_timestamp
        sentence = (f"At {_at(t, time_labels)} the landmarks plus that timestamp spend "
                    f"{theorem.worst_total:.4g} > ε = {eps:.4g}; {n_bad} timestamp"
                    f"{'s are' if n_bad != 1 else ' is'} over budget. Not landmark-private "
                    "even if consecutive values were independent: choose another scheme or "
                    "fewer landmarks.")
        lms = f"the {n_lm} landmark{'s' if n_lm != 1 else ''}"
        why = (f"Red because the budget itself is overspent: at {_at(t, time_labels)} "
               f"{lms} plus that timestamp spend {theorem.worst_total:.3g} > ε = "
               f"{eps:.3g}, whatever the correlation.")
        advice = None
        return PrivacyVerdict(RED, "Not landmark-private", sentence, eps, theorem, t,
                              lt_max, lt_t, model, model_note, alpha, why)
    base = (f"{who[0].upper()}{who[1:]} spend at most {theorem.worst_total:.4g} ≤ ε = "
            f"{eps:.4g} (largest total at {_at(theorem.worst_timestamp, time_labels)})")
    spent = f"{who} spend at most {theorem.worst_total:.3g} ≤ ε = {eps:.3g}"
    if lt_max is None:
        tail = (f" No correlation model was evaluated: {model_note}" if model_note else
                " This assumes consecutive values are independent (no correlation model).")
        why = (f"Green because {spent}; no correlation model was evaluated"
               + (f" ({model_note.strip().rstrip('.')})" if model_note else "")
               + ", so this holds if consecutive values are independent.")
        return PrivacyVerdict(GREEN, "Landmark-private", base + "." + tail, eps, theorem,
                              theorem.worst_timestamp, None, None, model, model_note, alpha,
                              why)
    if lt_max > alpha * (1 + LEAKAGE_RTOL) or not np.isfinite(lt_max):
        if advice is None and advise and backward is not None and np.isfinite(lt_max):
            advice = calibration_advice(epsilon_t, lm_list, eps, alpha, backward, forward,
                                        groups=groups)
        about = "any one timestamp" if n_lm == 0 else who
        why = (f"Amber because the data's consecutive values are correlated: an attacker "
               f"who knows how they follow each other learns up to {lt_max:.3g} about "
               f"{about}, more than {'ε' if alpha == eps else 'the target α'} = "
               f"{alpha:.3g}, where independent values would leak "
               f"{theorem.worst_total:.3g}" + (f" — model {model}." if model else "."))
        act = (advice.sentence() if advice is not None else
               "Lowering ε alone does not help (landmark TPL stays about the same multiple "
               "of ε): calibrate the allocation to a target leakage (the Leakage page, "
               "`lmdk calibrate`), use a scheme that spends less on the correlated stretch, "
               "or check that the model fits the data.")
        sentence = (f"{who[0].upper()}{who[1:]} spend at most {theorem.worst_total:.4g} ≤ "
                    f"ε = {eps:.4g}: landmark-private if consecutive values were independent. "
                    f"Under the assumed correlation{named} landmark TPL reaches {lt_max:.4g} > "
                    f"{bound} at {_at(lt_t, time_labels)}. {act}")
        return PrivacyVerdict(AMBER, "Landmark-private only if values were independent",
                              sentence, eps, theorem, lt_t, lt_max, lt_t, model, model_note,
                              alpha, why, advice)
    sentence = (f"{base}; under the assumed correlation{named} landmark TPL stays at most "
                f"{lt_max:.4g} ≤ {bound} (largest at {_at(lt_t, time_labels)}).")
    why = (f"Green because {spent} and, even for an attacker who knows how consecutive "
           f"values follow each other, landmark TPL stays at most {lt_max:.3g} ≤ "
           f"{'ε' if alpha == eps else 'the target α'} = {alpha:.3g}"
           + (f" — model {model}." if model else "."))
    return PrivacyVerdict(GREEN, "Landmark-private", sentence, eps, theorem,
                          theorem.worst_timestamp, lt_max, lt_t, model, model_note, alpha, why)


#: Longest allocation for which the verdict computes the calibration advice itself (a
#: few dozen landmark-TPL evaluations: about a second at this length). Longer series get
#: the general advice, and the Leakage page / ``lmdk calibrate`` compute it on request.
ADVICE_MAX_LENGTH = 20_000


def calibration_advice(epsilon_t: ArrayLike, landmarks: Iterable[int] | None,
                       epsilon: float, target: float, backward, forward=None, *,
                       rtol: float = 1e-6,
                       groups: Iterable[tuple[int, int]] | None = None
                       ) -> CalibrationAdvice | None:
    """The checked advice for an amber verdict: the largest ``c`` with
    ``max_t landmark TPL(c·ε_t) ≤ target`` (:func:`lmdk_core.leakage.calibrate_scale`,
    Cao et al.'s calibration), returned only after the verdict of ``c·ε_t`` at total
    ``c·ε`` with leakage target ``target`` has been computed and is green (None
    otherwise, e.g. when ``c·ε`` is below the explorer's smallest ε, or for allocations
    longer than :data:`ADVICE_MAX_LENGTH`). ``groups``: stays
    protected as one event each, passed to the verifier as in :func:`privacy_verdict`.

    Why not "lower ε": for small budgets the loss function is nearly linear, so landmark
    TPL is about a fixed multiple of ε and stays above ε for every ε; only decoupling the
    spend (``c·ε``) from the target (``α``) brings it under.
    """
    from lmdk_core.engine.setting_limits import LIMITS
    from lmdk_core.leakage.calibration import calibrate_scale
    from lmdk_core.leakage.tpl import landmark_tpl as _landmark_tpl

    lm = list(landmarks) if landmarks is not None else []
    eps_t = np.asarray(epsilon_t, dtype=float)
    if not np.any(eps_t > 0) or eps_t.size > ADVICE_MAX_LENGTH:
        return None
    cal = calibrate_scale(eps_t, target, backward, forward, lm, rtol=rtol)
    new_eps = cal.value * float(epsilon)
    if not LIMITS["epsilon"].low <= new_eps <= LIMITS["epsilon"].high:
        return None
    lt = _landmark_tpl(cal.epsilon_t, lm, backward, forward)
    check = privacy_verdict(cal.epsilon_t, lm, new_eps, landmark_tpl=lt,
                            leakage_target=target, advise=False, groups=groups)
    if check.colour != GREEN:
        return None
    return CalibrationAdvice(scale=float(cal.value), epsilon=float(new_eps),
                             target=float(target), achieved=float(np.max(lt)))
