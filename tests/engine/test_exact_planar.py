"""The exact Planar Laplace (lmdk_core.mechanisms.exact_planar) and its lattice noise
(lmdk_core.mechanisms.discrete_planar_laplace); the proof is in docs/noise.md.

Seeded streams: the law tests swap the OS entropy for a seeded word source
(``numpy.random.PCG64(seed)``, seeds stated at each test), so they are deterministic;
each χ² test rejects at p < 1e-4 and is shown able to fail (a law 5 % off is rejected on
the same draws).
"""

from __future__ import annotations

from fractions import Fraction
from math import sqrt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from lmdk_core.engine.release import release_trajectory
from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms import entropy
from lmdk_core.mechanisms.discrete_planar_laplace import (
    discrete_planar_laplace,
    lattice_scale,
    sqrt2_upper,
)
from lmdk_core.mechanisms.exact_planar import (
    SOLVER_MARGIN_M,
    ExactPlanarLaplace,
    PlanarRegion,
    grid_step,
    planar_alpha,
    truncate_to_disk,
)

PARIS = PlanarRegion(48.86, 2.35, 50)


def _seeded_stream(monkeypatch, seed: int) -> entropy.EntropyStream:
    bits = np.random.PCG64(seed)
    monkeypatch.setattr(entropy, "PROVIDER",
                        [lambda w: w.__setitem__(slice(None), bits.random_raw(w.size))])
    return entropy.EntropyStream()


