"""Publishable files hold released values only; confidential ones hold everything and say so.

Every publishable output (CSV, GeoJSON, public release note; engine, CLI) is parsed and
compared with the input: no raw value, no landmark time or place, no per-timestamp ε,
no published flag, no seed. Laplace and Planar Laplace noise is continuous, so a
released value equals a raw one with probability 0: an equality means a leak.
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest

from lmdk_core.data.allocation_csv import load_allocation_csv
from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.data.series import load_series_csv
from lmdk_core.data.track_loading import load_track
from lmdk_core.engine.release import release_series, release_trajectory
from lmdk_core.engine.verifier import verify
from lmdk_core.figures import hover_labels
from lmdk_core.files.config import ViewConfig, config_from_json, config_to_json
from lmdk_core.files.data_reference import (
    attach_referenced_data,
    reference_config,
    sha256_hex,
)
from lmdk_core.files.export import (
    CONFIDENTIAL_LABEL,
    geojson_text,
    mechanism_text,
    series_audit_csv,
    series_publishable_csv,
    time_labels,
    trajectory_audit_csv,
    trajectory_geojson,
    trajectory_publishable_csv,
    trajectory_publishable_geojson,
)
from lmdk_core.foundation.errors import InputError
from lmdk_core.report import build_report, report_filename
from lmdk_core.report.release_note import build_release_note
from tests.conftest import assert_clean_error, run_cli

SCHEMES = ["event", "user", "w-event", "uniform", "skip", "adaptive"]
SEED = 2**100 + 12345  # a 128-bit-style seed: its digits must never reach a public file


def comment_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("#")]


def stated_decimals(text: str) -> int:
    """The decimal places a publishable file's header says its values are rounded to."""
    m = re.search(r"^# released .*rounded to (\d+) decimal places", text, re.M)
    assert m, "the header must say how the released values are rounded"
    return int(m.group(1))


def landmark_strings(times: list, lm: list[int], kind: str) -> set[str]:
    """Every way a landmark's time is written: ISO label, hover label, 't=<index>'."""
    iso = time_labels(np.asarray(times), kind)
    hover = hover_labels(np.asarray(times), kind)
    out = set()
    for t in lm:
        out |= {str(iso[t]), str(hover[t]), f"t={t}"}
    return out


def assert_series_file_is_publishable(text: str, raw: np.ndarray, lm: list[int],
                                      times, kind: str) -> pd.DataFrame:
    # the released column as text, converted by Python's exact float parser: pandas < 3's
    # default CSV float parser is off by one ulp on about a third of the values
    df = pd.read_csv(io.StringIO(text), comment="#", dtype={"released": str})
    df["released"] = df["released"].astype(float)
    assert list(df.columns) == ["time", "released"]
    released = df["released"].to_numpy(dtype=float)
    ok = ~np.isnan(released)
    # no released cell equals a raw value (any raw value, not only its own timestamp)
    assert not np.isin(released[ok], raw).any()
    assert np.all(np.abs(released[ok][:, None] - raw[None, :]) > 1e-9)
    header = "\n".join(comment_lines(text))
    for s in landmark_strings(times, lm, kind) | {str(SEED), "seed", "landmark"}:
        if s == "landmark":  # the header may name landmark *privacy*, never a list
            assert "landmarks" not in header.lower()
            continue
        assert s not in header, s
    assert "epsilon" in header and "scheme" in header and "mechanism" in header
    return df


@pytest.mark.parametrize("scheme", SCHEMES)
def test_series_publishable_csv_has_released_values_only(scheme):
    s = demo_series()
    lm = demo_series_landmarks()
    rel = release_series(s.values, lm, epsilon=1.0, scheme=scheme, mechanism="laplace",
                         sensitivity=0.2, seed=SEED, window=10)
    mech = mechanism_text("laplace", sensitivity=0.2)
    text = series_publishable_csv(s, rel, mech)
    df = assert_series_file_is_publishable(text, s.values, lm, s.time, s.time_kind)
    np.testing.assert_array_equal(df["released"].to_numpy(), rel.released)
    assert df["time"].tolist() == time_labels(s.time, s.time_kind)
    assert "# scheme: " in text and f"epsilon: {1.0:g}" in text
    assert "noise: numpy (exploration only)" in text


