"""The view configuration: everything needed to reproduce a release view.

Downloaded from the app as JSON and uploaded again to restore the view; also the input
of ``lmdk report --config`` and ``lmdk batch --config``. Validation errors are
InputError with a message naming the field.

The seed: ``seed`` is the view's seed (kept so that ``lmdk report`` recomputes the
release the page showed) or ``None`` (fresh OS entropy wherever it is used: a batch
configuration, a file meant to be shared, never holds one). ``reproducible`` says the
seed is the fixed seed of the teaching mode. Restoring a configuration in the app never
makes its seed the seed of later releases, except for a teaching configuration, which
turns the (visible) teaching mode on.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from lmdk_core import __version__
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.quoting import quote_user_text
from lmdk_core.engine.setting_limits import check_landmark_list, check_setting
from lmdk_core.engine.validation import InputError

__all__ = ["ViewConfig", "config_from_json", "config_to_json", "CONFIG_FORMAT"]

CONFIG_FORMAT = "lmdk-view/1"


@dataclass
class ViewConfig:
    """One view: data (demo name or embedded table), landmarks and release settings.

    ``data_kind`` is 'series' or 'track'. ``dataset`` names a built-in demo
    ('demo-household', 'demo-paris') or is 'embedded', in which case ``data`` holds
    the table as {column: [values]} (time, value) or (time, lat, lon), or is 'file':
    the data are only referenced, ``data_file = {"name": ..., "sha256": ...}`` (the
    uploaded file's name and the SHA-256 of its bytes), and must be supplied again on
    restore (:mod:`lmdk_core.files.data_reference`).
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
    seed: int | None = None
    correlation_strength: float = 0.1
    page: str = "timeline"
    extra: dict[str, Any] = field(default_factory=dict)
    data_file: dict[str, str] | None = None
    reproducible: bool = False

    def validate(self) -> ViewConfig:
        """Check every field; return self."""
        if self.data_kind not in ("series", "track"):
            raise InputError("config: data_kind must be 'series' or 'track'")
        if self.dataset == "embedded" and not self.data:
            raise InputError("config: dataset 'embedded' needs a 'data' table")
        if self.data is not None:
            _check_data_table(self.data)
        if self.data_file is not None and self.dataset != "file":
            # data embedded from a referenced file: where they came from
            _check_data_file(self.data_file)
        if self.dataset == "file":
            _check_data_file(self.data_file)
            if self.data is not None:
                raise InputError("config: dataset 'file' references its data; remove 'data' "
                                 "(or use dataset 'embedded')")
        # numbers: the one table of ranges shared with the app's widgets; refused, never
        # clamped or coerced (true is not 1, "5" is not 5, 1.7 is not 1)
        for name in ("epsilon", "sensitivity", "radius", "window", "correlation_strength"):
            setattr(self, name, check_setting(name, getattr(self, name)))
        if self.seed is not None:
            self.seed = check_setting("seed", self.seed)
        if not isinstance(self.reproducible, bool):
            raise InputError("config: reproducible must be true or false")
        if self.reproducible and self.seed is None:
            raise InputError("config: reproducible (teaching mode) needs its fixed seed")
        for name in ("scheme", "mechanism", "time_kind", "page"):
            if not isinstance(getattr(self, name), str):
                raise InputError(f"config: {name} must be text; got "
                                 f"{quote_user_text(repr(getattr(self, name)))}")
        self.scheme = scheme_info(self.scheme).key
        if self.mechanism not in ("laplace", "geometric"):
            raise InputError("config: mechanism must be 'laplace' or 'geometric'")
        if not isinstance(self.extra, dict):
            raise InputError("config: extra must be an object {...}")
        lm = self.landmarks
        self.landmarks = check_landmark_list(
            lm.tolist() if isinstance(lm, np.ndarray) else list(lm) if isinstance(lm, tuple)
            else lm)
        return self


#: the label written into every configuration file: it holds the landmark set and the
#: seed, and the raw data unless they are only referenced
TEACHING_LABEL = ("TEACHING MODE — fixed seed {seed}: anyone who has it regenerates the "
                  "noise; not for real releases")

CONFIG_CONFIDENTIAL = {
    "embedded": "CONFIDENTIAL — contains the raw data and the landmark set",
    "reference": "CONFIDENTIAL — contains the landmark set and the seed (the data are "
                 "referenced by file name and SHA-256, not included)",
    "demo": "CONFIDENTIAL — contains the landmark set and the seed (built-in demo data)",
}


#: deepest nesting of lists/objects a configuration may hold (a saved view needs 3)
MAX_NESTING = 32


def _nesting_depth(obj: object) -> int:
    """Levels of list/dict nesting, counted without recursion (a hostile file may be
    thousands of levels deep)."""
    depth, level = 0, ([obj] if isinstance(obj, (list, dict)) else [])
    while level and depth <= MAX_NESTING:
        depth += 1
        level = [c for o in level for c in (o.values() if isinstance(o, dict) else o)
                 if isinstance(c, (list, dict))]
    return depth


def _check_data_table(data: object) -> None:
    """``data`` must be a table {column name: [one value per row]} with equal-length
    columns of numbers, text or null (what pandas turns into a CSV)."""
    form = 'an object {"column": [values, ...], ...}'
    if not isinstance(data, dict) or not data:
        raise InputError(f"config: data must be {form}")
    lengths = set()
    for name, col in data.items():
        if not isinstance(col, list):
            raise InputError(f"config: data column {quote_user_text(str(name))} must be a "
                             f"list of values (data must be {form})")
        if any(isinstance(v, (list, dict)) for v in col):
            raise InputError(f"config: data column {quote_user_text(str(name))} must hold "
                             "numbers or text, not lists or objects")
        lengths.add(len(col))
    if len(lengths) > 1:
        raise InputError("config: the data columns must all have the same number of values")


def _check_data_file(ref: object) -> None:
    """``data_file`` must be {"name": text, "sha256": 64 hex digits}."""
    if not isinstance(ref, dict) or not isinstance(ref.get("name"), str) \
            or not isinstance(ref.get("sha256"), str):
        raise InputError('config: dataset \'file\' needs "data_file": {"name": "...", '
                         '"sha256": "..."}')
    digest = ref["sha256"].strip().lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise InputError("config: data_file.sha256 must be 64 hexadecimal digits")
    if set(ref) - {"name", "sha256"}:
        raise InputError("config: data_file holds only 'name' and 'sha256'")


def config_to_json(cfg: ViewConfig) -> str:
    """Pretty JSON text with a format tag, the software version and a ``confidential``
    label (:data:`CONFIG_CONFIDENTIAL`)."""
    cfg = cfg.validate()
    label = CONFIG_CONFIDENTIAL["embedded" if cfg.data is not None else
                                "reference" if cfg.dataset == "file" else "demo"]
    if cfg.seed is None:
        label = label.replace(" and the seed", "")
    head = {"confidential": label}
    if cfg.reproducible:
        head["teaching"] = TEACHING_LABEL.format(seed=cfg.seed)
    body = {**head, "format": CONFIG_FORMAT, "software": f"lmdk-explorer {__version__}",
            **asdict(cfg)}
    for name in ("data_file", "seed"):
        if body.get(name) is None:
            body.pop(name)
    if not body["reproducible"]:
        body.pop("reproducible")

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
    except RecursionError:
        raise InputError(f"the configuration is nested too deeply (a configuration has at "
                         f"most {MAX_NESTING} levels of [...] and {{...}})") from None
    if _nesting_depth(raw) > MAX_NESTING:
        raise InputError(f"the configuration is nested too deeply (a configuration has at "
                         f"most {MAX_NESTING} levels of [...] and {{...}})")
    if not isinstance(raw, dict) or raw.get("format") != CONFIG_FORMAT:
        raise InputError(f"this is not a Landmark Privacy Explorer configuration "
                         f"(expected \"format\": \"{CONFIG_FORMAT}\")")
    known = set(ViewConfig.__dataclass_fields__)
    unknown = sorted(set(raw) - known - {"format", "software", "confidential", "teaching"})
    if unknown:
        raise InputError(f"config: unknown field {quote_user_text(unknown[0])}")
    try:
        cfg = ViewConfig(**{k: v for k, v in raw.items() if k in known})
    except TypeError as exc:
        raise InputError(f"config: {exc}") from None
    return cfg.validate()