def _lattice_pmf(alpha: float, box: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, P(a, b)) over the box |a|, |b| ≤ box: exp(−α‖n‖)/Z."""
    a, b = np.meshgrid(np.arange(-box, box + 1), np.arange(-box, box + 1), indexing="ij")
    w = np.exp(-alpha * np.hypot(a, b))
    return a, b, w / w.sum()


def _chi2_p(observed: np.ndarray, expected_prob: np.ndarray) -> float:
    n = observed.sum()
    return float(stats.chisquare(observed, expected_prob / expected_prob.sum() * n).pvalue)


# -- the lattice law ---------------------------------------------------------------------

@pytest.mark.parametrize(("alpha", "seed", "compiled"), [(Fraction(1, 20), 3901, False),
                                                      (Fraction(1, 20), 3904, True),
                                                      (Fraction(3, 2), 3902, False)])
def test_lattice_draws_follow_exp_minus_alpha_norm(monkeypatch, alpha, seed, compiled):
    """20,000 draws (seeded stream, seeds 3901/3904/3902; proposals from the Python
    reference or the compiled kernel): the radius ‖n‖ in 12 bins and the angle in 16
    sectors against the exact pmf exp(−α‖n‖)/Z summed over the lattice (χ², p > 1e-4);
    the same radii against the law of α·1.05 are rejected."""
    from lmdk_core.mechanisms import discrete_laplace as dl

    monkeypatch.setattr(dl, "FORCE_COMPILED", compiled)
    s = _seeded_stream(monkeypatch, seed)
    sc = lattice_scale(alpha)
    z = discrete_planar_laplace([sc], np.zeros(20_000, dtype=np.int64), s)
    a_f = float(sc.alpha)
    box = int(40 / a_f) + 2
    a, b, p = _lattice_pmf(a_f, box)
    r_all = np.hypot(a, b).ravel()
    edges = np.unique(np.quantile(r_all, np.linspace(0, 1, 13), weights=p.ravel(),
                                  method="inverted_cdf"))
    edges[0], edges[-1] = -1.0, np.inf
    r = np.hypot(z[:, 0], z[:, 1])
    obs = np.histogram(r, edges)[0]
    exp_prob = np.histogram(r_all, edges, weights=p.ravel())[0]
    assert _chi2_p(obs, exp_prob) > 1e-4
    wrong = np.histogram(r_all, edges, weights=_lattice_pmf(a_f * 1.05, box)[2].ravel())[0]
    assert _chi2_p(obs, wrong) < 1e-4
    sector = lambda x, y: np.floor((np.arctan2(y, x) + np.pi) / (2 * np.pi) * 16) % 16  # noqa: E731
    keep = (z != 0).any(axis=1)
    obs_a = np.bincount(sector(z[keep, 0], z[keep, 1]).astype(int), minlength=16)
    nz = (a != 0) | (b != 0)
    exp_a = np.bincount(sector(a[nz], b[nz]).astype(int), weights=p[nz], minlength=16)
    assert _chi2_p(obs_a, exp_a) > 1e-4


def test_the_rounded_alpha_never_exceeds_the_asked_one_and_the_proposal_covers_it():
    """α is rounded down (never less noise) to within 2⁻³⁰ of it, and the proposal's
    scale t/2^j is at least √2/α (so the acceptance exponent is never negative)."""
    gen = np.random.default_rng(5)
    for v in np.exp(gen.uniform(np.log(1e-12), np.log(1e6), 300)):
        a = Fraction(float(v))
        s = lattice_scale(a)
        assert s.alpha <= a and s.alpha >= a * (1 - Fraction(1, 2**29))
        assert (Fraction(s.t, 2**s.j) * s.alpha) ** 2 >= 2
    assert sqrt2_upper() ** 2 > 2 and (sqrt2_upper() - Fraction(1, 2**63)) ** 2 < 2


# -- ε′: the privacy loss, brute force ---------------------------------------------------

def _truncated_pmf(alpha: float, x: tuple[int, int], limit: int, box: int) -> dict:
    """P(output = z | input X = x) of X + N truncated to the disk (exact pmf summed over
    the box of noise |n_i| ≤ box: the tail beyond it is below exp(−α·box))."""
    a, b, p = _lattice_pmf(alpha, box)
    z = np.column_stack([a.ravel() + x[0], b.ravel() + x[1]])
    zt = truncate_to_disk(z, limit)
    keys = zt[:, 0] * 10_000 + zt[:, 1]
    uniq, inv = np.unique(keys, return_inverse=True)
    return dict(zip(uniq.tolist(), np.bincount(inv, weights=p.ravel()).tolist(),
                    strict=True))


def test_truncated_lattice_mechanism_loss_is_at_most_alpha_times_the_distance():
    """Brute force on a small region (disk of 5 grid steps, α = 0.8 per step): for every
    pair of grid inputs X, X′ in the disk and every output z, the privacy loss
    ln P(z|X)/P(z|X′) is at most α‖X − X′‖ (tail of the sums < e^-40); and the bound is
    reached (the check can fail: α·0.9 would be exceeded)."""
    alpha, limit, box = 0.8, 5, 50
    pts = [(i, j) for i in range(-limit, limit + 1) for j in range(-limit, limit + 1)
           if i * i + j * j <= limit * limit]
    pmf = {x: _truncated_pmf(alpha, x, limit, box) for x in pts}
    worst = 0.0
    for x in pts:
        for y in pts:
            if x == y:
                continue
            d = sqrt((x[0] - y[0]) ** 2 + (x[1] - y[1]) ** 2)
            loss = max(np.log(pmf[x][k] / pmf[y][k]) for k in pmf[x])
            assert loss <= alpha * d + 1e-9, (x, y, loss, alpha * d)
            worst = max(worst, loss / (alpha * d))
    assert worst > 0.9


@settings(max_examples=200, deadline=None)
@given(lat=st.floats(48.5, 49.2), lon=st.floats(1.8, 2.9), az=st.floats(0, 360),
       frac=st.floats(0, 1), radius=st.sampled_from([1.0, 25.0, 100.0, 500.0]),
       eps=st.floats(1e-3, 10))
def test_epsilon_prime_covers_the_grid_and_the_map(lat, lon, az, frac, radius, eps):
    """For raw locations x, x′ of the region at geodesic distance d ≤ r, their grid
    points are at most (k·d + √2·u + δ)/u steps apart, so α·‖X − X′‖ ≤ ε_t (exactly, in
    rationals): the ε′ of :func:`planar_alpha` pays for the grid and the projection."""
    from lmdk_core.foundation.geodesy import destination, distance_m
    from lmdk_core.mechanisms.exact_noise import grid_index

    lat2, lon2 = destination(lat, lon, az, frac * radius)
    d = float(distance_m(lat, lon, lat2, lon2)[()])
    u = grid_step(radius)
    e, n, _ = PARIS.to_plane([lat, float(lat2)], [lon, float(lon2)])
    X = grid_index(e, np.array([u])), grid_index(n, np.array([u]))
    steps2 = Fraction(int(X[0][0] - X[0][1])) ** 2 + Fraction(int(X[1][0] - X[1][1])) ** 2
    k = PARIS.stretch()
    margin = sqrt2_upper() * Fraction(u) + Fraction(SOLVER_MARGIN_M)
    bound = (k * Fraction(d) + margin) / Fraction(u)
    assert steps2 <= bound**2
    alpha = lattice_scale(planar_alpha(eps, radius, u, k)).alpha
    # loss α·‖X − X′‖ ≤ ε_t (compared squared: both sides are non-negative)
    assert alpha**2 * steps2 <= Fraction(eps) ** 2


# -- the mechanism ----------------------------------------------------------------------

def test_released_points_lie_on_the_grid_and_inside_the_region():
    """Released points are grid points of the region's plane (to the solver's rounding,
    1e-6 of a step) and never outside the region, even at a budget whose noise is far
    larger than the region (truncation)."""
    m = ExactPlanarLaplace(100.0, PlanarRegion(48.86, 2.35, 5))
    x = np.array([[48.8566, 2.3522]] * 300 + [[48.88, 2.38]] * 300)
    for eps in (1.0, 1e-3):
        y = m.perturb(x, eps)
        e, n, dist = m.region.to_plane(y[:, 0], y[:, 1])
        for c in (e, n):
            assert np.abs(c / m.step - np.round(c / m.step)).max() < 1e-6
        assert dist.max() <= m.region.radius_m
    assert dist.max() > 0.9 * m.region.radius_m  # ε = 1e-3: the noise reaches the edge


def test_displacement_follows_gamma2_of_the_stated_scale(monkeypatch):
    """5,000 releases at ε = 1, r = 100 m (seeded stream, seed 3903): the displacement in
    metres against Gamma(2, (k·r + √2u + δ)/ε) — the lattice law is that up to a grid of
    6.25 cm (KS, p > 1e-4)."""
    monkeypatch.setattr(entropy, "_STREAM", _seeded_stream(monkeypatch, 3903))
    m = ExactPlanarLaplace(100.0, PARIS)
    x = np.tile([[48.8566, 2.3522]], (5000, 1))
    d = m.distance(x, m.perturb(x, 1.0))
    scale = float(m.radius_scale(1.0))
    assert 1.0 < scale / 100.0 < 1.001
    assert stats.kstest(d, stats.gamma(2, scale=scale).cdf).pvalue > 1e-4


def test_locations_outside_the_region_and_bad_regions_are_refused():
    m = ExactPlanarLaplace(100.0, PlanarRegion(48.86, 2.35, 10))
    with pytest.raises(InputError, match="outside its radius of 10 km"):
        m.perturb([[48.86, 2.35], [45.76, 4.84]], 1.0)
    with pytest.raises(InputError, match="LAT,LON or LAT,LON,KM"):
        PlanarRegion.parse("48.86")
    with pytest.raises(InputError, match="at most 2000 km"):
        PlanarRegion.parse("48.86,2.35,5000")
    with pytest.raises(InputError, match="declared region"):
        ExactPlanarLaplace(100.0, None)
    assert PlanarRegion.parse(" 48.86, 2.35 ").radius_km == 1000


@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive"])
def test_an_exact_track_release_is_verified_and_every_shown_point_is_on_the_grid(scheme):
    """release_trajectory(noise="exact"): the verifier's verdict, fresh exact noise on
    repeated points (Skip's landmark, Adaptive's skips), every shown point on the grid."""
    gen = np.random.default_rng(8)
    lat = 48.85 + np.cumsum(gen.normal(0, 1e-4, 60))
    lon = 2.35 + np.cumsum(gen.normal(0, 1e-4, 60))
    rel = release_trajectory(lat, lon, [10, 30], epsilon=1.0, radius=100.0, scheme=scheme, seed=4,
                             noise="exact", region=PARIS)
    assert rel.noise == "exact" and rel.verdict.private
    shown = ~np.isnan(rel.released).any(axis=1)
    e, n, _ = PARIS.to_plane(rel.released[shown, 0], rel.released[shown, 1])
    u = grid_step(100.0)
    assert np.abs(e / u - np.round(e / u)).max() < 1e-6
    assert np.abs(n / u - np.round(n / u)).max() < 1e-6
    assert len({tuple(p) for p in rel.released[shown]}) == shown.sum()  # no repeats


def test_exact_track_release_needs_a_region():
    with pytest.raises(InputError, match="declared region"):
        release_trajectory([48.85, 48.86], [2.35, 2.36], [], epsilon=1.0, radius=100.0,
                           scheme="uniform", noise="exact")


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_population_lockstep_releases_tracks_exactly(scheme):
    """The batch's lockstep release with the exact Planar Laplace (static and Adaptive):
    every shown point of each user (up to its length) on the region's grid."""
    from lmdk_core.population.lockstep import lockstep_release

    gen = np.random.default_rng(9)
    U, T = 2, 40
    x = np.stack([48.85 + np.cumsum(gen.normal(0, 1e-4, (U, T)), axis=1),
                  2.35 + np.cumsum(gen.normal(0, 1e-4, (U, T)), axis=1)], axis=2)
    lengths = np.array([40, 25])
    landmarks = np.zeros((U, T), dtype=bool)
    landmarks[0, 5] = landmarks[1, 7] = True
    mech = ExactPlanarLaplace(100.0, PARIS)
    rel = lockstep_release(x, lengths, landmarks, scheme=scheme, epsilon=1.0, mech=mech,
                           gens=[np.random.default_rng(u) for u in range(U)], noise="exact")
    pts = np.concatenate([rel.released[0], rel.released[1, :25]])
    assert not np.isnan(pts).any()
    e, n, _ = PARIS.to_plane(pts[:, 0], pts[:, 1])
    u = grid_step(100.0)
    assert np.abs(e / u - np.round(e / u)).max() < 1e-6
    assert np.abs(n / u - np.round(n / u)).max() < 1e-6


