"""The "Privacy report (HTML)" download button shared by the Timeline, Map and Compare pages.

Usage on a page, once its :class:`~lmdk_core.config.ViewConfig` is built::

    from app_pages.report_button import report_download_button
    report_download_button(cfg, key="timeline_report")

The report is built only when the button is clicked (Streamlit's deferred download:
``data`` is a callable), by :func:`lmdk_core.report.build_report`, which recomputes
the release from the configuration — the same seed gives the same noise as the page.
"""

from __future__ import annotations

import copy
import html

import streamlit as st

from lmdk_core.config import ViewConfig
from lmdk_core.report import build_report, report_filename
from lmdk_core.validation import InputError

__all__ = ["report_download_button", "report_bytes"]

HELP = ("A self-contained HTML file documenting this view for a release decision: data "
        "summary, landmarks, ε, scheme and mechanism, the allocation chart, the verifier's "
        "verdict, temporal leakage, measured and expected error, seed and versions. Charts "
        "are interactive and the file opens offline.")


def report_bytes(cfg: ViewConfig) -> bytes:
    """The report as UTF-8 bytes; on bad input, a short HTML page saying what is wrong
    (a download must never end in a traceback)."""
    try:
        text = build_report(copy.deepcopy(cfg))
    except InputError as exc:
        text = _error_page(str(exc))
    except Exception as exc:  # a bug: still a readable file, never a traceback
        text = _error_page(f"unexpected {type(exc).__name__}: {exc}")
    return text.encode("utf-8")


def _error_page(message: str) -> str:
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Privacy "
            "report not available</title></head><body><h1>Privacy report not available</h1>"
            f"<p>Could not build the report: {html.escape(message)}.</p></body></html>\n")


def report_download_button(cfg: ViewConfig, key: str) -> None:
    """Draw a download button for the HTML privacy report of ``cfg``.

    The configuration is checked at once (a bad one gives ``st.error`` and no button);
    the report itself is computed when the button is clicked.
    """
    try:
        snapshot = copy.deepcopy(cfg).validate()
    except InputError as exc:
        st.error(f"No privacy report: {exc}", icon=":material/error:")
        return
    st.download_button(
        "Privacy report (HTML)", data=lambda: report_bytes(snapshot),
        file_name=report_filename(snapshot), mime="text/html", key=key,
        icon=":material/summarize:", help=HELP, on_click="ignore",
    )
