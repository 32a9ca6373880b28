"""Engine tests: lmdk_core called directly (allocations, verifier, mechanisms, leakage,
population, figures, files), with oracles and property tests.
"""
