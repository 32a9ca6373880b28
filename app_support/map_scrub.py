"""The Map page's ε and r sliders that preview the release on the map while they move.

A Streamlit component (version 2, no assets): two log-scale sliders, the total budget ε
and Planar Laplace's protection radius r (Andrés et al., CCS'13). While one is dragged
the browser moves the map's released points and 2r/ε_t circles to where the same
noise draws put them at that ε and r (``base + (released − base)·(r'/r)·(ε/ε')`` for a
static scheme, :func:`lmdk_core.figures.map.track_noise_bases`; the map component's
``previewTo``) and says a preview verdict, with no server round trip; when it is let go
both values are reported once (trigger value ``scrub``, read with
:func:`scrubbed_settings` in ``on_scrub``) and the page reruns once. Adaptive decides
from its own noise: its map follows when the slider is let go. The preview is never a
release: a download draws fresh noise on the server (docs/app.md).

The sliders sit outside the Map's landmark fragment, so the run after letting go is
one whole-page run (ε and r are page-wide settings); the numbers the preview needs come
with the map's own value, which the fragment sends after every landmark change.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from app_support.bidi_assets import component_script, trigger_value
from lmdk_core.figures.epsilon_preview import SLIDER_STEPS, slider_range
from lmdk_core.foundation.setting_limits import LIMITS

__all__ = ["COMPONENT", "RADIUS_RANGE", "map_scrub", "scrubbed_settings"]

COMPONENT = "lmdk.map_scrub"
_JS = Path(__file__).with_name("map_scrub.js")
#: the r slider's usual range in metres (log scale); a current r outside widens it
RADIUS_RANGE = (10.0, 10_000.0)
_CSS = """
.lmdk-map-scrub { font-family: "Source Sans Pro", sans-serif; font-size: 0.95rem;
  color: #31333f; }
.lmdk-map-scrub .lmdk-scrub { display: flex; flex-wrap: wrap; align-items: center;
  gap: 0.25rem 0.75rem; }
.lmdk-map-scrub label { font-weight: 600; min-width: 9rem; }
.lmdk-map-scrub input[type=range] { flex: 1 1 16rem; min-width: 10rem;
  accent-color: #1f77b4; height: 1.75rem; }
.lmdk-map-scrub input[type=range]:focus-visible { outline: 2px solid #1f4e79;
  outline-offset: 2px; }
.lmdk-map-scrub output { min-width: 6.5rem; font-variant-numeric: tabular-nums;
  font-weight: 600; }
.lmdk-map-scrub .lmdk-scrub-verdict { padding: 0.2rem 0.6rem; border-left: 0.3rem solid;
  border-radius: 0.25rem; min-height: 1.6rem; margin-top: 0.2rem; }
.lmdk-map-scrub .lmdk-scrub-verdict[data-colour=red] { border-color: #b3261e;
  background: #fdeceb; }
.lmdk-map-scrub .lmdk-scrub-verdict[data-colour=none] { border-color: #808495;
  background: #f0f2f6; }
"""


@functools.cache
def _component() -> Callable:
    """Register the component once per process."""
    return st.components.v2.component(COMPONENT, html="", css=_CSS,
                                      js=component_script(_JS),
                                      isolate_styles=False)


def radius_range(radius: float) -> tuple[float, float]:
    """The r slider's range: :data:`RADIUS_RANGE`, widened to hold ``radius`` (within
    the setting's limits)."""
    lo, hi = RADIUS_RANGE
    return (max(LIMITS["radius"].low, min(lo, float(radius))),
            min(LIMITS["radius"].high, max(hi, float(radius))))


def map_scrub(*, epsilon: float, radius: float, key: str,
              on_scrub: Callable[[], None] | None = None):
    """Draw the two sliders at the session's ``epsilon`` and ``radius``; ``on_scrub``
    runs once when one is let go, :func:`scrubbed_settings` giving the values."""
    e_lo, e_hi = slider_range(epsilon)
    r_lo, r_hi = radius_range(radius)
    return _component()(
        data={"epsilon": float(epsilon), "radius": float(radius),
              "eps": {"low": e_lo, "high": e_hi, "steps": SLIDER_STEPS},
              "r": {"low": r_lo, "high": r_hi, "steps": SLIDER_STEPS}},
        # its own height (two slider rows and the verdict; more on a phone, where a
        # label sits above its slider): a fixed height would scroll on a narrow screen
        key=key, height="content", on_scrub_change=on_scrub)


def _positive(value: object) -> float | None:
    if not isinstance(value, (int, float, str)):  # what a component reports: JSON
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if x > 0 and x == x and x != float("inf") else None


def scrubbed_settings(key: str) -> tuple[float | None, float | None]:
    """(ε, r) the sliders of ``key`` were let go at (in its ``on_scrub`` callback); None
    for a value that is missing or not a positive number."""
    value = trigger_value(key, "scrub")
    if not isinstance(value, dict):
        return None, None
    return _positive(value.get("epsilon")), _positive(value.get("radius"))
