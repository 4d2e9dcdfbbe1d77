"""Jitted kernel of theorylab.distributed.bundle: the master problem's dual, maximised by accelerated projected
gradient over a product of simplices (validated and documented in bundle.py)."""

import numpy as np
from numba import njit


@njit(cache=True)
def project_simplex_block(v, lo, hi, out):
    """Euclidean projection of v[lo:hi] onto the unit simplex, written to out[lo:hi] (sort-based)."""
    k = hi - lo
    u = np.sort(v[lo:hi])[::-1]
    css = 0.0
    theta = 0.0
    for j in range(k):
        css += u[j]
        t = (css - 1.0) / (j + 1)
        if u[j] - t > 0.0:
            theta = t
    for j in range(lo, hi):
        w = v[j] - theta
        out[j] = w if w > 0.0 else 0.0


@njit(cache=True)
def primal_point(G, lam, zbar, L, l1, x):
    """x(lam) = soft-threshold(zbar - G^T lam / L, l1 / L) (rows with lam_j = 0 skipped)."""
    d = zbar.shape[0]
    for k in range(d):
        x[k] = 0.0
    for j in range(G.shape[0]):
        w = lam[j]
        if w != 0.0:
            for k in range(d):
                x[k] += w * G[j, k]
    t = l1 / L
    for k in range(d):
        v = zbar[k] - x[k] / L
        x[k] = v - t if v > t else (v + t if v < -t else 0.0)


@njit(cache=True)
def cut_values(G, a, x, c):
    for j in range(G.shape[0]):
        s = a[j]
        for k in range(G.shape[1]):
            s += G[j, k] * x[k]
        c[j] = s


@njit(cache=True)
def block_gap(c, lam, offsets):
    """sum_i (max_{j in i} c_j - sum_{j in i} lam_j c_j): the duality gap at x(lam)."""
    gap = 0.0
    for i in range(offsets.shape[0] - 1):
        mx = -np.inf
        s = 0.0
        for j in range(offsets[i], offsets[i + 1]):
            if c[j] > mx:
                mx = c[j]
            s += lam[j] * c[j]
        gap += mx - s
    return gap


@njit(cache=True)
def dual_fista(G, a, offsets, zbar, L, l1, lip, delta, max_iter, lam):
    """Maximise D(lam) = a^T lam + min_x [lam^T G x + L/2 |x - zbar|^2 + l1 |x|_1] over the product of simplices
    (blocks offsets[i]:offsets[i+1]), from the feasible start ``lam`` (overwritten with the result), by
    FISTA with step 1/lip and gradient restart, until the duality gap at x(lam) is <= delta (checked every 5 iterations).
    Returns (x, gap, iterations)."""
    K = G.shape[0]
    d = G.shape[1]
    x = np.empty(d)
    c = np.empty(K)
    y = lam.copy()
    prev = lam.copy()
    step = np.empty(K)
    t = 1.0
    primal_point(G, lam, zbar, L, l1, x)
    cut_values(G, a, x, c)
    gap = block_gap(c, lam, offsets)
    it = 0
    while gap > delta and it < max_iter:
        it += 1
        primal_point(G, y, zbar, L, l1, x)
        cut_values(G, a, x, c)
        for j in range(K):
            step[j] = y[j] + c[j] / lip
        for i in range(offsets.shape[0] - 1):
            project_simplex_block(step, offsets[i], offsets[i + 1], lam)
        # gradient restart (O'Donoghue-Candes): momentum reset when the step goes against the gradient
        inner = 0.0
        for j in range(K):
            inner += c[j] * (lam[j] - prev[j])
        if inner < 0.0:
            t = 1.0
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        beta = (t - 1.0) / t_new
        for j in range(K):
            y[j] = lam[j] + beta * (lam[j] - prev[j])
            prev[j] = lam[j]
        t = t_new
        if it % 5 == 0 or it == max_iter:        # the gap costs as much as an iteration: every 5th
            primal_point(G, lam, zbar, L, l1, x)
            cut_values(G, a, x, c)
            gap = block_gap(c, lam, offsets)
    primal_point(G, lam, zbar, L, l1, x)
    return x, gap, it
