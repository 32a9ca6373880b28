"""Landmark Privacy Explorer engine.

Differential privacy for time series and trajectories in which a few significant
events (landmarks) are protected together while every regular event is protected on
its own. Pure Python + numpy/pandas/scipy; never imports streamlit.

Importing this package imports nothing else (not even ``importlib.metadata``, which
costs 35–40 ms of CPU): the ``lmdk`` command loads only what each sub-command uses.
"""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """``lmdk_core.__version__``, looked up in the installed metadata on first use
    (:func:`lmdk_core.foundation.installed_versions.installed_version`: what
    ``importlib.metadata.version`` gives, mostly without importing it)."""
    if name != "__version__":
        raise AttributeError(f"module 'lmdk_core' has no attribute {name!r}")
    from lmdk_core.foundation.installed_versions import installed_version

    # "+src": running from a source tree that was not installed
    value = installed_version("lmdk-explorer", default="0.1.0+src")
    globals()["__version__"] = value
    return value
