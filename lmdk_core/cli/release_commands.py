"""``lmdk allocate``, ``check``, ``release`` and ``geo-release``.

Heavy imports happen inside the handlers so that ``lmdk --help`` and argument errors
answer at once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from lmdk_core.cli.bounded import OptionOutOfRange, bounded
from lmdk_core.cli.input_columns import add_column_options, track_columns
from lmdk_core.files.output_paths import check_outputs
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import agree, counted
from lmdk_core.foundation.validation import check_length, parse_landmarks

if TYPE_CHECKING:
    import numpy as np

#: ``--sensitivity auto``: refused for a publishable file; its message gives the suggestion
AUTO = "auto"
#: Δf of ``lmdk release`` when neither --sensitivity nor --bounds is given (a public default)
DEFAULT_SENSITIVITY = 1.0
_sensitivity_number = bounded("sensitivity", "--sensitivity")


def sensitivity_or_auto(text: str) -> float | str:
    """An argparse ``type``: ``auto`` (refused later with the data's suggestion and how to
    declare) or a number in the sensitivity range."""
    if text.strip().lower() == AUTO:
        return AUTO
    try:
        return _sensitivity_number(text)
    except OptionOutOfRange as exc:
        raise OptionOutOfRange(str(exc).replace(
            "; got", " or auto (prints the data's suggestion); got", 1)) from None


sensitivity_or_auto.setting = "sensitivity"  # type: ignore[attr-defined]  # as bounded()'s


STATIC_SCHEMES = ["event", "user", "w-event", "uniform", "skip"]
ALL_SCHEMES = STATIC_SCHEMES + ["adaptive"]


def _check_writable(output: str | None) -> None:
    """Refuse, before any work, a file that cannot be written."""
    if output in (None, "-"):
        return
    path = Path(output)
    if path.is_dir():
        raise InputError(f"cannot write {output}: it is a folder; give a file name")
    if path.parent and not path.parent.exists():
        raise InputError(f"cannot write {output}: folder {path.parent} does not exist")


def _write_text(text: str, output: str | None, *, confidential: bool = False) -> None:
    """Write ``text`` to the file ``output`` ('-' or None = stdout), whole and never
    through a link (:mod:`lmdk_core.files.atomic_write`); a ``confidential`` file
    (an audit) gets mode 0600."""
    from lmdk_core.files.atomic_write import write_atomically

    if output in (None, "-"):
        sys.stdout.write(text)
        return
    _check_writable(output)
    write_atomically(output, text, confidential=confidential)


def utility_line(uv) -> str:
    """The utility verdict (:mod:`lmdk_core.decision.utility`) as one line of the text output:
    ``utility: NOT USEFUL — This release is not useful: …``."""
    return f"utility: {uv.label.upper()} — {uv.sentence}"


def _is_geojson(path: str) -> bool:
    return path.lower().endswith((".geojson", ".json"))


def _cmd_allocate(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json
    from lmdk_core.engine.allocation import allocate, scheme_info
    from lmdk_core.engine.verifier import verify

    info = scheme_info(args.scheme)
    if info.data_dependent:
        raise InputError("the adaptive scheme depends on the data; use lmdk release to see it")
    landmarks = parse_landmarks(args.landmarks)
    eps = allocate(info.key, check_length(args.length, "--length"), landmarks, args.epsilon,
                   window=args.window)
    verdict = verify(eps, landmarks, args.epsilon)
    if args.json:
        emit_json({"scheme": info.key, "epsilon_t": eps, **verdict.to_dict()})
    else:
        print(f"scheme: {info.label} — {info.description}")
        print("epsilon_t: " + ", ".join(f"{e:.6g}" for e in eps))
        print(verdict.summary())
    if not verdict.private:
        # allocate describes a scheme and exits 0 whatever the verdict; check judges an
        # allocation and exits 1 when it is violated: say it, on one line
        print(f"lmdk: note: this allocation is NOT landmark-private (at t="
              f"{verdict.worst_timestamp} the landmarks plus t spend {verdict.worst_total:.4g} "
              f"> ε = {verdict.epsilon:.4g}); allocate still exits 0, lmdk check exits 1",
              file=sys.stderr)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json
    from lmdk_core.data.allocation_csv import load_allocation_csv
    from lmdk_core.engine.verifier import verify

    eps = load_allocation_csv(args.allocation)
    verdict = verify(eps, parse_landmarks(args.landmarks), args.epsilon)
    if args.json:
        emit_json({"epsilon_t": eps, **verdict.to_dict()})
    else:
        print(verdict.summary())
    return 0 if verdict.private else 1


def _check_release_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, an audit on stdout and output files that would overwrite
    the input or each other (:func:`lmdk_core.files.output_paths.check_outputs`)."""
    if args.audit == "-":
        raise InputError("--audit needs its own file name (not '-')")
    check_outputs({"--input": args.input}, {"--output": args.output, "--audit": args.audit})


