"""theorylab.highdim.density_ratio (paper dre_lp): the Gaussian ratio, KL and E_P[r^p] against brute force and
scipy, the Newton fits against scipy.optimize, the exact L_p error against Monte Carlo, bad input, and broken
variants the claims catch."""

import numpy as np
import pytest
from scipy import optimize, stats

from theorylab.highdim import density_ratio as D


@pytest.fixture(scope="module")
def pair():
    return D.GaussianPair(np.array([0.3, -0.2]), np.array([0.9, 0.4]), np.array([[1.5, 0.3], [0.3, 0.8]]))


def test_ratio_and_kl_match_scipy_densities(pair):
    x = pair.sample("p", 50, seed=1)
    P = stats.multivariate_normal(pair.mean_p, pair.cov)
    Q = stats.multivariate_normal(pair.mean_q, pair.cov)
    np.testing.assert_allclose(pair.ratio(x), Q.pdf(x) / P.pdf(x), rtol=1e-10)
    xq = pair.sample("q", 400_000, seed=2)
    kl_mc = np.mean(Q.logpdf(xq) - P.logpdf(xq))
    assert abs(kl_mc - pair.kl) < 4 * np.std(Q.logpdf(xq) - P.logpdf(xq)) / np.sqrt(len(xq))
    assert D.gaussian_pair(3, 0.7, cov=np.diag([2.0, 1.0, 0.5])).kl == pytest.approx(0.7, rel=1e-12)


def test_ratio_moment_closed_form_quadrature_and_brute_force(pair):
    for p in (1.0, 1.5, 2.0, 3.0):
        closed = D.ratio_moment(pair, p)
        assert D.ratio_moment_quadrature(pair, p) == pytest.approx(closed, rel=1e-10)
    # brute-force 2-d integral of q^p p^(1-p) on a grid (independent of the log-ratio algebra)
    P = stats.multivariate_normal(pair.mean_p, pair.cov)
    Q = stats.multivariate_normal(pair.mean_q, pair.cov)
    g = np.linspace(-9, 10, 501)
    X, Y = np.meshgrid(g, g)
    pts = np.dstack([X, Y]).reshape(-1, 2)
    for p in (1.5, 2.0):
        val = np.sum(Q.pdf(pts) ** p * P.pdf(pts) ** (1 - p)) * (g[1] - g[0]) ** 2
        assert val == pytest.approx(D.ratio_moment(pair, p), rel=1e-6)


def test_newton_fits_match_scipy_minimisers(pair):
    xp, xq = pair.sample("p", 800, 3), pair.sample("q", 800, 4)
    Fp, Fq = np.hstack([np.ones((800, 1)), xp]), np.hstack([np.ones((800, 1)), xq])
    objectives = {"kl": lambda th: np.exp(Fp @ th).mean() - (Fq @ th).mean(),
                  "logistic": lambda th: np.logaddexp(0, Fp @ th).mean() + np.logaddexp(0, -(Fq @ th)).mean()}
    for loss, f in objectives.items():
        est = D.fit_log_linear(xp, xq, loss)
        ref = optimize.minimize(f, np.zeros(3), method="BFGS", options=dict(gtol=1e-9)).x
        assert est.converged and est.loss == loss
        np.testing.assert_allclose(np.r_[est.intercept, est.weights], ref, atol=1e-5)


def test_fits_approach_the_true_ratio(pair):
    xp, xq = pair.sample("p", 200_000, 5), pair.sample("q", 200_000, 6)
    for loss in D.LOSSES:
        est = D.fit_log_linear(xp, xq, loss)
        np.testing.assert_allclose(est.weights, pair.weights, atol=0.03)


