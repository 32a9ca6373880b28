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
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, TypeGuard

import numpy as np

from lmdk_core import __version__
from lmdk_core.data.strict_json import loads_strict
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.setting_limits import (
    check_landmark_list,
    check_setting,
    check_whole_setting,
)

__all__ = ["CONFIG_FORMAT", "RESTORED_SETTINGS", "RestoredView", "ViewConfig",
           "config_from_json", "config_to_json", "restored_view", "view_groups"]

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
        self._check_data_source()
        self._check_numbers()
        self._check_choices()
        self.landmarks = check_landmark_list(_as_list(self.landmarks))
        return self

    def _check_data_source(self) -> None:
        """The kind of data and where they come from: a demo, an embedded table or a
        referenced file (never both a table and a reference)."""
        if self.data_kind not in ("series", "track"):
            raise InputError("config: data_kind must be 'series' or 'track'")
        if self.dataset == "embedded" and not self.data:
            raise InputError("config: dataset 'embedded' needs a 'data' table")
        if self.data is not None:
            _check_data_table(self.data)
        self._check_reference()

    def teaching_seed(self) -> int | None:
        """The fixed seed of the teaching (reproducible) mode, None outside it;
        InputError when the mode is on without one."""
        if not self.reproducible:
            return None
        if self.seed is None:
            raise InputError("config: reproducible (teaching mode) needs its fixed seed")
        return self.seed

    def file_reference(self) -> dict[str, str]:
        """The checked ``data_file`` (``{"name", "sha256"}``) of a configuration that
        references its data; InputError when there is none."""
        return _check_data_file(self.data_file)

    def _check_reference(self) -> None:
        """``data_file``: required by dataset 'file' (which holds no table), and where
        embedded data came from otherwise."""
        if self.dataset != "file":
            if self.data_file is not None:
                _check_data_file(self.data_file)
            return
        _check_data_file(self.data_file)
        if self.data is not None:
            raise InputError("config: dataset 'file' references its data; remove 'data' "
                             "(or use dataset 'embedded')")

    def _check_numbers(self) -> None:
        """The numeric settings, the seed and the teaching flag."""
        # numbers: the one table of ranges shared with the app's widgets; refused, never
        # clamped or coerced (true is not 1, "5" is not 5, 1.7 is not 1)
        for name in ("epsilon", "sensitivity", "radius", "window", "correlation_strength"):
            setattr(self, name, check_setting(name, getattr(self, name)))
        if self.seed is not None:
            self.seed = check_whole_setting("seed", self.seed)
        if not isinstance(self.reproducible, bool):
            raise InputError("config: reproducible must be true or false")
        self.teaching_seed()

    def _check_choices(self) -> None:
        """The text settings (scheme normalised to its key), the mechanism and ``extra``."""
        for name in ("scheme", "mechanism", "time_kind", "page"):
            if not isinstance(getattr(self, name), str):
                raise InputError(f"config: {name} must be text; got "
                                 f"{quote_user_text(repr(getattr(self, name)))}")
        self.scheme = scheme_info(self.scheme).key
        if self.mechanism not in ("laplace", "geometric"):
            raise InputError("config: mechanism must be 'laplace' or 'geometric'")
        if not isinstance(self.extra, dict):
            raise InputError("config: extra must be an object {...}")


def _as_list(landmarks: object) -> object:
    """An array or tuple of landmarks as a list (anything else unchanged, for the check)."""
    if isinstance(landmarks, np.ndarray):
        return landmarks.tolist()
    return list(landmarks) if isinstance(landmarks, tuple) else landmarks


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
    depth, level = 0, _containers([obj])
    while level and depth <= MAX_NESTING:
        depth += 1
        level = _containers(c for o in level for c in _children(o))
    return depth


def _children(container: list | dict) -> Iterable:
    """The items of a list or the values of a dict."""
    return container.values() if isinstance(container, dict) else container


def _containers(items: Iterable) -> list:
    """The items that are lists or dicts."""
    return [c for c in items if isinstance(c, (list, dict))]


def _check_data_table(data: object) -> None:
    """``data`` must be a table {column name: [one value per row]} with equal-length
    columns of numbers, text or null (what pandas turns into a CSV)."""
    form = 'an object {"column": [values, ...], ...}'
    if not isinstance(data, dict) or not data:
        raise InputError(f"config: data must be {form}")
    for name, col in data.items():
        _check_data_column(name, col, form)
    if len({len(col) for col in data.values()}) > 1:
        raise InputError("config: the data columns must all have the same number of values")


def _check_data_column(name: object, col: object, form: str) -> None:
    """One column of an embedded table: a list of numbers, text or null."""
    if not isinstance(col, list):
        raise InputError(f"config: data column {quote_user_text(str(name))} must be a "
                         f"list of values (data must be {form})")
    if any(isinstance(v, (list, dict)) for v in col):
        raise InputError(f"config: data column {quote_user_text(str(name))} must hold "
                         "numbers or text, not lists or objects")


