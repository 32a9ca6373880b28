"""The default verdict on real data, under the correlation model estimated from each file.

For every real series and track under ``tests/data/real/`` (the columns named in
``tests/engine/test_real_data.py``): the default model (series: 10 equal-count bins; tracks:
250 m grid cells; add-one smoothing, forward and backward counted), the verdict of
Uniform at ε = 1 with no landmarks, its largest landmark TPL as a multiple of ε at
ε = 0.01, 1 and 5 (lowering ε does not change it much), the calibrated ε the verdict
advises, the verdict after following it, and the time the advice took. Series also
print the Δf derived from the data (docs/definitions.md).

Run: python benchmarks/bench_correlation.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lmdk_core.data.series import load_series_csv  # noqa: E402
from lmdk_core.data.track_loading import load_track  # noqa: E402
from lmdk_core.decision.sensitivity import derived_sensitivity  # noqa: E402
from lmdk_core.decision.verdict import privacy_verdict  # noqa: E402
from lmdk_core.engine.allocation import allocate  # noqa: E402
from lmdk_core.leakage.model import correlation_from_spec  # noqa: E402
from tests.engine.test_real_data import (  # noqa: E402
    LOADABLE_SERIES,
    REAL,
    SERIES_COLUMNS,
    SERIES_DIR,
    TRACK_FILES,
)


def row(name: str, data, extra: str = "") -> None:
    m = correlation_from_spec(None, data)
    T = len(data)
    if not m.computed:
        print(f"{name:32s} {T:6,d} {m.n_states:5d}  not computed: {m.note}")
        return
    ratios = []
    for eps in (0.01, 1.0, 5.0):
        pv = privacy_verdict(allocate("uniform", T, [], eps), [], eps, backward=m.backward,
                             forward=m.forward, advise=False)
        ratios.append(pv.landmark_tpl_max / eps)
    t0 = time.perf_counter()
    pv = privacy_verdict(allocate("uniform", T, [], 1.0), [], 1.0, backward=m.backward,
                         forward=m.forward)
    took = time.perf_counter() - t0
    after = "—"
    advised = "—"
    if pv.advice is not None:
        a = pv.advice
        advised = f"{a.epsilon:.3g}"
        after = privacy_verdict(allocate("uniform", T, [], a.epsilon), [], a.epsilon,
                                backward=m.backward, forward=m.forward,
                                leakage_target=1.0, advise=False).colour
    print(f"{name:32s} {T:6,d} {m.n_states:5d}  {pv.colour:6s} "
          + " ".join(f"{r:5.2f}" for r in ratios)
          + f"  {advised:>8s} {after:6s} {took:6.2f} s {extra}")


def main() -> None:
    print(f"{'file':32s} {'T':>6s} {'states':>5s}  verdict LTPL/ε at ε=0.01 1 5  "
          "advised ε → after   (advice time)")
    for name in LOADABLE_SERIES:
        tcol, vcol = SERIES_COLUMNS[name]
        s = load_series_csv(SERIES_DIR / name, time_col=tcol, value_col=vcol)
        row(name, s, f"Δf = {derived_sensitivity(s, []).value:g}")
    for path in TRACK_FILES:
        row(path.split("/")[-1], load_track(REAL / path))


if __name__ == "__main__":
    main()
