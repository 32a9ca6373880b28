"""CLI tests: the `lmdk` command run in-process or as a subprocess (exit status, one-line
errors, the files it writes), and the installed wheel.
"""
