"""The correlation model in force: a small JSON specification → transition matrices.

One specification describes the Markov model of temporal correlation that every page,
the privacy report and the saved configuration (``extra.correlation``) use, so that
they all compute the same TPL and landmark TPL (Cao, Yoshikawa, Xiao, Xiong, ICDE'17 /
TKDE'18). Specifications (``model`` names the kind):

* ``{"model": "smoothed", "states": n, "strength": s, "base": "identity"|"shift"}`` —
  Cao et al.'s smoothed matrix ``P = (B + s)/(1 + n·s)``
  (:func:`~lmdk_core.leakage.smoothed_matrix`); small s = strong correlation;
* ``{"model": "estimated", "bins": n, "binning": "quantile"|"width", "smoothing": a}``
  for a series — values cut into n bins (the states; ``quantile``, the default: equal
  counts, i.e. deciles for n = 10), transitions between consecutive timestamps counted
  with ``a`` added to every count (``a = 1``: add-one smoothing);
* ``{"model": "grid", "cell_size_m": m, "smoothing": a}`` for a track — points mapped to
  square grid cells of m metres (the visited cells are the states), moves counted;
* ``{"model": "matrix", "forward": [[...]], "backward": [[...]], "name": "..."}`` — a
  matrix given explicitly (e.g. uploaded on the Leakage page); ``backward`` optional;
* ``{"model": "private", "bins": n, "low": LO, "high": HI, "epsilon": ε_M,
  "smoothing": a}`` for a series — a model **estimated with differential privacy**
  (:mod:`lmdk_core.leakage.private_model`): the readings clamped to the declared range
  ``[LO, HI]``, cut into n equal-width bins over it, the transition counts drawn with
  two-sided geometric noise at the share ε_M of the budget (calibrated to the declared
  bound k on the landmark events), clipped, smoothed and normalised. The only estimated
  model whose leakage may be published;
* ``{"model": "none"}`` — no correlation model (the verdict is the theorem's alone).

Every kind but ``matrix`` takes ``"backward"``: ``"same"`` (the forward matrix used both
ways), ``"bayes"`` (Bayes' rule from the stationary distribution,
:func:`~lmdk_core.leakage.backward_matrix`) or, for estimated models, ``"estimated"``
(counted from reversed transitions; their default).

**The default** (``spec = None``) is a model *estimated from the data*: Cao et al.
assume the adversary knows the transition matrix, and an adversary who holds the data's
own history can estimate it. For a series :data:`DEFAULT_SERIES_SPEC` (10 equal-count
bins, add-one smoothing, forward and backward matrices counted); for a track the grid
model. The smoothed and uploaded matrices stay available as alternatives. The estimated
matrix is derived from the raw input: configurations store only the recipe
(``bins``, ``binning``, ``smoothing``), never the matrix. See ``docs/correlation.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text, quote_user_value, shorten_user_text

if TYPE_CHECKING:
    from lmdk_core.leakage.estimation import Discretization, GridStates

__all__ = [
    "DEFAULT_CELL_SIZE_M",
    "DEFAULT_SERIES_SPEC",
    "DEFAULT_SERIES_STATES",
    "MAX_LEAKAGE_STATES",
    "PUBLISHABLE_MODELS",
    "CorrelationModel",
    "correlation_from_spec",
]

#: number of states of the smoothed model and of the estimated series model
DEFAULT_SERIES_STATES = 10
#: a series' default model: estimated from the series itself (deciles, add-one smoothing)
DEFAULT_SERIES_SPEC = {"model": "estimated", "bins": DEFAULT_SERIES_STATES,
                       "binning": "quantile", "smoothing": 1.0, "backward": "estimated"}
#: tracks: grid cell size of the default estimated model
DEFAULT_CELL_SIZE_M = 250.0
#: above this many states the loss functions are too costly for a page or a report
MAX_LEAKAGE_STATES = 500


@dataclass(frozen=True)
class CorrelationModel:
    """The Markov model of temporal correlation used for TPL.

    ``backward``/``forward`` are row-stochastic matrices (None when no model applies,
    with the reason in ``note``); ``description`` says in words what was used, ``short``
    in a few words (a page caption); ``spec`` is the normalised specification (the JSON
    of ``extra.correlation``); ``states`` the discretisation or grid cells of an
    estimated model (for labelling states), else None; ``noisy_counts`` the noisy
    transition counts of a model estimated with differential privacy (a DP output, from
    which every smoothing of the model is post-processing), else None.
    """

    key: str
    description: str
    n_states: int
    backward: np.ndarray | None
    forward: np.ndarray | None
    note: str | None = None
    short: str = ""
    spec: dict = field(default_factory=dict)
    states: Discretization | GridStates | None = None
    noisy_counts: np.ndarray | None = None

    @property
    def computed(self) -> bool:
        return self.backward is not None


def _whole(value, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise InputError(f"config: {name} must be a whole number")
    if not lo <= int(value) <= hi:
        raise InputError(f"config: {name} must be between {lo} and {hi}")
    return int(value)


def _number(value, name: str, positive: bool) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = float("nan")
    if isinstance(value, bool) or not np.isfinite(x) or x < 0 or (positive and x == 0):
        raise InputError(f"config: {name} must be a number {'> 0' if positive else '>= 0'}")
    return x


def _choice(value, name: str, options: tuple[str, ...]) -> str:
    v = str(value).strip().lower()
    if v not in options:
        raise InputError(f"config: {name} must be one of {', '.join(options)}")
    return v


def _backward(spec: dict, forward: np.ndarray, estimated: np.ndarray | None,
              prefix: str) -> tuple[np.ndarray, str, str]:
    options = ("same", "bayes") + (("estimated",) if estimated is not None else ())
    default = "estimated" if estimated is not None else "same"
    how = _choice(spec.get("backward", default), f"{prefix}.backward", options)
    if how == "same":
        return forward, how, "used both backward and forward"
    if how == "bayes":
        from lmdk_core.leakage.correlation import backward_matrix

        return backward_matrix(forward), how, "backward matrix by Bayes' rule"
    assert estimated is not None  # "estimated" is offered only with a counted matrix
    return estimated, how, "backward matrix counted from reversed transitions"


def correlation_from_spec(spec: dict | None, data: Series | Track, *,
                          default_strength: float = 0.1,
                          default_cell_size: float = DEFAULT_CELL_SIZE_M,
                          prefix: str = "extra.correlation",
                          max_landmarks: int | None = None,
                          seed: int | None = None) -> CorrelationModel:
    """The model of specification ``spec`` (see the module docstring) for ``data``.

    Parameters
    ----------
    spec : dict or None
        The specification (``{"model": ..., ...}``, the JSON of ``extra.correlation``).
        ``None`` gives the default, a model estimated from ``data``:
        :data:`DEFAULT_SERIES_SPEC` for a series (10 equal-count bins, add-one
        smoothing), the grid model (cells of ``default_cell_size`` metres, add-one
        smoothing) for a track.
    data : Series or Track
        The data the estimated models are counted from.
    default_strength : float
        The smoothed model's s when its spec names none.
    default_cell_size : float
        The grid model's cell size in metres when its spec names none.
    prefix : str
        How error messages name the specification.
    max_landmarks : int, optional
        The private model's k (the declared bound on the landmark events its noise is
        calibrated to); required for ``{"model": "private"}``.
    seed : int, optional
        The private model's noise: the same seed draws the same noisy counts (a
        generator of its own, independent of the release's noise); None: fresh.

    Returns
    -------
    CorrelationModel
        The matrices (``None`` for ``{"model": "none"}`` or too many grid cells, with
        the reason in ``note``), their description and the normalised ``spec``.

    Raises
    ------
    InputError
        On a bad specification, with a message naming ``prefix``.

    Examples
    --------
    >>> import numpy as np
    >>> from lmdk_core.data.series import Series
    >>> data = Series(time=np.arange(8), values=np.array([1.0, 2, 3, 1, 2, 3, 3, 1]))
    >>> model = correlation_from_spec({"model": "smoothed", "states": 2, "strength": 0.5},
    ...                               data)
    >>> model.short
    'smoothed matrix, n = 2 states, s = 0.5'
    >>> model.forward.round(3).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    >>> est = correlation_from_spec({"model": "estimated", "bins": 3}, data)
    >>> est.short
    'estimated from the data: 3 equal-count bins, add-one smoothing'
    >>> est.forward.round(3).tolist()  # counts 0→1: 2, 1→2: 2, 2→0: 2, 2→2: 1, plus one
    [[0.2, 0.6, 0.2], [0.2, 0.2, 0.6], [0.5, 0.167, 0.333]]
    """
    spec = _spec_or_default(spec, data, prefix)
    key = spec["model"].strip().lower()
    if key == "none":
        return _no_model()
    if key == "smoothed":
        return _smoothed_model(spec, default_strength, prefix)
    if key in ("estimated", "grid"):
        return _estimated_model(key, spec, data, default_cell_size, prefix)
    if key == "matrix":
        return _matrix_model(spec, prefix)
    if key == "private":
        return _private_model(spec, data, prefix, max_landmarks, seed)
    raise InputError(f"config: unknown correlation model {quote_user_value(spec['model'])}; "
                     "choose smoothed, estimated, grid, private, matrix or none")


#: the correlation models that are public settings or DP outputs: their leakage may be
#: published (the others are counted from the raw data)
PUBLISHABLE_MODELS = ("smoothed", "matrix", "private", "none")

#: a constant mixed into the private model's seed, so that its noise is independent of
#: the release's (drawn from the generator of the seed alone)
_PRIVATE_MODEL_STREAM = 0x7A11_C0DE


def _private_model(spec: dict, data: Series | Track, prefix: str,
                   max_landmarks: int | None, seed: int | None) -> CorrelationModel:
    """A model estimated with differential privacy from noisy transition counts
    (:mod:`lmdk_core.leakage.private_model`)."""
    from lmdk_core.leakage.private_model import (
        declared_bins,
        noisy_transition_counts,
        private_matrices,
    )

    if isinstance(data, Track):
        raise InputError(f"config: {prefix} model 'private' is for series; a track's "
                         "private model is not available (use a preset or a matrix)")
    if max_landmarks is None:
        raise InputError(f"config: {prefix} model 'private' needs the declared bound k on "
                         "the landmark events (its noise is calibrated to it)")
    n = _whole(spec.get("bins", DEFAULT_SERIES_STATES), f"{prefix}.bins", 2,
               MAX_LEAKAGE_STATES)
    lo = _plain_number(spec.get("low"), f"{prefix}.low")
    hi = _plain_number(spec.get("high"), f"{prefix}.high")
    share = _number(spec.get("epsilon"), f"{prefix}.epsilon", True)
    smoothing = _number(spec.get("smoothing", 1.0), f"{prefix}.smoothing", True)
    disc = declared_bins(data.values, lo, hi, n)
    rng = np.random.default_rng(None if seed is None else [int(seed), _PRIVATE_MODEL_STREAM])
    counts = noisy_transition_counts(disc.states, n, share, int(max_landmarks), rng)
    forward, backward = private_matrices(counts.noisy, smoothing)
    desc = (f"estimated with differential privacy: the readings clamped to the declared "
            f"range [{lo:g}, {hi:g}] and cut into {n} equal-width bins over it, the "
            f"transition counts drawn with two-sided geometric noise at ε_M = {share:g} "
            f"(sensitivity {counts.sensitivity}, for at most k = {int(max_landmarks)} "
            f"landmark events), clipped at 0, {smoothing:g} added to every count, rows "
            "normalised; backward matrix from the same noisy counts reversed.")
    short = f"estimated with DP (ε_M = {share:g}): {n} equal-width bins over [{lo:g}, {hi:g}]"
    return CorrelationModel("private", desc, n, backward, forward, short=short, states=disc,
                            spec={"model": "private", "bins": n, "low": lo, "high": hi,
                                  "epsilon": share, "smoothing": smoothing},
                            noisy_counts=counts.noisy)


def _plain_number(value, name: str) -> float:
    """A finite number (of either sign)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = float("nan")
    if isinstance(value, bool) or not np.isfinite(x):
        raise InputError(f"config: {name} must be a finite number")
    return x


