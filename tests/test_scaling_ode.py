import numpy as np
import pytest

from theorylab.core import SimulationDiverged
from theorylab.scaling import (eigenvalues, group_overlaps, init_weights, integrate_hierarchy, integrate_ode,
                               linear_eps, linear_eps_small_eta, plateau_fixed_point, simulate_sgd, spectrum,
                               trainable_final_error)
from theorylab.scaling import _kernels as kr


def test_eigenvalues_normalised_and_decreasing():
    lam = eigenvalues(16, 1.0)
    assert lam.mean() == pytest.approx(1.0)
    assert np.all(np.diff(lam) < 0)
    assert spectrum(32, 4, 1.0).size == 32


def test_i4_matches_monte_carlo():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4, 4))
    C = X @ X.T / 4 + 0.2 * np.eye(4)
    u = rng.multivariate_normal(np.zeros(4), C, size=400000)
    from scipy.special import erf
    g = erf(u / np.sqrt(2))
    gp = np.sqrt(2 / np.pi) * np.exp(-u ** 2 / 2)
    mc = gp[:, 0] * gp[:, 1] * g[:, 2] * g[:, 3]
    assert abs(kr.i4(C, 0, 1, 2, 3) - mc.mean()) < 5 * mc.std() / np.sqrt(mc.size)
    mc2 = (-u[:, 0] * gp[:, 0]) * g[:, 1]
    assert abs(kr.gpp_g(C[0, 0], C[1, 1], C[0, 1]) - mc2.mean()) < 5 * mc2.std() / np.sqrt(mc2.size)


def test_sgd_kernel_py_func_equals_jit():
    J, B = init_weights(16, 2, 2, seed=1)
    lam = spectrum(16, 4, 1.0)
    rec = np.array([0, 20, 40], dtype=np.int64)
    e1, s1 = kr.sgd_path(J, B, lam, 16, 0.1, True, rec, 7)
    e2, s2 = kr.sgd_path.py_func(J, B, lam, 16, 0.1, True, rec, 7)
    assert s1 == s2 == -1
    np.testing.assert_allclose(e1, e2, rtol=1e-9)


def test_sgd_same_seed_same_numbers_and_thread_independent():
    import numba
    kw = dict(N=32, L=4, alphas=[0, 1, 2], n_seeds=3, seed=5)
    a = simulate_sgd(**kw)
    n = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        b = simulate_sgd(**kw)
    finally:
        numba.set_num_threads(n)
    np.testing.assert_array_equal(a.eps_g.values, b.eps_g.values)


def test_ode_forms_agree():
    J, B = init_weights(60, 2, 2, seed=2)
    ov = group_overlaps(J, B, 3)
    al = np.array([0.0, 1.0, 5.0])
    e_grp = integrate_ode(L=3, overlaps=ov, alphas=al, h=0.02).eps_g.values
    e_ivp = integrate_ode(L=3, overlaps=ov, alphas=al, method="solve_ivp").eps_g.values
    e_h = integrate_hierarchy(ov, beta=1.0, eta=0.1, K=2, M=2, alphas=al, h=0.02)
    np.testing.assert_allclose(e_grp, e_ivp, rtol=1e-6)
    np.testing.assert_allclose(e_grp, e_h, rtol=1e-6)


def test_linear_ode_matches_closed_form():
    L = 4
    al = np.array([0.0, 2.0, 10.0])
    q = np.zeros((L, 1, 1)); r = np.zeros((L, 1, 1)); t = np.ones((L, 1, 1))
    e = integrate_ode(L=L, K=1, M=1, activation="linear", overlaps=(q, r, t), alphas=al, eta=0.3, h=0.01).eps_g.values
    np.testing.assert_allclose(e, linear_eps(al, L=L, beta=1.0, eta=0.3), rtol=1e-6)
    assert linear_eps_small_eta([0.0], L=L, beta=1.0, eta=0.3)[0] == pytest.approx(0.5)
    assert trainable_final_error([0], N=8, beta=1.0, eta=0.1)[0] == pytest.approx(0.5)


def test_plateau_fixed_point_k2():
    fp = plateau_fixed_point(K=2, M=2)
    assert fp["Q"] == pytest.approx(1 / 3) and fp["R"] == pytest.approx(1 / np.sqrt(6))


@pytest.mark.parametrize("kw, match", [
    (dict(N=30, L=4), "L must divide N"),
    (dict(beta=0.0), "beta must be"),
    (dict(beta=-1.0), "beta must be"),
    (dict(K=0), "K must be"),
    (dict(M=0), "M must be"),
    (dict(eta=2.0, activation="linear"), "eta must be in \\(0, 2\\)"),
    (dict(activation="relu"), "activation must be"),
])
def test_bad_input(kw, match):
    base = dict(N=32, L=4, alphas=[0, 1])
    base.update(kw)
    with pytest.raises(ValueError, match=match):
        simulate_sgd(**base)


def test_ode_bad_eta_and_divergence():
    with pytest.raises(ValueError, match="eta must be in"):
        integrate_ode(L=2, K=1, M=1, activation="linear", eta=2.5, alphas=[0, 1])
    with pytest.raises(SimulationDiverged):
        integrate_ode(L=2, K=1, M=1, activation="linear", eta=1.0, alphas=[0, 2000.0], h=10.0)
