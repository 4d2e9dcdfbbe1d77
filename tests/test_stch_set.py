"""theorylab.multiobjective.stch: the jitted solver against its Python body and the numpy reference, the
scalarisations' sandwich and gradients (sympy, finite differences), the cvxpy optimum of the clustered instance
against scipy, reproducibility, a broken variant the sandwich check catches, and bad input."""

import numpy as np
import pytest

from theorylab.multiobjective import _kernels_stch as KR
from theorylab.multiobjective import stch as S

P_QUAD = S.quadratic_problem(4, 12, seed=3)
P_CLU = S.clustered_problem(m=20, K=4, n_dim=3, seed=1)


def test_method_codes_match_the_kernel():
    assert [S._METHOD_CODE[m] for m in S.METHODS] == [KR.METHOD_STCH_SET, KR.METHOD_TCH_SET, KR.METHOD_SOM,
                                                       KR.METHOD_STCH, KR.METHOD_TCH, KR.METHOD_LS]


@pytest.mark.parametrize("problem", [P_QUAD, P_CLU], ids=["lsq", "dist"])
def test_kernel_matches_its_python_body_and_the_numpy_reference(problem):
    K = 3
    rng = np.random.default_rng(0)
    X0 = rng.random((K, problem.n_dim))
    lam = S.dirichlet_preferences(K, problem.m, seed=1)
    kind = KR.KIND_LSQ if problem.kind == "least_squares" else KR.KIND_DIST
    for method in S.METHODS:
        mu = 0.1 if method == "stch_set" else 0.01
        a, b = np.empty_like(X0), np.empty_like(X0)
        ca, cb = np.empty(30), np.empty(30)
        KR.schedule_free(kind, problem.A, problem.b, S._METHOD_CODE[method], lam, mu, X0, 30, 1e-2, 10, 0.9, 1, a, ca)
        KR.schedule_free.py_func(kind, problem.A, problem.b, S._METHOD_CODE[method], lam, mu, X0, 30, 1e-2, 10, 0.9,
                                 1, b, cb)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(ca, cb, rtol=1e-12)
        c = S.solve_set_numpy(problem, K, method, n_steps=200, X0=X0, prefs=lam)
        d = S.solve_set(problem, K, method, n_steps=200, X0=X0, prefs=lam)
        np.testing.assert_allclose(c, d, rtol=1e-9, atol=1e-11, err_msg=method)


def test_curve_is_the_scalarisation_at_the_gradient_point():
    X, curve = S.solve_set(P_QUAD, 3, "stch_set", n_steps=5, warmup=0, return_curve=True, seed=2)
    X0 = S.initial_solutions(P_QUAD, 3, "uniform", seed=np.random.default_rng(2))
    assert curve[0] == pytest.approx(S.stch_set(S.evaluate(P_QUAD, X0), 0.1), rel=1e-12)


def test_mixed_linear_regression_problem():
    P = S.mixed_linear_regression_problem(n_dim=4, m=300, n_center=3, sigma=0.1, seed=0)
    assert P.labels.tolist()[:4] == [0, 1, 2, 0]
    # the planted centres solve their own objectives up to the noise: f_i(x_c(i)) = (sigma xi_i)^2
    centres = np.array([np.linalg.lstsq(P.A[P.labels == c], P.b[P.labels == c], rcond=None)[0] for c in range(3)])
    F = S.evaluate(P, centres)
    assert np.mean(F[P.labels, np.arange(300)]) == pytest.approx(0.01, rel=0.3)
    assert S.som(F) <= np.mean(F[P.labels, np.arange(300)]) + 1e-12


def test_same_seed_same_numbers():
    a = S.solve_set(P_CLU, 4, "stch_set", n_steps=100, init="gaussian", seed=7)
    b = S.solve_set(P_CLU, 4, "stch_set", n_steps=100, init="gaussian", seed=7)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(S.quadratic_problem(seed=4).A, S.quadratic_problem(seed=4).A)
    assert not np.array_equal(S.quadratic_problem(seed=4).A, S.quadratic_problem(seed=5).A)


