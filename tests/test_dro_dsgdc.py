"""theorylab.stochastic.dro (partial): dual = primal, derivatives vs finite differences, bad input."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from theorylab.stochastic import dro as D

rng = np.random.default_rng(0)
A, b, x = rng.normal(size=(50, 4)), rng.normal(size=50), rng.normal(size=4)


def test_dual_min_equals_primal():
    for lam in (0.5, 1.0, 3.0):
        res = minimize_scalar(lambda e: D.dual_objective(A, b, x, e, lam=lam)[0], bounds=(-50, 50),
                              method="bounded", options={"xatol": 1e-10})
        assert abs(res.fun - D.primal_value(A, b, x, lam=lam)) < 1e-6


def test_derivatives_match_finite_differences():
    h, eta = 1e-6, 0.3
    L, gx, ge, H, hee = D.dual_objective(A, b, x, eta)
    E = np.eye(4)
    fd = np.array([(D.dual_objective(A, b, x + h * e, eta)[0] - D.dual_objective(A, b, x - h * e, eta)[0]) / (2 * h)
                   for e in E])
    np.testing.assert_allclose(gx, fd, rtol=1e-5, atol=1e-7)
    fdH = np.array([(D.dual_objective(A, b, x + h * e, eta)[1] - D.dual_objective(A, b, x - h * e, eta)[1]) / (2 * h)
                    for e in E])
    np.testing.assert_allclose(H, fdH, rtol=1e-4, atol=1e-6)
    assert 0 <= hee <= 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="lam"):
        D.dual_objective(A, b, x, 0.0, lam=-1.0)
    with pytest.raises((ValueError, TypeError), match="eta"):
        D.dual_objective(A, b, x, np.nan)
    with pytest.raises((ValueError, TypeError), match="x"):
        D.dual_objective(A, b, np.ones(3), 0.0)
