"""Configurations that reference their data file instead of embedding it.

A configuration with the data embedded is confidential (it holds the raw data). The
alternative keeps only the uploaded file's name and the SHA-256 of its bytes
(``dataset = "file"``, ``data_file = {"name", "sha256"}``); to restore it, the same file
must be supplied again and its SHA-256 must match (FIPS 180-4,
:func:`lmdk_core.data.digest.sha256_hex`).

    ref = reference_config(cfg, "meter.csv", raw_bytes)       # no data inside
    cfg2 = attach_referenced_data(ref, raw_bytes, "meter.csv")  # checked, data embedded
"""

from __future__ import annotations

import copy

from lmdk_core.data.digest import sha256_hex
from lmdk_core.data.series import Series, load_series_csv
from lmdk_core.data.track import Track
from lmdk_core.data.track_loading import load_track
from lmdk_core.files.config import ViewConfig
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["attach_referenced_data", "embedded_table", "reference_config", "sha256_hex"]


def reference_config(cfg: ViewConfig, filename: str, data: bytes | None = None,
                     sha256: str | None = None) -> ViewConfig:
    """A copy of ``cfg`` that references its data file (name + SHA-256, from ``data``
    or given as ``sha256``) instead of embedding the table."""
    if sha256 is None:
        if data is None:
            raise ValueError("reference_config needs the file's bytes or its SHA-256")
        sha256 = sha256_hex(data)
    out = copy.deepcopy(cfg)
    out.dataset, out.data = "file", None
    out.data_file = {"name": str(filename), "sha256": sha256.lower()}
    return out.validate()


def embedded_table(data: Series | Track) -> dict[str, list]:
    """The {column: [values]} table a configuration embeds for ``data``."""
    from lmdk_core.files.export import time_labels

    if isinstance(data, Track):
        table: dict[str, list] = {}
        if data.time_kind != "index":
            table["time"] = time_labels(data.time, data.time_kind, getattr(data, "utc", False))
        table["lat"], table["lon"] = data.lat.tolist(), data.lon.tolist()
        segment = getattr(data, "segment", None)
        if segment is not None and getattr(data, "n_segments", 1) > 1:
            table["segment"] = segment.tolist()
        return table
    return {"time": time_labels(data.time, data.time_kind, getattr(data, "utc", False)),
            "value": data.values.tolist()}


def load_referenced_data(cfg: ViewConfig, data: bytes, filename: str) -> Series | Track:
    """Check ``data`` against the configuration's SHA-256, then load it (a series CSV,
    or a track CSV/GPX). InputError on a mismatch or a bad file."""
    cfg.validate()
    if cfg.dataset != "file":
        raise InputError("this configuration does not reference a data file")
    ref = cfg.file_reference()
    want = ref["sha256"].lower()
    got = sha256_hex(data)
    if got != want:
        raise InputError(
            f"the file {quote_user_text(filename)} is not the one this configuration was "
            f"saved with ({quote_user_text(ref['name'])}): its SHA-256 is "
            f"{got[:12]}…, the configuration expects {want[:12]}…. Supply the original file, "
            "unchanged")
    if cfg.data_kind == "series":
        return load_series_csv(data, name=ref["name"])
    return load_track(data, filename=ref["name"], name=ref["name"])


def attach_referenced_data(cfg: ViewConfig, data: bytes, filename: str) -> ViewConfig:
    """A copy of a referencing configuration with the checked data embedded, ready for
    :func:`lmdk_core.report.compute_report` or a page restore. ``data_file`` is kept as
    the provenance of the embedded data (the report names the file and its SHA-256)."""
    loaded = load_referenced_data(cfg, data, filename)
    out = copy.deepcopy(cfg)
    out.dataset = "embedded"
    out.data = embedded_table(loaded)
    out.time_kind = loaded.time_kind
    return out.validate()
