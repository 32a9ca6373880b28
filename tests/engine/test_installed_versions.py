"""lmdk_core.foundation.installed_versions.installed_version gives
importlib.metadata.version's answer: on every distribution installed here, on made-up
layouts of distribution directories, and on generated METADATA texts."""

from __future__ import annotations

import importlib.metadata
import itertools
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmdk_core.foundation import installed_versions
from lmdk_core.foundation.installed_versions import installed_version
from lmdk_core.report.render import VERSIONED_LIBRARIES

_fresh = itertools.count()


_FRESH = """
import importlib.metadata, json, sys
from lmdk_core.foundation import installed_versions as iv
names = sorted({d.metadata["Name"] for d in importlib.metadata.distributions()})
wrong, direct = [], []
for name in names:
    for spelling in (name, name.upper(), name.replace("-", "_"), name.replace("_", ".")):
        if iv.installed_version(spelling) != importlib.metadata.version(spelling):
            wrong.append(spelling)
    if iv._plain_version(name) == importlib.metadata.version(name):
        direct.append(name)
print(json.dumps({"names": names, "wrong": wrong, "direct": direct}))
"""


@pytest.fixture(scope="module")
def fresh_process() -> dict:
    """Every installed distribution compared in a fresh interpreter, as ``lmdk`` runs
    (in this test process a plugin may have imported the ``importlib_metadata``
    backport, whose finder sends every lookup to ``importlib.metadata``)."""
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_every_installed_distribution(fresh_process):
    assert len(fresh_process["names"]) > 10
    assert fresh_process["wrong"] == []
    names = {d.metadata["Name"] for d in importlib.metadata.distributions()}
    for name in sorted(names):  # and in this process, whatever its finders
        assert installed_version(name) == importlib.metadata.version(name), name


@pytest.mark.parametrize("name", ["lmdk-explorer", *VERSIONED_LIBRARIES])
def test_the_reports_versions_are_read_without_importlib_metadata(fresh_process, name):
    """What the report lists takes the direct path in a fresh process (else the test
    above would compare importlib.metadata with itself)."""
    assert name in fresh_process["direct"]


def test_another_distribution_finder_sends_every_lookup_to_importlib_metadata(
        monkeypatch):
    class Finder:
        @staticmethod
        def find_distributions(context=None):
            return iter(())

        @staticmethod
        def find_spec(*args, **kwargs):
            return None

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    assert installed_versions._plain_version("numpy") is None
    assert installed_version("numpy") == importlib.metadata.version("numpy")


def _layout(root, entries: dict[str, str | None]) -> None:
    """Distribution directories under ``root``: name -> METADATA text (None: no file)."""
    for directory, text in entries.items():
        d = root / directory
        d.mkdir()
        if text is not None:
            (d / "METADATA").write_bytes(text.encode())


def _both(name: str):
    """(installed_version, importlib.metadata.version) of ``name``, or the exception's
    type for each."""
    out: list = []
    for f in (installed_version, importlib.metadata.version):
        try:
            out.append(f(name))
        except Exception as exc:  # noqa: BLE001 - the same failure is the same answer
            out.append(type(exc))
    return out


LAYOUTS = {
    "plain": ({"Fake_Dist-1.2.dist-info": "Metadata-Version: 2.1\nName: fake-dist\n"
                                          "Version: 1.2.post3\n\nbody\n"}, "fake.dist"),
    "crlf, lower-case key, blanks": ({"fake_dist-9.dist-info": "Name: fake-dist\r\n"
                                      "version: \t 9.0  \r\n\r\n"}, "FAKE-DIST"),
    "folded": ({"fake_dist-1.dist-info": "Name: x\nVersion: 1\n  .0\n\n"}, "fake-dist"),
    "no version": ({"fake_dist-1.dist-info": "Name: x\n\nVersion: 2\n"}, "fake-dist"),
    "two matches": ({"fake_dist-1.dist-info": "Version: 1\n",
                     "Fake.Dist-2.dist-info": "Version: 2\n"}, "fake-dist"),
    "egg-info": ({"fake_dist-3.egg-info": None}, "fake-dist"),
    "egg-info with METADATA": ({"fake_dist-5.egg-info": "Version: 5.5\n"}, "fake-dist"),
    "egg-info file": ({}, "fake-dist"),
    "no METADATA": ({"fake_dist-4.dist-info": None}, "fake-dist"),
    "empty METADATA": ({"fake_dist-4.dist-info": ""}, "fake-dist"),
    "not installed": ({"other-1.dist-info": "Version: 1\n"}, "fake-dist"),
}


@pytest.mark.parametrize("case", list(LAYOUTS))
def test_made_up_layouts(tmp_path, monkeypatch, case):
    entries, name = LAYOUTS[case]
    root = tmp_path / f"site{next(_fresh)}"
    root.mkdir()
    _layout(root, entries)
    if case == "egg-info":
        (root / "fake_dist-3.egg-info" / "PKG-INFO").write_text("Name: fake\nVersion: 3\n")
    if case == "egg-info with METADATA":
        (root / "fake_dist-5.egg-info" / "PKG-INFO").write_text("Version: 5.6\n")
    if case == "egg-info file":
        (root / "fake_dist-6.egg-info").write_text("Name: fake\nVersion: 6\n")
    if case in ("no METADATA", "empty METADATA"):
        (root / "fake_dist-4.dist-info" / "PKG-INFO").write_text("Version: 4.1\n")
    monkeypatch.syspath_prepend(str(root))
    got, want = _both(name)
    assert got == want


_value = st.text(alphabet=" \t.+-_!x0123456789é", max_size=8)
_line_end = st.sampled_from(["\n", "\r\n", "\r"])
_header = st.tuples(st.sampled_from(["Name", "Version", "VERSION", "version", "Summary",
                                     "Ver sion", "Version ", " Version", "Vérsion", "From "]),
                    st.sampled_from([":", ": ", ":\t", ""]), _value, _line_end)
_continuation = st.tuples(st.sampled_from([" ", "\t"]), _value, _line_end)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(_header, _continuation), max_size=6),
       st.sampled_from(["", "\n", "\n\nVersion: 7\n"]))
def test_generated_metadata(tmp_path, monkeypatch, lines, tail):
    text = "".join("".join(part) for part in lines) + tail
    root = tmp_path / f"site{next(_fresh)}"
    root.mkdir()
    _layout(root, {"gen_dist-0.dist-info": text})
    with monkeypatch.context() as mp:
        mp.syspath_prepend(str(root))
        got, want = _both("gen-dist")
    assert got == want, repr(text)
