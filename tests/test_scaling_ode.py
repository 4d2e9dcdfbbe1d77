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
    u = rng.multivariate_normal(np.zeros(4), C, size=100000)
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
    e1, s1 = kr.sgd_path(J, B, lam, 16, 0.1, True, rec, 7, 10.0)
    e2, s2 = kr.sgd_path.py_func(J, B, lam, 16, 0.1, True, rec, 7, 10.0)
    assert s1 == s2 == -1
    np.testing.assert_allclose(e1, e2, rtol=1e-9)


def test_sgd_same_seed_same_numbers_and_thread_independent(monkeypatch):
    """Same seed, same numbers, whether the paths run in 1, 2 or 3 blocks on threads (core.parallel.map_blocks;
    forced here, since this small run stays on one thread by default)."""
    import functools

    from theorylab.core import parallel

    kw = dict(N=32, L=4, alphas=[0, 1, 2], n_seeds=3, seed=5)
    a = simulate_sgd(**kw)
    for threads in (1, 2, 3):
        monkeypatch.setattr(kr, "map_blocks", functools.partial(parallel.map_blocks, threads=threads))
        b = simulate_sgd(**kw)
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


def test_linear_sgd_stability_range_is_checked_before_simulating():
    from theorylab.scaling import spectrum
    from theorylab.scaling.model import check_eta_sgd
    with pytest.raises(ValueError, match="outside the stable range of linear one-pass SGD"):
        simulate_sgd(N=256, L=256, K=1, M=1, activation="linear", eta=1.1, alphas=[0, 1])
    # the criterion is the spectral radius of the exact mean-square recursion crossing 1
    N = 64
    lam = spectrum(N, N, 1.0)
    for eta, stable in ((0.9, True), (1.3, False)):
        a = eta / N
        step = np.diag(1 - 2 * a * lam + 2 * a * a * lam ** 2) + a * a * np.outer(lam, lam)
        assert (np.abs(np.linalg.eigvals(step)).max() < 1) == stable
        if stable:
            check_eta_sgd(eta, lam, N)
        else:
            with pytest.raises(ValueError):
                check_eta_sgd(eta, lam, N)


@pytest.mark.parametrize("kw, match", [
    (dict(beta=0.0), "beta must be"),
    (dict(K=0), "K must be"),
    (dict(M=0), "M must be"),
    (dict(N=30, L=4), "L must divide N"),
    (dict(eta=2.0, activation="linear"), "eta must be in \\(0, 2\\)"),
    (dict(eta=-0.1), "eta must be"),
])
def test_ode_bad_input(kw, match):
    base = dict(L=4, K=2, M=2, alphas=[0, 1])
    base.update(kw)
    with pytest.raises(ValueError, match=match):
        integrate_ode(**base)


def test_closed_forms_and_helpers_bad_input():
    from theorylab.scaling import finite_n_rate, late_time_rate, plateau_height, simulate_sgd_over_L
    with pytest.raises(ValueError, match="eta must be in"):
        linear_eps([1.0], L=8, beta=1.0, eta=2.5)
    with pytest.raises(ValueError, match="eta must be in"):
        late_time_rate(L=8, beta=1.0, eta=2.0)
    with pytest.raises(ValueError, match="beta must be"):
        linear_eps([1.0], L=8, beta=-0.5, eta=0.1)
    with pytest.raises(ValueError, match="eta"):
        finite_n_rate(N=4, L=4, beta=1.0, eta=1.9)
    with pytest.raises(ValueError, match="K must be"):
        plateau_height(K=0, M=2)
    with pytest.raises(ValueError, match="L must divide N"):
        simulate_sgd_over_L(N=32, Ls=(4, 5), alphas=[0, 1])
    with pytest.raises(ValueError, match="teacher must be"):
        simulate_sgd(N=32, L=4, teacher="uniform", alphas=[0, 1])


def test_finite_n_rate_limits():
    from theorylab.scaling import finite_n_rate, late_time_rate
    eta = 0.5
    assert finite_n_rate(N=10 ** 9, L=4, beta=1.0, eta=eta) == pytest.approx(late_time_rate(L=4, beta=1.0, eta=eta), rel=1e-6)
    N = 512  # L = 1: eta(2 - eta) - 2 eta^2/N + O(N^-1) (the log term)
    c = eta * (2 - eta) - 2 * eta ** 2 / N
    assert finite_n_rate(N=N, L=1, beta=1.0, eta=eta) == pytest.approx(-N * np.log1p(-c / N), rel=1e-12)


