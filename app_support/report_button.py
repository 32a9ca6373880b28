"""The report buttons of the Timeline, Map and Compare pages: the **public release note**
(the default, publishable) and the **internal privacy report** (CONFIDENTIAL).

Usage on a page, once its :class:`~lmdk_core.files.config.ViewConfig` is built::

    from app_support.report_button import internal_report_button, release_note_button
    release_note_button(cfg, key="timeline_note")
    internal_report_button(cfg, key="timeline_report")   # inside the confidential expander

Both files are built only when the button is clicked (Streamlit's deferred download:
``data`` is a callable), by :func:`lmdk_core.report.release_note.build_release_note` and
:func:`lmdk_core.report.build_report`, which recompute the release from the
configuration — the same seed gives the same noise as the page.
"""

from __future__ import annotations

import copy
import html

import streamlit as st

from lmdk_core.figures.object_memo import per_object
from lmdk_core.files.config import ViewConfig
from lmdk_core.files.export import CONFIDENTIAL_LABEL, NUMPY_NOISE
from lmdk_core.foundation.errors import InputError
from lmdk_core.report import build_report, report_filename
from lmdk_core.report.compute import declared_max_landmarks
from lmdk_core.report.release_note import (
    build_release_note,
    published_noise,
    release_note_filename,
)

__all__ = ["internal_report_button", "note_bytes", "release_note_button",
           "report_download_button", "report_bytes"]

HELP = (f"{CONFIDENTIAL_LABEL}. A self-contained HTML file documenting this view for a "
        "release decision: data summary, landmarks, ε, scheme and mechanism, the allocation "
        "chart, the verifier's verdict, temporal leakage, measured and expected error, seed "
        "and versions. Charts are interactive and the file opens offline.")
NOTE_HELP = ("Publishable: the verdict, ε, scheme, mechanism, expected error and the largest "
             "temporal leakage, as one HTML page to accompany the released file. No raw data, "
             "no landmark timestamps or places, no seed.")


TEACHING_HELP = ("Teaching mode: the noise comes from the fixed seed shown in the sidebar, "
                 "so anyone who knows it regenerates the noise and recovers the data. Every "
                 "file made in this mode says so; none is publishable.")


def _safe(build, cfg: ViewConfig) -> bytes:
    try:
        text = build(copy.deepcopy(cfg))
    except InputError as exc:
        text = _error_page(str(exc))
    except Exception as exc:  # a bug: still a readable file, never a traceback
        text = _error_page(f"unexpected {type(exc).__name__}: {exc}")
    return text.encode("utf-8")


def report_bytes(cfg: ViewConfig) -> bytes:
    """The internal report as UTF-8 bytes; on bad input, a short HTML page saying what is
    wrong (a download must never end in a traceback)."""
    return _safe(build_report, cfg)


def note_bytes(cfg: ViewConfig, noise: str = NUMPY_NOISE) -> bytes:
    """The public release note as UTF-8 bytes (an error page on bad input)."""
    return _safe(lambda c: build_release_note(c, noise=noise), cfg)


def _error_page(message: str) -> str:
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Privacy "
            "report not available</title></head><body><h1>Privacy report not available</h1>"
            f"<p>Could not build the report: {html.escape(message)}.</p></body></html>\n")


@per_object(maxsize=32)
def _checked(cfg: ViewConfig) -> ViewConfig:
    """A checked shallow copy of ``cfg`` (raises InputError). The buttons of one rerun
    share the configuration object, which is checked once (a 20,000-row embedded table
    takes ~20 ms to check); the page builds a new configuration on every rerun and never
    changes it, and each file is built from a deep copy when its button is clicked
    (:func:`_safe`)."""
    return copy.copy(cfg).validate()


def _snapshot(cfg: ViewConfig) -> ViewConfig | None:
    """``cfg`` checked now (a bad one says so at once, with no button)."""
    try:
        return _checked(cfg)
    except InputError as exc:
        st.error(f"No privacy report: {exc}", icon=":material/error:")
        return None


def release_note_button(cfg: ViewConfig, key: str, noise: str | None = None) -> None:
    """The publishable *Public release note (HTML)* button. ``noise`` is the sampler of
    the published file; by default that of the file a configuration's release is
    published in (:func:`~lmdk_core.report.release_note.published_noise`: the exact
    sampler for a series). A release the note cannot describe (Adaptive) gets no
    button but a line saying why; in the teaching mode the button and the file say
    "TEACHING — not publishable"."""
    snapshot = _snapshot(cfg)
    if snapshot is None:
        return
    try:
        if noise is None:
            noise = published_noise(snapshot)
        declared_max_landmarks(snapshot)  # more landmark events than k: no note
    except InputError as exc:
        st.caption(f":material/block: No public release note: {exc}.")
        return
    teaching = snapshot.reproducible
    st.download_button(
        "TEACHING note (HTML) — not publishable" if teaching else "Public release note (HTML)",
        data=lambda: note_bytes(snapshot, noise),
        file_name=release_note_filename(snapshot), mime="text/html", key=key,
        icon=":material/school:" if teaching else ":material/summarize:",
        help=TEACHING_HELP if teaching else NOTE_HELP, on_click="ignore",
    )


def internal_report_button(cfg: ViewConfig, key: str) -> None:
    """The *CONFIDENTIAL — Internal privacy report (HTML)* button (check the
    configuration at once: a bad one gives ``st.error`` and no button)."""
    snapshot = _snapshot(cfg)
    if snapshot is None:
        return
    st.download_button(
        "CONFIDENTIAL — Internal privacy report (HTML)", data=lambda: report_bytes(snapshot),
        file_name=report_filename(snapshot), mime="text/html", key=key,
        icon=":material/lock:", help=HELP, on_click="ignore",
    )


def report_download_button(cfg: ViewConfig, key: str) -> None:
    """Both forms: the public release note, then the internal report (one error box and
    no button for a bad configuration)."""
    if _snapshot(cfg) is None:
        return
    release_note_button(cfg, key=f"{key}_note")
    internal_report_button(cfg, key=key)
