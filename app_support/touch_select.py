"""Tapping a chart point on a touch screen selects that point.

plotly.js answers a click with the point under the *last hover*; a phone has no mouse,
so no hover precedes a tap, and a tap selected nothing (the first time) or the point
tapped before. This page-level script, installed once per browser tab, turns the start
of a touch on a plotly chart into the hover plotly expects at that spot, so the tap that
follows selects the point under the finger (Streamlit then reports the selection as for
a mouse click). It is our own fixed code, with no user input in it.
"""

from __future__ import annotations

import streamlit as st

__all__ = ["enable_tap_select"]

_SCRIPT = """<script>
(function () {
  if (window.__lmdkTapSelect) { return; }
  window.__lmdkTapSelect = true;
  document.addEventListener("touchstart", function (e) {
    var t = e.touches && e.touches[0];
    if (!t) { return; }
    var el = document.elementFromPoint(t.clientX, t.clientY);
    if (!el || !el.closest(".js-plotly-plot")) { return; }
    el.dispatchEvent(new MouseEvent("mousemove", {
      clientX: t.clientX, clientY: t.clientY, bubbles: true, view: window}));
  }, {capture: true, passive: true});
})();
</script>"""


def enable_tap_select() -> None:
    """Install the touch-to-hover script (idempotent; renders nothing visible)."""
    with st.sidebar:
        st.html(_SCRIPT, unsafe_allow_javascript=True)
