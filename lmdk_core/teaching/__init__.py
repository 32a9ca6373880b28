"""The Learn page's small, exact, seeded examples (no streamlit), one module per lesson:
:mod:`.definition` (ε-DP on neighbouring counts), :mod:`.adversary` (what ε means to an
attacker), :mod:`.levels` (event, user, w-event and landmark privacy),
:mod:`.mechanisms` (the noise mechanisms and Δf on the demo week), :mod:`.composition`
(sequential, parallel, discounted, correlated, post-processing) and :mod:`.anonymity`
(why not k-anonymity). Every function states its formula and its source.
See ``docs/architecture.md``.
"""