def _check_data_file(ref: object) -> dict[str, str]:
    """``data_file`` must be {"name": text, "sha256": 64 hex digits}; returned checked."""
    if not _is_reference(ref):
        raise InputError('config: dataset \'file\' needs "data_file": {"name": "...", '
                         '"sha256": "..."}')
    if not _is_sha256_hex(ref["sha256"]):
        raise InputError("config: data_file.sha256 must be 64 hexadecimal digits")
    if set(ref) - {"name", "sha256"}:
        raise InputError("config: data_file holds only 'name' and 'sha256'")
    return ref


def _is_reference(ref: object) -> TypeGuard[dict[str, str]]:
    """True for an object whose ``name`` and ``sha256`` are text."""
    return (isinstance(ref, dict) and isinstance(ref.get("name"), str)
            and isinstance(ref.get("sha256"), str))


def _is_sha256_hex(digest: str) -> bool:
    """True for 64 hexadecimal digits (either case, surrounding blanks allowed)."""
    d = digest.strip().lower()
    return len(d) == 64 and all(c in "0123456789abcdef" for c in d)


def config_to_json(cfg: ViewConfig) -> str:
    """Pretty JSON text with a format tag, the software version and a ``confidential``
    label (:data:`CONFIG_CONFIDENTIAL`)."""
    cfg = cfg.validate()
    head = {"confidential": _confidential_label(cfg)}
    if cfg.reproducible:
        head["teaching"] = TEACHING_LABEL.format(seed=cfg.seed)
    body = {**head, "format": CONFIG_FORMAT, "software": f"lmdk-explorer {__version__}",
            **asdict(cfg)}
    for name in ("data_file", "seed"):
        if body.get(name) is None:
            body.pop(name)
    if not body["reproducible"]:
        body.pop("reproducible")
    return json.dumps(body, indent=2, default=_json_value)


def _confidential_label(cfg: ViewConfig) -> str:
    """The ``confidential`` label of :data:`CONFIG_CONFIDENTIAL` for what ``cfg`` holds
    (the seed left out of it when there is none)."""
    what = ("embedded" if cfg.data is not None else
            "reference" if cfg.dataset == "file" else "demo")
    label = CONFIG_CONFIDENTIAL[what]
    return label.replace(" and the seed", "") if cfg.seed is None else label


def _json_value(o: object) -> object:
    """A numpy scalar or array as a JSON value (the ``default`` of :func:`json.dumps`)."""
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"cannot store {type(o).__name__} in a config")


#: the message for a configuration nested deeper than :data:`MAX_NESTING`
_TOO_DEEP = (f"the configuration is nested too deeply (a configuration has at most "
             f"{MAX_NESTING} levels of [...] and {{...}})")


def _config_text(text: str | bytes) -> str:
    """The configuration as text; InputError when it is not UTF-8 or is empty."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("the configuration file is not text (JSON expected)") from None
    if not text.strip():
        raise InputError("the configuration file is empty")
    return text


def _parse_json(text: str) -> object:
    """The JSON value of ``text``; InputError when it is not JSON, gives a key twice in
    one object (:mod:`lmdk_core.data.strict_json`) or is nested too deeply."""
    try:
        raw = loads_strict(text, "the configuration")
    except json.JSONDecodeError as exc:
        raise InputError(f"the configuration is not valid JSON: {exc.msg} "
                         f"(line {exc.lineno})") from None
    except RecursionError:
        raise InputError(_TOO_DEEP) from None
    if _nesting_depth(raw) > MAX_NESTING:
        raise InputError(_TOO_DEEP)
    return raw


#: the labels :func:`config_to_json` writes beside the configuration's fields
_FILE_LABELS = {"format", "software", "confidential", "teaching"}


def _config_fields(raw: dict) -> dict:
    """The configuration's fields of ``raw``; InputError naming the first unknown one."""
    known = set(ViewConfig.__dataclass_fields__)
    unknown = sorted(set(raw) - known - _FILE_LABELS)
    if unknown:
        raise InputError(f"config: unknown field {quote_user_text(unknown[0])}")
    return {k: v for k, v in raw.items() if k in known}


