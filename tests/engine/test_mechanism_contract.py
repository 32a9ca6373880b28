"""Every mechanism implements the one contract (lmdk_core.mechanisms.base.Mechanism), and
the engine dispatches on it, never on concrete classes.

Statistical checks use fixed seeds and state their tolerance: the empirical law of the
error against ``error_cdf`` by the Dvoretzky–Kiefer–Wolfowitz bound at δ = 1e-3, and the
mean error against ``expected_error`` within 6 standard errors.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

from lmdk_core import mechanisms
from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms import (
    Exponential,
    Geometric,
    Laplace,
    Mechanism,
    PlanarLaplace,
    RandomizedResponse,
)
from lmdk_core.mechanisms.geometric import ExactGeometric
from lmdk_core.mechanisms.laplace import ExactLaplace

ROOT = Path(__file__).resolve().parents[2]
N = 20_000
DKW = float(np.sqrt(np.log(2 / 1e-3) / (2 * N)))  # P(sup|ECDF − CDF| > DKW) ≤ 1e-3


def _cases():
    """(mechanism, true values, ε, values= for the error law) of every mechanism."""
    utilities = np.array([0.0, -1.0, -2.5, -0.3])
    return [
        (Laplace(2.0), np.linspace(-5, 5, N), 0.7, None),
        (Geometric(2), np.arange(N, dtype=float) % 17, 0.9, None),
        (PlanarLaplace(80.0), np.tile([[48.85, 2.35]], (N, 1)), 1.3, None),
        (RandomizedResponse(4), np.arange(N) % 4, 0.8, None),
        (Exponential(1.5), np.tile(utilities, (N, 1)), 2.0, utilities),
    ]


def _truth(mech, x, values):
    """What the release is compared with: the data, or for the Exponential mechanism the
    best utility (its error is the utility loss)."""
    return np.full(x.shape[0], values.max()) if values is not None else x


def test_every_mechanism_is_a_mechanism_and_the_base_is_abstract():
    classes = [c for _, c in inspect.getmembers(mechanisms, inspect.isclass)
               if c is not Mechanism]
    assert {c.__name__ for c in classes} >= {"Laplace", "Geometric", "PlanarLaplace",
                                             "RandomizedResponse", "Exponential"}
    for cls in [*classes, ExactLaplace, ExactGeometric]:
        assert issubclass(cls, Mechanism), cls
        assert not inspect.isabstract(cls), cls
        assert cls.name and cls.label and cls.data_kind
    with pytest.raises(TypeError):
        Mechanism()  # abstract


@pytest.mark.parametrize("mech,x,eps,values", _cases(), ids=lambda c: type(c).__name__)
def test_the_error_follows_error_cdf_and_expected_error(mech, x, eps, values):
    out = mech.perturb(x, eps, rng=np.random.default_rng(17))
    if values is not None:  # Exponential: the selected candidates' utilities
        out = values[out]
    err = np.asarray(mech.distance(out, _truth(mech, x, values)), dtype=float).ravel()
    grid = np.quantile(err, np.linspace(0, 1, 60))
    ecdf = np.searchsorted(np.sort(err), grid, side="right") / err.size
    cdf = mech.error_cdf(grid, eps, values=values)
    assert np.max(np.abs(ecdf - cdf)) < DKW
    mean = float(np.ravel(mech.expected_error(eps, values=values))[0])
    assert abs(err.mean() - mean) < 6 * err.std() / np.sqrt(err.size) + 1e-12
    # the law can be told apart: at 3× the budget it is rejected
    assert np.max(np.abs(ecdf - mech.error_cdf(grid, 3 * eps, values=values))) > DKW


@pytest.mark.parametrize("mech,x,eps,values", _cases(), ids=lambda c: type(c).__name__)
def test_scale_shrinks_with_epsilon_and_budgets_are_checked(mech, x, eps, values):
    s = np.asarray(mech.scale([0.5, 1.0, 2.0]))
    assert np.all(np.isfinite(s)) and np.all(np.diff(s) < 0)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(InputError):
            mech.perturb(x[:3], bad, rng=0)
    with pytest.raises(InputError):
        mech.perturb(x[:3], [eps] * 4, rng=0)  # one ε per element, or one for all


def test_inputs_are_checked_before_anything_is_drawn():
    """A refused input leaves the generator untouched (diffprivlib's check-all first)."""
    bad = [(Laplace(1.0), [0.0, 1.0], 1e-305), (Geometric(1), [0.5], 1.0),
           (PlanarLaplace(10.0), [[91.0, 0.0]], 1.0), (RandomizedResponse(2), [2], 1.0),
           (Exponential(1.0), [np.nan, 1.0], 1.0)]
    for mech, x, eps in bad:
        gen = np.random.default_rng(3)
        state = gen.bit_generator.state
        with pytest.raises(InputError):
            mech.perturb(x, eps, gen)
        assert gen.bit_generator.state == state, type(mech).__name__


def test_exact_samplers_are_declared():
    assert Laplace(1.0).exact_sampler is not None and Laplace(1.0).noise == "fast"
    assert isinstance(Laplace(2.0).exact(), ExactLaplace) and Laplace(2.0).exact().sensitivity == 2
    assert isinstance(Geometric(3).exact(), ExactGeometric)
    ex = ExactLaplace(1.0)
    assert ex.exact() is ex and ex.noise == "exact" and ex.numpy_draws is None
    for mech in (PlanarLaplace(10.0), RandomizedResponse(3), Exponential(1.0)):
        assert mech.exact_sampler is None and mech.exact() is None
    assert not ExactLaplace(1.0).can_presample and Laplace(1.0).can_presample


def test_single_step_defaults_draw_what_perturb_draws():
    """The base class's perturb_one / distance_one (used by mechanisms that do not
    override them) are perturb / distance on one element."""
    rr = RandomizedResponse(5)
    for seed in range(20):
        a = rr.perturb([3], 0.4, np.random.default_rng(seed))[0]
        b = Mechanism.perturb_one(rr, 3, 0.4, np.random.default_rng(seed))
        assert a == b
    assert Mechanism.distance_one(rr, 1, 2) == 1.0


def test_exponential_perturb_is_select():
    u = np.array([0.0, -1.0, -3.0])
    mech = Exponential(2.0)
    for seed in range(20):
        assert mech.select(u, 1.5, seed) == int(mech.perturb(u, 1.5, seed))
    with pytest.raises(InputError, match="utilities"):
        mech.expected_error(1.0)


def _mechanism_class_checks(path: Path) -> list[str]:
    """``type(x) is <Mechanism class>`` and ``isinstance(x, <Mechanism class>)`` in a
    source file."""
    names = {"Laplace", "Geometric", "PlanarLaplace", "RandomizedResponse", "Exponential",
             "ExactLaplace", "ExactGeometric"}
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Call) and \
                getattr(node.left.func, "id", None) == "type":
            found += [f"{path}:{node.lineno}" for c in node.comparators
                      if getattr(c, "id", None) in names]
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            kinds = node.args[1] if len(node.args) > 1 else None
            elts = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
            found += [f"{path}:{node.lineno}" for k in elts if getattr(k, "id", None) in names]
    return found


def test_the_engine_never_dispatches_on_a_mechanism_class():
    """release, adaptive, population, CLI and pages ask mechanisms for capabilities
    (``numpy_draws``, ``noise``, ``exact_sampler``, ``data_kind`` …), not their class."""
    files = [p for d in ("lmdk_core", "app_pages", "app_support") for p in (ROOT / d).rglob("*.py")
             if "mechanisms" not in p.parts]
    hits = [h for p in files for h in _mechanism_class_checks(p)]
    assert hits == []
