"""The view configuration: everything needed to reproduce a release view.

Downloaded from the app as JSON and uploaded again to restore the view (seed
included); also the input of ``lmdk report --config``. Validation errors are
InputError with a message naming the field.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from lmdk_core import __version__
from lmdk_core.allocation import scheme_info
from lmdk_core.validation import InputError, check_epsilon, check_positive

__all__ = ["ViewConfig", "config_from_json", "config_to_json", "CONFIG_FORMAT"]

CONFIG_FORMAT = "lmdk-view/1"


@dataclass
class ViewConfig:
    """One view: data (demo name or embedded table), landmarks and release settings.

    ``data_kind`` is 'series' or 'track'. ``dataset`` names a built-in demo
    ('demo-household', 'demo-paris') or is 'embedded', in which case ``data`` holds
    the table as {column: [values]} (time, value) or (time, lat, lon).
    """

    data_kind: str = "series"
    dataset: str = "demo-household"
    data: dict[str, list] | None = None
    time_kind: str = "number"
    landmarks: list[int] = field(default_factory=list)
    epsilon: float = 1.0
    scheme: str = "uniform"
    window: int = 10
    mechanism: str = "laplace"
    sensitivity: float = 1.0
    radius: float = 100.0
    seed: int = 0
    correlation_strength: float = 0.1
    page: str = "timeline"
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> ViewConfig:
        """Check every field; return self."""
        if self.data_kind not in ("series", "track"):
            raise InputError("config: data_kind must be 'series' or 'track'")
        if self.dataset == "embedded" and not self.data:
            raise InputError("config: dataset 'embedded' needs a 'data' table")
        self.epsilon = check_epsilon(self.epsilon, "config: epsilon")
        self.scheme = scheme_info(self.scheme).key
        if int(self.window) != self.window or self.window < 1:
            raise InputError("config: window must be a whole number >= 1")
        self.window = int(self.window)
        if self.mechanism not in ("laplace", "geometric"):
            raise InputError("config: mechanism must be 'laplace' or 'geometric'")
        self.sensitivity = check_positive(self.sensitivity, "config: sensitivity")
        self.radius = check_positive(self.radius, "config: radius")
        self.correlation_strength = check_positive(self.correlation_strength,
                                                   "config: correlation_strength")
        if isinstance(self.seed, bool) or int(self.seed) != self.seed or self.seed < 0:
            raise InputError("config: seed must be a whole number >= 0")
        self.seed = int(self.seed)
        try:
            lm = [int(t) for t in self.landmarks]
        except (TypeError, ValueError):
            raise InputError("config: landmarks must be a list of whole numbers") from None
        if any(t < 0 for t in lm):
            raise InputError("config: landmarks must be >= 0")
        self.landmarks = sorted(set(lm))
        return self


def config_to_json(cfg: ViewConfig) -> str:
    """Pretty JSON text with a format tag and the software version."""
    body = {"format": CONFIG_FORMAT, "software": f"lmdk-explorer {__version__}",
            **asdict(cfg.validate())}

    def default(o):
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
        raise TypeError(f"cannot store {type(o).__name__} in a config")

    return json.dumps(body, indent=2, default=default)


def config_from_json(text: str | bytes) -> ViewConfig:
    """Parse and validate a configuration produced by :func:`config_to_json`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("the configuration file is not text (JSON expected)") from None
    if not text.strip():
        raise InputError("the configuration file is empty")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"the configuration is not valid JSON: {exc.msg} "
                         f"(line {exc.lineno})") from None
    if not isinstance(raw, dict) or raw.get("format") != CONFIG_FORMAT:
        raise InputError(f"this is not a Landmark Privacy Explorer configuration "
                         f"(expected \"format\": \"{CONFIG_FORMAT}\")")
    known = set(ViewConfig.__dataclass_fields__)
    unknown = sorted(set(raw) - known - {"format", "software"})
    if unknown:
        raise InputError(f"config: unknown field {unknown[0]!r}")
    try:
        cfg = ViewConfig(**{k: v for k, v in raw.items() if k in known})
    except TypeError as exc:
        raise InputError(f"config: {exc}") from None
    return cfg.validate()
