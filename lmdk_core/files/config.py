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
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from lmdk_core import __version__
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.quoting import quote_user_text
from lmdk_core.engine.setting_limits import check_landmark_list, check_setting
from lmdk_core.engine.validation import InputError

__all__ = ["CONFIG_FORMAT", "RESTORED_SETTINGS", "RestoredView", "ViewConfig",
           "config_from_json", "config_to_json", "restored_view"]

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


#: the settings a restored configuration sets, per kind of data (the app's setting names;
#: ``cell_size`` is the grid of a track's estimated correlation model, ``extra.cell_size_m``)
RESTORED_SETTINGS = {
    "series": ("epsilon", "scheme", "window", "mechanism", "sensitivity",
               "correlation_strength"),
    "track": ("epsilon", "scheme", "window", "correlation_strength", "radius", "cell_size"),
}


@dataclass(frozen=True)
class RestoredView:
    """A configuration checked against its data, ready to become the app's view
    (:func:`restored_view`): ``data`` is None for the built-in demo dataset; a track's
    ``landmarks`` leave out the fixes of its ``stays`` (each stay is one landmark event,
    docs/stays.md); ``settings`` maps :data:`RESTORED_SETTINGS` to their values;
    ``correlation`` is the saved correlation model (``extra.correlation``), checked."""

    config: ViewConfig
    data: Any
    landmarks: list[int]
    stays: list[tuple[int, int]]
    settings: dict[str, Any]
    correlation: dict | None


def restored_view(cfg: ViewConfig, demo_key: str, demo_data: Any, *,
                  default_cell_size: float = 250.0,
                  check_data: Callable[[Any], Any] | None = None) -> RestoredView:
    """Everything a view restored from ``cfg`` needs, every part checked before any is
    used, so a bad configuration changes nothing:

    * the data: the demo ``demo_data`` (``data`` None), named ``demo_key`` in
      configurations, or the embedded table loaded as a series or a track and passed
      through ``check_data`` (e.g. a size limit);
    * the landmarks and (tracks) stays, within the data;
    * the settings of :data:`RESTORED_SETTINGS` (a track's grid from
      ``extra.cell_size_m``, else ``default_cell_size``);
    * the saved correlation model, built once on the data to check it.

    Raises :class:`InputError` saying what is wrong. A configuration that only references
    its data file (``dataset = "file"``) needs the file attached first
    (:func:`lmdk_core.files.data_reference.attach_referenced_data`)."""
    import pandas as pd

    from lmdk_core.data.series import load_series_csv
    from lmdk_core.data.track import load_track_csv
    from lmdk_core.engine.stay_events import parse_stays, stay_members
    from lmdk_core.engine.verifier import check_groups
    from lmdk_core.leakage.model import correlation_from_spec

    kind = cfg.data_kind
    noun = "series" if kind == "series" else "track"
    try:
        if cfg.dataset == demo_key:
            data = None
        elif cfg.dataset == "embedded":
            table = pd.DataFrame(cfg.data).to_csv(index=False).encode()
            loader = load_series_csv if kind == "series" else load_track_csv
            data = loader(table, name=f"restored {noun}")
            data = check_data(data) if check_data is not None else data
        else:
            raise InputError(f"unknown dataset {quote_user_text(cfg.dataset)} (expected "
                             f"{demo_key!r} or 'embedded')")
        length = len(data if data is not None else demo_data)
        if any(t >= length for t in cfg.landmarks):
            raise InputError(f"a landmark lies beyond the end of the {noun} "
                             f"({length:,} points)")
        stays = parse_stays(cfg.extra.get("stays")) if kind == "track" else []
        check_groups(stays, length)
        settings = {k: getattr(cfg, k) for k in RESTORED_SETTINGS[kind] if k != "cell_size"}
        model_kw = {}
        if kind == "track":
            settings["radius"] = float(cfg.radius)
            settings["cell_size"] = model_kw["default_cell_size"] = check_setting(
                "cell_size_m", cfg.extra.get("cell_size_m", default_cell_size),
                "config: extra")
        spec = cfg.extra.get("correlation")
        if spec is not None:  # check the saved correlation model before using it
            correlation_from_spec(spec, data if data is not None else demo_data,
                                  default_strength=cfg.correlation_strength, **model_kw)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"a value is not valid ({quote_user_text(exc)})") from None
    members = set(stay_members(stays).tolist())
    return RestoredView(cfg, data, [t for t in cfg.landmarks if t not in members], stays,
                        settings, spec)
