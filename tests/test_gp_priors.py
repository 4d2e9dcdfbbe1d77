"""theorylab.gp.priors: the SE kernel against a loop reference, the exact posterior against the textbook
formulas (interpolation, prior limit, a direct solve), the law of the prior draws, UCB, and bad input."""

import numpy as np
import pytest

from theorylab.gp import priors as P


def test_se_kernel_matches_a_loop():
    rng = np.random.default_rng(0)
    X, Y = rng.uniform(-1, 1, (5, 3)), rng.uniform(-1, 1, (4, 3))
    ell, v = np.array([0.3, 0.5, 1.2]), 2.5
    K = P.se_kernel(X, Y, lengthscale=ell, variance=v)
    ref = np.array([[v * np.exp(-0.5 * sum((x[i] - y[i]) ** 2 / ell[i] ** 2 for i in range(3))) for y in Y] for x in X])
    np.testing.assert_allclose(K, ref, rtol=1e-12)
    np.testing.assert_allclose(P.se_kernel(X, X, lengthscale=0.4).diagonal(), 1.0)
    # a 1-d array is n points in d = 1
    np.testing.assert_allclose(P.se_kernel([0.0, 1.0], [0.0], lengthscale=1.0)[:, 0], [1.0, np.exp(-0.5)])


def test_posterior_matches_a_direct_solve_and_its_limits():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (8, 2))
    y = np.sin(3 * X[:, 0]) + X[:, 1]
    Q = rng.uniform(-1, 1, (6, 2))
    ell, v, s2 = 0.4, 1.7, 1e-2
    mu, sd = P.gp_posterior(X, y, Q, lengthscale=ell, variance=v, noise=s2)
    K = P.se_kernel(X, X, lengthscale=ell, variance=v) + s2 * np.eye(8)
    Kq = P.se_kernel(Q, X, lengthscale=ell, variance=v)
    np.testing.assert_allclose(mu, Kq @ np.linalg.solve(K, y), rtol=1e-9)
    np.testing.assert_allclose(sd ** 2, v - np.einsum("ij,ji->i", Kq, np.linalg.solve(K, Kq.T)), rtol=1e-8, atol=1e-12)
    # noise-free interpolation at the data, prior far away
    mu0, sd0 = P.gp_posterior(X, y, X, lengthscale=ell, noise=0.0)
    np.testing.assert_allclose(mu0, y, atol=1e-5)
    assert sd0.max() < 1e-3
    mu_far, sd_far = P.gp_posterior(X, y, [[50.0, 50.0]], lengthscale=ell, variance=v)
    assert abs(mu_far[0]) < 1e-12 and sd_far[0] == pytest.approx(np.sqrt(v))


def test_prior_draws_have_the_kernel_as_covariance_and_are_reproducible():
    X = np.linspace(0, 1, 4)[:, None]
    F = P.sample_gp_prior(X, lengthscale=0.5, variance=2.0, n_samples=40000, seed=3)
    assert F.shape == (40000, 4)
    C = np.cov(F.T)
    K = P.se_kernel(X, X, lengthscale=0.5, variance=2.0)
    # sd of a sample covariance entry <= sqrt(2) v / sqrt(n) = 0.014; 5 sd
    assert np.abs(C - K).max() < 0.07
    np.testing.assert_array_equal(F[:3], P.sample_gp_prior(X, lengthscale=0.5, variance=2.0, n_samples=40000, seed=3)[:3])
    assert not np.array_equal(F[0], P.sample_gp_prior(X, lengthscale=0.5, variance=2.0, n_samples=1, seed=4)[0])
    # near-duplicate points still factorise (jitter)
    Z = P.sample_gp_prior(np.linspace(0, 1, 400), lengthscale=0.5, seed=0)
    assert np.all(np.isfinite(Z))


def test_ucb():
    np.testing.assert_allclose(P.ucb([1.0, 2.0], [0.5, 0.0], 2.0), [2.0, 2.0])
    assert P.ucb(np.zeros((2, 3)), np.ones((2, 3)), 0.0).shape == (2, 3)


@pytest.mark.parametrize("call, match", [
    (lambda: P.se_kernel([[0.0]], [[1.0]], lengthscale=0.0), "lengthscale"),
    (lambda: P.se_kernel([[0.0]], [[1.0]], lengthscale=-1.0), "lengthscale"),
    (lambda: P.se_kernel([[0.0, 1.0]], [[1.0, 0.0]], lengthscale=[1.0, 0.0]), "lengthscale"),
    (lambda: P.se_kernel([[0.0, 1.0]], [[1.0, 0.0]], lengthscale=[1.0, 1.0, 1.0]), "lengthscale"),
    (lambda: P.se_kernel([[0.0, 1.0]], [[1.0]], lengthscale=1.0), "Y"),
    (lambda: P.se_kernel(np.zeros((0, 2)), [[1.0, 0.0]], lengthscale=1.0), "X"),
    (lambda: P.se_kernel([[np.nan]], [[1.0]], lengthscale=1.0), "X"),
    (lambda: P.se_kernel([[0.0]], [[1.0]], lengthscale=1.0, variance=-1.0), "variance"),
    (lambda: P.gp_posterior(np.zeros((0, 1)), [], [[0.0]], lengthscale=1.0), "X_data"),
    (lambda: P.gp_posterior([[0.0], [1.0]], [1.0], [[0.0]], lengthscale=1.0), "y_data"),
    (lambda: P.gp_posterior([[0.0], [1.0]], [1.0, 2.0], [[0.0, 1.0]], lengthscale=1.0), "X_query"),
    (lambda: P.gp_posterior([[0.0]], [1.0], [[0.0]], lengthscale=1.0, noise=-1e-3), "noise"),
    (lambda: P.sample_gp_prior([[0.0]], lengthscale=1.0, n_samples=0), "n_samples"),
    (lambda: P.sample_gp_prior(np.zeros((6000, 1)), lengthscale=1.0), "number of points"),
    (lambda: P.sample_gp_prior([[0.0]], lengthscale="1"), "lengthscale"),
    (lambda: P.ucb([1.0], [1.0, 2.0], 1.0), "same shape"),
    (lambda: P.ucb([1.0], [-1.0], 1.0), "std"),
    (lambda: P.ucb([1.0], [1.0], -1.0), "beta"),
])
def test_bad_input_is_refused_naming_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
