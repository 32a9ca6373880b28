"""Built plotly figures kept across reruns, keyed by a digest of everything they draw.

Building a figure with several subplots (``go.Figure`` initialises and deep-copies its
layout template) took a large share of a page's rerun, and most reruns redraw a chart
whose inputs did not change (a toggle elsewhere on the page, a scheme added beside it).
:func:`release_figure_key` digests the arrays a release chart reads, :func:`content_key`
any picklable inputs;
:func:`memo_figure` returns the figure built for that key before, or builds and keeps
it. The figure is shared (``st.cache_resource``): callers must not change it after it
is returned — any change belongs inside ``build``.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterable, Mapping

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from lmdk_core.engine.release import Release


def _update(h, a) -> None:
    arr = np.ascontiguousarray(a)
    h.update(f"{arr.dtype.str}{arr.shape}".encode())
    h.update(arr.tobytes())


def release_figure_key(name: str, time: np.ndarray, releases: Mapping[str, Release],
                       leakage: Mapping[str, Mapping[str, np.ndarray]] | None,
                       extra: Iterable = ()) -> str:
    """SHA-256 of a chart's name, its time axis, every array and number of each release
    a release chart draws (data, released values, ε_t, published mask, landmarks,
    errors, the verifier's totals, ε), the leakage curves (when shown) and ``extra``
    (unit, height, …)."""
    h = hashlib.sha256(name.encode())
    _update(h, time)
    for s, r in releases.items():
        h.update(f"|{s}|{r.scheme}|{r.mechanism}|{r.epsilon!r}|".encode())
        for a in (r.original, r.released, r.epsilon_t, r.published, r.landmarks, r.errors,
                  r.expected_errors, r.verdict.totals):
            _update(h, a)
        for k, v in sorted((leakage or {}).get(s, {}).items()):
            h.update(f"|{k}|".encode())
            _update(h, v)
    h.update(repr(tuple(extra)).encode())
    return h.hexdigest()


def content_key(name: str, *parts: object) -> str:
    """SHA-256 of a chart's name and the pickled inputs it is built from (arrays, lists
    of labels, dataclasses of results, numbers, strings): equal inputs give equal keys."""
    h = hashlib.sha256(name.encode())
    h.update(pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL))
    return h.hexdigest()


@st.cache_resource(max_entries=24, show_spinner=False)
def memo_figure(key: str, _build: Callable[[], go.Figure]) -> go.Figure:
    """The figure ``_build()`` made for ``key`` (see :func:`release_figure_key`), built
    once; shared and read-only."""
    return _build()
