"""The ``lmdk batch`` command the Population page shows: built from the CLI's own option
definitions, quoted with shlex, and read back by a real shell and the CLI's parser into
the same settings."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.cli import build_parser
from lmdk_core.cli.batch_commands import (
    _batch_parser,
    batch_command_line,
    batch_options,
    columns_from_args,
)
from lmdk_core.population.table import PopulationColumns

# column and file names a user's table may have: quotes, spaces, $, backticks, unicode
names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20)


def shell_words(command: str) -> list[str]:
    """The words a POSIX shell passes to ``lmdk`` for ``command`` (line continuations,
    quoting and all), from a real ``sh``: ``lmdk`` is a function that prints its
    arguments NUL-separated."""
    script = "lmdk() { printf '%s\\0' \"$@\"; }\n" + command
    out = subprocess.run(["sh", "-c", script], capture_output=True, check=True).stdout
    return out.decode("utf-8", "surrogateescape").split("\0")[:-1]


@settings(max_examples=30, deadline=None)
@given(st.lists(names, min_size=5, max_size=5, unique=True), names,
       st.booleans(), st.booleans(), st.one_of(st.none(), st.integers(0, 2**128 - 1)))
def test_the_command_reproduces_the_settings_through_shell_and_parser(cols, source, track,
                                                                       flags, seed):
    user, time, a, b, landmark = cols
    pop_cols = (PopulationColumns(user, time, lat=a, lon=b, landmark=landmark) if track
                else PopulationColumns(user, time, value=a, landmark=landmark))
    command = batch_command_line(batch_options(
        pop_cols, source, landmark_col=landmark if flags else None, seed=seed))
    words = shell_words(command)
    assert words[0] == "batch"
    args = build_parser().parse_args(words)
    assert args.handler.__name__ == "_cmd_batch"
    assert (args.config, args.input, args.output, args.audit) == (
        "lmdk_batch_config.json", source, "released.parquet", "CONFIDENTIAL_audit.parquet")
    expected = pop_cols if flags else PopulationColumns(
        user, time, value=pop_cols.value, lat=pop_cols.lat, lon=pop_cols.lon)
    assert columns_from_args(args) == expected
    assert args.seed == seed


def test_safe_names_read_as_written_and_unsafe_ones_are_quoted():
    cols = PopulationColumns("user", "time", value="kwh")
    assert batch_command_line(batch_options(cols, "population.parquet", seed=7)) == (
        "lmdk batch --config lmdk_batch_config.json \\\n"
        "    --input population.parquet \\\n"
        "    --user-col user --time-col time \\\n"
        "    --value-col kwh \\\n"
        "    --output released.parquet --audit CONFIDENTIAL_audit.parquet \\\n"
        "    --seed 7")
    evil = batch_command_line(batch_options(cols, "x'; rm -rf ~; echo '$(id).csv"))
    assert shell_words(evil)[4] == "x'; rm -rf ~; echo '$(id).csv"


def test_every_option_name_comes_from_the_cli():
    flags = {max(a.option_strings, key=len) for a in _batch_parser()._actions
             if a.option_strings}
    command = batch_command_line({"config": "c", "input": "i", "user_col": "u",
                                  "time_col": "t", "value_col": "v", "output": "o",
                                  "audit": "a", "no_leakage": True, "noise": "fast"})
    assert {w for w in command.split() if w.startswith("--")} <= flags
    assert "--no-leakage" in command and "--noise fast" in command
    with pytest.raises(ValueError, match="no option"):
        batch_command_line({"config": "c", "colour": "red"})
