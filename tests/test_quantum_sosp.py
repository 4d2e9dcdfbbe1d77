"""theorylab.zeroth.saddle (paper quantum_sosp): the closed forms, the kernel against its Python body,
reproducibility, the numpy reference, bad input, and a mutation the checks catch."""

import numpy as np
import pytest

from theorylab.core import SimulationDiverged, spawn_seeds
from theorylab.zeroth import _kernels_saddle as K
from theorylab.zeroth import saddle as S
from theorylab.core import clear_experiments


def test_ball_marginal_matches_monte_carlo():
    rng = np.random.default_rng(0)
    d, n = 10, 200000
    z = rng.standard_normal((n, d))
    xi = z / np.linalg.norm(z, axis=1, keepdims=True) * rng.uniform(size=(n, 1)) ** (1 / d)
    for s in (0.05, 0.2, 0.5):
        emp = np.mean(np.abs(xi[:, -1]) > s)
        p = S.ball_marginal_sf(s, d)
        assert abs(emp - p) < 5 * np.sqrt(p * (1 - p) / n)


def test_critical_displacement_solves_its_equations():
    nu = np.array([1e-8, 1e-4, 1e-2, 0.2])
    x = S.critical_displacement(nu, oracle="gradient")
    np.testing.assert_allclose(x - x**3, nu, rtol=1e-10)
    assert np.all(np.diff(x) > 0) and np.all(x < 1 / np.sqrt(3))
    with pytest.raises(ValueError, match="nu must be <= 0.3849"):             # above the hump of x - x^3
        S.critical_displacement(0.5, oracle="gradient")
    xv = S.critical_displacement(nu[:3], oracle="value")
    w = xv + np.sqrt(nu[:3])                                               # plateau edge: phi(w) = -2 nu
    np.testing.assert_allclose(w**2 / 2 - w**4 / 4, 2 * nu[:3], rtol=1e-8)
    assert S.critical_displacement(1e-4, oracle="value", fd_step_rule=1.0) == 0.0   # h > w: no trap
    for oracle in S.ORACLES:
        nh = S.critical_noise(0.5, oracle=oracle)
        assert S.escape_probability(nh, oracle=oracle) == pytest.approx(0.5, abs=1e-9)


@pytest.mark.parametrize("oracle", S.ORACLES)
def test_escape_fraction_follows_the_closed_form(oracle):
    """Adversarial runs at the derived crossover escape with probability 1/2 (4 s.e.); no noise: all escape."""
    nu = S.critical_noise(0.5, oracle=oracle)
    run = S.run_pgd(oracle=oracle, noise="adversarial", nu=nu, n_runs=800, seed=3)
    assert abs(run.sosp.mean() - 0.5) < 4 * np.sqrt(0.25 / 800)
    np.testing.assert_array_equal(run.sosp, run.escaped)                  # escaped runs end at an SOSP
    clean = S.run_pgd(oracle=oracle, noise="none", n_runs=50, seed=3)
    assert clean.sosp.all() and clean.terminated.all()
    same = S.run_pgd(oracle=oracle, noise="adversarial", nu=0.0, n_runs=50, seed=3)
    np.testing.assert_array_equal(same.x_out, clean.x_out)


def test_kernel_matches_its_python_body():
    d, n = 4, 3
    hv = np.array([1.0, 1.0, 1.0, -1.0])
    x0 = np.array([0.5, 0.5, 0.5, 0.0])
    seeds = spawn_seeds(5, n)
    for oracle in (K.ORACLE_GRADIENT, K.ORACLE_VALUE):
        for noise in (K.NOISE_ADVERSARIAL, K.NOISE_RANDOM):
            outs = []
            for f in (K.pgd_runs, K.pgd_runs.py_func):
                x_out, info = np.empty((n, d)), np.zeros((n, 5), np.int64)
                nu = np.full(n, 1e-3)
                f(hv, 1.0, oracle, noise, nu, np.sqrt(nu), x0, 0.25, 0.1, 0.05, 30, 0.05, 400, 1e3, seeds, x_out, info)
                outs.append((x_out, info))
            np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12, atol=1e-15)
            np.testing.assert_array_equal(outs[0][1], outs[1][1])


