"""``lmdk allocate``, ``check``, ``release`` and ``geo-release``.

Heavy imports happen inside the handlers so that ``lmdk --help`` and argument errors
answer at once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lmdk_core.validation import InputError, parse_landmarks

STATIC_SCHEMES = ["event", "user", "w-event", "uniform", "skip"]
ALL_SCHEMES = STATIC_SCHEMES + ["adaptive"]


def _write_table(frame, output: str | None) -> None:
    if output in (None, "-"):
        frame.to_csv(sys.stdout, index=False)
        return
    path = Path(output)
    if path.parent and not path.parent.exists():
        raise InputError(f"cannot write {output}: folder {path.parent} does not exist")
    frame.to_csv(path, index=False)


def _cmd_allocate(args: argparse.Namespace) -> int:
    from lmdk_core.allocation import allocate, scheme_info
    from lmdk_core.cli import emit_json
    from lmdk_core.verifier import verify

    info = scheme_info(args.scheme)
    if info.data_dependent:
        raise InputError("the adaptive scheme depends on the data; use lmdk release to see it")
    landmarks = parse_landmarks(args.landmarks)
    eps = allocate(info.key, args.length, landmarks, args.epsilon, args.window)
    verdict = verify(eps, landmarks, args.epsilon)
    if args.json:
        emit_json({"scheme": info.key, "epsilon_t": eps, **verdict.to_dict()})
    else:
        print(f"scheme: {info.label} — {info.description}")
        print("epsilon_t: " + ", ".join(f"{e:.6g}" for e in eps))
        print(verdict.summary())
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from lmdk_core.cli import emit_json
    from lmdk_core.data.allocation_csv import load_allocation_csv
    from lmdk_core.verifier import verify

    eps = load_allocation_csv(args.allocation)
    verdict = verify(eps, parse_landmarks(args.landmarks), args.epsilon)
    if args.json:
        emit_json({"epsilon_t": eps, **verdict.to_dict()})
    else:
        print(verdict.summary())
    return 0 if verdict.private else 1


def _cmd_release(args: argparse.Namespace) -> int:
    from lmdk_core.cli import emit_json
    from lmdk_core.data.series import load_series_csv
    from lmdk_core.export import series_release_frame
    from lmdk_core.release import release_series

    series = load_series_csv(args.input, name=Path(args.input).name)
    rel = release_series(series.values, parse_landmarks(args.landmarks), args.epsilon,
                         args.scheme, args.mechanism, args.sensitivity, args.seed, args.window)
    _write_table(series_release_frame(series, rel), args.output)
    summary = {"scheme": rel.scheme, "mechanism": rel.mechanism, **rel.verdict.to_dict(),
               **rel.metrics(), "output": args.output}
    if args.json and args.output not in (None, "-"):
        emit_json(summary)
    elif args.output not in (None, "-"):
        print(rel.verdict.summary())
        m = rel.metrics()
        print(f"wrote {args.output}: {m['n_published']} published, "
              f"{m['n_approximated']} approximated, {m['n_withheld']} withheld; "
              f"MAE {m['mae']:.4g} (expected at publications {m['expected_mae_published']:.4g})")
    return 0


def _cmd_geo_release(args: argparse.Namespace) -> int:
    from lmdk_core.cli import emit_json
    from lmdk_core.data.track import load_track
    from lmdk_core.export import geojson_text, trajectory_geojson, trajectory_release_frame
    from lmdk_core.release import release_trajectory

    track = load_track(args.input, filename=args.input, name=Path(args.input).name)
    rel = release_trajectory(track.lat, track.lon, parse_landmarks(args.landmarks),
                             args.epsilon, args.radius, args.scheme, args.seed, args.window)
    out = args.output
    if out.lower().endswith(".geojson") or out.lower().endswith(".json"):
        path = Path(out)
        if not path.parent.exists():
            raise InputError(f"cannot write {out}: folder {path.parent} does not exist")
        path.write_text(geojson_text(trajectory_geojson(track, rel)))
    else:
        _write_table(trajectory_release_frame(track, rel), out)
    m = rel.metrics()
    candidates = [{"timestamp": w.index, "name": w.name, "distance_m": w.distance_m}
                  for w in track.waypoints]
    if args.json:
        emit_json({"scheme": rel.scheme, **rel.verdict.to_dict(),
                   "mean_displacement_m": m["mae"], "median_displacement_m": m["median_error"],
                   "p95_displacement_m": m["p95_error"],
                   "expected_displacement_m": m["expected_mae_published"],
                   "n_published": m["n_published"], "n_approximated": m["n_approximated"],
                   "n_withheld": m["n_withheld"], "candidate_landmarks": candidates,
                   "output": out})
    else:
        print(rel.verdict.summary())
        print(f"wrote {out}: mean displacement {m['mae']:.1f} m "
              f"(expected {m['expected_mae_published']:.1f} m at publications)")
        for c in candidates:
            print(f"candidate landmark: t={c['timestamp']} ({c['name']}, "
                  f"{c['distance_m']:.0f} m from the track)")
    return 0


def _common(p: argparse.ArgumentParser, schemes: list[str]) -> None:
    p.add_argument("--landmarks", default="", help="0-based timestamps, e.g. 3,7 ('' = none)")
    p.add_argument("--epsilon", type=float, required=True, help="total privacy budget ε > 0")
    p.add_argument("--scheme", default="uniform", choices=schemes)
    p.add_argument("--window", type=int, default=None, help="w for the w-event scheme")


def register(sub) -> None:
    """Add this module's sub-commands to ``sub``."""
    p = sub.add_parser("allocate", help="per-timestamp budget of a scheme + the verdict")
    p.add_argument("--length", type=int, required=True, help="number of timestamps T")
    _common(p, STATIC_SCHEMES)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_cmd_allocate)

    p = sub.add_parser("check", help="verify an allocation CSV against the landmark theorem")
    p.add_argument("--allocation", required=True, help="CSV with one ε_t per timestamp")
    p.add_argument("--landmarks", default="")
    p.add_argument("--epsilon", type=float, required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_cmd_check)

    p = sub.add_parser("release", help="release a time,value CSV")
    p.add_argument("--input", required=True)
    _common(p, ALL_SCHEMES)
    p.add_argument("--mechanism", default="laplace", choices=["laplace", "geometric"])
    p.add_argument("--sensitivity", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--output", default="-", help="output CSV ('-' = stdout)")
    p.add_argument("--json", action="store_true", help="print a JSON summary (with --output)")
    p.set_defaults(handler=_cmd_release)

    p = sub.add_parser("geo-release", help="release a time,lat,lon CSV or GPX track")
    p.add_argument("--input", required=True)
    _common(p, ALL_SCHEMES)
    p.add_argument("--radius", type=float, default=100.0, help="protection radius r (metres)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--output", required=True, help="out.csv or out.geojson")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(handler=_cmd_geo_release)