def test_plateau_with_eta_term_is_a_fixed_point_of_the_group_ode():
    """Started exactly on the symmetric fixed point (t^l = I, all groups equal), the ODE stays there."""
    eta, L = 0.1, 3
    fp = plateau_fixed_point(K=2, M=2, eta=eta)
    q = np.tile(np.array([[fp["Q"], fp["C"]], [fp["C"], fp["Q"]]]), (L, 1, 1))
    r = np.full((L, 2, 2), fp["R"])
    t = np.tile(np.eye(2), (L, 1, 1))
    e = integrate_ode(L=L, K=2, M=2, eta=eta, overlaps=(q, r, t), alphas=[0.0, 50.0]).eps_g.values
    np.testing.assert_allclose(e, fp["eps"], rtol=1e-9)
    assert fp["eps"] > plateau_fixed_point(K=2, M=2)["eps"]


# --------------------------------------------------------------------------- bad input and numerics (issue 14)
def test_hierarchy_refuses_zero_or_tiny_step():
    J, B = init_weights(12, 2, 2, seed=0)
    ov = group_overlaps(J, B, 3)
    with pytest.raises(ValueError, match="h must be"):
        integrate_hierarchy(ov, beta=1.0, eta=0.1, K=2, M=2, alphas=[0.0, 1.0], h=0.0)
    with pytest.raises(ValueError, match="time budget"):
        integrate_hierarchy(ov, beta=1.0, eta=0.1, K=2, M=2, alphas=[0.0, 1.0], h=1e-300)
    with pytest.raises(ValueError, match="time budget"):
        integrate_ode(L=3, overlaps=ov, alphas=[0.0, 1.0], h=1e-300)


