"""theorylab.games.matrix_games: kernels against their Python bodies, the projection / gap / tangent residual
against scipy and cvxpy references, Algorithm 1 and the authors' code order against plain-Python loops, the
numpy reference, reproducibility (threads), the theorems' constants, a broken variant the checks catch, and bad
input."""

import math
import warnings

import numpy as np
import pytest

from theorylab.core import spawn_seeds
from theorylab.games import _kernels as K
from theorylab.games import matrix_games as M
from theorylab.core import clear_experiments

A10 = M.random_payoff_games(10, 3, seed=1)
A67 = M.random_payoff_games(6, 2, d2=7, seed=2)


def _kernel_args(A, method, T, noise=0.0, eta_mode=K.ETA_CONST, T_sigma=3):
    n, d1, d2 = A.shape
    rec = np.arange(1, T + 2, dtype=np.int64)
    outs = (np.empty((n, rec.size)), np.empty((n, rec.size)), np.empty((n, rec.size, 2)))
    return (A, np.full(d1, 1 / d1), np.full(d2, 1 / d2), method, 0.05, 1.0, T_sigma, T, eta_mode, 0.5, 20.0,
            noise, spawn_seeds(3, n), rec) + outs, outs


def test_kernels_match_their_python_bodies():
    for method in (K.GA, K.APGA, K.GABP, K.APGA_CODE, K.GABP_CODE, K.OGA):
        for noise, mode in ((0.0, K.ETA_CONST), (0.1, K.ETA_THM43)):
            a, oa = _kernel_args(A67, method, 30, noise, mode)
            b, ob = _kernel_args(A67, method, 30, noise, mode)
            K.run_dynamics(*a)
            K.run_dynamics.py_func(*b)
            for u, v in zip(oa, ob):
                np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-15)
    y = np.random.default_rng(0).standard_normal(9)
    o1, o2 = np.empty(9), np.empty(9)
    K.project_simplex(y, o1)
    K.project_simplex.py_func(y, o2)
    np.testing.assert_array_equal(o1, o2)
    x = M.project_simplex(3 * y)
    assert K.tangent_residual_sq(y, x) == pytest.approx(K.tangent_residual_sq.py_func(y, x), rel=1e-14)


def test_projection_against_numpy_and_cvxpy():
    import cvxpy as cp

    rng = np.random.default_rng(4)
    V = rng.standard_normal((50, 12)) * np.array([[0.01], [1.0], [10.0], [100.0], [0.3]] * 10)
    P = M.project_simplex(V)
    np.testing.assert_allclose(P, M.project_simplex_numpy(V), atol=1e-14)
    np.testing.assert_allclose(P.sum(1), 1.0, atol=1e-12)
    assert P.min() >= 0
    for v in V[:4]:
        z = cp.Variable(12)
        cp.Problem(cp.Minimize(cp.sum_squares(z - v)), [z >= 0, cp.sum(z) == 1]).solve()
        np.testing.assert_allclose(M.project_simplex(v), z.value, atol=1e-5)
    x = np.full(5, 0.2)
    np.testing.assert_array_equal(M.project_simplex(x), x)       # a point of the simplex is its own projection


def test_gap_against_linprog_and_residual_against_cvxpy():
    import cvxpy as cp

    rng = np.random.default_rng(5)
    for i in range(6):
        A = rng.uniform(-1, 1, (5, 8))
        x = M.project_simplex(rng.standard_normal(5) * (3 if i % 2 else 0.01) + 0.2)
        y = M.project_simplex(rng.standard_normal(8) * (3 if i % 2 else 0.01) + 0.125)
        assert M.duality_gap(A, x, y) == pytest.approx(M.gap_lp(A, x, y), abs=1e-9)
        # r^tan = min over the normal cone {lambda 1 - nu : nu >= 0, nu = 0 on supp} of ||V - a||
        total = 0.0
        for g, p in ((A @ y, x), (-A.T @ x, y)):
            lam, nu = cp.Variable(), cp.Variable(p.size)
            cons = [nu >= 0] + [nu[j] == 0 for j in np.flatnonzero(p > 0)]
            prob = cp.Problem(cp.Minimize(cp.sum_squares(g - lam + nu)), cons)
            prob.solve()
            total += prob.value
        assert M.tangent_residual(A, x, y) == pytest.approx(math.sqrt(max(total, 0)), abs=1e-5)
        assert M.duality_gap(A, x, y) <= M.DIAMETER * M.tangent_residual(A, x, y) + 1e-12   # Lemma 2.2
    # at an interior Nash equilibrium of matching pennies the gap and the residual vanish
    A = np.array([[1.0, -1.0], [-1.0, 1.0]])
    assert M.duality_gap(A, [0.5, 0.5], [0.5, 0.5]) == 0.0
    assert M.tangent_residual(A, [0.5, 0.5], [0.5, 0.5]) == 0.0


