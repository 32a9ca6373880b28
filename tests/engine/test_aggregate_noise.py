"""The noise of an aggregate release: its law per window, its intervals, and neighbours.

* The noise law per window (numpy, seeded): the released minus the true cell counts
  have the two-sided geometric law of scale 2/ε_t — the 95 % intervals cover and the mean
  |error| is the law's.
* The exact (OpenDP) sampler: the same law (unseeded; the false-failure probability is
  stated in the test's docstring).
* Neighbours: the largest log-likelihood ratio of the exact discrete output law between
  two neighbouring populations, ``Σ_t (ε_t/Δ)·‖x_t − x′_t‖₁`` (attained), is at most ε for
  what each level protects — one moved fix (event level), one user removed (user level),
  one user's landmark windows plus one other window (landmark level with the declared k)
  — and a wrong sensitivity (1 for the cell histogram) fails it. The publishable header
  and the deterministic columns are identical for neighbours.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lmdk_core.aggregate.intervals import geometric_half_width, laplace_half_width
from lmdk_core.aggregate.noisy_release import release_statistic
from lmdk_core.aggregate.output_files import header_lines, publishable_frame
from lmdk_core.aggregate.population_release import (
    AggregateRequest,
    aggregate_population,
    make_spec,
)
from lmdk_core.aggregate.statistics import Statistic, Totals, statistic
from lmdk_core.foundation.errors import InputError
from lmdk_core.population.table import PopulationColumns, prepare_users

TRACK_COLS = PopulationColumns("user", "time", lat="lat", lon="lon", landmark="flag")
BBOX = (48.85, 2.30, 48.88, 2.35)


def _population(seed: int, users: int = 30, hours: int = 12) -> pd.DataFrame:
    """Users wandering in the box, one fix every 20 minutes, a few flagged fixes."""
    gen = np.random.default_rng(seed)
    rows = []
    for u in range(users):
        lat, lon = gen.uniform(48.851, 48.879), gen.uniform(2.301, 2.349)
        for m in range(0, hours * 60, 20):
            rows.append({"user": f"u{u:03d}",
                         "time": pd.Timestamp("2024-05-01") + pd.Timedelta(minutes=m),
                         "lat": lat + gen.normal(0, 0.002), "lon": lon + gen.normal(0, 0.002),
                         "flag": bool(gen.random() < 0.05)})
    df = pd.DataFrame(rows)
    df["lat"] = df["lat"].clip(48.85, 48.88)
    df["lon"] = df["lon"].clip(2.30, 2.35)
    return df


def _request(**kw) -> AggregateRequest:
    base = dict(statistic=statistic("cells"), width=3600.0, epsilon=1.0, scheme="uniform",
                start="2024-05-01T00:00", end="2024-05-01T12:00", cell_size=1000.0,
                bbox=BBOX, noise="fast", seed=7)
    base.update(kw)
    return AggregateRequest(**base)


def _release(df: pd.DataFrame, req: AggregateRequest):
    frame, kind = prepare_users(df, TRACK_COLS)
    return aggregate_population(frame, kind, req, compare=False)


def test_noise_law_per_window_seeded():
    """Seed 20261206: 4,000 releases of 3 windows × 50 cells at ε_t = 0.5, 1, 2 (numpy's
    geometric). Per window: coverage of the 95 % interval within 0.95 ± 0.006 (≥ 8σ of
    200,000 draws) and mean |Z| within 2 % of 2a/(1−a²), a = e^{−ε_t/2}."""
    gen = np.random.default_rng(20261206)
    truth = Totals(gen.integers(0, 40, size=(3, 50)), np.zeros((3, 50)))
    eps = np.array([0.5, 1.0, 2.0])
    stat = Statistic("cells")
    noise = np.stack([release_statistic(truth, stat, eps, "fast", gen).released - truth.count
                      for _ in range(4000)])
    for t, e in enumerate(eps):
        z = noise[:, t, :].ravel()
        assert np.all(z == np.round(z))
        a = np.exp(-e / 2)
        q = geometric_half_width(np.array([2 / e]))[0]
        covered = np.mean(np.abs(z) <= q)
        exact_cover = 1 - 2 * a ** (q + 1) / (1 + a)
        assert abs(covered - exact_cover) < 0.006 and exact_cover >= 0.95
        assert abs(np.abs(z).mean() / (2 * a / (1 - a * a)) - 1) < 0.02


def test_exact_sampler_has_the_same_law():
    """OpenDP (unseeded): 40,000 draws of the geometric at scale 2 (ε_t = 1, Δ = 2). The
    empirical P(|Z| ≤ q) and mean |Z| are checked at 6 standard errors of their exact
    values: false-failure probability below 2e-9 each (normal approximation of a mean of
    40,000 i.i.d. draws), so below 1e-8 for the test."""
    truth = Totals(np.zeros((1, 40_000), dtype=np.int64), np.zeros((1, 40_000)))
    z = release_statistic(truth, Statistic("cells"), np.array([1.0]), "exact").released.ravel()
    a = np.exp(-0.5)
    q = geometric_half_width(np.array([2.0]))[0]
    p = 1 - 2 * a ** (q + 1) / (1 + a)
    assert abs(np.mean(np.abs(z) <= q) - p) < 6 * np.sqrt(p * (1 - p) / z.size)
    mean = 2 * a / (1 - a * a)
    var = 2 * a / (1 - a) ** 2 - mean**2
    assert abs(np.abs(z).mean() - mean) < 6 * np.sqrt(var / z.size)


def test_interval_half_widths_are_the_noise_laws_quantiles():
    b = np.array([0.3, 1.0, 2.0, 7.5, 40.0])
    q = geometric_half_width(b)
    a = np.exp(-1 / b)
    cover = 1 - 2 * a ** (q + 1) / (1 + a)
    cover_less = 1 - 2 * a ** q / (1 + a)
    assert np.all(cover >= 0.95) and np.all((q == 0) | (cover_less < 0.95))
    assert np.allclose(1 - np.exp(-laplace_half_width(b) / b), 0.95)


def _sup_log_ratio(x: np.ndarray, y: np.ndarray, eps_t: np.ndarray, delta: float) -> float:
    """max over outputs of log P(o | x)/P(o | y) for independent two-sided geometric noise
    of scale Δ/ε_t in every cell: Σ_t (ε_t/Δ)·Σ_c |x − y| (attained)."""
    return float(np.sum(eps_t[:, None] / delta * np.abs(x - y)))


def test_neighbour_one_fix_moved_event_level():
    df = _population(1)
    moved = df.copy()
    i = moved.index[(moved["user"] == "u004")][3]  # the first fix of hour 1
    moved.loc[i, ["lat", "lon"]] = [48.8505, 2.3005]  # another cell
    a, b = _release(df, _request(scheme="event")), _release(moved, _request(scheme="event"))
    sup = _sup_log_ratio(a.partial.kept.count, b.partial.kept.count, a.release.allocation, 2)
    assert 0 < sup <= 1.0 + 1e-12
    # the wrong sensitivity (1 for the histogram) would let a move cost 2ε_t
    assert _sup_log_ratio(a.partial.kept.count, b.partial.kept.count,
                          a.release.allocation, 1) > 1.0
    assert header_lines(a, "fast") == header_lines(b, "fast")


def test_neighbour_one_user_removed_user_level():
    df = _population(2)
    without = df[df["user"] != "u007"]
    a, b = _release(df, _request(scheme="user")), _release(without, _request(scheme="user"))
    sup = _sup_log_ratio(a.partial.kept.count, b.partial.kept.count, a.release.allocation, 2)
    assert sup <= 1.0 + 1e-12
    # event level does not protect a whole user: the same pair exceeds ε
    c, d = _release(df, _request(scheme="event")), _release(without, _request(scheme="event"))
    assert _sup_log_ratio(c.partial.kept.count, d.partial.kept.count,
                          c.release.allocation, 2) > 1.0
    assert header_lines(a, "fast") == header_lines(b, "fast")


def test_neighbour_landmark_windows_plus_one_with_declared_k():
    """Personal landmarks, k = 3: one user's fixes changed in all their landmark windows
    and in one other window — the landmark neighbour — stays within ε; the user has more
    than k landmark windows, so the drop rule is what keeps it within ε."""
    df = _population(3)
    u = "u011"
    mine = (df["user"] == u).to_numpy()
    hours = df["time"].dt.floor("h")
    df.loc[mine, "flag"] = False
    lm_hours = sorted(hours[mine].unique())[:5]  # 5 landmark windows > k
    df.loc[mine & hours.isin(lm_hours).to_numpy() & (df["time"].dt.minute == 0).to_numpy(),
           "flag"] = True
    regular = sorted(hours[mine].unique())[6]
    changed = df.copy()
    touch = mine & hours.isin([*lm_hours, regular]).to_numpy()
    changed.loc[touch, ["lat", "lon"]] = [48.8505, 2.3005]  # the user lives near the NE
    req = _request(k=3, landmark_flags=True)
    a, b = _release(df, req), _release(changed, req)
    assert a.publishable and b.publishable
    sup = _sup_log_ratio(a.partial.kept.count, b.partial.kept.count, a.release.allocation, 2)
    assert 0 < sup <= 1.0 + 1e-12
    # without the rule (every contribution kept) the same pair exceeds ε
    assert _sup_log_ratio(a.partial.all.count, b.partial.all.count,
                          a.release.allocation, 2) > 1.0
    assert header_lines(a, "fast") == header_lines(b, "fast")


def test_public_parts_do_not_depend_on_the_landmark_count():
    """The same declared k: a population whose users have 2 landmark windows and one whose
    users have 5 give the same header, windows, cells and interval widths."""
    df = _population(4)
    few, many = df.copy(), df.copy()
    few["flag"] = False
    many["flag"] = False
    first = few.groupby("user").head(1).index
    few.loc[first, "flag"] = True
    many.loc[many.groupby("user").head(5 * 3).index[::3], "flag"] = True
    req = _request(k=5, landmark_flags=True)
    a, b = _release(few, req), _release(many, req)
    assert header_lines(a, "exact") == header_lines(b, "exact")
    pa, pb = publishable_frame(a), publishable_frame(b)
    for col in ("window", "cell", "cell_lat", "cell_lon"):
        assert pa[col].equals(pb[col])
    assert np.allclose(pa["high"] - pa["low"], pb["high"] - pb["low"])


def test_mean_budget_split_is_within_epsilon():
    """The mean: sum (Laplace, Δ = max(HI−LO, |LO|, |HI|)) and count (geometric, Δ = 1)
    at ε_t/2 each; a user removed at one window moves the sum by ≤ Δ and the count by
    ≤ 1, so the log-ratio is ≤ ε_t/2 + ε_t/2."""
    stat = statistic("mean", (-2.0, 5.0))
    assert stat.sensitivity == 7.0
    assert statistic("sum", (2.0, 5.0)).sensitivity == 5.0  # an added user moves it by 5
    eps_t = 0.8
    worst = eps_t / 2 * 5.0 / stat.sensitivity + eps_t / 2 * 1 / 1
    assert worst <= eps_t


def test_series_neighbours_have_the_same_public_parts():
    """A series population and its neighbour with one reading changed (within the
    declared bounds) and another with one reading beyond them: the same header, windows
    and interval widths (declared period)."""
    gen = np.random.default_rng(11)  # data, not noise
    df = pd.DataFrame({"user": np.repeat([f"h{i}" for i in range(20)], 24),
                       "time": np.tile(np.arange(24) * 3600, 20),
                       "kwh": gen.gamma(2, 0.3, 480), "flag": gen.random(480) < 0.05})
    cols = PopulationColumns("user", "time", value="kwh", landmark="flag")
    req = AggregateRequest(statistic=statistic("sum", (0.0, 3.0)), width=3600.0,
                           epsilon=1.0, start="0", end=str(24 * 3600), k=2,
                           landmark_flags=True, noise="fast", seed=1)
    out = []
    for change in (None, 2.5, 1e6):
        d = df.copy()
        if change is not None:
            d.loc[17, "kwh"] = change
        frame, kind = prepare_users(d, cols)
        out.append(aggregate_population(frame, kind, req, compare=False))
    heads = {tuple(header_lines(r, "exact")) for r in out}
    assert len(heads) == 1
    frames = [publishable_frame(r) for r in out]
    for f in frames[1:]:
        assert f["window"].equals(frames[0]["window"])
        assert np.allclose(f["high"] - f["low"], frames[0]["high"] - frames[0]["low"])
    # the clamped reading moves the true sum by at most the declared HI − LO
    assert np.max(np.abs(out[2].truth - out[0].truth)) <= 3.0 + 1e-12


def test_neighbour_with_origin_destination_stays_within_epsilon():
    """Counts at b/2 and every OD transition at b/4 (event level, b = ε): one moved fix
    changes the counts of its window and the OD pairs of the transitions before and after
    it; the exact law's largest log-ratio over all of them is at most ε, and would not be
    if the transitions got b/2 each."""
    df = _population(5)
    moved = df.copy()
    i = moved.index[(moved["user"] == "u004")][6]  # the first fix of hour 2
    moved.loc[i, ["lat", "lon"]] = [48.8505, 2.3005]
    req = _request(scheme="event", od=True)
    a, b = _release(df, req), _release(moved, req)
    b_t = a.plan.allocation
    sup = (_sup_log_ratio(a.partial.kept.count, b.partial.kept.count, b_t / 2, 2)
           + _sup_log_ratio(a.partial.od.reshape(len(b_t) - 1, -1),
                            b.partial.od.reshape(len(b_t) - 1, -1), b_t[:-1] / 4, 2))
    assert 0.5 < sup <= 1.0 + 1e-12
    too_much = (_sup_log_ratio(a.partial.kept.count, b.partial.kept.count, b_t / 2, 2)
                + _sup_log_ratio(a.partial.od.reshape(len(b_t) - 1, -1),
                                 b.partial.od.reshape(len(b_t) - 1, -1), b_t[:-1] / 2, 2))
    assert too_much > 1.0
    assert header_lines(a, "exact") == header_lines(b, "exact")
    assert a.od_release.released.shape == (11, a.spec.n_cells ** 2)


def test_cells_without_a_cell_size_is_an_input_error():
    """Users per cell need the cell size: the engine says so (InputError), where it raised
    a TypeError from float(None) before (found by mypy, issue 40; the CLI checked it)."""
    with pytest.raises(InputError, match="cell size"):
        make_spec(_request(cell_size=None), "datetime")
