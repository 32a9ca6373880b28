"""The privacy report: one self-contained HTML file that documents a release decision,
and the public release note that may accompany a release.

From a :class:`~lmdk_core.files.config.ViewConfig` (the JSON the Timeline, Map and Compare
pages download) the report **recomputes the release with the engine** — the same data,
landmarks, ε, scheme, mechanism and seed give the same noise — and writes:

* the data summary, the landmarks and the settings (ε, scheme, mechanism, Δf or the
  protection radius r, seed);
* the per-timestamp allocation ε_t with the theorem's total ``Σ_{i∈L∪{t}} ε_i`` against
  ε, and the verifier's verdict with its worst timestamp (landmark-privacy theorem:
  a release of independent ε_t-DP mechanisms is landmark ε-private if that total is
  ≤ ε at every t — a sufficient condition, necessary only for tight mechanisms);
* temporal privacy leakage (TPL, Cao et al. ICDE'17 / TKDE'18) and landmark TPL under
  a stated correlation model (:func:`correlation_model`);
* the error, measured and expected (Laplace: MAE Δf/ε_t, RMSE √2·Δf/ε_t; Geometric:
  2a/(1 − a²); Planar Laplace: mean displacement 2r/ε_t, Andrés et al. CCS 2013);
* the seed, software versions, generation date and the configuration itself.

Modules: :mod:`.compute` (configuration → :class:`ReportData`: data, release, leakage),
:mod:`.charts` (its figures as plotly's JSON in plain dictionaries), :mod:`.svg` (drawn
as static SVG), :mod:`.render` (the internal report's HTML),
:mod:`.release_note` (the public note's HTML); the HTML comes from the Jinja2 templates
in ``templates/`` with autoescaping, so every string from the configuration or the data
is escaped. Charts are inline SVG without any script (no plotly.js, no CDN), so the file
opens offline; building a report does not import plotly. No streamlit here: the app
(``app_support/report_button.py``) and the CLI (``lmdk report``) both call
:func:`build_report`.
"""

from lmdk_core.report.compute import (
    DEFAULT_CELL_SIZE_M,
    DEFAULT_SERIES_STATES,
    MAX_LEAKAGE_STATES,
    CorrelationModel,
    LeakageSummary,
    ReportData,
    compute_report,
    correlation_model,
    leakage_target,
    load_view_data,
    release_verdict,
    report_filename,
)
from lmdk_core.report.release_note import (
    build_release_note,
    release_note_filename,
    render_release_note,
)
from lmdk_core.report.render import CONFIDENTIAL_BANNER, build_report, render_html

__all__ = [
    "CONFIDENTIAL_BANNER",
    "DEFAULT_CELL_SIZE_M",
    "DEFAULT_SERIES_STATES",
    "MAX_LEAKAGE_STATES",
    "CorrelationModel",
    "LeakageSummary",
    "ReportData",
    "build_release_note",
    "build_report",
    "compute_report",
    "correlation_model",
    "leakage_target",
    "load_view_data",
    "release_note_filename",
    "release_verdict",
    "render_html",
    "render_release_note",
    "report_filename",
]
