"""The ``lmdk`` command line (contract in docs/cli.md and docs/definitions.md).

Each group of sub-commands lives in its own module exposing ``register(subparsers)``;
every sub-command's handler takes the parsed arguments and returns an exit status.
Bad input of any kind ends with exit status 2 and one line on stderr, never a
traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from lmdk_core.cli.bounded import OptionOutOfRange
from lmdk_core.validation import InputError

__all__ = ["main", "build_parser", "emit_json"]


class _HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, when it has one worth showing (not for
    required options, flags, or help that already states it)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        setting = getattr(action.type, "setting", None)
        if setting:  # a bounded number: its range from the setting table
            from lmdk_core.setting_limits import LIMITS

            text = f"{text}; {LIMITS[setting].describe()}"
        default = action.default
        if (action.required or default is None or default is False
                or default is argparse.SUPPRESS or "default" in text or not action.option_strings):
            return text
        shown = "none" if default == "" else "%(default)s"
        return f"{text} (default: {shown})"


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


def _jsonable(obj):
    import numpy as np

    if isinstance(obj, np.ndarray):
        return [_jsonable(x) for x in obj.tolist()]
    if isinstance(obj, (np.floating, float)):
        x = float(obj)
        return x if np.isfinite(x) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(x) for x in obj]
    return obj


def emit_json(obj: dict) -> None:
    """Print one JSON object on stdout (NaN/inf become null)."""
    print(json.dumps(_jsonable(obj), allow_nan=False))


def build_parser() -> argparse.ArgumentParser:
    """The full ``lmdk`` parser with every sub-command registered."""
    from lmdk_core.cli import (
        batch_commands,
        choose_commands,
        dummy_commands,
        explore_command,
        leakage_commands,
        release_commands,
        report_commands,
    )

    groups = [release_commands, dummy_commands, leakage_commands, report_commands,
              choose_commands, batch_commands, explore_command]
    parser = _Parser(prog="lmdk", description="Landmark Privacy Explorer command line.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for group in groups:
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lmdk`` console script."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.handler(args) or 0)
    except (InputError, OptionOutOfRange) as exc:
        print(f"lmdk: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `lmdk ... | head`: the reader left, nothing to report
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        print(f"lmdk: error: {exc.strerror or exc} ({exc.filename or ''})".rstrip(" ()"),
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lmdk: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: still one line, never a traceback
        print(f"lmdk: error: unexpected {type(exc).__name__}: {exc}".splitlines()[0],
              file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
