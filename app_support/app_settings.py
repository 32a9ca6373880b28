"""The app's settings as one typed object: :class:`AppSettings`, read by
:func:`current_settings`.

The settings live in ``st.session_state`` under their widget keys
(:func:`app_support.state_keys.setting_key`: ``epsilon`` → ``w_epsilon``), so the
sidebar's and the pages' widgets, the URL (:mod:`app_support.url_state`) and a restored
configuration (:func:`app_support.download_buttons.restore_config`) keep writing them
there. A page reads them once per use as ``s = current_settings()``, then ``s.epsilon``,
``s.scheme``, …: a misspelt name is an AttributeError (and a type checker's error), not a
silently new key. Their defaults are :data:`app_support.session.DEFAULTS`,
:data:`app_support.correlation_state.CORRELATION_DEFAULTS` and
:data:`app_support.track_session.TRACK_DEFAULTS` (a test keeps them and the fields equal).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal, get_type_hints

import streamlit as st

from app_support import state_keys as K

__all__ = ["AppSettings", "SETTING_NAMES", "current_settings", "set_setting"]


@dataclass(frozen=True)
class AppSettings:
    """The settings of the browser session at one moment (a snapshot: read again after a
    change). Public settings may appear in the URL and in published notes; the seed never.
    """

    # --- the shared settings (the sidebar's; app_support.session.DEFAULTS)
    epsilon: float
    """Total privacy budget ε (no unit, > 0): all landmarks plus any one event together
    spend at most ε (landmark privacy, Katsomallos et al. CODASPY'22)."""
    scheme: str
    """Budget scheme, a key of :data:`lmdk_core.engine.allocation.SCHEMES` ('uniform',
    'skip', 'adaptive', 'w-event', 'event', 'user'): how ε is spread over the timestamps."""
    window: int
    """Window w of w-event privacy, in timestamps (each timestamp gets ε/w)."""
    mechanism: Literal["laplace", "geometric"]
    """Noise of a series release: Laplace, or Geometric for counts."""
    sensitivity: float
    """Δf, in the series' unit: a DECLARED public bound on how much one event changes a
    reading, never computed from the data (the data's suggestion becomes it only through
    the "Use X as my declared bound" button; docs/privacy-model.md)."""
    max_landmarks: int
    """k, a count of landmark events (a stay or a run counts once): a DECLARED public
    bound; Uniform spends ε/(k+1) whatever is marked, and marking more than k is refused."""
    seed: int
    """Seed of every release: fresh 128-bit operating-system entropy per session and per
    Resample, or the teaching seed in the reproducible mode. Confidential: never in the URL
    or a public output."""
    reproducible: bool
    """The reproducible (teaching) mode: a fixed seed, not for real releases."""
    teaching_seed: int
    """The fixed seed of the teaching mode (0 … TEACHING_SEED_MAX)."""
    correlation_strength: float
    """Correlation strength s, the smoothing parameter of Cao et al. ICDE'17/TKDE'18's
    smoothed transition matrix (no unit; small = strong correlation)."""
    series_leakage: bool
    """The Timeline shows the temporal privacy leakage under correlation."""
    analysis_data: Literal["series", "track"]
    """The data the Choose ε, Compare and Leakage pages analyse."""

    # --- the correlation model (app_support.correlation_state.CORRELATION_DEFAULTS)
    corr_kind_series: str
    """Correlation model of a series, a key of
    :data:`app_support.correlation_state.CORRELATION_KINDS`."""
    corr_kind_track: str
    """Correlation model of a track, a key of
    :data:`app_support.correlation_state.CORRELATION_KINDS`."""
    corr_states: int
    """Number of states n of the smoothed model (a count)."""
    corr_base: Literal["identity", "shift"]
    """Base matrix B of the smoothed model."""
    corr_bins: int
    """Number of value bins of a series' estimated model (a count)."""
    corr_binning: Literal["width", "quantile"]
    """How a series' estimated model cuts its values into bins."""
    corr_smoothing: float
    """Additive smoothing of the estimated transition counts (a pseudo-count)."""
    corr_backward_series: str
    """Backward correlation of a series ('same', 'bayes', 'estimated', 'matrix')."""
    corr_backward_track: str
    """Backward correlation of a track ('same', 'bayes', 'estimated', 'matrix')."""

    # --- the Map page's settings (app_support.track_session.TRACK_DEFAULTS)
    radius: float
    """Protection radius r of Planar Laplace, in metres (Andrés et al. CCS'13): a public
    setting."""
    show_circles: bool
    """The Map draws the protection circles."""
    show_released: bool
    """The Map draws the released track."""
    tiles: bool
    """The Map loads online OpenStreetMap tiles (off by default: no network request)."""
    suggest: bool
    """The Map suggests stay points."""
    stay_distance: float
    """Largest distance of a stay point's fixes from its first, in metres."""
    stay_minutes: float
    """Shortest duration of a stay point, in minutes."""
    stay_mark: Literal["event", "visit", "arrival"]
    """What accepting a suggested stay marks: one landmark event, every fix, or its first
    fix (docs/stays.md)."""
    minutes_per_point: float
    """Minutes between the fixes of a track without times."""
    track_leakage: bool
    """The Map shows the temporal privacy leakage under correlation."""
    point_displacement: bool
    """The Map draws the per-point displacement panel."""
    cell_size: float
    """Grid cell size of a track's estimated correlation model, in metres."""


#: the name of every setting (its widget key is ``K.setting_key(name)``)
SETTING_NAMES = tuple(f.name for f in fields(AppSettings))

_CONVERT = {float: float, int: int, bool: bool}
#: per setting, the conversion of its stored value to the field's type (numbers a widget,
#: the URL or a configuration stored as another numeric type; text kept as it is)
_CONVERTERS = {name: _CONVERT.get(kind, lambda v: v)
               for name, kind in get_type_hints(AppSettings).items()}


def current_settings() -> AppSettings:
    """The session's settings now (one read of ``st.session_state`` per setting)."""
    ss = st.session_state
    return AppSettings(**{name: _CONVERTERS[name](ss[K.setting_key(name)])
                          for name in SETTING_NAMES})


def set_setting(name: str, value: Any) -> None:
    """Change the setting ``name`` (a field of :class:`AppSettings`; a misspelt name is a
    KeyError, never a new key). Call it before the widget of the setting is drawn, e.g. in
    a callback."""
    if name not in _CONVERTERS:
        raise KeyError(f"{name!r} is not a setting of AppSettings")
    st.session_state[K.setting_key(name)] = value
