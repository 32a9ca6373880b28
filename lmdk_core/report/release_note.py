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
* the utility line (:mod:`lmdk_core.decision.utility`) in words only
  (:meth:`~lmdk_core.decision.utility.UtilityVerdict.public_sentence`): useful, marginal or "this
  release is not useful", with the rule, but without the data's spread or extent (they
  are computed from the raw data), the worst error or the advice (it counts landmarks);
* temporal leakage aggregated: the largest TPL and landmark TPL (Cao et al., ICDE 2017 /
  TKDE 2018) under the stated correlation model, as single numbers.

Not in the note: raw values, landmark timestamps, places or count, per-timestamp charts
(ε_t reveals L), measured errors (computed from the raw data), the data's name and the
seed. Everything shown comes from a :class:`~lmdk_core.report.ReportData`, laid out by
the autoescaped Jinja2 template ``templates/release_note.html.j2``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from lmdk_core import __version__
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.release import numeric_mechanism
from lmdk_core.engine.validation import InputError
from lmdk_core.files.config import ViewConfig
from lmdk_core.files.export import (
    NUMPY_NOISE,
    PLANAR_NOISE,
    mechanism_text,
    noise_text,
    teaching_note,
)
from lmdk_core.report.compute import ReportData, compute_report, custom_title
from lmdk_core.report.templating import num as _num
from lmdk_core.report.templating import render_template

__all__ = ["build_release_note", "published_noise", "release_note_filename",
           "render_release_note"]


def published_noise(cfg: ViewConfig) -> str:
    """The sampler of the file a configuration's release is published in, for a public
    note built from the configuration alone: OpenDP's exact samplers for a series (the
    default of ``lmdk release`` and the app's publishable CSV; Mironov, CCS 2012), numpy's
    floating-point Planar Laplace for a track (no exact sampler here; Andrés et al., CCS
    2013). Every figure of the note then holds for the published file too: ε, scheme,
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
    return PLANAR_NOISE if cfg.data_kind == "track" else noise_text("exact")


def release_note_filename(cfg: ViewConfig, now: datetime | None = None) -> str:
    """``lmdk_release_note_<series|track>_<YYYYMMDD-HHMM>.html``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M")
    if cfg.reproducible:  # the teaching mode: never called a release note to publish
        return f"lmdk_TEACHING_note_{cfg.data_kind}_{stamp}.html"
    return f"lmdk_release_note_{cfg.data_kind}_{stamp}.html"


def _red_sentence(eps: float, lt: float | None) -> str:
    """The public verdict when the allocation breaks the theorem's bound."""
    return (f"The budget allocation exceeds ε = {eps:g} for some set of landmarks "
            "plus one timestamp: this release is not landmark ε-private, even if "
            "consecutive values were independent.")


def _amber_sentence(eps: float, lt: float | None) -> str:
    """The public verdict when the bound holds but the landmark leakage ``lt`` under the
    assumed correlation exceeds ε."""
    return (f"Every set made of the landmarks plus any one timestamp is protected "
            f"with ε = {eps:g} if consecutive values are independent. Under the "
            f"assumed temporal correlation the landmark leakage reaches {_num(lt)} "
            f"> ε: the protection is weaker if the data are that correlated.")


def _green_sentence(eps: float, lt: float | None) -> str:
    """The public verdict of a landmark ε-private release (Katsomallos et al.
    CODASPY'22), also under the assumed correlation when its leakage ``lt`` is known."""
    sentence = (f"The landmarks together with any one further timestamp are protected "
                f"with ε = {eps:g} (landmark ε-privacy): whether any of these events "
                "is in the data changes the probability of this release by a factor of "
                f"at most e^ε ≈ {np.exp(min(eps, 700.0)):.3g}.")
    if lt is not None:
        sentence += (f" This also holds under the assumed temporal correlation (landmark "
                     f"leakage at most {_num(lt)} ≤ ε).")
    return sentence


#: the public sentence of each verdict colour
_SENTENCES = {"red": _red_sentence, "amber": _amber_sentence, "green": _green_sentence}


def _verdict(rd: ReportData) -> tuple[str, str, str]:
    """(colour, headline, sentence) with no timestamp, landmark count or place; from the
    theorem's verdict alone when ``rd`` has no privacy verdict."""
    rel = rd.release
    pv = getattr(rd, "verdict", None)
    if pv is not None:
        colour, headline, lt = pv.colour, pv.headline, pv.landmark_tpl_max
    elif rel.verdict.private:
        colour, headline, lt = "green", "Landmark-private", None
    else:
        colour, headline, lt = "red", "Not landmark-private", None
    return colour, headline, _SENTENCES.get(colour, _green_sentence)(rel.epsilon, lt)


