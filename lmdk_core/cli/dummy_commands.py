"""``lmdk dummies`` (dummy landmark options + private selection) and ``lmdk suggest``
(automatic landmark discovery)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from lmdk_core.cli.bounded import bounded
from lmdk_core.cli.input_columns import (
    add_column_options,
    input_kind,
    series_columns,
    track_columns,
)
from lmdk_core.foundation.plurals import counted
from lmdk_core.foundation.validation import check_epsilon, check_length, parse_landmarks

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
    from lmdk_core.cli.json_output import emit_json
    from lmdk_core.dummies import dummy_options, select_option

    eps = check_epsilon(args.epsilon, "--epsilon (ε_sel)")
    length = check_length(args.length, "--length")
    opts = dummy_options(length, parse_landmarks(args.landmarks), args.method, args.metric,
                         max_options=args.max_options)
    sel = select_option(opts, eps, args.seed, args.sensitivity)
    if args.json:
        emit_json(sel.to_dict())
    else:
        _print_dummies(opts, sel)
    return 0


def _print_dummies(opts, sel) -> None:
    """The dummy options (metric, selection probability, dummies added) and the selected
    landmark set, as text."""
    print(f"original metric ({opts.metric.label}): {opts.original_metric:.6g}")
    print(f"{opts.method} options: {len(opts)} (objective |mean − original| = "
          f"{opts.objective:.6g}); ε_sel = {sel.epsilon:g}, Δu = {sel.sensitivity:g}")
    for i, (m, p) in enumerate(zip(opts.metrics, sel.probabilities, strict=True)):
        mark = "*" if i == sel.index else " "
        print(f"{mark} option {i + 1}: metric {m:.6g}  probability {p:.4f}  "
              f"dummies {opts.added[: i + 1].tolist()}")
    print("selected landmarks: " + ",".join(str(t) for t in sel.selected.tolist()))


@dataclass
class _Suggested:
    """What ``lmdk suggest`` found in one input: the kind of data, its name and length,
    the suggestions, the method and its parameters, and notes for the reader."""

    kind: str
    name: str
    length: int
    found: list
    method: str
    params: dict
    notes: list[str] = field(default_factory=list)


def _suggest_for_track(args: argparse.Namespace, name: str) -> _Suggested:
    """A track's stay points (``--distance``, ``--duration``, sampling interval)."""
    from lmdk_core.data.track_loading import load_track
    from lmdk_core.landmarks.discovery import track_stay_points

    track = load_track(args.input, filename=args.input, name=name, **track_columns(args))
    found, notes = track_stay_points(track, distance_threshold_m=args.distance,
                                     time_threshold_min=args.duration,
                                     minutes_per_point=args.minutes_per_point,
                                     minutes_per_time_unit=TIME_UNITS[args.time_unit])
    params = {"distance_m": args.distance, "duration_minutes": args.duration,
              "minutes_per_point": args.minutes_per_point}
    return _Suggested("track", name, len(track), found, "stay_points", params, notes)


def _suggest_for_series(args: argparse.Namespace, name: str) -> _Suggested:
    """A series' unusual readings and level shifts (rolling-median deviations)."""
    from lmdk_core.data.series import load_series_csv
    from lmdk_core.landmarks.discovery import series_suggestions

    series = load_series_csv(args.input, name=name, **series_columns(args))
    sugg = series_suggestions(series.time, series.time_kind, series.values, window=args.window,
                              k=args.k, season=args.season, max_events=args.max_events)
    params = {"window": sugg.window, "window_from": sugg.window_note, "k": args.k,
              "season": sugg.season, "max_events": args.max_events,
              "events_left_out": sugg.left_out}
    notes = []
    if sugg.left_out:
        notes.append(f"{sugg.left_out:,} more event{'s' if sugg.left_out != 1 else ''} "
                     f"scored above k but {'were' if sugg.left_out != 1 else 'was'} left "
                     f"out: only the {args.max_events} strongest are offered (raise --k "
                     "for fewer, --max-events for more)")
    return _Suggested("series", name, len(series), sugg.found, "deviation", params, notes)


