"""Files in and out: the view configuration (:mod:`.config`), configurations that
reference their data file by SHA-256 (:mod:`.data_reference`) and the publishable /
confidential release files (:mod:`.export`). See ``docs/architecture.md``.
"""
