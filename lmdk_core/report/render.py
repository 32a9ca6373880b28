"""The report's HTML: a computed :class:`~lmdk_core.report.compute.ReportData` laid out by
the Jinja2 template ``templates/report.html.j2`` (autoescaped: every string from the
configuration or the data is escaped; only the plotly figures, made by our code from
numbers, are inserted as they are).
"""

from __future__ import annotations

import json
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from lmdk_core import __version__
from lmdk_core.data.track import Track
from lmdk_core.decision.verdict import LEAKAGE_RTOL
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.release import numeric_mechanism
from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.report.charts import figures_html, report_figures
from lmdk_core.report.compute import (
    ReportData,
    compute_report,
    custom_title,
    leakage_target,
    mixture_quantile,
    release_verdict,
    source_file,
    utility_of,
)
from lmdk_core.report.templating import num as _num
from lmdk_core.report.templating import render_template

__all__ = ["CONFIDENTIAL_BANNER", "build_report", "render_html"]

#: the configuration is shown in full up to this many characters
MAX_CONFIG_CHARS = 200_000
#: the landmark table lists at most this many rows
MAX_LANDMARK_ROWS = 300

#: the banner on every screen of the internal report (sticky; repeated when printed)
CONFIDENTIAL_BANNER = ("CONFIDENTIAL — contains the raw data and the landmark set · internal "
                       "privacy report, do not publish (the public release note is the form "
                       "to hand on)")

#: the verdict in a table cell or a card
VERDICT_LABELS = {"green": "green: landmark-private",
                  "amber": "amber: landmark-private only if values were independent",
                  "red": "red: NOT landmark-private"}


@dataclass(frozen=True)
class Grid:
    """A table with a header row, for the template's ``grid`` macro (cells escaped).

    Built from plain rows and columns, as ``Grid.of(pd.DataFrame(...))`` built it
    before (pandas cost the report 0.2 s of CPU to import): the same header and cells
    (tests/engine/test_report_without_pandas.py compares both on random tables)."""

    columns: list[str]
    rows: list[list[object]]

    @classmethod
    def of_records(cls, records: Sequence[Mapping[str, object]]) -> Grid:
        """One row per record, every record with the same keys (``pd.DataFrame(records)``
        of such records: the columns in the first record's order)."""
        columns = list(records[0]) if records else []
        if any(r.keys() != records[0].keys() for r in records):
            raise ValueError("every row of a table must have the same columns")
        return cls([str(c) for c in columns], [[r[c] for c in columns] for r in records])

    @classmethod
    def of_columns(cls, columns: Mapping[str, Sequence[object]]) -> Grid:
        """Columns of equal length (``pd.DataFrame(columns)``)."""
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError("the columns of a table must have the same length")
        return cls([str(c) for c in columns],
                   [list(r) for r in zip(*columns.values(), strict=True)])



def _seed_text(cfg) -> str:
    """The seed as the internal report shows it."""
    if cfg.seed is None:
        return "fresh 128-bit OS entropy (not recorded)"
    return f"{cfg.seed} (teaching mode: fixed)" if cfg.reproducible else str(cfg.seed)

#: the built-in demos' descriptions in the data summary
DEMO_SOURCES = {"demo-household": "built-in demo: one week of hourly household electricity",
                "demo-paris": "built-in demo: one day of a person in Paris"}


def _dataset_text(cfg: ViewConfig) -> str:
    """Where the data come from: a demo, the configuration itself, or a referenced file
    (supplied and checked against its SHA-256)."""
    if cfg.data_file:
        return (f"the file {cfg.data_file['name']} (SHA-256 {cfg.data_file['sha256']}), "
                "referenced by the configuration and checked against it")
    src = source_file(cfg)
    if cfg.dataset == "embedded" and src is not None:
        return (f"the uploaded file {src['name'].strip()} (SHA-256 {src['sha256']}), its "
                "table embedded in the configuration")
    return f"{cfg.dataset} — {DEMO_SOURCES.get(cfg.dataset, 'embedded in the configuration')}"


