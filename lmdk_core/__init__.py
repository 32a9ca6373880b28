"""Landmark Privacy Explorer engine.

Differential privacy for time series and trajectories in which a few significant
events (landmarks) are protected together while every regular event is protected on
its own. Pure Python + numpy/pandas/scipy; never imports streamlit.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lmdk-explorer")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.1.0+src"

__all__ = ["__version__"]