def test_same_seed_same_numbers_and_runs_independent_of_batch():
    a = S.run_pgd(oracle="value", noise="random", nu=1e-3, n_runs=10, seed=7)
    b = S.run_pgd(oracle="value", noise="random", nu=1e-3, n_runs=10, seed=7)
    np.testing.assert_array_equal(a.x_out, b.x_out)
    c = S.run_pgd(oracle="value", noise="random", nu=1e-3, n_runs=4, seed=7)
    np.testing.assert_array_equal(a.x_out[:4], c.x_out)
    assert not np.array_equal(S.run_pgd(oracle="value", noise="random", nu=1e-3, n_runs=10, seed=8).x_out, a.x_out)
    # adversarial runs draw only their perturbations: the same first perturbation at every level
    lo = S.run_pgd(oracle="gradient", noise="adversarial", nu=1e-6, n_runs=200, seed=2).sosp
    hi = S.run_pgd(oracle="gradient", noise="adversarial", nu=3e-2, n_runs=200, seed=2).sosp
    assert np.all(lo >= hi) and lo.sum() > hi.sum()


def test_critical_levels_bracket_the_per_run_outcome():
    nu_m = S.critical_levels(oracle="gradient", n_runs=60, n_bisect=16, seed=4)
    for f, want in ((0.98, True), (1.02, False)):
        run = S.run_pgd(oracle="gradient", noise="adversarial", nu=nu_m * f, n_runs=60, seed=4)
        inside = (nu_m > 1e-12) & (nu_m < 0.2)
        assert np.all(run.sosp[inside] == want)


@pytest.mark.parametrize("oracle", ["gradient"])      # the value oracle's reference is exercised by the benchmark
def test_numpy_reference_agrees_in_distribution(oracle):
    nu = S.critical_noise(0.5, oracle=oracle)
    n = 120
    a = S.run_pgd(oracle=oracle, noise="adversarial", nu=nu, n_runs=n, max_iter=1000, seed=1)
    b = S.run_pgd_numpy(oracle=oracle, nu=nu, n_runs=n, max_iter=1000, seed=2)
    assert a.terminated.all() and b.terminated.all()
    a, b = a.sosp.mean(), b.sosp.mean()
    assert abs(a - b) < 4 * np.sqrt(0.5 / n)


