"""``lmdk solve-epsilon`` (accuracy → ε), ``lmdk attack`` (what an attacker learns) and
``lmdk compose`` (budget over repeated releases).

The engine is imported inside the handlers so that the other sub-commands start fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lmdk_core.cli.bounded import bounded
from lmdk_core.cli.input_columns import add_column_options
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.setting_limits import check_setting
from lmdk_core.foundation.validation import parse_landmarks

SCHEMES = ("uniform", "skip", "adaptive", "w-event", "user", "event")


def _load(args: argparse.Namespace):
    """(values (T,) or (T, 2) [lat, lon], kind, object) of the input: a series CSV (its
    ``--time-col``/``--value-col``) or a track (``--lat-col``/``--lon-col``/``--time-col``
    for a CSV; ``--radius`` needed)."""
    import numpy as np

    from lmdk_core.cli.input_columns import input_kind, series_columns, track_columns

    path = args.input
    if input_kind(path, args) == "track":
        from lmdk_core.data.track_loading import load_track

        if args.radius is None:
            raise InputError("a track needs --radius (the protection radius r in metres)")
        tr = load_track(path, filename=path, name=Path(path).name, **track_columns(args))
        return np.column_stack([tr.lat, tr.lon]), "track", tr
    from lmdk_core.data.series import load_series_csv

    s = load_series_csv(path, name=Path(path).name, **series_columns(args))
    return s.values, "series", s


def _schemes(text: str) -> list[str]:
    from lmdk_core.engine.allocation import scheme_info

    keys = [scheme_info(s).key for s in text.split(",") if s.strip()]
    if not keys:
        raise InputError("--schemes needs at least one scheme")
    return list(dict.fromkeys(keys))


def _bounded(name: str, value, option: str):
    """``value`` checked against the app's setting table (:data:`LIMITS[name]`), refused
    with the option and its range (``--runs must be a whole number from 2 to 10,000``);
    None (an option not given) passes."""
    if value is None:
        return None
    return check_setting(name, value, label=option)


def _parse_timestamps(text: str, option: str = "--stay", required: bool = True,
                      length: int | None = None) -> list[int]:
    """Timestamps such as ``0-99`` or ``3,4,5,10-12`` (ranges inclusive), each in
    ``0..length-1`` when the data's length is known: a range beyond the data is refused
    at once, before it is expanded."""
    try:
        out = parse_landmarks(text, length)
    except InputError as exc:
        raise InputError(f"{option}: {exc}") from None
    if required and not out:
        raise InputError(f"{option} needs timestamps, e.g. 0-99")
    return out


def _landmarks(text: str, length: int | None = None) -> list[int]:
    return _parse_timestamps(text or "", "--landmarks", required=False, length=length)


def _days(text: str) -> list[int]:
    """``--days 1,7,30``: whole numbers of daily releases in the ``days`` range."""
    out = []
    for part in text.split(","):
        if not part.strip():
            continue
        try:
            d = int(part.strip())
        except ValueError:
            raise InputError(f"--days: {quote_user_text(part.strip())} is not a whole number; "
                             f"give numbers of daily releases like 1,7,30") from None
        out.append(_bounded("days", d, "--days"))
    if not out:
        raise InputError("--days needs at least one number of daily releases, e.g. 1,7,30")
    return out


def _data_settings(args: argparse.Namespace) -> None:
    """The shared options of solve-epsilon and attack, checked before any work."""
    _bounded("sensitivity", args.sensitivity, "--sensitivity")
    _bounded("radius", args.radius, "--radius")
    _bounded("window", args.window, "--window")
    _bounded("runs", args.runs, "--runs")
    _bounded("seed", args.seed, "--seed")


def _cmd_solve(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json

    _check_solve_options(args)
    values, kind, _ = _load(args)
    landmarks = _landmarks(args.landmarks, len(values))
    if args.stays and kind != "track":
        raise InputError("--stays is for tracks (ranges of fixes protected as one event "
                         "each); a series marks its landmarks with --landmarks")
    target = _accuracy_target(args)
    unit = "m" if kind == "track" else (args.unit or "")
    out = _solve_schemes(args, values, landmarks, target)
    if args.json:
        emit_json({"target": target.describe(unit), "kind": kind,
                   "solutions": [s.to_dict() for s in out]})
        return 0
    print(f"target: {target.describe(unit)}")
    for s in out:
        print(_solution_line(s, target, unit))
    return 0


def _accuracy_target(args: argparse.Namespace):
    """The target of ``--within`` (with ``--probability``) or ``--mean-error``, ``--per``."""
    from lmdk_core.decision.accuracy import AccuracyTarget

    if args.within is not None:
        return AccuracyTarget("within", args.within, args.probability, args.per)
    return AccuracyTarget("mean", args.mean_error, per=args.per)


def _solve_schemes(args: argparse.Namespace, values, landmarks: list[int], target) -> list:
    """The smallest ε of every scheme of ``--schemes`` (w-event needs ``--window``)."""
    from lmdk_core.decision.epsilon_search import solve_epsilon
    from lmdk_core.engine.stay_events import parse_stays

    runs = _solve_runs(args.runs, target)
    stays = parse_stays(args.stays) or None
    out = []
    for key in _schemes(args.schemes):
        if key == "w-event" and args.window is None:
            raise InputError("the w-event scheme needs --window")
        out.append(solve_epsilon(values, landmarks, key, target,
                                 mechanism=args.mechanism, sensitivity=args.sensitivity,
                                 radius=args.radius, window=args.window, runs=runs,
                                 seed=args.seed, stays=stays))
    return out


def _check_solve_options(args: argparse.Namespace) -> None:
    """solve-epsilon's options, checked before the data are read: exactly one target and
    every number in its range."""
    if (args.within is None) == (args.mean_error is None):
        raise InputError("give exactly one target: --within A (with --probability) or "
                         "--mean-error M")
    _data_settings(args)
    _bounded("accuracy_bound", args.within, "--within")
    _bounded("accuracy_bound", args.mean_error, "--mean-error")
    _bounded("probability", args.probability, "--probability")


def _solve_runs(runs: int | None, target) -> int:
    """Adaptive's Monte Carlo runs per ε: ``--runs``, else 1,000 for an 'each'/'all'
    probability (certified reading by reading, Clopper–Pearson: 100 would certify 95 %
    only from 99/100) and 100 otherwise."""
    if runs is not None:
        return runs
    return 1000 if target.per in ("each", "all") and target.kind == "within" else 100


def _solution_line(s, target, unit: str) -> str:
    """One scheme's answer as a line: unreachable and why, or ε with what it achieves."""
    if s.epsilon is None:
        return f"  {s.scheme:9s} unreachable — {s.reason}"
    got = (f"{s.achieved:.2%}" if target.kind == "within"
           else f"mean error {s.achieved:.4g}{' ' + unit if unit else ''}")
    note = "" if s.landmark_private else "  (NOT landmark-private)"
    return (f"  {s.scheme:9s} ε = {s.epsilon:.4g}  ({got}; {s.method}){note}"
            f"{_feasible_note(s)}")