def _track_rows(data: Track) -> list[tuple[str, str]]:
    """A track's path length and bounding box."""
    from lmdk_core.foundation.geodesy import distance_m

    length = float(np.sum(distance_m(data.lat[:-1], data.lon[:-1], data.lat[1:],
                                     data.lon[1:]))) if len(data) > 1 else 0.0
    return [("Path length", f"{length / 1000:,.2f} km"),
            ("Bounding box", f"lat {data.lat.min():.5f}..{data.lat.max():.5f}, "
                             f"lon {data.lon.min():.5f}..{data.lon.max():.5f}")]


def _series_rows(data) -> list[tuple[str, str]]:
    """A series' smallest, mean and largest value."""
    v = data.values
    u = f" {data.unit}" if data.unit else ""
    return [("Values", f"min {v.min():.4g}{u}, mean {v.mean():.4g}{u}, max {v.max():.4g}{u}")]


def _data_rows(rd: ReportData) -> list[tuple[str, str]]:
    """The data summary: kind, source, name, timestamps, time span and extent."""
    data, labels = rd.data, rd.labels
    T = len(data)
    rows = [("Kind", "trajectory (locations)" if rd.is_track else "time series"),
            ("Dataset", _dataset_text(rd.cfg)),
            ("Name", data.name),
            ("Timestamps", f"{T:,} (numbered 0..{T - 1})"),
            ("From / to", f"{labels[0]} — {labels[-1]}")]
    return rows + (_track_rows(data) if isinstance(data, Track) else _series_rows(data))


def _settings_rows(rd: ReportData) -> list[tuple[str, str]]:
    """The settings: ε, scheme, mechanism, Δf or r, seed, budget spent, page."""
    cfg, rel = rd.cfg, rd.release
    info = scheme_info(cfg.scheme)
    rows = [("Total budget ε", f"{cfg.epsilon:g}"),
            ("Scheme", f"{info.label} — {info.description}")]
    if info.key == "w-event":
        rows.append(("Window w", f"{cfg.window}"))
    if rd.is_track:
        rows += [("Mechanism", "Planar Laplace (geo-indistinguishability, Andrés et al. 2013)"),
                 ("Protection radius r", f"{cfg.radius:,.0f} m — two places within r are "
                                         "ε_t-indistinguishable at timestamp t")]
    else:
        label = {"laplace": "Laplace (noise scale Δf/ε_t)",
                 "geometric": "Geometric, two-sided (whole numbers)"}[cfg.mechanism]
        rows += [("Mechanism", label),
                 ("Sensitivity Δf", f"{cfg.sensitivity:g}"
                                    + (f" {rd.series.unit}" if rd.series.unit else ""))]
    rows += [("Random seed", _seed_text(cfg)),
             ("Budget spent", f"{int(rel.published.sum())} timestamps published with noise, "
                              f"{int((~rel.published & ~rel.withheld).sum())} approximated "
                              f"(ε_t = 0), {int(rel.withheld.sum())} withheld"),
             ("Page", cfg.page)]
    return rows


def _landmark_rows(rd: ReportData) -> list[dict[str, object]]:
    """One row per landmark: t, time, value or place, ε_t, how it was released."""
    rel, data, labels = rd.release, rd.data, rd.labels
    rows = []
    for t in rel.landmarks[:MAX_LANDMARK_ROWS]:
        t = int(t)
        row = {"t": t, "time": labels[t]}
        if isinstance(data, Track):
            row["location (lat, lon)"] = f"{data.lat[t]:.5f}, {data.lon[t]:.5f}"
        else:
            row["value"] = f"{data.values[t]:.4g}"
        row["ε_t spent"] = f"{rel.epsilon_t[t]:.4g}"
        row["release"] = ("published (noisy)" if rel.published[t] else
                          "withheld" if rel.withheld[t] else "approximated (last release)")
        rows.append(row)
    return rows


