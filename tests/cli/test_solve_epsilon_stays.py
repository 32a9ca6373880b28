"""``lmdk solve-epsilon --stays`` (issue 37 §7): a track's stays as suggested by
``lmdk suggest`` count as one landmark event each, as ``geo-release --stays`` releases
them — on GeoLife user 003 (3 days), Uniform needs ε for 14 events + 1, not for 419 fixes + 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmdk_core.cli import main

USER004 = Path(__file__).resolve().parents[1] / "data" / "real" / "gps" / "geolife-003-3days.plt"


def _json(capsys, *args: str) -> dict:
    assert main(list(args)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_stays_count_as_one_event_each(capsys):
    sug = _json(capsys, "suggest", "--input", str(USER004), "--json")
    stays = ",".join(s["stay"] for s in sug["suggestions"])
    fixes = ",".join(map(str, sug["landmarks"]))
    common = ["solve-epsilon", "--input", str(USER004), "--radius", "100", "--mean-error",
              "2000", "--schemes", "uniform", "--json"]
    as_events = _json(capsys, *common, "--stays", stays)["solutions"][0]
    per_fix = _json(capsys, *common, "--landmarks", fixes)["solutions"][0]
    # Planar Laplace: mean displacement 2r/ε_t = 2000 m -> ε_t = 0.1; Uniform ε = ε_t·(k+1)
    # for k events; a stay's fixes publish its centroid plus fresh noise of the regular
    # law, so their error is larger and ε must be higher — but far below per fix
    k = len(sug["suggestions"])
    assert 0.1 * (k + 1) <= as_events["epsilon"] <= 0.1 * (k + 1) * 2
    assert as_events["epsilon"] < per_fix["epsilon"] / 10
    assert per_fix["epsilon"] == pytest.approx(0.1 * (len(sug["landmarks"]) + 1), rel=1e-6)
    assert as_events["landmark_private"]


def test_stays_on_a_series_are_refused_in_one_line(capsys, tmp_path):
    src = tmp_path / "s.csv"
    src.write_text("time,value\n" + "".join(f"{t},{t % 3}\n" for t in range(20)))
    code = main(["solve-epsilon", "--input", str(src), "--mean-error", "5", "--stays", "1-3"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--stays is for tracks" in err[0]
