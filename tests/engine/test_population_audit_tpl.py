"""The batch audit's landmark TPL column, computed for all users of a block at once
(:func:`lmdk_core.population.audit.landmark_tpls`), against the audit computed one user
at a time (:func:`lmdk_core.population.audit.user_audit` without ``tpl``): the same audit
table, bit for bit, on seeded random populations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.files.config import ViewConfig
from lmdk_core.population import partition
from lmdk_core.population.partition import BatchSettings, release_partition
from lmdk_core.population.table import PopulationColumns

COLS = PopulationColumns(user="uid", time="t", value="kwh", landmark="event")


def _population(seed: int, users: int, T: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)  # data generator, not the release noise
    rows = []
    for u, n in enumerate(rng.integers(1, T, users)):
        v = 10 + np.cumsum(rng.normal(0, 1, n))
        rows.append(pd.DataFrame({"uid": u, "t": np.arange(n) * 3600, "kwh": v,
                                  "event": rng.random(n) < rng.choice([0.0, 0.02, 0.2])}))
    return pd.concat(rows, ignore_index=True)


@settings(max_examples=24, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.sampled_from([5, 60, 700]),
       st.sampled_from(["uniform", "skip", "adaptive"]),
       st.sampled_from([None, {"model": "smoothed", "strength": 0.3},
                        {"model": "none"}, {"model": "estimated", "bins": 4,
                                            "backward": "bayes"},
                        {"model": "estimated", "backward": "same", "smoothing": 0.5},
                        {"model": "estimated", "binning": "width"}]),
       st.sampled_from([0, 32]))
def test_block_audit_equals_the_audit_user_by_user(seed, users, T, scheme, correlation,
                                                   min_problems):
    """Every block: its estimated models binned together, its recursions batched (numpy
    vectors where exact, else compiled) from ``min_problems`` users on."""
    from lmdk_core.leakage import tpl_many

    df = _population(seed, users, T)
    if seed % 3 == 0:  # ties (and shared bin edges)
        df["kwh"] = np.round(df["kwh"])
    elif seed % 3 == 1:  # -0.0 beside 0.0, and a constant user: the one-series path
        df.loc[::4, "kwh"] = -0.0
        df.loc[1::4, "kwh"] = 0.0
        df.loc[df["uid"] == 0, "kwh"] = 2.5
    cfg = ViewConfig(scheme=scheme, extra={"correlation": correlation} if correlation else {})
    s = BatchSettings.from_config(cfg, "series", "fast", seed, True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tpl_many, "KERNEL_MIN_PROBLEMS", min_problems)
        patch.setattr(tpl_many, "_compile_chains", lambda steps: False)
        batched = release_partition(df, COLS, s).audit
        # the reference: user_audit's own per-user landmark TPL
        patch.setattr(partition, "_block_tpls", lambda b, *a: [None] * b.lengths.size)
        one_by_one = release_partition(df, COLS, s).audit
    assert batched["max_landmark_tpl"].notna().any() or correlation is not None
    pd.testing.assert_frame_equal(batched, one_by_one, check_exact=True)
