"""User text reaches plotly escaped (issue: a user id ``<a href=x>u</a>`` became a live
link in the Population chart's hover, ``<span style=…>`` applied). plotly.js draws a
subset of HTML in every text it shows; :func:`lmdk_core.foundation.quoting.plotly_text`
turns ``& < > %`` into character references, which plotly turns back into characters
only after it has parsed the tags (``svg_text_utils.convertEntities``). Every figure
builder that takes user text (user ids, units/column names, state labels, hover
labels, titles) is fed hostile strings here and its JSON must hold no raw tag."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.io as pio
import pytest

from lmdk_core.decision.comparison import compare_schemes, series_release_fn, utility_sweep
from lmdk_core.engine.release import release_series
from lmdk_core.figures.choose import accuracy_figure
from lmdk_core.figures.compare import side_by_side_figure, utility_figure
from lmdk_core.figures.leakage import matrix_heatmap, series_state_labels
from lmdk_core.figures.population import error_figure
from lmdk_core.figures.timeline import timeline_figure
from lmdk_core.foundation.quoting import plotly_text, plotly_texts

LINK = "<a href=x>u</a>"
STYLED = '<span style="font-size:90px;color:red">s</span>'
TEMPLATE = "%{y} &amp; <b>bold</b>"
HOSTILE = [LINK, STYLED, TEMPLATE]


def _strings(obj) -> list[str]:
    """Every string in the figure's JSON (the browser's copy)."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def _raw_tags(fig) -> list[str]:
    strings = _strings(json.loads(pio.to_json(fig, validate=False)))
    meta = json.loads(pio.to_json(fig, validate=False))["layout"].get("meta", {})
    alt = set(_strings(meta))  # the text alternative is an attribute, not plotly text
    return [s for s in strings if s not in alt and any(
        bad in s for bad in ("<a ", "</a>", "<span", "<b>", "%{y} &amp;"))]


def test_plotly_text_escapes_what_plotly_reads_as_markup():
    assert plotly_text(LINK) == "&lt;a href=x&gt;u&lt;/a&gt;"
    assert plotly_text("50% & more") == "50&#37; &amp; more"
    assert plotly_text(7) == "7"
    assert plotly_texts(["Mon 01 Jan 00:00", 3]) == ["Mon 01 Jan 00:00", "3"]
    assert plotly_texts(["ok", LINK]) == ["ok", plotly_text(LINK)]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_population_error_figure_escapes_user_ids_and_the_unit(hostile):
    audit = pd.DataFrame({"user": [hostile, "plain", 17], "mae": [1.0, 2.0, 3.0],
                          "rmse": [1.5, 2.5, 3.5]})
    fig = error_figure(audit, unit=hostile)
    assert _raw_tags(fig) == []
    assert plotly_text(hostile) in fig.data[0].text


def _release():
    values = np.linspace(0.0, 5.0, 40)
    return values, release_series(values, [5, 20], epsilon=1.0, scheme="uniform",
                                  mechanism="laplace", sensitivity=5.0, seed=3)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_timeline_figure_escapes_the_unit(hostile):
    values, rel = _release()
    fig = timeline_figure(np.arange(values.size), "number", rel, unit=hostile,
                          leakage={"TPL": rel.epsilon_t, "landmark TPL": rel.epsilon_t})
    assert _raw_tags(fig) == []
    assert fig.layout.yaxis.title.text == plotly_text(hostile)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_compare_figures_escape_the_unit_and_the_hover_labels(hostile):
    values = np.linspace(0.0, 1.0, 30)
    fn = series_release_fn(values, [4], mechanism="laplace", sensitivity=1.0)
    rels = compare_schemes(fn, ["uniform", "skip"], 1.0, 0)
    labels = [hostile] * 30
    fig = side_by_side_figure(np.arange(30), "number", rels, unit=hostile, labels=labels)
    assert _raw_tags(fig) == []
    sweep = utility_sweep(fn, ["uniform"], [0.5, 1.0], runs=2, seed=0, landmarks=[4])
    assert _raw_tags(utility_figure(sweep, unit=hostile, current=1.0)) == []


@pytest.mark.parametrize("hostile", HOSTILE)
def test_choose_accuracy_figure_escapes_the_unit(hostile):
    grid = np.geomspace(0.1, 10, 8)
    fig = accuracy_figure(grid, {"uniform": np.linspace(1, 0.1, 8)}, kind="mean", target=0.5,
                          current_epsilon=1.0, unit=hostile)
    assert _raw_tags(fig) == []


@pytest.mark.parametrize("hostile", HOSTILE)
def test_matrix_heatmap_escapes_state_labels_hover_and_titles(hostile):
    P = np.full((3, 3), 1 / 3)
    labels = series_state_labels(np.array([0.0, 1.0, 2.0, 3.0]), unit=hostile)
    fig = matrix_heatmap(P, labels, hover=[hostile] * 3, title=hostile, row_title=hostile,
                         col_title=hostile)
    assert _raw_tags(fig) == []
    assert fig.layout.xaxis.title.text == plotly_text(hostile)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_aggregate_figures_escape_the_unit(hostile):
    """lmdk aggregate's Statistics view: the unit (a column name or the user's typing)
    titles the y axis of the per-window and the error-per-ε charts."""
    from lmdk_core.figures.aggregate import level_error_figure, statistic_time_figure

    y = np.array([1.0, 2.0])
    fig = statistic_time_figure(["2024-01-01", "2024-01-02"], y, y - 1, y + 1, y, title="t",
                                unit=hostile)
    assert _raw_tags(fig) == []
    eps = np.array([0.1, 1.0])
    fig = level_error_figure(eps, {"event": 1 / eps}, 1.0, {"event": 1.0}, unit=hostile)
    assert _raw_tags(fig) == []
