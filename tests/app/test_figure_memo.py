"""app_support/figure_memo.py: a built figure is reused only for the same drawn content."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import plotly.graph_objects as go

from app_support.figure_memo import content_key, memo_figure, release_figure_key
from lmdk_core.engine.release import release_series


def _rel(eps: float, seed: int = 7):
    values = np.sin(np.arange(60) / 5.0) + 2
    return release_series(values, [4, 5, 30], epsilon=eps, scheme="uniform", seed=seed)


def test_release_key_follows_every_drawn_value():
    t = np.arange(60)
    a = release_figure_key("x", t, {"u": _rel(1.0)}, None, ("kWh",))
    # the same content after the pickle round trip st.cache_data makes: the same key
    same = pickle.loads(pickle.dumps(_rel(1.0)))
    assert release_figure_key("x", t, {"u": same}, None, ("kWh",)) == a
    assert release_figure_key("x", t, {"u": _rel(1.1)}, None, ("kWh",)) != a  # ε
    assert release_figure_key("x", t, {"u": _rel(1.0, seed=8)}, None, ("kWh",)) != a  # noise
    assert release_figure_key("x", t + 1, {"u": _rel(1.0)}, None, ("kWh",)) != a  # time
    assert release_figure_key("x", t, {"u": _rel(1.0)}, None, ("m",)) != a  # unit
    leak = {"u": {"TPL": np.ones(60), "landmark TPL": np.ones(60)}}
    b = release_figure_key("x", t, {"u": _rel(1.0)}, leak, ("kWh",))
    assert b != a
    leak2 = copy.deepcopy(leak)
    leak2["u"]["TPL"][3] = 1.5
    assert release_figure_key("x", t, {"u": _rel(1.0)}, leak2, ("kWh",)) != b


def test_memo_figure_builds_once_per_key():
    calls = []

    def build(y):
        calls.append(y)
        return go.Figure(go.Scatter(y=[y]))

    k1, k2 = content_key("t", np.array([1.0])), content_key("t", np.array([2.0]))
    f1 = memo_figure(k1, lambda: build(1))
    assert memo_figure(k1, lambda: build(1)) is f1
    f2 = memo_figure(k2, lambda: build(2))
    assert f2 is not f1 and list(f2.data[0].y) == [2]
    assert calls == [1, 2]
