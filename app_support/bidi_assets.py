"""What the app's two Streamlit components (version 2) share: a big library served once
per page by the app's own server, and the trigger values they report.

* :func:`serve_component_assets` declares a folder as the asset folder of a component
  (what a package's ``[tool.streamlit.component]`` manifest declares; the app is not
  such a package), so that Streamlit's server serves its files under
  ``/_stcore/bidi-components/<component>/``: the Map's Leaflet
  (:mod:`app_support.track_map`) and the charts' plotly.js
  (:mod:`app_support.live_chart`) are loaded once per page from there, never inline with
  every rerun and never from the internet.
* :func:`trigger_value` reads what a component reported to the callback that runs for it.
* :func:`component_script` is a component's script with the log-scale slider arithmetic
  its previews share (``log_slider.js``) in front.
"""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

__all__ = ["asset_url_path", "component_script", "serve_component_assets", "trigger_value"]

#: the slider arithmetic of the in-browser previews (fmt, valueAt, posOf)
_LOG_SLIDER_JS = Path(__file__).with_name("log_slider.js")


def component_script(script: Path) -> str:
    """The text of a component's ``script``, after ``log_slider.js`` (the functions the
    Timeline/Compare chart's ε slider and the Map's ε and r sliders share)."""
    return (_LOG_SLIDER_JS.read_text(encoding="utf-8") + "\n"
            + script.read_text(encoding="utf-8"))

_LOG = logging.getLogger(__name__)


def serve_component_assets(component: str, asset_dir: Path) -> bool:
    """Serve the files of ``asset_dir`` as the assets of ``component``
    ("<package>.<name>"). False when this Streamlit has no such registry (the caller then
    falls back: Leaflet inline, or ``st.plotly_chart``)."""
    try:
        from streamlit.components.v2.get_bidi_component_manager import (
            get_bidi_component_manager,
        )
        from streamlit.components.v2.manifest_scanner import (
            ComponentConfig,
            ComponentManifest,
        )

        package, name = component.split(".")
        folder = asset_dir.resolve()
        get_bidi_component_manager().register_from_manifest(
            ComponentManifest(name=package, version="1", components=[
                ComponentConfig(name=name, asset_dir=folder.name)]),
            folder.parent)
    except Exception:  # noqa: BLE001 - any change of Streamlit's registry: the fallback
        _LOG.warning("%s: the component asset registry is unavailable", component,
                     exc_info=True)
        return False
    return True


def asset_url_path(component: str, file: str) -> str:
    """The path of one served asset below ``/_stcore/bidi-components/`` (the component's
    script imports it relative to the page's base URL, so a base path is kept)."""
    return f"{component}/{file}"


def trigger_value(key: str, event: str) -> object:
    """The value the component ``key`` reported for ``event`` (read in the callback of
    that event), or None."""
    state = st.session_state.get(key)
    if state is None:
        return None
    value = getattr(state, event, None)
    if value is None and isinstance(state, dict):
        value = state.get(event)
    return value
