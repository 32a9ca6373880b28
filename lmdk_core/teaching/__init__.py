"""The Learn page's small, exact, seeded examples (no streamlit): :mod:`.lessons`.
See ``docs/architecture.md``.
"""
