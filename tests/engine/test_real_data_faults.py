"""The faults found on real public files (issue 25, section 4), each checked on a real file
of ``tests/data/real/`` (sources and licences in its README)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from lmdk_core.cli import main
from lmdk_core.data.series import load_series_csv
from lmdk_core.data.tables import csv_separator
from lmdk_core.data.track_loading import load_track
from lmdk_core.engine.stay_events import parse_stays
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import distance_m
from lmdk_core.foundation.validation import (
    parse_landmark_entry,
    parse_landmark_ranges,
    parse_landmarks,
)
from lmdk_core.landmarks.discovery import track_stay_points

REAL = Path(__file__).parents[1] / "data" / "real"
GPS = REAL / "gps"
GEOLIFE = REAL / "geolife"
SERIES = REAL / "series"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------ suggest: the columns it names
def test_suggest_accepts_the_columns_its_error_recommends(capsys):
    nile = str(SERIES / "nile.csv")  # columns year,volume
    code, _, err = run(capsys, "suggest", "--input", nile)
    assert code == 2 and len(err.strip().splitlines()) == 1
    named = set(re.findall(r"--[a-z][a-z-]+", err))
    assert named == {"--time-col", "--value-col"}
    code, out, err = run(capsys, "suggest", "--input", nile, "--time-col", "year",
                         "--value-col", "volume", "--json")
    assert code == 0, err
    assert json.loads(out)["length"] == 100


# ------------------------------------------------------------ one landmark syntax
def test_one_landmark_syntax_parser():
    assert parse_landmarks("271-295") == list(range(271, 296))
    assert parse_landmarks("3,7, 10–12,t=20,30..31") == [3, 7, 10, 11, 12, 20, 30, 31]
    assert parse_landmark_ranges("10-50,7") == [(10, 50), (7, 7)]
    assert parse_stays("271-295") == [(271, 295)]  # stays: the same grammar
    # the app's picker entries: a chip, a run chip, typed text with or without a label
    assert parse_landmark_entry(5, 10) == [5]
    assert parse_landmark_entry((2, 4), 10) == [2, 3, 4]
    assert parse_landmark_entry("t=6 · Mon 08:00", 10) == [6]
    assert parse_landmark_entry("2-4", 10) == [2, 3, 4]
    for bad, words in [("a,b", "not a range of timestamps or a whole number"),
                       ("9-3", "ends before it starts"), ("-3", "not a range"),
                       ("1-2-3", "not a range")]:
        with pytest.raises(InputError, match=words):
            parse_landmarks(bad)
    with pytest.raises(InputError, match="8-12 is outside the track"):
        parse_landmark_entry("8-12", 10, "track")
    with pytest.raises(InputError, match="is not a timestamp"):
        parse_landmark_entry("abc", 10)


def _allocation_facts(out: str) -> dict:
    """The parts of a --json answer fixed by the landmarks and ε (not by the noise)."""
    doc = json.loads(out)
    keep = {"worst_total", "worst_timestamp", "landmark_private", "utility", "solutions"}
    return {k: v for k, v in doc.items() if k in keep or k.startswith("expected_")}


@pytest.mark.parametrize("command, path, ranged, n", [
    ("release", SERIES / "nile.csv", "27-40", 14),
    ("geo-release", GPS / "geolife-003-3days.plt", "271-295", 25),
    ("solve-epsilon", SERIES / "nile.csv", "27-40", 14),
])
def test_release_commands_accept_landmark_ranges(command, path, ranged, n, capsys, tmp_path):
    """``271-295`` (the README's syntax, accepted by solve-epsilon) is accepted by
    release and geo-release too, and means the same as the list it abbreviates."""
    first = int(ranged.split("-")[0])
    listed = ",".join(str(t) for t in range(first, first + n))
    args = [command, "--input", str(path)]
    if path.name == "nile.csv":
        args += ["--time-col", "year", "--value-col", "volume"]
    if command == "solve-epsilon":
        args += ["--within", "50", "--runs", "60", "--seed", "1"]
    else:
        args += ["--epsilon", "1", "--seed", "3", "--max-landmarks", str(n)]
        if command == "geo-release":
            args += ["--noise", "fast"]
    answers = []
    for k, lm in enumerate([ranged, listed, ""]):
        extra = [] if command == "solve-epsilon" else ["--output", str(tmp_path / f"{k}.csv")]
        code, out, err = run(capsys, *args, "--landmarks", lm, *extra, "--json")
        assert code == 0, err
        answers.append(_allocation_facts(out))
    assert answers[0] == answers[1]
    assert answers[0] != answers[2]  # the landmarks were taken into account


# ------------------------------------------------------------ stays on pieces without times
def test_stays_on_a_multi_track_gpx_never_invent_durations():
    """korita-zbevnica.gpx (MapSource): a track without times, then two timed tracks."""
    track = load_track(GPS / "korita-zbevnica.gpx")
    stays, notes = track_stay_points(track)
    assert stays and all(not s.duration_assumed for s in stays)
    assert any("no stay is looked for there" in n for n in notes)
    times = np.asarray(track.time, dtype="datetime64[s]")
    ranges = track.segment_ranges()
    for s in stays:
        # a measured duration: exactly the recorded time between its first and last fix
        assert s.duration_minutes == pytest.approx(
            (times[s.end] - times[s.start]).astype(int) / 60)
        assert "NaT" not in s.describe() and "NaT" not in s.arrival + s.departure
        assert s.start >= ranges[1][0]  # in the timed pieces (a stop may span both)
    with_interval, notes = track_stay_points(track, minutes_per_point=1.0)
    assumed = [s for s in with_interval if s.duration_assumed]
    assert assumed and all(s.end < ranges[0][1] for s in assumed)  # the untimed piece only
    assert all("assumed" in s.describe() and "NaT" not in s.describe() for s in assumed)
    assert any("assumption, not a measurement" in n for n in notes)
    # the timed pieces keep their measured stays whatever interval is given
    assert [s for s in with_interval if not s.duration_assumed] == stays


def test_stays_are_found_across_the_recordings_of_one_file():
    """GeoLife user 004 as a GPX with one segment per recording (10 PLT files over 5
    days, issue 37 §1): the 4 nights at home and the 5 long stays at work span the gap
    between an evening's recording and the next morning's — all found, as on the same
    points without segments (the CSV form), and each spans two recordings."""
    track = load_track(GPS / "geolife-user004-recordings.gpx")
    assert track.n_segments == 10
    stays, notes = track_stay_points(track)
    flat, _ = track_stay_points(load_track(GEOLIFE / "geolife-user004.csv"))
    assert [s.span for s in stays] == [s.span for s in flat] and len(stays) == 22
    home, work = (40.0105, 116.3218), (40.0000, 116.3271)

    def at(place, s, metres):
        return distance_m(place[0], place[1], s.lat, s.lon) < metres

    def overnight(s):
        return s.arrival[:10] != s.departure[:10]

    nights = [s for s in stays if overnight(s) and at(home, s, 1000)
              and s.duration_minutes >= 6 * 60]
    days = [s for s in stays if not overnight(s) and at(work, s, 300)
            and s.duration_minutes >= 3 * 60]
    assert len(nights) == 4 and len(days) == 5
    piece = track.segment
    assert all(piece[s.start] != piece[s.end] for s in nights)  # each bridges a gap
    # a gap longer than allowed is not bridged: the nights are lost again
    short, _ = track_stay_points(track, max_gap_hours=1)
    assert not [s for s in short if overnight(s)]


def test_a_track_without_times_says_its_stay_durations_are_assumed(capsys):
    path = str(GPS / "cerknicko-without-times.gpx")
    code, _, err = run(capsys, "suggest", "--input", str(GPS / "editgpx-no-time.gpx"))
    assert code == 2 and "--minutes-per-point" in err
    code, out, err = run(capsys, "suggest", "--input", path, "--minutes-per-point", "1",
                         "--json")
    assert code == 0, err
    doc = json.loads(out)
    assumed = [s for s in doc["suggestions"] if s["duration_assumed"]]
    assert assumed and all(s["assumed_minutes_per_point"] == 1.0 for s in assumed)
    assert any("assumption" in n for n in doc["notes"])
    code, out, _ = run(capsys, "suggest", "--input", path, "--minutes-per-point", "1")
    assert "(assumed: 1 min per point)" in out and "note:" in out


# ------------------------------------------------------------ GPX names and times per piece
def test_gpx_names_are_trimmed(tmp_path):
    """A pretty-printed export (names on their own indented lines, as XML formatters
    write them) of the real MapSource file: names come out trimmed everywhere."""
    src = (GPS / "korita-zbevnica.gpx").read_text(encoding="utf-8")
    pretty = re.sub(r"<name>([^<]*)</name>", lambda m: f"<name>\n    {m.group(1)}\n  </name>",
                    src)
    assert pretty.count("<name>\n    ") >= 6
    path = tmp_path / "pretty.gpx"
    path.write_text(pretty, encoding="utf-8")
    plain, t = load_track(GPS / "korita-zbevnica.gpx"), load_track(path)
    assert t.segment_names == plain.segment_names == ("03-OCT-10 #2", "ACTIVE LOG",
                                                      "ACTIVE LOG #2")
    assert t.notes == plain.notes and [w.name for w in t.waypoints] == ["001", "002"]
    assert not any("\n" in x or "  " in x for x in t.notes + t.segment_names)


def test_times_going_backwards_between_tracks_are_judged_per_track():
    """lannion-plestin-mapsource.gpx (MapSource): track 2 starts before track 1 ends, and
    goes backwards once inside. Track 1 keeps its 23 times; only track 2 loses its own."""
    t = load_track(GPS / "lannion-plestin-mapsource.gpx")
    assert t.time_kind == "datetime"
    times = np.asarray(t.time, dtype="datetime64[s]")
    assert not np.isnat(times[:23]).any() and np.isnat(times[23:]).all()
    assert str(times[0]) == "2013-03-08T11:15:36" and str(times[22]) == "2013-03-08T11:19:41"
    assert len(t.warnings) == 1 and "Lannion_Plestin_parcours1" in t.warnings[0]
    assert "go backwards" in t.warnings[0]
    assert "the other pieces keep theirs" in t.warnings[0]


def test_tracks_out_of_time_order_keep_their_own_times():
    """The same real file with the backward step inside track 2 removed (its last 8
    points): the tracks are each in order but track 2 starts before track 1 ends —
    every point keeps its time and a note says the pieces are not in time order."""
    src = (GPS / "lannion-plestin-mapsource.gpx").read_text(encoding="utf-8")
    head, tail = src.rsplit("</trkseg>", 1)
    pts = head.split("<trkpt ")
    cut = "<trkpt ".join(pts[:-8]).rstrip() + "\n    </trkseg>" + tail
    t = load_track(cut.encode(), filename="cut.gpx")
    assert t.time_kind == "datetime" and t.n_missing_times == 0 and not t.warnings
    assert any("not in time order" in n for n in t.notes)


# ------------------------------------------------------------ repeated timestamps: one rule
def _mojstrovka_repeats(tmp_path) -> Path:
    """mojstrovka.gpx without its one odd point (0.3 ms before its neighbours): 183 real
    fixes that all carry the same time."""
    src = (GPS / "mojstrovka.gpx").read_text(encoding="utf-8")
    pts = re.split(r"(?=<trkpt )", src)
    keep = [p for p in pts if not p.startswith("<trkpt ")
            or "<time>1901-12-13T20:45:52.207Z" not in p]
    path = tmp_path / "mojstrovka-repeats.gpx"
    path.write_text("".join(keep), encoding="utf-8")
    return path


def test_repeated_timestamps_follow_one_rule_everywhere(tmp_path, capsys, cluster):
    """The same user's points, all at one time: the Map's loader, lmdk geo-release, the
    Population page's table and lmdk batch all keep every point, in file order, each its
    own timestamp (docs/data-formats.md)."""
    import pandas as pd

    from lmdk_core.files.config import ViewConfig, config_to_json
    from lmdk_core.population.in_process import standardise
    from lmdk_core.population.table import PopulationColumns, repeated_times_count

    gpx = _mojstrovka_repeats(tmp_path)
    track = load_track(gpx)
    assert len(track) == 183 and track.time_kind == "datetime"
    assert any("182 points have the same time" in n for n in track.notes)
    code, out, err = run(capsys, "geo-release", "--noise", "fast",
                         "--input", str(gpx), "--epsilon", "1",
                         "--output", str(tmp_path / "geo.csv"), "--seed", "1")
    assert code == 0, err
    geo = pd.read_csv(tmp_path / "geo.csv", comment="#")
    assert len(geo) == 183
    long = pd.DataFrame({"user": "mojstrovka", "time": [
        pd.Timestamp(x).isoformat() for x in np.asarray(track.time)],
        "lat": track.lat, "lon": track.lon})
    src = tmp_path / "population.csv"
    long.to_csv(src, index=False)
    frame, _ = standardise(pd.read_csv(src, dtype={"time": str}),
                           PopulationColumns(user="user", time="time", lat="lat", lon="lon"))
    assert len(frame) == 183 and repeated_times_count(frame) == (182, 1)
    assert np.array_equal(frame["lat"].to_numpy(), track.lat)  # file order kept
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig(data_kind="track", dataset="demo-paris")))
    code, _, err = run(capsys, "batch", "--config", str(cfg), "--input", str(src),
                       "--user-col", "user", "--time-col", "time", "--lat-col", "lat",
                       "--lon-col", "lon", "--output", str(tmp_path / "o.csv"),
                       "--audit", str(tmp_path / "a.csv"), "--scheduler",
                       cluster.scheduler_address, "--noise", "fast", "--seed", "2")
    assert code == 0, err
    assert len(pd.read_csv(tmp_path / "o.csv", comment="#")) == 183


def test_a_series_with_repeated_times_keeps_every_row():
    """modechoice-semicolon.csv: each `individual` (read as the time) on 4 rows."""
    s = load_series_csv(SERIES / "modechoice-semicolon.csv", time_col="individual",
                        value_col="choice")
    assert len(s) == 840 and "630 rows have the same time" in s.notes[0]


# ------------------------------------------------------------ time zones
def test_local_times_are_written_back_as_the_same_instants(capsys, tmp_path):
    """water-flow.csv: local times with +01:00 / +02:00 (a daylight-saving change on
    2022-03-27). Released files write them in UTC with a Z, so every written time is the
    instant the file meant; times without a zone (occupancy.csv) stay without one."""
    import pandas as pd

    src = SERIES / "water-flow.csv"
    code, _, err = run(capsys, "release", "--input", str(src), "--time-col", "Time",
                       "--value-col", "Water flow [l/s]", "--epsilon", "1",
                       "--output", str(tmp_path / "w.csv"))
    assert code == 0, err
    out = pd.read_csv(tmp_path / "w.csv", comment="#", dtype={"time": str})
    assert out["time"].str.endswith("Z").all()
    original = pd.to_datetime(pd.read_csv(src)["Time"], format="ISO8601", utc=True)
    written = pd.to_datetime(out["time"], format="ISO8601", utc=True)
    assert (written == original).all() and written.is_unique
    assert out["time"].iloc[0] == "2022-03-20T10:00:00Z"  # 11:00+01:00
    code, _, err = run(capsys, "release", "--input", str(SERIES / "occupancy.csv"),
                       "--value-col", "V4", "--epsilon", "1",
                       "--output", str(tmp_path / "o.csv"))
    assert code == 0, err
    naive = pd.read_csv(tmp_path / "o.csv", comment="#", dtype={"time": str})["time"]
    assert naive.iloc[0] == "2015-02-04T17:51:00" and not naive.str.endswith("Z").any()


def test_gpx_times_are_written_as_utc(capsys, tmp_path):
    code, _, err = run(capsys, "geo-release", "--noise", "fast",
                       "--input", str(GPS / "healthfit-apple-watch.gpx"),
                       "--epsilon", "1", "--output", str(tmp_path / "g.csv"))
    assert code == 0, err
    rows = [ln for ln in (tmp_path / "g.csv").read_text().splitlines()
            if not ln.startswith("#")]
    assert rows[1].startswith("2021-07-21T12:46:38Z,")
    track = load_track(GPS / "healthfit-apple-watch.gpx")  # the saved view round trip
    assert track.table()["time"][0] == "2021-07-21T12:46:38Z"


# ------------------------------------------------------------ series suggestions: level shifts
def test_a_sustained_level_shift_is_suggested(capsys):
    """nile.csv: the Nile's flow drops for good after 1898 (Cobb 1978). A rolling median
    follows the new level and scored it ~0 (no suggestion); the level-shift search finds
    the change point, and `lmdk suggest` offers it."""
    from lmdk_core.landmarks.discovery import deviation_scores, level_shifts

    s = load_series_csv(SERIES / "nile.csv", time_col="year", value_col="volume")
    _, score = deviation_scores(s.values)
    assert score.max() < 5  # the rolling baseline alone: nothing
    shifts = level_shifts(s.values)
    assert len(shifts) == 1 and shifts[0].change == 28 and s.time[28] == 1899
    assert shifts[0].level > shifts[0].usual  # the years before were the high ones
    code, out, err = run(capsys, "suggest", "--input", str(SERIES / "nile.csv"),
                         "--time-col", "year", "--value-col", "volume", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["landmarks"] == [28]
    assert doc["suggestions"][0]["reason"] == "level_shift"


def test_level_shifts_ignore_noise_and_spikes():
    """No shift in stationary noise, nor for a single spike (seeded; σ-level check)."""
    from lmdk_core.landmarks.discovery import level_shifts

    rng = np.random.default_rng(7)
    for _ in range(20):
        x = rng.normal(10, 1, 500)
        assert level_shifts(x) == []
        x[250] += 40
        assert level_shifts(x) == []
    x = rng.normal(10, 1, 365)
    x[200:225] -= 6  # a 25-day holiday in a daily series
    (sh,) = level_shifts(x)
    assert (sh.start, sh.end, sh.change) == (200, 224, None)


# ------------------------------------------------------------ batch provenance
def test_a_batch_configuration_names_the_uploaded_population(tmp_path, capsys, cluster):
    """A population of real series (occupancy CO₂, water flow, running pace, one user
    each): its batch configuration names that file (name + SHA-256), not a demo;
    `lmdk report` refuses it naming the file; `lmdk batch` reports the input it read."""
    import hashlib

    import pandas as pd

    from lmdk_core.files.config import ViewConfig, config_from_json
    from lmdk_core.population.in_process import batch_config_json, batch_dataset

    frames = []
    for name in ("occupancy.csv", "water-flow.csv", "run-log.csv"):
        tcol, vcol = {"occupancy.csv": ("time", "V4"), "run-log.csv": ("time", "Pace"),
                      "water-flow.csv": ("Time", "Water flow [l/s]")}[name]
        s = load_series_csv(SERIES / name, time_col=tcol, value_col=vcol)
        frames.append(pd.DataFrame({"user": name, "time": [pd.Timestamp(x).isoformat()
                                                           for x in s.time],
                                    "value": s.values}))
    src = tmp_path / "meters.csv"
    pd.concat(frames).to_csv(src, index=False)
    sha = hashlib.sha256(src.read_bytes()).hexdigest()
    cfg = ViewConfig(data_kind="series", page="population",
                     **batch_dataset("series", "meters.csv", sha))
    text = batch_config_json(cfg)
    back = config_from_json(text)
    assert back.dataset == "file" and back.data_file == {"name": "meters.csv", "sha256": sha}
    assert "demo" not in text
    path = tmp_path / "batch.json"
    path.write_text(text)
    code, _, err = run(capsys, "report", "--config", str(path), "--output",
                       str(tmp_path / "r.html"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "meters.csv" in err and sha[:12] in err and "lmdk batch" in err
    code, out, err = run(capsys, "batch", "--config", str(path), "--input", str(src),
                         "--user-col", "user", "--time-col", "time", "--value-col", "value",
                         "--output", str(tmp_path / "o.csv"), "--audit", str(tmp_path / "a.csv"),
                         "--scheduler", cluster.scheduler_address, "--noise", "fast",
                         "--no-leakage", "--json")
    assert code == 0, err
    assert json.loads(out)["input"] == {"name": "meters.csv", "sha256": sha}
    assert "another file" not in err


# ------------------------------------------------------------ population: TPL not computable
def test_users_without_a_landmark_tpl_are_counted_apart():
    """Real tracks as a population, leakage on 50 m grid cells: the GeoLife users visit
    more than 500 cells (no transition matrix that large), the MapSource hike fewer.
    The audit says why a TPL is missing; the verdict is grey, never green or amber."""
    import pandas as pd

    from lmdk_core.files.config import ViewConfig
    from lmdk_core.population.audit import LeakageSettings
    from lmdk_core.population.in_process import (
        NO_LEAKAGE,
        release_in_process,
        standardise,
        verdict_colours,
    )
    from lmdk_core.population.partition import BatchSettings
    from lmdk_core.population.table import PopulationColumns

    frames = []
    for rel in ("geolife/geolife-user000.csv", "geolife/geolife-user006.csv",
                "gps/korita-zbevnica.gpx"):
        t = load_track(REAL / rel)
        frames.append(pd.DataFrame({"user": rel, "time": np.arange(len(t)), "lat": t.lat,
                                    "lon": t.lon, "landmark": 0}))
    frame, _ = standardise(pd.concat(frames, ignore_index=True), PopulationColumns(
        user="user", time="time", lat="lat", lon="lon", landmark="landmark"))
    cfg = ViewConfig(data_kind="track", dataset="demo-paris")
    settings = BatchSettings.from_config(cfg, "track", "fast", 11)
    settings = BatchSettings(**{**settings.__dict__, "leakage": LeakageSettings(
        spec={"model": "grid", "cell_size_m": 50.0}, cell_size_m=50.0)})
    audit = release_in_process(frame, "track", settings).audit.set_index("user")
    for user in ("geolife/geolife-user000.csv", "geolife/geolife-user006.csv"):
        assert np.isnan(audit.loc[user, "max_landmark_tpl"])
        assert "grid cells visited: too many states" in audit.loc[user, "leakage_note"]
    assert np.isfinite(audit.loc["gps/korita-zbevnica.gpx", "max_landmark_tpl"])
    assert audit.loc["gps/korita-zbevnica.gpx", "leakage_note"] == ""
    colours = dict(zip(audit.index, verdict_colours(audit.reset_index(), 1.0), strict=True))
    assert colours["geolife/geolife-user000.csv"] == NO_LEAKAGE
    assert colours["geolife/geolife-user006.csv"] == NO_LEAKAGE
    assert colours["gps/korita-zbevnica.gpx"] in ("green", "amber")


def test_suggestions_are_counted_as_events_across_sampling_rates(capsys, tmp_path):
    """water-flow.csv hourly and the same file at every 4th hour: the suggested
    timestamps grow with the sampling rate (more readings per anomalous stretch), the
    events (runs of consecutive timestamps) much less; `lmdk suggest` reports both."""
    import pandas as pd

    from lmdk_core.landmarks.discovery import deviation_suggestions, suggestion_events

    assert suggestion_events([3, 4, 5, 9, 11, 12]) == [(3, 5), (9, 9), (11, 12)]
    s = load_series_csv(SERIES / "water-flow.csv", time_col="Time",
                        value_col="Water flow [l/s]")
    counts = {}
    for step in (1, 4):
        found = deviation_suggestions(s.values[::step])
        ts = [f.timestamp for f in found]
        counts[step] = (len(ts), len(suggestion_events(ts)))
    (n1, e1), (n4, e4) = counts[1], counts[4]
    assert n1 >= 3 * n4  # timestamps: about proportional to the rate
    assert e1 <= 3 * e4  # events: the same anomalies, a few split or merged
    raw = pd.read_csv(SERIES / "water-flow.csv")
    raw.iloc[::4].to_csv(tmp_path / "every4h.csv", index=False)
    for path in (SERIES / "water-flow.csv", tmp_path / "every4h.csv"):
        code, out, err = run(capsys, "suggest", "--input", str(path), "--time-col", "Time",
                             "--value-col", "Water flow [l/s]", "--json")
        assert code == 0, err
        doc = json.loads(out)
        assert doc["events"] == [list(e) for e in suggestion_events(doc["landmarks"])]


# ------------------------------------------------------------ column choices
def test_a_row_index_is_never_offered_as_a_column():
    """occupancy-pandas-index.csv: the real occupancy series as pandas writes it with its
    row index (`Unnamed: 0`, 0, 1, 2, …)."""
    from lmdk_core.data.series import guess_series_columns, is_index_column

    assert guess_series_columns(SERIES / "occupancy-pandas-index.csv") == ("time", "V1")
    assert is_index_column("Unnamed: 0") and not is_index_column("V1")
    assert guess_series_columns(SERIES / "water-flow-semicolon.csv") == (
        "Time", "Water flow [l/s]")


# ------------------------------------------------------------ separators
@pytest.mark.parametrize("name, sep", [("water-flow-semicolon.csv", ";"),
                                       ("modechoice-semicolon.csv", ";"),
                                       ("water-flow.csv", ","), ("nile.csv", ",")])
def test_the_separator_is_detected(name, sep):
    assert csv_separator((SERIES / name).read_bytes()) == sep


def test_a_semicolon_file_loads_like_its_comma_original():
    a = load_series_csv(SERIES / "water-flow.csv", time_col="Time",
                        value_col="Water flow [l/s]")
    b = load_series_csv(SERIES / "water-flow-semicolon.csv", time_col="Time",
                        value_col="Water flow [l/s]")
    assert np.array_equal(a.values, b.values) and np.array_equal(a.time, b.time)