def test_exact_lp_error_matches_monte_carlo(pair):
    est = D.LogLinearRatio(-0.4, np.array([0.5, 0.7]))
    for p in (1.0, 2.0, 3.0):
        mc = D.lp_error_mc(pair, est, p, n=400_000, seed=7)
        exact = D.lp_error(pair, est, p)
        assert abs(mc["moment"] - exact ** p) <= 5 * mc["moment_se"], (p, mc, exact)
    big = D.gaussian_pair(3, 2.0)                                 # p = 3, KL = 2: naive Monte Carlo is hopeless
    est3 = D.LogLinearRatio(-2.1, np.array([1.9, 0.1, -0.1]))
    tilted = D.lp_error_tilted_mc(big, est3, 3.0, n=200_000, seed=8)
    assert abs(tilted["moment"] - D.lp_error(big, est3, 3.0) ** 3) <= 5 * tilted["moment_se"]
    assert tilted["moment_se"] < 0.05 * tilted["moment"]
    truth = D.LogLinearRatio(-pair.kl - pair.weights @ pair.mean_p, pair.weights)
    assert D.lp_error(pair, truth, 2.0) == pytest.approx(0.0, abs=1e-12)
    assert D.lp_error_mc(pair, truth, 2.0, n=100)["lp"] == pytest.approx(0.0, abs=1e-10)


def test_mlp_gradient_matches_finite_differences_and_training_respects_the_constraint(pair):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    params = [rng.normal(size=(4, 2)), rng.normal(size=4), rng.normal(size=4), np.array([0.1])]
    for loss in D.LOSSES:
        _, grads = D._mlp_loss_grad(params, X, 12, loss)
        for i, idx in ((0, (1, 0)), (1, (2,)), (2, (3,)), (3, (0,))):
            up = [q.copy() for q in params]
            dn = [q.copy() for q in params]
            up[i][idx] += 1e-6
            dn[i][idx] -= 1e-6
            fd = (D._mlp_loss_grad(up, X, 12, loss)[0] - D._mlp_loss_grad(dn, X, 12, loss)[0]) / 2e-6
            assert grads[i][idx] == pytest.approx(fd, rel=1e-5, abs=1e-8)
    xp, xq = pair.sample("p", 300, 1), pair.sample("q", 300, 2)
    net = D.fit_mlp_ratio(xp, xq, "logistic", width=8, lipschitz=1.5, steps=200, seed=3)
    assert np.linalg.norm(net.W1, 2) <= 1.5 + 1e-9 and np.linalg.norm(net.w2) <= 1.5 + 1e-9
    assert net.losses[-1] < net.losses[0]
    np.testing.assert_allclose(net(xp), np.exp(net.log_ratio(xp)))


def test_same_seed_same_numbers(pair):
    np.testing.assert_array_equal(pair.sample("p", 10, 3), pair.sample("p", 10, 3))
    assert not np.array_equal(pair.sample("p", 10, 3), pair.sample("p", 10, 4))