def test_withheld_timestamps_are_empty_in_the_publishable_csv():
    s = demo_series()
    rel = release_series(s.values, [0, 1], epsilon=1.0, scheme="skip", mechanism="laplace",
                         sensitivity=0.2, seed=SEED)
    text = series_publishable_csv(s, rel, "Laplace")
    rows = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert rows[1].endswith(",") and rows[2].endswith(",")  # t=0,1 withheld: empty cells
    assert not rows[3].endswith(",")


def test_series_audit_csv_has_everything_and_says_confidential():
    s = demo_series()
    lm = demo_series_landmarks()
    rel = release_series(s.values, lm, epsilon=1.0, scheme="skip", mechanism="laplace",
                         sensitivity=0.2, seed=SEED)
    text = series_audit_csv(s, rel, "Laplace", seed=SEED)
    assert text.splitlines()[0] == f"# {CONFIDENTIAL_LABEL}"
    assert f"# seed: {SEED}" in text
    assert f"# landmarks (0-based timestamps): {','.join(map(str, lm))}" in text
    df = pd.read_csv(io.StringIO(text), comment="#")
    assert list(df.columns) == ["time", "value", "released", "epsilon", "published"]
    np.testing.assert_array_equal(df["value"], s.values)
    assert (df["epsilon"][lm] == 0).all() and not df["published"][lm].any()
    # our own loaders read it back despite the '#' header
    again = load_series_csv(text.encode())
    np.testing.assert_array_equal(again.values, s.values)
    np.testing.assert_allclose(load_allocation_csv(text.encode()), rel.epsilon_t)


def _track_release(scheme: str = "uniform"):
    tr = demo_track()
    lm = demo_track_landmarks()
    rel = release_trajectory(tr.lat, tr.lon, lm, epsilon=1.0, radius=100.0, scheme=scheme,
                             seed=SEED, window=10)
    return tr, lm, rel, mechanism_text("planar laplace", radius=100.0)


def _assert_no_raw_point(lat: np.ndarray, lon: np.ndarray, tr) -> None:
    """No released location equals (to 1e-7° in both coordinates, ~1 cm) any original
    point. (A single coordinate may match by chance: 383² pairs of 6-decimal values.)"""
    ok = ~(np.isnan(lat) | np.isnan(lon))
    same = ((np.abs(lat[ok][:, None] - tr.lat[None, :]) <= 1e-7)
            & (np.abs(lon[ok][:, None] - tr.lon[None, :]) <= 1e-7))
    assert not same.any()


@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive", "user"])
def test_track_publishable_csv_and_geojson(scheme):
    tr, lm, rel, mech = _track_release(scheme)
    text = trajectory_publishable_csv(tr, rel, mech)
    df = pd.read_csv(io.StringIO(text), comment="#")
    assert list(df.columns) == ["time", "released_lat", "released_lon"]
    _assert_no_raw_point(df["released_lat"].to_numpy(), df["released_lon"].to_numpy(), tr)
    header = "\n".join(comment_lines(text))
    for s in landmark_strings(tr.time, lm, tr.time_kind) | {str(SEED)}:
        assert s not in header
    gj_text = geojson_text(trajectory_publishable_geojson(tr, rel, mech))
    gj = json.loads(gj_text)
    assert gj["properties"]["scheme"] and gj["properties"]["epsilon"] == 1.0
    assert "landmarks" not in gj["properties"] and "seed" not in gj["properties"]
    kinds = {f["properties"]["kind"] for f in gj["features"]}
    assert kinds == {"released_path", "released_point"}
    for f in gj["features"]:
        assert set(f["properties"]) <= {"kind", "time"}  # no ε_t, published flag or t
    pts = np.array([f["geometry"]["coordinates"] for f in gj["features"]
                    if f["properties"]["kind"] == "released_point" and f["geometry"]])
    _assert_no_raw_point(pts[:, 1], pts[:, 0], tr)
    path = np.array(gj["features"][0]["geometry"]["coordinates"])
    _assert_no_raw_point(path[:, 1], path[:, 0], tr)
    for t in lm:  # the landmark places, as any file would print them
        for v in (tr.lat[t], tr.lon[t]):
            assert repr(float(v)) not in gj_text and f"{round(float(v), 7)}" not in gj_text


def test_track_audit_files_keep_the_raw_track():
    tr, lm, rel, mech = _track_release("skip")
    text = trajectory_audit_csv(tr, rel, mech, seed=SEED)
    assert text.startswith(f"# {CONFIDENTIAL_LABEL}")
    df = pd.read_csv(io.StringIO(text), comment="#")
    assert list(df.columns) == ["time", "lat", "lon", "released_lat", "released_lon",
                                "epsilon", "published"]
    np.testing.assert_array_equal(df["lat"], tr.lat)
    again = load_track(text.encode(), file_format="csv")
    np.testing.assert_array_equal(again.lon, tr.lon)
    gj = trajectory_geojson(tr, rel)
    assert gj["properties"]["confidential"] == CONFIDENTIAL_LABEL
    assert gj["properties"]["landmarks"] == lm


