"""Both chart libraries follow the one style guide (lmdk_core/figures/style.py,
docs/chart-style.md): the Timeline's plotly figure and the Map's Vega-Lite budget panel
take their colours, date format and axis titles from it, draw ε_t as bars with the
landmark bars marked by more than colour, and the palette stays apart for red/green
colour blindness and in grey."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.engine.release import release_series, release_trajectory
from lmdk_core.figures.compare import side_by_side_figure
from lmdk_core.figures.style import (
    AXIS_TITLES,
    COLORS,
    DATE_TICK_FORMATS,
    LANDMARK_BAR_PATTERN,
    PLOTLY_CONFIG,
    TOOLBAR_BAND,
    plotly_date_axis,
    vega_date_axis,
)
from lmdk_core.figures.timeline import timeline_figure
from lmdk_core.figures.track_budget import STAR, budget_panels
from lmdk_core.report.svg import figure_svg

SEED = 11

# Machado, Oliveira & Fernandes (IEEE TVCG 2009), severity 1, on linear RGB
DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]])
#: the pairs of things a chart must tell apart
PAIRS = [("original", "released"), ("released", "landmark"), ("regular", "landmark"),
         ("tpl", "landmark_tpl"), ("total", "landmark"), ("approximated", "landmark"),
         ("total", "regular")]


def linear(hex_color: str) -> np.ndarray:
    c = np.array([int(hex_color[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def to_srgb(lin: np.ndarray) -> np.ndarray:
    lin = np.clip(lin, 0, 1)
    return 255 * np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)


@pytest.mark.parametrize("matrix", [np.eye(3), DEUTERANOPIA, PROTANOPIA],
                         ids=["normal", "deuteranopia", "protanopia"])
@pytest.mark.parametrize("a,b", PAIRS)
def test_the_palette_stays_apart_for_colour_blind_readers(matrix, a, b):
    """Simulated dichromat vision keeps every pair at least 60 apart in sRGB (of 441)."""
    ca, cb = (to_srgb(matrix @ linear(COLORS[k])) for k in (a, b))
    assert np.linalg.norm(ca - cb) >= 60, (a, b)


def test_regular_and_landmark_bars_differ_in_grey():
    """Relative luminance (WCAG): light regular bars, dark landmark bars."""
    lum = {k: float(np.array([0.2126, 0.7152, 0.0722]) @ linear(COLORS[k]))
           for k in ("regular", "landmark")}
    assert lum["regular"] - lum["landmark"] >= 0.15


def test_no_tick_label_names_the_year_within_one_year():
    assert all("%Y" not in f and "%y" not in f for _, _, f in DATE_TICK_FORMATS)
    assert "%Y" not in json.dumps(vega_date_axis()) and "%y" not in json.dumps(vega_date_axis())


def test_dates_show_their_year_when_the_series_spans_years():
    """Issue 37 §4: a multi-year series (bitcoin prices 2013-2019, a real fixture) names
    the year on every tick, hover and chip, on the second line of a tick (the first
    line stays as short as before: it still fits on a phone)."""
    from lmdk_core.data.series import load_series_csv
    from lmdk_core.figures.common import hover_labels
    from lmdk_core.figures.style import DATE_TICK_FORMATS_YEARS, spans_years
    from tests.engine.test_real_data import SERIES_DIR

    s = load_series_csv(SERIES_DIR / "bitcoin.csv", time_col="date", value_col="price")
    assert spans_years(s.time)
    rel = release_series(s.values, [], epsilon=1.0, scheme="uniform", mechanism="laplace",
                         sensitivity=100.0, seed=SEED)
    fig = timeline_figure(s.time, s.time_kind, rel)
    values = [st.value for st in fig.layout.xaxis.tickformatstops]
    assert values == [f for _, _, f in DATE_TICK_FORMATS_YEARS]
    assert all("%Y" in v.split("\n")[-1] and len(v.split("\n")[0]) <= 8 for v in values)
    assert "%Y" in fig.layout.xaxis.hoverformat
    assert any("%Y" in (tr.hovertemplate or "") for tr in fig.data)
    label = hover_labels(s.time[:1], "datetime", years=True)[0]
    assert label.endswith(" 00:00") and str(np.asarray(s.time, "datetime64[Y]")[0]) in label
    assert "%Y" in json.dumps(vega_date_axis(years=True))
    one_year = s.time[:50]  # within 2013: no year anywhere
    assert not spans_years(one_year) and "20" not in hover_labels(one_year, "datetime")[0][7:]


@pytest.fixture(scope="module")
def series_release():
    s = demo_series()
    return s, release_series(s.values, demo_series_landmarks(), epsilon=1.0, scheme="uniform",
                             mechanism="laplace", sensitivity=0.2, seed=SEED)


@pytest.fixture(scope="module")
def track_release():
    tr = demo_track()
    return tr, release_trajectory(tr.lat, tr.lon, demo_track_landmarks(), epsilon=1.0, radius=100.0,
                                  scheme="uniform", seed=SEED)


def test_plotly_timeline_follows_the_style(series_release):
    s, rel = series_release
    fig = timeline_figure(s.time, s.time_kind, rel, unit="kWh")
    bars = {tr.name: tr for tr in fig.data if tr.type == "bar"}
    assert set(bars) == {"ε_t (regular)", "ε_t (landmark)"}  # ε_t drawn as bars
    assert bars["ε_t (regular)"].marker.color == COLORS["regular"]
    assert bars["ε_t (landmark)"].marker.color == COLORS["landmark"]
    # landmark bars: a pattern and a star, not only a colour
    assert bars["ε_t (landmark)"].marker.pattern.shape == LANDMARK_BAR_PATTERN["shape"]
    assert any(tr.type == "scatter" and tr.name == "ε_t (landmark)"
               and tr.marker.symbol == "star" for tr in fig.data)
    lay = fig.layout
    assert lay.yaxis2.title.text == AXIS_TITLES["budget"]
    stops = [{"dtickrange": list(s.dtickrange), "value": s.value}
             for s in lay.xaxis.tickformatstops]
    assert stops == plotly_date_axis()["tickformatstops"]
    # the toolbar band: the first panel title sits below the mode bar
    assert lay.margin.t >= TOOLBAR_BAND + 20
    titles = [a for a in lay.annotations if a.text.startswith("Data")]
    assert titles[0].xanchor == "left"
    assert PLOTLY_CONFIG["displaylogo"] is False


def test_vega_budget_panel_follows_the_style(track_release):
    tr, rel = track_release
    data, spec = budget_panels(tr, rel, 100.0)[0]
    layers = spec["layer"]
    rects = [ly for ly in layers if ly.get("mark", {}).get("type") == "rect"
             and "fill" not in ly["mark"]]
    colours = {ly["mark"]["color"] for ly in rects}
    assert colours == {COLORS["regular"], COLORS["landmark"]}  # ε_t drawn as bars
    assert not [ly for ly in layers if ly.get("mark", {}).get("type") == "area"]
    stars = [ly for ly in layers if ly.get("mark", {}).get("shape") == STAR]
    assert stars and stars[0]["transform"] == [{"filter": "datum.lm"}]  # not only colour
    ys = {ly["encoding"]["y"]["title"] for ly in rects}
    assert ys == {AXIS_TITLES["budget"]}
    x_axes = [ly["encoding"]["x"].get("axis") for ly in layers
              if "x" in ly.get("encoding", {})]
    assert vega_date_axis() in x_axes
    # the bars sit around their timestamps, 80 % of the way to the neighbours
    assert (data["bar0"] < data["x"]).all() and (data["bar1"] > data["x"]).all()


def test_compare_and_report_use_the_same_colours(series_release):
    s, rel = series_release
    fig = side_by_side_figure(s.time, s.time_kind, {"uniform": rel})
    bars = {tr.name: tr for tr in fig.data if tr.type == "bar"}
    assert bars["ε_t (landmark)"].marker.pattern.shape == LANDMARK_BAR_PATTERN["shape"]
    svg = figure_svg(timeline_figure(s.time, s.time_kind, rel))
    for key in ("regular", "original", "released", "total"):
        assert COLORS[key] in svg, key
    assert "url(#hatch-" in svg  # landmark bars hatched in the report too


def test_figure_modules_take_their_palette_from_the_style():
    """No figure module names a colour of the old plotly/d3 palette (red and green that
    merge for red/green colour-blind readers): the palette lives in style.py."""
    import re
    from pathlib import Path

    import lmdk_core.figures as figures

    old = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#17becf", "#bcbd22"}
    for path in Path(figures.__file__).parent.glob("*.py"):
        found = {c.lower() for c in re.findall(r"#[0-9a-fA-F]{6}\b", path.read_text())}
        assert not found & old, (path.name, found & old)