@pytest.mark.parametrize("call, name", [
    (lambda: D.gaussian_pair(3, 0.5, cov=np.diag([1.0, 0.0, 1.0])), "cov"),
    (lambda: D.gaussian_pair(2, 0.5, cov=np.array([[1.0, 2.0], [2.0, 1.0]])), "cov"),
    (lambda: D.gaussian_pair(2, 0.5, cov=np.array([[1.0, 0.5], [0.1, 1.0]])), "cov"),
    (lambda: D.gaussian_pair(2, -0.1), "kl"),
    (lambda: D.gaussian_pair(0, 0.1), "d"),
    (lambda: D.GaussianPair(np.zeros(2), np.zeros(3), np.eye(2)), "mean_q"),
    (lambda: D.ratio_moment(D.gaussian_pair(2, 0.5), 0.5), "p"),
    (lambda: D.ratio_moment_quadrature(D.gaussian_pair(2, 0.5), 0.99), "p"),
    (lambda: D.ratio_moment("pair", 2.0), "pair"),
    (lambda: D.lp_error(D.gaussian_pair(2, 0.5), D.LogLinearRatio(0.0, np.zeros(2)), 0.0), "p"),
    (lambda: D.lp_error(D.gaussian_pair(2, 0.5), D.LogLinearRatio(0.0, np.zeros(3)), 2.0), "estimator"),
    (lambda: D.lp_error(D.gaussian_pair(2, 0.5), np.exp, 2.0), "estimator"),
    (lambda: D.lp_error_mc(D.gaussian_pair(2, 0.5), "r", 2.0), "estimator"),
    (lambda: D.lp_error_mc(D.gaussian_pair(2, 0.5), np.exp, 2.0, n=1), "n"),
    (lambda: D.lp_error_tilted_mc(D.gaussian_pair(2, 0.5), np.exp, 0.5), "p"),
    (lambda: D.lp_error_tilted_mc(D.gaussian_pair(2, 0.5), None, 2.0), "estimator"),
    (lambda: D.fit_log_linear(np.ones((5, 2)), np.ones((5, 3))), "x_q"),
    (lambda: D.fit_log_linear(np.ones((5, 2)), np.ones((5, 2)), "hinge"), "loss"),
    (lambda: D.fit_log_linear(np.ones((1, 2)), np.ones((5, 2))), "x_p"),
    (lambda: D.gaussian_pair(2, 0.5).sample("r", 3), "which"),
    (lambda: D.fit_mlp_ratio(np.ones((5, 2)), np.ones((5, 2)), width=0), "width"),
    (lambda: D.fit_mlp_ratio(np.ones((5, 2)), np.ones((5, 2)), lipschitz=0.0), "lipschitz"),
    (lambda: D.fit_mlp_ratio(np.ones((5, 2)), np.ones((5, 3))), "x_q"),
    (lambda: D.MLPRatio(np.ones((3, 2)), np.zeros(2), np.zeros(3), 0.0, 1.0), "b1"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


def test_mutation_error_under_q_is_caught(broken_claim):
    """|r_hat - r|^p averaged under Q instead of P: the tilt becomes exp(p (p + 1) KL)."""
    real = D._abs_expm1_moment

    def under_q(pair, estimator, p):
        a = pair.weights
        c = estimator.weights - a
        mean_w = estimator.intercept + estimator.weights @ pair.mean_p + pair.kl
        shift = float(c @ pair.cov @ a)                       # E_Q shifts X by mu: W's mean moves by c' mu
        inner = real(mean_w + (p + 1) * shift, np.sqrt(float(c @ pair.cov @ c)), p)
        return float(np.exp((p + 1) * pair.kl) * inner ** (1 / p))

    r = broken_claim("dre_lp:renyi_moment_identity", "theorylab.highdim.density_ratio.lp_error", under_q)
    assert r.verdict == "not reproduced", r.measured


def test_mutation_missing_tilt_is_caught(broken_claim):
    """The Gaussian tilt forgotten: E|e^W - 1|^p taken at W's untilted mean (the p Cov(W, V) shift dropped)."""
    real = D._abs_expm1_moment
    r = broken_claim("dre_lp:renyi_moment_identity", "theorylab.highdim.density_ratio._abs_expm1_moment",
                     lambda mean, sd, p: real(mean - 0.5 * p * sd * sd if sd > 0 else mean, sd, p))
    assert r.verdict == "not reproduced", r.measured


def test_mutation_moment_exponent_is_caught(broken_claim):
    """The informal statement's typo (1 - p) in the exponent: E_P[r^p] = exp(p (1 - p) KL)."""
    r = broken_claim("dre_lp:renyi_moment_identity", "theorylab.highdim.density_ratio.ratio_moment",
                     lambda pair, p: float(np.exp(p * (1 - p) * pair.kl)))
    assert r.verdict == "not reproduced", r.measured


def test_mutation_shrunk_estimator_is_caught(broken_claim):
    """The KL-loss estimator's weights shrunk by 0.8 (a wrong factor in one loss's fit): the losses disagree at small KL."""
    real = D.fit_log_linear

    def shrunk(x_p, x_q, loss="kl", **kw):
        est = real(x_p, x_q, loss, **kw)
        return est if loss == "logistic" else D.LogLinearRatio(est.intercept, 0.8 * est.weights, loss=loss)

    r = broken_claim("dre_lp:losses_agree_small_kl", "theorylab.highdim.density_ratio.fit_log_linear", shrunk)
    assert r.verdict == "not reproduced", r.measured
