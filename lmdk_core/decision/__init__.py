"""Deciding on a release: accuracy and ε (:mod:`.accuracy`), what an attacker learns
(:mod:`.attacker`), composition over repeated releases (:mod:`.composition`), the mechanism
for the data (:mod:`.mechanism_choice`), the default sensitivity Δf (:mod:`.sensitivity`),
the verdict (:mod:`.verdict`), schemes side by side (:mod:`.comparison`) and the utility
line (:mod:`.utility`).

Builds on :mod:`lmdk_core.engine` and :mod:`lmdk_core.leakage`; see ``docs/architecture.md``.
"""