def _verdict(rd: ReportData) -> dict[str, str | None]:
    """The one verdict (:func:`lmdk_core.decision.verdict.privacy_verdict`): green, amber or red."""
    pv = rd.verdict
    v = pv.theorem
    over_budget = None
    if pv.colour == "red":
        bad = v.violations
        over_budget = ", ".join(str(int(t)) for t in bad[:10]) + (" …" if bad.size > 10 else "")
    return {"cls": {"green": "ok", "amber": "amber", "red": "bad"}[pv.colour],
            "colour": pv.colour,
            "head": {"green": "Landmark-private",
                     "amber": "Landmark-private only if consecutive values were independent",
                     "red": "NOT landmark-private"}[pv.colour],
            "why": pv.why, "sentence": pv.sentence, "over_budget": over_budget,
            "summary": v.summary()}


UTILITY_CLS = {"useful": "ok", "marginal": "amber", "not useful": "bad"}


def _utility(rd: ReportData) -> dict[str, str]:
    """The utility line (:mod:`lmdk_core.decision.utility`): expected error vs the data's scale."""
    uv = rd.utility
    lead, _, body = uv.sentence.partition(": ")
    return {"cls": UTILITY_CLS[uv.level], "head": f"Utility: {uv.label}",
            "lead": lead, "sentence": body}


def _attacker_rows(rd: ReportData) -> list[tuple[str, str]]:
    """Risk in words (posterior bounds, correlation, repeated releases) and, from this very
    release, how many values repeat the previous one (under Skip or Adaptive they mark
    approximations, and Skip approximates exactly the landmarks)."""
    from lmdk_core.decision.attacker import repeat_inference, risk_statements

    leak, rel = rd.leakage, rd.release
    tpl_max = float(np.max(leak.landmark_tpl)) \
        if leak.computed and leak.landmark_tpl is not None else None
    rows = risk_statements(rel.epsilon, tpl_max)
    if not rd.is_track and rel.landmarks.size:
        rows.append(_sensitivity_row(rd))
    flagged, hits, n_lm = repeat_inference(rel.released, rel.landmarks)
    if flagged:
        rows.append(("Which timestamps are landmarks?",
                     f"{flagged} released value(s) repeat the previous one or are withheld; "
                     f"{hits} of them are landmarks ({hits}/{n_lm} of the landmarks). An "
                     "attacker who sees the release can point at them; dummy landmarks hide "
                     "this pattern."))
    else:
        rows.append(("Which timestamps are landmarks?",
                     "No released value repeats the previous one: the release itself shows "
                     "no trace of which timestamps are landmarks."))
    return rows


def _sensitivity_row(rd: ReportData) -> tuple[str, str]:
    """Whether Δf covers what this data's landmark events change, with the largest
    likelihood ratio of an event (:mod:`lmdk_core.decision.sensitivity`): the posterior bounds
    above hold only when it does."""
    from lmdk_core.decision.attacker import posterior_bound
    from lmdk_core.decision.sensitivity import derived_sensitivity, landmark_events

    rel, df = rd.release, float(rd.cfg.sensitivity)
    events = landmark_events(rd.series, rel.landmarks.tolist(), rel.epsilon_t, df)
    worst = max(events, key=lambda e: e.log_ratio)
    span = (f"t={worst.timestamps[0]}" + (f"–{worst.timestamps[-1]}"
                                         if len(worst.timestamps) > 1 else ""))
    biggest = max(abs(d) for e in events for d in e.changes)
    derived = derived_sensitivity(rd.series, rel.landmarks.tolist()).value
    if all(e.covered for e in events):
        text = (f"Δf = {df:g} covers every landmark event (largest change {biggest:.3g}); the "
                f"largest likelihood ratio of one event is {worst.likelihood_ratio:.3g} ({span}) "
                f"≤ e^ε = {np.exp(min(rel.epsilon, 700.0)):.3g}, so the bounds above hold.")
    else:
        text = (f"Δf = {df:g} does NOT cover this data's landmark events: one changes a "
                f"reading by {biggest:.3g}. The event at {span} is "
                f"{worst.likelihood_ratio:,.3g} times more likely with than without (e^ε = "
                f"{np.exp(min(rel.epsilon, 700.0)):.3g}); a 10% suspicion can grow to "
                f"{float(posterior_bound(0.1, worst.log_ratio)):.1%}. The bounds above do not "
                f"hold for it; a Δf of {derived:g} (derived from the data) would.")
    return ("Sensitivity vs the landmark events", text)


