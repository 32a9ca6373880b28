"""Compare's side-by-side figure, written as plain dictionaries without plotly's
validation: it must be exactly what plotly's validation makes of it, with the grid,
the ε lines and the hover labels of the make_subplots layout."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from lmdk_core.decision.comparison import compare_schemes, series_release_fn, track_release_fn
from lmdk_core.figures.common import hover_labels
from lmdk_core.figures.compare import side_by_side_figure


def spec(fig: go.Figure) -> dict:
    """The JSON the browser receives."""
    return json.loads(pio.to_json(fig, validate=False))


def series_case(T: int, schemes: list[str], time_kind: str = "datetime", seed: int = 3):
    rng = np.random.default_rng(seed)
    values = np.cumsum(rng.normal(0, 1, T))
    lm = sorted(rng.choice(T, 5, replace=False).tolist())
    fn = series_release_fn(values, lm, mechanism="laplace", sensitivity=1.0)
    rels = compare_schemes(fn, schemes, 1.0, 0)
    leak = {k: {"TPL": 1.5 * r.epsilon_t, "landmark TPL": r.verdict.totals}
            for k, r in rels.items()}
    if time_kind == "datetime":
        time = np.datetime64("2024-01-01T00:00") + np.arange(T) * np.timedelta64(1, "h")
    else:
        time = np.arange(T)
    return time, rels, leak


def track_case(T: int = 200):
    rng = np.random.default_rng(11)
    lat = 48.86 + np.cumsum(rng.normal(0, 4e-4, T))
    lon = 2.35 + np.cumsum(rng.normal(0, 4e-4, T))
    rels = compare_schemes(track_release_fn(lat, lon, [10, 100, 150], radius=100.0, window=10),
                           ["uniform", "skip", "adaptive"], 1.0, 0)
    leak = {k: {"TPL": 1.5 * r.epsilon_t, "landmark TPL": r.verdict.totals}
            for k, r in rels.items()}
    time = np.datetime64("2024-03-05T00:00") + np.arange(T) * np.timedelta64(15, "s")
    return time, rels, leak


CASES = [
    ("series-2-number", lambda: series_case(40, ["uniform", "skip"], "number"), {}),
    ("series-4-datetime", lambda: series_case(168, ["uniform", "skip", "adaptive", "event"]),
     {"unit": "kWh"}),
    ("series-long", lambda: series_case(6000, ["uniform", "adaptive"]), {"unit": "kWh"}),
    ("track", track_case, {"unit": "m", "distance": True}),
]


@pytest.mark.parametrize("with_leakage", [True, False])
@pytest.mark.parametrize(("name", "make", "kw"), CASES, ids=[c[0] for c in CASES])
def test_unvalidated_figure_is_what_plotly_validation_makes_of_it(name, make, kw,
                                                                  with_leakage):
    time, rels, leak = make()
    kind = "number" if time.dtype.kind in "iu" else "datetime"
    fig = side_by_side_figure(time, kind, rels, leakage=leak if with_leakage else None, **kw)
    # plotly's full validation of every trace and layout property raises on anything
    # invalid and coerces what it accepts: the result must be the same figure
    validated = go.Figure(fig.to_dict())
    assert spec(validated) == spec(fig)


def test_grid_axes_eps_lines_and_legend():
    time, rels, leak = series_case(168, ["uniform", "skip", "adaptive"])
    fig = side_by_side_figure(time, "datetime", rels, leakage=leak, unit="kWh")
    k, rows = 3, 3
    names = {f"x{n}" if n > 1 else "x" for n in range(1, k * rows + 1)}
    assert {t.xaxis for t in fig.data} == names
    for t in fig.data:  # every trace on its own subplot's x and y axes
        assert t.yaxis == "y" + t.xaxis[1:]
    # the ε line on rows 2 and 3 of every column, labelled in column 1 only
    lines = [(s.xref, s.yref, s.y0) for s in fig.layout.shapes]
    assert sorted(lines) == sorted(
        (f"x{n} domain", f"y{n}", 1.0) for r in (2, 3) for c in (1, 2, 3)
        for n in [str((r - 1) * k + c)])
    labels = [a for a in fig.layout.annotations if a.text == "ε = 1"]
    assert sorted(a.yref for a in labels) == ["y4", "y7"]
    titles = [a.text for a in fig.layout.annotations if a.yref == "paper"]
    assert titles == ["Uniform", "Skip", "Adaptive"]
    # shared ranges per row; every column on the same time range
    assert fig.layout.yaxis.range == fig.layout.yaxis2.range == fig.layout.yaxis3.range
    assert fig.layout.yaxis4.range == fig.layout.yaxis6.range
    assert {fig.layout[f"xaxis{n}"].matches for n in ("", 2, 5, 9)} == {"x"}
    assert fig.layout.yaxis.title.text == "kWh"
    assert fig.layout.yaxis4.title.text == "ε_t"
    legend = [t.name for t in fig.data if t.showlegend]
    assert len(legend) == len(set(legend))


def test_track_rows_are_log_displacement():
    time, rels, _ = track_case()
    fig = side_by_side_figure(time, "datetime", rels, unit="m", distance=True)
    assert [fig.layout[f"yaxis{n}"].type for n in ("", 2, 3)] == ["log"] * 3
    assert fig.layout.yaxis.title.text == "displacement (m)"
    assert len(fig.layout.shapes) == 3  # no leakage row: ε lines on the budget row only
    assert fig.layout.height == 560


def test_given_labels_are_the_hover_labels_and_calls_do_not_share_state():
    time, rels, leak = series_case(168, ["uniform", "skip"])
    first = side_by_side_figure(time, "datetime", rels, leakage=leak)
    given = side_by_side_figure(time, "datetime", rels, leakage=leak,
                                labels=hover_labels(time, "datetime"))
    assert spec(given) == spec(first)
    # changing one figure (as plotly or the caller may) leaves the next one alone: the
    # cached subplot grid is copied for every figure
    first.layout.annotations[0].text = "changed"
    first.layout.xaxis.domain = [0, 0.1]
    first.layout.shapes = []
    again = side_by_side_figure(time, "datetime", rels, leakage=leak)
    assert spec(again) == spec(given)
    released = next(t for t in given.data if t.name == "released")
    idx = ((np.asarray(released.x) - time[0]) // np.timedelta64(1, "h")).astype(int)
    assert list(released.customdata) == hover_labels(time[idx], "datetime")


def test_a_different_scheme_set_gets_its_own_grid():
    time, rels, _ = series_case(50, ["uniform", "skip", "adaptive"], "number")
    two = {k: rels[k] for k in ("uniform", "skip")}
    f3 = side_by_side_figure(time, "number", rels)
    f2 = side_by_side_figure(time, "number", two)
    f3b = side_by_side_figure(time, "number", {k: rels[k] for k in ("skip", "uniform",
                                                                     "adaptive")})
    assert [a.text for a in f2.layout.annotations if a.yref == "paper"] == ["Uniform", "Skip"]
    assert [a.text for a in f3b.layout.annotations if a.yref == "paper"] == [
        "Skip", "Uniform", "Adaptive"]
    assert "xaxis4" in f3.layout and "xaxis5" not in f2.layout


def test_labels_of_another_length_are_refused():
    time, rels, _ = series_case(40, ["uniform", "skip"], "number")
    with pytest.raises(ValueError, match="39 hover labels for 40 timestamps"):
        side_by_side_figure(time, "number", rels, labels=[str(t) for t in range(39)])
