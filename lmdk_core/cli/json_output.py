"""The commands' ``--json`` output: one JSON object on stdout, numpy values turned into
JSON types and NaN/±inf into ``null`` (JSON has no NaN)."""

from __future__ import annotations

import json

import numpy as np

__all__ = ["emit_json"]


def _jsonable(obj):
    """``obj`` with numpy arrays and containers turned into JSON types, recursively."""
    if isinstance(obj, np.ndarray):
        return [_jsonable(x) for x in obj.tolist()]
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(x) for x in obj]
    return _json_scalar(obj)


def _json_scalar(obj):
    """A numpy or Python scalar as a JSON value: NaN and ±inf become None."""
    if isinstance(obj, (np.floating, float)):
        x = float(obj)
        return x if np.isfinite(x) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def emit_json(obj: dict) -> None:
    """Print one JSON object on stdout (NaN/inf become null)."""
    print(json.dumps(_jsonable(obj), allow_nan=False))