def _spec_or_default(spec: dict | None, data: Series | Track, prefix: str) -> dict:
    """``spec``, checked to name a model, or the default for ``data`` (the grid model
    for a track, :data:`DEFAULT_SERIES_SPEC` for a series)."""
    if spec is None:
        spec = {"model": "grid"} if isinstance(data, Track) else dict(DEFAULT_SERIES_SPEC)
    if not isinstance(spec, dict) or not isinstance(spec.get("model"), str):
        raise InputError(f"config: {prefix} must be an object with a 'model' name")
    return spec


def _estimated_model(key: str, spec: dict, data: Series | Track, default_cell_size: float,
                     prefix: str) -> CorrelationModel:
    """A model counted from the data: ``estimated`` for a series, ``grid`` for a track."""
    smoothing = _number(spec.get("smoothing", 1.0), f"{prefix}.smoothing", False)
    if key == "estimated" and not isinstance(data, Track):
        return _series_model(spec, data, smoothing, prefix)
    if not isinstance(data, Track):
        raise InputError(f"config: {prefix} model 'grid' is for tracks; use "
                         "'smoothed' or 'estimated' for a series")
    if key == "estimated":
        raise InputError(f"config: {prefix} model 'estimated' is for series; use "
                         "'grid' (with cell_size_m) for a track")
    return _grid_model(spec, data, smoothing, default_cell_size, prefix)