def _leakage(rd: ReportData) -> dict[str, object]:
    """The leakage section: model, largest TPL and landmark TPL, against ε."""
    leak, rel = rd.leakage, rd.release
    out: dict[str, object] = {"description": leak.model.description,
                              "computed": leak.computed, "note": leak.model.note or ""}
    tpl, landmark_tpl = leak.tpl, leak.landmark_tpl
    if tpl is None or landmark_tpl is None:  # not computed
        return out
    labels = rd.labels
    i_t = int(np.argmax(tpl))
    i_l = int(np.argmax(landmark_tpl))
    max_l = float(landmark_tpl[i_l])
    out["rows"] = [("Largest TPL (one timestamp)",
                    f"{_num(float(tpl[i_t]))} at t={i_t} ({labels[i_t]})"),
                   ("Largest landmark TPL (landmarks + one timestamp)",
                    f"{_num(max_l)} at t={i_l} ({labels[i_l]})"),
                   ("Without correlation (the theorem's total)",
                    f"{_num(rel.verdict.worst_total)}"),
                   ("Total budget ε", f"{rel.epsilon:g}")]
    out["exceeds"] = max_l > rel.epsilon * (1 + LEAKAGE_RTOL)
    out["max_landmark_tpl"] = _num(max_l)
    out["epsilon"] = _num(rel.epsilon)
    return out


def _measured(errors: np.ndarray, stat, fmt: str = ".4g") -> str:
    """``stat`` of the errors measured at the noisy releases; "—" when there are none."""
    return _num(float(stat(errors)), fmt) if errors.size else "—"


def _rms(e: np.ndarray) -> float:
    """Root mean square."""
    return np.sqrt(np.mean(e ** 2))


def _p95(e: np.ndarray) -> float:
    """95th percentile."""
    return np.percentile(e, 95)


def _track_error(rd: ReportData, m: dict) -> dict[str, object]:
    """Displacement of a track release: measured at the noisy releases, expected under
    Planar Laplace (mean 2r/ε_t, median and 95th percentile of Gamma(2, r/ε_t); Andrés
    et al. CCS'13) and over all released points."""
    from lmdk_core.mechanisms import PlanarLaplace

    rel = rd.release
    pub = rel.published
    mech = PlanarLaplace(rd.cfg.radius)
    eps = rel.epsilon_t[pub]
    exp_med = mixture_quantile(mech, eps, 0.5)
    exp_p95 = mixture_quantile(mech, eps, 0.95)
    e_pub = rel.errors[pub]
    table = Grid.of_columns({
        "": ["mean", "median", "95th percentile"],
        "measured at noisy releases (m)": [_measured(e_pub, np.mean, ",.0f"),
                                           _measured(e_pub, np.median, ",.0f"),
                                           _measured(e_pub, _p95, ",.0f")],
        "expected, Planar Laplace (m)": [_num(m["expected_mae_published"], ",.0f"),
                                         _num(exp_med, ",.0f"), _num(exp_p95, ",.0f")],
        "all released points (m)": [_num(m["mae"], ",.0f"), _num(m["median_error"], ",.0f"),
                                    _num(m["p95_error"], ",.0f")],
    })
    note = ("Expected: mean 2r/ε_t, median and 95th percentile of Gamma(2, r/ε_t), "
            "mixed over the published timestamps. Approximated points repeat the last "
            "release, so their displacement also includes the movement since.")
    return {"table": table, "note": note}


