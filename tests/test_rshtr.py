"""theorylab.krylov.subspace (paper rshtr): the homogenised eigenproblem against numpy's eigh and its derived
identities, HSODM against Newton's step, the sketches, the objectives against finite differences, the one-step
ratio against an explicit projector, bad input, and broken variants the claims catch."""

import numpy as np
import pytest

from theorylab.krylov import subspace as S


def _rand_sym(m, seed):
    M = np.random.default_rng(seed).standard_normal((m, m))
    return 0.5 * (M + M.T)


@pytest.mark.parametrize("delta", [0.0, 0.3])
def test_homogenized_direction_is_the_leftmost_eigenvector(delta):
    rng = np.random.default_rng(1)
    H, g = _rand_sym(7, 2), rng.standard_normal(7)
    D = S.homogenized_direction(g, H, delta)
    F = np.block([[H, g[:, None]], [g[None, :], -delta * np.ones((1, 1))]])
    w, V = np.linalg.eigh(F)
    assert D.theta == pytest.approx(w[0], abs=1e-12)
    v = V[:, 0] / V[-1, 0]
    np.testing.assert_allclose(D.d, v[:-1], rtol=1e-9, atol=1e-12)
    # derived identities: (H - theta I) d = -g, g^T d = delta + theta, theta <= -delta
    np.testing.assert_allclose((H - D.theta * np.eye(7)) @ D.d, -g, atol=1e-10)
    assert g @ D.d == pytest.approx(delta + D.theta, abs=1e-10)
    assert D.theta <= -delta
    L = S.homogenized_direction(g, H, delta, solver="lanczos")
    np.testing.assert_allclose(L.d, D.d, rtol=1e-7, atol=1e-10)


def test_curvature_direction_when_t_is_small():
    H = np.diag([-1.0, 2.0])
    g = np.array([0.0, 1e-6])            # leftmost eigenvector ~ e_1: t ~ 0 -> the curvature direction
    D = S.homogenized_direction(g, H, 0.0)
    assert not D.newton and abs(abs(D.d[0]) - 1) < 1e-9 and g @ D.d <= 0


def test_hsodm_step_is_newton_up_to_third_order():
    Q = S.full_rank_quadratic(30, cond=5.0, w=1.0, seed=3)
    for scale in (1e-1, 1e-2, 1e-3):
        x = scale * np.random.default_rng(4).standard_normal(30)
        g, H = Q.grad(x), Q.hess(x)
        newton = np.linalg.solve(H, -g)
        tr = S.hsodm(Q, x, n_iter=1, radius=1e6, radius_max=1e6)
        err = np.linalg.norm(tr.X[1] - x - newton)
        assert err <= 10 * np.linalg.norm(g) ** 3


def test_sketches():
    P = S.sketch(50, 7, "orthonormal", seed=1)
    np.testing.assert_allclose(P @ P.T, np.eye(7), atol=1e-12)
    C = S.sketch(50, 7, "coordinate", seed=1)
    assert (C.sum(1) == 1).all() and len(set(np.argmax(C, 1))) == 7 and set(np.unique(C)) == {0.0, 1.0}
    G = np.mean([S.sketch(20, 4, "gaussian", seed=k).T @ S.sketch(20, 4, "gaussian", seed=k) for k in range(2000)], 0)
    np.testing.assert_allclose(G, np.eye(20), atol=0.12)         # E P^T P = I; s.e. of an entry ~ 0.016
    np.testing.assert_array_equal(S.sketch(20, 4, seed=9), S.sketch(20, 4, seed=9))


