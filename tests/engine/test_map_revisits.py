"""Clicks on the map where the track comes back to a spot (lmdk_core.figures.map):
one candidate per visit, and the visit nearest in time to the previous toggle wins."""

from __future__ import annotations

import numpy as np

from lmdk_core.figures.map import nearest_in_time, revisit_candidates


def out_and_back(n_out: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """A walk east and back west along the same street (~50 m steps)."""
    lon = 2.35 + 0.0007 * np.concatenate([np.arange(n_out), np.arange(n_out)[::-1]])
    lat = np.full(lon.size, 48.86)
    return lat, lon


def test_a_spot_visited_twice_offers_both_visits():
    lat, lon = out_and_back()
    # t=10 on the way out and t=69 on the way back are the same place
    assert revisit_candidates(lat, lon, 10) == [10, 69]
    assert revisit_candidates(lat, lon, 69) == [10, 69]
    # the turning point is visited once (t=39 and t=40 are one run of consecutive points)
    assert revisit_candidates(lat, lon, 39) == [39]


def test_a_stay_is_one_visit():
    lat = np.full(30, 48.86) + np.r_[np.zeros(10), 0.01 * np.arange(1, 11), np.zeros(10)]
    lon = np.full(30, 2.35)
    # points 0-9 and 20-29 are at the same spot: two visits; within each, one candidate
    assert revisit_candidates(lat, lon, 3) == [3, 20]
    assert revisit_candidates(lat, lon, 25) == [0, 25]


def test_the_visit_nearest_in_time_to_the_previous_toggle_wins():
    assert nearest_in_time([10, 69], [60]) == 69
    assert nearest_in_time([10, 69], [12]) == 10
    assert nearest_in_time([10, 30], [20]) == 10  # a tie goes to the earlier visit
    assert nearest_in_time([10, 69], []) is None
