"""Publishable files round released values to what the noise justifies.

The rule (docs/outputs.md, "Rounding of released values"): the step is
``10^(⌊log10(s/ε)⌋ − 3)`` with ``s`` = Δf (Laplace, Geometric) or r (Planar Laplace, in
degrees of latitude), so it is at most 1/1000 of the smallest noise scale of any
timestamp, and it depends on ε and Δf (or r) only, never on ε_t or the landmarks.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.engine.release import release_series, release_trajectory
from lmdk_core.files.export import (
    METRES_PER_DEGREE,
    mechanism_text,
    release_decimals,
    series_publishable_csv,
    trajectory_publishable_csv,
)

SEED = 20240305


def _places(text: str) -> int:
    m = re.search(r"^# released .*rounded to (\d+) decimal places", text, re.M)
    assert m, "the header says how the values are rounded"
    return int(m.group(1))


@settings(max_examples=200, deadline=None)
@given(eps=st.floats(1e-3, 1e3), scale=st.floats(1e-3, 1e4))
def test_the_step_is_at_most_a_thousandth_and_more_than_a_ten_thousandth_of_the_scale(
        eps, scale):
    """q ≤ b_ε/1000 (the rounding is far below the noise) and q > b_ε/10⁴ (no spurious
    digits); b_ε = s/ε is the smallest scale of any timestamp since ε_t ≤ ε."""
    b = scale / eps
    q = 10.0 ** -release_decimals(eps, scale)
    if q < 1.0:  # decimals > 0: the rule itself, not the floor at whole numbers
        assert q <= b / 1000 * (1 + 1e-9)
        assert q > b / 10_000 * (1 - 1e-9)


def test_tracks_round_in_degrees_from_metres():
    # r = 100 m at ε = 1: 100 m ≈ 9.0e-4 degree, step 1e-7 degree (≈ 1.1 cm ≤ 10 cm)
    assert release_decimals(1.0, 100.0, degrees=True) == 7
    assert 10.0**-7 * METRES_PER_DEGREE <= 100.0 / 1000


def test_series_csv_is_rounded_as_its_header_says_and_only_that():
    s = demo_series()
    lm = demo_series_landmarks()
    rel = release_series(s.values, lm, epsilon=1.0, scheme="adaptive", mechanism="laplace",
                         sensitivity=2.9, seed=SEED)
    text = series_publishable_csv(s, rel, mechanism_text("laplace", sensitivity=2.9),
                                  sensitivity=2.9)
    places = _places(text)
    assert places == release_decimals(1.0, 2.9) == 3  # b = 2.9 -> step 0.001
    cells = [ln.split(",")[1] for ln in text.splitlines()[1:] if not ln.startswith("#")][1:]
    digits = [len(c.split(".")[1]) for c in cells if "." in c]
    assert max(digits) <= places  # no 17-digit values any more
    got = pd.read_csv(io.StringIO(text), comment="#")["released"].to_numpy()
    ok = np.isfinite(rel.released)
    np.testing.assert_array_equal(np.isfinite(got), ok)
    # post-processing of the released values only: each moves by at most half a step
    assert np.max(np.abs(got[ok] - rel.released[ok])) <= 0.5 * 10.0**-places + 1e-12


def test_the_rounding_does_not_depend_on_the_landmarks():
    """The number of places is a function of public ε and Δf: a landmark set that
    changes every ε_t leaves it the same (else the file's precision would leak L)."""
    s = demo_series()
    texts = [series_publishable_csv(s, release_series(s.values, lm, epsilon=1.0, scheme="uniform",
                                                      mechanism="laplace", sensitivity=0.2,
                                                      seed=SEED), "Laplace", sensitivity=0.2)
             for lm in ([], [3], list(range(0, 160, 7)))]
    assert len({_places(t) for t in texts}) == 1


def test_track_csv_is_rounded_to_the_stated_places():
    tr = demo_track()
    rel = release_trajectory(tr.lat, tr.lon, demo_track_landmarks(), epsilon=1.0, radius=100.0,
                             scheme="adaptive", seed=SEED)
    text = trajectory_publishable_csv(tr, rel, "Planar Laplace", radius=100.0)
    places = _places(text)
    assert places == 7
    df = pd.read_csv(io.StringIO(text), comment="#")
    ok = ~rel.withheld
    moved = np.abs(df[["released_lat", "released_lon"]].to_numpy()[ok] - rel.released[ok])
    assert np.max(moved) <= 0.5 * 10.0**-places + 1e-12