def _no_model() -> CorrelationModel:
    return CorrelationModel("none", "none (leakage not computed on request)", 0, None, None,
                            "The configuration asks for no correlation model.",
                            short="none (values assumed independent)", spec={"model": "none"})


def _smoothed_model(spec: dict, default_strength: float, prefix: str) -> CorrelationModel:
    """Cao et al.'s smoothed matrix ``P = (B + s)/(1 + n·s)``."""
    from lmdk_core.leakage.correlation import smoothed_matrix

    n = _whole(spec.get("states", DEFAULT_SERIES_STATES), f"{prefix}.states", 2,
               MAX_LEAKAGE_STATES)
    origin = "extra.correlation.strength" if "strength" in spec else \
        "the configuration's correlation_strength"
    s = _number(spec.get("strength", default_strength), f"{prefix}.strength", False)
    base = _choice(spec.get("base", "identity"), f"{prefix}.base", ("identity", "shift"))
    P = smoothed_matrix(n, s, base=base)
    backward, how, how_text = _backward(spec, P, None, prefix)
    move = "stay in the same state" if base == "identity" else "move to the next state"
    desc = (f"Cao et al.'s smoothed matrix P = (B + s)/(1 + n·s) with B = {base} ({move}), "
            f"n = {n} states, s = {s:g} ({origin}), {how_text}. "
            "Smaller s = stronger correlation (s → 0: the value never changes); large s "
            "= nearly independent values.")
    short = f"smoothed matrix, n = {n} states, s = {s:g}" + (
        f", base {base}" if base != "identity" else "") + (
        f", backward {how}" if how != "same" else "")
    return CorrelationModel("smoothed", desc, n, backward, P, short=short,
                            spec={"model": "smoothed", "states": n, "strength": s,
                                  "base": base, "backward": how})


