"""The platform's floor for ``bench_floor.py``: what Streamlit and the browser cost for an
interaction that changes one number and redraws the Timeline's chart, with none of the
app's own work in the rerun.

Four pages, each with one number field ("ε") and nothing computed in the rerun (the
Timeline's chart for the demo week is built beforehand for every ε the benchmark visits,
with the engine's release and :func:`lmdk_core.figures.timeline_figure`):

* ``/`` (the default page): the number field alone (a rerun that draws nothing new);
* ``/remount``: the chart drawn by ``st.plotly_chart`` with a stable key, as the app's
  pages draw theirs (Streamlit 1.67 gives a changed figure a new element id, so the
  browser mounts it anew);
* ``/inplace``: the same figure drawn by the app's own chart component
  (:func:`app_support.live_chart.live_chart`: kept mounted, updated with
  ``Plotly.react``);
* ``/vega``: the data and budget panels as one keyed Vega-Lite chart, which Streamlit
  updates in place.

Run by ``benchmarks/bench_floor.py``; ``streamlit run benchmarks/floor_app.py`` shows it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app_support.live_chart import live_chart  # noqa: E402
from lmdk_core.data.demo import demo_series, demo_series_landmarks  # noqa: E402
from lmdk_core.engine.release import release_series  # noqa: E402
from lmdk_core.figures import timeline_figure  # noqa: E402
from lmdk_core.figures.style import PLOTLY_CONFIG  # noqa: E402

#: the ε values the benchmark steps through (0.1 apart, as the number field's step)
EPSILONS = [round(1.0 + 0.1 * i, 1) for i in range(60)]


@st.cache_resource
def _figures() -> dict[float, tuple[go.Figure, pd.DataFrame]]:
    """For every ε of :data:`EPSILONS`: the Timeline's figure (demo week, Uniform, its
    landmarks), and the released values and ε_t as a table."""
    series = demo_series()
    out = {}
    for eps in EPSILONS:
        rel = release_series(series.values, demo_series_landmarks(), epsilon=eps, scheme="uniform",
                             seed=1)
        fig = timeline_figure(series.time, series.time_kind, rel, unit=series.unit)
        frame = pd.DataFrame({"t": np.arange(len(rel.released)), "released": rel.released,
                              "ε_t": rel.epsilon_t})
        out[eps] = (fig, frame)
    return out


def _epsilon() -> float:
    eps = st.number_input("ε", min_value=1.0, max_value=EPSILONS[-1], value=1.0, step=0.1,
                          key="eps")
    return min(EPSILONS, key=lambda e: abs(e - eps))


def widget() -> None:
    st.write(f"ε = {_epsilon():g}")


def remount() -> None:
    st.plotly_chart(_figures()[_epsilon()][0], key="chart", width="stretch",
                    config=PLOTLY_CONFIG)


def inplace() -> None:
    live_chart(_figures()[_epsilon()][0], key="chart")


def vega() -> None:
    frame = _figures()[_epsilon()][1]
    spec = {"vconcat": [
        {"mark": "line", "height": 220, "width": "container",
         "encoding": {"x": {"field": "t", "type": "quantitative"},
                      "y": {"field": "released", "type": "quantitative"}}},
        {"mark": "bar", "height": 160, "width": "container",
         "encoding": {"x": {"field": "t", "type": "quantitative"},
                      "y": {"field": "ε_t", "type": "quantitative"}}}]}
    st.vega_lite_chart(frame, spec, key="chart", width="stretch")


st.navigation([st.Page(widget, title="Number field only", url_path="widget", default=True),
               st.Page(remount, title="st.plotly_chart", url_path="remount"),
               st.Page(inplace, title="Plotly.react in place", url_path="inplace"),
               st.Page(vega, title="Vega-Lite in place", url_path="vega")]).run()