# ---------------------------------------------------------------- release note / report
def _series_cfg(**kw) -> ViewConfig:
    return ViewConfig(landmarks=demo_series_landmarks(), seed=SEED, sensitivity=0.2, **kw)


@pytest.mark.parametrize("scheme", ["uniform", "skip", "event"])
def test_public_release_note_reveals_no_data_landmarks_or_seed(scheme):
    cfg = _series_cfg(scheme=scheme)
    s = demo_series()
    html = build_release_note(cfg)
    low = html.lower()
    assert "seed" not in low and str(SEED) not in html
    assert "<script" not in low and "plotly" not in low  # no per-timestamp charts
    for lab in landmark_strings(s.time, cfg.landmarks, s.time_kind):
        assert lab not in html, lab
    # no raw value with at least 3 significant digits appears as a number in the note
    text = re.sub(r"<style>.*</style>", "", html, flags=re.S)  # CSS sizes are not data
    numbers = {float(x) for x in re.findall(r"\d+\.\d+", text)}
    raw = {float(v) for v in s.values if len(f"{v:g}".replace(".", "").lstrip("0")) >= 3}
    assert not numbers & raw
    assert "ε" in html and "Laplace" in html and "expected" in low
    verdict = "not landmark-private" if scheme == "event" else "landmark-private"
    assert verdict in low


def test_public_release_note_of_a_track_has_no_places():
    tr = demo_track()
    cfg = ViewConfig(data_kind="track", dataset="demo-paris", landmarks=demo_track_landmarks(),
                     seed=SEED, radius=150.0)
    html = build_release_note(cfg)
    coords = {f"{v:.3f}" for v in np.concatenate([tr.lat, tr.lon])}
    found = set(re.findall(r"\d+\.\d{3}", html))
    assert not found & coords
    assert "Planar Laplace" in html and "seed" not in html.lower()
    for lab in landmark_strings(tr.time, cfg.landmarks, tr.time_kind):
        assert lab not in html


def test_internal_report_is_marked_confidential():
    cfg = _series_cfg()
    html = build_report(cfg)
    assert html.count(CONFIDENTIAL_LABEL) >= 1 and "position: sticky" in html
    assert "CONFIDENTIAL" in report_filename(cfg)


# ---------------------------------------------------------------- configuration by reference
SERIES_CSV = (b"time,value\n2024-03-01T08:00,1.25\n2024-03-01T09:00,2.5\n"
              b"2024-03-01T10:00,3.75\n2024-03-01T11:00,5.125\n2024-03-01T12:00,6.0625\n")


def test_config_labels_and_reference_round_trip():
    s = load_series_csv(SERIES_CSV)
    embedded = ViewConfig(dataset="embedded", data={"time": [0, 1, 2, 3, 4],
                                                    "value": s.values.tolist()},
                          landmarks=[2], seed=SEED)
    text = config_to_json(embedded)
    assert json.loads(text)["confidential"] == CONFIDENTIAL_LABEL
    assert config_from_json(text).data == embedded.data
    ref = reference_config(embedded, "meter.csv", SERIES_CSV)
    rtext = config_to_json(ref)
    body = json.loads(rtext)
    assert body["data"] is None and body["dataset"] == "file"
    assert body["data_file"] == {"name": "meter.csv", "sha256": sha256_hex(SERIES_CSV)}
    assert body["confidential"].startswith("CONFIDENTIAL") and "1.25" not in rtext
    back = attach_referenced_data(config_from_json(rtext), SERIES_CSV, "meter.csv")
    assert back.dataset == "embedded" and back.data["value"] == s.values.tolist()
    with pytest.raises(InputError, match="SHA-256"):
        attach_referenced_data(ref, SERIES_CSV.replace(b"6.0625", b"6.0626"), "meter.csv")


@pytest.mark.parametrize("bad", [
    {"name": "x.csv"}, {"name": "x.csv", "sha256": "abc"}, "x.csv",
    {"name": "x.csv", "sha256": "0" * 64, "data": [1]},
])
def test_bad_data_reference_is_refused(bad):
    body = json.loads(config_to_json(ViewConfig()))
    body.update({"dataset": "file", "data_file": bad})
    with pytest.raises(InputError, match="data_file|dataset 'file'"):
        config_from_json(json.dumps(body))


