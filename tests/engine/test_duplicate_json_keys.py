"""A configuration that gives a key twice is refused, naming the key (issue: ``"epsilon":
1.0, "epsilon": 50`` was accepted and the last one won, so the file released at ε = 50
while it reads ε = 1 to anyone who stops at the first)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lmdk_core.cli import main
from lmdk_core.data.strict_json import loads_strict
from lmdk_core.files.config import ViewConfig, config_from_json, config_to_json
from lmdk_core.files.data_reference import reference_config
from lmdk_core.foundation.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def _with_duplicate(text: str, key: str, value: str) -> str:
    """``text`` with ``"key": value`` added again just before the first ``"key": …``
    line."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(f'"{key}":'))
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines.insert(at, f'{indent}"{key}": {value},')
    return "\n".join(lines)


def test_a_repeated_epsilon_is_refused_naming_the_key():
    text = _with_duplicate(config_to_json(ViewConfig(epsilon=1.0)), "epsilon", "50")
    assert '"epsilon": 1.0' in text and '"epsilon": 50' in text
    with pytest.raises(InputError, match=r"configuration gives the key `epsilon` twice"):
        config_from_json(text)
    with pytest.raises(InputError, match="epsilon"):
        config_from_json(text.encode())


def test_a_repeated_key_inside_a_nested_object_is_refused():
    cfg = reference_config(ViewConfig(), "meter.csv", b"time,value\n0,1\n")
    text = _with_duplicate(config_to_json(cfg), "sha256", '"' + "0" * 64 + '"')
    with pytest.raises(InputError, match="sha256"):
        config_from_json(text)


def test_equal_values_under_different_keys_and_the_same_key_in_two_objects_are_fine():
    assert loads_strict('{"a": 1, "b": 1, "c": {"a": 2}, "d": [{"a": 3}, {"a": 4}]}') == {
        "a": 1, "b": 1, "c": {"a": 2}, "d": [{"a": 3}, {"a": 4}]}
    cfg = ViewConfig(epsilon=0.7, landmarks=[2, 5])
    assert config_from_json(config_to_json(cfg)).epsilon == 0.7


def test_a_hostile_key_is_quoted_in_the_message():
    with pytest.raises(InputError) as exc:
        loads_strict('{"![x](http://h/b.png)": 1, "![x](http://h/b.png)": 2}', "the file")
    assert "`![x](http://h/b.png)`" in str(exc.value)


@pytest.mark.parametrize("command", ["report", "batch"])
def test_the_commands_refuse_it_with_exit_status_2_and_one_line(tmp_path, capsys, command):
    cfg = tmp_path / "view.json"
    cfg.write_text(_with_duplicate(config_to_json(ViewConfig()), "epsilon", "50"))
    if command == "report":
        argv = ["report", "--config", str(cfg), "--output", str(tmp_path / "r.html")]
    else:
        src = tmp_path / "pop.csv"
        src.write_text("uid,t,kwh\n0,0,1\n0,1,2\n")
        argv = ["batch", "--config", str(cfg), "--input", str(src), "--user-col", "uid",
                "--time-col", "t", "--value-col", "kwh", "--output", str(tmp_path / "o.csv"),
                "--audit", str(tmp_path / "a.csv")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "`epsilon` twice" in err[0], err
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "a.csv").exists()


#: json.loads calls on text the tool made itself (not read from a person's file)
_INTERNAL = {"lmdk_core/population/in_process.py": ["json.loads(config_to_json(cfg))"],
             "app_support/live_chart.py": ["json.loads(_THEME.read_text(",  # shipped asset
                                           "json.loads(json.dumps(v))",
                                           "json.loads(template_json)"],
             # the cache key json.dumps(model.spec) of a model already checked
             "app_support/components.py": ["json.loads(spec_json)"]}


def test_every_json_reader_of_outside_files_is_the_strict_one():
    """A grep: ``json.load``/``json.loads`` appear only in :mod:`strict_json` and on
    text the tool wrote itself (:data:`_INTERNAL`)."""
    stray = []
    for d in ("lmdk_core", "lmdk_app", "app_support", "app_pages"):
        for src in sorted((ROOT / d).rglob("*.py")):
            rel = src.relative_to(ROOT).as_posix()
            if rel == "lmdk_core/data/strict_json.py":
                continue
            for line in src.read_text(encoding="utf-8").splitlines():
                for call in re.findall(r"json\.loads?\([^)]*\)?", line):
                    if not any(call.startswith(ok) or ok.startswith(call)
                               for ok in _INTERNAL.get(rel, [])):
                        stray.append(f"{rel}: {line.strip()}")
    assert stray == []


def test_a_geojson_track_with_a_repeated_key_is_refused():
    """A GeoJSON upload is JSON from outside too: ``"coordinates"`` given twice in one
    geometry (a reader keeping the first and one keeping the last see different tracks)
    is refused naming the key."""
    from lmdk_core.data.track_loading import load_track

    doc = (b'{"type": "Feature", "properties": {}, "geometry": {"type": "LineString", '
           b'"coordinates": [[14.3, 45.79], [14.31, 45.8]], '
           b'"coordinates": [[0.0, 0.0], [0.1, 0.1]]}}')
    with pytest.raises(InputError, match="coordinates"):
        load_track(doc, file_format="geojson")
