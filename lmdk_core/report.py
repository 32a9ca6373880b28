"""The privacy report: one self-contained HTML file that documents a release decision.

From a :class:`~lmdk_core.config.ViewConfig` (the JSON the Timeline, Map and Compare
pages download) the report **recomputes the release with the engine** — the same data,
landmarks, ε, scheme, mechanism and seed give the same noise — and writes:

* the data summary, the landmarks and the settings (ε, scheme, mechanism, Δf or the
  protection radius r, seed);
* the per-timestamp allocation ε_t with the theorem's total ``Σ_{i∈L∪{t}} ε_i`` against
  ε, and the verifier's verdict with its worst timestamp (landmark-privacy theorem:
  a release of independent ε_t-DP mechanisms is landmark ε-private iff that total is
  ≤ ε at every t);
* temporal privacy leakage (TPL, Cao et al. ICDE'17 / TKDE'18) and landmark TPL under
  a stated correlation model (:func:`correlation_model`);
* the error, measured and expected (Laplace: MAE Δf/ε_t, RMSE √2·Δf/ε_t; Geometric:
  2a/(1 − a²); Planar Laplace: mean displacement 2r/ε_t, Andrés et al. CCS 2013);
* the seed, software versions, generation date and the configuration itself.

Charts are interactive plotly figures; plotly.js is embedded once (no CDN), so the file
opens offline. Every string that comes from the configuration or the data is
HTML-escaped. No streamlit here: the app (``app_pages/report_button.py``) and the CLI
(``lmdk report``) both call :func:`build_report`.
"""

from __future__ import annotations

import html
import json
import platform
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from lmdk_core import __version__
from lmdk_core.allocation import scheme_info
from lmdk_core.comparison import ReleaseFn, compare_schemes, series_release_fn, track_release_fn
from lmdk_core.config import ViewConfig, config_to_json
from lmdk_core.data.series import Series, load_series_csv
from lmdk_core.data.track import Track, load_track_csv
from lmdk_core.figures import COLORS, hover_labels, timeline_figure
from lmdk_core.leakage.model import (
    DEFAULT_CELL_SIZE_M,
    DEFAULT_SERIES_STATES,
    MAX_LEAKAGE_STATES,
    CorrelationModel,
    correlation_from_spec,
)
from lmdk_core.release import Release, numeric_mechanism
from lmdk_core.validation import InputError
from lmdk_core.verdict import LEAKAGE_RTOL, PrivacyVerdict, privacy_verdict

__all__ = [
    "DEFAULT_CELL_SIZE_M",
    "DEFAULT_SERIES_STATES",
    "MAX_LEAKAGE_STATES",
    "CorrelationModel",
    "LeakageSummary",
    "ReportData",
    "build_report",
    "compute_report",
    "correlation_model",
    "load_view_data",
    "render_html",
    "report_filename",
]

#: the configuration is shown in full up to this many characters
MAX_CONFIG_CHARS = 200_000
#: the landmark table lists at most this many rows
MAX_LANDMARK_ROWS = 300

SERIES_DEMOS = {"demo-household"}
TRACK_DEMOS = {"demo-paris"}


# ====================================================================== data
def load_view_data(cfg: ViewConfig) -> Series | Track:
    """The series or track a configuration describes: a built-in demo or its embedded
    table (``data`` = {column: [values]}: ``time,value`` or ``[time,]lat,lon``)."""
    cfg.validate()
    if cfg.data_kind == "series":
        if cfg.dataset in SERIES_DEMOS:
            from lmdk_core.data.demo import demo_series

            return demo_series()
        if cfg.dataset == "embedded":
            return load_series_csv(_embedded_csv(cfg, ("time", "value")), name="embedded series")
        raise InputError(f"config: unknown series dataset {cfg.dataset!r}; expected "
                         "'demo-household' or 'embedded'")
    if cfg.dataset in TRACK_DEMOS:
        try:
            from lmdk_core.data.demo_track import demo_track
        except ImportError:
            raise InputError("config: the demo track 'demo-paris' is not available in this "
                             "version; embed the track in 'data' instead") from None
        return demo_track()
    if cfg.dataset == "embedded":
        return load_track_csv(_embedded_csv(cfg, ("lat", "lon")), name="embedded track")
    raise InputError(f"config: unknown track dataset {cfg.dataset!r}; expected 'demo-paris' "
                     "or 'embedded'")


def _embedded_csv(cfg: ViewConfig, needed: tuple[str, ...]) -> bytes:
    data = cfg.data
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise InputError("config: 'data' must map column names to lists of values")
    missing = [c for c in needed if c not in data]
    if missing:
        raise InputError(f"config: the embedded data have no {missing[0]!r} column")
    lengths = {len(v) for v in data.values()}
    if len(lengths) != 1:
        raise InputError("config: the embedded data columns have different lengths")
    return pd.DataFrame(data).to_csv(index=False).encode()


