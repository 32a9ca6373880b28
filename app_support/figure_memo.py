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

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Mapping

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from lmdk_core.engine.release import Release


def release_figure_key(name: str, time: np.ndarray, releases: Mapping[str, Release],
                       leakage: Mapping[str, Mapping[str, np.ndarray]] | None,
                       extra: Iterable = ()) -> str:
    """The key of a chart of releases: its name, time axis, every field of each release
    (values, ε_t, published mask, landmarks, errors, the verifier's verdict, ε, …), the
    leakage curves when shown and ``extra`` (unit, height, …); see :func:`content_key`."""
    return content_key(name, np.asarray(time), dict(releases), leakage, tuple(extra))


def _feed(h, obj: object) -> None:
    """Feed ``obj`` to the hash canonically: arrays by dtype, shape and bytes,
    dataclasses field by field, mappings in key order, sequences item by item, other
    values by type and ``repr`` (the same content gives the same bytes whatever the
    objects' identity or memory layout)."""
    if isinstance(obj, np.ndarray):
        arr = np.ascontiguousarray(obj)
        h.update(f"A{arr.dtype.str}{arr.shape}".encode())
        h.update(arr.tobytes() if arr.dtype != object else repr(arr.tolist()).encode())
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        h.update(f"D{type(obj).__qualname__}".encode())
        for f in dataclasses.fields(obj):
            h.update(f"|{f.name}=".encode())
            _feed(h, getattr(obj, f.name))
    elif isinstance(obj, Mapping):
        h.update(f"M{len(obj)}".encode())
        for k in sorted(obj, key=repr):
            _feed(h, k)
            _feed(h, obj[k])
    elif isinstance(obj, (list, tuple)):
        h.update(f"L{len(obj)}".encode())
        for x in obj:
            _feed(h, x)
    else:
        h.update(f"S{type(obj).__name__}:{obj!r};".encode())


def content_key(name: str, *parts: object) -> str:
    """SHA-256 of a chart's name and the inputs it is built from (arrays, lists of
    labels, dataclasses of results such as releases, numbers, strings), fed
    canonically: equal inputs give equal keys, any changed value another key."""
    h = hashlib.sha256(name.encode())
    _feed(h, parts)
    return h.hexdigest()


@st.cache_resource(max_entries=24, show_spinner=False)
def memo_figure(key: str, _build: Callable[[], go.Figure]) -> go.Figure:
    """The figure ``_build()`` made for ``key`` (see :func:`release_figure_key`), built
    once; shared and read-only."""
    return _build()
