"""``lmdk loss``, ``leakage``, ``supremum`` and ``calibrate`` (temporal privacy leakage).

Cao, Yoshikawa, Xiao, Xiong, "Quantifying Differential Privacy under Temporal
Correlations" (ICDE'17 / TKDE'18); see :mod:`lmdk_core.leakage`. Matrix files are
``n`` lines of ``n`` comma-separated numbers, no header.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import TYPE_CHECKING

from lmdk_core.cli.bounded import bounded
from lmdk_core.decision.verdict import privacy_verdict
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.setting_limits import LIMITS, check_setting
from lmdk_core.foundation.validation import check_length, check_positive, parse_landmarks

if TYPE_CHECKING:
    import numpy as np

    from lmdk_core.leakage.loss import LossFunction

# Engine modules are imported inside the handlers: each sub-command loads only what it
# uses (none of these needs pandas or scipy).

STATIC_SCHEMES = ["event", "user", "w-event", "uniform", "skip"]


def _parse_alphas(text: str) -> np.ndarray:
    """``--alpha 0.1,1``: comma-separated values α ≥ 0 of the loss function."""
    import numpy as np

    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise InputError("--alpha needs at least one value, e.g. --alpha 0.1,1")
    return np.array([_alpha(p) for p in parts])


def _alpha(text: str) -> float:
    """One ``--alpha`` value: a finite number ≥ 0 within the privacy-loss range."""
    try:
        a = float(text)
    except ValueError:
        raise InputError(f"--alpha value {text!r} is not a number; give e.g. 0.1,1") from None
    if not math.isfinite(a) or a < 0:
        raise InputError(f"--alpha value {text!r} must be a finite number >= 0")
    return check_setting("privacy_loss", a, label="--alpha")


def _loss(path: str, option: str) -> LossFunction:
    from lmdk_core.leakage.correlation import load_matrix_csv
    from lmdk_core.leakage.loss import LossFunction

    return LossFunction(load_matrix_csv(path, name=f"the {option} file ({path})"),
                        name=f"the {option} file ({path})")


def _length(value: int | None) -> int | None:
    if value is None:
        return None
    return check_length(value, "--length")


def _cmd_loss(args: argparse.Namespace) -> int:
    import numpy as np

    from lmdk_core.cli.json_output import emit_json

    alphas = _parse_alphas(args.alpha)
    loss = _loss(args.matrix, "--matrix")
    values = np.asarray(loss(alphas))  # alphas is 1-D: an array of the same shape
    if args.json:
        emit_json({"alpha": alphas, "loss": values})
    else:
        print("alpha,loss")
        for a, v in zip(alphas.tolist(), values.tolist(), strict=True):
            print(f"{a:.10g},{v:.10g}")
    return 0


def _cmd_leakage(args: argparse.Namespace) -> int:
    from lmdk_core.leakage.tpl import temporal_leakage

    eps = _leakage_allocation(args)
    if args.total_epsilon is not None:
        check_setting("total_epsilon", args.total_epsilon, label="--total-epsilon")
    lb = _loss(args.backward, "--backward")
    lf = lb if args.forward is None else _loss(args.forward, "--forward")
    landmarks = _leakage_landmarks(args.landmarks, args.total_epsilon)
    res = temporal_leakage(eps, lb, lf, landmarks)
    verdict = _leakage_verdict(eps, landmarks, args.total_epsilon, res, lb, lf)
    if args.json:
        _emit_leakage(res, verdict)
        return 0
    if verdict is not None:
        print(f"{verdict.colour.upper()}: {verdict.sentence}", file=sys.stderr)
    _print_leakage_table(eps, res)
    return 0


def _leakage_landmarks(text: str | None, total_epsilon: float | None) -> list[int] | None:
    """``--landmarks``; none given: no landmark TPL, unless ``--total-epsilon`` asks for the
    verdict, which needs a landmark set (possibly empty)."""
    if text is not None:
        return parse_landmarks(text)
    return [] if total_epsilon is not None else None


def _leakage_verdict(eps, landmarks: list[int] | None, total_epsilon: float | None, res,
                     lb: LossFunction, lf: LossFunction):
    """The verdict at ``--total-epsilon`` (None without it): an amber verdict computes its
    calibration advice under the same matrices."""
    if total_epsilon is None:
        return None
    return privacy_verdict(eps, landmarks, total_epsilon, landmark_tpl=res.landmark_tpl,
                           model="the given matrices", backward=lb, forward=lf)


def _leakage_allocation(args: argparse.Namespace):
    """The ε_t of ``lmdk leakage``: ``--allocation`` or a constant ``--epsilon`` over
    ``--length`` timestamps (exactly one of the two ways), every ε_t at most the largest
    privacy loss the tools take."""
    import numpy as np

    from lmdk_core.data.allocation_csv import load_allocation_csv

    if args.allocation is not None:
        if args.epsilon is not None or args.length is not None:
            raise InputError("give either --allocation or --epsilon with --length, not both")
        eps = load_allocation_csv(args.allocation)
    else:
        eps = _constant_allocation(args.epsilon, args.length)
    top = LIMITS["privacy_loss"].high
    if eps.size and float(np.max(eps)) > top:  # sums of budgets must stay finite
        raise InputError(f"--allocation: every ε_t must be at most {top:g} (the largest "
                         f"privacy loss the tools take); got {float(np.max(eps)):g}")
    return eps


def _constant_allocation(epsilon: float | None, length: int | None):
    """``--epsilon e --length T``: the constant budget e at each of T timestamps."""
    import numpy as np

    from lmdk_core.leakage.supremum import check_constant_epsilon

    if epsilon is None or length is None:
        raise InputError(
            "give --epsilon e and --length T (a constant budget), or --allocation eps.csv"
        )
    e = check_constant_epsilon(epsilon, "--epsilon")
    check_setting("privacy_loss", e, label="--epsilon")
    return np.full(_length(length), e)


def _emit_leakage(res, verdict) -> None:
    """The leakage (and the verdict, when there is one) as one JSON object."""
    import numpy as np

    from lmdk_core.cli.json_output import emit_json

    out = res.to_dict()
    if res.landmark_tpl is not None:
        out["landmark_tpl_max"] = float(np.max(res.landmark_tpl))
    if verdict is not None:
        out.update(verdict.to_dict())
    emit_json(out)


def _print_leakage_table(eps, res) -> None:
    """The leakage per timestamp as CSV on stdout (landmark TPL when computed)."""
    cols = ["t", "epsilon_t", "bpl", "fpl", "tpl"]
    if res.landmark_tpl is not None:
        cols.append("landmark_tpl")
    print(",".join(cols))
    for t in range(eps.size):
        row = [eps[t], res.bpl[t], res.fpl[t], res.tpl[t]]
        if res.landmark_tpl is not None:
            row.append(res.landmark_tpl[t])
        print(f"{t}," + ",".join(f"{v:.10g}" for v in row))


def _cmd_supremum(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json
    from lmdk_core.leakage.supremum import check_constant_epsilon, supremum

    e = check_constant_epsilon(args.epsilon, "--epsilon")
    check_setting("privacy_loss", e, label="--epsilon")
    sup = supremum(_loss(args.matrix, "--matrix"), e)
    if args.json:
        emit_json({"supremum": sup})
    elif math.isinf(sup):
        print(f"supremum: infinite (the leakage grows without bound at epsilon = {e:g})")
    else:
        print(f"supremum: {sup:.10g}")
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json

    check_positive(args.target, "--target")
    check_setting("privacy_loss", args.target, label="--target")
    lb = _loss(args.matrix, "--matrix")
    lf = lb if args.forward is None else _loss(args.forward, "--forward")
    length = _length(args.length)
    landmarks = parse_landmarks(args.landmarks)
    if landmarks or args.scheme is not None:
        out, text = _calibrate_scheme(args, lb, lf, length, landmarks)
    else:
        out, text = _calibrate_constant(args.target, lb, lf, length)
    if args.json:
        emit_json(out)
    else:
        print(text)
    return 0


def _calibrate_scheme(args: argparse.Namespace, lb, lf, length: int | None,
                      landmarks: list[int]) -> tuple[dict, str]:
    """(JSON, line) of the scale of a static scheme's allocation whose largest landmark
    TPL stays ≤ the target (Cao et al.'s calibration)."""
    from lmdk_core.engine.allocation import allocate, scheme_info
    from lmdk_core.leakage.calibration import calibrate_scale

    if length is None:
        raise InputError("--length T is needed to scale a scheme's allocation")
    info = scheme_info(args.scheme or "uniform")
    if info.data_dependent:
        raise InputError("the adaptive scheme depends on the data; calibrate a static scheme")
    base = allocate(info.key, length, landmarks, args.target, window=args.window)
    res = calibrate_scale(base, args.target, lb, lf, landmarks)
    out = {"scheme": info.key, "target": res.target, "scale": res.value,
           "epsilon": res.value * args.target, "achieved": res.achieved,
           "length": length, "landmarks": landmarks, "epsilon_t": res.epsilon_t}
    text = (f"scale {res.value:.10g} of the {info.label} allocation for epsilon = "
            f"{args.target:g}: total epsilon {res.value * args.target:.10g}; largest "
            f"landmark TPL {res.achieved:.10g} <= {res.target:g}")
    return out, text


def _calibrate_constant(target: float, lb, lf, length: int | None) -> tuple[dict, str]:
    """(JSON, line) of the largest constant ε per timestamp whose TPL stays ≤ the target
    over ``length`` timestamps (an unbounded series when None)."""
    from lmdk_core.leakage.calibration import calibrate_epsilon

    res = calibrate_epsilon(target, lb, lf, length)
    out = {"epsilon": res.value, "target": res.target, "achieved": res.achieved,
           "length": length}
    horizon = "an unbounded series" if length is None else f"{length} timestamps"
    text = (f"epsilon per timestamp {res.value:.10g}: largest TPL over {horizon} "
            f"{res.achieved:.10g} <= {res.target:g}")
    return out, text


def register(sub) -> None:
    """Add this module's sub-commands to ``sub``."""
    p = sub.add_parser("loss", help="loss function L_P(alpha) of a transition matrix")
    p.add_argument("--matrix", required=True, help="CSV: n lines of n probabilities")
    p.add_argument("--alpha", required=True, help="comma-separated alphas >= 0, e.g. 0.1,1")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_cmd_loss)

    p = sub.add_parser("leakage", help="BPL, FPL, TPL (and landmark TPL) per timestamp")
    p.add_argument("--backward", required=True, help="backward transition matrix CSV")
    p.add_argument("--forward", default=None, help="forward matrix CSV (default: --backward)")
    p.add_argument("--epsilon", type=bounded("privacy_loss", "--epsilon"),
                   default=None, help="constant budget per timestamp")
    p.add_argument("--length", type=bounded("length", "--length"),
                   default=None, help="number of timestamps T")
    p.add_argument("--allocation", default=None, help="CSV with one epsilon_t per timestamp")
    p.add_argument("--landmarks", default=None,
                   help="0-based timestamps and ranges, e.g. 3,7,10-20")
    p.add_argument("--total-epsilon", type=bounded("total_epsilon", "--total-epsilon"),
                   default=None, dest="total_epsilon",
                   help="the landmark-privacy budget ε: adds the verdict (green / amber / red: "
                        "theorem + landmark TPL under these matrices)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_cmd_leakage)

    p = sub.add_parser("supremum", help="supremum of BPL/FPL for a constant epsilon")
    p.add_argument("--matrix", required=True, help="transition matrix CSV (n lines of n "
                   "probabilities)")
    p.add_argument("--epsilon", type=bounded("privacy_loss", "--epsilon"),
                   required=True, help="constant budget per timestamp")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_cmd_supremum)

    p = sub.add_parser("calibrate", help="largest budget whose leakage stays <= a target")
    p.add_argument("--matrix", required=True, help="backward matrix CSV")
    p.add_argument("--forward", default=None, help="forward matrix CSV (default: --matrix)")
    p.add_argument("--target", type=bounded("privacy_loss", "--target"),
                   required=True, help="target leakage alpha > 0")
    p.add_argument("--length", type=bounded("length", "--length"), default=None,
                   help="number of timestamps T (omit: unbounded series, constant epsilon)")
    p.add_argument("--landmarks", default="",
                   help="0-based timestamps and ranges, e.g. 3,7,10-20")
    p.add_argument("--scheme", default=None, choices=STATIC_SCHEMES,
                   help="scale this scheme's allocation (default uniform with --landmarks)")
    p.add_argument("--window", type=bounded("window", "--window"),
                   default=None, help="w for the w-event scheme")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_cmd_calibrate)
