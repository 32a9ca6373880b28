"""Users of one reading (lmdk_core/population/one_row.py) against the lockstep path they
took before: the same publishable rows and the same audit, bit for bit, on random
populations (hypothesis), with numpy's noise under a fixed seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmdk_core.files.config import ViewConfig
from lmdk_core.foundation.errors import InputError
from lmdk_core.population import partition
from lmdk_core.population.one_row import one_row_users
from lmdk_core.population.partition import BatchSettings, release_partition
from lmdk_core.population.table import PopulationColumns


def _lockstep_only(monkeypatch):
    """release_partition with the one-row path switched off (every user in lockstep)."""
    monkeypatch.setattr(partition, "one_row_users",
                        lambda lengths, *a: np.zeros(lengths.size, dtype=bool))


def _population(seed: int, n_one: int, n_multi: int, flags: bool, text_ids: bool,
                counts: bool) -> tuple[pd.DataFrame, PopulationColumns]:
    rng = np.random.default_rng(seed)
    users, times, values = [], [], []
    lengths = [1] * n_one + rng.integers(2, 30, n_multi).tolist()
    for u in rng.permutation(len(lengths)):
        n = lengths[u]
        users += [u] * n
        times += list(range(n))
        v = rng.integers(-4, 9, n).astype(float) if counts else rng.normal(0, 3, n)
        if rng.random() < 0.1:
            v[:] = 0.0  # no scale: "not judged"
        values += v.tolist()
    df = pd.DataFrame({"user": users, "time": times, "value": values,
                       "flag": rng.random(len(users)) < 0.15})
    if text_ids:
        df["user"] = "u" + df["user"].astype(str)
    cols = PopulationColumns(user="user", time="time", value="value",
                             landmark="flag" if flags else None)
    return df, cols


def _both(monkeypatch, df, cols, s):
    """(one-row path, lockstep only) results, or their InputError messages."""
    out = []
    for lockstep_only in (False, True):
        with monkeypatch.context() as m:
            if lockstep_only:
                _lockstep_only(m)
            try:
                out.append(release_partition(df, cols, s))
            except InputError as exc:
                out.append(str(exc))
    return out


SCHEMES = ["uniform", "skip", "event", "w-event", "user", "adaptive"]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31), n_one=st.integers(1, 40), n_multi=st.integers(0, 6),
       flags=st.booleans(), text_ids=st.booleans(), counts=st.booleans(),
       scheme=st.sampled_from(SCHEMES), leakage=st.booleans(),
       k=st.sampled_from([None, 3]), epsilon=st.sampled_from([0.05, 0.7, 1.0, 4.0]),
       model=st.sampled_from([None, {"model": "smoothed", "states": 3},
                              {"model": "none"}]))
def test_one_row_path_matches_lockstep(monkeypatch, seed, n_one, n_multi, flags, text_ids,
                                       counts, scheme, leakage, k, epsilon, model):
    df, cols = _population(seed, n_one, n_multi, flags, text_ids, counts)
    extra = {**({} if k is None else {"max_landmarks": k}),
             **({} if model is None else {"correlation": model})}
    cfg = ViewConfig(scheme=scheme, epsilon=epsilon, sensitivity=2.0,
                     mechanism="geometric" if counts else "laplace", extra=extra)
    s = BatchSettings.from_config(cfg, "series", "fast", seed, leakage)
    fast, slow = _both(monkeypatch, df, cols, s)
    if isinstance(slow, str):  # refused (more landmark events than k): the same message
        assert fast == slow
        return
    pd.testing.assert_frame_equal(fast.released, slow.released, check_exact=True)
    pd.testing.assert_frame_equal(fast.audit, slow.audit, check_exact=True)
    assert fast.released.to_csv() == slow.released.to_csv()
    assert fast.audit.to_csv() == slow.audit.to_csv()


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_one_row_path_exact_noise_audit(monkeypatch, scheme):
    """Exact noise (fresh OS entropy): everything in the audit but the measured error
    matches the lockstep path (under Adaptive: of the one-reading users), and the released
    values differ from the readings. Unseeded (OS entropy): a released value equals its
    reading only when the exact noise is 0, probability about 2⁻³¹ on the sampler's grid
    of 2⁻³⁰ of the scale (docs/noise.md), so more than 10 % of the values equal to theirs
    has a false-failure probability far below 1e-6."""
    df, cols = _population(3, 300, 4, True, False, False)
    s = BatchSettings.from_config(ViewConfig(scheme=scheme), "series", "exact", 0, True)
    fast, slow = _both(monkeypatch, df, cols, s)
    noisy = ["mae", "rmse"]
    # Adaptive's multi-reading users spend budgets that follow their own exact noise
    rows = (slow.audit["n_timestamps"] == 1) if scheme == "adaptive" else slice(None)
    pd.testing.assert_frame_equal(fast.audit[rows].drop(columns=noisy),
                                  slow.audit[rows].drop(columns=noisy), check_exact=True)
    assert (fast.released["released"] != df.sort_values(["user", "time"])["value"]
            .to_numpy()).mean() > 0.9


@pytest.mark.parametrize("scheme,kind,expected", [
    ("uniform", "series", True), ("skip", "series", True), ("adaptive", "series", True),
    ("uniform", "track", False)])
def test_which_users_take_the_one_row_path(scheme, kind, expected):
    """One reading and no flag, a series under any scheme; tracks stay in lockstep."""
    s = BatchSettings.from_config(ViewConfig(scheme=scheme, data_kind=kind), kind, "fast", 0)
    lengths = np.array([1, 3, 1, 1])
    starts = np.array([0, 1, 4, 5])
    flags = np.array([False, False, False, False, True, False])
    got = one_row_users(lengths, starts, flags, s)
    assert got.tolist() == ([True, False, False, True] if expected else [False] * 4)
