"""``lmdk dummies`` (dummy landmark options + private selection) and ``lmdk suggest``
(automatic landmark discovery)."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from lmdk_core.cli.bounded import bounded
from lmdk_core.engine.validation import InputError, check_epsilon, check_length, parse_landmarks

# The engine (pandas, scipy) is imported inside the handlers so that the other
# sub-commands start fast. The parser's choices and defaults are therefore spelled out
# here; tests/cli/test_cli_startup.py checks them against lmdk_core.dummies and
# lmdk_core.landmarks.discovery.
METHODS = ("heuristic", "optimal")
METRICS = ("gap_std", "nearest_mean")
DEFAULT_STAY_DISTANCE_M = 200.0
DEFAULT_STAY_MINUTES = 20.0
DEFAULT_DEVIATION_WINDOW = 24
DEFAULT_DEVIATION_K = 5.0
DEFAULT_MAX_SUGGESTED_EVENTS = 20

#: minutes per unit of a numeric time column, by --time-unit
TIME_UNITS = {"s": 1 / 60, "min": 1.0, "h": 60.0}


def _cmd_dummies(args: argparse.Namespace) -> int:
    from lmdk_core.cli import emit_json
    from lmdk_core.dummies import dummy_options, select_option

    eps = check_epsilon(args.epsilon, "--epsilon (ε_sel)")
    length = check_length(args.length, "--length")
    opts = dummy_options(length, parse_landmarks(args.landmarks), args.method, args.metric,
                         max_options=args.max_options)
    sel = select_option(opts, eps, args.seed, args.sensitivity)
    if args.json:
        emit_json(sel.to_dict())
        return 0
    print(f"original metric ({opts.metric.label}): {opts.original_metric:.6g}")
    print(f"{opts.method} options: {len(opts)} (objective |mean − original| = "
          f"{opts.objective:.6g}); ε_sel = {sel.epsilon:g}, Δu = {sel.sensitivity:g}")
    for i, (m, p) in enumerate(zip(opts.metrics, sel.probabilities, strict=True)):
        mark = "*" if i == sel.index else " "
        print(f"{mark} option {i + 1}: metric {m:.6g}  probability {p:.4f}  "
              f"dummies {opts.added[: i + 1].tolist()}")
    print("selected landmarks: " + ",".join(str(t) for t in sel.selected.tolist()))
    return 0


def _input_kind(path: str) -> str:
    """'track' for GPX, a GeoLife/OziExplorer .plt or a CSV with lat and lon columns,
    else 'series'."""
    import pandas as pd

    from lmdk_core.data.tables import read_bytes

    if path.lower().endswith((".gpx", ".plt")):
        return "track"
    data = read_bytes(path, "the input file")
    if data.lstrip().startswith(b"<"):
        return "track"
    try:
        header = pd.read_csv(io.BytesIO(data), nrows=0, dtype=str, encoding_errors="strict")
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        raise InputError("the input is neither a GPX file nor a readable CSV") from None
    cols = {str(c).strip().lower() for c in header.columns}
    return "track" if {"lat", "lon"} <= cols else "series"


def _cmd_suggest(args: argparse.Namespace) -> int:
    from lmdk_core.cli import emit_json
    from lmdk_core.data.series import load_series_csv
    from lmdk_core.data.track import load_track
    from lmdk_core.engine.stay_events import format_stays
    from lmdk_core.landmarks.discovery import (
        series_suggestions,
        suggested_timestamps,
        suggestion_events,
        track_stay_points,
    )

    kind = _input_kind(args.input)
    name = Path(args.input).name
    if kind == "track":
        track = load_track(args.input, filename=args.input, name=name)
        found, notes = track_stay_points(track, args.distance, args.duration,
                                         args.minutes_per_point, TIME_UNITS[args.time_unit])
        method = "stay_points"
        params = {"distance_m": args.distance, "duration_minutes": args.duration,
                  "minutes_per_point": args.minutes_per_point}
        length = len(track)
    else:
        notes = []
        series = load_series_csv(args.input, name=name, time_col=args.time_col,
                                 value_col=args.value_col)
        sugg = series_suggestions(series.time, series.time_kind, series.values,
                                  args.window, args.k, args.season, args.max_events)
        found = sugg.found
        method = "deviation"
        params = {"window": sugg.window, "window_from": sugg.window_note, "k": args.k,
                  "season": sugg.season, "max_events": args.max_events,
                  "events_left_out": sugg.left_out}
        if sugg.left_out:
            notes.append(f"{sugg.left_out:,} more event{'s' if sugg.left_out != 1 else ''} "
                         f"scored above k but {'were' if sugg.left_out != 1 else 'was'} left "
                         f"out: only the {args.max_events} strongest are offered (raise --k "
                         "for fewer, --max-events for more)")
        length = len(series)
    landmarks = suggested_timestamps(found)
    stays = format_stays(s.span for s in found) if kind == "track" else None
    if args.json:
        out = {"kind": kind, "method": method, "length": length, "parameters": params,
               "landmarks": landmarks, "suggestions": [s.to_dict() for s in found],
               "notes": notes}
        if kind == "series":  # runs of consecutive timestamps: one event each
            out["events"] = [list(e) for e in suggestion_events(landmarks)]
        if kind == "track":
            # the default way to accept them: one landmark event per stay (docs/stays.md)
            out["stays"] = stays
        emit_json(out)
        return 0
    events = (f" in {len(suggestion_events(landmarks))} event"
              f"{'s' if len(suggestion_events(landmarks)) != 1 else ''}"
              if kind == "series" and found else "")
    print(f"{name}: {kind} of {length} points, {len(found)} suggestion"
          f"{'s' if len(found) != 1 else ''}{events} ({method})")
    if kind == "series":
        print(f"window: {params['window_from']}; {params['season']}")
    for note in notes:
        print(f"note: {note}")
    for s in found:
        d = s.to_dict()
        if d["reason"] == "stay":
            how = (f" (assumed: {s.assumed_minutes_per_point:g} min per point)"
                   if s.duration_assumed else "")
            print(f"stay t={s.start}-{s.end}: centroid {s.lat:.6f},{s.lon:.6f}, "
                  f"{s.duration_minutes:.1f} min{how}, {d['n_fixes']} fixes")
        else:
            print(f"deviation t={s.timestamp}: value {s.value:.6g}, baseline {s.baseline:.6g}, "
                  f"score {s.score:.2f} ({s.direction})")
    if kind == "track" and found:
        print(f"accept the stays as one landmark event each (recommended; the cost of a stay "
              f"does not grow with its fixes, docs/stays.md): lmdk geo-release --stays {stays}")
        print(f"or mark every fix as a landmark ({len(landmarks)} landmarks, each its own "
              "event): lmdk geo-release --landmarks <the list below>")
    print("suggested landmarks: " + ",".join(str(t) for t in landmarks))
    return 0


def register(sub) -> None:
    """Add this module's sub-commands to ``sub``."""
    p = sub.add_parser("dummies", help="dummy landmark options and their private selection")
    p.add_argument("--length", type=bounded("length", "--length"),
                   required=True, help="number of timestamps T")
    p.add_argument("--landmarks", default="",
                   help="0-based timestamps and ranges, e.g. 3,7,10-20")
    p.add_argument("--method", default="heuristic", choices=list(METHODS),
                   help="how the options are built: greedy heuristic or exact optimal search "
                        "(at most 12 regular timestamps)")
    p.add_argument("--metric", default="gap_std", choices=list(METRICS),
                   help="how an option is compared with the original set")
    p.add_argument("--epsilon", type=bounded("selection_epsilon", "--epsilon"), required=True,
                   help="budget ε_sel of the selection (spent on top of the release's ε)")
    p.add_argument("--sensitivity", type=bounded("utility_sensitivity", "--sensitivity"),
                   default=None,
                   help="utility sensitivity Δu (default: the metric's bound, (T−1)/2)")
    p.add_argument("--max-options", type=bounded("max_options", "--max-options"), default=None,
                   help="heuristic only: stop after this many dummies")
    p.add_argument("--seed", type=bounded("seed", "--seed"), default=None,
                   help="seed of the selection's draw (default: fresh OS entropy)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_cmd_dummies)

    p = sub.add_parser("suggest", help="suggest landmarks: stay points or series deviations")
    p.add_argument("--input", required=True, help="series CSV (time,value), track CSV "
                   "(time,lat,lon) or GPX")
    p.add_argument("--distance", type=bounded("stay_distance", "--distance"),
                   default=DEFAULT_STAY_DISTANCE_M,
                   help="track: stay radius in metres")
    p.add_argument("--duration", type=bounded("stay_minutes", "--duration"),
                   default=DEFAULT_STAY_MINUTES,
                   help="track: minimum stay in minutes")
    p.add_argument("--minutes-per-point", type=bounded("minutes_per_point", "--minutes-per-point"),
                   default=None,
                   help="track: sampling interval, needed when the track has no times")
    p.add_argument("--time-unit", default="s", choices=list(TIME_UNITS),
                   help="track: unit of a numeric time column")
    p.add_argument("--time-col", default="time",
                   help="series: the time column (default 'time'; names match "
                        "case-insensitively)")
    p.add_argument("--value-col", default="value",
                   help="series: the value column (default 'value')")
    p.add_argument("--window", type=bounded("spike_window", "--window"), default=None,
                   help="series: rolling-median window (timestamps); default: a day of "
                        "readings from the sampling interval, 24 to 1,440 and at most a "
                        f"quarter of the series ({DEFAULT_DEVIATION_WINDOW} when the times "
                        "are not dates)")
    p.add_argument("--k", type=bounded("spike_k", "--k"), default=DEFAULT_DEVIATION_K,
                   help="series: threshold in robust standard deviations")
    p.add_argument("--max-events", type=bounded("max_suggested_events", "--max-events"),
                   default=DEFAULT_MAX_SUGGESTED_EVENTS,
                   help="series: offer at most this many events (runs of consecutive "
                        "timestamps), level shifts first, then the highest scores")
    p.add_argument("--season", default="auto", choices=["auto", "day", "week", "none"],
                   help="series with dates: remove the median profile of each hour of the "
                        "day / week first, so daily peaks are not suggested (auto: week "
                        "from 8 weeks of data, day from 3 days)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_cmd_suggest)