def _counting(smoothing: float) -> str:
    """How the transition counts were smoothed, in words."""
    return ("add-one smoothing" if smoothing == 1 else "no smoothing" if smoothing == 0
            else f"{smoothing:g} added to every count")


def _series_model(spec: dict, data: Series, smoothing: float,
                  prefix: str) -> CorrelationModel:
    """Values cut into bins (the states), consecutive transitions counted."""
    from lmdk_core.leakage.estimation import discretize_series, transition_matrices

    count = _counting(smoothing)
    n = _whole(spec.get("bins", DEFAULT_SERIES_STATES), f"{prefix}.bins", 1,
               MAX_LEAKAGE_STATES)
    binning = _choice(spec.get("binning", "quantile"), f"{prefix}.binning",
                      ("width", "quantile"))
    disc = discretize_series(data.values, n, binning)
    forward, estimated = transition_matrices(disc.states, disc.n_states, smoothing)
    backward, how, how_text = _backward(spec, forward, estimated, prefix)
    cut = "equal-width" if binning == "width" else "equal-count"
    moves = max(len(data) - 1, 0)
    merged = (f" ({n} asked; tied values merged bins)" if disc.n_states < n
              and binning == "quantile" else "")
    desc = (f"estimated from the series: its {len(data):,} values cut into "
            f"{disc.n_states} {cut} bins{merged} (the states), the {moves:,} "
            "transitions between consecutive timestamps counted, with "
            f"{count} (P_F[i, j] = (c_ij + {smoothing:g}) / (Σ_k c_ik + "
            f"{disc.n_states}·{smoothing:g})); forward matrix from the counts, "
            f"{how_text}.")
    short = f"estimated from the data: {disc.n_states} {cut} bins, {count}"
    return CorrelationModel("estimated", desc, disc.n_states, backward, forward,
                            short=short, states=disc,
                            spec={"model": "estimated", "bins": n, "binning": binning,
                                  "smoothing": smoothing, "backward": how})


