"""The README is a landing page (short, the two commands in its first screen with the
Python, time and size they need) and every relative link of the README, CONTRIBUTING.md,
SECURITY.md and docs/*.md points to a file of the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "SECURITY.md",
         *sorted((ROOT / "docs").glob("*.md")), ROOT / "examples" / "README.md"]


def test_readme_is_a_landing_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, len(lines)
    first_screen = "\n".join(lines[:25])
    for needed in ("./run.sh app", "./run.sh test", "Python 3.11", "2 minutes", "1.3 GB",
                   ".venv/bin/lmdk"):
        assert needed in first_screen, needed
    text = "\n".join(lines)
    for needed in ("docs/img/timeline.png", "What you may publish", "LICENSE",
                   "Katsomallos", "CODASPY", "OpenDP", "Planar Laplace", "no login"):
        assert needed in text, needed
    assert (ROOT / "docs" / "img" / "timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if not (page.parent / path).exists():
            broken.append(target)
    assert not broken, broken
