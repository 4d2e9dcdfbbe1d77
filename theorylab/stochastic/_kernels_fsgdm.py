"""Jitted kernels of paper ``fsgdm``: FSGDM's stage-wise momentum, one-stage momentum filters of white noise,
and momentum SGD on a noisy diagonal quadratic over many independent runs.

FSGDM (the authors' optimiser, GitHub yinleung/FSGDM, as restated in the spec): the step counter starts at 1,
delta = Sigma // N steps per stage, s = (step // delta) delta, mu = c Sigma, u = s / (s + mu), and

    m <- g (first call),  m <- u m + v g (later calls),   theta <- theta - lr m.

No input checking here (theorylab.stochastic.fsgdm validates).  Each run owns a xoshiro256** state seeded from
its entry of ``seeds`` (theorylab.core.rng), so run r is the same whatever runs are computed with it.
"""

import numpy as np
from numba import njit

from ..core.rng import normal, seed_state

MODE_FSGDM = 0      # u_t and v of FSGDM
MODE_MATCHED = 1    # fixed u, v_t = (v / (1 - u_t)) (1 - u): same DC gain as FSGDM at every step


@njit(cache=True)
def stage_u(step, delta, mu):
    """FSGDM's momentum coefficient at ``step`` (>= 1): s = (step // delta) delta, u = s / (s + mu)."""
    s = (step // delta) * delta
    return s / (s + mu)


@njit(cache=True)
def u_schedule(n_steps, delta, mu, out):
    """out[t - 1] = u at step t = 1..n_steps."""
    for t in range(1, n_steps + 1):
        out[t - 1] = stage_u(t, delta, mu)


@njit(cache=True, nogil=True)
def filter_noise(u, v, burn, seeds, out):
    """Run r: white N(0, 1) g_t through m_t = u m_{t-1} + v g_t (m_0 = v g_0); the ``burn`` first outputs are
    dropped, the next ``out.shape[1]`` are stored in out[r]."""
    n = out.shape[1]
    state = np.empty(4, dtype=np.uint64)
    for r in range(seeds.shape[0]):
        seed_state(seeds[r], state)
        m = 0.0
        for t in range(burn + n):
            m = u * m + v * normal(state)
            if t >= burn:
                out[r, t - burn] = m


@njit(cache=True, nogil=True)
def momentum_quadratic(lam, theta0, lr, noise, wd, n_steps, delta, mu, v, mode, u_fixed, seeds, curve):
    """Momentum SGD on f = 1/2 sum lam_i theta_i^2 with gradient lam theta + wd theta + noise xi, xi ~ N(0, I).
    curve[r, k] = f(theta^r) after step k delta (k = 0..n_steps // delta; k = 0 is theta0)."""
    d = lam.size
    state = np.empty(4, dtype=np.uint64)
    theta = np.empty(d)
    m = np.empty(d)
    for r in range(seeds.shape[0]):
        seed_state(seeds[r], state)
        theta[:] = theta0
        f = 0.0
        for i in range(d):
            f += 0.5 * lam[i] * theta[i] * theta[i]
        curve[r, 0] = f
        for t in range(1, n_steps + 1):
            ut = stage_u(t, delta, mu)
            if mode == MODE_FSGDM:
                uu, vv = ut, v
            else:
                uu, vv = u_fixed, v * (1.0 - u_fixed) / (1.0 - ut)
            for i in range(d):
                g = (lam[i] + wd) * theta[i] + noise * normal(state)
                if t == 1:
                    m[i] = g
                else:
                    m[i] = uu * m[i] + vv * g
                theta[i] -= lr * m[i]
            if t % delta == 0:
                f = 0.0
                for i in range(d):
                    f += 0.5 * lam[i] * theta[i] * theta[i]
                curve[r, t // delta] = f
