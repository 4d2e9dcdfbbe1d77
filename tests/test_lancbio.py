"""lancbio: Lanczos / CG against an explicit Krylov-basis Galerkin solve and a dense solve, the bilevel oracles
against finite differences, the authors' restart rule and HVP counts in closed form, the baselines' costs,
reproducibility, bad input, and broken variants the claims catch."""

import numpy as np
import pytest

from theorylab.core import SimulationDiverged
from theorylab.krylov import bilevel as B
from theorylab.krylov import lanczos as L


@pytest.fixture(scope="module")
def spd():
    rng = np.random.default_rng(5)
    U, _ = np.linalg.qr(rng.standard_normal((12, 12)))
    H = (U * np.geomspace(1, 50, 12)) @ U.T
    return 0.5 * (H + H.T), rng.standard_normal(12)


def krylov_galerkin(H, r, j):
    """The minimiser of the H-norm error over K_j(H, r) from an explicit (QR-orthonormalised) power basis."""
    K = np.column_stack([np.linalg.matrix_power(H, i) @ r for i in range(j)])
    Q, _ = np.linalg.qr(K)
    return Q @ np.linalg.solve(Q.T @ H @ Q, Q.T @ r)


def test_lanczos_and_cg_are_the_krylov_galerkin_solution(spd):
    H, r = spd
    la, cg = L.lanczos_iterates(H, r, 6), L.cg_iterates(H, r, 6)
    laf = L.lanczos_iterates(H, r, 6, reorth="full")
    for j in range(1, 7):
        ref = krylov_galerkin(H, r, j)
        for got in (la[j - 1], cg[j - 1], laf[j - 1]):
            np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(L.cg_iterates(H, r, 12)[-1], np.linalg.solve(H, r), rtol=1e-6)
    np.testing.assert_allclose(L.lanczos_iterates(H, r, 12, reorth="full")[-1], np.linalg.solve(H, r), rtol=1e-6)


def test_lanczos_relation_and_orthogonality(spd):
    H, r = spd
    Q, a, b = L.lanczos_basis(H, r, 8, reorth="full")
    T = np.diag(a) + np.diag(b[:-1], 1) + np.diag(b[:-1], -1)
    np.testing.assert_allclose(H @ Q[:, :8], Q[:, :8] @ T + np.outer(Q[:, 8], np.eye(8)[-1]) * b[-1], atol=1e-10)
    np.testing.assert_allclose(Q.T @ Q, np.eye(9), atol=1e-12)


def test_hvp_counter_and_cg_bound(spd):
    H, r = spd
    op = L.HVPCounter(H)
    L.cg_iterates(op, r, 5)
    assert op.calls == 5
    L.lanczos_basis(op, r, 4)
    assert op.calls == 9
    np.testing.assert_allclose(L.cg_error_bound(9.0, [0, 1, 3]), 2 * 0.5 ** np.array([0, 1, 3]))


def test_quadratic_hypergradient_closed_form_and_fd():
    P = B.quadratic_bilevel(15, kappa=20.0, coupling="gaussian", dx=6, mu_x=0.3, seed=1)
    x = np.linspace(-1, 1, 6)
    y = np.linalg.solve(P.H, P.B @ x)
    want = 0.3 * x + P.B.T @ np.linalg.solve(P.H, y - P.c)       # the plus sign of the corrected formula
    np.testing.assert_allclose(P.hypergradient(x), want, rtol=1e-10)
    h = 1e-5
    fd = [(P.phi(x + h * e) - P.phi(x - h * e)) / (2 * h) for e in np.eye(6)]
    np.testing.assert_allclose(P.hypergradient(x), fd, rtol=1e-6, atol=1e-8)
    assert P.kappa == pytest.approx(20.0, rel=1e-8)


