"""theorylab.highdim.one_step (paper gmm_onestep): Hermite coefficients against quadrature, the variance-matched model,
the mixture's moments, the gradient step against finite differences, the ridge readout against least squares,
reproducibility, bad input (non-positive-definite covariances refused) and a broken variant a claim catches."""

import math

import numpy as np
import pytest

from theorylab.highdim import one_step as O


def test_closed_form_coefficients_against_gauss_hermite_with_many_nodes():
    for b in (0.5, 1.0):
        mu, second = O.hermite_coefficients("relu", 6, scale=b)
        gh, gh2 = O.hermite_coefficients("relu", 6, scale=b, method="quadrature", nodes=4000)
        np.testing.assert_allclose(gh, mu, atol=2e-3)            # the kink makes Gauss-Hermite converge like 1/N
        assert abs(gh2 - second) < 1e-10                        # relu^2 is smooth enough: exact to rounding
        np.testing.assert_allclose(mu[[3, 5]], 0.0)
        np.testing.assert_allclose(mu[:3], b * np.array([1 / math.sqrt(2 * math.pi), 0.5, 1 / math.sqrt(2 * math.pi)]))
    errs = [np.abs(O.hermite_coefficients("relu", 4, method="quadrature", nodes=n)[0] - O.hermite_coefficients("relu", 4)[0]).max()
            for n in (100, 400, 1600)]
    assert errs[0] > errs[1] > errs[2]


def test_tanh_coefficients_are_odd_and_parseval_holds():
    mu, second = O.hermite_coefficients("tanh", 9, method="quadrature", nodes=300)
    np.testing.assert_allclose(mu[::2], 0.0, atol=1e-14)
    fact = np.array([math.factorial(j) for j in range(10)], dtype=float)
    partial = np.cumsum(mu ** 2 / fact)
    assert np.all(np.diff(partial) >= 0) and partial[-1] <= second + 1e-12 and partial[-1] > 0.99 * second


def test_hermite_model_matches_mean_and_second_moment_exactly():
    b = 0.8
    for l in (1, 2, 4):
        h = O.hermite_model("relu", l, scale=b)
        mu, second = O.hermite_coefficients("relu", l, scale=b)
        z, w = O.roots_hermitenorm(40)
        w = w / math.sqrt(2 * math.pi)
        poly = np.polynomial.hermite_e.hermeval(z, h.coef)      # sigma_l(bZ) without noise at Z = z (exact: a polynomial)
        assert abs(w @ poly - mu[0]) < 1e-12
        assert abs(w @ poly ** 2 + h.mu_star ** 2 - second) < 1e-12
    s = O.hermite_model("relu", 2, scale=b)(np.full(200000, 0.3), seed=1)
    assert abs(s.std() - O.hermite_model("relu", 2, scale=b).mu_star) < 0.01 * s.std()


def test_mixture_moments():
    mix = O.spiked_mixture(6, [[3.0, 1.0], [5.0, 0.5]], weights=[0.3, 0.7], align=0.4, seed=2)
    bar = sum(p * mix.covariance(c) for c, p in enumerate(mix.weights))
    assert abs(mix.spectral_norm() - np.linalg.eigvalsh(bar).max()) < 1e-10
    assert abs(mix.trace() - np.trace(bar)) < 1e-10
    for c in range(2):
        np.testing.assert_allclose(np.linalg.eigvalsh(mix.covariance(c))[-2:], np.sort(1 + mix.thetas[c]), rtol=1e-10)
    X = mix.sample(200000, seed=3)
    np.testing.assert_allclose(X.T @ X / X.shape[0], bar, atol=6 * 6 / math.sqrt(200000))
    Y = O.sample_mixture(200000, np.stack([mix.covariance(0), mix.covariance(1)]), mix.weights, seed=4)
    np.testing.assert_allclose(Y.T @ Y / Y.shape[0], bar, atol=6 * 6 / math.sqrt(200000))
    xi = O.target_direction(mix, seed=5)
    assert abs(xi @ xi * mix.spectral_norm() - 1) < 1e-12


def test_gradient_step_is_minus_eta_times_the_loss_gradient():
    rng = np.random.default_rng(0)
    k, d, m = 4, 3, 7
    F, w, X, y = rng.standard_normal((k, d)), rng.standard_normal(k), rng.standard_normal((m, d)), rng.standard_normal(m)
    loss = lambda F: 0.5 * np.mean((y - w @ np.tanh(F @ X.T) / math.sqrt(k)) ** 2)
    eps, grad = 1e-6, np.zeros((k, d))
    for i in range(k):
        for j in range(d):
            E = np.zeros((k, d))
            E[i, j] = eps
            grad[i, j] = (loss(F + E) - loss(F - E)) / (2 * eps)
    np.testing.assert_allclose(O.gradient_step(F, w, X, y, eta=0.7, activation="tanh"), F - 0.7 * grad, atol=1e-8)


