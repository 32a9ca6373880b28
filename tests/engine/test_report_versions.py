"""The report lists the numerical libraries' versions from their installed metadata
(lmdk_core.report.render.library_version) without importing them: the same strings as
their ``__version__``."""

from __future__ import annotations

import importlib

import pytest

from lmdk_core.report.render import VERSIONED_LIBRARIES, library_version


@pytest.mark.parametrize("name", VERSIONED_LIBRARIES)
def test_metadata_version_is_the_modules_version(name):
    assert library_version(name) == importlib.import_module(name).__version__
