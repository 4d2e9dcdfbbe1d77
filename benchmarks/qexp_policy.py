"""qexp_policy benchmark: the escape-threshold predicate's mean policy gradient J'(mu) = E r'(mu + sigma Z_q)
(theorylab.toys.smoothed_gradient: one vectorised trapezoid quadrature over all mu) against scipy's adaptive
``quad`` per mu (the reference the tests compare it with); 121 values of mu on [0, valley], the Cauchy (q = 2)
policy at sigma = 1.9 on the default two-bump bandit.  ratio = quad time / vectorised time (no jitted kernel: the
paper has no hot loop)."""

import time

import numpy as np
from scipy import integrate

from theorylab.core import benchmark, best_time
from theorylab.toys import q_exponential as Q


def _quad_reference(mus, q, sigma, b):
    beta = Q.beta_from_scale(q, sigma)
    f = lambda a, mu: float(Q.bandit_reward_grad(a, b)) * float(Q.q_gaussian_pdf(a, q, beta, mu))
    return np.array([integrate.quad(f, -12.0, b.c + 12.0, args=(mu,), points=[0.0, b.c, mu], limit=400,
                                    epsabs=1e-12)[0] for mu in mus])


@benchmark("qexp_policy", "smoothed_gradient")
def bench_smoothed_gradient(*, quick=False):
    """121 mu values (quick: 11)."""
    b, q, sigma = Q.Bandit(), 2.0, 1.9
    mus = np.linspace(0.0, Q.bandit_valley(b), 11 if quick else 121)
    t_vec = best_time(Q.smoothed_gradient, mus, q, sigma, b, repeat=3)
    t0 = time.perf_counter()
    ref = _quad_reference(mus, q, sigma, b)
    t_quad = time.perf_counter() - t0
    diff = float(np.abs(Q.smoothed_gradient(mus, q, sigma, b) - ref).max())
    return {"ratio": t_quad / t_vec, "quad_s": t_quad, "vectorised_s": t_vec, "n_mu": mus.size, "max_abs_diff": diff}
