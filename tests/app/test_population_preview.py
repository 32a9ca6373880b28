"""The Population page's preview (planned allocation, verifier verdict, expected error)
against the release it previews, and the page's release on request."""

from __future__ import annotations

import numpy as np
import pytest

from lmdk_core.foundation.errors import InputError
from lmdk_core.population.audit import LeakageSettings
from lmdk_core.population.demo_population import (
    DEMO_POPULATION_SERIES_COLUMNS,
    DEMO_POPULATION_TRACK_COLUMNS,
    demo_population_series,
    demo_population_tracks,
)
from lmdk_core.population.in_process import release_in_process, standardise
from lmdk_core.population.landmarks import DiscoverySettings
from lmdk_core.population.partition import BatchSettings
from lmdk_core.population.preview import preview_table, user_plans
from tests.conftest import metric, open_page


def _settings(kind: str, scheme: str, epsilon: float, discovery=None) -> BatchSettings:
    return BatchSettings(
        kind=kind, epsilon=epsilon, scheme=scheme, window=10,
        mechanism="laplace" if kind == "series" else "planar_laplace", sensitivity=0.2,
        radius=100.0, noise="fast", root_entropy=7, discovery=discovery or DiscoverySettings(),
        leakage=LeakageSettings(enabled=False))


def _pop(kind: str, n: int):
    if kind == "series":
        df = demo_population_series()
        df = df[df["household"].isin(sorted(df["household"].unique())[:n])]
        return standardise(df, DEMO_POPULATION_SERIES_COLUMNS)[0]
    df = demo_population_tracks()
    df = df[df["person"].isin(sorted(df["person"].unique())[:n])]
    return standardise(df, DEMO_POPULATION_TRACK_COLUMNS)[0]


@pytest.mark.parametrize("kind,use_flags", [("series", True), ("series", False),
                                            ("track", True), ("track", False)])
@pytest.mark.parametrize("scheme,epsilon", [("uniform", 1.0), ("skip", 0.5),
                                            ("event", 2.0), ("w-event", 1.0)])
def test_preview_is_the_releases_verdict_and_landmarks(kind, use_flags, scheme, epsilon):
    """For a data-independent scheme the release spends exactly the planned allocation:
    the preview's verifier verdict, worst total and |L| are the release audit's, user for
    user (the release is the oracle; landmarks discovered or flagged, stays as events)."""
    frame = _pop(kind, 6)
    s = _settings(kind, scheme, epsilon)
    rel = release_in_process(frame if use_flags else frame.drop(columns="landmark"), kind, s)
    plans = user_plans(frame, kind, s.discovery, use_flags)
    pre = preview_table(plans, epsilon=epsilon, scheme=scheme, window=10, mechanism=s.mechanism,
                        scale_unit=s.radius if kind == "track" else s.sensitivity)
    a = rel.audit
    assert pre["user"].tolist() == a["user"].tolist()
    assert pre["n_landmarks"].tolist() == a["n_landmarks"].tolist()
    assert pre["landmark_private"].tolist() == a["landmark_private"].tolist()
    np.testing.assert_allclose(pre["worst_total"], a["worst_total"], rtol=1e-12)
    np.testing.assert_allclose(pre["expected_error"].astype(float),
                               a["expected_error"].astype(float), rtol=1e-9)


def test_preview_of_adaptive_is_its_uniform_start_and_the_release_spends_at_most_it():
    frame = _pop("series", 4)
    s = _settings("series", "adaptive", 1.0)
    plans = user_plans(frame, "series", s.discovery, True)
    pre = preview_table(plans, epsilon=1.0, scheme="adaptive", window=10, mechanism="laplace",
                        scale_unit=0.2)
    uni = preview_table(plans, epsilon=1.0, scheme="uniform", window=10, mechanism="laplace",
                        scale_unit=0.2)
    assert pre["worst_total"].tolist() == uni["worst_total"].tolist()
    rel = release_in_process(frame, "series", s)
    assert (rel.audit["worst_total"].to_numpy() <= pre["worst_total"].to_numpy() + 1e-12).all()


def test_preview_refuses_geometric_on_decimals_as_the_release_does():
    frame = _pop("series", 2)
    plans = user_plans(frame, "series", DiscoverySettings(), True)
    with pytest.raises(InputError, match="whole numbers"):
        preview_table(plans, epsilon=1.0, scheme="uniform", window=10, mechanism="geometric",
                      scale_unit=1.0)


