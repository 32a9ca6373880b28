"""The Map's declared region and the exact track release its downloads publish.

A publishable track file is released with the exact Planar Laplace on the grid of a
**declared** region (:mod:`lmdk_core.mechanisms.exact_planar`; Andrés et al., CCS 2013,
§5): the user types it, or accepts the data's labelled suggestion with an explicit
button (:func:`lmdk_core.decision.region_suggestion.suggested_region`), as with Δf.
The page's map keeps numpy's seeded preview; the files are a separate exact release of
the same view, drawn when a button is clicked and kept per setting, so downloading again
gives the same file (never a second release of the same data).
"""

from __future__ import annotations

import streamlit as st

from app_support import state_keys as K
from lmdk_core.data.digest import array_digest
from lmdk_core.data.track import Track
from lmdk_core.decision.region_suggestion import suggested_region
from lmdk_core.engine.release import Release, release_trajectory
from lmdk_core.files.config import ViewConfig
from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms.exact_planar import PlanarRegion

__all__ = ["declared_region", "exact_track_release"]

#: exact track releases kept per browser session (one per setting)
MAX_EXACT_TRACKS = 4


def _use(key: str, text: str) -> None:
    st.session_state[key] = text


def _start_with(wkey: str, default: str) -> None:
    """Fill the region input with the demo's public region while the demo is shown and
    nothing else was typed; empty it again when another track is shown (a region the
    user typed, or emptied, is kept whatever the track)."""
    ss = st.session_state
    auto = f"{wkey}_auto"  # what this function put there: a text, "" (emptied on a
    filled = ss.get(auto)  # switch of track) or None (the user's own)
    if filled is not None and ss.get(wkey) != filled:
        ss[auto] = filled = None  # the user typed over it
    if default and (wkey not in ss or filled == ""):
        ss[wkey] = ss[auto] = default
    elif not default and filled:
        ss[wkey] = ss[auto] = ""


def declared_region(track: Track, key: str, default: str = "") -> PlanarRegion | None:
    """The region input (``LAT,LON,KM``) with the data's suggestion behind a button;
    the parsed region when it is valid and holds the whole track, else None (with an
    error saying what is wrong and how to fix it; the text stays as typed).
    ``default``: the text the input starts with (the built-in demo's public region;
    never one computed from the data)."""
    wkey = f"{key}_region"
    _start_with(wkey, default)
    hint = suggested_region(track.lat, track.lon)
    left, right = st.columns([2, 2])
    text = left.text_input(
        "Declared region for the publishable files: LAT,LON,KM", key=wkey,
        placeholder="e.g. 48.86,2.35,50",
        help="The public area your track lies in (centre in degrees, radius in km, at most "
             "2000). Publishable files are released with exact Planar Laplace on its grid "
             "(safe from floating-point attacks, docs/noise.md); it must be declared, not "
             "computed from the track.")
    if hint is not None:
        right.button(f"Use {hint.text()} as my declared region", key=f"{wkey}_use",
                     on_click=_use, args=(wkey, hint.text()),
                     help="Suggested from this track (its bounding box, rounded): use it "
                          "only if you would declare it without looking at the track.")
    if not text.strip():
        st.info("Declare a region above to download the publishable track files.",
                icon=":material/info:")
        return None
    try:
        region = PlanarRegion.parse(text)
        dist = region.to_plane(track.lat, track.lon)[2]
    except InputError as exc:
        st.error(f"Region not used: {exc}.")
        return None
    if dist.max() > region.radius_m:
        st.error(f"Region not used: the track reaches {dist.max() / 1000:.1f} km from its "
                 f"centre, beyond its radius of {region.radius_km:g} km. Declare a larger "
                 "radius or another centre.")
        return None
    return region


def exact_track_release(track: Track, rel: Release, cfg: ViewConfig,
                        region: PlanarRegion) -> Release:
    """The publishable release of the page's view: the same track, landmarks, stays, ε,
    scheme, r, w and k, drawn with the exact Planar Laplace on ``region``'s grid and
    checked by the verifier; kept per setting in the session."""
    store = st.session_state.setdefault(K.EXACT_TRACKS, {})
    key = (array_digest(track.lat), array_digest(track.lon),
           tuple(int(t) for t in rel.landmarks), rel.stays, rel.epsilon, rel.scheme,
           float(cfg.radius), int(cfg.window), rel.max_landmarks, region)
    if key not in store:
        while len(store) >= MAX_EXACT_TRACKS:
            store.pop(next(iter(store)))
        store[key] = release_trajectory(track.lat, track.lon, rel.landmarks.tolist(),
                                        epsilon=rel.epsilon, radius=cfg.radius,
                                        scheme=rel.scheme, seed=None, window=cfg.window,
                                        stays=list(rel.stays) or None,
                                        max_landmarks=rel.max_landmarks, noise="exact",
                                        region=region)
    return store[key]