def test_sandwich_and_its_extremes():
    rng = np.random.default_rng(0)
    for K, m, mu in ((1, 2, 0.5), (3, 7, 0.1), (10, 50, 0.01), (4, 300, 2.0)):
        lo, hi = S.smoothing_bounds(K, m, mu)
        for _ in range(20):
            F = rng.normal(size=(K, m)) * 3
            gap = S.stch_set(F, mu) - S.tch_set(F)
            assert lo - 1e-12 <= gap <= hi + 1e-12
        low, high = S.sandwich_extremes(K, m, level=1.0, spread=60 * mu)
        assert S.stch_set(low, mu) - S.tch_set(low) == pytest.approx(lo, abs=1e-12)
        assert S.stch_set(high, mu) - S.tch_set(high) == pytest.approx(hi, abs=1e-12)
    # mu -> 0: STCH-Set -> TCH-Set; ideal point shifts both by the same amount when z is constant
    F = rng.random((4, 9))
    assert S.stch_set(F, 1e-6) == pytest.approx(S.tch_set(F), abs=1e-5)
    assert S.stch_set(F, 0.1, ideal=np.full(9, 0.3)) == pytest.approx(S.stch_set(F, 0.1) - 0.3, abs=1e-12)
    assert S.tch_set(F) == F.min(0).max() and S.som(F) == pytest.approx(F.min(0).mean())


def test_single_solution_tch_and_stch():
    rng = np.random.default_rng(1)
    f = rng.random(6)
    lam = S.dirichlet_preferences(1, 6, seed=2)[0]
    assert S.tch(f, lam) == pytest.approx(np.max(lam * f))
    assert 0 <= S.smooth_tch(f, lam, 0.05) - S.tch(f, lam) <= 0.05 * np.log(6) + 1e-15
    g = S.smooth_tch_grad(f, lam, 0.05)
    h = 1e-6
    fd = [(S.smooth_tch(f + h * e, lam, 0.05) - S.smooth_tch(f - h * e, lam, 0.05)) / (2 * h) for e in np.eye(6)]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)
    assert S.smooth_tch(np.vstack([f, f]), np.vstack([lam, lam]), 0.05).shape == (2,)


def test_stch_set_gradient_against_sympy():
    import sympy as sp

    expr, F, mu = S.stch_set_sympy(2, 2)
    vals = {F[k][i]: sp.Rational(k + 2 * i + 1, 7) for k in range(2) for i in range(2)}
    vals[mu] = sp.Rational(1, 3)
    num = np.array([[float(vals[F[k][i]]) for i in range(2)] for k in range(2)])
    g = S.stch_set_grad(num, 1 / 3)
    for k in range(2):
        for i in range(2):
            assert float(sp.diff(expr, F[k][i]).subs(vals)) == pytest.approx(g[k, i], rel=1e-12)
    assert g.sum() == pytest.approx(1.0) and np.all(g >= 0)
    W = S.tch_set_subgrad(num)
    assert W.sum() == 1.0 and W[num[:, int(num.min(0).argmax())].argmin(), int(num.min(0).argmax())] == 1.0


def test_min_enclosing_ball_against_scipy():
    from scipy.optimize import minimize

    pts = np.random.default_rng(3).normal(size=(15, 3))
    c, r = S.min_enclosing_ball(pts)
    x0 = np.r_[pts.mean(0), 3.0]
    cons = {"type": "ineq", "fun": lambda v: v[3] ** 2 - ((pts - v[:3]) ** 2).sum(1)}
    ref = minimize(lambda v: v[3], x0, constraints=[cons], method="SLSQP", options=dict(ftol=1e-12, maxiter=500))
    assert r == pytest.approx(ref.x[3], rel=1e-6)
    c1, r1 = S.min_enclosing_ball(pts[:1])
    assert r1 == 0.0 and np.array_equal(c1, pts[0])


def test_clustered_optimum_is_attained_and_not_beaten():
    opt = S.clustered_optimum(P_CLU)
    assert S.tch_set(S.evaluate(P_CLU, opt["centres"])) == pytest.approx(opt["opt"], rel=1e-6)
    rng = np.random.default_rng(0)
    for _ in range(200):     # no perturbation of the optimal set does better (up to the SOCP's accuracy)
        X = opt["centres"] + 0.05 * rng.normal(size=opt["centres"].shape)
        assert S.tch_set(S.evaluate(P_CLU, X)) >= opt["opt"] * (1 - 1e-6)
    idx = S.farthest_point_indices(P_CLU.minimisers, 4, seed=0)
    assert sorted(P_CLU.labels[idx]) == [0, 1, 2, 3]
    X = S.solve_set(P_CLU, 4, "stch_set", mu=0.01, n_steps=3000, init="farthest", seed=0)
    gap = S.tch_set(S.evaluate(P_CLU, X)) - opt["opt"]
    assert -1e-6 <= gap <= 0.01 * np.log(20 * 4)
    with pytest.raises(ValueError, match="separated"):
        S.clustered_optimum(S.clustered_problem(m=20, K=4, n_dim=2, box=1.0, radius=1.0, seed=0))


