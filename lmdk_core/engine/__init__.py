"""The release engine: allocation of the budget over time, the landmark-privacy verifier,
the release of a series or a track (Uniform, Skip, Adaptive; Katsomallos et al., CODASPY
2022), stays released as one landmark event, geodesy, parameter validation, setting
limits and the quoting of user text in messages.

Everything shown or released goes through :func:`lmdk_core.engine.verifier.verify`. The
noise itself comes from :mod:`lmdk_core.mechanisms`. See ``docs/architecture.md``.
"""
