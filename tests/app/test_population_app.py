"""The demo population, the in-process population release and the Population page."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from lmdk_core.engine.run_events import runs_of
from lmdk_core.foundation.errors import InputError
from lmdk_core.landmarks.discovery import (
    deviation_suggestions,
    seasonal_phase,
    suggested_timestamps,
)
from lmdk_core.leakage.estimation import discretize_series, transition_matrices
from lmdk_core.population.audit import LeakageSettings
from lmdk_core.population.demo_population import (
    DEMO_POPULATION_SERIES_COLUMNS,
    DEMO_POPULATION_TRACK_COLUMNS,
    demo_population_series,
    demo_population_tracks,
)
from lmdk_core.population.in_process import (
    audit_csv,
    population_correlation,
    publishable_csv,
    read_table_bytes,
    release_in_process,
    standardise,
    verdict_colours,
)
from lmdk_core.population.partition import BatchSettings, release_partition
from tests.conftest import chart_specs, metric, open_page

TIMEOUT = 240


# ------------------------------------------------------------------ the demo population
def test_demo_series_population_shape_flags_and_determinism():
    df = demo_population_series()
    assert list(df.columns) == ["household", "time", "kwh", "event"]
    assert len(df) == 200 * 30 * 24 and df["household"].nunique() == 200
    assert (df.groupby("household").size() == 720).all()
    per_user = df.groupby("household")["event"].sum()
    assert (per_user >= 2).all()  # every household has flagged anomalies
    pd.testing.assert_frame_equal(df, demo_population_series())
    frame, kind = standardise(df, DEMO_POPULATION_SERIES_COLUMNS)  # valid long table
    assert kind == "datetime" and frame["landmark"].sum() == df["event"].sum()


def test_demo_series_anomalies_are_real_deviations():
    """The flagged hours are anomalies the app's detector can find: for most households
    the Timeline's Suggest (k = 5, window 24, daily/weekly profile removed) flags some of
    them, and they are far from the household's typical value at that hour."""
    df = demo_population_series()
    found_any = 0
    for _, g in list(df.groupby("household"))[:40]:
        v = g["kwh"].to_numpy()
        phase, _ = seasonal_phase(g["time"].to_numpy(), "datetime")
        found = set(suggested_timestamps(deviation_suggestions(v, 24, 5.0, phase=phase)))
        flagged = set(np.flatnonzero(g["event"].to_numpy()).tolist())
        found_any += bool(found & flagged)
    assert found_any >= 30


def test_demo_tracks_population_shape_flags_and_determinism():
    df = demo_population_tracks()
    assert list(df.columns) == ["person", "time", "lat", "lon", "visit"]
    sizes = df.groupby("person").size()
    assert len(sizes) == 100 and sizes.between(200, 500).all()
    assert (df.groupby("person")["visit"].sum() >= 1).all()  # home at night at least
    assert (df.groupby("person")["visit"].sum() > 1).sum() >= 30  # clinic visits
    pd.testing.assert_frame_equal(df, demo_population_tracks())
    frame, kind = standardise(df, DEMO_POPULATION_TRACK_COLUMNS)
    assert kind == "datetime" and len(frame) == len(df)
    # the population's 250 m grid stays small enough for the leakage
    assert population_correlation(frame, "track", cell_size_m=250.0).n_states <= 500


# ------------------------------------------------------------------ the in-process engine
def _settings(kind: str = "series", scheme: str = "uniform", **kw) -> BatchSettings:
    base = dict(kind=kind, epsilon=1.0, scheme=scheme, window=10,
                mechanism="laplace" if kind == "series" else "planar_laplace",
                sensitivity=0.2, radius=100.0, noise="fast", root_entropy=2024,
                leakage=LeakageSettings(spec={"model": "smoothed", "states": 10,
                                              "strength": 0.1}))
    base.update(kw)
    return BatchSettings(**base)


@pytest.fixture(scope="module")
def small_series():
    df = demo_population_series()
    df = df[df["household"].isin([f"h{u:03d}" for u in range(1, 13)])]
    return standardise(df, DEMO_POPULATION_SERIES_COLUMNS)[0]


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_chunked_release_equals_one_partition(small_series, scheme):
    """The app's chunks only report progress: the release equals the batch's partition
    function on all users at once (per-user streams), value for value."""
    s = _settings(scheme=scheme)
    seen = []
    res = release_in_process(small_series, "series", s, chunk_users=5,
                             progress=lambda d, n: seen.append((d, n)))
    cols = DEMO_POPULATION_SERIES_COLUMNS.__class__(user="user", time="time", value="value",
                                                    landmark="landmark")
    whole = release_partition(small_series, cols, s)
    np.testing.assert_array_equal(res.released["released"].to_numpy(),
                                  whole.released["released"].to_numpy())
    pd.testing.assert_frame_equal(res.audit, whole.audit)
    assert seen == [(5, 12), (10, 12), (12, 12)]
    assert res.audit["landmark_private"].all()


