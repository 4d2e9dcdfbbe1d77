"""theorylab.toys.q_exponential (paper qexp_policy): the q-Gaussian family against scipy's Beta, normal and Student-t,
the samplers, the Hill functional, the bandit's mean gradient against quadrature and the score against finite
differences, reproducibility, bad input, and the authors' Box-Muller parameter caught by a claim."""

import numpy as np
import pytest
from scipy import integrate, stats

from theorylab.toys import q_exponential as Q


@pytest.mark.parametrize("q", [-1.0, 0.3, 0.5, 1.0, 1.5, 2.0, 2.7])
def test_cdf_and_pdf_against_scipy_families(q):
    beta, x = 0.8, np.linspace(-4, 4, 41)
    if q < 1:
        a = 1 / np.sqrt(beta * (1 - q))
        alpha = (2 - q) / (1 - q)
        ref = stats.beta(alpha, alpha, loc=-a, scale=2 * a)
    elif q == 1:
        ref = stats.norm(scale=1 / np.sqrt(2 * beta))
    else:
        ref = stats.t(Q.student_t_dof(q), scale=1 / np.sqrt((3 - q) * beta))
    np.testing.assert_allclose(Q.q_gaussian_cdf(x, q, beta), ref.cdf(x), atol=1e-12)
    np.testing.assert_allclose(Q.q_gaussian_pdf(x, q, beta), ref.pdf(x), rtol=1e-9, atol=1e-14)


def test_exp_q_inverts_log_q_and_limits():
    x = np.linspace(0.1, 3, 7)
    for q in (-0.5, 0.5, 1.0, 1.5, 2.5):
        np.testing.assert_allclose(Q.exp_q(Q.log_q(x, q), q), x, rtol=1e-12)
    np.testing.assert_allclose(Q.exp_q(0.3, 1 + 1e-9), np.exp(0.3), rtol=1e-7)
    assert Q.exp_q(-10.0, 0.5) == 0.0                       # compact support: [1 + x/2]_+ = 0


def test_sampler_distribution_support_and_authors_gaussian():
    for q in (0.5, 1.0, 2.0):
        x = Q.q_gaussian_sample(50_000, q, 0.7, mu=1.0, seed=3)
        assert stats.kstest(x, lambda t: Q.q_gaussian_cdf(t, q, 0.7, 1.0)).pvalue > 1e-4
    x = Q.q_gaussian_sample(50_000, 0.5, 0.7, seed=4)
    assert np.abs(x).max() <= 1 / np.sqrt(0.7 * 0.5)
    assert Q.box_muller_parameter(2.0, authors=True) == 1.0   # the authors' q' at q = 2: Gaussian draws
    xa = Q.q_gaussian_sample(50_000, 2.0, 1.0, seed=5, authors=True)
    assert stats.kstest(xa, stats.norm(scale=1.0).cdf).pvalue > 1e-4
    np.testing.assert_array_equal(Q.q_gaussian_sample(10, 1.5, seed=7), Q.q_gaussian_sample(10, 1.5, seed=7))


def test_hill_estimator_on_pareto_and_population_limit():
    rng = np.random.default_rng(0)
    x = rng.pareto(2.0, 10_001) + 1                          # exact Pareto, index 2: log-spacings Exp(1/2)
    k = 10_000
    top = np.sort(x)[-k - 1:]
    assert Q.hill_estimator(x, k) == pytest.approx(np.mean(np.log(top[1:] / top[0])), rel=1e-12)
    for q in (1.5, 2.0):
        assert Q.population_hill(q, 1e-7) == pytest.approx(1 / Q.tail_index(q), rel=2e-3)
        s = lambda t: 2 * stats.t.sf(t, Q.student_t_dof(q))  # independent: E[log(|X|/t) | |X| > t] by quad
        p = 0.05
        t = stats.t.isf(p / 2, Q.student_t_dof(q))
        ref = integrate.quad(lambda y: np.log(y / t) * 2 * stats.t.pdf(y, Q.student_t_dof(q)), t, np.inf)[0] / p
        assert Q.population_hill(q, p) == pytest.approx(ref, rel=1e-7)
        assert s(t) == pytest.approx(p)


def test_smoothed_gradient_and_score():
    b = Q.Bandit()
    for q, sigma in ((0.5, 1.3), (1.0, 0.9), (2.0, 1.7)):
        beta = Q.beta_from_scale(q, sigma)
        for mu in (0.0, 1.5, 3.0):
            ref = integrate.quad(lambda a: float(Q.bandit_reward_grad(a, b)) * float(Q.q_gaussian_pdf(a, q, beta, mu)),
                                 -20, 25, points=[0, 5, mu], limit=400, epsabs=1e-12)[0]
            assert Q.smoothed_gradient(mu, q, sigma, b)[0] == pytest.approx(ref, abs=1e-8)
        y, h = np.array([-0.7, 0.2, 0.9]), 1e-6      # log p(y | mu), y held fixed
        fd = (np.log(Q.q_gaussian_pdf(y, q, beta, h)) - np.log(Q.q_gaussian_pdf(y, q, beta, -h))) / (2 * h)
        np.testing.assert_allclose(Q.policy_score(y, q, sigma), fd, rtol=1e-6)
    a = np.linspace(-2, 7, 11)
    np.testing.assert_allclose(Q.bandit_reward_grad(a, b), (Q.bandit_reward(a + 1e-6, b) - Q.bandit_reward(a - 1e-6, b))
                               / 2e-6, rtol=1e-6, atol=1e-9)


def test_policy_gradient_mean_step_is_the_smoothed_gradient():
    """One PG step from mu0: the mean displacement over runs is lr J'(mu0) within 5 s.e."""
    q, sigma = 2.0, 1.5
    mu = Q.policy_gradient(q, sigma, runs=4000, steps=1, batch=16, lr=1.0, mu0=1.0, seed=2)
    d = mu - 1.0
    assert abs(d.mean() - Q.smoothed_gradient(1.0, q, sigma)[0]) < 5 * d.std() / np.sqrt(d.size)


@pytest.mark.parametrize("call, match", [
    (lambda: Q.q_gaussian_pdf(0.0, 3.0), "q must be"),
    (lambda: Q.q_gaussian_cdf(0.0, float("nan")), "q must be"),
    (lambda: Q.q_gaussian_sample(10, "2"), "q must be"),
    (lambda: Q.q_gaussian_sample(0, 2.0), "n must be"),
    (lambda: Q.q_gaussian_pdf(0.0, 2.0, beta=0.0), "beta must be"),
    (lambda: Q.student_t_dof(1.0), "q must be"),
    (lambda: Q.population_hill(2.0, 1.5), "p must be"),
    (lambda: Q.hill_estimator(np.ones(5), 5), "k must be"),
    (lambda: Q.policy_gradient(1.0, -1.0), "sigma must be"),
    (lambda: Q.policy_gradient(1.0, 1.0, batch=1), "batch must be"),
    (lambda: Q.Bandit(w=0.0), "Bandit.w must be"),
    (lambda: Q.bandit_reward(0.0, bandit=None), "bandit must be"),
])
def test_bad_input_is_refused_naming_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_authors_box_muller_parameter_is_caught_by_a_claim(broken_claim):
    assert broken_claim.intact("qexp_policy:sampler_matches_cdf").verdict == "reproduced"
    r = broken_claim("qexp_policy:sampler_matches_cdf", (Q, "box_muller_parameter"),
                     lambda q, authors=False: (q - 1.0) / (3.0 - q))
    assert r.verdict == "not reproduced"