# ------------------------------------------------------------------ the page (AppTest)
def test_epsilon_change_answers_without_releasing_and_marks_the_old_result():
    at = open_page("population", 240)
    at.session_state["w_scheme"] = "skip"  # publishable without a declared k
    at.run()
    at.button(key="pop_release").click().run()
    assert not at.exception
    key = at.session_state["pop_result"][0]
    assert not at.warning
    at.session_state["w_epsilon"] = 0.5
    at.run()
    assert not at.exception
    # the earlier release is shown, said to be for other settings, its downloads withheld
    assert any("OTHER settings" in w.value and "ε = 1" in w.value for w in at.warning)
    assert at.session_state["pop_result"][0] == key
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Released population (CSV)" not in labels
    assert metric(at, "Planned: pass the verifier") == "200"
    # back to ε = 1: the kept release is current again, nothing drawn a second time
    at.session_state["w_epsilon"] = 1.0
    at.run()
    assert not at.warning and at.session_state["pop_result"][0] == key
    assert "Released population (CSV)" in [b.proto.label for b in at.get("download_button")]
    assert len(at.session_state["pop_results"]) == 1


def test_a_declared_k_makes_the_population_publishable_or_refuses_it_per_user():
    """The page's 'Declare k for every user' (the sidebar's k = 5; on by default: every
    demo fits it with its flags, a run of flags being one event): the demo's flagged
    households fit, and the Uniform file is publishable (no EXPLORATORY label); at k = 2
    the users over k are counted and the release is refused saying what to do; unticked,
    the file is exploratory."""
    at = open_page("population", 240)
    assert at.checkbox(key="pop_declare_k").value is True
    assert not at.error and metric(at, "Planned: pass the verifier") == "200"
    at.session_state["w_max_landmarks"] = 2
    at.run()
    assert any("152 users have more landmark events than the declared k = 2" in e.value
               for e in at.error), [e.value for e in at.error]
    assert metric(at, "Planned: pass the verifier") == "48"
    at.button(key="pop_release").click().run()
    assert any("Cannot release this population" in e.value and "k = 2" in e.value
               for e in at.error)
    assert "pop_result" not in at.session_state
    at.session_state["w_max_landmarks"] = 5
    at.run()
    at.button(key="pop_release").click().run()
    assert not at.exception and not at.error
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Released population (CSV)" in labels, labels
    assert not any("EXPLORATORY" in label for label in labels)
    at.checkbox(key="pop_declare_k").uncheck().run()
    at.button(key="pop_release").click().run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert any(label.startswith("EXPLORATORY") for label in labels), labels


@pytest.mark.parametrize("source", ["demo_series", "demo_tracks", "demo_neighbourhood"])
def test_every_demo_fits_the_default_k_with_its_flags(source):
    """Why 'Declare k for every user' is on by default: with their flags (a run of
    consecutive flags one event, docs/population.md) every user of every demo has at most
    k = 5 landmark events, so the preview at k = 5 passes the verifier for all of them."""
    from app_support.population_session import demo_population

    frame, _ = demo_population(source)
    kind = "series" if "value" in frame else "track"
    plans = user_plans(frame, kind, DiscoverySettings(), True)
    pre = preview_table(plans, epsilon=1.0, scheme="uniform", window=10,
                        mechanism="laplace" if kind == "series" else "planar_laplace",
                        scale_unit=0.2, max_landmarks=5)
    assert len(pre) == frame["user"].nunique() and pre["landmark_private"].all()


def test_preview_at_a_declared_k_plans_eps_over_k_plus_one_and_refuses_users_over_k():
    pop = _pop("series", 6)
    plans = user_plans(pop, "series", DiscoverySettings(), True)
    n_events = [len(p.landmarks) if not p.stays else None for p in plans]
    k = 2
    pre = preview_table(plans, epsilon=1.0, scheme="uniform", window=10, mechanism="laplace",
                        scale_unit=0.2, max_landmarks=k)
    free = preview_table(plans, epsilon=1.0, scheme="uniform", window=10, mechanism="laplace",
                         scale_unit=0.2)
    assert len(pre) == len(plans)
    for row, n in zip(pre.itertuples(), n_events, strict=True):
        if n is not None and n > k:
            assert not row.landmark_private and row.utility.startswith("refused")
        elif n is not None:
            assert row.landmark_private
            # Uniform at k: Δf/(ε/(k+1)) at every timestamp, never below the |L|-based plan
            assert row.expected_error >= free.loc[row.Index, "expected_error"] - 1e-12
