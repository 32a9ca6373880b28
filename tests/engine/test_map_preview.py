"""The Map's ε and r preview (lmdk_core.figures.map: track_noise_bases and the overlay's
``preview`` and ``blat``/``blon``): moving each released point to
``base + (released − base)·(r'/r)·(ε/ε')``, as app_support/track_map.js does while a
slider moves, gives the release at ε' and r' drawn with the same seed — Planar Laplace
(Andrés et al., CCS'13) draws a displacement of scale r/ε_t, the same unit draws scaled
— up to the Earth's curvature: the release moves each point along a geodesic, the
preview scales its offset in degrees, which agrees to within 2 % of the displacement per
degree the release spans (0.02 % at 1 km; a user-level release at a small ε moves points by
hundreds of kilometres, where a map preview means little anyway). Adaptive decides from
its own noise: it sends no bases. Seeded: hypothesis draws ε, r and the landmarks,
every release its noise from seed 5. tests/browser/test_browser_map_scrub.py checks the
browser's own result against the server's release."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.data.demo_track import demo_track
from lmdk_core.engine.release import release_trajectory
from lmdk_core.engine.stay_events import centroid
from lmdk_core.figures.epsilon_preview import LINEAR_SCHEMES
from lmdk_core.figures.map import overlay_spec, track_noise_bases

TRACK = demo_track()


def _release(landmarks, eps, radius, scheme, stays=None):
    return release_trajectory(TRACK.lat, TRACK.lon, landmarks, epsilon=eps, radius=radius,
                              scheme=scheme, seed=5, window=10, stays=stays, max_landmarks=8)


def _preview(rel, eps, radius, r0):
    base = track_noise_bases(rel)
    return base + (rel.released - base) * (radius / r0) * (rel.epsilon / eps)


def _close(preview, released, base, before):
    """Every point within 2 % per degree (plus 1e-4) of its displacement from its base:
    degrees of the largest displacement of either release (``before``: the first one's
    points; a repeat's fresh noise is laid from a point its first noise moved, where a
    degree of longitude has another length)."""
    ok = ~np.isnan(released).any(axis=1)
    assert np.array_equal(ok, ~np.isnan(preview).any(axis=1))
    shift = np.hypot(*(released[ok] - base[ok]).T)
    span = max(shift.max(initial=0.0), np.hypot(*(before[ok] - base[ok]).T).max(initial=0.0))
    miss = np.hypot(*(preview[ok] - released[ok]).T)
    return bool(np.all(miss <= (0.02 * span + 1e-4) * shift + 1e-9))


@settings(max_examples=25, deadline=None)
@given(scheme=st.sampled_from(sorted(LINEAR_SCHEMES)), e0=st.floats(0.5, 5),
       e1=st.floats(0.5, 5), r0=st.floats(20, 300), r1=st.floats(20, 300),
       lm=st.sets(st.integers(0, len(TRACK) - 1), max_size=6))
def test_the_preview_at_another_epsilon_and_radius_is_that_release(scheme, e0, e1, r0, r1,
                                                                    lm):
    lm = sorted(lm)
    rel0, rel1 = _release(lm, e0, r0, scheme), _release(lm, e1, r1, scheme)
    np.testing.assert_array_equal(track_noise_bases(rel0), track_noise_bases(rel1))
    assert _close(_preview(rel0, e1, r1, r0), rel1.released, track_noise_bases(rel1),
                  rel0.released)


def test_a_stays_fixes_carry_noise_around_the_stays_centroid():
    stays = [(40, 60)]
    rel0 = _release([12], 1.0, 100.0, "uniform", stays)
    rel1 = _release([12], 0.4, 300.0, "uniform", stays)
    base = track_noise_bases(rel0)
    c = centroid(TRACK.lat[40:61], TRACK.lon[40:61])
    np.testing.assert_allclose(base[40:61], np.tile(np.asarray(c, float), (21, 1)))
    assert _close(_preview(rel0, 0.4, 300.0, 100.0), rel1.released, base, rel0.released)


def test_skips_repeats_carry_noise_around_the_publication_they_repeat():
    rel = _release([30, 31, 32], 1.0, 100.0, "skip")
    base = track_noise_bases(rel)
    assert not rel.published[31]
    src = np.flatnonzero(rel.published[:31])[-1]
    np.testing.assert_array_equal(base[31], rel.original[src])


def test_the_overlay_carries_the_preview_for_static_schemes_only():
    for scheme in ("uniform", "adaptive"):
        rel = _release([50, 200], 1.0, 100.0, scheme)
        spec = overlay_spec(TRACK, rel, 100.0, show_released=True)
        pv = spec["preview"]
        assert pv["live"] == (scheme == "uniform")
        assert pv["epsilon"] == 1.0 and pv["radius"] == 100.0
        assert pv["private"] == rel.verdict.private
        assert abs(pv["ratio"] - float(np.max(rel.verdict.totals))) < 1e-12
        assert abs(pv["mean_err"] - float(np.nanmean(rel.errors))) < 1e-9
        pub = rel.published
        assert abs(pv["mean_expected"] - float(np.mean(2 * 100.0 / rel.epsilon_t[pub]))) \
            < 1e-6 * pv["mean_expected"]
        released = spec["released"]
        has_bases = all("blat" in released[k] for k in ("published", "approximated"))
        assert not any("blat" in line for line in released["lines"])  # hidden instead
        assert has_bases == (scheme == "uniform")
        if has_bases:
            t = np.asarray(released["published"]["t"], dtype=int)
            base = track_noise_bases(rel)
            np.testing.assert_allclose(released["published"]["blat"], base[t, 0], atol=1e-6)
            np.testing.assert_allclose(released["published"]["blon"], base[t, 1], atol=1e-6)