def test_lmdk_batch_releases_tracks_exactly_on_a_declared_region(tmp_path, capsys, cluster):
    """``lmdk batch`` on tracks: --noise exact without a region is refused in one line
    saying how to declare it; with --region every released point is on the region's grid
    and the file's header names the exact sampler with its grid and region."""
    import pandas as pd

    from lmdk_core.cli import main
    from lmdk_core.files.config import ViewConfig, config_to_json
    from lmdk_core.population.demo_population import demo_population_tracks

    df = demo_population_tracks()
    users = sorted(df.iloc[:, 0].unique())[:2]
    small = df[df.iloc[:, 0].isin(users)].groupby(df.columns[0]).head(40)
    src = tmp_path / "tracks.csv"
    small.to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig(data_kind="track", dataset="demo-paris",
                                             extra={"max_landmarks": 5})))
    cols = list(df.columns)
    argv = ["batch", "--config", str(cfg), "--input", str(src), "--user-col", cols[0],
            "--time-col", cols[1], "--lat-col", "lat", "--lon-col", "lon", "--output",
            str(tmp_path / "o.csv"), "--audit", str(tmp_path / "a.csv"), "--scheduler",
            cluster.scheduler_address, "--no-leakage"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--region LAT,LON,KM" in err[0]
    assert main([*argv, "--region", "48.86,2.35,60"]) == 0
    text = (tmp_path / "o.csv").read_text()
    assert ("exact discrete Planar Laplace on a 0.0625 m grid in the declared region "
            "48.86,2.35,60") in text
    out = pd.read_csv(tmp_path / "o.csv", comment="#")
    assert len(out) == len(small)
    e, n, _ = PlanarRegion(48.86, 2.35, 60).to_plane(out["released_lat"], out["released_lon"])
    # the file rounds to 7 decimals (≤ 1.1 cm): within a fifth of a 6.25 cm step
    u = grid_step(100.0)
    assert np.abs(e / u - np.round(e / u)).max() < 0.2
    assert np.abs(n / u - np.round(n / u)).max() < 0.2


def test_the_exact_track_file_header_does_not_depend_on_the_track(tmp_path, capsys):
    """Publishing rule, neighbouring inputs: two tracks (one moved by 300 m at one fix)
    released with the same declared settings give the same header lines."""
    from lmdk_core.cli import main

    heads = []
    for shift in (0.0, 0.0027):
        src = tmp_path / f"t{shift}.csv"
        lat = 48.85 + np.arange(30) * 1e-4
        lat[12] += shift
        src.write_text("time,lat,lon\n" + "".join(f"{t},{a},2.35\n" for t, a in
                                                   enumerate(lat)))
        out = tmp_path / f"o{shift}.csv"
        assert main(["geo-release", "--input", str(src), "--landmarks", "12", "--epsilon",
                     "1", "--region", "48.86,2.35,50", "--output", str(out)]) == 0
        heads.append([ln for ln in out.read_text().splitlines() if ln.startswith("#")])
    capsys.readouterr()
    assert heads[0] == heads[1] and any("0.0625 m grid" in h for h in heads[0])


def test_a_track_release_note_names_the_sampler_of_the_declared_region():
    """A public note built from a track configuration names the exact Planar Laplace of
    its declared region (extra.region), else numpy's, labelled for exploration."""
    from lmdk_core.files.config import ViewConfig
    from lmdk_core.files.export import PLANAR_NOISE
    from lmdk_core.report.release_note import published_noise

    cfg = ViewConfig(data_kind="track", dataset="demo-paris", radius=100.0)
    assert published_noise(cfg) == PLANAR_NOISE and "exploration only" in PLANAR_NOISE
    cfg = ViewConfig(data_kind="track", dataset="demo-paris", radius=100.0,
                     extra={"region": "48.86, 2.35, 40"})
    text = published_noise(cfg)
    assert "exact discrete Planar Laplace on a 0.0625 m grid" in text and "48.86,2.35,40" in text


class _FixedBits:
    """The bits of a fixed 64-bit uniform U = 0.b₁b₂…b₆₄, most significant first."""

    def __init__(self, u: int) -> None:
        self.u, self.k = u, 64

    def take(self, n: int) -> int:
        assert n == 1 and self.k > 0, "the comparison needed more than 64 bits"
        self.k -= 1
        return (self.u >> self.k) & 1


@settings(max_examples=300, deadline=None)
@given(c=st.integers(0, 2**90), d=st.integers(1, 2**100), a=st.floats(0, 1, exclude_max=True),
       extra=st.floats(0, 1), u=st.integers(0, 2**64 - 1))
def test_the_irrational_bernoulli_compares_exactly(c, d, a, extra, u):
    """Bernoulli((√p2m − c)/d) decides U < p by integer squares only: on a uniform whose
    first 64 bits are those of U it answers what exact arithmetic answers, whenever p
    does not fall inside U's last 2⁻⁶⁴ interval. (p2m = root² + e, root = c + ⌊a·d⌋,
    0 ≤ e ≤ 2·root, so p lies in [0, 1].)"""
    from lmdk_core.mechanisms.discrete_planar_laplace import _bernoulli_sqrt

    root = c + min(int(a * d), d - 1)
    p2m = root * root + int(extra * 2 * root)
    lo, hi = u * d + (c << 64), (u + 1) * d + (c << 64)
    target = p2m << 128
    if hi * hi <= target:  # U's whole interval is below p
        assert _bernoulli_sqrt(_FixedBits(u), p2m, c, d) is True
    elif lo * lo >= target:  # at or above p
        assert _bernoulli_sqrt(_FixedBits(u), p2m, c, d) is False
    else:  # p inside U's last interval: the comparison needs more than 64 bits
        with pytest.raises(AssertionError, match="more than 64 bits"):
            _bernoulli_sqrt(_FixedBits(u), p2m, c, d)