def test_verdict_colours_follow_the_verdict_rule():
    audit = pd.DataFrame({"landmark_private": [True, True, False, True],
                          "max_landmark_tpl": [0.9, 1.2, 0.5, np.nan]})
    assert verdict_colours(audit, 1.0).tolist() == ["green", "amber", "red", "green"]
    assert verdict_colours(audit, 1.0, leakage_target=1.5).tolist()[1] == "green"


def test_population_matrix_pools_users_without_crossing_them():
    """Two users, each constant: pooled within users, every transition stays in its
    state; counted across the boundary there would be a 0 → 1 move."""
    frame = pd.DataFrame({"user": ["a"] * 4 + ["b"] * 4, "time": list(range(4)) * 2,
                          "value": [0.0] * 4 + [1.0] * 4})
    m = population_correlation(frame, "series", bins=2, smoothing=0.0)
    np.testing.assert_array_equal(m.forward, np.eye(2))
    assert m.transitions == 6 and m.users == 2
    # one user: the same as the Leakage page's estimate from that series
    one = frame[frame["user"] == "a"].assign(value=[0.0, 1.0, 1.0, 0.0])
    disc = discretize_series(one["value"].to_numpy(), 2, "width")
    pf, pb = transition_matrices(disc.states, disc.n_states, 1.0)
    m1 = population_correlation(one, "series", bins=2, smoothing=1.0)
    np.testing.assert_allclose(m1.forward, pf)
    np.testing.assert_allclose(m1.backward, pb)


def test_publishable_csv_holds_released_values_only(small_series):
    res = release_in_process(small_series, "series", _settings())
    text = publishable_csv(res, ["publishable test header"])
    df = pd.read_csv(io.StringIO(text), comment="#")
    assert list(df.columns) == ["user", "time", "released"]
    raw = small_series["value"].to_numpy()
    rel = df["released"].to_numpy()
    ok = np.isfinite(rel)
    # a released value rounded to the file's step can equal its raw reading by chance
    # (about step/(2b) per value: a few in 8,640 at b ≈ 1 kWh and a step of 1e-4), never
    # as a rule: far fewer than 1 in 1,000 (a raw column would match every row)
    same = np.isclose(rel[ok], raw[ok], rtol=0, atol=1e-12)
    assert same.mean() < 1e-3, int(same.sum())
    assert "landmark" not in text and "2024" in text  # times, no flags
    conf = audit_csv(res, {"seed": "x"})
    assert conf.startswith("# CONFIDENTIAL")


def test_publishable_csv_refused_when_not_landmark_private(small_series):
    res = release_in_process(small_series, "series", _settings(scheme="event"))
    with pytest.raises(InputError, match="not landmark-private"):
        publishable_csv(res, [])


def test_batch_configuration_is_plain_and_accepted_by_the_batch():
    from lmdk_core.files.config import ViewConfig, config_from_json
    from lmdk_core.population.in_process import batch_config_json

    cfg = ViewConfig(data_kind="series", landmarks=[], epsilon=0.5,
                     scheme="adaptive", sensitivity=0.2, page="population",
                     extra={"correlation": {"model": "none"},
                            "discovery": {"window": 48, "k": 4.0}})
    text = batch_config_json(cfg)
    assert "confidential" not in text.lower() and "seed" not in text
    s = BatchSettings.from_config(config_from_json(text), "series", "fast", 1)
    assert (s.epsilon, s.scheme, s.discovery.window, s.discovery.k) == (0.5, "adaptive", 48, 4.0)
    with pytest.raises(InputError, match="no data, landmarks or seed"):
        batch_config_json(ViewConfig(data_kind="series", landmarks=[3]))
    with pytest.raises(InputError, match="no data, landmarks or seed"):
        batch_config_json(ViewConfig(data_kind="series", seed=0))


