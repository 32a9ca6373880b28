"""The public release note: the form of the privacy report that may accompany a release.

The internal privacy report (:mod:`lmdk_core.report.render`) documents a release decision with
the raw data, the landmarks, per-timestamp charts and the seed; it is confidential. The
note states only what a reader of the published file needs and what does not reveal
the landmark set L or the data:

* the verdict (the one verdict of :mod:`lmdk_core.decision.verdict`: the landmark-privacy
  theorem of Katsomallos et al., CODASPY 2022 — a release of independent ε_t-DP
  mechanisms is landmark ε-private if ``Σ_{i∈L∪{t}} ε_i ≤ ε`` for every t (sufficient;
  necessary only for tight mechanisms) — and, when a
  correlation model is assumed, landmark TPL under it), without the timestamp where it
  is decided;
* ε, the scheme, the mechanism with its public parameter (Δf or the protection radius
  r) and the noise sampler;
* the *expected* error of the noisy publications (Laplace: MAE Δf/ε_t, RMSE √2·Δf/ε_t;
  Geometric: MAE 2a/(1 − a²), a = e^(−ε_t/Δf); Planar Laplace, Andrés et al. CCS 2013:
  mean displacement 2r/ε_t), averaged over them — a property of the mechanism, not a
  measurement on the raw data;
* the utility line from declared numbers only
  (:func:`~lmdk_core.decision.utility.declared_utility`): the expected error of a noisy
  value against the declared range of a reading (or the declared Δf) — never the
  data's spread or extent, which are computed from the raw data;
* temporal leakage aggregated — the largest TPL and landmark TPL (Cao et al., ICDE 2017 /
  TKDE 2018) and the posterior bounds under them — **only under a model that is a
  public setting or a DP output** (:data:`~lmdk_core.leakage.model.PUBLISHABLE_MODELS`:
  a correlation-strength preset, an uploaded matrix, or a matrix estimated with
  differential privacy at a stated share ε_M of ε, which the note states). A model
  counted from the raw data (the default) makes every leakage figure a statistic of
  the data: the note then states the theorem's verdict alone and says why.

Not in the note: raw values, landmark timestamps, places or count, per-timestamp charts
(ε_t reveals L), measured errors (computed from the raw data), the data's name and the
seed. Everything shown comes from a :class:`~lmdk_core.report.ReportData`, laid out by
the autoescaped Jinja2 template ``templates/release_note.html.j2``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from lmdk_core import __version__
from lmdk_core.decision.utility import declared_utility
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.release import numeric_mechanism
from lmdk_core.engine.verifier import Verdict
from lmdk_core.files.config import ViewConfig
from lmdk_core.files.export import (
    NUMPY_NOISE,
    PLANAR_NOISE,
    mechanism_text,
    noise_text,
    planar_noise_text,
    teaching_note,
)
from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage.model import PUBLISHABLE_MODELS
from lmdk_core.report.compute import ReportData, compute_report, custom_title
from lmdk_core.report.templating import num as _num
from lmdk_core.report.templating import render_template

__all__ = ["PublicView", "build_release_note", "public_summary", "public_view",
           "published_noise", "publishes_leakage", "release_note_filename",
           "render_release_note"]


def published_noise(cfg: ViewConfig) -> str:
    """The sampler of the file a configuration's release is published in, for a public
    note built from the configuration alone: the exact discrete Laplace for a series (the
    default of ``lmdk release`` and the app's publishable CSV; Mironov, CCS 2012); for a
    track the exact Planar Laplace on the grid of the configuration's declared region
    (``extra.region``; Andrés et al., CCS 2013, §5), else numpy's floating-point Planar
    Laplace. Every figure of the note then holds for the published file too: ε, scheme,
    mechanism, the verdict, the expected error and the leakage depend only on the
    allocation, which a static scheme fixes from the landmarks.

    Adaptive is refused (:class:`InputError`): its allocation follows its own random
    sampling decisions, so the published release (a separate draw) spends a different
    budget from the one recomputed here, and a note built from the configuration would
    describe a release that was not published."""
    if cfg.scheme == "adaptive":
        raise InputError(
            "a public release note of an Adaptive release cannot be built from the "
            "configuration: Adaptive's budget follows its own random decisions, so the "
            "published file spends a different allocation than the one recomputed here. "
            "Describe publicly only a release with a static scheme (uniform, skip, "
            "w-event, user, event)")
    if cfg.data_kind != "track":
        return noise_text("exact")
    region = cfg.extra.get("region") if isinstance(cfg.extra, dict) else None
    if region is None:
        return PLANAR_NOISE
    from lmdk_core.mechanisms.exact_planar import PlanarRegion

    return planar_noise_text("exact", cfg.radius, PlanarRegion.parse(str(region)))


def release_note_filename(cfg: ViewConfig, now: datetime | None = None) -> str:
    """``lmdk_release_note_<series|track>_<YYYYMMDD-HHMM>.html``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M")
    if cfg.reproducible:  # the teaching mode: never called a release note to publish
        return f"lmdk_TEACHING_note_{cfg.data_kind}_{stamp}.html"
    return f"lmdk_release_note_{cfg.data_kind}_{stamp}.html"


def publishes_leakage(rd: ReportData) -> bool:
    """Whether the note may state leakage figures: a correlation model was evaluated and
    it is a public setting or a DP output (not counted from the raw data)."""
    return rd.leakage.computed and rd.leakage.model.key in PUBLISHABLE_MODELS


def _model_share(rd: ReportData) -> float:
    """ε_M, the share of ε a DP-estimated correlation model spent (0 otherwise)."""
    from lmdk_core.report.compute import model_share

    return model_share(rd.leakage.model)


@dataclass(frozen=True)
class PublicView:
    """What the note says about the allocation, from public settings only: the scheme's
    allocation for a canonical set of ``k`` landmark events (the first k timestamps; k
    the declared bound, :func:`~lmdk_core.report.compute.declared_max_landmarks`; Uniform
    spends ε/(k+1) whatever the landmarks marked are, as the published release does), the
    theorem's verdict of it, and under a publishable correlation model the TPL of the
    constant budget ``max_t ε_t`` and the bound on landmark TPL it gives.

    Why a canonical set: every static scheme's budgets depend on L only through |L|
    (Uniform ε/(|L|+1), w-event ε/w, event ε, user ε/T) or put 0 at the landmarks and ε
    elsewhere (Skip), so the theorem's worst total ``Σ_{i∈L∪{t}} ε_i`` and the multiset
    of the published budgets are the same for every set of k events. Landmark TPL does
    depend on where the landmarks are; the note states the bound that holds for every
    set of at most k events: each term of landmark TPL (a restarted BPL + FPL, Cao et
    al.'s recursions) is at most the full TPL at that timestamp, which is non-decreasing
    in every ε_t, so ``landmark TPL_t ≤ Σ_{i∈L∪{t}} TPL_i(max ε) ≤`` the sum of the
    k + 1 largest TPL values of the constant budget ``max_t ε_t``.

    Under a model estimated with differential privacy at the share ε_M (``share``) the
    released values spend ε − ε_M; the theorem is checked by the verifier against the
    total ε with ε_M as a budget shared by every set (the noisy counts read the whole
    series; sequential composition), and ``total_bound`` adds ε_M to the landmark-TPL
    bound of the released values.
    """

    epsilon_t: np.ndarray
    published: np.ndarray
    k: int
    theorem: Verdict
    tpl_max: float | None
    landmark_bound: float | None
    share: float = 0.0
    #: a DP-estimated model: the smoothing range the bound is the worst over, in words
    smoothing_range: str | None = None

    @property
    def total_bound(self) -> float | None:
        """The bound on landmark TPL of the released values plus ε_M (composition)."""
        return None if self.landmark_bound is None else self.landmark_bound + self.share


def public_view(rd: ReportData) -> PublicView:
    """The :class:`PublicView` of a report's configuration (scheme, release ε, k, T,
    window; the correlation model when publishable)."""
    from lmdk_core.engine.allocation import allocate
    from lmdk_core.engine.verifier import verify
    from lmdk_core.report.compute import declared_max_landmarks

    cfg, rel = rd.cfg, rd.release
    T = int(rel.epsilon_t.size)
    k = declared_max_landmarks(cfg)
    canonical = list(range(min(k, T)))
    share = _model_share(rd)
    eps_t = allocate(rel.scheme, T, canonical, rel.epsilon, window=cfg.window, max_landmarks=k)
    published = eps_t > 0
    theorem = verify(eps_t, canonical, cfg.epsilon, shared=share, max_landmarks=k)
    if not publishes_leakage(rd) or not np.any(published):
        return PublicView(eps_t, published, k, theorem, None, None, share)
    model = rd.leakage.model
    const = np.full(T, float(np.max(eps_t)))
    figures = [_constant_bound(const, k, backward, forward)
               for backward, forward in _model_variants(model)]
    return PublicView(eps_t, published, k, theorem, max(f[1] for f in figures),
                      max(f[0] for f in figures), share, _smoothing_words(model))


def _model_variants(model) -> list[tuple[np.ndarray, np.ndarray]]:
    """(P_B, P_F) of a publishable model; for a model estimated with DP one pair per
    smoothing of :data:`~lmdk_core.leakage.conservative.SMOOTHING_RANGE` and the model's
    own, all post-processing of the same noisy counts (the conservative model: how much
    is added to every count is a choice the counts do not make)."""
    if model.key != "private" or model.noisy_counts is None:
        return [(model.backward, model.forward)]
    from lmdk_core.leakage.conservative import smoothing_values
    from lmdk_core.leakage.private_model import private_matrices

    pairs = []
    for a in smoothing_values(model.spec.get("smoothing")):
        forward, backward = private_matrices(model.noisy_counts, a)
        pairs.append((backward, forward))
    return pairs


def _smoothing_words(model) -> str | None:
    """The smoothing range of a DP-estimated model's bound in words, else None."""
    if model.key != "private" or model.noisy_counts is None:
        return None
    from lmdk_core.leakage.conservative import range_text

    return range_text(model.spec.get("smoothing"))


def _constant_bound(const: np.ndarray, k: int, backward: np.ndarray,
                    forward: np.ndarray) -> tuple[float, float]:
    """(bound on landmark TPL for every set of at most k events, largest TPL) of the
    constant budget ``const`` under one model: the sum of the k + 1 largest TPL values
    (:class:`PublicView`) and their largest."""
    from lmdk_core.leakage.tpl import tpl

    per_t = np.asarray(tpl(const, backward, forward), dtype=float)
    return float(np.sort(per_t)[-min(k + 1, const.size):].sum()), float(np.max(per_t))


def _red_sentence(eps: float, lt: float | None) -> str:
    """The public verdict when the allocation breaks the theorem's bound."""
    return (f"The budget allocation exceeds ε = {eps:g} for some set of landmarks "
            "plus one timestamp: this release is not landmark ε-private, even if "
            "consecutive values were independent.")


def _amber_sentence(eps: float, lt: float | None) -> str:
    """The public verdict when the bound holds but the bound ``lt`` on landmark leakage
    under the assumed correlation exceeds ε."""
    return (f"Every set made of the landmarks plus any one timestamp is protected "
            f"with ε = {eps:g} if consecutive values are independent. Under the "
            f"assumed temporal correlation the landmark leakage may reach up to "
            f"{_num(lt)} > ε (a bound for any set of landmark events of the declared "
            "size): the protection is weaker if the data are that correlated.")


def _green_sentence(eps: float, lt: float | None) -> str:
    """The public verdict of a landmark ε-private release (Katsomallos et al.
    CODASPY'22), also under the assumed correlation when its leakage bound ``lt`` is
    known."""
    sentence = (f"The landmarks together with any one further timestamp are protected "
                f"with ε = {eps:g} (landmark ε-privacy): whether any of these events "
                "is in the data changes the probability of this release by a factor of "
                f"at most e^ε ≈ {np.exp(min(eps, 700.0)):.3g}.")
    if lt is not None:
        sentence += (f" This also holds under the assumed temporal correlation (landmark "
                     f"leakage at most {_num(lt)} ≤ ε for any set of landmark events of "
                     "the declared size).")
    return sentence


#: the public sentence of each verdict colour
_SENTENCES = {"red": _red_sentence, "amber": _amber_sentence, "green": _green_sentence}


def _verdict(rd: ReportData, view: PublicView) -> tuple[str, str, str]:
    """(colour, headline, sentence) from the public view alone: the theorem's verdict of
    the allocation for k landmark events and, under a publishable model, the bound on
    landmark TPL against the leakage target (default ε). No timestamp, landmark count
    or place."""
    from lmdk_core.decision.verdict import LEAKAGE_RTOL
    from lmdk_core.report.compute import leakage_target

    eps = view.theorem.epsilon  # the total ε (the release's and a DP model's share)
    lt = view.total_bound
    alpha = leakage_target(rd.cfg) or eps
    if not view.theorem.private:
        colour, headline = "red", "Not landmark-private"
    elif lt is not None and not lt <= alpha * (1 + LEAKAGE_RTOL):
        colour, headline = "amber", "Landmark-private only if values were independent"
    else:
        colour, headline = "green", "Landmark-private"
    sentence = _SENTENCES[colour](eps, lt)
    if view.share:
        sentence += (f" The total ε = {eps:g} counts both outputs (sequential "
                     f"composition): ε − ε_M = {eps - view.share:g} for the released values "
                     f"and ε_M = {view.share:g} for the noisy transition counts of the "
                     "correlation model.")
    if lt is None and colour == "green":
        sentence += (" This assumes consecutive values are independent; if they are "
                     "correlated the protection can be weaker (see Temporal correlation).")
    return colour, headline, sentence


def _noise_errors(rd: ReportData, view: PublicView) -> np.ndarray:
    """The mechanism's expected error at the budget of every noisy publication of the
    public view (Laplace Δf/ε_t, Geometric 2a/(1 − a²), Planar Laplace 2r/ε_t): public
    settings and declared bounds."""
    cfg = rd.cfg
    eps = view.epsilon_t[view.published]
    if rd.is_track:
        return 2.0 * cfg.radius / eps
    mech = numeric_mechanism(cfg.mechanism, sensitivity=cfg.sensitivity)
    return np.asarray(mech.expected_error(eps), dtype=float)


def _utility(rd: ReportData, view: PublicView) -> tuple[str, str, str]:
    """(colour, label, sentence) of the public utility line: the expected error against
    the declared Δf of a series (:func:`~lmdk_core.decision.utility.declared_utility`);
    a track's extent is not declared, so its utility is not judged here."""
    unit = "m" if rd.is_track else getattr(rd.data, "unit", "") or ""
    scale = None if rd.is_track else float(rd.cfg.sensitivity)
    level, sentence = declared_utility(_noise_errors(rd, view), scale,
                                       "the declared largest change of one reading Δf",
                                       unit)
    colour = {"useful": "green", "marginal": "amber", "not useful": "red"}.get(level, "amber")
    return colour, level, sentence


def _expected_error(rd: ReportData, view: PublicView) -> list[tuple[str, str]]:
    """The expected error of a noisy publication (no per-timestamp value)."""
    cfg = rd.cfg
    eps = view.epsilon_t[view.published]
    if eps.size == 0:
        return [("Expected error", "— (no noisy publication)")]
    errors = _noise_errors(rd, view)
    if rd.is_track:
        return [("Expected displacement of a noisy location (mean, 2r/ε_t)",
                 f"{float(np.mean(errors)):,.0f} m")]
    mech = numeric_mechanism(cfg.mechanism, sensitivity=cfg.sensitivity)
    unit = f" {rd.series.unit}" if rd.series.unit else ""
    rmse = float(np.sqrt(np.mean(mech.expected_rmse(eps) ** 2)))
    return [("Expected absolute error of a noisy value (MAE)",
             f"{_num(float(np.mean(errors)))}{unit}"),
            ("Expected root mean squared error (RMSE)", f"{_num(rmse)}{unit}")]


#: why a note states no leakage under a model counted from the raw data
NOT_STATED = ("Temporal leakage is not stated in this note: the correlation model used "
              "to check this release was counted from the raw data, so every leakage "
              "figure under it is a statistic of the data. A declared model (a "
              "correlation-strength preset or an uploaded matrix) or a model estimated "
              "with differential privacy (a stated share of ε) puts it here.")


def _leakage_rows(rd: ReportData, view: PublicView) -> tuple[list[tuple[str, str]], str]:
    """The largest TPL and the bound on landmark TPL and the model (or why not stated)."""
    leak = rd.leakage
    if leak.model.key not in PUBLISHABLE_MODELS:  # its description counts the data too
        return [], NOT_STATED
    if not leak.computed or view.tpl_max is None:
        return [], f"Temporal leakage was not computed: {leak.model.note or 'no model'}."
    rows = [("Largest temporal privacy leakage of one timestamp (TPL, at the largest "
             "budget of one timestamp)", _num(view.tpl_max, ".3g")),
            ("Leakage of the landmarks plus one timestamp (landmark TPL), at most",
             _num(view.landmark_bound, ".3g"))]
    if view.share:
        rows.append(("With the correlation model's ε_M added (sequential composition), "
                     "at most", _num(view.total_bound, ".3g")))
    text = (f"Assumed correlation model: {leak.model.description} The bound holds for "
            "every set of landmark events of the declared size, wherever they are.")
    if view.smoothing_range:
        text += (" The model is an estimate: both figures are the worst over adding "
                 f"{view.smoothing_range} to every noisy count (less smoothing trusts the "
                 "counts more and leaks more; all of it is post-processing of the same "
                 "noisy counts).")
    return rows, text


def _risk_rows(rd: ReportData, view: PublicView) -> list[tuple[str, str]]:
    """Aggregated risk in words (no timestamp, place or count of landmarks)."""
    from lmdk_core.decision.attacker import risk_statements

    return risk_statements(view.theorem.epsilon, view.total_bound)


def render_release_note(rd: ReportData, noise: str = NUMPY_NOISE) -> str:
    """The public release note of computed report data ``rd`` as one HTML document."""
    cfg, rel = rd.cfg, rd.release
    info = scheme_info(rel.scheme)
    mech = (mechanism_text("planar laplace", radius=cfg.radius) if rd.is_track
            else mechanism_text(cfg.mechanism, sensitivity=cfg.sensitivity))
    view = public_view(rd)
    colour, headline, sentence = _verdict(rd, view)
    ucolour, ulabel, usentence = _utility(rd, view)
    share = _model_share(rd)
    title = "Public release note"
    seed = cfg.teaching_seed()
    if seed is not None:  # the teaching mode: the seed is fixed and known
        title = "TEACHING note (not publishable)"
        noise = f"{noise}; {teaching_note(seed)}"
    custom = custom_title(cfg)
    if custom:
        title += " — " + custom
    date = rd.generated.astimezone(UTC).strftime("%Y-%m-%d")
    leak_rows, model_text = _leakage_rows(rd, view)
    settings = [("Total privacy budget ε", f"{cfg.epsilon:g}")]
    if share:
        settings.append(("Budget split (sequential composition)",
                         f"ε − ε_M = {rel.epsilon:g} for the released values; ε_M = "
                         f"{share:g} for the correlation model (noisy transition counts)"))
    settings += [("Budget scheme", f"{info.label} — {info.description}"),
                 ("Landmark events protected together (declared bound k)",
                  f"at most {view.k}; the number of landmarks is not disclosed"),
                ("Mechanism", mech), ("Noise sampler", noise),
                ("Released", f"{len(rd.data):,} timestamps "
                             f"({'locations' if rd.is_track else 'values'}); withheld "
                             "timestamps are empty in the file")]
    return render_template(
        "release_note.html.j2", title=title, version=__version__, date=date, colour=colour,
        headline=headline, sentence=sentence, settings=settings, ucolour=ucolour,
        uhead=f"Utility: {ulabel}", usentence=usentence,
        expected_error=_expected_error(rd, view), leak_rows=leak_rows,
        model_text=model_text, risk_rows=_risk_rows(rd, view))


def public_summary(rd: ReportData) -> dict[str, object]:
    """What the note says, as the JSON of ``lmdk report --public --json`` (and its line
    on the screen): the note's verdict from the public view (no landmark count, no
    timestamp), the declared k, ε and its split, the utility level and the leakage
    figures the note states (None where it states none)."""
    view = public_view(rd)
    colour, headline, sentence = _verdict(rd, view)
    ucolour, ulabel, usentence = _utility(rd, view)
    stated = publishes_leakage(rd) and view.tpl_max is not None
    return {"verdict": colour, "verdict_headline": headline, "verdict_sentence": sentence,
            "utility": ulabel, "utility_sentence": usentence, "epsilon": rd.cfg.epsilon,
            "model_epsilon": view.share, "max_landmarks": view.k,
            "max_tpl": view.tpl_max if stated else None,
            "landmark_tpl_bound": view.landmark_bound if stated else None}


def build_release_note(cfg: ViewConfig, *, noise: str | None = None,
                       now: datetime | None = None) -> str:
    """The public release note of a configuration (recomputed like the report); by
    default it names the sampler of the published file (:func:`published_noise`, which
    refuses Adaptive)."""
    if noise is None:
        noise = published_noise(cfg)
    return render_release_note(compute_report(cfg, now=now), noise)