def test_ridge_readout_minimises_the_penalised_loss():
    rng = np.random.default_rng(1)
    Phi, y, lam = rng.standard_normal((5, 9)), rng.standard_normal(9), 0.03
    w, train = O.ridge_readout(Phi, y, lam)
    A = np.vstack([Phi.T / math.sqrt(9), math.sqrt(lam) * np.eye(5)])
    ref = np.linalg.lstsq(A, np.concatenate([y / math.sqrt(9), np.zeros(5)]), rcond=None)[0]
    np.testing.assert_allclose(w, ref, rtol=1e-10)
    assert abs(train - (0.5 * np.mean((y - Phi.T @ ref) ** 2) + 0.5 * lam * ref @ ref)) < 1e-12


def test_degree_rule_boundaries_and_same_seed_same_numbers():
    assert [O.degree_rule(b) for b in (0.0, 0.45, 0.5, 0.6, 2 / 3, 0.74, 0.78, 0.8, 0.9)] == [1, 1, 1, 2, 2, 3, 4, 4, 4]
    mix = O.spiked_mixture(30, [4.0, 4.0], seed=0)
    xi = O.target_direction(mix, seed=1)
    a = O.one_step_trial(mix, xi, k=30, m=30, eta=5.0, seed=3)
    assert a == O.one_step_trial(mix, xi, k=30, m=30, eta=5.0, seed=3)
    assert a != O.one_step_trial(mix, xi, k=30, m=30, eta=5.0, seed=4)
    assert set(a) == {"nn", 1, 2, 4} and all(v[0] >= 0 and v[1] >= 0 for v in a.values())


@pytest.mark.parametrize("call, name", [
    (lambda: O.sample_mixture(10, np.array([[[1.0, 2.0], [2.0, 1.0]]])), "positive definite"),
    (lambda: O.sample_mixture(10, np.array([[[1.0, 0.5], [0.0, 1.0]]])), "symmetric"),
    (lambda: O.sample_mixture(10, np.eye(2)[None], weights=[0.5]), "weights"),
    (lambda: O.spiked_mixture(10, [2.0, -1.5]), "thetas"),
    (lambda: O.spiked_mixture(10, [2.0, 1.0], weights=[0.9, 0.3]), "weights"),
    (lambda: O.spiked_mixture(10, [2.0], align=1.5), "align"),
    (lambda: O.spiked_mixture(1, [2.0]), "d"),
    (lambda: O.hermite_coefficients("tanh", 3), "method"),
    (lambda: O.hermite_coefficients("gelu", 3), "activation"),
    (lambda: O.hermite_coefficients("relu", -1), "degree"),
    (lambda: O.hermite_coefficients("relu", 2, scale=0.0), "scale"),
    (lambda: O.hermite_coefficients("relu", 2, method="quadrature", nodes=1), "nodes"),
    (lambda: O.degree_rule(1.0), "beta"),
    (lambda: O.gradient_step(np.ones((2, 3)), np.ones(2), np.ones((4, 2)), np.ones(4), 1.0), "X"),
    (lambda: O.gradient_step(np.ones((2, 3)), np.ones(2), np.ones((4, 3)), np.ones(4), -1.0), "eta"),
    (lambda: O.ridge_readout(np.ones((2, 3)), np.ones(3), 0.0), "lam"),
    (lambda: O.one_step_trial("mix", np.ones(3), k=2, m=2, eta=1.0), "mixture"),
    (lambda: O.one_step_trial(O.spiked_mixture(4, [1.0]), np.ones(3), k=2, m=2, eta=1.0), "xi"),
    (lambda: O.one_step_trial(O.spiked_mixture(4, [1.0]), np.ones(4), k=0, m=2, eta=1.0), "k"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


def test_mutation_wrong_hermite_constant_is_caught(broken_claim):
    """He_j(0) with the wrong sign ((-1)^{j/2} dropped): mu_4 = +phi(0) instead of -phi(0)."""
    r = broken_claim("gmm_onestep:hermite_closed_form", (O, "_he_at_zero"),
                     lambda j: 0.0 if j % 2 else float(np.prod(np.arange(j - 1, 0, -2))) if j else 1.0)
    assert r.verdict == "not reproduced", r.measured


def test_mutation_missing_factorials_are_caught(broken_claim):
    """The Hermite model with coefficients mu_j instead of mu_j / j! (the normalisation of He_j forgotten)."""
    def no_factorial(activation="relu", degree=2, scale=1.0, method="closed", nodes=200):
        h = real(activation, degree, scale, method, nodes)
        fact = np.array([math.factorial(j) for j in range(h.coef.size)], dtype=float)
        return O.HermiteModel(coef=h.coef * fact, mu_star=h.mu_star, scale=h.scale)

    real = O.hermite_model
    r = broken_claim("gmm_onestep:equivalence_at_rule_degree", (O, "hermite_model"), no_factorial,
                     overrides=dict(ds=(100, 200), d_max=200, betas=(0.78,), n_trials=4))
    assert r.verdict == "not reproduced", r.measured
