"""Utility of a default release on the real public files of ``tests/data/real/``.

Series: every series fixture the loaders accept, released as ``lmdk release`` does with
every setting at its default (ε = 1, Uniform, Laplace, the CLI's Δf) and no landmark;
printed: the MAE over 5 seeds (0–4, median), the series' spread (its interquartile
range, the scale the utility line compares with, docs/utility.md), their ratio and the
utility level the verdict shows. Tracks: the stays benchmark
(``benchmarks/bench_stays.py``: median displacement with the suggested stays accepted at
the defaults), run on the same folder. Runs: the suggestions of every series accepted,
each reading a landmark against each run of readings one event (docs/series-events.md)
and Skip.

The sections are functions in :data:`SECTIONS`; add one to measure something else on
the same files.

Run: python benchmarks/bench_real_data.py
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lmdk_core.cli import main as lmdk  # noqa: E402
from tests.engine.test_real_data import SERIES, SERIES_COLUMNS, SERIES_DIR  # noqa: E402

SEEDS = range(5)


def _release_json(path: Path, tcol: str, vcol: str, seed: int, out: Path) -> dict:
    """``lmdk release --json`` at the defaults (ε = 1, no landmark), in process."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = lmdk(["release", "--input", str(path), "--time-col", tcol, "--value-col", vcol,
                     "--epsilon", "1", "--seed", str(seed), "--output", str(out), "--json"])
    if code != 0:
        raise RuntimeError(f"lmdk release exited {code} on {path.name}")
    return json.loads(buf.getvalue())


def series_section(tmp: Path) -> None:
    print("Series: a default release (ε = 1, Uniform, Laplace, CLI Δf), no landmark; "
          f"MAE = median over seeds {SEEDS.start}–{SEEDS.stop - 1}")
    print(f"{'series':30s} {'rows':>6s} {'MAE':>10s} {'spread (IQR)':>13s} {'MAE/IQR':>8s}  "
          "utility")
    for name in sorted(SERIES):
        if "error" in SERIES[name]:
            print(f"{name:30s} refused by the loader: {SERIES[name]['error']}")
            continue
        tcol, vcol = SERIES_COLUMNS[name]
        docs = [_release_json(SERIES_DIR / name, tcol, vcol, s, tmp / "o.csv") for s in SEEDS]
        mae = float(np.median([d["mae"] for d in docs]))
        scale = docs[0]["data_scale"]
        ratio = mae / scale if scale else float("inf")
        print(f"{name:30s} {docs[0]['n_published']:6d} {mae:10.4g} {scale:13.4g} "
              f"{ratio:8.3f}  {docs[0]['utility']}")


def tracks_section(tmp: Path) -> None:
    """The stays benchmark on the same folder (it prints its own table)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_stays
    except ImportError as exc:  # pragma: no cover - the script is part of the repository
        print(f"Tracks: benchmarks/bench_stays.py not importable ({exc})")
        return
    print()
    print("Tracks (benchmarks/bench_stays.py):")
    bench_stays.main(bench_stays.track_files())


#: the measurements, in order; each takes a scratch folder
def runs_section(tmp: Path) -> None:
    """Suggested runs of readings accepted as one event each (docs/series-events.md):
    per series, the suggestions (readings, events, the largest score as shown) and the
    typical expected error over the interquartile range at ε = 2 with Δf = IQR/10 (so a
    release without landmarks is useful): Uniform with every reading a landmark (k =
    readings), Uniform with each run one event (k = events), and Skip."""
    from lmdk_core.data.series import load_series_csv
    from lmdk_core.decision.utility import release_utility
    from lmdk_core.engine.release import release_series
    from lmdk_core.landmarks.discovery import (
        series_suggestions,
        shown_score,
        suggested_timestamps,
    )

    print()
    print("Series, suggestions accepted (ε = 2, Δf = IQR/10, Laplace): typical expected "
          "error / IQR and the utility level")
    print(f"{'series':30s} {'readings':>8s} {'events':>6s} {'top score':>9s}  "
          f"{'every reading':>24s} {'runs as events':>24s} {'Skip':>22s}")
    for name in sorted(SERIES):
        if "error" in SERIES[name]:
            continue
        tcol, vcol = SERIES_COLUMNS[name]
        s = load_series_csv(SERIES_DIR / name, time_col=tcol, value_col=vcol)
        sug = series_suggestions(s.time, s.time_kind, s.values)
        lm, ev = suggested_timestamps(sug.found), sug.events
        if not lm:
            print(f"{name:30s} no suggestion")
            continue
        q1, q3 = np.percentile(s.values, [25, 75])
        df = float(q3 - q1) / 10 or 1.0
        cells = []
        for scheme, runs, k in (("uniform", None, len(lm)), ("uniform", ev, len(ev)),
                                ("skip", None, len(lm))):
            rel = release_series(s.values, lm, epsilon=2.0, scheme=scheme, mechanism="laplace",
                                 sensitivity=df, seed=0, runs=runs, max_landmarks=k)
            uv = release_utility(rel, sensitivity=df)
            cells.append(f"{uv.ratio:8.3g} {uv.label:>14s}")
        top = shown_score(max(x.score for x in sug.found))
        print(f"{name:30s} {len(lm):8d} {len(ev):6d} {top:>9s}  " + " ".join(
            f"{c:>24s}" for c in cells))


SECTIONS: list[Callable[[Path], None]] = [series_section, runs_section, tracks_section]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        for section in SECTIONS:
            section(Path(d))
