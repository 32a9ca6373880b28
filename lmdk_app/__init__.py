"""The Streamlit app as installed data: ``lmdk explore`` runs ``app.py`` from here.

In a source checkout the entries of this folder are links to the repository's
``app.py``, ``app_pages/``, ``app_support/``, ``assets/`` and ``.streamlit/config.toml``;
a wheel holds copies of them, so that ``pip install .`` followed by ``lmdk explore``
works from any folder. Nothing here is imported by the engine (``lmdk_core`` never
imports streamlit).
"""

from __future__ import annotations

from pathlib import Path

#: the folder holding ``app.py``, ``app_pages/``, ``app_support/``, ``assets/`` and
#: ``streamlit_config.toml``
APP_DIR = Path(__file__).resolve().parent
