"""The foundation every other package of lmdk_core builds on: the error type
(:mod:`~lmdk_core.foundation.errors`), parameter validation
(:mod:`~lmdk_core.foundation.validation`), the quoting of user text in messages
(:mod:`~lmdk_core.foundation.quoting`), the bounds on settings
(:mod:`~lmdk_core.foundation.setting_limits`), geodesy
(:mod:`~lmdk_core.foundation.geodesy`) and the wording of counts
(:mod:`~lmdk_core.foundation.plurals`).

It imports nothing from the rest of lmdk_core; the layers above are, from the bottom up,
the noise mechanisms (:mod:`lmdk_core.mechanisms`), Adaptive's loop
(:mod:`lmdk_core.adaptive`) and the release engine (:mod:`lmdk_core.engine`). See
``docs/architecture.md``.
"""
