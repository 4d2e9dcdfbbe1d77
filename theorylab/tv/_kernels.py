"""Jitted kernels for :mod:`theorylab.tv` (no I/O, no input checking: the API validates).

Kernels
-------
mixture_tv_kernel      exact d_TV between two mixtures of products by enumeration of [q]^n
ising_energies_kernel  Ising log-weights of all 2^n spin vectors, Gray-code order
coupling_g_kernel      the importance-sampling estimand g(X), X ~ pi (law of X given X != Y)
uniform_dp_kernel      the rounded-log-likelihood dynamic programme of the FPTAS (Q uniform)
modular_basis_kernel   the forward-basis equivalence test over F_p (p < 2^31)

Parallel kernels split their work into a fixed number of blocks (chosen by the caller, never
by the thread count) and add the block results serially, so results do not depend on
``NUMBA_NUM_THREADS``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from theorylab.core.rng import seed_state, uniform


# --------------------------------------------------------------------------- exact enumeration
@njit(cache=True)
def _block_abs_sum(c, M, prefix, n_top):
    """sum over the last n - n_top coordinates of |sum_i c_i prod_j M[i, j, x_j]|, prefix fixed.

    Depth-first (odometer) order with prefix products: pref[t, i] = c_i prod_{j < n_top + t}
    M[i, j, x_j], so a step that changes digit t recomputes levels t+1..m only (amortised
    O(K q / (q - 1)) multiplications per point of [q]^n). Returns (sum, ops) with ops the
    multiply-adds performed (K per point for the component sum plus K per recomputed level).
    """
    K, n, q = M.shape
    m = n - n_top
    pref = np.empty((m + 1, K))
    for i in range(K):
        v = c[i]
        for j in range(n_top):
            v *= M[i, j, prefix[j]]
        pref[0, i] = v
    ops = K * n_top
    digits = np.zeros(m, np.int64)
    for t in range(m):
        for i in range(K):
            pref[t + 1, i] = pref[t, i] * M[i, n_top + t, 0]
    ops += K * m
    total = 0.0
    while True:
        s = 0.0
        for i in range(K):
            s += pref[m, i]
        total += abs(s)
        t = m - 1
        while t >= 0 and digits[t] == q - 1:
            digits[t] = 0
            t -= 1
        ops += K
        if t < 0:
            break
        digits[t] += 1
        ops += K * (m - t)
        for tt in range(t, m):
            d = digits[tt]
            for i in range(K):
                pref[tt + 1, i] = pref[tt, i] * M[i, n_top + tt, d]
    return total, ops


@njit(cache=True, parallel=True)
def mixture_tv_kernel(c, M, n_top):
    """d_TV = 1/2 sum_x |f(x)|, f(x) = sum_i c_i prod_j M[i, j, x_j] (c = (w, -v) stacked).

    ``n_top`` leading coordinates index q^n_top independent blocks (the prange axis).
    Returns (d_TV, ops), ops = multiply-adds performed (a machine-independent cost count).
    """
    K, n, q = M.shape
    n_blocks = q ** n_top
    partial = np.zeros(n_blocks)
    partial_ops = np.zeros(n_blocks, np.int64)
    for b in prange(n_blocks):
        prefix = np.empty(n_top, np.int64)
        for j in range(n_top):
            prefix[j] = (b // q ** (n_top - 1 - j)) % q
        partial[b], partial_ops[b] = _block_abs_sum(c, M, prefix, n_top)
    total = 0.0
    ops = 0
    for b in range(n_blocks):
        total += partial[b]
        ops += partial_ops[b]
    return 0.5 * total, ops


# --------------------------------------------------------------------------- Ising, Gray code
@njit(cache=True, parallel=True)
def ising_energies_kernel(J, h, beta, n_top):
    """E(x) = beta sum_{i<j} J_ij x_i x_j + sum_i h_i x_i for all x in {-1, +1}^n.

    Returned in standard index order: bit i of the index is 1 iff x_i = +1. The top
    ``n_top`` bits fix a block; inside a block the low m = n - n_top bits run through the
    binary reflected Gray code, one spin flip (O(n) local-field update) per state.
    """
    n = h.shape[0]
    m = n - n_top
    n_blocks = 1 << n_top
    E = np.empty(1 << n)
    for b in prange(n_blocks):
        x = np.empty(n)
        for i in range(n):
            x[i] = -1.0
        for j in range(n_top):
            if (b >> j) & 1:
                x[m + j] = 1.0
        L = np.zeros(n)  # local fields L_i = sum_j J_ij x_j
        for i in range(n):
            s = 0.0
            for j in range(n):
                s += J[i, j] * x[j]
            L[i] = s
        e = 0.0
        for i in range(n):
            e += 0.5 * beta * x[i] * L[i] + h[i] * x[i]
        base = b << m
        E[base] = e  # low bits all zero (all spins -1)
        g_prev = 0
        for k in range(1, 1 << m):
            g = k ^ (k >> 1)
            diff = g ^ g_prev
            v = 0
            while (diff >> v) & 1 == 0:
                v += 1
            # flip x_v: Delta E = -2 x_v (beta L_v + h_v)
            e += -2.0 * x[v] * (beta * L[v] + h[v])
            x[v] = -x[v]
            for i in range(n):
                L[i] += 2.0 * x[v] * J[i, v]
            E[base + g] = e
            g_prev = g
    return E


# --------------------------------------------------------------------------- coupling estimator
@njit(cache=True)
def _draw(cdf_row, u):
    q = cdf_row.shape[0]
    for s in range(q - 1):
        if u < cdf_row[s]:
            return s
    return q - 1


@njit(cache=True, nogil=True)
def coupling_g_kernel(first_cdf, cdf_match, cdf_excess, cdf_p, logP, logQ, logm, seeds, chunk):
    """g(X) = max(0, 1 - (Q(X) - m(X)) / (P(X) - m(X))) for ``len(seeds) * chunk`` draws X ~ pi.

    pi is the law of X given X != Y under the product C of optimal coordinate couplings:
    first mismatching coordinate i ~ first_cdf; x_j ~ min(P_j, Q_j)/(1 - d_j) for j < i,
    x_i ~ (P_i - min)/d_i, x_j ~ P_j for j > i. Chunk c draws from a xoshiro256** state seeded by seeds[c]
    (core.rng), so its numbers do not depend on the thread count.  Serial (``nogil``): the caller runs
    blocks of chunks on threads (core.parallel.map_blocks); the prange version compiled 2.5x slower (8.1 s
    against 3.2 s cold on the loaded CI machine).
    """
    n, q = logP.shape
    n_chunks = seeds.shape[0]
    out = np.empty(n_chunks * chunk)
    for c in range(n_chunks):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[c], state)
        for r in range(chunk):
            i = _draw(first_cdf, uniform(state))
            lP = 0.0
            lQ = 0.0
            lm = 0.0
            for j in range(n):
                if j < i:
                    s = _draw(cdf_match[j], uniform(state))
                elif j == i:
                    s = _draw(cdf_excess[j], uniform(state))
                else:
                    s = _draw(cdf_p[j], uniform(state))
                lP += logP[j, s]
                lQ += logQ[j, s]
                lm += logm[j, s]
            num = -np.expm1(lQ - lP)   # (P - Q) / P
            den = -np.expm1(lm - lP)   # (P - m) / P > 0 on the support of pi
            g = num / den
            out[c * chunk + r] = g if g > 0.0 else 0.0
    return out


# --------------------------------------------------------------------------- FPTAS dynamic programme
@njit(cache=True)
def uniform_dp_kernel(w, dead, P, suffix_max, q):
    """sum over x with sum_i w[i, x_i] > 0 of (P(x) - q^-n), by DP over partial sums.

    ``w[i, s]`` are integer rounded log-likelihood ratios log(q P_i(s)) / grid; ``dead[i, s]``
    marks P_i(s) = 0. ``suffix_max[t] = sum_{i >= t} max_s w[i, s]``. States whose partial
    sum sigma satisfies sigma + suffix_max[t] <= 0 can never end positive and are dropped.
    Array index sigma + R with R = suffix_max[0].
    """
    n = w.shape[0]
    R = suffix_max[0]
    size = 2 * R + 1
    Pm = np.zeros(size)
    Um = np.zeros(size)
    Pm[R] = 1.0
    Um[R] = 1.0
    lo = R  # live index range [lo, hi]
    hi = R
    inv_q = 1.0 / q
    for i in range(n):
        Pn = np.zeros(size)
        Un = np.zeros(size)
        new_lo = size
        new_hi = -1
        for idx in range(lo, hi + 1):
            pm = Pm[idx]
            um = Um[idx]
            if pm == 0.0 and um == 0.0:
                continue
            sigma = idx - R
            for s in range(q):
                t = sigma + w[i, s]
                if t + suffix_max[i + 1] <= 0:
                    continue  # can never reach a positive total
                j = t + R
                if not dead[i, s]:
                    Pn[j] += pm * P[i, s]
                Un[j] += um * inv_q
                if j < new_lo:
                    new_lo = j
                if j > new_hi:
                    new_hi = j
        Pm = Pn
        Um = Un
        lo = new_lo
        hi = new_hi
        if hi < lo:
            return 0.0
    total = 0.0
    for idx in range(max(lo, R + 1), hi + 1):
        total += Pm[idx] - Um[idx]
    return total


# --------------------------------------------------------------------------- modular basis test
@njit(cache=True)
def _mulmod(a, b, p):
    return (a * b) % p


@njit(cache=True)
def _powmod(a, e, p):
    r = 1
    a %= p
    while e > 0:
        if e & 1:
            r = (r * a) % p
        a = (a * a) % p
        e >>= 1
    return r


@njit(cache=True)
def modular_basis_kernel(c, M, p):
    """Forward-basis equivalence test over F_p; all entries reduced mod p (p < 2^31).

    Basis vectors are genuine prefix vectors u(x_<=t) = (c_i prod_{j<=t} M[i, j, x_j])_i,
    kept with a back-pointer (parent basis vector, last symbol) and an echelon copy for
    membership tests. Returns (witness, sizes, ops): witness = a point x in [q]^n whose final
    basis vector has coordinate sum != 0 mod p (all -1 if none: equivalent mod p), ``sizes`` the
    basis dimension per level, ``ops`` the multiply-adds spent in the eliminations.
    """
    K, n, q = M.shape
    basis = np.zeros((K, K), np.int64)
    dim = 1
    for i in range(K):
        basis[0, i] = c[i] % p
    sizes = np.zeros(n + 1, np.int64)
    sizes[0] = 1
    parent = np.zeros((n, K), np.int64)   # parent[t, a]: index in level t of basis vector a of level t+1
    symbol = np.zeros((n, K), np.int64)   # symbol[t, a]: x_t of that prefix
    ops = 0
    ech = np.zeros((K, K), np.int64)      # echelon rows, pivot entry normalised to 1
    piv = np.zeros(K, np.int64)
    new_basis = np.zeros((K, K), np.int64)
    v = np.zeros(K, np.int64)
    r = np.zeros(K, np.int64)
    last = 0
    for t in range(n):
        new_dim = 0
        for b in range(dim):
            for s in range(q):
                if new_dim == K:
                    break
                for i in range(K):
                    v[i] = _mulmod(basis[b, i], M[i, t, s], p)
                    r[i] = v[i]
                for e in range(new_dim):
                    f = r[piv[e]]
                    if f != 0:
                        for i in range(K):
                            r[i] = (r[i] - _mulmod(f, ech[e, i], p)) % p
                        ops += K
                pv = -1
                for i in range(K):
                    if r[i] != 0:
                        pv = i
                        break
                if pv >= 0:
                    inv = _powmod(r[pv], p - 2, p)
                    for i in range(K):
                        ech[new_dim, i] = _mulmod(r[i], inv, p)
                        new_basis[new_dim, i] = v[i]
                    parent[t, new_dim] = b
                    symbol[t, new_dim] = s
                    piv[new_dim] = pv
                    new_dim += 1
        for a in range(new_dim):
            for i in range(K):
                basis[a, i] = new_basis[a, i]
        dim = new_dim
        sizes[t + 1] = dim
        last = t
        if dim == 0:
            break
    witness = np.full(n, -1, np.int64)
    if dim == 0:
        return witness, sizes, ops
    for a in range(dim):
        s = 0
        for i in range(K):
            s = (s + basis[a, i]) % p
        if s != 0:
            idx = a
            for t in range(last, -1, -1):
                witness[t] = symbol[t, idx]
                idx = parent[t, idx]
            break
    return witness, sizes, ops
