"""`lmdk <command> --help` describes every option and shows every default."""

from __future__ import annotations

import argparse

import pytest

from lmdk_core.cli import build_parser
from tests.conftest import run_cli

PARSER = build_parser()
SUBCOMMANDS = next(a for a in PARSER._actions
                   if isinstance(a, argparse._SubParsersAction)).choices


def _options(sub: argparse.ArgumentParser):
    return [a for a in sub._actions if not isinstance(a, argparse._HelpAction)]


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_option_has_help_and_shows_its_default(name):
    sub = SUBCOMMANDS[name]
    formatter = sub._get_formatter()
    for action in _options(sub):
        flag = action.option_strings[0] if action.option_strings else action.dest
        assert action.help and action.help.strip(), f"lmdk {name} {flag}: no help text"
        shown = formatter._expand_help(action)  # the text --help prints for it
        meaningful = action.default not in (None, False, argparse.SUPPRESS)
        if meaningful and not action.required:
            assert "default" in shown, f"lmdk {name} {flag}: default {action.default!r} not shown"


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_help_prints_and_exits_0(name):
    proc = run_cli(name, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: lmdk " + name in proc.stdout


def test_silent_defaults_are_in_the_help():
    """Δf = 1, k = 5 and r = 100 m are applied when not given, so the help says so."""
    text = " ".join(run_cli("release", "--help").stdout.split())
    assert "default 1)" in text and "(default 5)" in text
    assert "(default: 100.0)" in run_cli("geo-release", "--help").stdout
