"""CONTRIBUTING.md's checklists name real files: every path they quote (``lmdk_core/…``,
``app_pages/…``, ``tests/…``, ``docs/…``) exists, placeholders such as ``<name>`` aside,
and every name a checklist says to edit (``SCHEMES``, ``READERS``, …) is defined where it
says."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _checklists() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    m = re.search(r"^## Checklists\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, "CONTRIBUTING.md has a '## Checklists' section"
    return m.group(1)


def test_the_four_checklists_are_there():
    text = _checklists()
    for what in ("a mechanism", "a budget scheme", "a page", "a file format"):
        assert f"**Add {what}**" in text


def test_every_path_in_the_checklists_exists():
    missing = []
    for m in re.finditer(r"`((?:lmdk_core|app_pages|app_support|tests|docs|tools|benchmarks)"
                         r"/[^`\s]*|app\.py)`", _checklists()):
        path = m.group(1)
        if "<" in path:  # a placeholder: its folder must exist
            path = path.split("<", 1)[0].rsplit("/", 1)[0]
        if not (ROOT / path.rstrip("/")).exists():
            missing.append(m.group(1))
    assert not missing, f"CONTRIBUTING.md's checklists name files that do not exist: {missing}"


def test_the_names_the_checklists_point_at_are_defined_there():
    pairs = {"SCHEMES": "lmdk_core/engine/allocation.py",
             "NUMERIC_MECHANISMS": "lmdk_core/engine/release.py",
             "LINEAR_SCHEMES": "lmdk_core/figures/epsilon_preview.py",
             "READERS": "lmdk_core/data/track_loading.py",
             "FORMAT_NAMES": "lmdk_core/data/file_formats.py",
             "AppSettings": "app_support/app_settings.py",
             "_cases": "tests/engine/test_mechanism_contract.py"}
    text = _checklists()
    for name, path in pairs.items():
        assert f"`{name}`" in text or f"`{name}()`" in text, name
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^(?:class |def )?{re.escape(name)}\b", source, re.M), (name, path)