# ---------------------------------------------------------------- CLI
def test_cli_release_and_report_outputs(tmp_path):
    src = tmp_path / "meter.csv"
    src.write_bytes(SERIES_CSV)
    series = load_series_csv(SERIES_CSV)
    raw = series.values
    out, audit = tmp_path / "release.csv", tmp_path / "audit.csv"
    p = run_cli("release", "--input", str(src), "--landmarks", "1,3", "--epsilon", "1",
                "--scheme", "skip", "--seed", str(SEED), "--output", str(out),
                "--audit", str(audit), "--json")
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert {"landmark_private", "worst_timestamp", "mae", "n_published", "output"} <= set(summary)
    text = out.read_text()
    assert_series_file_is_publishable(text, raw, [1, 3], series.time, series.time_kind)
    assert str(SEED) not in text and "False" not in text and "True" not in text
    a = pd.read_csv(audit, comment="#")
    assert a["published"].tolist() == [True, False, True, False, True]
    assert audit.read_text().startswith(f"# {CONFIDENTIAL_LABEL}")
    # the report of a configuration that references this file
    cfg = reference_config(ViewConfig(dataset="embedded", data={"time": [0], "value": [1]},
                                      landmarks=[1, 3], seed=SEED), "meter.csv", SERIES_CSV)
    cfile = tmp_path / "view.json"
    cfile.write_text(config_to_json(cfg))
    note = tmp_path / "note.html"
    p = run_cli("report", "--config", str(cfile), "--data", str(src), "--output", str(note),
                "--public", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["form"] == "public release note"
    html = note.read_text()
    assert "seed" not in html.lower() and str(SEED) not in html
    for v in raw:
        assert f"{v:g}" not in re.findall(r"\d+\.\d+", html)
    p = run_cli("report", "--config", str(cfile), "--data", str(src), "--output",
                str(tmp_path / "internal.html"))
    assert p.returncode == 0, p.stderr
    assert CONFIDENTIAL_LABEL in (tmp_path / "internal.html").read_text()
    # a different file, or none, is a clear error
    other = tmp_path / "other.csv"
    other.write_bytes(SERIES_CSV.replace(b"6.0625", b"7"))
    assert_clean_error(run_cli("report", "--config", str(cfile), "--data", str(other),
                               "--output", str(note)), "SHA-256")
    assert_clean_error(run_cli("report", "--config", str(cfile), "--output", str(note)),
                       "--data")


def test_cli_geo_release_publishable_geojson(tmp_path):
    tr = demo_track()
    src = tmp_path / "track.csv"
    pd.DataFrame({"time": time_labels(tr.time, tr.time_kind), "lat": tr.lat,
                  "lon": tr.lon}).to_csv(src, index=False)
    lm = demo_track_landmarks()
    out = tmp_path / "release.geojson"
    p = run_cli("geo-release", "--noise", "fast",
                "--input", str(src), "--landmarks", ",".join(map(str, lm)),
                "--epsilon", "1", "--radius", "100", "--scheme", "skip", "--seed", str(SEED),
                "--output", str(out), "--audit", str(tmp_path / "audit.csv"), "--json")
    assert p.returncode == 0, p.stderr
    gj = json.loads(out.read_text())
    pts = np.array([f["geometry"]["coordinates"] for f in gj["features"]
                    if f["properties"]["kind"] == "released_point" and f["geometry"]])
    _assert_no_raw_point(pts[:, 1], pts[:, 0], tr)
    assert str(SEED) not in out.read_text()
    audit = pd.read_csv(tmp_path / "audit.csv", comment="#")
    np.testing.assert_allclose(audit["lat"], tr.lat)
    assert_clean_error(run_cli("geo-release", "--noise", "fast",
                               "--input", str(src), "--epsilon", "1",
                               "--output", str(out), "--audit", str(out)), "--audit")


# ---------------------------------------------------------------- the exact sampler
@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive"])
def test_app_publishable_series_is_a_fresh_exact_release(scheme):
    """The Timeline's *Released series (CSV)*: the same view released again with the
    exact samplers (same landmarks, ε, scheme, mechanism, Δf; verified), kept per setting
    so that a second click gives the same file (never a second release of the data)."""
    from app_support.download_buttons import exact_series_release
    from lmdk_core.files.export import noise_text

    s, lm = demo_series(), demo_series_landmarks()
    page = release_series(s.values, lm, epsilon=1.0, scheme=scheme, mechanism="laplace",
                          sensitivity=0.2, seed=SEED, window=10)
    cfg = ViewConfig(landmarks=lm, seed=SEED, sensitivity=0.2, scheme=scheme, window=10)
    store: dict = {}
    rel = exact_series_release(s, page, cfg, store)
    assert rel.noise == "exact" and page.noise == "fast"
    assert (rel.scheme, rel.mechanism, rel.epsilon) == (scheme, "laplace", 1.0)
    np.testing.assert_array_equal(rel.landmarks, page.landmarks)
    assert rel.verdict.private and verify(rel.epsilon_t, np.array(lm), 1.0).private
    if scheme != "adaptive":  # a static scheme: the same verified allocation
        np.testing.assert_array_equal(rel.epsilon_t, page.epsilon_t)
    assert not np.array_equal(rel.released, page.released, equal_nan=True)  # fresh noise
    assert exact_series_release(s, page, cfg, store) is rel
    text = series_publishable_csv(s, rel, mechanism_text("laplace", sensitivity=0.2),
                                  noise_text(rel.noise))
    df = assert_series_file_is_publishable(text, s.values, lm, s.time, s.time_kind)
    np.testing.assert_array_equal(df["released"].to_numpy(), rel.released)
    assert "# noise: exact discrete Laplace" in text


def test_cli_release_uses_the_exact_sampler_by_default(tmp_path):
    src = tmp_path / "meter.csv"
    src.write_bytes(SERIES_CSV)
    out, audit = tmp_path / "release.csv", tmp_path / "audit.csv"
    p = run_cli("release", "--input", str(src), "--landmarks", "1,3", "--epsilon", "1",
                "--scheme", "uniform", "--output", str(out), "--audit", str(audit), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["noise"].startswith("exact discrete Laplace")
    text = out.read_text()
    assert "# noise: exact discrete Laplace" in text
    # the audit table holds that same release; the publishable file rounds it to the
    # places its header states (docs/outputs.md, "Rounding of released values")
    pub = pd.read_csv(io.StringIO(text), comment="#")["released"].to_numpy(dtype=float)
    places = stated_decimals(text)
    np.testing.assert_array_equal(
        np.round(pd.read_csv(audit, comment="#")["released"].to_numpy(), places), pub)
    assert "noise: exact discrete Laplace" in audit.read_text()
    # --noise fast: numpy's samplers, reproducible from the seed, and said so
    runs = []
    for _ in range(2):
        p = run_cli("release", "--input", str(src), "--epsilon", "1", "--noise", "fast",
                    "--seed", "5", "--output", str(out))
        assert p.returncode == 0, p.stderr
        runs.append(out.read_text())
    assert runs[0] == runs[1] and "# noise: numpy floating-point samplers" in runs[0]
    assert_clean_error(run_cli("release", "--input", str(src), "--epsilon", "1",
                               "--noise", "secure", "--output", str(out)), "--noise")


def test_track_files_name_their_planar_sampler(tmp_path):
    """geo-release's default is the exact Planar Laplace on the grid of a declared region
    (named with its grid and region in the header); without a region it is refused with
    how to declare one; --noise fast says numpy's draws are for exploration only."""
    tr = demo_track()
    src = tmp_path / "track.csv"
    pd.DataFrame({"time": time_labels(tr.time, tr.time_kind), "lat": tr.lat,
                  "lon": tr.lon}).to_csv(src, index=False)
    out = tmp_path / "release.csv"
    assert_clean_error(run_cli("geo-release", "--input", str(src), "--epsilon", "1",
                               "--output", str(out)), "--region LAT,LON,KM")
    p = run_cli("geo-release", "--input", str(src), "--epsilon", "1", "--region",
                "48.86,2.35,50", "--output", str(out))
    assert p.returncode == 0, p.stderr
    head = "\n".join(comment_lines(out.read_text()))
    assert ("exact discrete Planar Laplace on a 0.0625 m grid in the declared region "
            "48.86,2.35,50" in head and "Andrés et al." in head and "numpy" not in head)
    p = run_cli("geo-release", "--noise", "fast", "--input", str(src), "--epsilon", "1",
                "--output", str(out))
    assert p.returncode == 0, p.stderr
    head = "\n".join(comment_lines(out.read_text()))
    assert "numpy floating-point Planar Laplace" in head and "exploration only" in head
