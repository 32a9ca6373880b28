"""numba imported without its BLAS probe (:func:`lmdk_core.foundation.compiled_paths.
import_numba`): a kernel's first load in a fresh process does not import ``scipy.linalg``
(0.3–0.4 s of CPU), the kernels give the same numbers, numba's ``ensure_blas`` is
numba's own again afterwards, and a compiled ``np.dot`` still works (it imports SciPy's
BLAS then, as numba always does). Each check runs in a fresh Python process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("numba")


def _run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


_KERNELS = """
import json, sys
import numpy as np
from lmdk_core.leakage.loss import loss_function
from lmdk_core.mechanisms import discrete_laplace as dl
from lmdk_core.mechanisms.entropy import EntropyStream
P = np.random.default_rng(0).dirichlet(np.ones(300), 300)
L = loss_function(P, prune=True)
s = EntropyStream(1 << 16)  # fixed words, enough for the draws (no refill)
s.words[:] = np.random.default_rng(7).integers(0, 2**63, s.words.size, dtype=np.uint64)
s.state[0] = 0
dl.FORCE_COMPILED = True
draws = dl.discrete_laplace(np.array([3], dtype=np.int64), np.array([0], dtype=np.int64),
                            np.zeros(2000, dtype=np.int64), s)
assert int(s.state[3]) == 0 and int(s.state[0]) < s.words.size
import numba.np.arraymath as am, numba.np.linalg as nl
loaded = "scipy.linalg" in sys.modules
from numba import njit
@njit
def dot(a, b):
    return np.dot(a, b)
print(json.dumps({"loaded": loaded, "L": L(1.0), "draws": draws[:50].tolist(),
                  "restored": am.ensure_blas is nl.ensure_blas
                  and nl.ensure_blas.__name__ == "ensure_blas",
                  "dot": float(dot(np.arange(4.0), np.arange(4.0))),
                  "numba": "numba" in sys.modules}))
"""


def test_kernels_load_without_scipy_linalg():
    got = _run(_KERNELS)
    assert got["numba"], "the kernels should have loaded numba"
    assert not got["loaded"], "numba's BLAS probe imported scipy.linalg"
    assert got["restored"]
    assert got["dot"] == 14.0


def test_same_numbers_as_with_the_probe():
    """The same loss function and draws when scipy.linalg was imported first (numba's
    probe then runs as usual)."""
    plain = _run(_KERNELS)
    probed = _run("import scipy.linalg\n" + _KERNELS)
    assert probed["loaded"]
    assert plain["L"] == probed["L"]
    assert plain["draws"] == probed["draws"]