# ====================================================================== correlation
def correlation_model(cfg: ViewConfig, data: Series | Track) -> CorrelationModel:
    """The correlation model of a configuration: ``cfg.extra['correlation']`` (the model
    the app's session had in force when the configuration was saved; format in
    :mod:`lmdk_core.leakage.model`), read by
    :func:`~lmdk_core.leakage.model.correlation_from_spec`.

    Without it: for a **series** Cao et al.'s smoothed matrix ``P = (I + s)/(1 + n·s)``
    with ``n = 10`` states and ``s = cfg.correlation_strength``; for a **track** grid
    cells of ``cfg.extra['cell_size_m']`` metres (default 250) with the moves between
    cells counted (add-one smoothing).
    """
    spec = cfg.extra.get("correlation") if isinstance(cfg.extra, dict) else None
    cell = cfg.extra.get("cell_size_m", DEFAULT_CELL_SIZE_M) if isinstance(cfg.extra, dict) \
        else DEFAULT_CELL_SIZE_M
    return correlation_from_spec(spec, data, default_strength=cfg.correlation_strength,
                                 default_cell_size=cell)


@dataclass(frozen=True)
class LeakageSummary:
    """TPL and landmark TPL of the release's allocation under ``model``."""

    model: CorrelationModel
    tpl: np.ndarray | None
    landmark_tpl: np.ndarray | None

    @property
    def computed(self) -> bool:
        return self.tpl is not None


def _leakage(rel: Release, model: CorrelationModel) -> LeakageSummary:
    if model.backward is None:
        return LeakageSummary(model, None, None)
    from lmdk_core.leakage import temporal_leakage

    res = temporal_leakage(rel.epsilon_t, model.backward, model.forward,
                           rel.landmarks.tolist())
    return LeakageSummary(model, res.tpl, res.landmark_tpl)


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
    def labels(self) -> list[str]:
        """A human label for each timestamp (date/time or number)."""
        return hover_labels(self.data.time, self.data.time_kind)

    @property
    def verdict(self) -> PrivacyVerdict:
        """The one verdict (theorem + landmark TPL under the model) of the release."""
        return release_verdict(self.release, self.leakage, self.labels,
                               leakage_target(self.cfg))


def leakage_target(cfg: ViewConfig) -> float | None:
    """``extra.leakage_target``: the landmark-TPL target α a calibration applied (None:
    the verdict compares landmark TPL with ε)."""
    raw = cfg.extra.get("leakage_target") if isinstance(cfg.extra, dict) else None
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not np.isfinite(raw) \
            or raw <= 0:
        raise InputError("config: extra.leakage_target must be a number > 0")
    return float(raw)


def release_verdict(rel: Release, leak: LeakageSummary, labels: list[str] | None = None,
                    target: float | None = None) -> PrivacyVerdict:
    """:func:`lmdk_core.verdict.privacy_verdict` of a release under the leakage computed
    for it (green / amber / red); ``target`` is the landmark-TPL target (default ε)."""
    return privacy_verdict(rel.epsilon_t, rel.landmarks.tolist(), rel.epsilon,
                           landmark_tpl=leak.landmark_tpl if leak.computed else None,
                           model=leak.model.short or None,
                           model_note=None if leak.computed else leak.model.note,
                           time_labels=labels,
                           leakage_target=target if leak.computed else None)


def compute_report(cfg: ViewConfig, *, now: datetime | None = None) -> ReportData:
    """Validate ``cfg``, load its data, recompute the release (verifier included) and the
    leakage. Raises :class:`InputError` with a clear message on any bad input."""
    cfg.validate()
    data = load_view_data(cfg)
    T = len(data)
    bad = [t for t in cfg.landmarks if t >= T]
    if bad:
        raise InputError(f"config: landmark {bad[0]} lies beyond the end of the data "
                         f"({T} timestamps, numbered 0..{T - 1})")
    # one release per scheme (the configuration's first, then the compared ones), all
    # from the generator of the seed, as the pages make them
    keys = _compare_keys(cfg)
    releases = compare_schemes(_release_fn(cfg, data), [cfg.scheme, *keys], cfg.epsilon,
                               cfg.seed)
    model = correlation_model(cfg, data)
    leakage_target(cfg)  # checked now: a bad target is a clear error, not a late one
    leaks = {k: _leakage(r, model) for k, r in releases.items()}
    comparison = tuple((k, releases[k], leaks[k]) for k in keys)
    return ReportData(cfg, data, releases[cfg.scheme], leaks[cfg.scheme],
                      now or datetime.now(timezone.utc), comparison)


def _release_fn(cfg: ViewConfig, data: Series | Track) -> ReleaseFn:
    """The release of the configuration's data with its mechanism settings."""
    if isinstance(data, Track):
        return track_release_fn(data.lat, data.lon, cfg.landmarks, cfg.radius, cfg.window)
    return series_release_fn(data.values, cfg.landmarks, cfg.mechanism, cfg.sensitivity,
                             cfg.window)