def test_logistic_oracles_against_finite_differences():
    P = B.logistic_hyperparameter(40, 30, 5, seed=2)
    rng = np.random.default_rng(0)
    x, y, v = rng.standard_normal(5) - 1, rng.standard_normal(5), rng.standard_normal(5)
    h = 1e-6
    E = np.eye(5)
    gy = lambda x, y: P.grad_y_g(x, y)
    np.testing.assert_allclose(P.hvp_yy(x, y, v), (gy(x, y + h * v) - gy(x, y - h * v)) / (2 * h), rtol=1e-6)
    jac = np.array([(gy(x + h * e, y) - gy(x - h * e, y)) / (2 * h) @ v for e in E])
    np.testing.assert_allclose(P.jvp_xy(x, y, v), jac, rtol=1e-6, atol=1e-10)
    fy = [(P.f_value(x, y + h * e) - P.f_value(x, y - h * e)) / (2 * h) for e in E]
    np.testing.assert_allclose(P.grad_y_f(x, y), fy, rtol=1e-6, atol=1e-10)
    assert np.linalg.norm(P.grad_y_g(x, P.y_star(x))) < 1e-12
    g = P.hypergradient(x)
    fd = [(P.phi(x + 1e-4 * e) - P.phi(x - 1e-4 * e)) / 2e-4 for e in E]
    np.testing.assert_allclose(g, fd, rtol=1e-4, atol=1e-8)


def test_restart_schedule_is_the_codes_rule():
    ms, flags = B.restart_schedule(200)
    assert list(ms[:18]) == [1] * 18 and flags[:18].all()               # m = 1: restart every step
    assert ms[18] == 2 and flags[18]                                      # k = 19: m -> 2, 19 % 2 == 1
    seq = [int(ms[k - 1]) for k in range(19, 200, 20)]
    assert seq == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]                        # float32: ceil(10 x 1.1) = 11
    ms, flags = B.restart_schedule(50, m0=7, dim_inc=1.0)
    np.testing.assert_array_equal(np.flatnonzero(flags) + 1, np.arange(1, 51, 7))