def _algorithm1(A, eta, mu, T_sigma, T, *, code=False, apga=False):
    """Plain-Python Algorithm 1 (paper indexing) or the authors' code order (GABP/APGA classes): the final
    strategies after T steps."""
    d1, d2 = A.shape
    x, y = np.full(d1, 1 / d1), np.full(d2, 1 / d2)
    x1, y1 = x.copy(), y.copy()
    sx, sy = x.copy(), y.copy()                  # sigma^k (paper) / slingshot (code)
    k = 0 if code else 1
    tau = 0
    for t in range(1, T + 1):
        gx, gy = A @ y, -A.T @ x
        if code:
            mx, my = -mu * (x - sx), -mu * (y - sy)          # add_gradient: mutation with the current slingshot
            if T_sigma < tau:                                # then the slingshot update, from the current pi^t
                tau, k = 0, k + 1
                sx, sy = (x.copy(), y.copy()) if apga else ((k * x + x1) / (k + 1), (k * y + y1) / (k + 1))
            x, y = M.project_simplex(x + eta * (gx + mx)), M.project_simplex(y + eta * (gy + my))
            tau += 1
            continue
        w = 1.0 if apga else k / (k + 1)
        ax, ay = w * sx + (1 - w) * x1, w * sy + (1 - w) * y1
        x, y = M.project_simplex(x + eta * (gx - mu * (x - ax))), M.project_simplex(y + eta * (gy - mu * (y - ay)))
        tau += 1
        if tau == T_sigma:
            k, tau, sx, sy = k + 1, 0, x.copy(), y.copy()
    return x, y


@pytest.mark.parametrize("method, code, apga", [("gabp", False, False), ("apga", False, True),
                                                ("gabp_code", True, False), ("apga_code", True, True)])
