"""The ``lmdk`` command line (contract in docs/cli.md and docs/definitions.md).

Each group of sub-commands lives in its own module exposing ``register(subparsers)``;
every sub-command's handler takes the parsed arguments and returns an exit status.
Bad input of any kind ends with exit status 2 and one line on stderr, never a
traceback. ``--debug`` (before or after the sub-command) or ``LMDK_DEBUG=1`` prints the
full traceback above that line; every error is also logged (``logging`` logger
``lmdk_core.cli``, silent unless the caller configures logging).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from lmdk_core.cli.bounded import OptionOutOfRange
from lmdk_core.foundation.errors import InputError

__all__ = ["main", "build_parser", "debug_requested", "requested_command", "COMMAND_GROUPS"]

DEBUG_HELP = "on an error, print the full traceback (also: environment LMDK_DEBUG=1)"


class _HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, when it has one worth showing (not for
    required options, flags, or help that already states it)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        setting = getattr(action.type, "setting", None)
        if setting:  # a bounded number: its range from the setting table
            from lmdk_core.foundation.setting_limits import LIMITS

            text = f"{text}; {LIMITS[setting].describe()}"
        if not _shows_default(action, text):
            return text
        shown = "none" if action.default == "" else "%(default)s"
        return f"{text} (default: {shown})"


def _shows_default(action: argparse.Action, text: str) -> bool:
    """Whether an option's help should end with its default: not for required options,
    flags, positionals, no default, or help that already states it."""
    default = action.default
    hidden = (default is None or default is False or default is argparse.SUPPRESS)
    return not (action.required or hidden or "default" in text or not action.option_strings)


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line (raised, then printed by main) and
    shows every option's default in ``--help``."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D401 - argparse API
        raise InputError(f"{message} (see: {self.prog} --help)")


class _VersionAction(argparse.Action):
    """``--version``; the installed version is looked up only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show the version and exit"):  # noqa: A002 - argparse API
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from lmdk_core import __version__

        print(f"lmdk {__version__}")
        parser.exit()


#: the modules of the sub-command groups (each registers its commands), in the order of
#: ``lmdk --help``, with the commands each registers (tests/cli/test_cli_startup.py checks
#: this table against what they register)
COMMAND_GROUPS = {
    "release_commands": ("allocate", "check", "release", "geo-release"),
    "dummy_commands": ("dummies", "suggest"),
    "leakage_commands": ("loss", "leakage", "supremum", "calibrate"),
    "report_commands": ("report",),
    "choose_commands": ("solve-epsilon", "attack", "compose"),
    "batch_commands": ("batch",),
    "aggregate_commands": ("aggregate",),
    "explore_command": ("explore",),
}


def requested_command(argv: Sequence[str]) -> str | None:
    """The sub-command named on the command line: the first word that is not an option
    of ``lmdk`` itself (``--debug``; ``--help`` and ``--version`` name none), when it is
    a known command; else None."""
    for word in argv:
        if word == "--debug":
            continue
        if any(word in commands for commands in COMMAND_GROUPS.values()):
            return word
        return None
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``lmdk`` parser with every sub-command registered; with ``command`` (a
    sub-command's name, :func:`requested_command`) only that command's group: it parses
    that command's line exactly as the full parser does (same help, same messages),
    without importing the other groups' modules (``lmdk report`` 20–30 ms of CPU)."""
    import importlib

    names = [m for m, commands in COMMAND_GROUPS.items() if command in commands] or list(
        COMMAND_GROUPS)
    groups = [importlib.import_module(f"lmdk_core.cli.{m}") for m in names]
    parser = _Parser(prog="lmdk", description="Landmark Privacy Explorer command line.")
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for group in groups:
        group.register(sub)
    for command_parser in sub.choices.values():  # also accepted after the sub-command
        command_parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                                    help=DEBUG_HELP)
    return parser


def debug_requested(argv: Sequence[str]) -> bool:
    """Whether to print tracebacks: ``LMDK_DEBUG`` set (not empty, not 0) or
    ``--debug`` on the command line (looked up before parsing, so that an error while
    parsing is shown in full too)."""
    return os.environ.get("LMDK_DEBUG", "").strip() not in ("", "0") or "--debug" in argv


def _fail(exc: BaseException, line: str, status: int, debug: bool, *,
          unexpected: bool = False) -> int:
    """Report an error: the traceback when debugging, then ``line`` (always one line);
    the exception is logged (``ERROR`` for a bug, ``INFO`` for bad input)."""
    import logging

    log = logging.getLogger(__name__)
    if not log.handlers:  # without the caller's logging set-up, nothing reaches stderr
        log.addHandler(logging.NullHandler())
    log.log(logging.ERROR if unexpected else logging.INFO, "%s", line, exc_info=exc)
    if debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    print(line, file=sys.stderr)
    return status


#: the variables OpenBLAS (numpy's BLAS) reads for its thread count when numpy loads it
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _load_numpy_with_one_blas_thread() -> None:
    """Import numpy with OpenBLAS limited to one thread, unless numpy is already loaded
    or the caller chose a thread count (one of :data:`_BLAS_THREAD_VARIABLES` set).

    OpenBLAS starts its worker threads when numpy loads it, and they spin while they
    wait for work: on the project's 2-core machine ``import numpy`` costs 0.21 instead
    of 0.28 s of CPU with one thread (median of 10 paired runs, docs/performance.md,
    "The 0.5 s target"). The commands' matrices are small (the BLAS calls of the engine:
    a least-squares solve of n + 1 equations, one n × n by n × k product of the pruned
    loss build), so one thread costs them nothing measurable (``lmdk loss`` at 256
    states, same page). The variable is removed again once numpy is loaded: processes
    the command starts (``lmdk explore``'s Streamlit server) get the caller's
    environment."""
    if "numpy" in sys.modules or any(v in os.environ for v in _BLAS_THREAD_VARIABLES):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401 - loaded here for its BLAS thread count
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lmdk`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = debug_requested(argv)
    try:
        _load_numpy_with_one_blas_thread()
        parser = build_parser(requested_command(argv))
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.handler(args) or 0)
    except (InputError, OptionOutOfRange) as exc:
        return _fail(exc, f"lmdk: error: {exc}", 2, debug)
    except BrokenPipeError:  # e.g. `lmdk ... | head`: the reader left, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        return _fail(exc, _os_error_line(exc), 2, debug)
    except KeyboardInterrupt as exc:
        return _fail(exc, "lmdk: interrupted", 130, debug)
    except Exception as exc:  # a bug: one line (the traceback with --debug)
        line = f"lmdk: error: unexpected {type(exc).__name__}: {exc}".splitlines()[0]
        return _fail(exc, line, 2, debug, unexpected=True)


def _os_error_line(exc: OSError) -> str:
    """The one line of a file-system error: its reason and the file it concerns."""
    return f"lmdk: error: {exc.strerror or exc} ({exc.filename or ''})".rstrip(" ()")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
