"""Small rendering pieces shared by pages (badges, metric rows, cached engine calls)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Literal

import numpy as np
import streamlit as st

from app_support import state_keys as K
from lmdk_core.data.digest import object_digest
from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.decision.attacker import PosteriorCurve, posterior_vs_epsilon
from lmdk_core.decision.utility import (
    MARGINAL,
    NOT_USEFUL,
    USEFUL,
    UtilityVerdict,
    release_utility,
)
from lmdk_core.decision.verdict import CalibrationAdvice, PrivacyVerdict, calibration_advice
from lmdk_core.engine.release import Release, release_series, release_trajectory
from lmdk_core.foundation.plurals import agree, counted
from lmdk_core.leakage.conservative import (
    SmoothingSweep,
    is_estimated,
    range_text,
    smoothing_sweep,
    smoothing_variants,
)
from lmdk_core.leakage.loss import LossFunction
from lmdk_core.leakage.model import MAX_LEAKAGE_STATES, CorrelationModel, correlation_from_spec

if TYPE_CHECKING:
    from lmdk_core.leakage.epsilon_grid import GridLeakage

__all__ = ["MAX_LEAKAGE_STATES", "cached_advice", "cached_correlation", "cached_leakage_grid",
           "cached_loss", "cached_model_leakage", "cached_release_utility",
           "cached_series_release", "cached_sweep", "cached_track_release", "variant_losses",
           "compact_verdict_text", "error_metrics", "loss_of", "model_caption",
           "plain_verdict", "render_population_utility", "render_utility", "render_verdict",
           "utility_parts"]


@st.cache_data(max_entries=64, show_spinner=False)
def cached_series_release(values: np.ndarray, landmarks: tuple[int, ...], epsilon: float,
                          scheme: str, mechanism: str, sensitivity: float, seed: int,
                          window: int, max_landmarks: int | None = None,
                          runs: tuple[tuple[int, int], ...] = ()) -> Release:
    """release_series, cached on its inputs (``max_landmarks``: the declared bound k on
    landmark events, Uniform ε/(k+1); ``runs``: protected as one landmark event each,
    docs/series-events.md)."""
    return release_series(values, list(landmarks), epsilon=epsilon, scheme=scheme,
                          mechanism=mechanism, sensitivity=sensitivity, seed=seed, window=window,
                          max_landmarks=max_landmarks, runs=list(runs) or None)


def cached_release_utility(rel: Release, *, sensitivity: float | None = None,
                           radius: float | None = None, unit: str | None = None,
                           times: np.ndarray | None = None) -> UtilityVerdict:
    """:func:`lmdk_core.decision.utility.release_utility` of ``rel``, cached on a digest
    of every field of the release (:func:`lmdk_core.data.digest.object_digest`) and Δf,
    r, the unit and a track's times (its scale: a typical day's extent): an Adaptive
    release's utility line simulates a few hundred whole releases
    (:mod:`lmdk_core.decision.adaptive_accuracy`), which a toggle or a scheme added
    beside it (Compare) need not repeat."""
    times_key = None if times is None else object_digest(times, label="times")
    return _cached_utility(object_digest(rel, label="release"), sensitivity, radius, unit,
                           times_key, rel, times)


@st.cache_data(max_entries=64, show_spinner=False)
def _cached_utility(release_key: str, sensitivity: float | None, radius: float | None,
                    unit: str | None, times_key: str | None, _rel: Release,
                    _times: np.ndarray | None) -> UtilityVerdict:
    return release_utility(_rel, sensitivity=sensitivity, radius=radius, unit=unit,
                           times=_times)


ICONS = {"green": ":material/verified_user:", "amber": ":material/warning:",
         "red": ":material/gpp_bad:"}


def render_verdict(pv: PrivacyVerdict, compact: bool = False,
                   utility: UtilityVerdict | None = None, key: str | None = None,
                   sweep: SmoothingSweep | None = None) -> None:
    """The engine's one verdict (:func:`lmdk_core.decision.verdict.privacy_verdict`) as a green,
    amber or red box: the headline in bold and one plain sentence saying why
    (:func:`plain_verdict`), the engine's numbers behind a toggle (``compact``: headline
    and the deciding number only, for a narrow column). An amber verdict with checked
    advice gets a button that follows it (``key`` names the button; without a key no
    button). With ``utility`` the utility
    line (:func:`lmdk_core.decision.utility.utility_verdict`) follows in a box of the same size
    (:func:`render_utility`): a release that is private but noise says so right under
    its privacy verdict. ``sweep``: under a model estimated from the data, landmark TPL
    under every smoothing of the range, shown as a small table in the expander
    (:func:`smoothing_table`)."""
    from app_support.session import apply_calibration

    box = {"green": st.success, "amber": st.warning, "red": st.error}[pv.colour]
    if compact:
        box(compact_verdict_text(pv), icon=ICONS[pv.colour])
    else:
        # one plain sentence first (what is protected, at which ε, why, whether to
        # publish); the numbers behind it one click away (on a phone the paragraph filled
        # the screen)
        box(f"**{pv.headline}.** {plain_verdict(pv, button=key is not None)}",
            icon=ICONS[pv.colour])
        with st.expander("Why: the numbers behind this verdict"):
            st.markdown(pv.sentence)
            if sweep is not None:
                st.markdown(smoothing_table(sweep, pv.leakage_target
                                            if pv.leakage_target is not None else pv.epsilon))
        applied = st.session_state.pop(K.CALIBRATION_APPLIED, None)
        if applied:
            st.success(applied, icon=":material/done:")
        if pv.advice is not None and key is not None:
            st.button(f"Apply the calibration: ε = {pv.advice.epsilon:.3g}", key=key,
                      icon=":material/tune:", on_click=apply_calibration,
                      args=(pv.advice.epsilon, pv.advice.target),
                      help="Sets the sidebar's ε to the calibrated value and checks landmark "
                           f"TPL against α = {pv.advice.target:.4g} from now on (the Leakage "
                           "page shows the calibration in detail).")
    if utility is not None:
        render_utility(utility, compact=compact)


def smoothing_table(sweep: SmoothingSweep, bound: float) -> str:
    """How landmark TPL moves with the estimated model, in words for non-experts and as
    a Markdown table (smoothing → largest landmark TPL against ``bound``, ε or the
    leakage target; the worst row marked)."""
    rows = "\n".join(
        f"| {a:g} | {p:.3g} | {'≤' if p <= bound * (1 + 1e-9) else '>'} {bound:.4g}"
        f"{' ← the verdict uses this worst case' if a == sweep.worst_smoothing else ''} |"
        for a, p in sweep.rows())
    return ("**How landmark TPL moves with the model.** The correlation model is counted "
            "from this data, and how much weight an unseen change of value gets (the "
            "*smoothing*, a number added to every count) is a choice the data do not make. "
            "Less smoothing trusts the counts more: a stronger correlation, so more "
            "leakage. The verdict takes the worst row.\n\n"
            "| smoothing | largest landmark TPL | against the target |\n|---:|---:|:---|\n"
            + rows)


def compact_verdict_text(pv: PrivacyVerdict) -> str:
    """The verdict for a narrow column: the headline and the deciding numbers."""
    if pv.colour == "amber":
        return (f"**{pv.headline}**: landmark TPL up to {pv.landmark_tpl_max:.3g} > "
                f"ε = {pv.epsilon:.3g} under the assumed correlation (t="
                f"{pv.landmark_tpl_timestamp}); {pv.theorem.worst_total:.3g} ≤ ε if "
                "independent." + (f" Calibrated: ε = {pv.advice.epsilon:.3g} turns it green."
                                  if pv.advice is not None else ""))
    rel = "≤" if pv.private else ">"
    text = (f"**{pv.headline}**: landmarks + one timestamp spend at most "
            f"{pv.theorem.worst_total:.3g} {rel} ε = {pv.epsilon:.3g} (worst: t="
            f"{pv.theorem.worst_timestamp})")
    if pv.colour == "green" and pv.landmark_tpl_max is not None:
        text += f"; landmark TPL {pv.landmark_tpl_max:.3g} ≤ ε"
    return text


def _protected_set(pv: PrivacyVerdict) -> str:
    """'The 5 landmarks are' / 'The 1 landmark is' or, with stays as events, 'The 3
    landmark events are': the sentence's subject with its verb."""
    n = int(pv.theorem.landmarks.size)
    word = "landmark"
    if pv.theorem.groups:
        n_fix = sum(b - a + 1 for a, b in pv.theorem.groups)
        n = len(pv.theorem.groups) + n - n_fix
        word = "landmark event"
    return f"The {counted(n, word)} {agree(n, 'is', 'are')}"


def shared_plain_verdict(pvs: list[PrivacyVerdict]) -> str:
    """One plain sentence for several schemes' verdicts of the same colour (Compare's
    shared box, no calibration button): :func:`plain_verdict` when its numbers are the
    same for all of them, else an amber sentence without one scheme's leakage and
    calibrated ε (each scheme's column states its own)."""
    first = pvs[0]
    numbers = {(pv.landmark_tpl_max, None if pv.advice is None else pv.advice.epsilon)
               for pv in pvs}
    if first.colour != "amber" or len(numbers) == 1:
        return plain_verdict(first, button=False)
    who = _protected_set(first)
    limit = ("ε" if first.leakage_target in (None, first.epsilon)
             else f"the target {first.leakage_target:g}")
    return (f"{who} protected at ε = {first.epsilon:g} only if "
            "consecutive values are independent, but in this data they are correlated: "
            f"an attacker who knows how they follow each other learns more than {limit} "
            "under every scheme. Calibrate before you publish: each scheme's column gives its "
            "leakage and its calibrated ε.")


def plain_verdict(pv: PrivacyVerdict, button: bool = True) -> str:
    """The verdict in one plain sentence: what is protected, at which ε, and whether to
    publish (the engine's sentence, with the numbers, goes behind a toggle). ``button``:
    the calibration's "Apply" button follows the box (else the sentence points to ε's
    field)."""
    who, eps = _protected_set(pv), f"ε = {pv.epsilon:g}"
    if pv.colour == "red":
        return (f"{who} not protected at {eps}: together with one "
                "other moment they spend more than ε. Do not publish this release; choose "
                "another scheme or fewer landmarks.")
    if pv.colour == "amber":
        # why (the data's values are correlated) and the advice that works (calibrate:
        # lowering ε alone keeps the leakage the same multiple of ε; docs/correlation.md)
        why = (f"{who} protected at {eps} only if consecutive "
               "values are independent, but in this data they are correlated: an attacker "
               f"who knows how they follow each other learns up to "
               f"{pv.landmark_tpl_max:.3g}, more than "
               + ("ε" if pv.leakage_target in (None, pv.epsilon) else
                  f"the target {pv.leakage_target:g}") + ".")
        if pv.advice is not None:
            return (why + f" Calibrate before you publish: ε = {pv.advice.epsilon:.3g} keeps "
                    f"it at {pv.advice.target:g} "
                    + ("(the button below)." if button else "(set it as ε)."))
        return (why + " Calibrate before you publish (Leakage page); lowering ε alone does "
                "not help.")
    under = (" even under the assumed correlation" if pv.landmark_tpl_max is not None
             else " (assuming consecutive values are independent)")
    return (f"{who} protected, together with any one other moment, at "
            f"{eps}{under}: this release can be published.")


#: the utility line's colour and icon per level: words and an icon, never colour alone
#: the colours of the utility badge (st.badge's names)
BadgeColour = Literal["green", "orange", "red"]
UTILITY_STYLE: dict[str, tuple[BadgeColour, str]] = {USEFUL: ("green", ":material/insights:"),
                 MARGINAL: ("orange", ":material/contrast:"),
                 NOT_USEFUL: ("red", ":material/block:")}


def utility_parts(uv: UtilityVerdict, compact: bool = False
                  ) -> tuple[str, BadgeColour, str, str]:
    """The utility line as (badge label, colour, icon, text): the badge says the level in
    words ("Utility: not useful") with an icon; the text is the sentence, a release that
    is noise opening with **This release is not useful:**; ``compact``: the deciding
    numbers only."""
    colour, icon = UTILITY_STYLE[uv.level]
    if uv.label == "not judged":
        icon = ":material/help:"
    if compact:
        return f"Utility: {uv.label}", colour, icon, f"{uv.short()[0].upper()}{uv.short()[1:]}."
    lead, _, body = uv.sentence.partition(": ")
    return f"Utility: {uv.label}", colour, icon, f"**{lead}:** {body}"


def _utility_box(label: str, colour: BadgeColour, icon: str, text: str) -> None:
    """A bordered box: the badge (words, icon, colour), then the text. Not an
    ``st.error`` box: the pages keep those for what the user must fix."""
    with st.container(border=True):
        st.badge(label, icon=icon, color=colour)
        st.markdown(text)


def render_utility(uv: UtilityVerdict, compact: bool = False) -> None:
    """The utility line in a bordered box right under the privacy verdict."""
    _utility_box(*utility_parts(uv, compact))


#: the utility levels of a population's users, in the order the line names them
_POPULATION_LEVELS = ("useful", "marginal", "not useful", "not judged")


def _median_error_sentence(typical: np.ndarray, unit: str) -> str:
    """The median user's typical expected error, as a sentence (empty when unknown)."""
    from lmdk_core.decision.utility import format_amount

    if not np.isfinite(typical).any():
        return ""
    return (" The median user's typical expected error is "
            f"{format_amount(float(np.nanmedian(typical)), unit)}.")


def population_utility_line(levels: list[str], typical: np.ndarray,
                            unit: str) -> tuple[str, str, str]:
    """(title, utility level, text) of a population's utility line: how many users'
    releases are noise (expected error above half their data's spread or extent)."""
    n = len(levels)
    counts = {k: levels.count(k) for k in _POPULATION_LEVELS}
    rest = ", ".join(f"{counts[k]:,} {k}" for k in ("useful", "marginal", "not judged")
                     if counts[k] or k != "not judged")
    tail = _median_error_sentence(typical, unit)
    bad = counts["not useful"]
    if not bad:
        level = USEFUL if counts["useful"] == n else MARGINAL
        return "Utility: no user's release is noise", level, f"{rest[0].upper()}{rest[1:]}.{tail}"
    others = f" Others: {rest}." if bad < n else ""
    releases = counted(bad, "user's release", "users' releases")
    return (f"Utility: {bad:,} of {n:,} not useful", NOT_USEFUL,
            f"**{releases} "
            f"{agree(bad, 'is', 'are')} not useful:** their typical expected error is "
            f"more than half their own data's {'extent' if unit == 'm' else 'spread'} — the "
            f"noise hides what the data show.{others}{tail} Raise ε or use fewer landmarks "
            "per user (the user table lists each user's level).")


def render_population_utility(levels: list[str], typical: np.ndarray, unit: str) -> None:
    """The utility line of a population (one level per user, :mod:`lmdk_core.decision.utility`):
    how many users' releases are noise, in words with an icon, in the same bordered box
    as a single release's line."""
    title, level, text = population_utility_line(list(levels), typical, unit)
    colour, icon = UTILITY_STYLE[level]
    _utility_box(title, colour, icon, text)


def error_metrics(rel: Release, unit: str = "", distance: bool = False) -> None:
    """Measured vs expected error and what was published."""
    m = rel.metrics()
    u = f" {unit}" if unit else ""
    c = st.columns(4)
    name = "Mean displacement" if distance else "MAE (measured)"
    c[0].metric(name, f"{m['mae']:.3g}{u}" if np.isfinite(m["mae"]) else "—",
                help="Mean absolute error over every released timestamp, approximations "
                     "included.")
    c[1].metric("Expected at noisy releases",
                f"{m['expected_mae_published']:.3g}{u}"
                if np.isfinite(m["expected_mae_published"]) else "—",
                help=("Planar Laplace: 2r/ε_t" if distance else "Laplace: Δf/ε_t")
                + ", averaged over the timestamps published from the raw data.")
    c[2].metric("RMSE" if not distance else "95th percentile",
                f"{(m['rmse'] if not distance else m['p95_error']):.3g}{u}"
                if np.isfinite(m["rmse"]) else "—")
    c[3].metric("Published / approximated", f"{m['n_published']} / {m['n_approximated']}",
                help="Published = fresh noisy value from the raw data (spends ε_t). "
                     "Approximated = last release repeated (spends nothing)."
                     + (f" {m['n_withheld']} withheld (nothing to repeat yet)."
                        if m["n_withheld"] else ""))


# ---------------------------------------------------------------- the session's correlation model
@st.cache_resource(max_entries=32, show_spinner=False)
def cached_loss(matrix_bytes: bytes, n: int) -> LossFunction:
    """The loss function of an n×n matrix (keyed on its bytes; shared, read-only)."""
    return LossFunction(np.frombuffer(matrix_bytes, dtype=float).reshape(n, n))


def model_losses(model: CorrelationModel) -> tuple[LossFunction, LossFunction]:
    """The cached (backward, forward) loss functions of a model with matrices (the same
    function twice when both are the same matrix)."""
    if model.backward is None or model.forward is None:
        raise ValueError(f"the correlation model has no matrices ({model.note})")
    lf = loss_of(model.forward)
    return (lf if model.backward is model.forward else loss_of(model.backward)), lf


def loss_of(P: np.ndarray) -> LossFunction:
    """The cached loss function of ``P`` (a spinner above 150 states: the precompute is
    noticeable)."""
    P = np.ascontiguousarray(P, dtype=float)
    if P.shape[0] > 150:
        with st.spinner(f"Precomputing the loss function of {P.shape[0]} states…"):
            return cached_loss(P.tobytes(), P.shape[0])
    return cached_loss(P.tobytes(), P.shape[0])


@st.cache_data(max_entries=16, show_spinner=False)
def cached_correlation(spec_json: str, data_key: str, _data: Series | Track,
                       strength: float, cell_size: float) -> CorrelationModel:
    """The correlation model of a specification for data identified by ``data_key``."""
    return correlation_from_spec(json.loads(spec_json), _data, default_strength=strength,
                                 default_cell_size=cell_size, prefix="the correlation model")


@st.cache_data(max_entries=64, show_spinner=False)
def cached_model_leakage(spec_json: str, data_key: str, epsilon_t: np.ndarray,
                         landmarks: tuple[int, ...], _model: CorrelationModel
                         ) -> dict[str, np.ndarray]:
    """TPL and landmark TPL of an allocation under a (built) correlation model."""
    from lmdk_core.leakage.tpl import temporal_leakage

    lb, lf = model_losses(_model)
    res = temporal_leakage(epsilon_t, lb, lf, list(landmarks))
    if res.landmark_tpl is None:
        raise ValueError("landmark TPL was not computed")
    return {"TPL": res.tpl, "landmark TPL": res.landmark_tpl}


@st.cache_data(max_entries=16, show_spinner=False)
def cached_leakage_grid(spec_json: str, data_key: str, share: np.ndarray,
                        landmarks: tuple[int, ...], low: float, high: float, curves: bool,
                        _model: CorrelationModel) -> GridLeakage:
    """Landmark TPL of the allocation shape ``share`` at every total of the ε slider's
    grid (:func:`lmdk_core.leakage.epsilon_grid.leakage_on_grid`), cached: it does not
    depend on the current ε, so moving ε reuses it."""
    from lmdk_core.leakage.epsilon_grid import epsilon_grid, leakage_on_grid

    lb, lf = model_losses(_model)
    return leakage_on_grid(share, landmarks, lb, lf, epsilon_grid(low, high),
                           curves=curves)


@st.cache_data(max_entries=32, show_spinner=False)
def cached_posterior_curve(spec_json: str, data_key: str, prior: float, grid: np.ndarray,
                           scheme: str, length: int, landmarks: tuple[int, ...],
                           window: int, _model: CorrelationModel) -> PosteriorCurve:
    """:func:`lmdk_core.decision.attacker.posterior_vs_epsilon` under a (built) model, cached."""
    lb, lf = model_losses(_model)
    return posterior_vs_epsilon(prior, grid, scheme=scheme, length=length, landmarks=landmarks,
                                window=window, backward=lb, forward=lf)


def variant_losses(model: CorrelationModel) -> list[tuple[LossFunction, LossFunction]]:
    """The cached (backward, forward) loss functions of every smoothing variant of an
    estimated model (:func:`lmdk_core.leakage.conservative.smoothing_variants`)."""
    out = []
    for v in smoothing_variants(model):
        lf = loss_of(v.forward)
        out.append((lf if v.backward is v.forward else loss_of(v.backward), lf))
    return out


@st.cache_data(max_entries=64, show_spinner=False)
def cached_sweep(spec_json: str, data_key: str, epsilon_t: np.ndarray,
                 landmarks: tuple[int, ...], _model: CorrelationModel) -> SmoothingSweep | None:
    """Landmark TPL of an allocation under every smoothing of an estimated model (the
    conservative verdict's worst case, :mod:`lmdk_core.leakage.conservative`), cached;
    None for a model that is not estimated."""
    variants = smoothing_variants(_model)
    if not variants:
        return None
    return smoothing_sweep(epsilon_t, landmarks, variants, variant_losses(_model))


@st.cache_data(max_entries=64, show_spinner=False)
def cached_advice(spec_json: str, data_key: str, epsilon_t: np.ndarray,
                  landmarks: tuple[int, ...], epsilon: float, target: float,
                  groups: tuple[tuple[int, int], ...], _model: CorrelationModel
                  ) -> CalibrationAdvice | None:
    """:func:`lmdk_core.decision.verdict.calibration_advice` under a (built) model, cached
    (``groups``: stays protected as one event each); for an estimated model the target
    holds under every smoothing of the range (the conservative model)."""
    lb, lf = model_losses(_model)
    estimated = range_text(_model.spec.get("smoothing")) if is_estimated(_model) else None
    return calibration_advice(epsilon_t, list(landmarks), epsilon=epsilon, target=target,
                              backward=lb, forward=lf, groups=groups or None,
                              alternatives=variant_losses(_model), estimated=estimated)


def model_caption(model: CorrelationModel | None, note: str | None = None) -> None:
    """One line: which correlation model is in force, with a link to the Leakage page
    (where it is chosen for the whole session), and how it was estimated."""
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    what = model.short if model is not None else "not available"
    if note:  # no leakage computed: the verdict is the theorem's alone
        c1.caption(f"Correlation model of this session: **{what}** — {note.rstrip('.')}. "
                   "It was not evaluated, so the verdict checks only the theorem "
                   "(independent values).")
    else:
        c1.caption(f"Correlation model in force (this session): **{what}**. The verdict's "
                   "landmark TPL uses it.")
    c2.page_link("app_pages/leakage.py", label="Change model", icon=":material/water_drop:")
    if model is not None and model.key in ("estimated", "grid"):
        with st.expander("How the correlation model was estimated"):
            st.markdown(
                f"{model.description[0].upper()}{model.description[1:]}\n\n"
                "Cao et al. (ICDE'17 / TKDE'18) assume the attacker knows the transition "
                "matrix; anyone holding this data's history can estimate it like this. The "
                "matrix is derived from the raw data and is never written to a shared file "
                "(a saved configuration stores only this recipe). The Leakage page shows it "
                "as heat maps and offers the presets (a correlation strength, an uploaded "
                "matrix) instead. More: docs/correlation.md.")


# ---------------------------------------------------------------- tracks (Map, Compare, Leakage)
@st.cache_data(max_entries=32, show_spinner=False)
def cached_track_release(lat: np.ndarray, lon: np.ndarray, landmarks: tuple[int, ...],
                         epsilon: float, radius: float, scheme: str, seed: int,
                         window: int, stays: tuple[tuple[int, int], ...] = (),
                         max_landmarks: int | None = None) -> Release:
    """release_trajectory, cached on its inputs (``stays``: protected as one landmark event
    each, docs/stays.md; ``max_landmarks``: the declared bound k on landmark events)."""
    return release_trajectory(lat, lon, list(landmarks), epsilon=epsilon, radius=radius,
                              scheme=scheme, seed=seed, window=window, stays=list(stays) or None,
                              max_landmarks=max_landmarks)


@st.cache_data(max_entries=16, show_spinner="Measuring what averaging recovers…")
def cached_averaging(lat: np.ndarray, lon: np.ndarray, landmarks: tuple[int, ...],
                     epsilon: float, radius: float, scheme: str, window: int,
                     stays: tuple[tuple[int, int], ...] = (),
                     max_landmarks: int | None = None):
    """What a moving average of the released track recovers
    (:func:`lmdk_core.decision.averaging.averaging_effect`: its own seeded simulated
    releases with these settings, never the session's noise), cached on its inputs."""
    from lmdk_core.decision.averaging import averaging_effect
    from lmdk_core.decision.comparison import track_release_fn

    fn = track_release_fn(lat, lon, list(landmarks), radius=radius, window=window,
                          stays=list(stays) or None, max_landmarks=max_landmarks)
    return averaging_effect(fn, scheme, epsilon)