def test_perturbed_methods_match_plain_loops(method, code, apga):
    A = A67[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r = M.run_dynamics(A, method, eta=0.05, mu=1.0, T_sigma=4, T=37)
    x, y = _algorithm1(A, 0.05, 1.0, 4, 37, code=code, apga=apga)
    assert r.gap[0, -1] == pytest.approx(M.duality_gap(A, x, y), rel=1e-12, abs=1e-15)
    assert r.residual[0, -1] == pytest.approx(M.tangent_residual(A, x, y), rel=1e-10, abs=1e-14)


def test_numpy_reference_agrees():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for method in ("ga", "apga", "gabp", "oga"):
            a = M.run_dynamics(A10, method, T=200, T_sigma=7)
            b = M.run_dynamics_numpy(A10, method, T=200, T_sigma=7)
            np.testing.assert_allclose(a.gap, b.gap, rtol=1e-9, atol=1e-13)
            np.testing.assert_allclose(a.regret, b.regret, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(a.residual, b.residual, rtol=1e-7, atol=1e-10)
        # noisy: the same law (mean final gap over many seeds), not the same numbers
        kw = dict(T=200, feedback="noisy", noise_std=0.3, n_seeds=200, T_sigma=50)
        a = M.run_dynamics(A10[0], "gabp", seed=1, **kw).gap[:, -1]
        b = M.run_dynamics_numpy(A10[0], "gabp", seed=2, **kw).gap[:, -1]
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    assert abs(a.mean() - b.mean()) < 4.5 * se


def test_same_seed_same_numbers_and_threads():
    import numba

    A = M.random_payoff_games(50, 8, seed=3)
    kw = dict(T=3000, feedback="noisy", record=[1, 10, 3001], seed=9, T_sigma=100, eta=0.001)
    a = M.run_dynamics(A, "gabp", **kw)                       # 6e7 multiply-adds: threaded
    b = M.run_dynamics(A, "gabp", parallel=False, **kw)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        c = M.run_dynamics(A, "gabp", **kw)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(a.gap, b.gap)
    np.testing.assert_array_equal(a.gap, c.gap)
    np.testing.assert_array_equal(M.run_dynamics(A[:3], "gabp", **kw).gap, a.gap[:3])   # run r independent of n
    np.testing.assert_array_equal(M.random_payoff_games(5, 4, seed=7)[:2], M.random_payoff_games(5, 2, seed=7))


def test_theorem_constants():
    p = M.theorem41_parameters(2.0, 1.0, 999)
    assert p["eta"] == pytest.approx(1 / 18) and p["eta_max"] == pytest.approx(1 / 9)
    real = 6 * math.log(3000) / math.log(1 + 1 / 18)
    assert p["T_sigma_real"] == pytest.approx(real) and p["T_sigma"] == math.ceil(real)     # rounded up
    assert p["B_gap"] == pytest.approx(17 * (real + 1) * (1 + (1 + 2 / 18) * 18))
    bg, br = M.theorem41_bound([2, 1000], L=2.0, mu=1.0, T=999)
    assert bg[0] == pytest.approx(4 * p["B_gap"]) and br[1] == pytest.approx(2 * p["B_gap"] / 999)
    q = M.theorem43_parameters(2.0, 1.0, 10**4, c=2.0)
    assert q["kappa"] == 0.5 and q["theta"] == pytest.approx(35 / 2)
    assert q["T_sigma"] == math.ceil(2 * 10 ** (4 * 6 / 7))
    assert M.lipschitz_constant(np.diag([3.0, -1.0])) == pytest.approx(3.0)
    # theorem 4.3's eta_t restarts at every anchor: the run with that schedule matches the kernel's formula
    r = M.run_dynamics(A10[0], "gabp", T=50, T_sigma=None, eta_schedule="theorem43", feedback="noisy", noise_std=0.0)
    assert r.T_sigma == math.ceil(50 ** (6 / 7))


def test_regret_sums_the_player_gaps():
    r = M.run_dynamics(A10, "gabp", T=100, T_sigma=10, eta=0.02)
    np.testing.assert_allclose(r.regret[:, -1].sum(1), np.cumsum(r.gap, axis=1)[:, -1], rtol=1e-12)
    assert np.all(r.regret >= -1e-12)


def test_strategy_path_and_perturbed_equilibrium():
    A = A10[0]
    L = M.lipschitz_constant(A)
    eta = 1 / (2 * (L + 1) ** 2)
    X, Y, Sx, Sy = M.strategy_path(A, "gabp", eta=eta, mu=1.0, T_sigma=25, T=120)
    r = M.run_dynamics(A, "gabp", eta=eta, mu=1.0, T_sigma=25, T=120)
    np.testing.assert_allclose(r.gap[0], [M.duality_gap(A, x, y) for x, y in zip(X, Y)], rtol=1e-11, atol=1e-14)
    # GABP's anchor in period k = 3 (t = 51..75) is (3 sigma^3 + sigma^1)/4 with sigma^3 = pi^51
    np.testing.assert_allclose(Sx[50], (3 * X[50] + X[0]) / 4, atol=1e-15)
    # the perturbed stationary point is each player's regularised best response: x = Proj(s_x + A y / mu)
    px, py, n = M.perturbed_equilibrium(A, Sx[50], Sy[50], 1.0)
    np.testing.assert_allclose(px, M.project_simplex(Sx[50] + A @ py), atol=1e-11)
    np.testing.assert_allclose(py, M.project_simplex(Sy[50] - A.T @ px), atol=1e-11)
    import cvxpy as cp

    z = cp.Variable(10)
    cp.Problem(cp.Maximize(z @ (A @ py) - 0.5 * cp.sum_squares(z - Sx[50])), [z >= 0, cp.sum(z) == 1]).solve()
    np.testing.assert_allclose(px, z.value, atol=1e-5)


def test_mutation_anchor_never_updated_is_caught(broken_claim):
    """Broken variant: GABP's anchor is never re-initialised (T_sigma ignored: k stays 1), so the iterates
    converge to the equilibrium of the mu-perturbed game and the gap flattens.  The ci rate claim must say
    "not reproduced"."""
    intact = M.run_dynamics

    def broken(A, method="gabp", **kw):
        if method == "gabp":
            kw["T_sigma"] = 10**8
        return intact(A, method, **kw)

    r = broken_claim("gabp:full_rate_gabp", (M, "run_dynamics"), broken, overrides={"n_games": 20})
    assert r.verdict == "not reproduced", r.measured


def test_eta_outside_the_theorem_warns_and_runs():
    with pytest.warns(RuntimeWarning, match="eta"):
        r = M.run_dynamics(A10[0], "gabp", eta=0.5, T=20)
    assert np.all(np.isfinite(r.gap))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        M.run_dynamics(A10[0], "gabp", eta=0.01, T=20)                   # inside (0, mu/(L+mu)^2): no warning
        M.run_dynamics(A10[0], "oga", eta=0.5, T=20)                     # not a perturbed method


@pytest.mark.parametrize("kwargs, name", [
    (dict(x0=[0.5, 0.6] + [0.0] * 8), "x0"), (dict(y0=-np.full(10, 0.1)), "y0"), (dict(x0=np.ones(3) / 3), "x0"),
    (dict(method="adam"), "method"), (dict(feedback="bandit"), "feedback"), (dict(eta=0.0), "eta"),
    (dict(eta=np.nan), "eta"), (dict(mu=-1.0), "mu"), (dict(T=0), "T"), (dict(T_sigma=0), "T_sigma"),
    (dict(feedback="noisy", noise_std=-0.1), "noise_std"), (dict(record=[5, 3]), "record"),
    (dict(record=[0, 3]), "record"), (dict(n_seeds=4), "n_seeds"), (dict(eta_schedule="adagrad"), "eta_schedule"),
    (dict(T=10**8, n_seeds=None), "T"),
])
def test_bad_input_names_the_argument(kwargs, name):
    for fn in (M.run_dynamics, M.run_dynamics_numpy):
        if fn is M.run_dynamics_numpy and name == "eta_schedule":
            continue
        with pytest.raises((ValueError, TypeError), match=name):
            fn(A10, **kwargs)


def test_bad_input_games_and_points():
    with pytest.raises(ValueError, match="A must have non-empty strategy sets"):
        M.run_dynamics(np.zeros((0, 5)))
    with pytest.raises(ValueError, match="A must have non-empty strategy sets"):
        M.duality_gap(np.zeros((3, 0)), np.ones(3) / 3, [])
    with pytest.raises(ValueError, match="y must lie on the simplex"):
        M.duality_gap(A10[0], np.full(10, 0.1), np.full(10, 0.2))
    with pytest.raises(ValueError, match="x must be a strategy"):
        M.tangent_residual(A10[0], np.ones(4) / 4, np.full(10, 0.1))
    with pytest.raises(ValueError, match="v must be a non-empty"):
        M.project_simplex(np.array([]))
    with pytest.raises(TypeError, match="A must"):
        M.gap_lp("A", [1.0], [1.0])
    with pytest.raises(ValueError, match="d"):
        M.random_payoff_games(0)
    with pytest.raises(ValueError, match="c"):
        M.theorem41_parameters(1.0, 1.0, 10, c=0.5)
    with pytest.raises(ValueError, match="t must lie"):
        M.theorem41_bound([1], L=1.0, mu=1.0, T=10)
    with pytest.raises(ValueError, match="mu"):
        M.theorem43_parameters(1.0, 0.0, 10)


def test_final_gap_rows_state_t_sigma_and_the_equal_t_sigma_comparison_runs():
    """gabp_final_gap_below_apga is a comparison at unequal anchor periods (the repository's GABP T_sigma = 10,
    APGA T_sigma = 20): its statement and note say so, from the configurations actually run; the equal-T_sigma
    comparison is its own claim, whose APGA runs with GABP's T_sigma on the same games."""
    from theorylab.core import run_claim
    from theorylab.core.checks import REGISTRY
    import theorylab.validations.gabp as V

    tg, ta = V.FULL_CFG["gabp"]["T_sigma"], V.FULL_CFG["apga"]["T_sigma"]
    assert tg != ta
    row = REGISTRY.claims["gabp:gabp_final_gap_below_apga"]
    assert f"GABP T_sigma = {tg}, APGA T_sigma = {ta}" in row.statement
    eq = REGISTRY.claims["gabp:gabp_final_gap_equal_tsigma"]
    assert V.FULL_CFG["apga_tsigma10"] == {**V.FULL_CFG["apga"], "T_sigma": tg}
    assert f"T_sigma = {tg} for both" in eq.statement
    clear_experiments()
    try:
        r = run_claim(eq, "ci", seed=0, overrides={"n_games": 20})
        assert f"T_sigma: GABP {tg}, APGA {tg}" in r.note
        u = run_claim(row, "ci", seed=0, overrides={"n_games": 20})
        assert f"T_sigma: GABP {tg}, APGA {ta}" in u.note
        # the same games: GABP's final gaps agree between the two comparisons
        np.testing.assert_array_equal(r.data.gap_gabp.to_numpy(), u.data.gap_gabp.to_numpy())
        assert not np.array_equal(r.data.gap_apga.to_numpy(), u.data.gap_apga.to_numpy())
    finally:
        clear_experiments()


def test_noisy_point_runs_each_game_with_its_own_constants():
    """noisy_rate_gabp bootstraps over games, so a game's gap must not depend on the other games of its batch:
    one batched run_dynamics call gave every game Theorem 4.3's schedule of the batch's largest ||A||_2 (a shared
    factor that made the interval under-cover: calibration ratio 1.50 over 20 root seeds)."""
    from theorylab.games.experiments import noisy_point

    kw = dict(T=60, d=10, seed=3, game_seed=7)
    A = M.random_payoff_games(10, 6, seed=7)
    assert M.lipschitz_constant(A[0]) < max(M.lipschitz_constant(a) for a in A)   # the batch's L is not game 0's
    one, six = noisy_point(n_games=1, **kw), noisy_point(n_games=6, **kw)
    assert one.gap[0] == six.gap[0]
    assert one.L[0] == M.lipschitz_constant(A[0])
