"""The report's compiled templates kept on disk (lmdk_core.report.templating): the same
documents, byte for byte, whether the templates were compiled in this run, read back,
or their cache is damaged, missing or cannot be written; nothing written when Python
writes no bytecode."""

from __future__ import annotations

import sys
from pathlib import Path

import jinja2
import pytest

from lmdk_core.cli.report_commands import _report_config
from lmdk_core.report import templating
from lmdk_core.report.compute import compute_report
from lmdk_core.report.release_note import published_noise, render_release_note
from lmdk_core.report.render import render_html

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def documents():
    """The example view's report and public note, rendered by environments the tests
    choose (the date is fixed by compute_report's ``now``)."""
    import datetime as dt

    cfg = _report_config(str(EXAMPLES / "lmdk_view.json"), None)
    rd = compute_report(cfg, now=dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.UTC))
    noise = published_noise(cfg)

    def render(env: jinja2.Environment) -> tuple[str, str]:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(templating, "_environment", lambda: env)
            return render_html(rd), render_release_note(rd, noise)

    return render


@pytest.fixture
def writes_bytecode(monkeypatch):
    """Python writing bytecode (this workspace sets PYTHONDONTWRITEBYTECODE)."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _no_compiling(monkeypatch):
    def refuse(self, *args, **kwargs):
        raise AssertionError("a template was compiled")

    monkeypatch.setattr(jinja2.Environment, "compile", refuse)


@pytest.mark.usefixtures("writes_bytecode")
def test_compiled_once_then_read_back_the_same(documents, tmp_path, monkeypatch):
    want = documents(templating.template_environment(None))
    cache = tmp_path / "cache"
    assert documents(templating.template_environment(str(cache))) == want
    written = sorted(cache.iterdir())
    assert written  # the report's and the note's templates
    _no_compiling(monkeypatch)
    assert documents(templating.template_environment(str(cache))) == want


@pytest.mark.usefixtures("writes_bytecode")
def test_a_damaged_cache_is_compiled_again(documents, tmp_path):
    want = documents(templating.template_environment(None))
    cache = tmp_path / "cache"
    documents(templating.template_environment(str(cache)))
    for i, f in enumerate(sorted(cache.iterdir())):
        f.write_bytes(f.read_bytes()[: 40 * i])  # empty, a header only, cut short
    assert documents(templating.template_environment(str(cache))) == want


@pytest.mark.usefixtures("writes_bytecode")
def test_a_cache_that_cannot_be_written_is_skipped(documents, tmp_path):
    want = documents(templating.template_environment(None))
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    assert documents(templating.template_environment(str(blocked / "cache"))) == want


def test_nothing_is_written_without_bytecode(documents, tmp_path, monkeypatch):
    want = documents(templating.template_environment(None))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache = tmp_path / "cache"
    assert documents(templating.template_environment(str(cache))) == want
    assert not cache.exists()


def test_the_cache_is_beside_the_templates_and_not_package_data():
    """Python's own bytecode folder (ignored by git) under the templates; the package
    data globs take only the templates and their style sheets."""
    import tomllib

    here = Path(templating.__file__).parent
    assert Path(templating.TEMPLATE_CACHE) == here / "templates" / "__pycache__"
    root = Path(__file__).resolve().parents[2]
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["lmdk_core.report"]
    assert all(g.startswith("templates/*.") for g in data)