def test_bad_tables_are_clear_errors():
    with pytest.raises(InputError, match="as CSV|no rows|empty"):
        read_table_bytes(b"", "x.csv")
    with pytest.raises(InputError, match="as Parquet"):
        read_table_bytes(b"not parquet", "x.parquet")
    raw = read_table_bytes(b"u,t,v\na,1,1.0\n,1,2.0\n", "x.csv")
    with pytest.raises(InputError, match="no user id"):
        standardise(raw, DEMO_POPULATION_SERIES_COLUMNS.__class__(user="u", time="t",
                                                                   value="v"))
    # the same (user, time) twice is kept, in file order (docs/data-formats.md)
    raw = read_table_bytes(b"u,t,v\na,1,1.0\na,1,2.0\n", "x.csv")
    frame, _ = standardise(raw, DEMO_POPULATION_SERIES_COLUMNS.__class__(user="u", time="t",
                                                                          value="v"))
    assert frame["value"].tolist() == [1.0, 2.0]


# ------------------------------------------------------------------ the page (AppTest)
@pytest.fixture
def population():
    return open_page("population", TIMEOUT)


def _release(at):
    at.button(key="pop_release").click().run()
    assert not at.exception
    # once the release is there, neither "Release" nor "Cancel" stays on the page (issue
    # 37 §9: a Cancel button was left after a finished release)
    keys = [b.key for b in at.button]
    assert "pop_release" not in keys and "pop_cancel" not in keys, keys
    return at


def test_page_renders_the_demo_with_its_distributions(population):
    at = population
    assert "Population" in at.title[0].value
    assert metric(at, "Users") == "200"
    # nothing is released before it is asked for; the preview answers at once
    assert metric(at, "Planned: pass the verifier") == "200"  # Uniform: every user passes
    assert not chart_specs(at) and "pop_result" not in at.session_state
    _release(at)
    assert metric(at, "Released users") == "200"
    assert metric(at, "Pass the verifier") == "200"
    assert len(chart_specs(at)) == 4  # |L|, verdicts, landmark TPL, error
    labels = [b.proto.label for b in at.get("download_button")]
    # 'Declare k for every user' is on by default (the sidebar's k = 5; every demo fits
    # it with its flags): Uniform spends ε/(k+1) whatever each user's landmarks, so the
    # file is publishable (issue 35; unticked it is exploratory, test_population_preview)
    assert at.checkbox(key="pop_declare_k").value is True
    assert "Released population (CSV)" in labels
    assert not any("EXPLORATORY" in label for label in labels)
    assert not any("Exploratory, not publishable" in w.value for w in at.warning)
    assert "CONFIDENTIAL — per-user audit (CSV)" in labels
    assert any("lmdk batch --config" in c.value for c in at.code)
    # the page's numbers are the engine's audit
    res = at.session_state["pop_result"][1]
    assert int(res.audit["landmark_private"].sum()) == 200


def test_a_cancel_after_the_release_finished_claims_no_cancellation(population):
    """A Cancel click that reaches the server once the release is done (its button is
    still on screen) cancels nothing: the release is shown, with no 'cancelled' notice;
    a real cancellation (nothing released at these settings) still says so."""
    at = _release(population)
    at.session_state["pop_cancelled"] = True  # what the late Cancel's callback sets
    at.run()
    assert metric(at, "Released users") == "200"
    assert not any("Release cancelled" in i.value for i in at.info)
    at.session_state["pop_results"] = {}  # nothing released at these settings
    at.session_state["pop_last"] = None
    at.run()
    assert any("Release cancelled" in i.value for i in at.info)


def test_open_in_timeline_carries_the_users_landmarks(population):
    at = _release(population)
    user = at.selectbox(key="pop_user").value
    at.button(key="pop_open").click().run()
    assert not at.exception
    name = at.session_state["w_series_name"]
    assert user in name
    df = demo_population_series()
    flags = df.loc[df["household"] == user, "event"].to_numpy()
    assert at.session_state["series_landmarks"][name] == np.flatnonzero(flags).tolist()
    values = at.session_state["series_sets"][name].values
    np.testing.assert_array_equal(values, df.loc[df["household"] == user, "kwh"].to_numpy())
    assert "Timeline" in at.title[0].value or any("Timeline" in t.value for t in at.title)


def test_open_in_map_for_tracks(population):
    at = population
    at.radio(key="pop_source").set_value("demo_tracks").run()
    assert not at.exception
    assert metric(at, "Users") == "100"
    _release(at)
    user = at.selectbox(key="pop_user").value
    at.button(key="pop_open").click().run()
    assert not at.exception
    name = at.session_state["w_track_name"]
    df = demo_population_tracks()
    flags = df.loc[df["person"] == user, "visit"].to_numpy()
    # as the batch released them: each run of consecutive flagged fixes one stay event,
    # a lone flagged fix (home at 03:00) a landmark of its own (docs/population.md)
    lm = np.flatnonzero(flags).tolist()
    runs = runs_of(lm)
    assert at.session_state["track_stays"][name] == runs
    assert at.session_state["track_landmarks"][name] == [
        t for t in lm if not any(a <= t <= b for a, b in runs)]