def _cmd_suggest(args: argparse.Namespace) -> int:
    from lmdk_core.engine.stay_events import format_stays
    from lmdk_core.landmarks.discovery import suggested_timestamps

    kind = input_kind(args.input, args)
    name = Path(args.input).name
    sugg = (_suggest_for_track if kind == "track" else _suggest_for_series)(args, name)
    landmarks = suggested_timestamps(sugg.found)
    if kind == "track":
        stays = format_stays(s.span for s in sugg.found)
    else:
        from lmdk_core.engine.run_events import format_runs
        from lmdk_core.landmarks.discovery import suggestion_events

        stays = format_runs(suggestion_events(landmarks))
    if args.json:
        _emit_suggestions(sugg, landmarks, stays)
    else:
        _print_suggestions(sugg, landmarks, stays)
    return 0


def _emit_suggestions(sugg: _Suggested, landmarks: list[int], stays: str | None) -> None:
    """The suggestions as one JSON object (with a series' events, a track's stays)."""
    from lmdk_core.cli.json_output import emit_json
    from lmdk_core.landmarks.discovery import suggestion_events

    out = {"kind": sugg.kind, "method": sugg.method, "length": sugg.length,
           "parameters": sugg.params, "landmarks": landmarks,
           "suggestions": [s.to_dict() for s in sugg.found], "notes": sugg.notes}
    if sugg.kind == "series":  # runs of consecutive timestamps: one event each
        out["events"] = [list(e) for e in suggestion_events(landmarks)]
        # the default way to accept them: one landmark event per run (docs/series-events.md)
        out["runs"] = stays
    if sugg.kind == "track":
        # the default way to accept them: one landmark event per stay (docs/stays.md)
        out["stays"] = stays
    emit_json(out)


def _print_suggestions(sugg: _Suggested, landmarks: list[int], stays: str | None) -> None:
    """The suggestions as text: a summary line, notes, one line each, how to accept them."""
    print(_suggestions_heading(sugg, landmarks))
    if sugg.kind == "series":
        print(f"window: {sugg.params['window_from']}; {sugg.params['season']}")
    for note in sugg.notes:
        print(f"note: {note}")
    for s in sugg.found:
        print(_suggestion_line(s))
    if sugg.kind == "series" and sugg.found:
        from lmdk_core.landmarks.discovery import SCORE_EXPLAINED, suggestion_events

        n_ev = len(suggestion_events(landmarks))
        print(f"scores: {SCORE_EXPLAINED}")
        print(f"accept the runs as one landmark event each (recommended; a run's cost does not "
              f"grow with its readings and k counts it once, docs/series-events.md): lmdk "
              f"release --runs {stays} --max-landmarks {n_ev}")
        print(f"or mark every reading as a landmark ({len(landmarks)} landmarks, each its own "
              f"event: --landmarks <the list below> --max-landmarks {len(landmarks)}); with "
              "many landmarks, --scheme skip spends nothing at them and ε at every other "
              "reading (the release's utility line says when it does better)")
    if sugg.kind == "track" and sugg.found:
        print(f"accept the stays as one landmark event each (recommended; the cost of a stay "
              f"does not grow with its fixes, docs/stays.md): lmdk geo-release --stays {stays}")
        print(f"or mark every fix as a landmark ({counted(len(landmarks), 'landmark')}, each "
              "its own "
              "event): lmdk geo-release --landmarks <the list below>")
    print("suggested landmarks: " + ",".join(str(t) for t in landmarks))


def _suggestions_heading(sugg: _Suggested, landmarks: list[int]) -> str:
    """"name: kind of T points, n suggestions [in k events] (method)"."""
    from lmdk_core.landmarks.discovery import suggestion_events

    n = len(sugg.found)
    events = ""
    if sugg.kind == "series" and sugg.found:
        n_events = len(suggestion_events(landmarks))
        events = f" in {counted(n_events, 'event')}"
    return (f"{sugg.name}: {sugg.kind} of {counted(sugg.length, 'point')}, "
            f"{counted(n, 'suggestion')}{events} ({sugg.method})")


def _suggestion_line(s) -> str:
    """One suggestion in a line: a stay (span, centroid, duration) or a deviation."""
    d = s.to_dict()
    if d["reason"] != "stay":
        from lmdk_core.landmarks.discovery import shown_score

        return (f"deviation t={s.timestamp}: value {s.value:.6g}, baseline {s.baseline:.6g}, "
                f"score {shown_score(s.score)} ({s.direction})")
    how = (f" (assumed: {s.assumed_minutes_per_point:g} min per point)"
           if s.duration_assumed else "")
    return (f"stay t={s.start}-{s.end}: centroid {s.lat:.6f},{s.lon:.6f}, "
            f"{s.duration_minutes:.1f} min{how}, {d['n_fixes']} fixes")


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
    add_column_options(p)
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
