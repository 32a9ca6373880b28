"""The chain of options ``L ⊂ L₁ ⊂ … ⊂ L_n`` (:class:`DummyOptions`) that both ways of
building it return (:mod:`.heuristic`: Algorithm 2, :mod:`.optimal`: Algorithm 1 of
Katsomallos et al., "Landmark privacy", CODASPY 2022), and the checks they share."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from lmdk_core.dummies.membership import check_series_length
from lmdk_core.dummies.metrics import Metric
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_landmarks

__all__ = ["DummyOptions", "ProgressCallback", "notify", "prepare_chain"]

#: ``progress(fraction in [0, 1], message)``; called from long computations.
ProgressCallback = Callable[[float, str], object]  # what it returns is ignored


@dataclass(frozen=True)
class DummyOptions:
    """A chain of nested options ``L ⊂ L₁ ⊂ … ⊂ L_n``.

    ``added[i]`` is the regular timestamp added at step i, so option i is
    ``L ∪ {added[0], …, added[i]}``; ``metrics[i] = m(L_{i+1})``. ``objective`` is the
    criterion of Algorithm 1 of Katsomallos et al. (CODASPY 2022), ``|mean(metrics) − m(L)|``.
    """

    length: int
    landmarks: np.ndarray
    added: np.ndarray
    metrics: np.ndarray
    original_metric: float
    metric: Metric = field(repr=False)
    method: str = "heuristic"

    def __len__(self) -> int:
        return int(self.added.size)

    def option(self, i: int) -> np.ndarray:
        """Sorted timestamps of option ``i`` (0-based: option 0 adds one dummy)."""
        n = len(self)
        if not -n <= i < n:
            raise InputError(f"option {i} does not exist; there are {n} options")
        i = i % n
        return np.sort(np.concatenate([self.landmarks, self.added[: i + 1]]))

    @property
    def options(self) -> list[np.ndarray]:
        """Every option's sorted timestamps."""
        return [self.option(i) for i in range(len(self))]

    @property
    def differences(self) -> np.ndarray:
        """``|m(L_i) − m(L)|`` per option."""
        return np.abs(self.metrics - self.original_metric)

    @property
    def objective(self) -> float:
        """``|mean_i m(L_i) − m(L)|`` (``|evalSum/#opt − evalOrig|`` of Katsomallos et
        al., CODASPY 2022)."""
        return float(abs(self.metrics.mean() - self.original_metric))

    def to_dict(self) -> dict:
        """JSON-ready summary (the CLI's keys)."""
        return {
            "method": self.method,
            "metric": self.metric.key,
            "original_metric": float(self.original_metric),
            "objective": self.objective,
            "options": [
                {"timestamps": self.option(i).tolist(), "metric": float(m)}
                for i, m in enumerate(self.metrics)
            ],
        }



def prepare_chain(length: int,
                  landmarks: Iterable[int] | None) -> tuple[int, np.ndarray, np.ndarray]:
    """``(T, L, regular)``: the checked length, landmarks and regular timestamps
    ``T ∖ L``; InputError when L or ``T ∖ L`` is empty (no chain to build)."""
    T = check_series_length(length)
    lm = check_landmarks(landmarks, T)
    if lm.size == 0:
        raise InputError(
            "mark at least one landmark: dummy landmarks hide real ones, and there are none"
        )
    regular = np.setdiff1d(np.arange(T), lm)
    if regular.size == 0:
        raise InputError(
            "every timestamp is already a landmark: there is no regular timestamp to add as "
            "a dummy"
        )
    return T, lm, regular


def notify(progress: ProgressCallback | None, fraction: float, message: str) -> None:
    """Report ``fraction`` (clipped to [0, 1]) and ``message`` to ``progress``, if any."""
    if progress is not None:
        progress(float(min(1.0, max(0.0, fraction))), message)