def test_divergence_is_reported():
    with pytest.raises(SimulationDiverged, match="PGD diverged"):
        S.run_pgd(oracle="gradient", noise="none", x0=np.full(10, 900.0), eta=1.0, n_runs=2)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(x0=[np.nan] + [0.0] * 9), ValueError, "x0 must contain only finite values"),
    (dict(x0=[np.inf] * 10), ValueError, "x0 must contain only finite values"),
    (dict(x0=[0.0] * 3), ValueError, r"x0 must have shape \(10,\)"),
    (dict(eps=0.0), ValueError, "eps must be"),
    (dict(eps=-1.0), ValueError, "eps must be"),
    (dict(nu=-1e-3), ValueError, "nu must be"),
    (dict(nu=np.nan), ValueError, "nu must be"),
    (dict(nu=[0.1, -0.1]), ValueError, r"nu must have shape \(100,\)"),
    (dict(oracle="hessian"), ValueError, "oracle must be one of 'gradient', 'value'; got 'hessian'"),
    (dict(noise="gaussian"), ValueError, "noise must be one of 'none', 'adversarial', 'random'"),
    (dict(n_runs=0), ValueError, "n_runs must be"),
    (dict(n_runs=10**7, max_iter=10**4), ValueError, "the PGD work"),
    (dict(h_neg=0.5), ValueError, "h_neg must be"),
    (dict(fd_step_rule="cube"), ValueError, "fd_step_rule must be one of"),
    (dict(fd_step_rule=0.0), ValueError, "fd_step_rule must be"),
    (dict(r=0.0), ValueError, "r must be"),
    (dict(nu="0.1"), TypeError, "nu must be a real number"),
])
def test_bad_input_is_named(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        S.run_pgd(**kwargs)


def test_bad_input_closed_forms():
    with pytest.raises(ValueError, match="nu must be finite"):
        S.critical_displacement([1e-3, np.nan])
    with pytest.raises(ValueError, match="oracle must be one of"):
        S.escape_probability(1e-3, oracle="quantum")
    with pytest.raises(ValueError, match="r = 100 is too large"):
        S.critical_noise(0.5, r=100.0)
    with pytest.raises(TypeError, match="s must be a real"):
        S.ball_marginal_sf("x", 10)
    with pytest.raises(ValueError, match="eps must be"):
        S.paper_thresholds(0.0, 10)


def test_mutation_wrong_finite_difference_step_is_caught(broken_claim):
    """A broken zeroth-order oracle: the finite-difference step 1.2 sqrt(nu) instead of the stated sqrt(nu)
    (a wrong constant).  The trap half-width w - h shrinks from ~0.41 sqrt(nu) to ~0.21 sqrt(nu), so the
    crossover moves up ~3.7x; zeroth_order_crossover (prediction from the closed form with h = sqrt(nu),
    independent of the simulator) must say "not reproduced"; the intact simulator passes."""
    small = {"n_runs": 400, "n_bisect": 12}
    assert broken_claim.intact("quantum_sosp:zeroth_order_crossover", overrides=small).verdict == "reproduced"
    intact = S.fd_step
    r = broken_claim("quantum_sosp:zeroth_order_crossover", (S, "fd_step"), lambda nu: 1.2 * intact(nu),
                     overrides=small)
    assert r.verdict == "not reproduced", r.measured

def test_value_adversary_uses_the_whole_admissible_range():
    """The plateau adversary's noise n = f~ - f spans [-nu, nu] (the half-range clip(-phi, 0, nu) spans only
    [0, nu]) and its escape fraction follows the closed form written out here: w^2 = 1 - sqrt(1 - 8 nu)
    (phi(w) = -2 nu for phi(u) = -u^2/2 + u^4/4), x_c = w - sqrt(nu), P(escape) = P(|xi_d| > x_c)."""
    from theorylab.core.rng import seed_state

    nu = 1e-3
    hv = np.array([1.0, -1.0])
    state = np.zeros(4, np.uint64)
    seed_state(1, state)
    n = []
    for u in np.linspace(-1.6, 1.6, 3201):
        x = np.array([0.3, u])
        f = 0.5 * (0.3**2 - u**2) + 0.25 * (0.3**4 + u**4)
        n.append(K._value(hv, 1.0, x, K.ORACLE_VALUE, K.NOISE_ADVERSARIAL, nu, state) - f)
    n = np.array(n)
    assert n.min() == pytest.approx(-nu, abs=1e-15) and n.max() == pytest.approx(nu, abs=1e-12)

    def p_escape(v):
        xc = np.sqrt(1 - np.sqrt(1 - 8 * v)) - np.sqrt(v)
        return S.ball_marginal_sf(xc / 0.1, 10)

    from scipy.optimize import brentq
    nu_half = np.exp(brentq(lambda t: p_escape(np.exp(t)) - 0.5, np.log(1e-8), np.log(0.1)))
    assert S.critical_noise(0.5, oracle="value") == pytest.approx(nu_half, rel=1e-8)
    run = S.run_pgd(oracle="value", noise="adversarial", nu=nu_half, n_runs=800, seed=11)
    assert abs(run.sosp.mean() - 0.5) < 4 * np.sqrt(0.25 / 800)


def test_paper_level_sweep_crosses_the_crossover():
    """zeroth_order_paper_level sweeps nu from eps^6/d^4 across nu_1/2: its table starts where (nearly) every run
    escapes and ends where almost none does, each level's fraction within 4 s.e. of the derived probability, and the
    exact check (largest rise between consecutive levels) holds."""
    import theorylab.validations.quantum_sosp  # noqa: F401  (registers the claims)
    from theorylab.core import run_claim
    from theorylab.core.checks import REGISTRY

    r = run_claim(REGISTRY.claims["quantum_sosp:zeroth_order_paper_level"], "ci", seed=0)
    assert r.verdict == "reproduced", r.measured
    t = r.data
    assert t.nu.iloc[0] == pytest.approx(1e-10) and t.nu.iloc[-1] > S.critical_noise(0.5, oracle="value")
    assert t.sosp.iloc[0] >= 0.95 and t.sosp.iloc[-1] <= 0.05
    se = np.sqrt(np.maximum(t.derived * (1 - t.derived), 1 / t.n_runs) / t.n_runs)
    assert np.all(np.abs(t.sosp - t.derived) < 4 * se + 1e-12)