def _expected_error(rd: ReportData) -> list[tuple[str, str]]:
    """The expected error of a noisy publication (no per-timestamp value)."""
    rel, cfg = rd.release, rd.cfg
    eps = rel.epsilon_t[rel.published]
    if eps.size == 0:
        return [("Expected error", "— (no noisy publication)")]
    if rd.is_track:
        mean = float(np.mean(2.0 * cfg.radius / eps))
        return [("Expected displacement of a noisy location (mean, 2r/ε_t)",
                 f"{mean:,.0f} m")]
    mech = numeric_mechanism(cfg.mechanism, cfg.sensitivity)
    unit = f" {rd.data.unit}" if getattr(rd.data, "unit", "") else ""
    mae = float(np.mean(mech.expected_error(eps)))
    rmse = float(np.sqrt(np.mean(mech.expected_rmse(eps) ** 2)))
    return [("Expected absolute error of a noisy value (MAE)", f"{_num(mae)}{unit}"),
            ("Expected root mean squared error (RMSE)", f"{_num(rmse)}{unit}")]


def _leakage_rows(rd: ReportData) -> tuple[list[tuple[str, str]], str]:
    """The largest TPL and landmark TPL and the model (or why not computed)."""
    leak = rd.leakage
    if not leak.computed:
        return [], f"Temporal leakage was not computed: {leak.model.note or 'no model'}."
    rows = [("Largest temporal privacy leakage of one timestamp (TPL)",
             _num(float(np.max(leak.tpl)), ".3g")),
            ("Largest leakage of the landmarks plus one timestamp (landmark TPL)",
             _num(float(np.max(leak.landmark_tpl)), ".3g"))]
    return rows, f"Assumed correlation model: {leak.model.description}"


def _risk_rows(rd: ReportData) -> list[tuple[str, str]]:
    """Aggregated risk in words (no timestamp, place or count of landmarks)."""
    from lmdk_core.decision.attacker import risk_statements

    leak = rd.leakage
    tpl_max = float(np.max(leak.landmark_tpl)) if leak.computed else None
    return risk_statements(rd.release.epsilon, tpl_max)


def render_release_note(rd: ReportData, noise: str = NUMPY_NOISE) -> str:
    """The public release note of computed report data ``rd`` as one HTML document."""
    cfg, rel = rd.cfg, rd.release
    info = scheme_info(rel.scheme)
    mech = (mechanism_text("planar laplace", radius=cfg.radius) if rd.is_track
            else mechanism_text(cfg.mechanism, sensitivity=cfg.sensitivity))
    colour, headline, sentence = _verdict(rd)
    uv = rd.utility
    ucolour = {"useful": "green", "marginal": "amber", "not useful": "red"}[uv.level]
    title = "Public release note"
    if cfg.reproducible:  # the teaching mode: the seed is fixed and known
        title = "TEACHING note (not publishable)"
        noise = f"{noise}; {teaching_note(cfg.seed)}"
    custom = custom_title(cfg)
    if custom:
        title += " — " + custom
    date = rd.generated.astimezone(UTC).strftime("%Y-%m-%d")
    leak_rows, model_text = _leakage_rows(rd)
    settings = [("Total privacy budget ε", f"{rel.epsilon:g}"),
                ("Budget scheme", f"{info.label} — {info.description}"),
                ("Mechanism", mech), ("Noise sampler", noise),
                ("Released", f"{len(rd.data):,} timestamps "
                             f"({'locations' if rd.is_track else 'values'}); withheld "
                             "timestamps are empty in the file")]
    return render_template(
        "release_note.html.j2", title=title, version=__version__, date=date, colour=colour,
        headline=headline, sentence=sentence, settings=settings, ucolour=ucolour,
        uhead=f"Utility: {uv.label}", usentence=uv.public_sentence(),
        expected_error=_expected_error(rd), leak_rows=leak_rows, model_text=model_text,
        risk_rows=_risk_rows(rd))


def build_release_note(cfg: ViewConfig, *, noise: str | None = None,
                       now: datetime | None = None) -> str:
    """The public release note of a configuration (recomputed like the report); by
    default it names the sampler of the published file (:func:`published_noise`, which
    refuses Adaptive)."""
    if noise is None:
        noise = published_noise(cfg)
    return render_release_note(compute_report(cfg, now=now), noise)
