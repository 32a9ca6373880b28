"""``lmdk --debug`` / ``LMDK_DEBUG=1``: the full traceback of an error, which is also
logged; without them an error stays one line on stderr with the same exit status."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from lmdk_core.cli import leakage_commands
from tests.conftest import ROOT, assert_clean_error, run_cli

LOSS = ["loss", "--matrix", str(ROOT / "examples" / "P.csv"), "--alpha", "1", "--json"]
BUG = "lmdk: error: unexpected RuntimeError: a bug in the handler"


@pytest.fixture
def buggy_loss(monkeypatch):
    """``lmdk loss`` whose handler fails the way a bug would (not bad input)."""

    def handler(args):
        raise RuntimeError("a bug in the handler\nsecond line of the message")

    monkeypatch.setattr(leakage_commands, "_cmd_loss", handler)
    monkeypatch.delenv("LMDK_DEBUG", raising=False)


def _traceback_then_line(stderr: str, line: str) -> None:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines[0] == "Traceback (most recent call last):", stderr
    assert any(ln.strip().startswith('File "') for ln in lines), stderr
    assert lines[-1] == line, stderr


def test_a_bug_is_one_line_and_logged_without_debug(buggy_loss, caplog):
    with caplog.at_level(logging.INFO, logger="lmdk_core.cli"):
        proc = run_cli(*LOSS)
    assert_clean_error(proc, "unexpected RuntimeError: a bug in the handler")
    assert proc.stderr.strip() == BUG
    [record] = [r for r in caplog.records if r.name == "lmdk_core.cli"]
    assert record.levelno == logging.ERROR and record.getMessage() == BUG
    assert record.exc_info and isinstance(record.exc_info[1], RuntimeError)


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_flag_prints_the_traceback(buggy_loss, where):
    argv = ["--debug", *LOSS] if where == "before" else [*LOSS, "--debug"]
    proc = run_cli(*argv)
    assert proc.returncode == 2
    assert "RuntimeError: a bug in the handler" in proc.stderr
    _traceback_then_line(proc.stderr, BUG)


@pytest.mark.parametrize("value, shown", [("1", True), ("yes", True), ("0", False),
                                          ("", False)])
def test_lmdk_debug_environment_variable(buggy_loss, monkeypatch, value, shown):
    monkeypatch.setenv("LMDK_DEBUG", value)
    proc = run_cli(*LOSS)
    assert proc.returncode == 2
    if shown:
        _traceback_then_line(proc.stderr, BUG)
    else:
        assert proc.stderr.strip() == BUG


def test_bad_input_keeps_its_status_and_shows_where_it_was_raised(monkeypatch):
    monkeypatch.delenv("LMDK_DEBUG", raising=False)
    argv = ["check", "--allocation", "no-such-file.csv", "--epsilon", "1"]
    assert_clean_error(run_cli(*argv), "no such file")
    proc = run_cli("--debug", *argv)
    assert proc.returncode == 2
    assert "InputError: no such file" in proc.stderr
    _traceback_then_line(proc.stderr, "lmdk: error: no such file: `no-such-file.csv`")


def test_a_usage_error_with_debug_is_still_status_2(monkeypatch):
    monkeypatch.delenv("LMDK_DEBUG", raising=False)
    proc = run_cli("--debug", *LOSS, "--no-such-option")
    assert proc.returncode == 2
    _traceback_then_line(proc.stderr, "lmdk: error: unrecognized arguments: "
                                      "--no-such-option (see: lmdk --help)")


def test_debug_changes_nothing_when_all_goes_well(monkeypatch):
    monkeypatch.delenv("LMDK_DEBUG", raising=False)
    plain, debug = run_cli(*LOSS), run_cli("--debug", *LOSS)
    assert plain.returncode == debug.returncode == 0
    assert (plain.stdout, plain.stderr) == (debug.stdout, debug.stderr)


def test_a_real_process_prints_the_traceback_only_when_asked():
    argv = [sys.executable, "-m", "lmdk_core", "check", "--allocation", "no-such-file.csv",
            "--epsilon", "1"]
    env = {k: v for k, v in os.environ.items() if k != "LMDK_DEBUG"}
    plain = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=60,
                           env=env)
    assert_clean_error(plain, "no such file")
    debug = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=60,
                           env={**env, "LMDK_DEBUG": "1"})
    assert debug.returncode == 2
    _traceback_then_line(debug.stderr, "lmdk: error: no such file: `no-such-file.csv`")
