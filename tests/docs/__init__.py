"""Documentation tests: links resolve, documented commands run, no external references.
"""
