"""Small rendering pieces shared by pages (badges, metric rows, cached engine calls)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from lmdk_core.release import Release, release_series, release_trajectory
from lmdk_core.report import DEFAULT_SERIES_STATES, MAX_LEAKAGE_STATES
from lmdk_core.verifier import Verdict


@st.cache_data(max_entries=64, show_spinner=False)
def cached_series_release(values: np.ndarray, landmarks: tuple[int, ...], epsilon: float,
                          scheme: str, mechanism: str, sensitivity: float, seed: int,
                          window: int) -> Release:
    """release_series, cached on its inputs."""
    return release_series(values, list(landmarks), epsilon, scheme, mechanism, sensitivity,
                          seed, window)


def verdict_badge(verdict: Verdict, time_label: str | None = None,
                  compact: bool = False) -> None:
    """A green or red box with the verifier's verdict in plain words (``compact``: one
    short line, for a narrow column)."""
    n_lm = verdict.landmarks.size
    when = f"t={verdict.worst_timestamp}" + (f" ({time_label})" if time_label else "")
    if compact:
        where = f"t={verdict.worst_timestamp}" + (f", {time_label}" if time_label else "")
        text = (f"**{'Landmark-private' if verdict.private else 'Not landmark-private'}**: "
                f"landmarks + one timestamp spend at most {verdict.worst_total:.3g} "
                f"{'≤' if verdict.private else '>'} ε = {verdict.epsilon:.3g} (worst: {where})")
        if verdict.private:
            st.success(text, icon=":material/verified_user:")
        else:
            st.error(text, icon=":material/gpp_bad:")
        return
    if verdict.private:
        st.success(
            f"**Landmark-private.** The {n_lm} landmark{'s' if n_lm != 1 else ''} plus any "
            f"one timestamp spend at most **{verdict.worst_total:.4g}** ≤ ε = "
            f"{verdict.epsilon:.4g} (largest total at {when}).",
            icon=":material/verified_user:",
        )
    else:
        n_bad = verdict.violations.size
        st.error(
            f"**Not landmark-private.** At {when} the landmarks plus that timestamp spend "
            f"**{verdict.worst_total:.4g}** > ε = {verdict.epsilon:.4g}; {n_bad} "
            f"timestamp{'s are' if n_bad != 1 else ' is'} over budget. Choose another scheme "
            "or fewer landmarks.",
            icon=":material/gpp_bad:",
        )


def leakage_note(max_landmark_tpl: float, epsilon: float, compact: bool = False) -> None:
    """An amber note when, under temporal correlation, the landmarks plus one timestamp
    leak more than ε (the verdict assumes independent values)."""
    if not max_landmark_tpl > epsilon * 1.001:
        return
    if compact:
        st.warning(f"Correlated data: landmark TPL up to {max_landmark_tpl:.3g} > ε.",
                   icon=":material/warning:")
        return
    st.warning(
        f"**Under this correlation the protection is weaker than ε.** The verdict assumes "
        f"independent values; if consecutive values are correlated as modelled, the "
        f"landmarks plus one timestamp leak up to **{max_landmark_tpl:.3g}** > ε = "
        f"{epsilon:g}. The Leakage page finds the ε that keeps it at a target.",
        icon=":material/warning:")


def error_metrics(rel: Release, unit: str = "", distance: bool = False) -> None:
    """Measured vs expected error and what was published."""
    m = rel.metrics()
    u = f" {unit}" if unit else ""
    c = st.columns(4)
    name = "Mean displacement" if distance else "MAE (measured)"
    c[0].metric(name, f"{m['mae']:.3g}{u}" if np.isfinite(m["mae"]) else "—",
                help="Mean absolute error over every released timestamp, approximations "
                     "included.")
    c[1].metric("Expected at noisy releases",
                f"{m['expected_mae_published']:.3g}{u}"
                if np.isfinite(m["expected_mae_published"]) else "—",
                help=("Planar Laplace: 2r/ε_t" if distance else "Laplace: Δf/ε_t")
                + ", averaged over the timestamps published from the raw data.")
    c[2].metric("RMSE" if not distance else "95th percentile",
                f"{(m['rmse'] if not distance else m['p95_error']):.3g}{u}"
                if np.isfinite(m["rmse"]) else "—")
    c[3].metric("Published / approximated", f"{m['n_published']} / {m['n_approximated']}",
                help="Published = fresh noisy value from the raw data (spends ε_t). "
                     "Approximated = last release repeated (spends nothing)."
                     + (f" {m['n_withheld']} withheld (nothing to repeat yet)."
                        if m["n_withheld"] else ""))


#: states of the strength-parameter correlation model used for series (as in the report)
SERIES_STATES = DEFAULT_SERIES_STATES


@st.cache_resource(max_entries=16, show_spinner=False)
def cached_smoothed_loss(strength: float, n_states: int = SERIES_STATES):
    """The loss function of Cao et al.'s smoothed matrix P = (I + s)/(1 + n·s), built
    once per (s, n) and shared by every session (it is read-only)."""
    from lmdk_core.leakage import loss_function, smoothed_matrix

    return loss_function(smoothed_matrix(n_states, strength))


@st.cache_data(max_entries=64, show_spinner=False)
def cached_series_leakage(epsilon_t: np.ndarray, landmarks: tuple[int, ...], strength: float,
                          n_states: int = SERIES_STATES) -> dict[str, np.ndarray]:
    """TPL and landmark TPL of an allocation under the smoothed correlation model with
    strength s (the same matrix backward and forward), cached on its inputs."""
    from lmdk_core.leakage import temporal_leakage

    loss = cached_smoothed_loss(float(strength), int(n_states))
    res = temporal_leakage(epsilon_t, loss, loss, list(landmarks))
    return {"TPL": res.tpl, "landmark TPL": res.landmark_tpl}


# ---------------------------------------------------------------- tracks (Map, Compare, Leakage)
@st.cache_data(max_entries=32, show_spinner=False)
def cached_track_release(lat: np.ndarray, lon: np.ndarray, landmarks: tuple[int, ...],
                         epsilon: float, radius: float, scheme: str, seed: int,
                         window: int) -> Release:
    """release_trajectory, cached on its inputs."""
    return release_trajectory(lat, lon, list(landmarks), epsilon, radius, scheme, seed, window)


@st.cache_data(max_entries=8, show_spinner=False)
def cached_grid_model(lat: np.ndarray, lon: np.ndarray, cell_size: float):
    """Grid cells of the track and the loss functions of their transition matrices
    (forward, backward), or only the number of states when there are too many."""
    from lmdk_core.leakage.correlation import trajectory_cells, transition_matrices
    from lmdk_core.leakage.loss import LossFunction

    cells = trajectory_cells(lat, lon, cell_size)
    if cells.n_states > MAX_LEAKAGE_STATES:
        return cells.n_states, None, None
    forward, backward = transition_matrices(cells.states, cells.n_states)
    return cells.n_states, LossFunction(forward, name="the forward matrix"), LossFunction(
        backward, name="the backward matrix")


@st.cache_data(max_entries=32, show_spinner=False)
def cached_leakage(lat: np.ndarray, lon: np.ndarray, cell_size: float, epsilon_t: np.ndarray,
                   landmarks: tuple[int, ...]) -> tuple[int, dict[str, np.ndarray] | None]:
    """(number of states, {'TPL': ..., 'landmark TPL': ...}) for the grid-cell model."""
    from lmdk_core.leakage.tpl import temporal_leakage

    n, lf, lb = cached_grid_model(lat, lon, cell_size)
    if lf is None:
        return n, None
    res = temporal_leakage(epsilon_t, lb, lf, list(landmarks))
    return n, {"TPL": res.tpl, "landmark TPL": res.landmark_tpl}