def test_concentrated_starts_leave_solutions_idle():
    """Errata: from starts far from the clusters, most solutions get (numerically) zero weight and never move."""
    P = S.clustered_problem(m=50, K=5, n_dim=10, seed=2)
    X0 = S.initial_solutions(P, 5, "gaussian", seed=0)
    X = S.solve_set(P, 5, "stch_set", mu=0.01, n_steps=2000, X0=X0)
    served = np.unique(S.evaluate(P, X).argmin(0))
    idle = np.setdiff1d(np.arange(5), served)
    assert idle.size >= 2
    np.testing.assert_allclose(X[idle], X0[idle], atol=1e-12)


def test_mutation_flipped_inner_smooth_min_is_caught(broken_claim):
    """Broken variant: the inner smooth min over solutions replaced by a smooth max (sign flip inside the
    log-sum-exp).  The ci sandwich claim must say "not reproduced"."""
    def broken(F, mu):
        s = mu * S._lse(F / mu, 0)
        return s, mu * S._lse(s / mu, 0)

    r = broken_claim("stch_set:sandwich_exact", (S, "_inner_outer"), broken, overrides={"n_per_cell": 2})
    assert r.verdict == "not reproduced", r.measured


def test_divergence_is_reported():
    from theorylab.core.validate import SimulationDiverged

    with pytest.raises(SimulationDiverged, match="lr"):
        S.solve_set(P_QUAD, 3, "ls", lr=50.0, n_steps=2000, warmup=0, seed=0)


F3 = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("call, name", [
    (lambda: S.stch_set(F3, 0.0), "mu"), (lambda: S.stch_set(F3, -1.0), "mu"), (lambda: S.stch_set(F3, np.nan), "mu"),
    (lambda: S.stch_set(np.ones((0, 3)), 0.1), "values"), (lambda: S.tch_set([[np.inf]]), "values"),
    (lambda: S.stch_set_grad("abc", 0.1), "values"),
    (lambda: S.tch(F3[0], [0.5, 0.6, 0.0, 0.0]), "weights"), (lambda: S.tch(F3[0], [1.5, -0.5, 0, 0]), "weights"),
    (lambda: S.smooth_tch(F3, np.full((3, 4), 0.2), 0.1), "weights"), (lambda: S.smooth_tch(F3[0], [1.0], 0.1), "weights"),
    (lambda: S.smooth_tch(F3[0], [0.25] * 4, 0.0), "mu"), (lambda: S.stch_set(F3, 0.1, ideal=[1.0]), "ideal"),
    (lambda: S.smoothing_bounds(0, 5, 0.1), "K"), (lambda: S.smoothing_bounds(2, 0, 0.1), "m"),
    (lambda: S.smoothing_bounds(2, 5, 0.0), "mu"),
    (lambda: S.solve_set(P_QUAD, 0), "K"), (lambda: S.solve_set(P_QUAD, 13), "K"),
    (lambda: S.solve_set(P_QUAD, 2, "adam"), "method"), (lambda: S.solve_set(P_QUAD, 2, mu=0.0), "mu"),
    (lambda: S.solve_set(P_QUAD, 2, lr=-1.0), "lr"), (lambda: S.solve_set(P_QUAD, 2, n_steps=0), "n_steps"),
    (lambda: S.solve_set(P_QUAD, 2, momentum=1.0), "momentum"), (lambda: S.solve_set(P_QUAD, 2, init="zeros"), "init"),
    (lambda: S.solve_set(P_QUAD, 2, X0=np.ones((3, 4))), "X0"),
    (lambda: S.solve_set(P_QUAD, 2, "stch", prefs=np.ones((2, 12))), "prefs"),
    (lambda: S.solve_set("quad", 2), "problem"), (lambda: S.solve_set_numpy(P_QUAD, 2, n_steps=10**9), "n_steps"),
    (lambda: S.quadratic_problem(m=1), "m"), (lambda: S.dirichlet_preferences(0, 5), "K"),
    (lambda: S.clustered_problem(m=10, K=11), "K"), (lambda: S.clustered_problem(radius=0.0), "radius"),
    (lambda: S.least_squares_problem(np.zeros((2, 2)), [1.0, 1.0]), "A"),
    (lambda: S.least_squares_problem(np.ones((2, 2)), [1.0]), "b"),
    (lambda: S.clustered_optimum(P_QUAD), "problem"), (lambda: S.min_enclosing_ball(np.ones(3)), "points"),
    (lambda: S.farthest_point_indices(np.ones((3, 2)), 4), "K"), (lambda: S.evaluate(P_QUAD, np.ones((2, 3))), "X"),
    (lambda: S.sandwich_extremes(2, 3, spread=0.0), "spread"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()