def config_from_json(text: str | bytes) -> ViewConfig:
    """Parse and validate a configuration produced by :func:`config_to_json`."""
    raw = _parse_json(_config_text(text))
    if not isinstance(raw, dict) or raw.get("format") != CONFIG_FORMAT:
        raise InputError(f"this is not a Landmark Privacy Explorer configuration "
                         f"(expected \"format\": \"{CONFIG_FORMAT}\")")
    try:
        cfg = ViewConfig(**_config_fields(raw))
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
    docs/stays.md; a series' runs of readings likewise, docs/series-events.md);
    ``settings`` maps :data:`RESTORED_SETTINGS` to their values;
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
    * the landmarks and the stays (a track) or runs (a series), within the data;
    * the settings of :data:`RESTORED_SETTINGS` (a track's grid from
      ``extra.cell_size_m``, else ``default_cell_size``);
    * the saved correlation model, built once on the data to check it.

    Raises :class:`InputError` saying what is wrong. A configuration that only references
    its data file (``dataset = "file"``) needs the file attached first
    (:func:`lmdk_core.files.data_reference.attach_referenced_data`)."""
    from lmdk_core.engine.stay_events import stay_members

    try:
        data = _restored_data(cfg, demo_key, check_data)
        stays = _restored_positions(cfg, len(data if data is not None else demo_data))
        settings, model_kw = _restored_settings(cfg, default_cell_size)
        spec = _checked_correlation(cfg, data if data is not None else demo_data, model_kw)
    except InputError:
        raise
    except (TypeError, ValueError) as exc:
        raise InputError(f"a value is not valid ({quote_user_text(exc)})") from None
    members = set(stay_members(stays).tolist())
    return RestoredView(cfg, data, [t for t in cfg.landmarks if t not in members], stays,
                        settings, spec)


def _noun(cfg: ViewConfig) -> str:
    """'series' or 'track', as messages name the configuration's data."""
    return "series" if cfg.data_kind == "series" else "track"


def _restored_data(cfg: ViewConfig, demo_key: str,
                   check_data: Callable[[Any], Any] | None) -> Any:
    """None for the demo dataset, else the embedded table loaded as a series or track
    and passed through ``check_data``."""
    import pandas as pd

    from lmdk_core.data.series import load_series_csv
    from lmdk_core.data.track_loading import load_track

    if cfg.dataset == demo_key:
        return None
    if cfg.dataset != "embedded":
        raise InputError(f"unknown dataset {quote_user_text(cfg.dataset)} (expected "
                         f"{demo_key!r} or 'embedded')")
    table = pd.DataFrame(cfg.data).to_csv(index=False).encode()
    name = f"restored {_noun(cfg)}"
    data = (load_series_csv(table, name=name) if cfg.data_kind == "series"
            else load_track(table, name=name, file_format="csv"))
    return check_data(data) if check_data is not None else data


def _restored_positions(cfg: ViewConfig, length: int) -> list[tuple[int, int]]:
    """The stays of a track (the runs of a series), after checking that the landmarks and
    they lie within the ``length`` points of the data."""
    from lmdk_core.engine.verifier import check_groups

    if any(t >= length for t in cfg.landmarks):
        raise InputError(f"a landmark lies beyond the end of the {_noun(cfg)} "
                         f"({length:,} points)")
    stays = view_groups(cfg)
    check_groups(stays, length, "stay" if cfg.data_kind == "track" else "run")
    return stays


def view_groups(cfg: ViewConfig) -> list[tuple[int, int]]:
    """The ranges a view protects as one landmark event each: a track's stays
    (``extra.stays``, docs/stays.md) or a series' runs of readings (``extra.runs``,
    docs/series-events.md); [] when there are none or ``extra`` is not a mapping."""
    from lmdk_core.engine.run_events import parse_runs
    from lmdk_core.engine.stay_events import parse_stays

    extra = cfg.extra if isinstance(cfg.extra, dict) else {}
    if cfg.data_kind == "track":
        return parse_stays(extra.get("stays"))
    return parse_runs(extra.get("runs"))


def _restored_settings(cfg: ViewConfig, default_cell_size: float
                       ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The settings of :data:`RESTORED_SETTINGS` and the keyword arguments of the
    correlation model (a track's grid cell size, checked)."""
    kind = cfg.data_kind
    settings = {k: getattr(cfg, k) for k in RESTORED_SETTINGS[kind] if k != "cell_size"}
    model_kw: dict[str, Any] = {}
    if kind == "track":
        settings["radius"] = float(cfg.radius)
        settings["cell_size"] = model_kw["default_cell_size"] = check_setting(
            "cell_size_m", cfg.extra.get("cell_size_m", default_cell_size),
            "config: extra")
    return settings, model_kw


def _checked_correlation(cfg: ViewConfig, data: Any, model_kw: dict[str, Any]
                         ) -> dict | None:
    """The saved correlation model (``extra.correlation``), built once on the data to
    check it, or None."""
    from lmdk_core.leakage.model import correlation_from_spec

    spec = cfg.extra.get("correlation")
    if spec is not None:
        correlation_from_spec(spec, data, default_strength=cfg.correlation_strength,
                              max_landmarks=len(cfg.landmarks), seed=0, **model_kw)
    return spec
