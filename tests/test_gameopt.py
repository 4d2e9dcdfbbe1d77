"""theorylab.gp.gameopt: the Hamming form of the one-hot SE kernel and the posterior against
theorylab.gp.priors, the Kronecker prior draw against the Gram matrix, IBR against the plain per-round
reference and against enumeration, the BO loop's bookkeeping, a broken variant the checks catch, and bad
input."""

import dataclasses

import numpy as np
import pytest

from theorylab.gp import gameopt as G
from theorylab.gp import priors
from theorylab.core import clear_experiments

SIZES = (5,) * 6
SMALL = (3, 2, 4)


def _utility(seed=0, sizes=SIZES, m=20, beta=2.0, lengthscale=2.0):
    rng = np.random.default_rng(seed)
    k = np.array(sizes)
    f = G.sample_gp_on_profiles(k, lengthscale=lengthscale, seed=seed)[0]
    X = rng.integers(0, k, (m, k.size))
    return f, G.ucb_utility(X, f[G.profile_index(X, k)], k, lengthscale=lengthscale, beta=beta), rng


def test_profiles_one_hot_and_hamming():
    P = G.all_profiles(SMALL)
    assert P.shape == (24, 3) and G.n_profiles(SMALL) == 24
    np.testing.assert_array_equal(G.profile_index(P, SMALL), np.arange(24))
    E = G.one_hot(P, SMALL)
    np.testing.assert_array_equal(E.sum(1), 3)
    D2 = ((E[:, None] - E[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(D2, 2 * G.hamming(P, P, SMALL))           # ||phi(x) - phi(x')||^2 = 2 H
    # the SE kernel on one-hot features is v rho^H, rho = exp(-1/l^2)
    K = priors.se_kernel(E, E, lengthscale=1.3, variance=2.0)
    np.testing.assert_allclose(K, 2.0 * np.exp(-G.hamming(P, P, SMALL) / 1.3**2), rtol=1e-12)
    x = np.array([2, 0, 1])
    D = G.unilateral_deviations(x, SMALL)
    assert D.shape == (9, 3)
    np.testing.assert_array_equal(G.hamming(D, x, SMALL).ravel() <= 1, True)
    assert {tuple(d) for d in D} == {tuple(p) for p in P if (p != x).sum() <= 1}


def test_kronecker_prior_draw_has_the_gram_covariance():
    n = 40000
    F = G.sample_gp_on_profiles(SMALL, lengthscale=1.3, variance=2.0, n_samples=n, seed=1)
    P = G.all_profiles(SMALL)
    K = priors.se_kernel(G.one_hot(P, SMALL), G.one_hot(P, SMALL), lengthscale=1.3, variance=2.0)
    C = F.T @ F / n                                       # zero mean
    se = np.sqrt((K**2 + np.outer(np.diag(K), np.diag(K))) / n)
    assert np.max(np.abs(C - K) / se) < 5.0
    np.testing.assert_array_equal(F[:3], G.sample_gp_on_profiles(SMALL, lengthscale=1.3, variance=2.0,
                                                                  n_samples=n, seed=1)[:3])
    # the same law as priors' exact draw on the same finite set (variances of the two)
    R = priors.sample_gp_prior(G.one_hot(P, SMALL), lengthscale=1.3, variance=2.0, n_samples=4000, seed=2)
    assert abs(R.var() - F.var()) < 0.15


def test_posterior_and_deviation_values_match_priors():
    _, u, rng = _utility(seed=3)
    Q = rng.integers(0, 5, (50, 6))
    mu, sd = u.mean_std(Q)
    mu_ref, sd_ref = priors.gp_posterior(G.one_hot(u.X_data, SIZES), u.y_data, G.one_hot(Q, SIZES),
                                         lengthscale=2.0, variance=1.0, noise=u.noise)
    np.testing.assert_allclose(mu, mu_ref, atol=1e-10)
    np.testing.assert_allclose(sd, sd_ref, atol=1e-8)
    np.testing.assert_allclose(u(Q), priors.ucb(mu_ref, sd_ref, 2.0), atol=1e-8)
    x = Q[0]
    np.testing.assert_allclose(u.deviation_values(x), u(G.unilateral_deviations(x, SIZES)), atol=1e-12)
    # no data: the prior, UCB = beta sqrt(v) everywhere, so IBR does not move
    u0 = G.ucb_utility(np.zeros((0, 6), dtype=int), np.zeros(0), SIZES, lengthscale=2.0, variance=4.0, beta=1.5)
    np.testing.assert_allclose(u0(Q), 3.0)
    r = G.iterated_best_response(u0, x)
    assert r.rounds == 0 and r.converged and np.array_equal(r.profile, x)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ibr_matches_the_reference_and_stops_at_an_equilibrium(seed):
    f, u, rng = _utility(seed=seed)
    x0 = rng.integers(0, 5, 6)
    r = G.iterated_best_response(u, x0)
    ref = G.iterated_best_response_reference(u, x0)
    np.testing.assert_array_equal(r.path, ref.path)
    np.testing.assert_allclose(r.values, ref.values, atol=1e-9)
    assert r.converged and r.rounds >= 1
    assert np.all(np.diff(r.values) > 0)
    assert np.array_equal(r.path[0], x0) and np.all(G.hamming(r.path[1:], r.path[:-1], SIZES).diagonal() == 1)
    assert G.improving_deviation(u, r.profile) <= 1e-12
    U = u(G.all_profiles(SIZES))                       # coordinate-wise maximum by enumeration
    for D in [G.unilateral_deviations(r.profile, SIZES)]:
        assert U[G.profile_index(D, SIZES)].max() <= U[G.profile_index(r.profile, SIZES)[0]] + 1e-12
    # capped runs: the path's prefix
    one = G.iterated_best_response(u, x0, max_rounds=1)
    np.testing.assert_array_equal(one.path, r.path[:2])
    assert not one.converged or r.rounds == 1
    zero = G.iterated_best_response(u, x0, max_rounds=0)
    assert zero.rounds == 0 and np.array_equal(zero.profile, x0)


def test_run_bo_bookkeeping():
    f, _, _ = _utility(seed=4)
    runs = {m: G.run_bo(f, SIZES, method=m, T=15, n_init=4, seed=7) for m in G.METHODS}
    for m, r in runs.items():
        assert r.profiles.shape == (15, 6) and r.simple_regret.shape == (15,)
        np.testing.assert_array_equal(r.profiles[:4], runs["random"].profiles[:4])     # shared initial design
        assert np.all(np.diff(r.simple_regret) <= 0) and r.simple_regret.min() >= 0
        np.testing.assert_allclose(r.simple_regret, f.max() - np.maximum.accumulate(f[G.profile_index(r.profiles, SIZES)]))
        np.testing.assert_array_equal(r.y, r.f)                                        # noiseless
    assert runs["gameopt"].rounds[4:].min() >= 0 and runs["random"].rounds.sum() == 0
    # GP-UCB's fifth profile is the argmax of UCB over X given the first four
    r = runs["ucb_exact"]
    u = G.ucb_utility(r.profiles[:4], r.y[:4], SIZES, lengthscale=2.0, beta=2.0)
    assert G.profile_index(r.profiles[4], SIZES)[0] == int(np.argmax(u(G.all_profiles(SIZES))))
    # GameOpt's fifth profile is an equilibrium of that UCB game
    assert G.improving_deviation(u, runs["gameopt"].profiles[4]) <= 1e-12
    again = G.run_bo(f, SIZES, method="gameopt", T=15, n_init=4, seed=7)
    np.testing.assert_array_equal(again.profiles, runs["gameopt"].profiles)
    noisy = G.run_bo(f, SIZES, method="random", T=10, obs_noise=0.1, seed=7)
    assert 0 < np.std(noisy.y - noisy.f) < 0.3


def test_mutation_one_round_best_response_is_caught(broken_claim):
    """Broken variant: IBR stopped after one best-response move (the code's nb_rounds = 1, no iteration).  The
    returned profile still has improving deviations, and the exact equilibrium claim must say "not
    reproduced"."""
    intact = G.iterated_best_response

    def broken(utility, x0, *, max_rounds=None):
        return intact(utility, x0, max_rounds=1)

    r = broken_claim("gameopt:ibr_reaches_equilibrium", (G, "iterated_best_response"), broken,
                     overrides={"n_instances": 8})
    assert r.verdict == "not reproduced", r.measured


def test_bad_input_names_the_argument():
    f, u, _ = _utility(seed=5, m=5)
    X, y = u.X_data, u.y_data
    cases = [
        (lambda: G.ucb_utility(X, y, SIZES, lengthscale=2.0, beta=-1.0), "beta"),
        (lambda: G.run_bo(f, SIZES, beta=-0.5), "beta"),
        (lambda: G.ucb_utility(X, y, SIZES, lengthscale=0.0), "lengthscale"),
        (lambda: G.ucb_utility(X, y, SIZES, lengthscale=-1.0), "lengthscale"),
        (lambda: G.sample_gp_on_profiles(SIZES, lengthscale=0.0), "lengthscale"),
        (lambda: G.ucb_utility(X, y, SIZES, lengthscale=2.0, variance=0.0), "variance"),
        (lambda: G.ucb_utility(X, y[:3], SIZES, lengthscale=2.0), "y_data"),
        (lambda: G.ucb_utility(X[:, :4], y, SIZES, lengthscale=2.0), "X_data"),
        (lambda: G.ucb_utility(X + 5, y, SIZES, lengthscale=2.0), "X_data"),
        (lambda: G.ucb_utility(X, y, SIZES, lengthscale=2.0, noise=0.0), "noise"),
        (lambda: G.all_profiles((5, 0, 3)), "sizes"),
        (lambda: G.all_profiles(()), "sizes"),
        (lambda: G.all_profiles((2.5, 3)), "sizes"),
        (lambda: G.all_profiles((100,) * 4), "all_profiles"),
        (lambda: G.unilateral_deviations([1, 2], SIZES), "x"),
        (lambda: G.iterated_best_response("ucb", np.zeros(6, dtype=int)), "utility"),
        (lambda: G.iterated_best_response(u, np.zeros(5, dtype=int)), "x0"),
        (lambda: G.iterated_best_response(u, np.zeros(6, dtype=int), max_rounds=-1), "max_rounds"),
        (lambda: G.run_bo(f[:-1], SIZES), "f"),
        (lambda: G.run_bo(f, SIZES, method="lambo"), "method"),
        (lambda: G.run_bo(f, SIZES, T=5, n_init=6), "n_init"),
        (lambda: G.run_bo(f, SIZES, T=0), "T"),
        (lambda: G.profile_index(np.array([[0.5] * 6]), SIZES), "profiles"),
    ]
    for call, name in cases:
        with pytest.raises((ValueError, TypeError), match=name):
            call()
    with pytest.raises(ValueError, match="empty strategy sets"):
        G.check_sizes([3, 0])
    with pytest.raises(TypeError, match="utility"):
        G.improving_deviation(dataclasses.asdict, [0] * 6)