@pytest.mark.parametrize("m", [1, 2, 3, 9])
def test_lancbio_hvp_count_closed_form(m):
    P = B.quadratic_bilevel(30, kappa=10.0, seed=3)
    K = 61
    run = B.lancbio(P, K, T=1, theta=0.05, lam=0.1, m0=m, dim_inc=1.0, track=False)
    assert run.hvps == (2 * K if m == 1 else K + (K - 1) // m + 1)
    assert run.restarts == tuple(k for k in range(1, K + 1) if m == 1 or k % m == 1)


def test_baseline_costs_and_neumann_limit():
    P = B.quadratic_bilevel(20, kappa=5.0, seed=4)
    assert B.cg_bilevel(P, 7, cg_steps=3, track=False).hvps == 7 * 4
    assert B.cg_bilevel(P, 7, cg_steps=3, warm_start=False, track=False).hvps == 7 * 3
    assert B.neumann_bilevel(P, 7, neumann_steps=4, track=False).hvps == 7 * 3
    x = np.ones(20)
    y = P.y_star(x)
    run = B.neumann_bilevel(P, 1, T=0, lam=0.0, neumann_steps=2000, eta=0.1, x0=x, y0=y, track=False)
    np.testing.assert_allclose(run.v, np.linalg.solve(P.H, P.grad_y_f(x, y)), rtol=1e-8)
    cold = B.cg_bilevel(P, 1, T=0, lam=0.0, cg_steps=20, warm_start=False, x0=x, y0=y, track=False)
    np.testing.assert_allclose(cold.v, np.linalg.solve(P.H, P.grad_y_f(x, y)), rtol=1e-8)


def test_lancbio_converges_and_reproduces():
    P = B.quadratic_bilevel(40, kappa=10.0, seed=6)
    run = B.lancbio(P, 150, T=10, theta=0.1, lam=0.5, dim_max=20, seed=1)
    assert run.grad_norm2[-1] < 1e-8 * run.grad_norm2[0]     # GD on phi contracts by 1 - 0.055 a step
    np.testing.assert_allclose(run.v, np.linalg.solve(P.H, P.grad_y_f(run.x, run.y)), rtol=1e-4)
    again = B.lancbio(P, 150, T=10, theta=0.1, lam=0.5, seed=1)
    np.testing.assert_array_equal(run.x, again.x)
    assert not np.array_equal(run.x, B.lancbio(P, 150, T=10, theta=0.1, lam=0.5, seed=2).x)
    assert run.summed_grad_norm2[-1] == pytest.approx(run.grad_norm2.sum())


@pytest.mark.filterwarnings("ignore:overflow")
def test_divergence_is_raised():
    P = B.quadratic_bilevel(10, kappa=10.0, seed=0)
    with pytest.raises(SimulationDiverged, match="lancbio"):
        B.lancbio(P, 2000, T=1, theta=1.0, lam=1.0, track=False)


@pytest.mark.parametrize("call, name", [
    (lambda: L.check_spd("H", -np.eye(3)), "H"),
    (lambda: L.check_spd("H", np.array([[1.0, 2.0], [0.0, 1.0]])), "symmetric"),
    (lambda: L.lanczos_basis(np.eye(3), np.ones(3), 0), "steps"),
    (lambda: L.lanczos_basis(np.eye(3), np.ones(3), 4), "steps"),
    (lambda: L.lanczos_basis(np.eye(3), np.zeros(3), 2), "r"),
    (lambda: L.lanczos_basis(np.eye(3), np.ones(3), 2, reorth="partial"), "reorth"),
    (lambda: L.cg_iterates(np.eye(3), np.ones(2), 2), "r"),
    (lambda: L.cg_error_bound(0.5, 1), "kappa"),
    (lambda: B.quadratic_bilevel(1), "n"),
    (lambda: B.quadratic_bilevel(5, kappa=0.5), "kappa"),
    (lambda: B.quadratic_bilevel(5, dx=3), "dx"),
    (lambda: B.QuadraticBilevel(np.diag([1.0, -1.0]), np.eye(2), np.zeros(2)), "H"),
    (lambda: B.QuadraticBilevel(np.eye(2), np.eye(3), np.zeros(2)), "B"),
    (lambda: B.LogisticHyperparameter(np.ones((3, 2)), np.array([1, 0, 1]), np.ones((2, 2)), np.ones(2)), "b_train"),
    (lambda: B.lancbio("P", 10), "problem"),
    (lambda: B.lancbio(B.quadratic_bilevel(5), 0), "K"),
    (lambda: B.lancbio(B.quadratic_bilevel(5), 10, m0=0), "m0"),
    (lambda: B.lancbio(B.quadratic_bilevel(5), 10, lam=float("nan")), "lam"),
    (lambda: B.lancbio(B.quadratic_bilevel(5), 10, x0=np.full(5, np.inf)), "x0"),
    (lambda: B.cg_bilevel(B.quadratic_bilevel(5), 10, cg_steps=0), "cg_steps"),
    (lambda: B.neumann_bilevel(B.quadratic_bilevel(5), 10, eta=0.0), "eta"),
    (lambda: B.quadratic_bilevel(5).hypergradient(np.ones(4)), "x"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


def test_mutation_spec_sign_is_caught(broken_claim):
    """The spec's minus: grad^2_xy g = +B^T (so grad phi = grad_x f - B^T H^{-1} grad_y f)."""
    r = broken_claim("lancbio:hypergradient_matches_fd", (B.QuadraticBilevel, "_jxy"),
                     lambda self, x, y, v: self.B.T @ v)
    assert r.verdict == "not reproduced", r.measured


def test_mutation_double_hvp_at_restart_is_caught(broken_claim):
    """A restart that spends two HVPs (e.g. one more H v_bar for the residual) breaks the exact count."""
    real_lancbio = B.lancbio

    def lancbio_extra(problem, K=1000, **kw):
        run = real_lancbio(problem, K, **kw)
        return B.BilevelRun(run.method, run.x, run.y, run.v, run.grad_norm2, run.residual,
                            run.hvps + len(run.restarts), run.restarts, run.m)

    r = broken_claim("lancbio:hvp_count_matches_restart_rule", (B, "lancbio"), lancbio_extra)
    assert r.verdict == "not reproduced", r.measured


def test_mutation_biased_solver_is_caught(broken_claim):
    """A biased hypergradient solve (a 3-term Neumann series in place of the Lanczos solve) converges to a point
    with grad phi != 0, so S_K keeps growing."""
    def biased(problem, K=1000, **kw):
        return B.neumann_bilevel(problem, K, T=kw["T"], theta=kw["theta"], lam=kw["lam"], neumann_steps=3,
                                 eta=kw["theta"], seed=kw.get("seed", 0))

    r = broken_claim("lancbio:summed_gradnorm_bounded", (B, "lancbio"), biased)
    assert r.verdict == "not reproduced", r.measured
