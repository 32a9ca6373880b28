"""``lmdk batch``: release a whole population with a configuration saved from the app.

    lmdk batch --config view.json --input data.parquet --user-col user --time-col time \
        --value-col kwh [--landmark-col event] --output released.parquet \
        --audit audit.parquet [--scheduler tcp://host:8786] [--workers N] [--seed S] \
        [--noise exact|fast] [--no-leakage] [--progress] [--json]

Tracks: ``--lat-col`` and ``--lon-col`` instead of ``--value-col``. The publishable
output holds only user, time and the released value (or released lat/lon); the audit is
CONFIDENTIAL. Nothing heavy (dask, pandas) is imported until the command runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lmdk_core.population.table import PopulationColumns

from lmdk_core.cli.bounded import bounded
from lmdk_core.foundation.plurals import agree, counted


def _provenance(path: str) -> dict:
    """The input's name and SHA-256 (None for a folder of Parquet parts)."""
    import os

    from lmdk_core.data.digest import file_sha256

    p = os.fspath(path)
    if not os.path.isfile(p):
        return {"name": os.path.basename(p.rstrip("/")), "sha256": None}
    return {"name": os.path.basename(p), "sha256": file_sha256(p)}


def _cmd_batch(args: argparse.Namespace) -> int:
    import contextlib

    from lmdk_core.cli.batch_progress import BatchProgress
    from lmdk_core.data.tables import read_bytes
    from lmdk_core.files.config import config_from_json
    from lmdk_core.files.output_paths import check_outputs
    from lmdk_core.population.dask_driver import (
        BatchStopped,
        check_scheduler_address,
        run_batch,
    )

    check_outputs({"--input": args.input, "--config": args.config},
                  {"--output": args.output, "--audit": args.audit},
                  allow_folder=frozenset({"--output"}))
    if args.scheduler is not None:
        check_scheduler_address(args.scheduler)
    cfg = config_from_json(read_bytes(args.config, f"the configuration {args.config}"))
    if args.region is not None:  # the declared region of an exact track release
        cfg = dataclasses.replace(cfg, extra={**cfg.extra, "region": args.region})
    cols = columns_from_args(args)
    shown = args.progress or sys.stderr.isatty()
    try:
        with BatchProgress() if shown else contextlib.nullcontext() as progress:
            res = run_batch(cfg, args.input, cols, args.output, args.audit,
                            scheduler=args.scheduler, workers=args.workers, seed=args.seed,
                            noise=args.noise, leakage=not args.no_leakage,
                            progress=progress.partition_done if progress else None,
                            other_inputs={"--config": args.config})
    except BatchStopped as exc:
        print(f"lmdk: {exc}; the temporary files were removed",
              file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("lmdk: interrupted; the temporary files were removed",
              file=sys.stderr)
        return 130
    return _report_batch(res, cfg, args)


def _report_batch(res, cfg, args: argparse.Namespace) -> int:
    """The summary of a finished batch (JSON or text) and its notes on stderr; exit status
    1 when no publishable file was written (some release is not landmark-private)."""
    from lmdk_core.cli.json_output import emit_json

    summary = {**res.to_dict(), "output": args.output if res.output_written else None,
               "audit": args.audit, "input": _provenance(args.input)}
    if args.json:
        emit_json(summary)
    else:
        _print_batch(res, summary["input"], args)
    _note_other_input(cfg.data_file, summary["input"])
    extra = cfg.extra if isinstance(cfg.extra, dict) else {}
    if res.output_written and cfg.scheme in ("uniform", "adaptive") and \
            extra.get("max_landmarks") is None:
        print("lmdk: note: the output is marked EXPLORATORY, not publishable: without a "
              "declared bound k each user's noise scale follows that user's landmark count; "
              "declare extra.max_landmarks in the configuration", file=sys.stderr)
    if not res.output_written:
        bad = counted(res.not_private, "user's release", "users' releases")
        print(f"lmdk: note: {bad} {agree(res.not_private, 'is', 'are')} NOT "
              "landmark-private under "
              "this configuration; no publishable file was written (see the audit)",
              file=sys.stderr)
        return 1
    return 0


def _print_batch(res, src: dict, args: argparse.Namespace) -> None:
    """The printout of ``lmdk batch``: what was released, the input, what was written, the
    users' utility."""
    print(f"released {counted(res.users, 'user')} ({counted(res.rows, 'row')}) in "
          f"{counted(res.partitions, 'partition')} on {counted(res.workers, 'worker')}; "
          f"noise: {res.noise}")
    print(f"input: {src['name']}" + (f" (SHA-256 {src['sha256']})" if src["sha256"] else ""))
    print(f"wrote {args.audit}: CONFIDENTIAL audit (per-user verdicts, leakage, errors)")
    if res.output_written:
        print(f"wrote {args.output}: publishable (released values only)")
    print(utility_summary(res, "m" if args.lat_col else ""))


def _note_other_input(made_on: dict | None, src: dict) -> None:
    """A note on stderr when the configuration was made on another file than the input
    (both known by SHA-256)."""
    if made_on and src["sha256"] and made_on["sha256"] != src["sha256"]:
        print(f"lmdk: note: the configuration was made on {made_on['name']} (SHA-256 "
              f"{made_on['sha256'][:12]}…); this input is another file", file=sys.stderr)


def utility_summary(res, unit: str = "") -> str:
    """One line on the users' utility (:mod:`lmdk_core.decision.utility`): how many releases are
    not useful, marginal, useful, and the median typical expected error."""
    from lmdk_core.decision.utility import format_amount

    c = res.utility_counts
    parts = [f"{c.get(k, 0):,} {k}" for k in ("useful", "marginal", "not judged")
             if c.get(k, 0) or k != "not judged"]
    med = ("" if res.median_expected_error is None else
           f"; median typical expected error {format_amount(res.median_expected_error, unit)}")
    head = (f"utility: {res.not_useful:,} of {res.users:,} users' releases "
            f"{agree(res.not_useful, 'is', 'are')} NOT USEFUL "
            "(typical expected error above half their data's spread or extent)"
            if res.not_useful else f"utility: no user's release is noise "
            f"({counted(res.users, 'user')})")
    return f"{head}; {', '.join(parts)}{med} (docs/utility.md)"


#: how :func:`batch_command_line` lays the options out, one line per group (by ``dest``)
COMMAND_LINES = (("config",), ("input",), ("user_col", "time_col"),
                 ("value_col", "lat_col", "lon_col"), ("landmark_col",), ("output", "audit"),
                 ("scheduler", "workers"),
                 ("seed", "noise", "region", "no_leakage", "progress", "json"))


def columns_from_args(args: argparse.Namespace) -> PopulationColumns:
    """The population table's columns named by ``lmdk batch``'s options."""
    from lmdk_core.population.table import PopulationColumns

    return PopulationColumns(user=args.user_col, time=args.time_col, value=args.value_col,
                             lat=args.lat_col, lon=args.lon_col, landmark=args.landmark_col)


def _batch_parser() -> argparse.ArgumentParser:
    """The ``lmdk batch`` parser exactly as the CLI registers it."""
    sub = argparse.ArgumentParser(prog="lmdk").add_subparsers(dest="command")
    register(sub)
    return sub.choices["batch"]


def batch_command_line(options: Mapping[str, object]) -> str:
    """The ``lmdk batch`` command for ``options`` (argparse ``dest`` → value: ``config``,
    ``input``, ``user_col``, …; None or False leave an option out, True writes a flag),
    its option names taken from the CLI's own parser and every value quoted for a POSIX
    shell with :func:`shlex.quote` (``--flag=value`` for a value starting with ``-``);
    one line per group of :data:`COMMAND_LINES`, joined by a backslash-newline.

    >>> print(batch_command_line({"config": "c.json", "input": "my data.csv",
    ...                           "user_col": "user", "time_col": "t", "value_col": "kWh",
    ...                           "output": "out.parquet", "audit": "audit.parquet"}))
    lmdk batch --config c.json \\
        --input 'my data.csv' \\
        --user-col user --time-col t \\
        --value-col kWh \\
        --output out.parquet --audit audit.parquet
    """
    actions = {a.dest: a for a in _batch_parser()._actions if a.option_strings}
    unknown = set(options) - set(actions)
    if unknown:
        raise ValueError(f"lmdk batch has no option for {sorted(unknown)}")
    lines = []
    for group in COMMAND_LINES:
        words: list[str] = []
        for dest in group:
            flag = max(actions[dest].option_strings, key=len)
            words += _option_words(flag, options.get(dest))
        if words:
            lines.append(" ".join(words))
    return " \\\n    ".join(["lmdk batch " + lines[0], *lines[1:]])


def _option_words(flag: str, value: object) -> list[str]:
    """The shell words of one option: none for None/False, the flag for True, else the
    flag and its quoted value (``--flag=value`` for a value starting with ``-``)."""
    if value is None or value is False:
        return []
    if value is True:
        return [flag]
    text = str(value)
    if text.startswith("-"):  # argparse would read '-x' as an option, not a value
        return [shlex.quote(f"{flag}={text}")]
    return [flag, shlex.quote(text)]


def batch_options(cols: PopulationColumns, source: str, *, landmark_col: str | None = None,
                  seed: int | None = None, config: str = "lmdk_batch_config.json",
                  output: str = "released.parquet",
                  audit: str = "CONFIDENTIAL_audit.parquet") -> dict[str, object]:
    """The options of :func:`batch_command_line` for a population table read with the
    columns ``cols`` from ``source``: the value column of a series, the latitude and
    longitude of a track; ``landmark_col`` only when the file's flags are used."""
    return {"config": config, "input": source, "user_col": cols.user, "time_col": cols.time,
            **({"value_col": cols.value} if cols.kind == "series"
               else {"lat_col": cols.lat, "lon_col": cols.lon}),
            "landmark_col": landmark_col, "output": output, "audit": audit, "seed": seed}


def register(sub) -> None:
    """Add ``batch`` to the ``lmdk`` sub-commands."""
    p = sub.add_parser("batch", help="release a whole population (long table) on Dask")
    p.add_argument("--config", required=True, help="configuration JSON saved from the app")
    p.add_argument("--input", required=True, help="long table: .parquet (file or folder) or .csv")
    p.add_argument("--user-col", required=True, help="column of the user ids")
    p.add_argument("--time-col", required=True,
                   help="column of the times (whole numbers or ISO 8601 dates)")
    p.add_argument("--value-col", help="series values (Laplace / Geometric)")
    p.add_argument("--lat-col", help="track latitudes (Planar Laplace)")
    p.add_argument("--lon-col", help="track longitudes (Planar Laplace)")
    p.add_argument("--landmark-col", help="landmark flags (1/true); without it the landmarks "
                   "are discovered per user with the app's detectors")
    p.add_argument("--output", required=True, help="publishable file (.parquet or .csv)")
    p.add_argument("--audit", required=True, help="CONFIDENTIAL audit (.parquet or .csv)")
    p.add_argument("--scheduler", help="address of an existing Dask scheduler "
                   "(tcp://host:8786); default: a local cluster")
    p.add_argument("--workers", type=bounded("workers", "--workers"),
                   help="local workers (default: one per core)")
    p.add_argument("--seed", type=bounded("seed", "--seed"),
                   help="reproducible per-user streams (default: fresh OS entropy); never "
                        "written to the publishable file")
    p.add_argument("--noise", choices=["exact", "fast"], default="exact",
                   help="exact: exact noise, for publication (series: discrete Laplace; "
                        "tracks: exact Planar Laplace on the grid of --region); fast: numpy, "
                        "reproducible with --seed, for exploration")
    p.add_argument("--region", default=None, metavar="LAT,LON[,KM]",
                   help="tracks with --noise exact: the declared public region holding every "
                        "track (centre in degrees, radius in km, default 1000); overrides "
                        "the configuration's extra.region")
    p.add_argument("--no-leakage", action="store_true",
                   help="skip the landmark TPL column of the audit (faster)")
    p.add_argument("--progress", action="store_true",
                   help="a progress line on stderr (partitions, users released, rate, time) "
                        "even when stderr is not a terminal (on a terminal: always)")
    p.add_argument("--json", action="store_true", help="one JSON summary on stdout")
    p.set_defaults(handler=_cmd_batch)
