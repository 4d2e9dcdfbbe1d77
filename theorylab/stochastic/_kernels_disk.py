"""Jitted kernels of paper ``disk_dp``: DP-SGD and DiSK (the simplified Kalman filter of the privatised gradient)
on a finite sum of diagonal quadratics f(x; i) = 1/2 sum_j h_ij (x_j - a_ij)^2, many independent runs.

One step of DiSK (the update of the authors' ReadMe, pytorch/opacus research/disk_optimizer, restated in the
spec), with c = (1 - kappa)/(kappa gamma) and d_t = x_t - x_{t-1} (d_0 = 0):

    y_t         = x_t + gamma d_t
    v_i         = c grad f(y_t; i) + (1 - c) grad f(x_t; i)              (two gradients per sample)
    gt_{t+1/2}  = (1/B) sum_{b <= B} clip_C(v_{i_b}) + w_t,   w_t ~ N(0, (sigma C / B)^2 I)
    g_t         = gt_{1/2} (t = 0),   (1 - kappa) g_{t-1} + kappa gt_{t+1/2} (t >= 1)
    x_{t+1}     = x_t - eta g_t                                          (base optimiser: SGD)

kappa = 1 gives c = 0, g_t = gt: DP-SGD.  The minibatch is B indices drawn uniformly with replacement; per step
the draws are the B indices then the d normals of w_t, whatever kappa, so runs with the same seed share their
batches and privacy noise.  No input checking here (theorylab.stochastic.disk validates).  Each run owns a
xoshiro256** state seeded from its entry of ``seeds`` (theorylab.core.rng).
"""

import numpy as np
from numba import njit

from ..core.rng import below, normal, seed_state

OVERFLOW = 1e150        # a run whose optimality gap exceeds this is stopped and marked inf


@njit(cache=True, nogil=True, fastmath=True)
def half_gradient(h, a, x, y, c, C, noise_std, B, state, gt, v, idx, w):
    """gt = (1/B) sum_b clip_C(c grad f(y; i_b) + (1 - c) grad f(x; i_b)) + w; returns how many were clipped.
    The batch indices are written to idx, the privacy noise to w."""
    n, d = h.shape
    for j in range(d):
        gt[j] = 0.0
    n_clip = 0
    for b in range(B):
        i = below(state, n)
        idx[b] = i
        s = 0.0
        for j in range(d):
            vj = c * h[i, j] * (y[j] - a[i, j]) + (1.0 - c) * h[i, j] * (x[j] - a[i, j])
            v[j] = vj
            s += vj * vj
        scale = 1.0
        norm = np.sqrt(s)
        if norm > C:
            scale = C / norm
            n_clip += 1
        for j in range(d):
            gt[j] += scale * v[j]
    for j in range(d):
        w[j] = noise_std * normal(state)
        gt[j] = gt[j] / B + w[j]
    return n_clip


@njit(cache=True, nogil=True)
def filter_step(t, kappa, gt, g):
    """g_t = gt (t = 0), else (1 - kappa) g_{t-1} + kappa gt."""
    for j in range(g.size):
        g[j] = gt[j] if t == 0 else (1.0 - kappa) * g[j] + kappa * gt[j]


@njit(cache=True, nogil=True)
def disk_runs(h, a, hbar, m, x_star, x0, eta, kappa, c, gamma, C, noise_std, B, n_steps, record_every, seeds,
              err2, grad2, gap, clipped):
    """Run r: err2[r, k], grad2[r, k], gap[r, k] = means over the steps t of window k (t // record_every = k) of
    ||g_t - grad f(x_t)||^2, ||grad f(x_t)||^2 and f(x_t) - f* (grad f(x) = hbar x - m, f - f* =
    1/2 sum hbar (x - x_star)^2); clipped[r] = per-sample vectors clipped.  A run whose gap passes OVERFLOW
    is stopped, its remaining windows set to inf."""
    n, d = h.shape
    state = np.empty(4, dtype=np.uint64)
    x, xp, y, g = np.empty(d), np.empty(d), np.empty(d), np.empty(d)
    gt, v, w = np.empty(d), np.empty(d), np.empty(d)
    idx = np.empty(B, dtype=np.int64)
    K = err2.shape[1]
    for r in range(seeds.shape[0]):
        seed_state(seeds[r], state)
        for j in range(d):
            x[j] = x0[j]
            xp[j] = x0[j]
        for k in range(K):
            err2[r, k] = 0.0
            grad2[r, k] = 0.0
            gap[r, k] = 0.0
        n_clip = 0
        for t in range(n_steps):
            for j in range(d):
                y[j] = x[j] + gamma * (x[j] - xp[j])
            n_clip += half_gradient(h, a, x, y, c, C, noise_std, B, state, gt, v, idx, w)
            filter_step(t, kappa, gt, g)
            se, sg, sf = 0.0, 0.0, 0.0
            for j in range(d):
                gf = hbar[j] * x[j] - m[j]
                se += (g[j] - gf) ** 2
                sg += gf * gf
                sf += 0.5 * hbar[j] * (x[j] - x_star[j]) ** 2
            k = t // record_every
            err2[r, k] += se
            grad2[r, k] += sg
            gap[r, k] += sf
            if not sf < OVERFLOW:
                for kk in range(k, K):
                    err2[r, kk] = np.inf
                    grad2[r, kk] = np.inf
                    gap[r, kk] = np.inf
                break
            for j in range(d):
                xp[j] = x[j]
                x[j] -= eta * g[j]
        clipped[r] = n_clip
        for k in range(K):
            cnt = min(record_every, n_steps - k * record_every)
            err2[r, k] /= cnt
            grad2[r, k] /= cnt
            gap[r, k] /= cnt


@njit(cache=True, nogil=True)
def disk_trace(h, a, x0, eta, kappa, c, gamma, C, noise_std, B, seed, X, G, W, IDX):
    """One run of n_steps = G.shape[0] steps, everything recorded: X[t] = x_t (t = 0..n_steps), G[t] = g_t,
    W[t] = w_t, IDX[t] = the batch of step t.  Returns the number of clipped per-sample vectors."""
    n, d = h.shape
    state = np.empty(4, dtype=np.uint64)
    seed_state(seed, state)
    y, g, gt, v = np.empty(d), np.empty(d), np.empty(d), np.empty(d)
    for j in range(d):
        X[0, j] = x0[j]
    n_clip = 0
    for t in range(G.shape[0]):
        tp = t - 1 if t > 0 else 0
        for j in range(d):
            y[j] = X[t, j] + gamma * (X[t, j] - X[tp, j])
        n_clip += half_gradient(h, a, X[t], y, c, C, noise_std, B, state, gt, v, IDX[t], W[t])
        filter_step(t, kappa, gt, g)
        for j in range(d):
            G[t, j] = g[j]
            X[t + 1, j] = X[t, j] - eta * g[j]
    return n_clip
