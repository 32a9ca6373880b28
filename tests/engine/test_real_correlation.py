"""On every real fixture (tests/data/real): the default correlation model is estimated
from the file, the verdict says why in one sentence, and an amber verdict's advice,
followed, turns it green (event level: no landmarks; and with three landmarks)."""

from __future__ import annotations

import pytest

from lmdk_core.data.series import load_series_csv
from lmdk_core.data.track_loading import load_track
from lmdk_core.decision.sensitivity import derived_sensitivity, landmark_events
from lmdk_core.decision.verdict import AMBER, GREEN, privacy_verdict
from lmdk_core.engine.allocation import allocate
from lmdk_core.leakage.model import correlation_from_spec
from tests.engine.test_real_data import (
    LOADABLE_SERIES,
    REAL,
    SERIES_COLUMNS,
    SERIES_DIR,
    TRACK_FILES,
)


def series(name: str):
    time_col, value_col = SERIES_COLUMNS[name]
    return load_series_csv(SERIES_DIR / name, time_col=time_col, value_col=value_col)


def check(data, model) -> None:
    T = len(data)
    for lm in ([], [T // 5, T // 2, (4 * T) // 5]):
        eps_t = allocate("uniform", T, lm, 1.0)
        pv = privacy_verdict(eps_t, lm, 1.0, backward=model.backward, forward=model.forward,
                             model=model.short)
        assert pv.why.split(" ")[:2] in (["Amber", "because"], ["Green", "because"])
        if pv.colour == AMBER:
            a = pv.advice
            assert a is not None, pv.sentence
            after = privacy_verdict(allocate("uniform", T, lm, a.epsilon), lm, a.epsilon,
                                    backward=model.backward, forward=model.forward,
                                    leakage_target=1.0)
            assert after.colour == GREEN, after.sentence


@pytest.mark.parametrize("name", LOADABLE_SERIES)
def test_real_series_default_model_and_advice(name):
    s = series(name)
    m = correlation_from_spec(None, s)
    assert m.key == "estimated" and "equal-count bins" in m.short
    check(s, m)


@pytest.mark.parametrize("path", TRACK_FILES)
def test_real_track_default_model_and_advice(path):
    tr = load_track(REAL / path)
    m = correlation_from_spec(None, tr)
    assert m.key == "grid" and m.computed, m.note
    check(tr, m)


@pytest.mark.parametrize("name", LOADABLE_SERIES)
def test_real_series_derived_delta_f_covers_any_marked_reading(name):
    """Whatever readings are marked, the derived Δf covers their change, so every
    event's likelihood ratio under a landmark-private allocation is ≤ e^ε."""
    s = series(name)
    T = len(s)
    lm = [T // 5, T // 5 + 1, T // 2, (4 * T) // 5]
    d = derived_sensitivity(s, lm)
    events = landmark_events(s, lm, allocate("uniform", T, lm, 1.0), d.value)
    assert all(e.covered for e in events)
    assert sum(e.log_ratio for e in events) <= 1.0 * (1 + 1e-12)
