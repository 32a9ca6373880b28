"""``lmdk report``: the self-contained HTML privacy report of a saved view.

    lmdk report --config config.json --output report.html [--json]

``config.json`` is the configuration the Timeline, Map or Compare page downloads
(format ``lmdk-view/1``). The release is recomputed by the engine (same seed, same
noise). Bad input — a missing or unreadable file, text that is not JSON, another
format, an invalid ε — ends with exit status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lmdk_core.validation import InputError


def _cmd_report(args: argparse.Namespace) -> int:
    from lmdk_core.cli import emit_json
    from lmdk_core.config import config_from_json
    from lmdk_core.data.tables import read_bytes
    from lmdk_core.report import compute_report, render_html

    cfg = config_from_json(read_bytes(args.config, f"the configuration {args.config}"))
    out = args.output
    if out != "-":
        path = Path(out)
        if path.is_dir():
            raise InputError(f"cannot write {out}: it is a folder; give a file name")
        if not path.parent.exists():
            raise InputError(f"cannot write {out}: folder {path.parent} does not exist")
    rd = compute_report(cfg)
    text = render_html(rd)
    if out == "-":
        sys.stdout.write(text)
        return 0
    Path(out).write_text(text, encoding="utf-8")
    v = rd.release.verdict
    summary = {"output": out, "data_kind": cfg.data_kind, "scheme": rd.release.scheme,
               "epsilon": cfg.epsilon, **v.to_dict(),
               "max_tpl": (float(rd.leakage.tpl.max()) if rd.leakage.computed else None),
               "max_landmark_tpl": (float(rd.leakage.landmark_tpl.max())
                                    if rd.leakage.computed else None),
               "bytes": len(text.encode("utf-8"))}
    if args.json:
        emit_json(summary)
    else:
        print(f"wrote {out} ({summary['bytes'] / 1e6:.1f} MB): {v.summary()}")
    return 0


def register(sub) -> None:
    """Add ``report`` to the ``lmdk`` sub-commands."""
    p = sub.add_parser("report", help="self-contained HTML privacy report of a saved view")
    p.add_argument("--config", required=True,
                   help="configuration JSON downloaded from the Timeline, Map or Compare page")
    p.add_argument("--output", required=True,
                   help="the HTML file to write ('-' = stdout)")
    p.add_argument("--json", action="store_true",
                   help="print a JSON summary (verdict, leakage) after writing the file")
    p.set_defaults(handler=_cmd_report)
