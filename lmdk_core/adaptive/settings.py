"""The sampling-rate settings of the Adaptive scheme (Katsomallos et al., CODASPY 2022)."""

from __future__ import annotations

from dataclasses import dataclass

from lmdk_core.adaptive.rules import rate_after_publication
from lmdk_core.foundation.errors import InputError

__all__ = ["AdaptiveSettings"]


@dataclass(frozen=True)
class AdaptiveSettings:
    """Sampling-rate control of the Adaptive scheme: start, floor and step of the rate.

    The rate starts at ``initial_rate``; after each publication it drops by ``step`` (not
    below ``min_rate``) when the change between the last two publications is within the
    noise, and rises by ``step`` (up to 1) otherwise.
    """

    initial_rate: float = 1.0
    min_rate: float = 0.2
    step: float = 0.2

    def __post_init__(self) -> None:
        for name in ("initial_rate", "min_rate", "step"):
            v = getattr(self, name)
            if not (0 < v <= 1):
                raise InputError(f"adaptive {name.replace('_', ' ')} must be in (0, 1], got {v}")
        if self.min_rate > self.initial_rate:
            raise InputError("adaptive minimum rate must not exceed the initial rate")

    def lowered(self, rate: float) -> float:
        """The rate after a publication whose change is within the noise
        (:func:`~lmdk_core.adaptive.rules.rate_after_publication`)."""
        return rate_after_publication(rate, True, self.min_rate, self.step)

    def raised(self, rate: float) -> float:
        """The rate after a publication whose change exceeds the noise
        (:func:`~lmdk_core.adaptive.rules.rate_after_publication`)."""
        return rate_after_publication(rate, False, self.min_rate, self.step)
