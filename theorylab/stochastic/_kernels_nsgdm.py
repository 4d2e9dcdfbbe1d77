"""Jitted kernels of paper ``nsgdm_heavy``: batched NSGDM, plain and clipped SGD over many independent runs on a
test function with heavy-tailed gradient noise, and the exponential moving average of pure noise (eta = 0).

Algorithm 1 (Batched NSGDM, as restated in the spec from third-party sources), constant eta and beta:

    g_t = grad F(x_t) + s(x_t) (1/B) sum_i xi_t^i,     s(x) = sqrt(sigma0^2 + sigma1^2 ||grad F(x)||^2)
    m_t = beta m_{t-1} + (1 - beta) g_t   (m_0 := g_1),     x_{t+1} = x_t - eta m_t / ||m_t||   (0/0 := 0).

No input checking here (theorylab.stochastic.nsgdm validates).  Run r owns a xoshiro256** state seeded from
seeds[r] (theorylab.core.rng), so run r is the same whatever runs are computed with it.
"""

import numpy as np
from numba import njit

from ..core.rng import seed_state
from ._kernels_noise import draw

OBJ_QUADRATIC = 0   # F(x) = 1/2 ||x||^2
OBJ_COSH = 1        # F(x) = sum_i (cosh x_i - 1), (L0, L1) = (1, 1)-smooth

METHOD_NSGDM = 0
METHOD_SGD = 1
METHOD_CLIPPED = 2


@njit(cache=True)
def gradient(objective, x, out):
    """out = grad F(x); returns ||grad F(x)||."""
    s = 0.0
    for i in range(x.size):
        gi = x[i] if objective == OBJ_QUADRATIC else np.sinh(x[i])
        out[i] = gi
        s += gi * gi
    return np.sqrt(s)


@njit(cache=True, nogil=True)
def run_methods(objective, x1, n_steps, eta, beta, method, clip, law, nu, sigma0, sigma1, batch, bound, seeds,
                avg_norm, last_norm, diverged_at):
    """Per run r: avg_norm[r] = (1/T) sum_{t=1}^T ||grad F(x_t)||, last_norm[r] = ||grad F(x_T)||.  A run whose
    gradient norm leaves [0, bound] (or is not finite) stops: diverged_at[r] = t (else -1), last_norm[r] = the
    last finite norm."""
    d = x1.size
    state = np.empty(4, dtype=np.uint64)
    x = np.empty(d)
    gF = np.empty(d)
    g = np.empty(d)
    m = np.empty(d)
    for r in range(seeds.shape[0]):
        seed_state(seeds[r], state)
        x[:] = x1
        total = 0.0
        last = 0.0
        diverged_at[r] = -1
        for t in range(1, n_steps + 1):
            gn = gradient(objective, x, gF)
            if not gn <= bound:
                diverged_at[r] = t
                break
            last = gn
            total += gn
            s = np.sqrt(sigma0 * sigma0 + sigma1 * sigma1 * gn * gn)
            if batch == 1:
                for i in range(d):
                    g[i] = gF[i] + s * draw(state, law, nu)
            else:
                s_over_b = s / batch
                for i in range(d):
                    e = 0.0
                    for b in range(batch):
                        e += draw(state, law, nu)
                    g[i] = gF[i] + s_over_b * e
            if method == METHOD_NSGDM:
                mn = 0.0
                for i in range(d):
                    m[i] = g[i] if t == 1 else beta * m[i] + (1.0 - beta) * g[i]
                    mn += m[i] * m[i]
                if mn > 0.0:
                    step = eta / np.sqrt(mn)
                    for i in range(d):
                        x[i] -= step * m[i]
            else:
                step = eta
                if method == METHOD_CLIPPED:
                    nrm = 0.0
                    for i in range(d):
                        nrm += g[i] * g[i]
                    nrm = np.sqrt(nrm)
                    if nrm > clip:
                        step = eta * clip / nrm
                for i in range(d):
                    x[i] -= step * g[i]
        avg_norm[r] = total / n_steps
        last_norm[r] = last


@njit(cache=True, nogil=True)
def ema_noise(law, nu, one_minus_beta, d, q, burn, n, seeds, out):
    """eta = 0: m_t = beta m_{t-1} + (1 - beta) xi_t (m_0 = xi_1) for d i.i.d. unit-scale coordinates; out[r] =
    the mean of ||m_t||^q over the n steps after ``burn`` (the stationary E||m_t - grad F||^q)."""
    beta = 1.0 - one_minus_beta
    state = np.empty(4, dtype=np.uint64)
    m = np.empty(d)
    for r in range(seeds.shape[0]):
        seed_state(seeds[r], state)
        for i in range(d):
            m[i] = draw(state, law, nu)
        total = 0.0
        for t in range(burn + n):
            s = 0.0
            for i in range(d):
                m[i] = beta * m[i] + one_minus_beta * draw(state, law, nu)
                s += m[i] * m[i]
            if t >= burn:
                total += s ** (0.5 * q)
        out[r] = total / n
