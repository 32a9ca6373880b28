"""Options: chains of nested landmark sets ``L ⊂ L₁ ⊂ … ⊂ L_R = T``, built by the
heuristic (Algorithm 2, :mod:`.heuristic`) or the exact optimal search (Algorithm 1,
:mod:`.optimal`) of Katsomallos et al., "Landmark privacy" (CODASPY 2022); one entry point
(:func:`dummy_options`) that chooses between them."""

from __future__ import annotations

from collections.abc import Iterable

from lmdk_core.dummies.chain import DummyOptions, ProgressCallback
from lmdk_core.dummies.heuristic import HEURISTIC_MAX_STEPS, heuristic_options
from lmdk_core.dummies.metrics import Metric
from lmdk_core.dummies.optimal import OPTIMAL_MAX_REGULAR, optimal_options
from lmdk_core.foundation.errors import InputError

__all__ = [
    "HEURISTIC_MAX_STEPS",
    "METHODS",
    "OPTIMAL_MAX_REGULAR",
    "DummyOptions",
    "ProgressCallback",
    "dummy_options",
    "heuristic_options",
    "optimal_options",
]

#: The two ways to build the chain of options.
METHODS = ("heuristic", "optimal")


def dummy_options(
    length: int,
    landmarks: Iterable[int] | None,
    method: str = "heuristic",
    metric: str | Metric = "gap_std",
    *,
    max_options: int | None = None,
    progress: ProgressCallback | None = None,
) -> DummyOptions:
    """Options by ``method``: ``'heuristic'`` (:func:`heuristic_options`) or
    ``'optimal'`` (:func:`optimal_options`; ``max_options`` does not apply)."""
    key = str(method).strip().lower()
    if key == "heuristic":
        return heuristic_options(length, landmarks, metric, max_options=max_options,
                                 progress=progress)
    if key == "optimal":
        if max_options is not None:
            raise InputError("max_options applies to the heuristic only; the optimal chain "
                             "always ends at the whole series")
        return optimal_options(length, landmarks, metric, progress=progress)
    raise InputError(f"unknown method {method!r}; choose heuristic or optimal")
