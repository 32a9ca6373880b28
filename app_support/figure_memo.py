"""Built plotly figures kept across reruns, keyed by a digest of everything they draw.

Building a figure with several subplots (``go.Figure`` initialises and deep-copies its
layout template) took a large share of a page's rerun, and most reruns redraw a chart
whose inputs did not change (a toggle elsewhere on the page, a scheme added beside it).
:func:`content_key` digests a chart's inputs (arrays, releases, results),
:func:`release_figure_key` those of a chart of releases;
:func:`memo_figure` returns the figure built for that key before, or builds and keeps
it. The figure is shared (``st.cache_resource``): callers must not change it after it
is returned — any change belongs inside ``build``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from lmdk_core.data.digest import object_digest
from lmdk_core.engine.release import Release


def release_figure_key(name: str, time: np.ndarray, releases: Mapping[str, Release],
                       leakage: Mapping[str, Mapping[str, np.ndarray]] | None,
                       extra: Iterable = ()) -> str:
    """The key of a chart of releases: its name, time axis, every field of each release
    (values, ε_t, published mask, landmarks, errors, the verifier's verdict, ε, …), the
    leakage curves when shown and ``extra`` (unit, height, …); see :func:`content_key`."""
    return content_key(name, np.asarray(time), dict(releases), leakage, tuple(extra))


def content_key(name: str, *parts: object) -> str:
    """SHA-256 of a chart's name and the inputs it is built from (arrays, lists of
    labels, dataclasses of results such as releases, numbers, strings), fed
    canonically: equal inputs give equal keys, any changed value another key."""
    return object_digest(*parts, label=name)


@st.cache_resource(max_entries=24, show_spinner=False)
def memo_figure(key: str, _build: Callable[[], go.Figure]) -> go.Figure:
    """The figure ``_build()`` made for ``key`` (see :func:`release_figure_key`), built
    once; shared and read-only."""
    return _build()
