"""``lmdk aggregate``: statistics of a population per time window under landmark privacy.

    lmdk aggregate --input TABLE --user-col U --time-col T --window 1h \
        (--lat-col LAT --lon-col LON --cell 2000 | --value-col V --bounds LO,HI
         [--statistic sum|mean|count]) \
        [--landmark-times LIST | --landmark-col FLAG --landmarks-per-user K |
         --landmarks-per-user K] \
        --epsilon E --scheme uniform|skip|adaptive|event|w-event|user [--w W] \
        --output STATS.csv|.parquet [--audit CONFIDENTIAL.csv] [--json] \
        [--noise exact|fast] [--scheduler tcp://…]

The engine is :mod:`lmdk_core.aggregate` (docs/aggregate.md). Small tables are read in
process; a Parquet folder, a table of more than :data:`IN_PROCESS_ROWS` rows, or
``--scheduler`` goes through Dask (then the grids must be declared: ``--start``,
``--end`` and, for tracks, ``--bbox``). Exit status 1 when the release is not
landmark-private for some user (nothing publishable is written), 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lmdk_core.cli.bounded import bounded
from lmdk_core.foundation.plurals import counted

__all__ = ["IN_PROCESS_ROWS", "register"]

#: tables with more rows than this (estimated for a CSV) go through Dask
IN_PROCESS_ROWS = 3_000_000


def _bounds(text: str | None) -> tuple[float, float] | None:
    from lmdk_core.cli.bounded import parse_bounds

    return None if text is None else parse_bounds(text)


def _request(args: argparse.Namespace):
    """The :class:`~lmdk_core.aggregate.population_release.AggregateRequest` of the options."""
    from lmdk_core.aggregate.cells import parse_bbox
    from lmdk_core.aggregate.population_release import AggregateRequest
    from lmdk_core.aggregate.statistics import statistic
    from lmdk_core.aggregate.windows import parse_width
    from lmdk_core.foundation.errors import InputError
    from lmdk_core.foundation.validation import check_epsilon

    track = args.lat_col is not None or args.lon_col is not None
    if track and args.value_col is not None:
        raise InputError("give either --value-col (series) or --lat-col/--lon-col (tracks)")
    if track:
        if args.lat_col is None or args.lon_col is None or args.cell is None:
            raise InputError("tracks need --lat-col, --lon-col and --cell (the cell size in "
                             "metres)")
        stat = statistic("cells")
    elif args.value_col is not None:
        stat = statistic(args.statistic, _bounds(args.bounds))
    else:
        raise InputError("name --value-col (series) or --lat-col and --lon-col (tracks)")
    if args.seed is not None and args.noise == "exact":
        raise InputError("--seed applies to --noise fast only (the exact samplers draw "
                         "from OS entropy)")
    times = (tuple(t.strip() for t in args.landmark_times.split(","))
             if args.landmark_times is not None else None)
    matrix = forward = None
    if args.matrix is not None:
        from lmdk_core.leakage.correlation import load_matrix_csv

        matrix = load_matrix_csv(args.matrix, name=f"the --matrix file ({args.matrix})")
        if args.forward_matrix is not None:
            forward = load_matrix_csv(args.forward_matrix,
                                      name=f"the --forward-matrix file ({args.forward_matrix})")
    elif args.forward_matrix is not None:
        raise InputError("--forward-matrix needs --matrix (the backward matrix)")
    return AggregateRequest(
        statistic=stat, width=parse_width(args.window), epsilon=check_epsilon(args.epsilon),
        scheme=args.scheme, start=args.start, end=args.end, cell_size=args.cell,
        bbox=parse_bbox(args.bbox) if args.bbox else None, w=args.w,
        landmark_times=times, k=args.landmarks_per_user,
        landmark_flags=args.landmark_col is not None, over_k=args.over_k, noise=args.noise,
        seed=args.seed, matrix=matrix, forward_matrix=forward, od=args.od_output is not None)


def _columns(args: argparse.Namespace):
    from lmdk_core.population.table import PopulationColumns

    return PopulationColumns(user=args.user_col, time=args.time_col, value=args.value_col,
                             lat=args.lat_col, lon=args.lon_col, landmark=args.landmark_col)


def _uses_dask(args: argparse.Namespace, src: Path, fmt: str) -> bool:
    from lmdk_core.population.dask_driver import row_count

    return (args.scheduler is not None or src.is_dir()
            or row_count(src, fmt) > IN_PROCESS_ROWS)


def _run(args: argparse.Namespace, req, cols):
    """The finished :class:`AggregateResult`, in process or on Dask."""
    from lmdk_core.aggregate.population_release import (
        aggregate_population,
        finish_release,
        make_spec,
    )
    from lmdk_core.foundation.errors import InputError
    from lmdk_core.population.table import (
        check_columns,
        file_format,
        read_header,
        read_population,
    )

    src = Path(args.input)
    check_columns(read_header(src), cols)
    fmt = file_format(src)
    if not _uses_dask(args, src, fmt):
        frame, kind = read_population(src, cols)
        return aggregate_population(frame, kind, req)
    from lmdk_core.aggregate.dask_run import aggregate_on_dask
    from lmdk_core.population.cluster import check_scheduler_address

    if args.scheduler is not None:
        check_scheduler_address(args.scheduler)
    if req.start is None or (req.statistic.kind == "cells" and req.bbox is None):
        raise InputError("a table read through Dask needs declared grids: --start and --end"
                         + (" and --bbox" if req.statistic.kind == "cells" else ""))
    kind = "number" if _is_number(req.start) else "datetime"
    spec, plan = make_spec(req, kind)

    def progress(done: int, total: int) -> None:
        print(f"lmdk: partition {done} of {total} aggregated", file=sys.stderr, flush=True)

    partial = aggregate_on_dask(src.absolute(), fmt, cols, spec,
                                Path(args.output).absolute().parent,
                                scheduler=args.scheduler, workers=args.workers,
                                progress=progress)
    return finish_release(partial, spec, plan, req)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _cmd_aggregate(args: argparse.Namespace) -> int:
    from lmdk_core.aggregate.output_files import (
        AUDIT_LABEL,
        audit_frame,
        grids_declared,
        header_lines,
        od_audit_frame,
        od_publishable_frame,
        publishable_frame,
        save_table,
        users_audit_path,
    )
    from lmdk_core.files.output_paths import check_outputs
    from lmdk_core.population.cluster import BatchStopped, stop_on_signals

    outputs = {"--output": args.output, "--od-output": args.od_output, "--note": args.note}
    if args.audit:
        outputs.update({"--audit": args.audit,
                        "the users' audit": str(users_audit_path(args.audit))})
        if args.od_output:
            outputs["the OD audit"] = str(users_audit_path(args.audit, "od"))
    check_outputs({"--input": args.input, "--matrix": args.matrix,
                   "--forward-matrix": args.forward_matrix}, outputs)
    if args.note is not None and Path(args.note).suffix.lower() not in (".html", ".htm"):
        raise _bad(f"--note {args.note!r} must end in .html (the public note is a web page)")
    for name, path in outputs.items():
        if name == "--note":
            continue
        if path is not None and Path(path).suffix.lower() not in (".csv", ".parquet", ".pq"):
            raise _bad(f"{name} {path!r} must end in .csv or .parquet")
    req = _request(args)
    cols = _columns(args)
    try:
        with stop_on_signals():
            result = _run(args, req, cols)
    except BatchStopped as exc:
        print(f"lmdk: {exc}", file=sys.stderr)
        return exc.exit_status
    if args.audit:
        meta = [AUDIT_LABEL, *header_lines(result, req.noise, req.seed is not None)[1:]]
        save_table(audit_frame(result), args.audit, meta, confidential=True)
        save_table(result.partial.users.sort_values("user", ignore_index=True),
                    users_audit_path(args.audit), meta, confidential=True)
        if result.od_release is not None:
            save_table(od_audit_frame(result), users_audit_path(args.audit, "od"), meta,
                        confidential=True)
    if result.publishable:
        lines = header_lines(result, req.noise, req.seed is not None)
        save_table(publishable_frame(result), args.output, lines, confidential=False)
        if result.od_release is not None:
            save_table(od_publishable_frame(result), args.od_output,
                        [*lines, "origin-destination counts: users in cell `origin` at the "
                         "window and in cell `destination` at the next window"],
                        confidential=False)
    if args.note:
        from lmdk_core.files.atomic_write import write_atomically
        from lmdk_core.report.aggregate_note import render_aggregate_note

        write_atomically(args.note, render_aggregate_note(result, req.noise,
                                                          req.seed is not None, req.w),
                         confidential=False)
    _report(result, args)
    if result.publishable and not grids_declared(result):
        print("lmdk: note: the period or the map box was read from the data, so the file "
              "is marked EXPLORATORY, not publishable; declare --start, --end (and --bbox) "
              "to publish", file=sys.stderr)
    if not result.publishable:
        print(f"lmdk: note: the release is NOT landmark-private for {result.not_private:,} "
              f"users ({result.verdict.summary()}); no publishable file was written"
              + (" (see the audit)" if args.audit else ""), file=sys.stderr)
        return 1
    return 0


def _bad(message: str):
    from lmdk_core.foundation.errors import InputError

    return InputError(message)


def summary(result, args: argparse.Namespace) -> dict:
    """The JSON summary: public settings and expected errors; what was measured on the
    raw data under ``confidential``."""
    spec = result.spec
    users = result.partial.users
    return {
        "publishable": result.publishable,
        "output": args.output if result.publishable else None,
        "audit": args.audit,
        "statistic": spec.statistic.kind,
        "windows": spec.windows.count,
        "cells": spec.n_cells,
        "epsilon": spec.epsilon,
        "scheme": result.plan.scheme,
        "landmarks": spec.landmarks.kind,
        "k": spec.landmarks.k,
        "plan_landmark_private": bool(result.verdict.private),
        "leakage": result.leakage.to_dict() if result.leakage is not None else None,
        "levels": [{"level": lv.level, "epsilon_t": lv.epsilon_t,
                    "expected_error": lv.expected_error} for lv in result.levels],
        "confidential": {
            "note": "measured on the raw data: do not publish",
            "users": int(len(users)),
            "users_not_private": result.not_private,
            "dropped_contributions": int(users["dropped"].sum()),
            "refused_users": int(users["refused"].sum()),
            "rows_outside_period": int(result.partial.rows_outside),
            "contributions_outside_cells": int(users["outside_cells"].sum()),
            "measured_error": {lv.level: lv.measured_error for lv in result.levels},
        },
    }


def _report(result, args: argparse.Namespace) -> None:
    from lmdk_core.cli.json_output import emit_json

    s = summary(result, args)
    if args.json:
        emit_json(s)
        return
    c = s["confidential"]
    print(f"released {s['statistic']} over {s['windows']} windows x {s['cells']} cells at "
          f"ε = {s['epsilon']:g} ({s['scheme']}; landmarks: {s['landmarks']})")
    if result.publishable:
        print(f"wrote {args.output}: publishable (released values and 95 % intervals)")
    if args.audit:
        print(f"wrote {args.audit} and {users_audit_path_text(args.audit)}: CONFIDENTIAL")
    print(f"CONFIDENTIAL: {counted(c['users'], 'user')}, "
          f"{counted(c['dropped_contributions'], 'landmark contribution')} dropped, "
          f"{counted(c['refused_users'], 'user')} refused")
    print("level       ε_t          expected |error|   measured (CONFIDENTIAL)")
    for lv in result.levels:
        print(f"{lv.level:<11} {lv.epsilon_t:<12.6g} {lv.expected_error:<18.4g} "
              f"{lv.measured_error:.4g}")


def users_audit_path_text(audit: str) -> str:
    """The path of the per-user audit written beside ``audit`` (``name.users.ext``), as
    printed; the aggregate package is imported only when a run gets here."""
    from lmdk_core.aggregate.output_files import users_audit_path

    return str(users_audit_path(audit))


def register(sub) -> None:
    """Add ``aggregate`` to the ``lmdk`` sub-commands."""
    p = sub.add_parser("aggregate", help="release statistics of a population per time "
                       "window (counts per map cell, sums, means) under landmark privacy")
    p.add_argument("--input", required=True, help="long table: .parquet (file or folder) or .csv")
    p.add_argument("--user-col", required=True, help="column of the user ids")
    p.add_argument("--time-col", required=True,
                   help="column of the times (ISO 8601 dates, or numbers read as seconds)")
    p.add_argument("--window", required=True, help="window width: 1h, 30min, 1d or seconds")
    p.add_argument("--start", help="declared start of the first window (else the data's "
                   "first time: not a declared setting)")
    p.add_argument("--end", help="declared end of the period (exclusive)")
    p.add_argument("--lat-col", help="track latitudes (cell counts)")
    p.add_argument("--lon-col", help="track longitudes (cell counts)")
    p.add_argument("--cell", type=bounded("cell_size_m", "--cell"),
                   help="cell size in metres (tracks)")
    p.add_argument("--bbox", help="declared grid box SOUTH,WEST,NORTH,EAST in degrees "
                   "(else the data's extent: not a declared setting)")
    p.add_argument("--value-col", help="series values (sum, mean or count)")
    p.add_argument("--bounds", help="declared bounds LO,HI: values are clamped to them")
    p.add_argument("--statistic", choices=["sum", "mean", "count"], default="sum",
                   help="series statistic per window")
    p.add_argument("--landmark-times", help="public landmark times common to everyone, "
                   "comma-separated (their windows are landmarks)")
    p.add_argument("--landmark-col", help="each user's landmark flags (1/true); needs "
                   "--landmarks-per-user")
    p.add_argument("--landmarks-per-user", metavar="K",
                   type=bounded("max_landmarks", "--landmarks-per-user"),
                   help="declared bound k of landmark windows per user (without "
                        "--landmark-col: each user's landmarks are discovered)")
    p.add_argument("--over-k", choices=["drop", "refuse"], default="drop",
                   help="users with more than k landmark windows: drop their extra landmark "
                        "contributions, or leave them out")
    p.add_argument("--epsilon", type=bounded("epsilon", "--epsilon"), required=True,
                   help="total budget ε")
    p.add_argument("--scheme", default="uniform",
                   choices=["uniform", "skip", "adaptive", "event", "w-event", "user"],
                   help="budget scheme over the windows")
    p.add_argument("--w", type=bounded("window", "--w"),
                   help="w of the w-event scheme (and of the comparison's "
                        "w-event level; default there: 24 windows)")
    p.add_argument("--matrix", help="declared transition matrix CSV of a user's state between "
                   "consecutive windows (n lines of n probabilities): the temporal leakage "
                   "of the release (Cao et al.) in the header and the JSON")
    p.add_argument("--forward-matrix", help="declared forward matrix CSV (default: --matrix)")
    p.add_argument("--output", required=True, help="publishable file (.csv or .parquet)")
    p.add_argument("--od-output", help="tracks: also release origin-destination counts "
                   "between the cells of consecutive windows to this publishable file (the "
                   "window's budget split: counts ε_t/2, each transition ε_t/4)")
    p.add_argument("--note", help="the public release note (.html): public settings, "
                   "the expected error of each privacy level, no raw data")
    p.add_argument("--audit", help="CONFIDENTIAL audit (.csv or .parquet), plus "
                   "NAME.users.csv beside it")
    p.add_argument("--json", action="store_true", help="one JSON summary on stdout")
    p.add_argument("--noise", choices=["exact", "fast"], default="exact",
                   help="exact: exact discrete Laplace noise, for publication; fast: numpy, "
                        "for exploring")
    p.add_argument("--seed", type=bounded("seed", "--seed"),
                   help="seed of --noise fast (never written to the publishable file)")
    p.add_argument("--scheduler", help="address of an existing Dask scheduler "
                   "(tcp://host:8786); large tables also run on a local cluster")
    p.add_argument("--workers", type=bounded("workers", "--workers"),
                   help="local Dask workers (default: one per core)")
    p.set_defaults(handler=_cmd_aggregate)
