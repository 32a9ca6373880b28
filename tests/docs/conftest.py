"""Fixtures of the docs and code-structure tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def measure():
    """tools/measure_code.py loaded as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location("measure_code",
                                                  ROOT / "tools" / "measure_code.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)
