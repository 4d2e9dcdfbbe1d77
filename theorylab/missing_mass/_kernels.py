"""Jitted kernels for the missing-mass simulator (Lee & Böhme, ICLR 2025).

No input checking and no I/O here: the Python API in this package validates first.

Notation (the paper's): a sample X_1..X_n over S classes, N_x(m) the count of class x in the
prefix X_1..X_m, Phi_k(m) = #{x : N_x(m) = k}, M_k(m) = sum_x p_x 1{N_x(m) = k}.

An *atom* is one random variable of the estimator family, given by (m, k, w):

* w = 0: the normalised frequency of frequencies  Y = Phi_k(m) / C(m, k);
* w = 1: the probability mass  Y = M_k(m)  (k = 0: the missing mass).

``cross_moments`` gives E[Y_i Z_j] exactly under a known p, grouped by the distinct values
u_d of p (multiplicity c_d), from the pairwise multinomial probabilities:

* same class, m1 <= m2:  P(N(m1) = a, N(m2) = b) = Bin(m1, u)(a) Bin(m2 - m1, u)(b - a);
* classes x != y, the earlier atom on x:  sum_j Tri(m1; a, j; u, v) Bin(m2 - m1, v)(b - j).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange


@njit(cache=True)
def log_factorials(n_max):
    """log(k!) for k = 0..n_max."""
    out = np.zeros(n_max + 1)
    for k in range(2, n_max + 1):
        out[k] = out[k - 1] + math.log(k)
    return out


@njit(cache=True)
def _xlogy(k, logy):
    """k * log(y) with the convention 0 * log(0) = 0 (logy = -inf for y = 0)."""
    if k == 0:
        return 0.0
    return k * logy


@njit(cache=True)
def _safe_log(y):
    if y <= 0.0:
        return -np.inf
    return math.log(y)


@njit(cache=True)
def _same_class(u, lu, l1u, m1, a, m2, b, lf):
    """log P(N(m1) = a, N(m2) = b) for one class of probability u, m1 <= m2."""
    d = b - a
    r = m2 - m1
    if a < 0 or a > m1 or d < 0 or d > r:
        return -np.inf
    return (lf[m1] - lf[a] - lf[m1 - a] + lf[r] - lf[d] - lf[r - d]
            + _xlogy(b, lu) + _xlogy(m2 - b, l1u))


@njit(cache=True)
def _log_norm(m, k, w, lf):
    """log of the normaliser: C(m, k) for a Phi atom, 1 for a mass atom."""
    if w == 1:
        return 0.0
    return lf[m] - lf[k] - lf[m - k]


@njit(cache=True)
def _prepare(u):
    """Logs reused by every atom pair: log u, log(1-u), log(1-u_d-u_e), (1-u_e)/(1-u_d-u_e)."""
    D = u.shape[0]
    lu = np.empty(D)
    l1u = np.empty(D)
    for d in range(D):
        lu[d] = _safe_log(u[d])
        l1u[d] = _safe_log(1.0 - u[d])
    L = np.empty((D, D))
    Q = np.empty((D, D))
    for d in range(D):
        for e in range(D):
            s = 1.0 - u[d] - u[e]
            s = s if s > 0.0 else 0.0
            L[d, e] = _safe_log(s)
            Q[d, e] = (1.0 - u[e]) / s if s > 0.0 else np.inf
    return lu, l1u, L, Q


@njit(cache=True)
def _pair_moment(u, c, lu, l1u, L, Q, m1, k1, w1, m2, k2, w2, lf):
    """E[Y_1 Y_2] for two atoms; u distinct probabilities with multiplicities c.

    The convolution over j (the count of the later atom's class in the earlier prefix) is
    summed by the term ratio t(j+1)/t(j) = C(j+1)/C(j) * (1-v)/(1-u-v): one exp per class pair.
    """
    if m1 > m2:
        m1, k1, w1, m2, k2, w2 = m2, k2, w2, m1, k1, w1
    D = u.shape[0]
    r = m2 - m1
    lnorm = _log_norm(m1, k1, w1, lf) + _log_norm(m2, k2, w2, lf)
    total = 0.0
    for d in range(D):
        ls = _same_class(u[d], lu[d], l1u[d], m1, k1, m2, k2, lf)
        if ls > -np.inf:
            total += c[d] * math.exp(ls - lnorm + (w1 + w2) * lu[d])
    j_lo = max(0, k2 - r)
    j_hi = min(k2, m1 - k1)
    if j_lo > j_hi:
        return total
    W = j_hi - j_lo + 1
    logC = np.empty(W)
    for i in range(W):
        j = j_lo + i
        logC[i] = (lf[m1] - lf[k1] - lf[j] - lf[m1 - k1 - j] + lf[r] - lf[k2 - j] - lf[r - k2 + j])
    ratio = np.empty(W)
    for i in range(W - 1):
        ratio[i] = math.exp(logC[i + 1] - logC[i])
    e1 = m1 - k1 - j_lo  # exponent of (1 - u - v) at j_lo
    e2 = r - k2 + j_lo   # exponent of (1 - v) at j_lo
    for d in range(D):
        for e in range(D):
            pairs = c[d] * (c[e] - 1.0) if d == e else c[d] * c[e]
            if pairs <= 0.0:
                continue
            base = (k1 + w1) * lu[d] + (k2 + w2) * lu[e] - lnorm
            if Q[d, e] < np.inf:
                t = math.exp(base + logC[0] + _xlogy(e1, L[d, e]) + _xlogy(e2, l1u[e]))
                acc = t
                for i in range(W - 1):
                    t *= ratio[i] * Q[d, e]
                    acc += t
            else:  # 1 - u - v = 0: only the term with exponent 0 of (1 - u - v) survives
                acc = 0.0
                for i in range(W):
                    if e1 - i == 0:
                        acc += math.exp(base + logC[i] + _xlogy(e2 + i, l1u[e]))
            total += pairs * acc
    return total


@njit(cache=True)
def gram(u, c, m, k, w, lf):
    """Symmetric matrix E[Y_i Y_j] over the atoms (m, k, w)."""
    lu, l1u, L, Q = _prepare(u)
    A = m.shape[0]
    G = np.empty((A, A))
    for i in range(A):
        for j in range(i, A):
            G[i, j] = _pair_moment(u, c, lu, l1u, L, Q, m[i], k[i], w[i], m[j], k[j], w[j], lf)
            G[j, i] = G[i, j]
    return G


@njit(cache=True)
def cross_moments(u, c, m1, k1, w1, m2, k2, w2, lf):
    """Rectangular matrix E[Y_i Z_j] between atom lists 1 and 2."""
    lu, l1u, L, Q = _prepare(u)
    A = m1.shape[0]
    B = m2.shape[0]
    out = np.empty((A, B))
    for i in range(A):
        for j in range(B):
            out[i, j] = _pair_moment(u, c, lu, l1u, L, Q, m1[i], k1[i], w1[i], m2[j], k2[j], w2[j], lf)
    return out


@njit(cache=True)
def means(u, c, m, k, w):
    """E[Y_i]: sum_x p_x^(k + w) (1 - p_x)^(m - k) (Phi atoms are normalised by C(m, k))."""
    A = m.shape[0]
    out = np.zeros(A)
    for i in range(A):
        for d in range(u.shape[0]):
            lu = _safe_log(u[d])
            l1u = _safe_log(1.0 - u[d])
            lt = _xlogy(k[i] + w[i], lu) + _xlogy(m[i] - k[i], l1u)
            if lt > -np.inf:
                out[i] += c[d] * math.exp(lt)
    return out


@njit(cache=True)
def _draw_labels(cdf, n, out):
    for t in range(n):
        out[t] = np.searchsorted(cdf, np.random.random(), side="right")
        if out[t] >= cdf.shape[0]:
            out[t] = cdf.shape[0] - 1


@njit(cache=True, parallel=True)
def sample_labels_batch(cdf, n, seeds):
    """labels[r, t] in 0..S-1, i.i.d. from the distribution with cumulative sums cdf."""
    R = seeds.shape[0]
    out = np.empty((R, n), dtype=np.int64)
    for r in prange(R):
        np.random.seed(seeds[r])
        _draw_labels(cdf, n, out[r])
    return out


@njit(cache=True)
def phi_prefix_matrix(labels, S):
    """Phi[m, k] = #{x : N_x(m) = k} for every prefix m = 0..n, k = 0..n + 1."""
    n = labels.shape[0]
    Phi = np.zeros((n + 1, n + 2), dtype=np.int64)
    counts = np.zeros(S, dtype=np.int64)
    Phi[0, 0] = S
    for t in range(n):
        for kk in range(n + 2):
            Phi[t + 1, kk] = Phi[t, kk]
        x = labels[t]
        Phi[t + 1, counts[x]] -= 1
        counts[x] += 1
        Phi[t + 1, counts[x]] += 1
    return Phi


@njit(cache=True)
def _family_on_path(labels, p, coef_at, needed, S, n):
    """(estimate, M_0(n)) of one path; coef_at[m, k] holds the Phi-coordinate coefficients."""
    counts = np.zeros(S, dtype=np.int64)
    phi = np.zeros(n + 2, dtype=np.int64)
    phi[0] = S
    est = 0.0
    for t in range(n):
        x = labels[t]
        phi[counts[x]] -= 1
        counts[x] += 1
        phi[counts[x]] += 1
        if needed[t + 1]:
            for kk in range(1, t + 2):
                if coef_at[t + 1, kk] != 0.0:
                    est += coef_at[t + 1, kk] * phi[kk]
    m0 = 0.0
    for x in range(S):
        if counts[x] == 0:
            m0 += p[x]
    return est, m0


@njit(cache=True, parallel=True)
def mc_family_batch(p, cdf, n, coef_at, needed, seeds):
    """Monte Carlo: per path, the estimator sum coef * Phi_k(m) and the missing mass M_0(n)."""
    R = seeds.shape[0]
    S = p.shape[0]
    est = np.empty(R)
    m0 = np.empty(R)
    for r in prange(R):
        np.random.seed(seeds[r])
        labels = np.empty(n, dtype=np.int64)
        _draw_labels(cdf, n, labels)
        est[r], m0[r] = _family_on_path(labels, p, coef_at, needed, S, n)
    return est, m0


@njit(cache=True)
def quad_mse(G, ids, a):
    """sum_ij a_i a_j G[ids_i, ids_j] - 2 sum_i a_i G[ids_i, 0] + G[0, 0] (index 0: M_0(n))."""
    T = ids.shape[0]
    total = G[0, 0]
    for i in range(T):
        gi = ids[i]
        total -= 2.0 * a[i] * G[gi, 0]
        row = 0.0
        for j in range(T):
            row += a[j] * G[gi, ids[j]]
        total += a[i] * row
    return total
