"""``lmdk report``: the self-contained HTML privacy report of a saved view.

    lmdk report --config config.json --output report.html [--json]
    lmdk report --config config.json --output note.html --public     # public release note
    lmdk report --config view.json --data meter.csv --output report.html

Without ``--public`` the file is the internal report, marked CONFIDENTIAL (raw data,
landmarks, seed). ``--data`` supplies the file of a configuration that references its
data (name + SHA-256) instead of embedding it; a different file is refused.

``config.json`` is the configuration the Timeline, Map or Compare page downloads
(format ``lmdk-view/1``). The release is recomputed by the engine (same seed, same
noise). Bad input — a missing or unreadable file, text that is not JSON, another
format, an invalid ε — ends with exit status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import sys

from lmdk_core.foundation.errors import InputError


def _cmd_report(args: argparse.Namespace) -> int:
    from lmdk_core.cli.json_output import emit_json
    from lmdk_core.files.atomic_write import write_atomically
    from lmdk_core.files.output_paths import check_outputs
    from lmdk_core.report import compute_report, render_html

    check_outputs({"--config": args.config, "--data": args.data}, {"--output": args.output})
    cfg = _report_config(args.config, args.data)
    out = args.output
    if args.public:
        from lmdk_core.report.release_note import published_noise

        noise = published_noise(cfg)  # refuses Adaptive before any computation
    rd = compute_report(cfg)
    if args.public:
        from lmdk_core.report.release_note import render_release_note

        text = render_release_note(rd, noise)
    else:
        text = render_html(rd)
    if out == "-":
        sys.stdout.write(text)
        return 0
    # the internal report holds the raw data: CONFIDENTIAL, mode 0600; the public note not
    write_atomically(out, text, confidential=not args.public)
    if args.public:  # the screen says what the note says, nothing it leaves out
        from lmdk_core.report.release_note import public_summary

        summary = {"output": out, "data_kind": cfg.data_kind, "scheme": rd.release.scheme,
                   **public_summary(rd), "bytes": len(text.encode("utf-8")),
                   "form": "public release note"}
        if args.json:
            emit_json(summary)
        else:
            print(f"wrote {out} ({summary['bytes'] / 1e6:.1f} MB): "
                  f"{summary['verdict'].upper()} — {summary['verdict_headline']}. "
                  f"{summary['verdict_sentence']}")
            print(f"utility: {summary['utility'].upper()} — {summary['utility_sentence']}")
        return 0
    summary = _report_summary(cfg, rd, text, out)
    if args.json:
        emit_json(summary)
    else:
        pv, uv = rd.verdict, rd.utility
        print(f"wrote {out} ({summary['bytes'] / 1e6:.1f} MB): {pv.colour.upper()} — "
              f"{pv.headline}. {pv.sentence}")
        print(f"utility: {uv.label.upper()} — {uv.sentence}")
    return 0


def _report_config(config: str, data: str | None):
    """The saved view of ``--config``, with the data file of ``--data`` attached when the
    configuration references its data (name + SHA-256); a batch configuration, a missing
    referenced file or a ``--data`` nobody asked for are refused."""
    from lmdk_core.data.tables import read_bytes
    from lmdk_core.files.config import config_from_json
    from lmdk_core.foundation.quoting import quote_user_text

    cfg = config_from_json(read_bytes(config, f"the configuration {config}"))
    if cfg.page == "population":
        what = (f"the population {quote_user_text(cfg.data_file['name'])} (SHA-256 "
                f"{cfg.data_file['sha256'][:12]}…)" if cfg.data_file else
                "the Population page's demo population")
        raise InputError(f"this is a batch configuration, made on {what}: the report covers "
                         "one series or track; run lmdk batch --config with it on that file "
                         "(its audit holds every user's verdict)")
    if cfg.dataset != "file":
        if data:
            raise InputError("--data is only for a configuration that references its data "
                             "file; this one embeds its data or uses a demo")
        return cfg
    from lmdk_core.files.data_reference import attach_referenced_data

    if not data:
        ref = cfg.file_reference()
        raise InputError(f"the configuration references its data file "
                         f"{quote_user_text(ref['name'])} (SHA-256 "
                         f"{ref['sha256'][:12]}…) instead of embedding it; "
                         "give that file with --data FILE")
    return attach_referenced_data(cfg, read_bytes(data, f"the data file {data}"), data)


def _report_summary(cfg, rd, text: str, out: str) -> dict:
    """The JSON summary of a written report: the verdict (theorem + landmark TPL under the
    configuration's correlation model), the utility, the largest leakages, the size."""
    pv, uv = rd.verdict, rd.utility
    computed = rd.leakage.computed
    return {"output": out, "data_kind": cfg.data_kind, "scheme": rd.release.scheme,
            "epsilon": cfg.epsilon, **pv.to_dict(), **uv.to_dict(),
            "landmark_tpl_max": pv.landmark_tpl_max,
            "max_tpl": float(rd.leakage.tpl.max()) if computed else None,
            "max_landmark_tpl": float(rd.leakage.landmark_tpl.max()) if computed else None,
            "bytes": len(text.encode("utf-8")),
            "form": "internal (CONFIDENTIAL)"}


def register(sub) -> None:
    """Add ``report`` to the ``lmdk`` sub-commands."""
    p = sub.add_parser("report", help="self-contained HTML privacy report of a saved view")
    p.add_argument("--config", required=True,
                   help="configuration JSON downloaded from the Timeline, Map or Compare page")
    p.add_argument("--output", required=True,
                   help="the HTML file to write ('-' = stdout)")
    p.add_argument("--json", action="store_true",
                   help="print a JSON summary (verdict, leakage) after writing the file")
    p.add_argument("--public", action="store_true",
                   help="write the public release note (verdict, ε, scheme, mechanism, "
                        "expected error, aggregated leakage; no raw data, landmarks or seed) "
                        "instead of the CONFIDENTIAL internal report")
    p.add_argument("--data", default=None, metavar="FILE",
                   help="the data file of a configuration saved with its data by reference "
                        "(checked against its SHA-256)")
    p.set_defaults(handler=_cmd_report)
