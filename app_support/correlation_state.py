"""The session's correlation model: the adversary's knowledge of how consecutive values
follow each other (Cao et al. ICDE'17/TKDE'18), shared by the Timeline, Map, Leakage,
Compare and Population pages and saved with a view.

Its settings live in ``st.session_state`` under the keys of :mod:`app_support.state_keys`
(kept across pages by :func:`app_support.session.keep_widget_state`); this module holds
their defaults, the strength slider's choices and the conversion to and from the JSON
specification of :mod:`lmdk_core.leakage.model` (docs/correlation.md).
"""

from __future__ import annotations

import streamlit as st

from app_support import state_keys as K
from lmdk_core.foundation.quoting import shorten_user_text

#: the label of the correlation-strength slider (the Timeline and Leakage pages)
STRENGTH_LABEL = "Correlation: strong ← s → weak"

#: choices of the correlation-strength slider (Cao et al.'s smoothing parameter s)
STRENGTHS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


def strength_ladder(current: float) -> list[float]:
    """The slider's choices, with ``current`` among them (a restored view may hold any s)."""
    return sorted(set(STRENGTHS) | {float(current)})


#: the correlation model in force for the whole browser session (edited on the Leakage
#: page; read by Timeline, Map, Compare and the saved configuration / report). The kind
#: is kept per data kind ('estimated' means bins for a series and grid cells for a track);
#: the parameters are shared. Strength s is ``w_correlation_strength`` and the grid cell
#: size ``w_cell_size`` (the Map's setting).
CORRELATION_DEFAULTS = {
    # the default model is estimated from the loaded data (Cao et al. assume the adversary
    # knows the transition matrix): deciles of a series, grid cells of a track
    "corr_kind_series": "estimated",
    "corr_kind_track": "estimated",
    "corr_states": 10,
    "corr_base": "identity",
    "corr_bins": 10,
    "corr_binning": "quantile",
    "corr_smoothing": 1.0,
    "corr_backward_series": "estimated",
    "corr_backward_track": "estimated",
}

#: kinds of correlation model (the Leakage page's choice)
CORRELATION_KINDS = {"smoothed": "Correlation strength", "estimated": "Estimated from the data",
                     "matrix": "Uploaded CSV", "none": "None (values independent)"}


def correlation_spec(kind: str) -> dict:
    """The session's correlation model for data of ``kind`` ('series' or 'track') as the
    JSON specification of :mod:`lmdk_core.leakage.model` (also saved as
    ``extra.correlation`` in the configuration, so the report uses the same model)."""
    ss = st.session_state
    model = ss.get(K.correlation_kind_key(kind), CORRELATION_DEFAULTS[f"corr_kind_{kind}"])
    backward = ss.get(K.correlation_backward_key(kind),
                      CORRELATION_DEFAULTS[f"corr_backward_{kind}"])
    if model == "none":
        return {"model": "none"}
    if model == "matrix":
        mats = ss.get(K.CORR_MATRICES, {})
        if "forward" not in mats:  # nothing uploaded yet: the default of this data kind
            model = CORRELATION_DEFAULTS[f"corr_kind_{kind}"]
        else:
            spec = {"model": "matrix", "name": mats["forward"][0],
                    "forward": mats["forward"][1].tolist()}
            if backward == "matrix" and "backward" in mats:
                # never dropped silently: a backward matrix of another size is refused
                # by the model with a message, wherever the model is used
                spec["backward"] = mats["backward"][1].tolist()
            return spec
    if model == "smoothed":
        return {"model": "smoothed", "states": int(ss[K.W_CORR_STATES]),
                "strength": float(ss[K.W_CORRELATION_STRENGTH]), "base": ss[K.W_CORR_BASE],
                "backward": backward if backward in ("same", "bayes") else "same"}
    backward = backward if backward in ("same", "bayes", "estimated") else "estimated"
    if kind == "track":
        return {"model": "grid", "cell_size_m": float(ss[K.W_CELL_SIZE]),
                "smoothing": float(ss[K.W_CORR_SMOOTHING]), "backward": backward}
    return {"model": "estimated", "bins": int(ss[K.W_CORR_BINS]), "binning": ss[K.W_CORR_BINNING],
            "smoothing": float(ss[K.W_CORR_SMOOTHING]), "backward": backward}


def restore_correlation(spec: object, kind: str) -> None:
    """Make a saved configuration's ``extra.correlation`` the session's model for data of
    ``kind`` (call from an upload callback, after the configuration was validated; an
    unknown or missing specification leaves the session's model unchanged)."""
    if not isinstance(spec, dict) or not isinstance(spec.get("model"), str):
        return
    ss = st.session_state
    model = spec["model"].strip().lower()
    if model == "grid":
        model = "estimated"
    if model not in CORRELATION_KINDS:
        return
    ss[K.correlation_kind_key(kind)] = model
    simple = {"states": K.W_CORR_STATES, "base": K.W_CORR_BASE, "bins": K.W_CORR_BINS,
              "binning": K.W_CORR_BINNING, "smoothing": K.W_CORR_SMOOTHING,
              "strength": K.W_CORRELATION_STRENGTH, "cell_size_m": K.W_CELL_SIZE}
    for name, key in simple.items():
        if name in spec:
            ss[key] = spec[name]
    if isinstance(spec.get("backward"), str):
        ss[K.correlation_backward_key(kind)] = spec["backward"]
    if model == "matrix":
        import numpy as np

        name = shorten_user_text(spec.get("name", "restored matrix"), 60)
        ss[K.CORR_MATRICES] = {"forward": (name, np.asarray(spec["forward"], dtype=float))}
        if isinstance(spec.get("backward"), list):
            ss[K.CORR_MATRICES]["backward"] = (name, np.asarray(spec["backward"], dtype=float))
            ss[K.correlation_backward_key(kind)] = "matrix"