def _series_error(rd: ReportData, m: dict) -> dict[str, object]:
    """Error of a series release: MAE and RMSE measured at the noisy releases, expected
    (Laplace MAE Δf/ε_t, RMSE √2·Δf/ε_t; Geometric MAE 2a/(1 − a²)) and over all
    released timestamps."""
    rel, cfg = rd.release, rd.cfg
    pub = rel.published
    mech = numeric_mechanism(cfg.mechanism, sensitivity=cfg.sensitivity)
    eps = rel.epsilon_t[pub]
    exp_rmse = float(np.sqrt(np.mean(mech.expected_rmse(eps) ** 2))) if eps.size else np.nan
    e_pub = rel.errors[pub]
    u = f" ({rd.series.unit})" if rd.series.unit else ""
    table = Grid.of_columns({
        "": ["mean absolute error (MAE)", "root mean squared error (RMSE)"],
        f"measured at noisy releases{u}": [_measured(e_pub, np.mean), _measured(e_pub, _rms)],
        f"expected at noisy releases{u}": [_num(m["expected_mae_published"]),
                                           _num(exp_rmse)],
        f"all released timestamps{u}": [_num(m["mae"]), _num(m["rmse"])],
    })
    note = ("Expected: Laplace MAE Δf/ε_t and RMSE √2·Δf/ε_t; Geometric MAE 2a/(1 − a²) "
            "with a = e^(−ε_t/Δf) — averaged over the published timestamps. "
            "Approximations repeat the last release: their error is the change since.")
    return {"table": table, "note": note}


def _error(rd: ReportData) -> dict[str, object]:
    """The error table and its note, for a track or a series."""
    m = rd.release.metrics()
    return _track_error(rd, m) if rd.is_track else _series_error(rd, m)


def _error_unit(rd: ReportData) -> str:
    """The unit of the error: metres for a track, the series' unit (may be empty)."""
    return "m" if rd.is_track else (rd.series.unit or "")


def _max_leakage(leak, values: np.ndarray | None, missing: str = "—") -> str:
    """The largest of a leakage curve (3 digits), or ``missing`` when not computed."""
    return _num(float(np.max(values)), ".3g") if leak.computed and values is not None \
        else missing


def _comparison_row(rd: ReportData, key: str, rel, leak) -> dict[str, str]:
    """One compared scheme: verdict, utility, worst total, error and leakage."""
    unit = _error_unit(rd)
    fmt = ",.0f" if rd.is_track else ".3g"
    v, m = rel.verdict, rel.metrics()
    colour = release_verdict(rel, leak, target=leakage_target(rd.cfg)).colour
    uv = utility_of(rd.cfg, rd.data, rel)
    error_title = ("mean displacement" if rd.is_track else "MAE") + (f" ({unit})" if unit else "")
    return {
        "scheme": scheme_info(key).label,
        "verdict": VERDICT_LABELS[colour],
        "utility": f"{uv.label}: {uv.short()}",
        "worst Σ over L∪{t}": f"{v.worst_total:.4g} at t={v.worst_timestamp}",
        error_title: _num(m["mae"], fmt),
        "expected": _num(m["expected_mae_published"], fmt),
        "published / approximated / withheld":
            f"{m['n_published']} / {m['n_approximated']} / {m['n_withheld']}",
        "max TPL": _max_leakage(leak, leak.tpl),
        "max landmark TPL": _max_leakage(leak, leak.landmark_tpl),
    }


def _comparison(rd: ReportData) -> Grid | None:
    """A table of the compared schemes: verdict, worst total, error and leakage."""
    if not rd.comparison:
        return None
    return Grid.of_records([_comparison_row(rd, key, rel, leak)
                            for key, rel, leak in rd.comparison])