def _csv(rows: list[str]) -> bytes:
    return ("household,hour,kwh,flag\n" + "\n".join(rows) + "\n").encode()


def test_bad_upload_is_an_error_and_nothing_is_lost(population):
    at = population
    at.radio(key="pop_source").set_value("upload").run()
    good = _csv([f"{u},{t},{1 + (t % 3) * 0.5},{int(t == 5)}" for u in ("a", "b", "c")
                 for t in range(24)])
    at.file_uploader(key="pop_upload").set_value(("meters.csv", good, "text/csv")).run()
    at.number_input(key="pop_declared_df").set_value(0.5)
    at.button[[b.label for b in at.button].index("Load this population")].click().run()
    assert not at.exception and not at.error
    assert metric(at, "Users") == "3"
    # a row without a user: refused with the reason, the loaded population kept
    bad = _csv(["a,1,1.0,0", ",2,2.0,0", "b,1,1.0,0"])
    at.file_uploader(key="pop_upload").set_value(("bad.csv", bad, "text/csv")).run()
    at.button[[b.label for b in at.button].index("Load this population")].click().run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("no user id" in e and "unchanged" in e for e in errors), errors
    assert metric(at, "Users") == "3"
    assert at.session_state["pop_uploaded"]["name"] == "meters.csv"
    # a file that is not a table at all
    at.file_uploader(key="pop_upload").set_value(("x.parquet", b"nope", "application/x"))
    at.run()
    assert not at.exception
    assert any("as Parquet" in e.value for e in at.error)
    assert metric(at, "Users") == "3"


def test_population_matrix_reaches_the_leakage_page(population):
    at = population
    at.button(key="pop_estimate").click().run()
    assert not at.exception and not at.error
    assert at.session_state["w_corr_kind_series"] == "matrix"
    name, forward = at.session_state["corr_matrices"]["forward"]
    frame, _ = standardise(demo_population_series(), DEMO_POPULATION_SERIES_COLUMNS)
    # the session's estimated-model recipe: 10 equal-count bins (the default binning)
    expected = population_correlation(frame, "series", bins=10, binning="quantile",
                                      smoothing=1.0)
    np.testing.assert_allclose(forward, expected.forward)
    # the audit uses the population's model
    _release(at)
    assert at.session_state["pop_result"][1].audit["max_landmark_tpl"].notna().all()
    at.switch_page("app_pages/leakage.py").run()
    assert not at.exception
    assert at.radio(key="w_corr_kind_series").value == "matrix"
    assert at.session_state["lk_n_states"] == expected.n_states


def test_geometric_on_decimal_meter_readings_is_a_clear_error(population):
    at = population
    at.session_state["w_mechanism"] = "geometric"
    at.session_state["w_sensitivity"] = 0.2
    at.run()                                      # would be whole under Geometric)
    assert not at.exception
    assert any("whole-number sensitivity" in e.value for e in at.error)
    at.session_state["w_sensitivity"] = 1.0
    at.run()
    assert not at.exception
    msgs = [e.value for e in at.error]
    assert any("whole numbers" in m and "Laplace" in m for m in msgs), msgs
    assert not chart_specs(at)  # nothing released, nothing drawn


def test_open_in_map_with_discovered_stays_carries_them_as_events(population):
    """Discovered per user, a track's stays are released as one landmark event each in
    the batch; opening the user on the Map carries them as stays, not as fixes."""
    at = population
    at.radio(key="pop_source").set_value("demo_tracks").run()
    at.radio(key="pop_lm_source").set_value("discover").run()
    assert not at.exception
    assert any("ONE landmark event" in c.value for c in at.caption)
    _release(at)
    at.button(key="pop_open").click().run()
    assert not at.exception
    name = at.session_state["w_track_name"]
    stays = at.session_state["track_stays"][name]
    assert stays and at.session_state["track_landmarks"][name] == []
    assert all(a <= b for a, b in stays)


def _load(at, name: str, content: bytes, declared_df: float | None = 1.0):
    at.file_uploader(key="pop_upload").set_value((name, content, "text/csv")).run()
    at.number_input(key="pop_declared_df").set_value(declared_df)
    at.button[[b.label for b in at.button].index("Load this population")].click().run()
    assert not at.exception and not at.error
    return at


