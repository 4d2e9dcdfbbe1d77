"""Jitted kernels of theorylab.finite_sum.vfl (paper laser_vfl): the authors' per-step subset sampler and
LASER-VFL SGD on a vertically partitioned least-squares problem.

No input checks here: the functions of :mod:`theorylab.finite_sum.vfl` validate.  Subsets of the K blocks
are bit masks (block j is bit j); ``binom`` is the table of C(a, b) for a, b < K + 1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from theorylab.core.rng import below, uniform


@njit(cache=True)
def draw_observed(state, K, q, obs):
    """obs[0:m] <- the blocks observed in this batch (each independently with probability q); returns m."""
    m = 0
    for j in range(K):
        if uniform(state) < q:
            obs[m] = j
            m += 1
    return m


@njit(cache=True)
def draw_subset(state, obs, m, head, k, others):
    """One subset of size k of the observed blocks obs[0:m] containing ``head``, uniform among the
    C(m - 1, k - 1) such subsets (partial Fisher-Yates on the other observed blocks): its bit mask."""
    r = 0
    for a in range(m):
        if obs[a] != head:
            others[r] = obs[a]
            r += 1
    mask = np.int64(1) << head
    for a in range(k - 1):
        b = a + below(state, r - a)
        t = others[a]
        others[a] = others[b]
        others[b] = t
        mask |= np.int64(1) << others[a]
    return mask


@njit(cache=True)
def sampler_weights_kernel(K, q, n_draws, seed_state_in, binom, acc, acc2):
    """Over n_draws batches: acc[S] += total weight the code gives subset S in the batch (summed over heads),
    acc2[S] += its square.  Weight of (head i, subset S of size k) = C(m - 1, k - 1) / k."""
    state = seed_state_in
    obs = np.empty(K, np.int64)
    others = np.empty(K, np.int64)
    w = np.zeros(acc.size)
    for _ in range(n_draws):
        m = draw_observed(state, K, q, obs)
        for s in range(w.size):
            w[s] = 0.0
        for a in range(m):
            for k in range(1, m + 1):
                S = draw_subset(state, obs, m, obs[a], k, others)
                w[S] += binom[m - 1, k - 1] / k
        for s in range(w.size):
            acc[s] += w[s]
            acc2[s] += w[s] * w[s]


@njit(cache=True)
def laser_sgd_kernel(X, y, starts, stops, W, q, eta, batch, n_steps, record_every, state, binom, out, offset):
    """n_steps steps of LASER-VFL SGD on W (K heads x d, updated in place); W is copied to out[offset + r]
    after every record_every-th step.  A batch with no observed block is skipped (no update), as in the code.
    Head i on subset S predicts (1/|S|) sum_{j in S} <W[i, block j], x[block j]>; loss 1/2 (pred - y)^2
    averaged over the batch, weighted C(m - 1, |S| - 1) / |S|."""
    n, d = X.shape
    K = starts.size
    obs = np.empty(K, np.int64)
    others = np.empty(K, np.int64)
    idx = np.empty(batch, np.int64)
    grad = np.zeros((K, d))
    for t in range(n_steps):
        m = draw_observed(state, K, q, obs)
        if m > 0:
            for r in range(batch):
                idx[r] = below(state, n)
            for i in range(K):
                for c in range(d):
                    grad[i, c] = 0.0
            for a in range(m):
                i = obs[a]
                for k in range(1, m + 1):
                    S = draw_subset(state, obs, m, i, k, others)
                    scale = binom[m - 1, k - 1] / k / k / batch
                    for r in range(batch):
                        row = idx[r]
                        pred = 0.0
                        for j in range(K):
                            if (S >> j) & 1:
                                for c in range(starts[j], stops[j]):
                                    pred += W[i, c] * X[row, c]
                        res = scale * (pred / k - y[row])
                        for j in range(K):
                            if (S >> j) & 1:
                                for c in range(starts[j], stops[j]):
                                    grad[i, c] += res * X[row, c]
            for i in range(K):
                for c in range(d):
                    W[i, c] -= eta * grad[i, c]
        if (t + 1) % record_every == 0:
            r = offset + (t + 1) // record_every - 1
            for i in range(K):
                for c in range(d):
                    out[r, i, c] = W[i, c]