@pytest.mark.parametrize("kind", S.H_KINDS)
def test_composite_derivatives_against_finite_differences(kind):
    P = S.rank_deficient(12, 4, kind=kind, seed=2)
    x, eps = 0.3 * np.random.default_rng(5).standard_normal(12), 1e-6
    E = np.eye(12)
    fd = np.array([(P.value(x + eps * e) - P.value(x - eps * e)) / (2 * eps) for e in E])
    np.testing.assert_allclose(P.grad(x), fd, rtol=1e-6, atol=1e-6)
    fdh = np.array([(P.grad(x + eps * e) - P.grad(x - eps * e)) / (2 * eps) for e in E])
    np.testing.assert_allclose(P.hess(x), fdh, rtol=1e-5, atol=1e-5)
    Pk = S.sketch(12, 5, seed=3)
    gs, Hs = P.sketched(x, Pk)
    np.testing.assert_allclose(gs, Pk @ P.grad(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Hs, Pk @ P.hess(x) @ Pk.T, rtol=1e-10, atol=1e-10)
    assert np.linalg.matrix_rank(P.hess(x)) <= 4


def test_exp_objective_is_accurate_near_its_minimum():
    P = S.rank_deficient(10, 3, seed=1)
    for u in (1e-3, 1e-8, 1e-12):
        x = P.U.T @ (P.c + u * np.array([1.0, -2.0, 0.5]))     # U U^T = I: U x - c = u (1, -2, 1/2)
        uu = P.U @ x - P.c
        exact = (np.exp(uu) - 1 - uu) if u > 1e-4 else uu ** 2 / 2 + uu ** 3 / 6
        assert P.value(x) == pytest.approx(exact.sum() + 0.5 * uu @ P.B @ uu, rel=1e-9)


def test_one_step_ratio_is_the_projection_residual():
    Q = S.full_rank_quadratic(40)
    x = 1e-4 * np.random.default_rng(6).standard_normal(40)
    for kind in S.SKETCHES:
        P = S.sketch(40, 6, kind, seed=11)
        Pi = P.T @ np.linalg.solve(P @ P.T, P)
        ref = np.sum(((np.eye(40) - Pi) @ x) ** 2) / np.sum(x ** 2)
        assert S.one_step_ratio(Q, x, 6, sketch_kind=kind, seed=11) == pytest.approx(ref, rel=1e-8)


def test_rshtr_converges_and_is_reproducible():
    P = S.rank_deficient(60, 4, seed=1)
    x0 = 0.5 * np.random.default_rng(2).standard_normal(60)
    a = S.rshtr(P, x0, 6, n_iter=30, ftol=1e-25, seed=3)
    b = S.rshtr(P, x0, 6, n_iter=30, ftol=1e-25, seed=3)
    assert a.table.f.iloc[-1] < 1e-8 and a.table.equals(b.table)
    assert a.X.shape == (len(a.table) + 1, 60) and a.steps.shape == (len(a.table), 60)


@pytest.mark.parametrize("call, arg", [
    (lambda: S.sketch(10, 0), "s"), (lambda: S.sketch(10, 11), "s"), (lambda: S.sketch(10, 2, "hadamard"), "kind"),
    (lambda: S.rshtr(S.rank_deficient(10, 3), np.zeros(10), 11), "s"),
    (lambda: S.rshtr(S.rank_deficient(10, 3), np.full(10, np.nan), 2), "x0"),
    (lambda: S.rshtr(S.rank_deficient(10, 3), np.zeros(9), 2), "x0"),
    (lambda: S.rshtr(S.rank_deficient(10, 3), np.zeros(10), 2, delta=-1.0), "delta"),
    (lambda: S.rshtr(S.rank_deficient(10, 3), np.zeros(10), 2, radius=0.0), "radius"),
    (lambda: S.homogenized_direction(np.ones(3), np.eye(2), 0.0), "H"),
    (lambda: S.homogenized_direction(np.ones(2), np.eye(2), 0.0, solver="qr"), "solver"),
    (lambda: S.rank_deficient(5, 6), "r"),
    (lambda: S.one_step_ratio(S.full_rank_quadratic(5), np.zeros(5), 2), "x"),
])
def test_bad_input_names_the_argument(call, arg):
    with pytest.raises((ValueError, TypeError), match=arg):
        call()


def test_non_finite_iterate_is_refused():
    P = S.rank_deficient(10, 3, kind="rosenbrock")
    with pytest.raises(TypeError, match="problem"):
        S.rshtr(object(), np.zeros(10), 2)
    with pytest.raises(ValueError, match="non-finite"), np.errstate(over="ignore", invalid="ignore"):
        S.rshtr(P, np.full(10, 1e200), 2, n_iter=2)


# --- broken simulators the claims catch (ci scale) ---------------------------------------------------------------

def _scaled(factor, sign=1.0, extra_delta=0.0):
    real = S.homogenized_direction

    def broken(g, H, delta, **kw):
        D = real(g, H, delta + extra_delta, **kw)
        return S.Direction(d=sign * factor * D.d, theta=D.theta, t=D.t, newton=D.newton)
    return broken


def test_missing_factor_is_caught_by_the_beta_law(broken_claim):
    """Half the homogenised step: the one-step ratio has mean 1 - 3s/(4n), not 1 - s/n."""
    r = broken_claim("rshtr:one_step_ratio_mean", (S, "homogenized_direction"), _scaled(0.5))
    assert r.verdict == "not reproduced", r.measured


def test_wrong_sign_is_caught_by_the_model_decrease(broken_claim):
    """d = -v/t (a sign slip): the model increases, m(eta d) > 0 > -delta eta^2 ||d||^2 / 2."""
    r = broken_claim("rshtr:model_decrease_every_step", (S, "homogenized_direction"), _scaled(1.0, sign=-1.0))
    assert r.verdict == "not reproduced", r.measured


def test_positive_delta_near_the_solution_is_caught_by_the_local_order(broken_claim):
    """delta kept at 0.5 near the solution: a regularised Newton step, linear convergence (slope ~1)."""
    r = broken_claim("rshtr:local_order_rank_deficient", (S, "homogenized_direction"), _scaled(1.0, extra_delta=0.5))
    assert r.verdict == "not reproduced", r.measured