def _grid_model(spec: dict, data: Track, smoothing: float, default_cell_size: float,
                prefix: str) -> CorrelationModel:
    """Points mapped to square grid cells (the visited cells are the states), moves
    counted; no matrices above :data:`MAX_LEAKAGE_STATES` cells."""
    from lmdk_core.leakage.estimation import trajectory_cells, transition_matrices

    count = _counting(smoothing)
    size = _number(spec.get("cell_size_m", default_cell_size), "extra.cell_size_m", True)
    cells = trajectory_cells(data.lat, data.lon, size)
    desc = (f"estimated from the track: points mapped to square grid cells of "
            f"{size:,.0f} m (the states; {cells.n_states} visited), moves between "
            f"consecutive cells counted with {count}")
    short = (f"estimated from the track: {cells.n_states} grid cells of {size:,.0f} m, "
             f"{count}")
    spec_out = {"model": "grid", "cell_size_m": size, "smoothing": smoothing}
    if cells.n_states > MAX_LEAKAGE_STATES:
        return CorrelationModel("grid", desc + ".", cells.n_states, None, None,
                                f"{cells.n_states:,} grid cells visited: too many states "
                                f"for the leakage (at most {MAX_LEAKAGE_STATES}); choose "
                                "larger cells.", short=short, spec=spec_out,
                                states=cells)
    forward, estimated = transition_matrices(cells.states, cells.n_states, smoothing)
    backward, how, how_text = _backward(spec, forward, estimated, prefix)
    return CorrelationModel("grid", f"{desc}; {how_text}.", cells.n_states, backward,
                            forward, short=short, states=cells,
                            spec={**spec_out, "backward": how})


def _matrix_model(spec: dict, prefix: str) -> CorrelationModel:
    """A matrix given explicitly, with its own backward matrix or used both ways."""
    from lmdk_core.leakage.correlation import check_transition_matrix

    raw_name = shorten_user_text(spec.get("name", "a given matrix"), 60)
    name = quote_user_text(raw_name)
    forward = check_transition_matrix(spec.get("forward"), f"{prefix}.forward")
    if forward.shape[0] > MAX_LEAKAGE_STATES:
        raise InputError(f"config: {prefix}.forward has {forward.shape[0]} states; at "
                         f"most {MAX_LEAKAGE_STATES}")
    backward, how = _given_backward(spec, forward, prefix)
    n = forward.shape[0]
    desc = (f"the transition matrix {name} ({n} states), "
            + ("used both backward and forward." if how == "same" else
               "with its own backward matrix."))
    out = {"model": "matrix", "name": raw_name, "forward": forward.tolist()}
    if how == "given":
        out["backward"] = backward.tolist()
    return CorrelationModel("matrix", desc, n, backward, forward,
                            short=f"matrix {name} ({n} states)", spec=out)


def _given_backward(spec: dict, forward: np.ndarray, prefix: str) -> tuple[np.ndarray, str]:
    """The matrix model's backward matrix and how it was chosen: its own ("given",
    checked to match ``forward``) or ``forward`` used both ways ("same")."""
    from lmdk_core.leakage.correlation import check_transition_matrix

    if spec.get("backward") is None:
        return forward, "same"
    backward = check_transition_matrix(spec["backward"], f"{prefix}.backward")
    if backward.shape != forward.shape:
        raise InputError(f"config: {prefix}.backward has {backward.shape[0]} states "
                         f"but {prefix}.forward has {forward.shape[0]}")
    return backward, "given"
