"""Temporal privacy leakage under Markov correlations (Cao, Yoshikawa, Xiao, Xiong,
"Quantifying Differential Privacy under Temporal Correlations", ICDE'17 / TKDE'18),
extended to landmark privacy.

* :mod:`~lmdk_core.leakage.correlation` — transition matrices: validation, CSV loading,
  strength-parameter models, Bayes backward;
* :mod:`~lmdk_core.leakage.estimation` — matrices estimated from series and trajectories;
* :mod:`~lmdk_core.leakage.model` — the correlation model in force, from a specification;
* :mod:`~lmdk_core.leakage.loss` — the loss function ``L_P(α)`` (precomputed hull;
  :mod:`~lmdk_core.leakage.hull`, :mod:`~lmdk_core.leakage.pruning` and the numba
  kernels of :mod:`~lmdk_core.leakage.kernels`, docs/leakage-algorithm.md);
* :mod:`~lmdk_core.leakage.tpl` — BPL, FPL, TPL and landmark TPL (the recursion and
  its compiled loop in :mod:`~lmdk_core.leakage.recursion`, the restarted recursions of
  landmark TPL in :mod:`~lmdk_core.leakage.restarts`); many users' largest landmark TPL
  at once in :mod:`~lmdk_core.leakage.tpl_many` (their recursions as numpy vectors in
  :mod:`~lmdk_core.leakage.vector_chains`);
* :mod:`~lmdk_core.leakage.supremum` — suprema for a constant budget (Theorem 10);
* :mod:`~lmdk_core.leakage.calibration` — budgets that meet a target leakage.
"""

from lmdk_core.leakage.calibration import (
    CalibrationResult,
    calibrate_epsilon,
    calibrate_scale,
    max_tpl_constant,
)
from lmdk_core.leakage.correlation import (
    backward_matrix,
    check_transition_matrix,
    load_matrix_csv,
    parse_matrix_text,
    smoothed_matrix,
    stationary_distribution,
)
from lmdk_core.leakage.estimation import (
    Discretization,
    GridStates,
    discretize_series,
    trajectory_cells,
    transition_matrices,
    transition_matrix,
)
from lmdk_core.leakage.loss import LossFunction, LossStats, as_loss, loss_function
from lmdk_core.leakage.supremum import divergence_threshold, supremum, tpl_supremum
from lmdk_core.leakage.tpl import (
    LeakageResult,
    bpl,
    fpl,
    landmark_tpl,
    segment_bpl,
    segment_fpl,
    temporal_leakage,
    tpl,
)

__all__ = [
    "CalibrationResult",
    "Discretization",
    "GridStates",
    "LeakageResult",
    "LossFunction",
    "LossStats",
    "as_loss",
    "backward_matrix",
    "bpl",
    "calibrate_epsilon",
    "calibrate_scale",
    "check_transition_matrix",
    "discretize_series",
    "divergence_threshold",
    "fpl",
    "landmark_tpl",
    "load_matrix_csv",
    "loss_function",
    "max_tpl_constant",
    "parse_matrix_text",
    "segment_bpl",
    "segment_fpl",
    "smoothed_matrix",
    "stationary_distribution",
    "supremum",
    "temporal_leakage",
    "tpl",
    "tpl_supremum",
    "trajectory_cells",
    "transition_matrices",
    "transition_matrix",
]
