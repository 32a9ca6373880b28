"""The default sensitivity Δf covers what the data's own landmark events change, and the
likelihood ratio the explorer states is the Laplace mechanism's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import laplace

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.series import Series
from lmdk_core.decision.sensitivity import (
    derived_sensitivity,
    landmark_changes,
    landmark_events,
    round_up,
)
from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.verifier import verify


def test_the_demo_derives_2_9_kwh_from_its_landmark_events():
    s, lm = demo_series(), demo_series_landmarks()
    d = derived_sensitivity(s, lm)
    ts, changes, _ = landmark_changes(s, lm)
    assert d.value == 2.9 and d.from_landmarks and d.timestamp == 139  # the party
    assert d.landmark_timestamp == 139 and d.value >= np.max(np.abs(changes))
    # the device and the party move readings by 2.5-2.9 kWh (the demo adds 2.6, 2.4, 2.9)
    big = dict(zip(ts.tolist(), changes.tolist(), strict=True))
    assert 2.4 < big[27] < 2.7 and 2.4 < big[28] < 2.7 and 2.7 < big[139] < 2.9
    assert "2.82 kWh, at the landmark t=139" in d.sentence("kWh")
    # the default does not depend on which timestamps are landmarks: any one regular
    # timestamp is protected together with the landmarks, so every reading is covered
    assert derived_sensitivity(s, [40]).value == derived_sensitivity(s, []).value == 2.9


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("scheme", ["uniform", "skip", "w-event", "user"])
def test_stated_likelihood_ratios_hold_at_the_default_sensitivity(eps, scheme):
    """At the derived Δf every landmark event's likelihood ratio is ≤ e^ε, and so is the
    product over all landmark events (what landmark privacy promises), for every scheme
    that passes the theorem."""
    s, lm = demo_series(), demo_series_landmarks()
    eps_t = allocate(scheme, len(s), lm, eps, window=10)
    assert verify(eps_t, lm, eps).private
    events = landmark_events(s, lm, eps_t, derived_sensitivity(s, lm).value)
    assert [e.timestamps for e in events] == [(27, 28), (85, 86), (139,)]
    assert all(e.covered for e in events)
    assert all(e.likelihood_ratio <= math.exp(eps) for e in events)
    assert sum(e.log_ratio for e in events) <= eps * (1 + 1e-12)


def test_the_old_default_left_the_medical_device_66_times_more_likely():
    """Δf = 0.2 kWh under Uniform, ε = 1 (ε_t = 1/6): the device's two readings give a
    likelihood ratio near 66, not e¹ — and a 10 % suspicion grows to 88 %."""
    s, lm = demo_series(), demo_series_landmarks()
    device = landmark_events(s, lm, allocate("uniform", 168, lm, 1.0), 0.2)[0]
    assert device.timestamps == (27, 28) and not device.covered
    assert 60 < device.likelihood_ratio < 70
    assert device.posterior(0.1) == pytest.approx(0.1 * 66.13 / (0.9 + 6.613), rel=1e-3)


def test_the_likelihood_ratio_is_the_laplace_mechanisms():
    """exp(Σ|d_t|·ε_t/Δf) is the ratio of the two output densities (with and without the
    event) at any output beyond both readings: checked with scipy's Laplace pdf."""
    s, lm = demo_series(), demo_series_landmarks()
    eps_t = allocate("uniform", 168, lm, 1.0)
    df = 0.7
    ev = landmark_events(s, lm, eps_t, df)[0]
    ratio = 1.0
    for t, d in zip(ev.timestamps, ev.changes, strict=True):
        b = df / eps_t[t]
        x = float(s.values[t])
        y = x + 10 * b  # an output above both the reading and the reading without the event
        ratio *= laplace.pdf(y, loc=x, scale=b) / laplace.pdf(y, loc=x - d, scale=b)
    assert ratio == pytest.approx(ev.likelihood_ratio, rel=1e-9)


def test_without_landmarks_every_reading_is_covered_and_geometric_gets_a_whole_number():
    s = demo_series()
    d = derived_sensitivity(s, [])
    _, changes, _ = landmark_changes(s, None)
    assert d.landmark_largest is None and d.value >= np.max(np.abs(changes))
    w = derived_sensitivity(s, demo_series_landmarks(), whole=True)
    assert w.value == 3.0 and w.whole
    flat = Series(time=np.arange(10), values=np.ones(10))
    assert derived_sensitivity(flat, [3]).value == 0.001  # nothing changes: the smallest Δf


@given(st.floats(1e-6, 1e9))
def test_round_up_keeps_two_significant_digits_and_never_rounds_down(x):
    r = round_up(x)
    assert x <= r * (1 + 1e-12)
    assert r <= x * 1.1 + 1e-12
    digits = f"{r:.15e}".split("e")[0].replace(".", "").rstrip("0")
    assert len(digits) <= 2


def test_the_suggestion_is_the_largest_departure_not_the_largest_rise():
    """A landmark that *drops* a reading by 8 must be covered: the suggestion is the
    largest |x_t − b_t| (a departure either way). A planted bug taking the largest rise
    (max of x_t − b_t) gives about 1 here and fails this test."""
    rng = np.random.default_rng(0)
    x = 10.0 + rng.uniform(-0.5, 0.5, 200)
    x[120] -= 8.0  # the landmark event: a reading 8 below its usual level
    x[30] += 1.0   # the largest rise, far smaller
    s = Series(time=np.arange(200), values=x)
    d = derived_sensitivity(s, [120])
    assert d.value >= 8.0 and d.timestamp == 120 and d.largest < 0
    _, changes, _ = landmark_changes(s, None)
    assert np.max(changes) < 2.0 < 8.0 <= d.value  # the rise alone would not cover it
