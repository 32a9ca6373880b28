"""The floor under ``bench_browser.py``'s ratio goal: how long a person waits for an
interaction that only changes a number and redraws one chart, with none of the app's
work in the rerun, as a ratio to the app's Home page's empty rerun in the same run.

``benchmarks/floor_app.py`` (a second server) has four pages with one number field "ε";
each repetition steps it up and is timed exactly as ``bench_browser.py`` times the app's
interactions (from the click until the rerun has finished, the status widget is gone
and the DOM is still), right after an empty rerun of the *app's* Home page (the ``r``
key in another tab) — the same baseline and the same goal (≤ 2× on the demo):

* the number field alone: Streamlit's own round trip for a widget change;
* the Timeline's chart (demo week, built beforehand) by ``st.plotly_chart``: mounted
  anew on every change, as in Streamlit 1.67;
* the same chart by the app's own chart component (kept mounted, ``Plotly.react``);
* the data and budget panels as a keyed Vega-Lite chart, updated in place.

What a page of the app does on top (its release, verdict, leakage, the rest of the page)
must fit in what these rows leave below the goal.

Run: python benchmarks/bench_floor.py [--reps 7] [--port 8641]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_browser import Bench, number_step, open_page  # noqa: E402

from tests.browser import CHROMIUM, CHROMIUM_ARGS, streamlit_server  # noqa: E402

PAGES = (("", "number field alone"),
         ("remount", "Timeline chart by st.plotly_chart (re-mounted)"),
         ("inplace", "Timeline chart kept mounted (Plotly.react)"),
         ("vega", "data + budget panels, keyed Vega-Lite (in place)"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--port", type=int, default=8641)
    args = ap.parse_args()
    print(f"uptime: {os.popen('uptime').read().strip()}")
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(streamlit_server(ROOT, args.port, timeout=90))
        floor_url = stack.enter_context(streamlit_server(
            ROOT, args.port + 1, timeout=90, script="benchmarks/floor_app.py"))
        p = stack.enter_context(sync_playwright())
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        bench = Bench(url, browser, args.reps, budget=60.0)
        for path, what in PAGES:
            page, wire = bench.session()
            open_page(page, floor_url, "/" + path)
            page.wait_for_timeout(1500)
            bench.measure("Floor", what, "demo", page, wire,
                          lambda i, page=page: number_step(page, "ε", True))
            page.context.close()
        browser.close()
        bench.table()
    print(f"uptime: {os.popen('uptime').read().strip()}")


if __name__ == "__main__":
    main()
