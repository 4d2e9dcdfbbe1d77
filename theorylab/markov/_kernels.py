"""Jitted kernels: pairs of constant-step SGD chains (steps gamma and 2*gamma) with averaging.

Notation of Sheshukova et al. (ICLR 2025), Sec. 2: theta_{k+1} = theta_k - gamma (grad f(theta_k) + eps_{k+1}).
Each chain pair runs ``n_burn + n`` steps and averages the iterates theta_{n_burn}, ...,
theta_{n_burn+n-1}; it also averages the noise at the optimum, eps_{k+1}(theta*), of the
two chains over the same window, which gives the leading term
-H^{-1} (2 mean(eps^(gamma)) - mean(eps^(2 gamma))) of the expansion of the Richardson–Romberg
error (with shared noise the two means coincide and this is -H^{-1} mean(eps)).

No input checking here (see theorylab.markov).  Every chain owns a xoshiro256** state seeded
from its own entry of ``seeds`` inside the ``prange`` body (normals by the ziggurat,
theorylab.core.rng), so the output does not depend on the number of threads.
"""

import numpy as np
from numba import njit, prange

from ..core.rng import below, normal, seed_state

COS = 0       # f(x) = x^2 + cos x            (the authors' 1-d example)
SOFTPLUS = 1  # f(x) = x^2 / 2 + c softplus(b x)  (non-symmetric: f''' != 0)
QUADRATIC = 2  # f(x) = x^2 / 2               (linear gradient: no bias at any gamma)


@njit(cache=True)
def grad_1d(kind, x, c, b):
    """f'(x) for the 1-d test functions."""
    if kind == COS:
        return 2.0 * x - np.sin(x)
    if kind == SOFTPLUS:
        return x + c * b / (1.0 + np.exp(-b * x))
    return x


@njit(cache=True, parallel=True)
def pair_start(seeds, states):
    """states[m] <- the xoshiro256** state of chain pair m, seeded from seeds[m]."""
    for m in prange(seeds.shape[0]):
        seed_state(seeds[m], states[m])


@njit(cache=True, parallel=True)
def pair_steps_1d(kind, c, b, gamma, sigma, n_burn, k0, k1, states, x, sums, coupled, bound, diverged):
    """Steps k0, ..., k1 - 1 of the 1-d chain pairs with additive N(0, sigma^2) noise, resumable.

    Per pair m: states[m] its xoshiro256** state, x[m] = (theta^(gamma), theta^(2 gamma)), sums[m] the
    running sums over the window (k >= n_burn) of (theta^(gamma), theta^(2 gamma), eps^(gamma),
    eps^(2 gamma)), all updated in place; diverged[m] = step at which it left |x| <= bound (then
    skipped), else -1.  Calling it over consecutive ranges gives the numbers of one call.
    """
    for m in prange(states.shape[0]):
        if diverged[m] >= 0:
            continue
        state = states[m]
        x1 = x[m, 0]
        x2 = x[m, 1]
        s1 = sums[m, 0]
        s2 = sums[m, 1]
        se1 = sums[m, 2]
        se2 = sums[m, 3]
        for k in range(k0, k1):
            e1 = sigma * normal(state)
            e2 = e1 if coupled else sigma * normal(state)
            if k >= n_burn:
                s1 += x1
                s2 += x2
                se1 += e1
                se2 += e2
            x1 -= gamma * (grad_1d(kind, x1, c, b) + e1)
            x2 -= 2.0 * gamma * (grad_1d(kind, x2, c, b) + e2)
            if not (abs(x1) <= bound and abs(x2) <= bound):
                diverged[m] = k
                break
        x[m, 0] = x1
        x[m, 1] = x2
        sums[m, 0] = s1
        sums[m, 1] = s2
        sums[m, 2] = se1
        sums[m, 3] = se2


def pair_chains_1d(kind, c, b, gamma, sigma, x0, n_burn, n, seeds, coupled, bound, out, diverged):
    """1-d chains with additive N(0, sigma^2) noise, in one call of :func:`pair_steps_1d`.

    out[m] = (mean theta^(gamma), mean theta^(2 gamma), mean eps^(gamma), mean eps^(2 gamma)) over the window;
    diverged[m] = step at which chain m left |x| <= bound (derived by the caller), else -1.
    """
    M = seeds.shape[0]
    states = np.empty((M, 4), dtype=np.uint64)
    pair_start(seeds, states)
    x = np.full((M, 2), x0)
    diverged[:] = -1
    sums = np.zeros((M, 4))
    pair_steps_1d(kind, c, b, gamma, sigma, n_burn, 0, n_burn + n, states, x, sums, coupled, bound, diverged)
    out[:] = sums / n


@njit(cache=True)
def logistic_grad_i(A, y, lam, i, theta, g):
    """g <- grad f_i(theta) for f_i = log(1 + exp(-y_i a_i.theta)) + lam/2 |theta|^2."""
    t = 0.0
    for j in range(theta.shape[0]):
        t += A[i, j] * theta[j]
    w = -y[i] / (1.0 + np.exp(y[i] * t))
    for j in range(theta.shape[0]):
        g[j] = w * A[i, j] + lam * theta[j]


@njit(cache=True, parallel=True)
def pair_chains_logistic(A, y, lam, G_star, gamma, x0, n_burn, n, seeds, coupled, bound, pr1, pr2, eps1, eps2,
                         diverged):
    """Logistic-regression chains, noise from sampling one data point per step.

    eps_{k+1}(theta) = grad f_{i_k}(theta) - grad f(theta) is state dependent; at theta* it is
    G_star[i_k] (grad f(theta*) = 0).  pr1/pr2/eps1/eps2 (M, d) receive the window averages.
    """
    n_data, d = A.shape
    for m in prange(seeds.shape[0]):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[m], state)
        th1 = x0.copy()
        th2 = x0.copy()
        g1 = np.empty(d)
        g2 = np.empty(d)
        s1 = np.zeros(d)
        s2 = np.zeros(d)
        se1 = np.zeros(d)
        se2 = np.zeros(d)
        diverged[m] = -1
        for k in range(n_burn + n):
            i1 = below(state, n_data)
            i2 = i1 if coupled else below(state, n_data)
            if k >= n_burn:
                for j in range(d):
                    s1[j] += th1[j]
                    s2[j] += th2[j]
                    se1[j] += G_star[i1, j]
                    se2[j] += G_star[i2, j]
            logistic_grad_i(A, y, lam, i1, th1, g1)
            logistic_grad_i(A, y, lam, i2, th2, g2)
            bad = False
            for j in range(d):
                th1[j] -= gamma * g1[j]
                th2[j] -= 2.0 * gamma * g2[j]
                if not (abs(th1[j]) <= bound and abs(th2[j]) <= bound):
                    bad = True
            if bad:
                diverged[m] = k
                break
        for j in range(d):
            pr1[m, j] = s1[j] / n
            pr2[m, j] = s2[j] / n
            eps1[m, j] = se1[j] / n
            eps2[m, j] = se2[j] / n