def _extra_rows(cfg: ViewConfig) -> list[tuple[str, str]]:
    """The configuration's extra settings as rows (JSON, ≤ 500 characters)."""
    rows = []
    for k, v in (cfg.extra or {}).items():
        try:
            text = json.dumps(v, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(v)
        rows.append((str(k), text[:500]))
    return rows


def _config_text(cfg: ViewConfig) -> str:
    """The configuration as JSON, cut at MAX_CONFIG_CHARS characters."""
    text = config_to_json(cfg)
    if len(text) > MAX_CONFIG_CHARS:
        return text[:MAX_CONFIG_CHARS] + "\n… (truncated: the embedded data are too long to show)"
    return text


#: the libraries whose versions the report lists (their distributions' names)
VERSIONED_LIBRARIES = ("numpy", "scipy", "pandas", "plotly")


def library_version(name: str) -> str:
    """The installed version of distribution ``name``, read from its metadata: the
    library's ``__version__`` without importing it (pandas and plotly cost a report
    0.2–0.3 s of CPU each; tests/engine/test_report_versions.py checks both agree), as
    ``importlib.metadata.version`` reads it (mostly without importing that either:
    :func:`lmdk_core.foundation.installed_versions.installed_version`)."""
    from lmdk_core.foundation.installed_versions import installed_version

    return installed_version(name)


def _versions() -> list[tuple[str, str]]:
    """The versions of the package, Python and the numerical libraries."""
    return [("lmdk-explorer", __version__), ("Python", platform.python_version()),
            *((name, library_version(name)) for name in VERSIONED_LIBRARIES)]


def _cards(rd: ReportData) -> list[tuple[str, str]]:
    """The summary cards: verdict, utility, settings, worst total, leakage, error."""
    cfg, rel = rd.cfg, rd.release
    m = rel.metrics()
    leak_card = _max_leakage(rd.leakage, rd.leakage.landmark_tpl, missing="not computed")
    unit = _error_unit(rd)
    return [
        ("Verdict", VERDICT_LABELS[rd.verdict.colour]),
        ("Utility", rd.utility.label),
        ("Total budget ε", f"{cfg.epsilon:g}"),
        ("Scheme", scheme_info(cfg.scheme).label),
        ("Mechanism", "Planar Laplace" if rd.is_track else cfg.mechanism.capitalize()),
        ("Landmarks", f"{rel.landmarks.size}"),
        ("Worst Σ over L∪{t}", f"{_num(rel.verdict.worst_total, '.3g')} at t="
                               f"{rel.verdict.worst_timestamp}"),
        ("Largest landmark TPL", leak_card),
        ("Mean displacement" if rd.is_track else "MAE (measured)",
         f"{_num(m['mae'], ',.0f' if rd.is_track else '.3g')} {unit}".strip()),
    ]


def render_html(rd: ReportData) -> str:
    """The report of computed data ``rd`` as one HTML document."""
    cfg, rel = rd.cfg, rd.release
    date = rd.generated.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    title = custom_title(cfg) or "Privacy report — " + rd.data.name
    lm_rows = _landmark_rows(rd)
    return render_template(
        "report.html.j2",
        title=title, banner=CONFIDENTIAL_BANNER, version=__version__, date=date,
        seed=_seed_text(cfg), is_track=rd.is_track, cards=_cards(rd), verdict=_verdict(rd),
        utility=_utility(rd),
        data_rows=_data_rows(rd), n_landmarks=rel.landmarks.size,
        landmarks=Grid.of_records(lm_rows) if lm_rows else None,
        more_landmarks=rel.landmarks.size - len(lm_rows),
        settings_rows=_settings_rows(rd), extra_rows=_extra_rows(cfg),
        # plotly's HTML of figures drawn from the engine's numbers: inserted |safe
        figs=figures_html(report_figures(rd)),
        leakage=_leakage(rd), error=_error(rd), attacker_rows=_attacker_rows(rd),
        comparison=_comparison(rd),
        repro_rows=[("Generated", date), ("Random seed", _seed_text(cfg))] + _versions(),
        config_text=_config_text(cfg),
    )


def build_report(cfg: ViewConfig, *, now: datetime | None = None) -> str:
    """The self-contained HTML report of a configuration (see :mod:`lmdk_core.report`).

    Raises :class:`InputError` when the configuration or its data are not usable.
    """
    return render_html(compute_report(cfg, now=now))