def _cmd_release(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json
    from lmdk_core.data.series import load_series_csv
    from lmdk_core.decision.utility import release_utility
    from lmdk_core.engine.release import release_series
    from lmdk_core.engine.run_events import parse_runs
    from lmdk_core.files.export import (
        mechanism_text,
        noise_text,
        series_audit_csv,
        series_publishable_csv,
    )

    _check_release_outputs(args)
    series = load_series_csv(args.input, name=Path(args.input).name, time_col=args.time_col,
                             value_col=args.value_col, time_format=args.time_format)
    landmarks = parse_landmarks(args.landmarks)
    declared = _declared_sensitivity(args, series, landmarks)
    # one release (the exact sampler by default) is written to both files
    rel = release_series(declared.values, landmarks, epsilon=args.epsilon, scheme=args.scheme,
                         mechanism=args.mechanism, sensitivity=declared.sensitivity, seed=args.seed,
                         window=args.window, noise=args.noise, max_landmarks=args.max_landmarks,
                         runs=parse_runs(args.runs) or None)
    sensitivity, how = declared.sensitivity, declared.how
    mech = mechanism_text(args.mechanism, sensitivity=sensitivity, bounds=declared.bounds)
    noise = noise_text(rel.noise)
    _write_text(series_publishable_csv(series, rel, mech, noise, sensitivity=sensitivity),
                args.output)
    if args.audit:
        _write_text(series_audit_csv(series, rel, mech, noise, args.seed), args.audit,
                    confidential=True)
    utility = release_utility(rel, sensitivity=sensitivity, unit=series.unit)
    to_stdout = args.output in (None, "-")
    _note_clamped(declared, to_stdout or args.json)
    if to_stdout:
        return 0
    if args.json:
        emit_json({"scheme": rel.scheme, "mechanism": rel.mechanism, "sensitivity": sensitivity,
                   "sensitivity_from": how, "clamped": declared.clamped,
                   "n_runs": len(rel.stays), "n_landmark_events": _landmark_events(rel),
                   **rel.verdict.to_dict(),
                   **utility.to_dict(), **rel.metrics(), "output": args.output,
                   "audit": args.audit, "noise": noise})
    else:
        _print_series_release(rel, utility, args.output, args.audit)
    return 0


def _note_clamped(declared, to_stderr: bool) -> None:
    """With ``--bounds``, how many readings were clamped (a statistic of the raw data:
    on stderr or in the printout, never in the publishable file)."""
    if declared.bounds is not None:
        n = int(declared.clamped)
        print(f"lmdk: note: {counted(n, 'reading')} lay outside the declared bounds "
              f"[{declared.bounds[0]:g}, {declared.bounds[1]:g}] and "
              f"{agree(n, 'was', 'were')} clamped into them "
              "(not stated in the publishable file)",
              file=sys.stderr if to_stderr else sys.stdout)


def _print_series_release(rel, utility, output: str, audit: str | None) -> None:
    """The printout of ``lmdk release`` written to a file: verdict, utility, what was
    written (publishable, and the CONFIDENTIAL audit when asked for)."""
    print(rel.verdict.summary())
    print(utility_line(utility))
    if rel.stays:
        print(f"{counted(len(rel.stays), 'run')} of readings protected as one landmark "
              f"event each ({counted(_landmark_events(rel), 'landmark event')} for "
              f"{counted(rel.landmarks.size, 'landmark reading')}; docs/series-events.md)")
    m = rel.metrics()
    print(f"wrote {output} (publishable: released values only): "
          f"{m['n_published']} published, "
          f"{m['n_approximated']} approximated, {m['n_withheld']} withheld; "
          f"MAE {m['mae']:.4g} (expected at publications {m['expected_mae_published']:.4g})")
    if audit:
        print(f"wrote {audit}: CONFIDENTIAL audit table (raw data, ε_t, landmarks)")


class DeclaredSensitivity(NamedTuple):
    """Δf of ``lmdk release``, the values to release (clamped into ``bounds`` when
    declared), how Δf was declared, and how many readings were clamped (confidential)."""

    sensitivity: float
    values: np.ndarray
    how: str
    bounds: tuple[float, float] | None = None
    clamped: int = 0


def _declared_sensitivity(args: argparse.Namespace, series,
                          landmarks: list[int]) -> DeclaredSensitivity:
    """Δf of ``lmdk release``, always declared (the publishing rule, docs/privacy-model.md):
    ``--sensitivity X``, or ``--bounds LO,HI`` (readings clamped, Δf = HI − LO), or the
    public default 1. ``--sensitivity auto`` is refused with one line that gives the
    data's suggestion (:func:`lmdk_core.decision.sensitivity.derived_sensitivity`: the
    largest departure of any reading from its usual level, rounded up) and how to declare
    it: a Δf computed from the data would make the file depend on the data."""
    if args.sensitivity == AUTO:
        from lmdk_core.decision.sensitivity import derived_sensitivity

        d = derived_sensitivity(series, landmarks, whole=args.mechanism == "geometric")
        raise InputError(
            f"--sensitivity auto would take Δf from the data, on which a publishable file "
            f"must not depend; the data suggest Δf = {d.value:g} (the largest departure of "
            f"any reading from its usual level, rounded up): declare it with --sensitivity "
            f"{d.value:g}, or declare the readings' range with --bounds LO,HI")
    if args.bounds is not None:
        if args.sensitivity is not None:
            raise InputError("give either --sensitivity or --bounds (Δf = HI − LO), not both")
        from lmdk_core.cli.bounded import parse_bounds
        from lmdk_core.decision.mechanism_choice import clamp_to_bounds

        lo, hi = parse_bounds(args.bounds)
        if args.mechanism == "geometric" and not (lo.is_integer() and hi.is_integer()):
            raise InputError("the Geometric mechanism needs whole-number --bounds LO,HI")
        c = clamp_to_bounds(series.values, lo, hi)
        return DeclaredSensitivity(c.sensitivity, c.values, "declared bounds (--bounds)",
                                   (lo, hi), c.n_clamped)
    if args.sensitivity is None:
        return DeclaredSensitivity(DEFAULT_SENSITIVITY, series.values,
                                   "the default (declare --sensitivity or --bounds)")
    return DeclaredSensitivity(float(args.sensitivity), series.values,
                               "declared (--sensitivity)")


def _cmd_geo_release(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json
    from lmdk_core.data.track_loading import load_track
    from lmdk_core.decision.utility import release_utility
    from lmdk_core.engine.release import release_trajectory
    from lmdk_core.engine.stay_events import parse_stays
    from lmdk_core.files.export import mechanism_text, planar_noise_text

    out = args.output
    _check_release_outputs(args)
    track = load_track(args.input, filename=args.input, name=Path(args.input).name,
                       **track_columns(args))
    region = _declared_region(args, track)
    rel = release_trajectory(track.lat, track.lon, parse_landmarks(args.landmarks),
                             epsilon=args.epsilon, radius=args.radius, scheme=args.scheme,
                             seed=args.seed, window=args.window, stays=parse_stays(args.stays),
                             max_landmarks=args.max_landmarks, noise=args.noise, region=region)
    # printed once the release is drawn, so that refused settings stay one line on stderr
    _print_loader_notes(track)
    mech = mechanism_text("planar laplace", radius=args.radius)
    noise = planar_noise_text(args.noise, args.radius, region)
    _write_track_release(track, rel, mech, out, args.radius, noise)
    if args.audit:
        _write_track_audit(track, rel, mech, args.audit, args.seed, noise)
    utility = release_utility(rel, radius=args.radius, times=track.time)
    candidates = [{"timestamp": w.index, "name": w.name, "distance_m": w.distance_m}
                  for w in track.waypoints]
    if out == "-":
        return 0
    judged = _track_judgement(track, rel, args)
    if args.json:
        emit_json(_track_release_summary(rel, utility, candidates, out, args.audit, judged,
                                         noise))
    else:
        _print_track_release(rel, utility, candidates, out, args.audit, judged)
    return 0


def _track_judgement(track, rel, args: argparse.Namespace):
    """(verdict, averaging) of a track release, for the curator's screen only (both are
    computed from the raw track): the one verdict of the report and the Map — the theorem
    plus landmark TPL under the correlation model estimated from the track's grid cells
    of ``--cell-size`` metres, the worst over the smoothing range
    (:mod:`lmdk_core.decision.release_verdict`) — and what a moving average of the
    published file recovers (:mod:`lmdk_core.decision.averaging`)."""
    from lmdk_core.decision.averaging import averaging_effect
    from lmdk_core.decision.comparison import track_release_fn
    from lmdk_core.decision.release_verdict import release_leakage, release_verdict
    from lmdk_core.figures.common import hover_labels
    from lmdk_core.leakage.model import DEFAULT_CELL_SIZE_M, correlation_from_spec

    cell = DEFAULT_CELL_SIZE_M if args.cell_size is None else args.cell_size
    model = correlation_from_spec(None, track, default_cell_size=cell)
    verdict = release_verdict(rel, release_leakage(rel, model),
                              hover_labels(track.time, track.time_kind))
    fn = track_release_fn(track.lat, track.lon, rel.landmarks.tolist(), radius=args.radius,
                          window=args.window, stays=rel.stays, max_landmarks=rel.max_landmarks)
    return verdict, averaging_effect(fn, rel.scheme, rel.epsilon)


def _print_loader_notes(track) -> None:
    """What the loader did with the times (repeated, backwards, filled), on stderr: the
    app shows the same notes and warnings above the map."""
    for note in track.notes:
        print(f"lmdk: note: {note}", file=sys.stderr)
    for warning in track.warnings:
        print(f"lmdk: warning: {warning}", file=sys.stderr)


def _declared_region(args: argparse.Namespace, track):
    """The declared region of an exact track release (``--region``), None for
    ``--noise fast``; an exact release without one is refused with how to declare it and
    the data's suggestion (:func:`lmdk_core.decision.region_suggestion.suggested_region`,
    never used unasked)."""
    from lmdk_core.decision.region_suggestion import suggested_region
    from lmdk_core.mechanisms.exact_planar import PlanarRegion

    if args.region is not None:
        return PlanarRegion.parse(args.region)
    if args.noise == "exact":
        hint = suggested_region(track.lat, track.lon)
        said = (f"; the data suggest --region {hint.text()}" if hint is not None else "")
        raise InputError("--noise exact (the default) releases on the grid of a declared "
                         "region, which must not be computed from the data: add --region "
                         f"LAT,LON,KM (a public area holding the track){said}; or use "
                         "--noise fast to explore")
    return None


def _write_track_release(track, rel, mech: str, out: str, radius: float, noise: str) -> None:
    """The publishable release as GeoJSON, an HTML map or CSV (by ``out``'s extension)."""
    from lmdk_core.files.export import (
        geojson_text,
        trajectory_publishable_csv,
        trajectory_publishable_geojson,
    )

    if out != "-" and _is_geojson(out):
        _write_text(geojson_text(trajectory_publishable_geojson(track, rel, mech, noise)), out)
    elif out != "-" and out.lower().endswith((".html", ".htm")):
        from lmdk_core.figures.release_map import released_track_map_html

        _write_text(released_track_map_html(track, rel, mech, noise), out)
    else:
        _write_text(trajectory_publishable_csv(track, rel, mech, noise, radius=radius), out)


def _write_track_audit(track, rel, mech: str, audit: str, seed: int | None,
                       noise: str) -> None:
    """The CONFIDENTIAL audit of a track release, as GeoJSON or CSV."""
    from lmdk_core.files.export import geojson_text, trajectory_audit_csv, trajectory_geojson

    if _is_geojson(audit):
        doc = trajectory_geojson(track, rel)
        doc["properties"].update({"seed": seed, "noise": noise})
        _write_text(geojson_text(doc), audit, confidential=True)
    else:
        _write_text(trajectory_audit_csv(track, rel, mech, noise, seed), audit,
                    confidential=True)


def _track_release_summary(rel, utility, candidates: list[dict], out: str,
                           audit: str | None, judged, noise: str) -> dict:
    """The JSON summary of ``lmdk geo-release``: verdict (with landmark TPL), utility,
    what averaging recovers, displacements, counts, the sampler."""
    m = rel.metrics()
    verdict, averaging = judged
    return {"scheme": rel.scheme, **rel.verdict.to_dict(), **verdict.to_dict(),
            **utility.to_dict(),
            **averaging.to_dict(),
            "n_landmarks": int(rel.landmarks.size), "n_stays": len(rel.stays),
            "n_landmark_events": _landmark_events(rel),
            "mean_displacement_m": m["mae"], "median_displacement_m": m["median_error"],
            "max_displacement_m": m["max_error"],
            "p95_displacement_m": m["p95_error"],
            "expected_displacement_m": m["expected_mae_published"],
            "n_published": m["n_published"], "n_approximated": m["n_approximated"],
            "n_withheld": m["n_withheld"], "candidate_landmarks": candidates,
            "output": out, "audit": audit, "noise": noise}


def _print_track_release(rel, utility, candidates: list[dict], out: str,
                         audit: str | None, judged) -> None:
    """The printout of ``lmdk geo-release``: verdict (with landmark TPL), utility, what
    averaging recovers, stays, what was written, candidate landmarks from the track's
    waypoints."""
    m = rel.metrics()
    verdict, averaging = judged
    print(f"{verdict.colour.upper()} — {verdict.headline}. {verdict.sentence}")
    print(utility_line(utility))
    print(f"averaging: {averaging.sentence()}")
    if rel.stays:
        events = _landmark_events(rel)
        print(f"{counted(len(rel.stays), 'stay')} protected as one landmark event each "
              f"({counted(events, 'landmark event')} for "
              f"{counted(rel.landmarks.size, 'landmark fix', 'landmark fixes')}; "
              "docs/stays.md)")
    print(f"wrote {out} (publishable: released locations only): mean displacement "
          f"{m['mae']:.1f} m, median {m['median_error']:.1f} m (expected "
          f"{m['expected_mae_published']:.1f} m at publications)")
    if audit:
        print(f"wrote {audit}: CONFIDENTIAL audit table (raw track, ε_t, landmarks)")
    for c in candidates:
        print(f"candidate landmark: t={c['timestamp']} ({c['name']}, "
              f"{c['distance_m']:.0f} m from the track)")


def _landmark_events(rel) -> int:
    """Landmark events of a release: each stay (run) once, each other landmark once."""
    in_stays = sum(b - a + 1 for a, b in rel.stays)
    return len(rel.stays) + int(rel.landmarks.size) - in_stays


def _common(p: argparse.ArgumentParser, schemes: list[str]) -> None:
    p.add_argument("--landmarks", default="",
                   help="0-based timestamps and ranges, e.g. 3,7,10-20 ('' = none)")
    p.add_argument("--epsilon", type=bounded("epsilon", "--epsilon"),
                   required=True, help="total privacy budget ε > 0")
    p.add_argument("--scheme", default="uniform", choices=schemes,
                   help="budget scheme (docs/privacy-model.md)")
    p.add_argument("--window", type=bounded("window", "--window"),
                   default=None, help="w for the w-event scheme")


def _max_landmarks_option(p: argparse.ArgumentParser) -> None:
    """``--max-landmarks K``: the declared (public) bound on landmark events."""
    from lmdk_core.engine.allocation import DEFAULT_MAX_LANDMARKS

    p.add_argument("--max-landmarks", type=bounded("max_landmarks", "--max-landmarks"),
                   default=DEFAULT_MAX_LANDMARKS, metavar="K",
                   help="declared bound k on landmark events (public, stated in the file's "
                        "header instead of the number marked): Uniform spends ε/(k+1) "
                        "whatever the landmarks are; more landmarks than k are refused "
                        f"(default {DEFAULT_MAX_LANDMARKS})")


def register(sub) -> None:
    """Add this module's sub-commands to ``sub``."""
    p = sub.add_parser("allocate", help="per-timestamp budget of a scheme + the verdict")
    p.add_argument("--length", type=bounded("length", "--length"),
                   required=True, help="number of timestamps T")
    _common(p, STATIC_SCHEMES)
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_cmd_allocate)

    p = sub.add_parser("check", help="verify an allocation CSV against the landmark theorem")
    p.add_argument("--allocation", required=True, help="CSV with one ε_t per timestamp")
    p.add_argument("--landmarks", default="",
                   help="0-based timestamps and ranges, e.g. 3,7,10-20 ('' = none)")
    p.add_argument("--epsilon", type=bounded("epsilon", "--epsilon"),
                   required=True, help="total privacy budget ε > 0")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_cmd_check)

    p = sub.add_parser("release", help="release a time,value CSV")
    p.add_argument("--input", required=True, help="series CSV (time,value by default)")
    p.add_argument("--time-col", default="time",
                   help="the time column (whole numbers or ISO 8601 with any offset)")
    p.add_argument("--value-col", default="value", help="the value column")
    p.add_argument("--time-format", default=None, metavar="FORMAT",
                   help="times that are not ISO 8601, as strptime codes, e.g. "
                        "\"%%m/%%d/%%Y %%H:%%M:%%S\" (month first); day-first and "
                        "month-first are never guessed")
    _common(p, ALL_SCHEMES)
    p.add_argument("--mechanism", default="laplace", choices=["laplace", "geometric"],
                   help="noise mechanism (geometric: whole-number data and a whole Δf)")
    p.add_argument("--sensitivity", type=sensitivity_or_auto, default=None,
                   help="declared sensitivity Δf of one reading (noise scale Δf/ε_t; default "
                        f"{DEFAULT_SENSITIVITY:g}); auto is refused with the data's "
                        "suggestion (the largest departure of any reading from its usual "
                        "level, rounded up) and how to declare it")
    p.add_argument("--bounds", default=None, metavar="LO,HI",
                   help="declared range of a reading: readings are clamped into it and "
                        "Δf = HI − LO (the number clamped is printed, never written to the "
                        "publishable file); instead of --sensitivity")
    _max_landmarks_option(p)
    p.add_argument("--runs", default="", metavar="A-B,C-D",
                   help="runs of consecutive readings (ranges of timestamps, as printed by "
                        "lmdk suggest) protected as ONE landmark event each: one release of "
                        "the run's mean, its readings publish it plus fresh noise, so the "
                        "cost does not grow with the readings and k counts each run once "
                        "(docs/series-events.md)")
    p.add_argument("--seed", type=bounded("seed", "--seed"), default=None,
                   help="seed of numpy's generator: with --noise fast it reproduces the noise; "
                        "with --noise exact it drives only Adaptive's sampling (the exact "
                        "noise comes from OS entropy and cannot be seeded)")
    p.add_argument("--noise", choices=["exact", "fast"], default="exact",
                   help="noise sampler: exact (default) = exact discrete Laplace noise, safe "
                        "against floating-point attacks (Mironov, CCS 2012), for files you "
                        "publish; fast = numpy's floating-point samplers, reproducible with "
                        "--seed, for exploration only")
    p.add_argument("--output", default="-",
                   help="publishable CSV: time,released only ('-' = stdout)")
    p.add_argument("--audit", default=None, metavar="FILE",
                   help="also write the CONFIDENTIAL audit CSV (time,value,released,epsilon,"
                        "published; landmarks and seed in its header)")
    p.add_argument("--json", action="store_true", help="print a JSON summary (with --output)")
    p.set_defaults(handler=_cmd_release)

    p = sub.add_parser("geo-release", help="release a time,lat,lon CSV or GPX track")
    p.add_argument("--input", required=True, help="track: CSV time,lat,lon[,segment] (or "
                   "named columns) or GPX")
    add_column_options(p, series=False)
    _common(p, ALL_SCHEMES)
    p.add_argument("--radius", type=bounded("radius", "--radius"),
                   default=100.0, help="protection radius r (metres)")
    _max_landmarks_option(p)
    p.add_argument("--cell-size", type=bounded("cell_size_m", "--cell-size"),
                   default=None, metavar="M",
                   help="grid cells (metres) of the correlation model the verdict's temporal "
                        "leakage (TPL) is computed under, as on the Map: the moves between "
                        "cells counted from the track (default: the Map's default cells)")
    p.add_argument("--stays", default="", metavar="A-B,C-D",
                   help="stays (ranges of timestamps, as printed by lmdk suggest) protected as "
                        "ONE landmark event each: one release of the stay's centroid, its "
                        "fixes publish it, so the cost does not grow with the fixes "
                        "(docs/stays.md)")
    p.add_argument("--region", default=None, metavar="LAT,LON[,KM]",
                   help="the public region holding the track (centre in degrees, radius in "
                        "km, default 1000, at most 2000), declared, never computed from the "
                        "data: --noise exact releases on its grid (docs/noise.md)")
    p.add_argument("--noise", choices=["exact", "fast"], default="exact",
                   help="noise sampler: exact (default) = exact discrete Planar Laplace on "
                        "the grid of --region, safe against floating-point attacks (Mironov, "
                        "CCS 2012), for files you publish; fast = numpy's floating-point "
                        "Planar Laplace, reproducible with --seed, for exploration only")
    p.add_argument("--seed", type=bounded("seed", "--seed"), default=None,
                   help="seed of numpy's generator: with --noise fast it reproduces the noise; "
                        "with --noise exact it drives only Adaptive's sampling")
    p.add_argument("--output", required=True,
                   help="publishable out.csv (time,released_lat,released_lon), out.geojson "
                        "(released path and points) or out.html (an offline map of the "
                        "released track, no network needed to open it); '-' = CSV on stdout")
    p.add_argument("--audit", default=None, metavar="FILE",
                   help="also write the CONFIDENTIAL audit table (.csv: time,lat,lon,"
                        "released_lat,released_lon,epsilon,published; .geojson: original path, "
                        "landmarks, released points)")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(handler=_cmd_geo_release)
