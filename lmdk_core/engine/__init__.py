"""The release engine: allocation of the budget over time, the landmark-privacy verifier,
the release of a series or a track (Uniform, Skip, Adaptive; Katsomallos et al., CODASPY
2022), and stays or runs released as one landmark event.

Everything shown or released goes through :func:`lmdk_core.engine.verifier.verify`. The
noise itself comes from :mod:`lmdk_core.mechanisms`, Adaptive's loop from
:mod:`lmdk_core.adaptive`, and validation, quoting, setting limits and geodesy from
:mod:`lmdk_core.foundation`. See ``docs/architecture.md``.
"""
