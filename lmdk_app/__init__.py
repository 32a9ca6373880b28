"""The Streamlit app as installed data: ``lmdk explore`` runs ``app.py`` from here.

In a source checkout this folder holds only this file: the app lives once, at the
repository root (``app.py``, ``app_pages/``, ``app_support/``, ``assets/``,
``.streamlit/config.toml``), and runs from there. Building the wheel copies those files
in here (``setup.py``; the configuration as ``streamlit_config.toml``), so that
``pip install lmdk-explorer`` followed by ``lmdk explore`` works from any folder. Nothing
here is imported by the engine except :data:`APP_DIR` (``lmdk_core`` never imports
streamlit).
"""

from __future__ import annotations

from pathlib import Path

#: the folder holding ``app.py``, ``app_pages/``, ``app_support/``, ``assets/`` and
#: ``streamlit_config.toml`` in an installed wheel
APP_DIR = Path(__file__).resolve().parent