def _feasible_note(s) -> str:
    """"feasible only for ε in [a, b] ∪ …" when the feasible set is not one interval
    reaching the top of the searched range (static schemes)."""
    ivs = s.partial_intervals()
    if not ivs:
        return ""
    return "  feasible only for ε in " + " ∪ ".join(f"[{a:.4g}, {b:.4g}]" for a, b in ivs)


def _cmd_attack(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json

    _data_settings(args)
    _bounded("epsilon", args.epsilon, "--epsilon")
    _bounded("prior", args.prior, "--prior")
    _bounded("privacy_loss", args.leakage, "--leakage")
    days = _days(args.days) if args.stay else []
    values, kind, _ = _load(args)
    lm = _landmarks(args.landmarks, len(values))
    stay = _stay(args.stay, kind, len(values))
    runs = 100 if args.runs is None else args.runs
    result = _attack_result(args, values, kind, lm, runs)
    if args.stay:
        _add_averaging(result, args, values, lm, stay, days, runs)
    if args.json:
        emit_json(result)
    else:
        print("\n".join(result["sentences"]))
    return 0


def _stay(text: str | None, kind: str, length: int) -> list[int]:
    """``--stay``: the timestamps of a track's stay for the averaging attack (none when
    not given); refused for a series."""
    if not text:
        return []
    if kind != "track":
        raise InputError("--stay is for tracks (the averaging attack on a place)")
    return _parse_timestamps(text, length=length)


def _attack_result(args: argparse.Namespace, values, kind: str, lm: list[int],
                   runs: int) -> dict:
    """What an attacker learns: the posterior bound at the privacy loss (ε, or
    ``--leakage`` under correlation) and the simulated repeat inference of landmarks."""
    import numpy as np

    from lmdk_core.decision.attacker import (
        certainty_sentence,
        posterior_bound,
        simulate_repeat_inference,
    )

    inf = simulate_repeat_inference(values, lm, args.scheme, args.epsilon,
                                    mechanism=args.mechanism, sensitivity=args.sensitivity,
                                    radius=args.radius, window=args.window, runs=runs,
                                    seed=args.seed)
    loss = args.epsilon if args.leakage is None else args.leakage
    return {
        "kind": kind, "scheme": args.scheme, "epsilon": args.epsilon, "prior": args.prior,
        "privacy_loss": loss, "certainty_factor": float(np.exp(loss)),
        "posterior_bound": float(posterior_bound(args.prior, loss)),
        "repeat_inference": {"precision": inf.precision, "recall": inf.recall,
                             "flagged_per_release": inf.flagged_per_run,
                             "base_rate": inf.base_rate, "runs": inf.runs},
        "sentences": [certainty_sentence(loss, args.prior, epsilon=args.epsilon,
                                         correlated=args.leakage is not None),
                      inf.sentence()],
    }


def _add_averaging(result: dict, args: argparse.Namespace, values, lm: list[int],
                   stay: list[int], days: list[int], runs: int) -> None:
    """Add the averaging attack on the stay ``--stay`` over ``--days`` daily releases."""
    from lmdk_core.decision.attacker import averaging_attack

    avg = averaging_attack(values[:, 0], values[:, 1], lm, stay, scheme=args.scheme,
                           epsilon=args.epsilon, radius=args.radius, days=days, window=args.window,
                           runs=runs, seed=args.seed)
    result["averaging"] = {"days": avg.days, "mean_error_m": avg.simulated_mean,
                           "p90_error_m": avg.simulated_p90, "rice_mean_m": avg.rice_mean,
                           "offset_m": avg.offset_m}
    result["sentences"].append(avg.sentence())


def _cmd_compose(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json
    from lmdk_core.decision.composition import per_release_epsilon, schedule_summary

    if (args.epsilon is None) == (args.target is None):
        raise InputError("give --epsilon (per release) or --target (total over the schedule)")
    _bounded("releases", args.releases, "--releases")
    _bounded("epsilon", args.epsilon, "--epsilon")
    _bounded("total_epsilon", args.target, "--target")
    _bounded("delta", args.delta, "--delta")
    if args.target is not None:
        res = per_release_epsilon(args.target, args.releases, args.delta)
        res.update({"target": args.target, "releases": args.releases})
        if args.json:
            emit_json(res)
        else:
            print(f"per-release ε for a total of {args.target:g} over {args.releases} releases: "
                  f"{res['epsilon']:.4g} ({res['best']} composition; basic {res['basic']:.4g}, "
                  f"advanced {res['advanced']:.4g} with δ' = {args.delta:g})")
        return 0
    sched = schedule_summary(args.epsilon, args.releases, args.delta)
    if args.json:
        emit_json(sched.to_dict())
    else:
        print("\n".join(sched.sentences()))
    return 0


def _data_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input", required=True, help="series CSV (time,value) or track "
                                                  "(CSV/GPX/PLT)")
    add_column_options(p)
    p.add_argument("--landmarks", default="", help="0-based timestamps and ranges, e.g. "
                                                   "3,7,10-20")
    p.add_argument("--mechanism", choices=["laplace", "geometric"], default="laplace",
                   help="series mechanism")
    p.add_argument("--sensitivity", type=bounded("sensitivity", "--sensitivity"),
                   default=1.0, help="Δf (series)")
    p.add_argument("--radius", type=bounded("radius", "--radius"),
                   help="protection radius r in metres (tracks)")
    p.add_argument("--window", type=bounded("window", "--window"), help="w of the w-event scheme")
    p.add_argument("--runs", type=bounded("runs", "--runs"), default=None,
                   help="Monte Carlo runs: whole Adaptive releases per ε (default 1,000 for "
                        "--per each/all, 100 otherwise) or simulated attacks (default 100)")
    p.add_argument("--seed", type=bounded("seed", "--seed"),
                   help="seed of the simulations (default: fresh entropy)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def register(sub) -> None:
    """Add ``solve-epsilon``, ``attack`` and ``compose`` to the ``lmdk`` sub-commands."""
    p = sub.add_parser("solve-epsilon", help="the smallest ε that meets an accuracy target, "
                                            "per scheme")
    _data_options(p)
    p.add_argument("--within", type=bounded("accuracy_bound", "--within"),
                   help="error bound ±A (data units; metres for tracks)")
    p.add_argument("--probability", type=bounded("probability", "--probability"),
                   default=0.95, help="with this probability")
    p.add_argument("--mean-error", type=bounded("accuracy_bound", "--mean-error"),
                   help="or: mean absolute error at most M")
    p.add_argument("--per", choices=["each", "typical", "all"], default="each",
                   help="each released reading on its own (default), a typical one (the "
                        "average), or all readings at once (with --within)")
    p.add_argument("--schemes", default="uniform,skip,adaptive,user",
                   help=f"comma-separated, from {','.join(SCHEMES)}")
    p.add_argument("--unit", default="", help="unit of the data, for the printout")
    p.add_argument("--stays", default="", metavar="A-B,C-D",
                   help="tracks: stays (as printed by lmdk suggest) protected as ONE "
                        "landmark event each, as geo-release --stays does (docs/stays.md)")
    p.set_defaults(handler=_cmd_solve)

    p = sub.add_parser("attack", help="what an attacker learns: posterior bound, landmark "
                                      "inference, averaging a stay point")
    _data_options(p)
    p.add_argument("--epsilon", type=bounded("epsilon", "--epsilon"),
                   required=True, help="total privacy budget ε > 0")
    p.add_argument("--scheme", default="uniform", choices=list(SCHEMES), help="budget scheme")
    p.add_argument("--prior", type=bounded("prior", "--prior"),
                   default=0.1, help="attacker's prior probability")
    p.add_argument("--leakage", type=bounded("privacy_loss", "--leakage"),
                   help="landmark TPL under a correlation model (default: ε, independent)")
    p.add_argument("--stay", default="", help="timestamps of a stay (tracks), e.g. 0-99 or 3,4,5")
    p.add_argument("--days", default="1,7,30,90,365", help="numbers of daily releases")
    p.set_defaults(handler=_cmd_attack)

    p = sub.add_parser("compose", help="budget over repeated releases (basic and advanced "
                                       "composition)")
    p.add_argument("--releases", type=bounded("releases", "--releases"),
                   required=True, help="number of releases k")
    p.add_argument("--epsilon", type=bounded("epsilon", "--epsilon"), help="ε of each release")
    p.add_argument("--target", type=bounded("total_epsilon", "--target"),
                   help="or: total ε over the schedule → ε per release")
    p.add_argument("--delta", type=bounded("delta", "--delta"),
                   default=1e-6, help="δ' of advanced composition")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_cmd_compose)
