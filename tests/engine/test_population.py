"""Population releases (lmdk_core.population) on a real dask.distributed LocalCluster."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from lmdk_core.adaptive.reference import PresampledDraws, adaptive_reference
from lmdk_core.cli import main
from lmdk_core.engine.release import AdaptiveSettings, release_series, release_trajectory
from lmdk_core.engine.run_events import runs_of
from lmdk_core.engine.verifier import verify
from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.files.export import release_decimals
from lmdk_core.landmarks.discovery import deviation_suggestions, suggested_timestamps
from lmdk_core.mechanisms import Geometric, Laplace
from lmdk_core.population.dask_driver import run_batch
from lmdk_core.population.lockstep import lockstep_release
from lmdk_core.population.partition import BatchSettings, release_partition
from lmdk_core.population.streams import user_generator, user_key
from lmdk_core.population.table import PopulationColumns

SEED = 1234  # seed of the releases compared below


def _population(users=24, T=120, seed=5, landmark_rate=0.03, text_ids=False):
    rng = np.random.default_rng(seed)  # data generator, not the release noise
    lengths = rng.integers(T // 2, T, users)
    rows = []
    for u, n in enumerate(lengths):
        uid = f"house-{u}" if text_ids else int(u * 7 + 3)
        v = 10 + np.cumsum(rng.normal(0, 1, n))
        lm = rng.random(n) < landmark_rate
        lm[0] = u % 3 == 0  # some users start with a landmark (Skip withholds it)
        rows.append(pd.DataFrame({"uid": uid, "t": np.arange(n) * 3600, "kwh": v,
                                  "event": lm}))
    df = pd.concat(rows, ignore_index=True)
    return df.sample(frac=1.0, random_state=1).reset_index(drop=True)  # any row order


COLS = PopulationColumns(user="uid", time="t", value="kwh", landmark="event")


def _write(tmp_path, df, name="pop.parquet"):
    path = tmp_path / name
    if name.endswith(".csv"):
        df.to_csv(path, index=False)
    else:
        df.to_parquet(path)
    return path


def _read_release(path):
    return pd.read_parquet(path).sort_values(["user", "time"], ignore_index=True)


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_same_seed_same_release_on_1_and_2_workers(tmp_path, cluster, scheme):
    src = _write(tmp_path, _population())
    cfg = ViewConfig(scheme=scheme, epsilon=1.0)
    out2, out1 = tmp_path / "r2.parquet", tmp_path / "r1.parquet"
    r2 = run_batch(cfg, src, COLS, out2, tmp_path / "a2.parquet", seed=SEED, noise="fast",
                   scheduler=cluster.scheduler_address, rows_per_partition=500)
    r1 = run_batch(cfg, src, COLS, out1, tmp_path / "a1.parquet", seed=SEED, noise="fast",
                   workers=1)
    assert r2.workers == 2 and r1.workers == 1 and r2.partitions > 1
    a, b = _read_release(out2), _read_release(out1)
    pd.testing.assert_frame_equal(a, b)
    out3 = tmp_path / "r3.parquet"
    run_batch(cfg, src, COLS, out3, tmp_path / "a3.parquet", seed=SEED + 1, noise="fast",
              scheduler=cluster.scheduler_address)
    assert not np.allclose(_read_release(out3)["released"], a["released"], equal_nan=True)


@pytest.mark.parametrize("scheme", ["uniform", "skip", "event", "w-event"])
def test_static_schemes_equal_the_single_trace_engine(tmp_path, cluster, scheme):
    df = _population(text_ids=True)
    src = _write(tmp_path, df)
    cfg = ViewConfig(scheme=scheme, epsilon=0.8, sensitivity=2.0, window=4)
    res = run_batch(cfg, src, COLS, tmp_path / "r.parquet", tmp_path / "a.parquet",
                    seed=SEED, noise="fast", scheduler=cluster.scheduler_address)
    audit = pd.read_parquet(tmp_path / "a.parquet").set_index("user")
    released = _read_release(tmp_path / "r.parquet") if res.output_written else None
    all_private = True
    for uid, g in df.groupby("uid"):
        g = g.sort_values("t")
        lm = np.flatnonzero(g["event"].to_numpy())
        # runs of consecutive flags are one landmark event each (docs/series-events.md)
        single = release_series(g["kwh"].to_numpy(), lm, epsilon=0.8, scheme=scheme,
                                mechanism="laplace", sensitivity=2.0,
                                seed=user_generator(SEED, uid), window=4, runs=runs_of(lm) or None)
        row = audit.loc[uid]
        assert bool(row["landmark_private"]) == single.verdict.private
        assert int(row["worst_timestamp"]) == single.verdict.worst_timestamp
        assert row["worst_total"] == single.verdict.worst_total
        assert row["n_landmarks"] == lm.size
        all_private &= single.verdict.private
        if released is not None:
            mine = released[released["user"] == uid]["released"].to_numpy()
            # the publishable rows round the release (b = Δf/ε = 2.5: 3 places)
            np.testing.assert_array_equal(mine, np.round(single.released,
                                                         release_decimals(0.8, 2.0)))
    # a population with a user whose release is not landmark-private (event-level with
    # landmarks; w-event with w < |L|+1) gets no publishable file, only the audit
    assert res.output_written == all_private
    assert all_private == (scheme in ("uniform", "skip"))


def test_lockstep_adaptive_equals_the_single_trace_adaptive():
    rng = np.random.default_rng(11)  # data and landmarks
    U, T = 30, 200
    lengths = rng.integers(20, T + 1, U)
    x = np.full((U, T), np.nan)
    lm = np.zeros((U, T), dtype=bool)
    for u in range(U):
        x[u, :lengths[u]] = np.cumsum(rng.normal(0, 0.3, lengths[u]))
        lm[u, :lengths[u]] = rng.random(lengths[u]) < 0.08
    mech = Laplace(1.0)
    gens = [user_generator(SEED, u) for u in range(U)]
    settings = AdaptiveSettings()
    rel = lockstep_release(x, lengths, lm, scheme="adaptive", epsilon=2.0, mech=mech, gens=gens,
                           noise="fast")
    for u in range(U):
        n = lengths[u]
        g = user_generator(SEED, u)
        coins, z = g.random(n), mech.presample(g, n)  # the user's stream, drawn ahead
        L = np.flatnonzero(lm[u, :n])
        planned = np.full(n, 2.0 / (L.size + 1) if L.size < n else 2.0 / L.size)
        # the reference definition of Adaptive, fed with those draws
        released, eps, pub = adaptive_reference(x[u, :n], L, planned=planned, mech=mech,
                                                draws=PresampledDraws(mech, coins, z),
                                                settings=settings)
        np.testing.assert_array_equal(rel.released[u, :n], released)
        np.testing.assert_array_equal(rel.epsilon_t[u, :n], eps)
        np.testing.assert_array_equal(rel.published[u, :n], pub)
        assert verify(rel.epsilon_t[u, :n], L, 2.0).private
        assert np.all(rel.epsilon_t[u, n:] == 0)


def test_geometric_adaptive_releases_whole_numbers_and_stays_private():
    rng = np.random.default_rng(3)
    U, T = 20, 150
    x = rng.integers(0, 50, (U, T)).astype(float)
    lm = rng.random((U, T)) < 0.05
    lengths = np.full(U, T)
    for noise in ("fast", "exact"):
        rel = lockstep_release(x, lengths, lm, scheme="adaptive", epsilon=1.0, mech=Geometric(1),
                               gens=[user_generator(SEED, u) for u in range(U)], noise=noise)
        assert np.all(rel.released == np.round(rel.released))
        for u in range(U):
            assert verify(rel.epsilon_t[u], np.flatnonzero(lm[u]), 1.0).private


def test_tracks_uniform_equals_single_trace_and_adaptive_is_private(tmp_path, cluster):
    rng = np.random.default_rng(8)
    rows = []
    for u in range(6):
        n = 80
        lat = 48.85 + np.cumsum(rng.normal(0, 1e-4, n))
        lon = 2.35 + np.cumsum(rng.normal(0, 1e-4, n))
        rows.append(pd.DataFrame({"who": u, "ts": np.arange(n) * 60, "la": lat, "lo": lon,
                                  "flag": (np.arange(n) % 25 == 5).astype(int)}))
    df = pd.concat(rows, ignore_index=True)
    src = _write(tmp_path, df, "tracks.csv")
    cols = PopulationColumns(user="who", time="ts", lat="la", lon="lo", landmark="flag")
    cfg = ViewConfig(data_kind="track", dataset="demo-paris", scheme="uniform", radius=50.0)
    run_batch(cfg, src, cols, tmp_path / "r.csv", tmp_path / "a.csv", seed=SEED,
              noise="fast", scheduler=cluster.scheduler_address)
    text = (tmp_path / "r.csv").read_text()
    # no declared k: Uniform's per-user scale follows |L_u|, so the file says exploratory
    first = text.splitlines()[0]
    assert first.startswith("# EXPLORATORY, not publishable") and "released values only" in first
    assert "NOT applied" in first
    out = pd.read_csv(tmp_path / "r.csv", comment="#")
    assert list(out.columns) == ["user", "time", "released_lat", "released_lon"]
    for u, g in df.groupby("who"):
        lmk = np.flatnonzero(g["flag"].to_numpy())
        single = release_trajectory(g["la"], g["lo"], lmk, epsilon=1.0, radius=50.0,
                                    scheme="uniform", seed=user_generator(SEED, str(u)))
        mine = out[out["user"] == u][["released_lat", "released_lon"]].to_numpy()
        # rounded to the publishable places (r = 50 m at ε = 1: 7 places of a degree)
        np.testing.assert_allclose(
            mine, np.round(single.released, release_decimals(1.0, 50.0, degrees=True)),
            rtol=0, atol=1e-12)  # (the CSV's decimal text parses to within an ulp)
    # Adaptive with the exact Planar Laplace on a declared region (extra.region)
    cfg_a = ViewConfig(data_kind="track", dataset="demo-paris", scheme="adaptive", radius=50.0,
                       extra={"region": "48.85,2.35,20"})
    res = run_batch(cfg_a, src, cols, tmp_path / "r2.parquet", tmp_path / "a2.parquet",
                    seed=SEED, scheduler=cluster.scheduler_address)
    assert res.output_written and res.not_private == 0
    assert "exact discrete Planar Laplace" in res.noise and "48.85,2.35,20" in res.noise


def test_publishable_output_holds_released_values_only(tmp_path, cluster):
    df = _population()
    src = _write(tmp_path, df)
    cfg = ViewConfig(scheme="skip", epsilon=1.0)
    run_batch(cfg, src, COLS, tmp_path / "r.parquet", tmp_path / "a.parquet", seed=SEED,
              scheduler=cluster.scheduler_address)  # default noise: exact
    files = list((tmp_path / "r.parquet").iterdir())
    assert files and all(f.name.startswith("part-") for f in files)
    out = _read_release(tmp_path / "r.parquet")
    assert list(out.columns) == ["user", "time", "released"]
    meta = pq.read_schema(files[0]).metadata
    text = json.dumps({k.decode(): v.decode(errors="replace") for k, v in meta.items()})
    assert "exact discrete Laplace" in text and str(SEED) not in text.replace("pandas", "")
    assert "event" not in text and "epsilon" not in text.lower()
    raw = set(df["kwh"].round(9))
    assert not any(v in raw for v in out["released"].dropna().round(9))
    # users who start with a landmark have nothing to repeat under Skip: withheld
    first = df.sort_values("t").groupby("uid").first()
    starts = set(first.index[first["event"]])
    head = out.groupby("user").head(1).set_index("user")  # (first() skips NaN)
    assert starts and all(np.isnan(head.loc[u, "released"]) for u in starts)
    audit_meta = pq.read_schema(tmp_path / "a.parquet").metadata
    assert b"CONFIDENTIAL" in audit_meta[b"lmdk.confidential"]
    assert audit_meta[b"lmdk.seed"] == str(SEED).encode()


def test_discovered_landmarks_match_the_detector():
    rng = np.random.default_rng(2)
    rows = []
    for u in range(5):
        v = 5 + np.sin(np.arange(200) / 4) + rng.normal(0, 0.1, 200)
        v[50 + u * 10] += 30  # a spike per user
        rows.append(pd.DataFrame({"uid": u, "t": np.arange(200), "kwh": v}))
    df = pd.concat(rows, ignore_index=True)
    cols = PopulationColumns(user="uid", time="t", value="kwh")
    s = BatchSettings.from_config(ViewConfig(), "series", "fast", SEED)
    res = release_partition(df, cols, s)
    audit = res.audit.set_index("user")
    for u, g in df.groupby("uid"):
        expect = suggested_timestamps(deviation_suggestions(g["kwh"].to_numpy()))
        assert audit.loc[u, "n_landmarks"] == len(expect) >= 1


def test_user_keys_are_distinct_and_stable():
    keys = {user_key(x) for x in [0, 1, -1, 2**40, "0", "1", "a", "é", ""]}
    assert len(keys) == 9
    assert user_key("house-1") == user_key("house-1")


def _cli(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return code, err


@pytest.mark.parametrize("mutate, extra, fragment", [
    (None, ["--value-col", "nope"], "unknown value column"),
    ("mixed", [], "mixed time kinds"),
    ("nouser", [], "no user id"),
    ("badflag", [], "landmark column"),
    ("badvalue", [], "not a finite number"),
    (None, ["--value-col", "kwh", "--lat-col", "a", "--lon-col", "b"], "not both"),
    (None, ["--lat-col", "kwh", "--lon-col", "kwh"], "named twice"),
    (None, ["--seed", "-3"], "--seed must be a whole number from 0 to 2^128 − 1; got `-3`"),
    (None, ["--workers", "0"], "--workers must be a whole number from 1 to 256; got `0`"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, cluster, capsys, mutate, extra, fragment):
    df = _population(users=6, T=30).astype({"t": object, "event": object, "uid": object,
                                            "kwh": object})
    if mutate == "dup":
        df = pd.concat([df, df.iloc[:1]], ignore_index=True)
    elif mutate == "mixed":
        df.loc[0, "t"] = "2024-01-01T00:00"
    elif mutate == "nouser":
        df.loc[3, "uid"] = ""
    elif mutate == "badflag":
        df.loc[2, "event"] = "maybe"
    elif mutate == "badvalue":
        df.loc[4, "kwh"] = "n/a"
    src = tmp_path / "pop.csv"
    df.to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    argv = ["batch", "--config", str(cfg), "--input", str(src), "--user-col", "uid",
            "--time-col", "t", "--landmark-col", "event", "--output", str(tmp_path / "o.csv"),
            "--audit", str(tmp_path / "a.csv"), "--scheduler", cluster.scheduler_address,
            "--noise", "fast"]
    if not any(a in extra for a in ("--value-col", "--lat-col")):
        argv += ["--value-col", "kwh"]
    code, err = _cli(capsys, argv + extra)
    assert code == 2 and len(err) == 1 and err[0].startswith("lmdk: error:"), err
    assert fragment in err[0]
    assert not (tmp_path / "o.csv").exists()


def test_config_of_the_other_kind_is_refused(tmp_path, capsys):
    src = _write(tmp_path, _population(users=3, T=20))
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig(data_kind="track", dataset="demo-paris")))
    code, err = _cli(capsys, ["batch", "--config", str(cfg), "--input", str(src),
                              "--user-col", "uid", "--time-col", "t", "--value-col", "kwh",
                              "--output", str(tmp_path / "o.parquet"),
                              "--audit", str(tmp_path / "a.parquet")])
    assert code == 2 and len(err) == 1 and "Map (tracks)" in err[0]


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_input_ordered_by_user_is_cut_along_row_groups_with_the_same_release(
        tmp_path, cluster, scheme):
    """A Parquet file sorted by user (small row groups, users spanning several groups,
    times shuffled within users) takes the no-shuffle path; it releases exactly what the
    bucket path releases for the same seed (the shuffled-rows file takes that path)."""
    from lmdk_core.population.row_groups import row_group_plan

    df = _population(users=30)
    ordered = df.sort_values("uid", kind="stable").reset_index(drop=True)
    src_sorted = tmp_path / "sorted.parquet"
    ordered.to_parquet(src_sorted, row_group_size=37)  # users straddle row groups
    src_shuffled = tmp_path / "shuffled.parquet"
    df.to_parquet(src_shuffled, row_group_size=37)  # rows in any order
    plan = row_group_plan(src_sorted, "uid", 400)
    assert plan is not None and len(plan[1]) >= 2  # the sorted path is taken
    assert row_group_plan(src_shuffled, "uid", 400) is None  # the buckets are taken
    cfg = ViewConfig(scheme=scheme, epsilon=1.0)
    outs = []
    for name, src in (("s", src_sorted), ("h", src_shuffled)):
        out = tmp_path / f"r_{name}.parquet"
        res = run_batch(cfg, src, COLS, out, tmp_path / f"a_{name}.parquet", seed=SEED,
                        noise="fast", scheduler=cluster.scheduler_address,
                        rows_per_partition=400)
        assert res.partitions > 1 and not res.not_private
        outs.append(_read_release(out))
    pd.testing.assert_frame_equal(outs[0], outs[1])
    assert outs[0]["user"].nunique() == 30 and len(outs[0]) == len(df)


@pytest.mark.parametrize("kind", ["series", "stays", "track"])
def test_audit_utility_columns_are_the_utility_verdicts(kind):
    """The audit's expected_error, data_scale and utility columns (computed without the
    verdict's sentences and advice) equal :func:`utility_verdict`'s typical error, scale
    and badge: a series, a series whose stays are released as events (errors counted
    from the stays' centroids), and a track over several days (a typical day's extent);
    ε_t with approximated (0) and landmark timestamps, seed 7."""
    from lmdk_core.decision.utility import utility_verdict
    from lmdk_core.mechanisms import PlanarLaplace
    from lmdk_core.population.audit import UserTrace, user_audit

    rng = np.random.default_rng(7)
    n = 60
    track = kind == "track"
    time = (np.datetime64("2024-05-01T00:00") + np.arange(n) * np.timedelta64(2, "h")
            if track else np.arange(n))
    original = (np.column_stack([48.85 + np.cumsum(rng.normal(0, 1e-3, n)),
                                 2.35 + np.cumsum(rng.normal(0, 1e-3, n))])
                if track else rng.normal(10.0, 3.0, n))
    eps = np.where(rng.random(n) < 0.3, 0.0, 0.1)
    eps[0] = 0.1
    published = eps > 0
    released = original + rng.normal(0, 1e-3 if track else 1.0, original.shape)
    landmarks = np.array([5, 6, 7, 20]) if kind == "stays" else np.array([3, 20])
    groups = [(5, 8)] if kind == "stays" else None
    mech = PlanarLaplace() if track else Laplace(1.0)
    row = user_audit(1, UserTrace(time, original, released, eps, published, landmarks),
                     epsilon=1.0, kind="track" if track else "series", distance=mech.distance,
                     leakage=None, mechanism="planar_laplace" if track else "laplace",
                     scale_unit=100.0 if track else 1.0, groups=groups,
                     tpl=(float("nan"), "not computed"))
    sources = None
    if groups:
        from lmdk_core.engine.stay_events import condense, condensed_points

        cond = condense(n, groups)
        sources = condensed_points(original, cond)[cond.index]
    uv = utility_verdict(original, eps, published,
                         mechanism="planar_laplace" if track else "laplace",
                         sensitivity=None if track else 1.0, radius=100.0 if track else None,
                         epsilon=1.0, n_landmarks=len(landmarks), scheme="uniform",
                         sources=sources, times=time if track else None)
    assert (row["expected_error"], row["data_scale"], row["utility"]) == (
        uv.typical, uv.scale.value, uv.label)
    if track:
        assert uv.scale.name == "typical day's extent"
