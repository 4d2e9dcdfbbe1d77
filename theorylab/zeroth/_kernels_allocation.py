"""Jitted kernel of theorylab.zeroth.allocation (paper flops): batched forward-gradient queries.

No input checks here: :func:`theorylab.zeroth.allocation.simulate_batch_gradient` validates.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from theorylab.core.rng import next_u64, normal, seed_state

GAUSSIAN = 0    # u ~ N(0, I_d)
RADEMACHER = 1  # u uniform on {-1, +1}^d


@njit(cache=True)
def _direction(law, state, u):
    """Fill ``u`` with one perturbation direction of the law (E[u u^T] = I_d for both laws)."""
    d = u.shape[0]
    if law == GAUSSIAN:
        for j in range(d):
            u[j] = normal(state)
    else:
        bits = np.uint64(0)
        left = 0
        for j in range(d):
            if left == 0:
                bits = next_u64(state)
                left = 64
            u[j] = 1.0 if (bits & np.uint64(1)) == np.uint64(1) else -1.0
            bits = bits >> np.uint64(1)
            left -= 1


@njit(cache=True)
def _gaussian_sum(G, i, n, state, z, out):
    """``out = sum_{k <= n} (g_i . u_k) u_k`` for u_k ~ N(0, I_d), drawn exactly with n + d normals.

    With ``u = a g^ + u_perp`` (``g^ = g_i / ||g_i||``, ``a ~ N(0, 1)`` independent of ``u_perp ~ N(0, P_perp)``)
    each term is ``||g_i|| (a^2 g^ + a u_perp)``; given the a's, ``sum a_k u_perp,k ~ sqrt(S) P_perp z`` with
    ``S = sum a_k^2`` and ``z ~ N(0, I_d)``.  [derived]
    """
    d = G.shape[1]
    gn = 0.0
    for j in range(d):
        gn += G[i, j] * G[i, j]
    gn = np.sqrt(gn)
    S = 0.0
    for _ in range(n):
        a = normal(state)
        S += a * a
    zd = 0.0
    for j in range(d):
        z[j] = normal(state)
        if gn > 0.0:
            zd += z[j] * G[i, j] / gn
    if gn == 0.0:
        for j in range(d):
            out[j] = 0.0
        return
    rs = np.sqrt(S)
    for j in range(d):
        gh = G[i, j] / gn
        out[j] = gn * (S * gh + rs * (z[j] - zd * gh))


@njit(cache=True, parallel=True)
def batch_gradient_errors(G, gbar, counts, weights, law, seeds, err_sq, err_vec):
    """Replicate r: the batch estimate  sum_i w_ri sum_{k <= n_ri} (g_i . u_k) u_k  minus ``gbar``.

    ``G`` (B, d): per-sample gradients g_i; ``counts`` (R, B): queries n_ri of sample i;
    ``weights`` (R, B): weight of each query of sample i (1 / (B n_ri) per-sample mean, 1 / N
    per-query mean); ``seeds`` (R,): one stream per replicate.  Writes ``err_vec[r] = G_r - gbar``
    and ``err_sq[r] = ||G_r - gbar||^2``.  Gaussian directions use the exact n + d draw of
    :func:`_gaussian_sum`; Rademacher ones are drawn query by query.
    """
    R, B = counts.shape
    d = G.shape[1]
    for r in prange(R):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[r], state)
        acc = np.zeros(d)
        u = np.empty(d)
        part = np.empty(d)
        for i in range(B):
            w = weights[r, i]
            if counts[r, i] == 0:
                continue
            if law == GAUSSIAN:
                _gaussian_sum(G, i, counts[r, i], state, u, part)
                for j in range(d):
                    acc[j] += w * part[j]
                continue
            for _ in range(counts[r, i]):
                _direction(law, state, u)
                dot = 0.0
                for j in range(d):
                    dot += G[i, j] * u[j]
                c = w * dot
                for j in range(d):
                    acc[j] += c * u[j]
        s = 0.0
        for j in range(d):
            e = acc[j] - gbar[j]
            err_vec[r, j] = e
            s += e * e
        err_sq[r] = s