def test_repeated_times_are_counted_for_each_population_loaded(population):
    """The users and the rows repeating the previous row's time are counted once per
    population (cached by its content's key): a second upload gets its own counts, and
    an ε step keeps them."""
    at = population
    at.radio(key="pop_source").set_value("upload").run()
    # a: hours 0..9 with hour 3 twice; b: hours 0..9 with hours 4 and 6 twice; c: none
    rows = [f"a,{t},1.0,0" for t in [0, 1, 2, 3, 3, 4, 5, 6, 7, 8]]
    rows += [f"b,{t},1.0,0" for t in [0, 1, 2, 3, 4, 4, 5, 6, 6, 7]]
    rows += [f"c,{t},1.0,0" for t in range(10)]
    _load(at, "repeats.csv", _csv(rows))
    captions = " ".join(c.value for c in at.caption)
    assert "3 users, 30 rows" in captions and "3 rows of 2 users" in captions
    at.sidebar.number_input(key="w_epsilon").set_value(2.0).run()
    assert "3 rows of 2 users" in " ".join(c.value for c in at.caption)
    _load(at, "one.csv", _csv([f"d,{t},1.0,0" for t in [0, 0, 1, 2, 3, 4, 5, 6]]))
    captions = " ".join(c.value for c in at.caption)
    assert "1 user, 8 rows" in captions and "1 row of 1 user has" in captions


def test_track_population_is_publishable_only_with_a_declared_region(population):
    """Tracks: without a declared region the file carries numpy's Planar Laplace and is
    offered as EXPLORATORY only; with one it is the exact Planar Laplace on its grid (the
    header says so) and the batch configuration carries the region; a malformed region
    is an error that keeps the text."""
    at = population
    at.radio(key="pop_source").set_value("demo_tracks").run()
    at.sidebar.selectbox(key="w_scheme").set_value("skip").run()
    _release(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "EXPLORATORY — released population (CSV), not publishable" in labels
    at.text_input(key="pop_region").set_value("48.86").run()
    assert any("Region not used" in e.value for e in at.error)
    assert at.text_input(key="pop_region").value == "48.86"
    at.text_input(key="pop_region").set_value("48.86,2.35,60").run()
    _release(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Released population (CSV)" in labels, labels
    assert not at.error and not at.exception
    assert any("exact discrete Planar Laplace on a" in c.value and "48.86,2.35,60" in c.value
               for c in at.caption)


def test_an_uploaded_population_is_released_with_its_own_declared_df(population):
    """Issue 37 §8: the Δf of an uploaded population is the one declared with the upload
    — never the demo's (the sidebar's 2.9) nor computed from the data. Without a
    declaration the upload is refused with how to declare it; with Δf = 0.5 the
    preview's expected errors, the mechanism line and the batch settings use 0.5, and
    the sidebar shows no Δf field for it."""
    at = population
    demo_df = at.session_state["w_sensitivity"]
    assert demo_df == 2.9
    at.radio(key="pop_source").set_value("upload").run()
    rows = [f"{u},{t},{1 + (t % 3) * 0.5},{int(t == 5)}" for u in ("a", "b") for t in range(48)]
    at.file_uploader(key="pop_upload").set_value(("meters.csv", _csv(rows), "text/csv")).run()
    at.button[[b.label for b in at.button].index("Load this population")].click().run()
    assert not at.exception
    assert any("declare Δf for this population" in e.value for e in at.error)
    assert "pop_uploaded" not in at.session_state or not at.session_state["pop_uploaded"]
    _load(at, "meters.csv", _csv(rows), declared_df=0.5)
    assert at.session_state["pop_uploaded"]["sensitivity"] == 0.5
    assert at.session_state["w_sensitivity"] == demo_df  # the sidebar's is not touched
    captions = " ".join(c.value for c in at.caption)
    assert "Δf = 0.5" in captions and "declared with the upload" in captions
    assert "Δf = 2.9" not in captions
    assert not [n for n in at.sidebar.number_input if n.key == "w_sensitivity"]
    # the preview's median expected error is Laplace's Δf/ε_t at Δf = 0.5 (Uniform at
    # ε = 1 with the declared k = 5, on by default: ε_t = 1/6), not at the demo's 2.9
    shown = metric(at, "Median expected error")
    assert float(shown.split()[0]) == pytest.approx(0.5 / (1.0 / 6)), shown