def test_nan_alphas_refused_before_rounding():
    with pytest.raises(ValueError, match="alphas must contain only finite"):
        simulate_sgd(N=16, L=4, alphas=[0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="alphas must contain only finite"):
        integrate_ode(L=2, alphas=[0.0, np.inf])
    with pytest.raises(ValueError, match="alphas must be non-decreasing"):
        simulate_sgd(N=16, L=4, alphas=[1.0, 0.5])


def test_huge_sizes_refused_before_allocating():
    with pytest.raises(ValueError, match="memory budget"):
        eigenvalues(2 ** 63, 1.0)
    with pytest.raises(ValueError, match="n_seeds=1000000000.*memory budget"):
        simulate_sgd(N=16, L=4, n_seeds=10 ** 9, alphas=[0, 1])
    with pytest.raises(ValueError, match="time budget"):
        simulate_sgd(N=1024, L=4, n_seeds=1000, alphas=[0, 1e6])
    with pytest.raises(ValueError, match="memory budget"):
        init_weights(10 ** 9, 2, 2)
    from theorylab.scaling import late_time_rate, linear_eps, simulate_sgd_over_L
    with pytest.raises(ValueError, match="memory budget"):
        linear_eps([1.0], L=10 ** 6, beta=1.0, eta=0.1)
    with pytest.raises(ValueError, match="time budget"):
        late_time_rate(L=11000, beta=1.0, eta=0.1)
    with pytest.raises(ValueError, match="memory budget"):
        simulate_sgd_over_L(N=1024, Ls=[4] * 10 ** 6, alphas=[0, 1])


@pytest.mark.parametrize("call, match", [
    (lambda: eigenvalues(8, np.nan), "beta must be"),
    (lambda: eigenvalues(2 * 10 ** 6, 50.0), "underflows"),
    (lambda: eigenvalues(8.5, 1.0), "L must be an integer"),
    (lambda: init_weights(8, 2, 2, sigma_J=np.inf), "sigma_J must be"),
    (lambda: init_weights(8, 2, 2, seed=-1), "seed must be"),
    (lambda: simulate_sgd(N=16, L=4, eta=np.nan, alphas=[0, 1]), "eta must be"),
    (lambda: simulate_sgd(N=16, L=4, seed="a", alphas=[0, 1]), "seed must be"),
    (lambda: group_overlaps(np.ones((2, 8)), np.ones((2, 6)), 2), "same N"),
    (lambda: group_overlaps(np.full((2, 8), np.nan), np.ones((2, 8)), 2), "J must contain only finite"),
    (lambda: integrate_ode(L=2, K=1, M=1, overlaps=(np.zeros((2, 1, 1)),) * 2, alphas=[0, 1]), "overlaps must be"),
    (lambda: integrate_ode(L=2, K=1, M=1, overlaps=(np.full((2, 1, 1), np.nan), np.zeros((2, 1, 1)),
                                                    np.ones((2, 1, 1))), alphas=[0, 1]), "overlaps q must contain"),
    (lambda: linear_eps([-1.0], L=4, beta=1.0, eta=0.1), "alphas must be"),
    (lambda: linear_eps([1.0], L=4, beta=1.0, eta=0.1, D0=[1, 1, 1, -1]), "D0"),
    (lambda: trainable_final_error([2.5], N=8, beta=1.0, eta=0.1), "n_trained must be an integer"),
    (lambda: plateau_fixed_point(K=2, M=2, eta=np.nan), "eta must be"),
    (lambda: plateau_fixed_point(K=1000, M=2), "K must be"),
])
def test_public_functions_refuse_bad_values_naming_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_divergence_bound_is_derived_and_enforced():
    """erf: eps_g <= (sqrt K + sqrt M)^2 / 2 for any weights; linear: 1e6 x the initial error."""
    from theorylab.scaling.model import divergence_bound
    J, B = init_weights(16, 2, 2, sigma_J=1.0, seed=0)
    lam = spectrum(16, 4, 1.0)
    b_erf = divergence_bound(J[None], B[None], lam[None], "erf")[0]
    assert b_erf == pytest.approx(0.5 * (2 * np.sqrt(2)) ** 2)
    eps = simulate_sgd(N=16, L=4, sigma_J=10.0, eta=5.0, alphas=[0, 1, 10], seed=1).eps_g
    assert eps.max() <= b_erf  # a large-weight erf run stays below the hard bound
    # a bound below the initial error makes the kernel report the first record as diverged
    rec = np.array([0, 16], dtype=np.int64)
    _, status = kr.sgd_paths(J[None], B[None], lam[None], 16, 0.1, True, rec, np.array([3]), np.array([1e-9]))
    assert status[0] == 0


def test_ode_output_checked_against_its_bound():
    """The linear ODE with a step far beyond the RK4 stability limit raises SimulationDiverged (not NaN)."""
    with pytest.raises(SimulationDiverged, match="1e6 x its initial scale|exceeds the bound"):
        integrate_ode(L=2, K=1, M=1, activation="linear", eta=1.0, alphas=[0, 2000.0], h=10.0)


def test_exact_finite_n_mean_matches_sgd_and_the_ode_limit():
    from theorylab.scaling import linear_eps_finite_n
    al = np.array([0.0, 1.0, 5.0])
    tab = simulate_sgd(N=32, L=32, K=1, M=1, eta=0.5, activation="linear", alphas=al, n_seeds=100, sigma_J=0.0,
                       teacher="sign", seed=3)
    m = tab.groupby("alpha").eps_g.agg(["mean", "sem"])
    exact = linear_eps_finite_n(al, N=32, L=32, beta=1.0, eta=0.5)
    assert np.all(np.abs(m["mean"].to_numpy() - exact) <= 4 * m["sem"].to_numpy() + 1e-12)
    # the finite-N correction to the N -> inf ODE is O(1/N): halving it when N doubles
    ode = linear_eps(al[1:], L=8, beta=1.0, eta=0.5)
    d = [linear_eps_finite_n(al[1:], N=N, L=8, beta=1.0, eta=0.5) / ode - 1 for N in (128, 256)]  # 2.035, 2.026
    np.testing.assert_allclose(d[0] / d[1], 2.0, rtol=0.05)


# --------------------------------------------------------------------------- mutation test (issue 13)
def test_mutation_wrong_spectrum_normalisation_is_caught(broken_claim, cache):
    """Break the simulator (Tr Sigma / N = 1.05 instead of 1, at Python level in the SGD's spectrum):
    the cheap isotropic-rate claim must come out "not reproduced" (rate eta lam (2 - eta lam) moves
    from 0.750 to 0.774, many CI widths).  The intact run goes through the session cache (the same
    run as test_validations' ci run of this claim, computed once); the mutated run never does."""
    from theorylab.scaling import model
    key = "scaling_ode:isotropic_rate_eta_0.5"
    assert broken_claim.intact(key, cache=cache).verdict == "reproduced"
    real = model.spectrum
    assert broken_claim(key, (model, "spectrum"), lambda N, L, beta: 1.05 * real(N, L, beta)).verdict == "not reproduced"


def test_specialisation_block_carries_the_plateau_instability():
    """The L x L specialisation block's top eigenvalue is the whole Jacobian's (symmetry reduction),
    and at eta = 0 the symmetric fixed point is Q = C = 1/(2M - 1), R = 1/sqrt(M(2M - 1))."""
    from theorylab.scaling import plateau_instability_rate, plateau_specialization_rate
    for L, M in ((2, 3), (3, 2)):
        full = plateau_instability_rate(L=L, K=M, M=M, eta=0.1)
        assert plateau_specialization_rate(L=L, K=M, M=M, eta=0.1) == pytest.approx(full, rel=1e-6)
    fp = plateau_fixed_point(K=5, M=5)
    assert fp["Q"] == pytest.approx(1 / 9) and fp["C"] == pytest.approx(1 / 9)
    assert fp["R"] == pytest.approx(1 / np.sqrt(45))
    # the eta -> 0 limit of rate / eta
    small = plateau_specialization_rate(L=2, K=3, M=3, small_eta=True)
    assert plateau_specialization_rate(L=2, K=3, M=3, eta=1e-4) / 1e-4 == pytest.approx(small, rel=1e-3)
    with pytest.raises(ValueError, match="K and M must be equal"):
        plateau_specialization_rate(L=2, K=2, M=3)
