"""Jitted kernel of theorylab.finite_sum.svrg (paper alpha_svrg): per-coordinate central moments of the
alpha-SVRG estimate over many index draws, streamed (no (draws, d) array of estimates).

No input checks here: :func:`theorylab.finite_sum.svrg.mc_estimator_variance` validates.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _estimate(G, H, mu_h, alpha, idx, r, g):
    """g <- (1/b) sum_j G[i_j] - alpha (H[i_j] - mu_h) over the b indices of draw r."""
    b, d = idx.shape[1], G.shape[1]
    for k in range(d):
        g[k] = 0.0
    for j in range(b):
        i = idx[r, j]
        for k in range(d):
            g[k] += G[i, k] - alpha[k] * (H[i, k] - mu_h[k])
    for k in range(d):
        g[k] /= b


@njit(cache=True)
def estimate_moments_kernel(G, H, mu_h, alpha, idx, mean, m2, m4):
    """Two passes over the draws idx (m, b): mean, then sum of squared and fourth-power deviations."""
    m, d = idx.shape[0], G.shape[1]
    g = np.empty(d)
    for k in range(d):
        mean[k] = 0.0
        m2[k] = 0.0
        m4[k] = 0.0
    for r in range(m):
        _estimate(G, H, mu_h, alpha, idx, r, g)
        for k in range(d):
            mean[k] += g[k]
    for k in range(d):
        mean[k] /= m
    for r in range(m):
        _estimate(G, H, mu_h, alpha, idx, r, g)
        for k in range(d):
            c = g[k] - mean[k]
            c2 = c * c
            m2[k] += c2
            m4[k] += c2 * c2
