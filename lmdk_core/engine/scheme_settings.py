"""The public settings of a release under a landmark-privacy scheme, as one value."""

from __future__ import annotations

from dataclasses import dataclass

from lmdk_core.adaptive.settings import AdaptiveSettings

__all__ = ["SchemeSettings"]


@dataclass(frozen=True)
class SchemeSettings:
    """What a release is told besides the data and the mechanism: the settings that travel
    together from :func:`lmdk_core.engine.release.release` to the allocation, the
    Adaptive loop and the verifier.

    All are public settings, never derived from the data (docs/privacy-model.md): the
    total budget ``epsilon`` (ε), the ``scheme`` (a name of
    :data:`lmdk_core.engine.allocation.SCHEMES`: event, user, w-event, Uniform, Skip,
    Adaptive; Katsomallos et al., CODASPY 2022), ``window`` (w of the w-event scheme,
    Kellaris et al., VLDB 2014), ``adaptive`` (Adaptive's sampling-rate settings; None:
    the defaults) and ``max_landmarks`` (the declared bound k on landmark events; None:
    not declared, exploring). They are checked where they are used, as before
    (:func:`lmdk_core.foundation.validation.check_epsilon`,
    :func:`lmdk_core.engine.allocation.allocate`).

    Examples
    --------
    >>> SchemeSettings(1.0, "uniform", max_landmarks=5).adaptive_or_default()
    AdaptiveSettings(initial_rate=1.0, min_rate=0.2, step=0.2)
    """

    epsilon: float
    scheme: str
    window: int | None = None
    adaptive: AdaptiveSettings | None = None
    max_landmarks: int | None = None

    def adaptive_or_default(self) -> AdaptiveSettings:
        """Adaptive's settings: the given ones, or the defaults when none were given."""
        return self.adaptive or AdaptiveSettings()