def _compare_keys(cfg: ViewConfig) -> list[str]:
    """The schemes of ``extra.compare_schemes`` (the Compare page's choice), validated and
    without duplicates; empty when the configuration has none."""
    keys = cfg.extra.get("compare_schemes") if isinstance(cfg.extra, dict) else None
    if keys is None:
        return []
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys) \
            or not 1 <= len(keys) <= 6:
        raise InputError("config: extra.compare_schemes must be a list of 1 to 6 scheme names")
    return list(dict.fromkeys(scheme_info(k).key for k in keys))


def report_filename(cfg: ViewConfig, now: datetime | None = None) -> str:
    """``lmdk_CONFIDENTIAL_report_<series|track>_<YYYYMMDD-HHMM>.html`` (the internal
    report holds the raw data, the landmarks and the seed)."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M")
    return f"lmdk_CONFIDENTIAL_report_{cfg.data_kind}_{stamp}.html"


# ====================================================================== figures
def _x_axis(data: Series | Track) -> np.ndarray:
    if data.time_kind == "datetime" and not pd.isna(np.asarray(data.time)).any():
        return np.asarray(data.time)
    if data.time_kind == "number":
        return np.asarray(data.time)
    return np.arange(len(data))


def _bar_width(x: np.ndarray) -> float | None:
    """A bar width of 80 % of the median spacing of ``x`` (milliseconds on a date axis).

    Without it plotly sizes each bar trace from its own points, so a trace holding two
    far-apart landmarks gets bars as wide as the gap."""
    x = np.asarray(x)
    if x.size < 2:
        return None
    if np.issubdtype(x.dtype, np.datetime64):
        d = np.diff(x.astype("datetime64[ms]").astype(np.int64)).astype(float)
    else:
        try:
            d = np.diff(x.astype(float))
        except (TypeError, ValueError):
            return None
    d = d[d > 0]
    return float(0.8 * np.median(d)) if d.size else None


def _fix_bars(fig: go.Figure, x: np.ndarray) -> go.Figure:
    """Give every bar the same width and pin the time axis to the data: plotly pads
    the axis of a bar trace by that trace's own point spacing, so a trace of two
    far-apart landmarks would stretch the axis by half the gap."""
    x = np.asarray(x)
    w = _bar_width(x)
    if w is None:
        return fig
    fig.update_traces(width=w, selector={"type": "bar"})
    if np.issubdtype(x.dtype, np.datetime64):
        ms = x.astype("datetime64[ms]")
        pad = np.timedelta64(int(w), "ms")
        lo, hi = (str(np.datetime_as_string(v, unit="ms")) for v in (ms[0] - pad, ms[-1] + pad))
    else:
        lo, hi = float(x[0]) - w, float(x[-1]) + w
    fig.update_xaxes(range=[lo, hi])
    return fig


def _leakage_figure(x: np.ndarray, rel: Release, leak: LeakageSummary) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=rel.verdict.totals, name="Σ ε_i over L∪{t} (no correlation)",
                             mode="lines", line={"color": COLORS["total"], "width": 1.5,
                                                 "shape": "hvh"}))
    fig.add_trace(go.Scatter(x=x, y=leak.tpl, name="TPL (one timestamp)", mode="lines",
                             line={"color": COLORS["tpl"], "width": 2, "dash": "dot"}))
    fig.add_trace(go.Scatter(x=x, y=leak.landmark_tpl, name="landmark TPL (L ∪ {t})",
                             mode="lines", line={"color": COLORS["landmark_tpl"], "width": 2}))
    fig.add_hline(y=rel.epsilon, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                  annotation_text=f"ε = {rel.epsilon:g}", annotation_position="top left")
    fig.update_yaxes(title_text="privacy leakage", rangemode="tozero")
    return _layout(fig, 340)


def _layout(fig: go.Figure, height: int) -> go.Figure:
    fig.update_layout(height=height, template="plotly_white",
                      margin={"l": 60, "r": 20, "t": 40, "b": 40},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0})
    return fig


def _error_figure(x: np.ndarray, rel: Release, unit: str, distance: bool) -> go.Figure:
    fig = go.Figure()
    pub = rel.published
    approx = ~pub & ~rel.withheld
    name = "displacement" if distance else "absolute error"
    fig.add_trace(go.Scatter(x=x[pub], y=rel.errors[pub], mode="markers",
                             name=f"measured {name} (published)",
                             marker={"color": COLORS["released"], "size": 5}))
    if approx.any():
        fig.add_trace(go.Scatter(x=x[approx], y=rel.errors[approx], mode="markers",
                                 name=f"measured {name} (approximated, ε_t = 0)",
                                 marker={"color": COLORS["approximated"], "size": 6,
                                         "symbol": "circle-open"}))
    exp = np.where(pub, rel.expected_errors, np.nan)
    fig.add_trace(go.Scatter(x=x, y=exp, mode="lines", connectgaps=False,
                             name="expected " + ("2r/ε_t" if distance else "mean error at ε_t"),
                             line={"color": COLORS["epsilon"], "dash": "dash", "width": 1.5}))
    fig.update_yaxes(title_text=f"{name} ({unit})" if unit else name)
    if distance:
        fig.update_yaxes(type="log", dtick="D2")
    return _layout(fig, 340)


def _budget_figure(x: np.ndarray, rel: Release) -> go.Figure:
    is_lm = np.zeros(rel.epsilon_t.size, dtype=bool)
    is_lm[rel.landmarks] = True
    fig = go.Figure()
    for mask, kind in ((~is_lm, "regular"), (is_lm, "landmark")):
        if mask.any():
            fig.add_trace(go.Bar(x=x[mask], y=rel.epsilon_t[mask], name=f"ε_t ({kind})",
                                 marker={"color": COLORS[kind], "line": {"width": 0}}))
    fig.add_trace(go.Scatter(x=x, y=rel.verdict.totals, name="Σ ε_i over L∪{t}", mode="lines",
                             line={"color": COLORS["total"], "width": 1.5, "shape": "hvh"}))
    fig.add_hline(y=rel.epsilon, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                  annotation_text=f"ε = {rel.epsilon:g}", annotation_position="top left")
    fig.update_yaxes(title_text="ε_t", rangemode="tozero")
    fig.update_layout(barmode="overlay", bargap=0.15)
    return _layout(_fix_bars(fig, x), 340)


def _path_figure(track: Track, rel: Release) -> go.Figure:
    lat0 = float(np.mean(track.lat))
    fig = go.Figure()
    # one line per piece (GPX track segment): NaN breaks the line at every gap
    fig.add_trace(go.Scatter(x=track.with_gaps(track.lon), y=track.with_gaps(track.lat),
                             mode="lines+markers", name="original",
                             line={"color": COLORS["original"], "width": 1.5},
                             marker={"size": 3}))
    ok = ~rel.withheld
    # withheld points (nothing released yet) are NaN too: no marker there
    fig.add_trace(go.Scatter(x=track.with_gaps(np.where(ok, rel.released[:, 1], np.nan)),
                             y=track.with_gaps(np.where(ok, rel.released[:, 0], np.nan)),
                             mode="lines+markers",
                             name="released", line={"color": COLORS["released"], "width": 1},
                             marker={"size": 3}))
    lm = rel.landmarks
    if lm.size:
        fig.add_trace(go.Scatter(x=track.lon[lm], y=track.lat[lm], mode="markers",
                                 name="landmark", text=[f"t={t}" for t in lm],
                                 marker={"symbol": "star", "size": 13,
                                         "color": COLORS["landmark"],
                                         "line": {"width": 1, "color": "white"}}))
    fig.update_xaxes(title_text="longitude")
    fig.update_yaxes(title_text="latitude", scaleanchor="x",
                     scaleratio=1.0 / max(np.cos(np.radians(lat0)), 1e-6))
    return _layout(fig, 520)


def _figures(rd: ReportData) -> dict[str, go.Figure]:
    rel, data = rd.release, rd.data
    x = _x_axis(data)
    figs: dict[str, go.Figure] = {}
    if isinstance(data, Track):
        figs["path"] = _path_figure(data, rel)
        figs["budget"] = _budget_figure(x, rel)
        figs["error"] = _error_figure(x, rel, "m", distance=True)
    else:
        figs["budget"] = timeline_figure(data.time, data.time_kind, rel, unit=data.unit)
        figs["budget"].update_layout(clickmode="event", template="plotly_white")
        _fix_bars(figs["budget"], np.asarray(data.time))
        figs["error"] = _error_figure(np.asarray(x), rel, data.unit, distance=False)
    if rd.leakage.computed:
        figs["leakage"] = _leakage_figure(np.asarray(x), rel, rd.leakage)
    return figs


def _fig_html(figs: dict[str, go.Figure]) -> dict[str, str]:
    out = {}
    first = True
    for key, fig in figs.items():
        out[key] = pio.to_html(
            fig, include_plotlyjs=True if first else False, full_html=False,
            div_id=f"fig-{key}", config={"displaylogo": False, "responsive": True})
        first = False
    return out


# ====================================================================== HTML
def esc(value: object) -> str:
    """HTML-escape any value for text or attribute context."""
    return html.escape(str(value), quote=True)


def _num(x: float, fmt: str = ".4g") -> str:
    return "—" if x is None or not np.isfinite(x) else format(float(x), fmt)


def _table(rows: list[tuple[str, str]], raw: bool = False) -> str:
    """Two-column key/value table; values are escaped unless ``raw``."""
    body = "".join(f"<tr><th>{esc(k)}</th><td>{v if raw else esc(v)}</td></tr>"
                   for k, v in rows)
    return f"<table class='kv'>{body}</table>"


def _frame_html(df: pd.DataFrame) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>"
                   for row in df.itertuples(index=False))
    return f"<table class='grid'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _data_rows(rd: ReportData) -> list[tuple[str, str]]:
    cfg, data = rd.cfg, rd.data
    labels = rd.labels
    T = len(data)
    source = {"demo-household": "built-in demo: one week of hourly household electricity",
              "demo-paris": "built-in demo: one day of a person in Paris"}.get(
        cfg.dataset, "embedded in the configuration")
    rows = [("Kind", "trajectory (locations)" if rd.is_track else "time series"),
            ("Dataset", f"{cfg.dataset} — {source}"),
            ("Name", data.name),
            ("Timestamps", f"{T:,} (numbered 0..{T - 1})"),
            ("From / to", f"{labels[0]} — {labels[-1]}")]
    if isinstance(data, Track):
        from lmdk_core.geodesy import distance_m

        length = float(np.sum(distance_m(data.lat[:-1], data.lon[:-1], data.lat[1:],
                                         data.lon[1:]))) if T > 1 else 0.0
        rows += [("Path length", f"{length / 1000:,.2f} km"),
                 ("Bounding box", f"lat {data.lat.min():.5f}..{data.lat.max():.5f}, "
                                  f"lon {data.lon.min():.5f}..{data.lon.max():.5f}")]
    else:
        v = data.values
        u = f" {data.unit}" if data.unit else ""
        rows += [("Values", f"min {v.min():.4g}{u}, mean {v.mean():.4g}{u}, "
                            f"max {v.max():.4g}{u}")]
    return rows


def _settings_rows(rd: ReportData) -> list[tuple[str, str]]:
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
                                    + (f" {rd.data.unit}" if rd.data.unit else ""))]
    rows += [("Random seed", f"{cfg.seed}"),
             ("Budget spent", f"{int(rel.published.sum())} timestamps published with noise, "
                              f"{int((~rel.published & ~rel.withheld).sum())} approximated "
                              f"(ε_t = 0), {int(rel.withheld.sum())} withheld"),
             ("Page", cfg.page)]
    return rows


def _landmark_frame(rd: ReportData) -> pd.DataFrame:
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
    return pd.DataFrame(rows)


def _verdict_html(rd: ReportData) -> str:
    """The one verdict (:func:`lmdk_core.verdict.privacy_verdict`): green, amber or red."""
    pv = rd.verdict
    v = pv.theorem
    cls = {"green": "ok", "amber": "amber", "red": "bad"}[pv.colour]
    head = {"green": "Landmark-private",
            "amber": "Landmark-private only if consecutive values were independent",
            "red": "NOT landmark-private"}[pv.colour]
    text = esc(pv.sentence)
    if pv.colour == "red":
        bad = v.violations
        first = ", ".join(str(int(t)) for t in bad[:10]) + (" …" if bad.size > 10 else "")
        text += (f" Over budget at t = {esc(first)}. This allocation must not be released as "
                 "landmark ε-private.")
    return (f"<div class='verdict {cls}'><div class='vhead'>{esc(pv.colour.upper())}: "
            f"{esc(head)}</div><div>{text}</div><div class='small'>Engine verifier "
            f"(independent releases): {esc(v.summary())}.</div></div>")


def _attacker_html(rd: ReportData) -> str:
    """Risk in words (posterior bounds, correlation, repeated releases) and, from this very
    release, how many values repeat the previous one (under Skip or Adaptive they mark
    approximations, and Skip approximates exactly the landmarks)."""
    from lmdk_core.attacker import repeat_inference, risk_statements

    leak, rel = rd.leakage, rd.release
    tpl_max = float(np.max(leak.landmark_tpl)) if leak.computed else None
    rows = risk_statements(rel.epsilon, tpl_max)
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
    return (_table(rows) + "<p class='small'>Posterior bound p·e<sup>x</sup>/(1 − p + "
            "p·e<sup>x</sup>) for a privacy loss x (ε, or the largest landmark TPL under the "
            "correlation model, Cao et al. ICDE 2017 / TKDE 2018); repeated releases by basic "
            "and advanced composition (Dwork, Rothblum, Vadhan 2010).</p>")


def _leakage_html(rd: ReportData, fig: str | None) -> str:
    leak, rel = rd.leakage, rd.release
    parts = [f"<p><b>Correlation model</b> (an assumption about the data, stated so it can "
             f"be challenged): {esc(leak.model.description)}</p>"]
    if not leak.computed:
        parts.append(f"<p class='note'>Leakage not computed: {esc(leak.model.note or '')}</p>")
        return "".join(parts)
    labels = rd.labels
    i_t = int(np.argmax(leak.tpl))
    i_l = int(np.argmax(leak.landmark_tpl))
    max_l = float(leak.landmark_tpl[i_l])
    rows = [("Largest TPL (one timestamp)",
             f"{_num(float(leak.tpl[i_t]))} at t={i_t} ({labels[i_t]})"),
            ("Largest landmark TPL (landmarks + one timestamp)",
             f"{_num(max_l)} at t={i_l} ({labels[i_l]})"),
            ("Without correlation (the theorem's total)", f"{_num(rel.verdict.worst_total)}"),
            ("Total budget ε", f"{rel.epsilon:g}")]
    parts.append(_table(rows))
    if max_l > rel.epsilon * (1 + LEAKAGE_RTOL):
        parts.append(
            f"<p class='warn'>Under this correlation model the landmarks plus one timestamp "
            f"leak up to {esc(_num(max_l))}, more than ε = {esc(_num(rel.epsilon))}: the "
            "landmark guarantee assumes independent values. If the data are this "
            "correlated, lower ε (or choose a scheme that spends less) until the landmark "
            "TPL stays below the target.</p>")
    else:
        parts.append("<p>Under this correlation model the landmark TPL stays within ε.</p>")
    parts.append("<p class='small'>TPL (Cao et al., ICDE'17 / TKDE'18): backward + forward "
                 "leakage − ε_t. Landmark TPL: the same accounting over L ∪ {t} with the "
                 "recursions restarted between consecutive members (Katsomallos et al., "
                 "CODASPY 2022). With no correlation it equals the green total "
                 "Σ<sub>i∈L∪{t}</sub> ε<sub>i</sub>.</p>")
    if fig:
        parts.append(f"<div class='fig'>{fig}</div>")
    return "".join(parts)


def _error_html(rd: ReportData, fig: str) -> str:
    rel, cfg = rd.release, rd.cfg
    m = rel.metrics()
    pub = rel.published
    if rd.is_track:
        from lmdk_core.mechanisms import PlanarLaplace

        mech = PlanarLaplace(cfg.radius)
        eps = rel.epsilon_t[pub]
        exp_med = _mixture_quantile(mech, eps, 0.5)
        exp_p95 = _mixture_quantile(mech, eps, 0.95)
        e_pub = rel.errors[pub]
        df = pd.DataFrame({
            "": ["mean", "median", "95th percentile"],
            "measured at noisy releases (m)": [_num(float(np.mean(e_pub)), ",.0f") if e_pub.size
                                               else "—",
                                               _num(float(np.median(e_pub)), ",.0f")
                                               if e_pub.size else "—",
                                               _num(float(np.percentile(e_pub, 95)), ",.0f")
                                               if e_pub.size else "—"],
            "expected, Planar Laplace (m)": [_num(m["expected_mae_published"], ",.0f"),
                                             _num(exp_med, ",.0f"), _num(exp_p95, ",.0f")],
            "all released points (m)": [_num(m["mae"], ",.0f"), _num(m["median_error"], ",.0f"),
                                        _num(m["p95_error"], ",.0f")],
        })
        note = ("Expected: mean 2r/ε_t, median and 95th percentile of Gamma(2, r/ε_t), "
                "mixed over the published timestamps. Approximated points repeat the last "
                "release, so their displacement also includes the movement since.")
    else:
        mech = numeric_mechanism(cfg.mechanism, cfg.sensitivity)
        eps = rel.epsilon_t[pub]
        exp_rmse = float(np.sqrt(np.mean(mech.expected_rmse(eps) ** 2))) if eps.size else np.nan
        e_pub = rel.errors[pub]
        u = f" ({rd.data.unit})" if rd.data.unit else ""
        df = pd.DataFrame({
            "": ["mean absolute error (MAE)", "root mean squared error (RMSE)"],
            f"measured at noisy releases{u}": [
                _num(float(np.mean(e_pub))) if e_pub.size else "—",
                _num(float(np.sqrt(np.mean(e_pub ** 2)))) if e_pub.size else "—"],
            f"expected at noisy releases{u}": [_num(m["expected_mae_published"]),
                                               _num(exp_rmse)],
            f"all released timestamps{u}": [_num(m["mae"]), _num(m["rmse"])],
        })
        note = ("Expected: Laplace MAE Δf/ε_t and RMSE √2·Δf/ε_t; Geometric MAE 2a/(1 − a²) "
                "with a = e^(−ε_t/Δf) — averaged over the published timestamps. "
                "Approximations repeat the last release: their error is the change since.")
    return (_frame_html(df) + f"<p class='small'>{esc(note)}</p><div class='fig'>{fig}</div>")


def _mixture_quantile(mech, eps: np.ndarray, q: float) -> float:
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


def _comparison_html(rd: ReportData) -> str:
    """A table of the compared schemes: verdict, worst total, error and leakage."""
    unit = "m" if rd.is_track else (rd.data.unit or "")
    fmt = ",.0f" if rd.is_track else ".3g"
    rows = []
    for key, rel, leak in rd.comparison:
        v, m = rel.verdict, rel.metrics()
        colour = release_verdict(rel, leak, target=leakage_target(rd.cfg)).colour
        rows.append({
            "scheme": scheme_info(key).label,
            "verdict": {"green": "green: landmark-private",
                        "amber": "amber: landmark-private only if values were independent",
                        "red": "red: NOT landmark-private"}[colour],
            "worst Σ over L∪{t}": f"{v.worst_total:.4g} at t={v.worst_timestamp}",
            ("mean displacement" if rd.is_track else "MAE") + (f" ({unit})" if unit else ""):
                _num(m["mae"], fmt),
            "expected": _num(m["expected_mae_published"], fmt),
            "published / approximated / withheld":
                f"{m['n_published']} / {m['n_approximated']} / {m['n_withheld']}",
            "max TPL": _num(float(np.max(leak.tpl)), ".3g") if leak.computed else "—",
            "max landmark TPL": (_num(float(np.max(leak.landmark_tpl)), ".3g")
                                 if leak.computed else "—"),
        })
    return ("<p class='small'>The same data, landmarks, ε and seed under each scheme the "
            "Compare page showed; every allocation checked by the verifier, leakage under the "
            "correlation model of the leakage section.</p>" + _frame_html(pd.DataFrame(rows)))


def _extra_rows(cfg: ViewConfig) -> list[tuple[str, str]]:
    rows = []
    for k, v in (cfg.extra or {}).items():
        try:
            text = json.dumps(v, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(v)
        rows.append((str(k), text[:500]))
    return rows


def _config_text(cfg: ViewConfig) -> str:
    text = config_to_json(cfg)
    if len(text) > MAX_CONFIG_CHARS:
        return text[:MAX_CONFIG_CHARS] + "\n… (truncated: the embedded data are too long to show)"
    return text


def _versions() -> list[tuple[str, str]]:
    import numpy
    import plotly
    import scipy

    return [("lmdk-explorer", __version__), ("Python", platform.python_version()),
            ("numpy", numpy.__version__), ("scipy", scipy.__version__),
            ("pandas", pd.__version__), ("plotly", plotly.__version__)]


_CSS = """
:root { --ok: #1b7f3b; --bad: #b42318; --ink: #1f2328; --muted: #57606a; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial,
       sans-serif; color: var(--ink); margin: 0; background: #f6f8fa; line-height: 1.45; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
header { border-bottom: 3px solid #1f77b4; margin-bottom: 18px; padding-bottom: 10px; }
h1 { font-size: 1.7rem; margin: 0 0 4px; }
h2 { font-size: 1.25rem; margin: 30px 0 10px; border-bottom: 1px solid var(--line);
     padding-bottom: 4px; }
.sub { color: var(--muted); font-size: .95rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(190px, 1fr));
         gap: 10px; margin: 14px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.card .k { color: var(--muted); font-size: .85rem; }
.card .v { font-size: 1.25rem; font-weight: 600; margin-top: 2px; }
.verdict { border-radius: 8px; padding: 12px 16px; margin: 12px 0; border: 1px solid; }
.verdict.ok { background: #e9f7ef; border-color: #9fd8b3; }
.verdict.bad { background: #fdecea; border-color: #f2a7a0; }
.verdict.amber { background: #fff4e5; border-color: #f7c37a; }
.verdict.amber .vhead { color: #b54708; }
.vhead { font-weight: 700; font-size: 1.15rem; margin-bottom: 4px; }
.verdict.ok .vhead { color: var(--ok); } .verdict.bad .vhead { color: var(--bad); }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: .92rem; }
table.kv th { text-align: left; font-weight: 600; padding: 4px 16px 4px 0;
              vertical-align: top; white-space: nowrap; color: var(--muted); }
table.kv td { padding: 4px 0; }
table.grid th, table.grid td { border: 1px solid var(--line); padding: 4px 10px;
                               text-align: left; }
table.grid th { background: #f6f8fa; }
.small { color: var(--muted); font-size: .85rem; }
.note { color: var(--muted); }
.warn { background: #fff4e5; border-left: 4px solid #f79009; padding: 8px 12px; }
.fig { margin: 6px 0 10px; }
pre { background: #f6f8fa; border: 1px solid var(--line); padding: 10px; overflow: auto;
      max-height: 420px; font-size: .8rem; }
footer { margin-top: 36px; color: var(--muted); font-size: .85rem;
         border-top: 1px solid var(--line); padding-top: 10px; }
@media print { body { background: #fff; } main { padding: 0; } details { display: none; } }
.confidential { position: sticky; top: 0; z-index: 1000; background: #b42318; color: #fff;
                font-weight: 700; text-align: center; padding: 6px 12px; letter-spacing: .02em; }
@media print { .confidential { position: fixed; top: 0; left: 0; right: 0; } }
"""

#: the banner on every screen of the internal report (sticky; repeated when printed)
CONFIDENTIAL_BANNER = ("CONFIDENTIAL — contains the raw data and the landmark set · internal "
                       "privacy report, do not publish (the public release note is the form "
                       "to hand on)")


def render_html(rd: ReportData) -> str:
    """The report of computed data ``rd`` as one HTML document."""
    cfg, rel = rd.cfg, rd.release
    figs = _fig_html(_figures(rd))
    info = scheme_info(cfg.scheme)
    m = rel.metrics()
    date = rd.generated.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = "Privacy report — " + rd.data.name
    custom = cfg.extra.get("title") if isinstance(cfg.extra, dict) else None
    if isinstance(custom, str) and custom.strip():
        title = custom.strip()
    leak_card = "not computed"
    if rd.leakage.computed:
        leak_card = _num(float(np.max(rd.leakage.landmark_tpl)), ".3g")
    unit = "m" if rd.is_track else (rd.data.unit or "")
    cards = [
        ("Verdict", {"green": "green: landmark-private",
                     "amber": "amber: landmark-private only if values were independent",
                     "red": "red: NOT landmark-private"}[rd.verdict.colour]),
        ("Total budget ε", f"{cfg.epsilon:g}"),
        ("Scheme", info.label),
        ("Mechanism", "Planar Laplace" if rd.is_track else cfg.mechanism.capitalize()),
        ("Landmarks", f"{rel.landmarks.size}"),
        ("Worst Σ over L∪{t}", f"{_num(rel.verdict.worst_total, '.3g')} at t="
                               f"{rel.verdict.worst_timestamp}"),
        ("Largest landmark TPL", leak_card),
        ("Mean displacement" if rd.is_track else "MAE (measured)",
         f"{_num(m['mae'], ',.0f' if rd.is_track else '.3g')} {unit}".strip()),
    ]
    cards_html = "".join(f"<div class='card'><div class='k'>{esc(k)}</div>"
                         f"<div class='v'>{esc(v)}</div></div>" for k, v in cards)
    lm_df = _landmark_frame(rd)
    if lm_df.empty:
        lm_html = "<p>No landmarks: every timestamp is a regular event.</p>"
    else:
        more = rel.landmarks.size - len(lm_df)
        lm_html = _frame_html(lm_df) + (f"<p class='small'>… and {more} more.</p>" if more > 0
                                        else "")
    extra = _extra_rows(cfg)
    budget_intro = (
        "Bars: the budget ε_t spent at each timestamp (red at landmarks; orange × where "
        "the last release was repeated at no cost). Green: the theorem's total "
        "Σ<sub>i∈L∪{t}</sub> ε<sub>i</sub>; landmark privacy holds when it never rises "
        "above the dashed ε line.")
    sections = [
        "<section><h2>1. Decision summary</h2>", f"<div class='cards'>{cards_html}</div>",
        _verdict_html(rd), "</section>",
        "<section><h2>2. Data</h2>", _table(_data_rows(rd)), "</section>",
        f"<section><h2>3. Landmarks ({rel.landmarks.size})</h2>", lm_html, "</section>",
        "<section><h2>4. Settings</h2>", _table(_settings_rows(rd)),
        (("<p class='small'>Other settings (extra):</p>" + _table(extra)) if extra else ""),
        "</section>",
    ]
    if rd.is_track:
        sections += ["<section><h2>5. Original and released path</h2>",
                     "<p class='small'>Grey: the true path; blue: what would be published; "
                     "red stars: landmarks. No map tiles, so the file opens offline.</p>",
                     f"<div class='fig'>{figs['path']}</div></section>"]
    n = 6 if rd.is_track else 5
    sections += [
        f"<section><h2>{n}. Allocation and verdict</h2>", f"<p class='small'>{budget_intro}"
        + (" Top panel: original (grey) and released (blue) data, landmarks as red stars."
           if not rd.is_track else "") + "</p>",
        f"<div class='fig'>{figs['budget']}</div>", _verdict_html(rd), "</section>",
        f"<section><h2>{n + 1}. Temporal privacy leakage</h2>",
        _leakage_html(rd, figs.get("leakage")), "</section>",
        f"<section><h2>{n + 2}. Error: measured and expected</h2>",
        _error_html(rd, figs["error"]), "</section>",
        f"<section><h2>{n + 3}. What an attacker learns</h2>", _attacker_html(rd), "</section>",
    ]
    n += 1
    if rd.comparison:
        sections += [f"<section><h2>{n + 3}. Schemes compared</h2>", _comparison_html(rd),
                     "</section>"]
        n += 1
    sections += [
        f"<section><h2>{n + 3}. Reproducibility</h2>",
        _table([("Generated", date), ("Random seed", str(cfg.seed))] + _versions()),
        "<p class='small'>The same configuration and seed with the same software version "
        "reproduce this release exactly (<code>lmdk report --config config.json --output "
        "report.html</code>, or upload the configuration on the page it came from).</p>",
        "<details><summary>Configuration (JSON)</summary>",
        f"<pre>{esc(_config_text(cfg))}</pre></details>", "</section>",
    ]
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>"
        f"<div class='confidential' role='note'>{esc(CONFIDENTIAL_BANNER)}</div><main>"
        f"<header><h1>{esc(title)}</h1><div class='sub'>Landmark Privacy Explorer "
        f"{esc(__version__)} · generated {esc(date)} · seed {esc(cfg.seed)}</div></header>"
        + "".join(sections)
        + "<footer>Landmark privacy: a release of independent ε<sub>t</sub>-DP mechanisms is "
        "landmark ε-private iff Σ<sub>i∈L∪{t}</sub> ε<sub>i</sub> ≤ ε for every timestamp t. "
        "This report was recomputed by the engine from the configuration; nothing is "
        "simulated. Charts are interactive (hover, zoom) and work offline.</footer>"
        "</main></body></html>\n"
    )


def build_report(cfg: ViewConfig, *, now: datetime | None = None) -> str:
    """The self-contained HTML report of a configuration (see the module docstring).

    Raises :class:`InputError` when the configuration or its data are not usable.
    """
    return render_html(compute_report(cfg, now=now))
