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
from numba import njit

from theorylab.core.rng import below, seed_state, uniform


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
def _draw_labels(cdf, n, out, state):
    """n i.i.d. labels into ``out`` by inversion of ``cdf``, from the xoshiro256** ``state`` (core.rng)."""
    for t in range(n):
        out[t] = np.searchsorted(cdf, uniform(state), side="right")
        if out[t] >= cdf.shape[0]:
            out[t] = cdf.shape[0] - 1


@njit(cache=True)
def sample_labels_one(cdf, n, seed):
    """One path of sample_labels_batch (the same numbers as its row for this seed), without a thread launch."""
    state = np.empty(4, dtype=np.uint64)
    seed_state(seed, state)
    out = np.empty(n, dtype=np.int64)
    _draw_labels(cdf, n, out, state)
    return out


@njit(cache=True, nogil=True)
def sample_labels_batch(cdf, n, seeds):
    """labels[r, t] in 0..S-1, i.i.d. from the distribution with cumulative sums cdf (serial, ``nogil``: the
    caller runs blocks of paths on threads with core.parallel.map_blocks)."""
    R = seeds.shape[0]
    out = np.empty((R, n), dtype=np.int64)
    for r in range(R):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[r], state)
        _draw_labels(cdf, n, out[r], state)
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


@njit(cache=True, nogil=True)
def mc_family_batch(p, cdf, n, coef_at, needed, seeds):
    """Monte Carlo: per path, the estimator sum coef * Phi_k(m) and the missing mass M_0(n).  Serial
    (``nogil``; threads over blocks of paths in the caller): the prange version compiled 2x slower (7.2 s
    against 3.7 s cold on the loaded CI machine)."""
    R = seeds.shape[0]
    S = p.shape[0]
    est = np.empty(R)
    m0 = np.empty(R)
    for r in range(R):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[r], state)
        labels = np.empty(n, dtype=np.int64)
        _draw_labels(cdf, n, labels, state)
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


# ---------------------------------------------------------------------------------------
# the evolutionary search (search.py documents the genome, mutations, projection, fitness)
#
# A genome is held as three arrays gm, gk, ga (atom (m, k) with coefficient a of the normalised
# atom g_k(m) = Phi_k(m) / C(m, k)) and a length L; the arrays have room for L + 2 terms.
# ---------------------------------------------------------------------------------------

# Integer constants passed to a jitted callee are np.int64(...) or an array element, not a bare literal: numba
# compiles a callee once more for a Literal[int] argument (7 such duplicates cost ~2 s of a cold CI run).
@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _find_term(gm, gk, L, m, k):
    for t in range(L):
        if gm[t] == m and gk[t] == k:
            return t
    return -1


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _add_term(gm, gk, ga, L, m, k, v):
    """ga[(m, k)] += v, appending the atom if new; returns the new length."""
    t = _find_term(gm, gk, L, m, k)
    if t >= 0:
        ga[t] += v
        return L
    gm[L] = m
    gk[L] = k
    ga[L] = v
    return L + 1


@njit(cache=True, error_model="numpy")
def allowed_case(m, k, n, pick):
    """The ``pick``-th allowed mutation case at (m, k): 0 if k >= 2, 1 if k < m, 2 if m <= n; and their count."""
    count = 0
    chosen = -1
    for case in range(3):
        ok = (case == 0 and k >= 2) or (case == 1 and k < m) or (case == 2 and m <= n)
        if ok:
            if count == pick:
                chosen = case
            count += 1
    return chosen, count


@njit(cache=True, error_model="numpy")
def apply_move(gm, gk, ga, L, j, case, r, authors_code, om, ok, oa):
    """Rewrite the share r of term j by mutation ``case`` into (om, ok, oa); returns the length.

    case 0: g_k(m) = g_{k-1}(m-1) - g_{k-1}(m);  case 1: g_k(m) = g_k(m-1) - g_{k+1}(m);
    case 2: g_k(m) = g_k(m+1) + g_{k+1}(m+1), or (``authors_code``) the share is given back to
    (m, k) and g_{k+1}(m+1) added, as in the authors' helpf1var.mut.
    """
    for t in range(L):
        om[t] = gm[t]
        ok[t] = gk[t]
        oa[t] = ga[t]
    m = gm[j]
    k = gk[j]
    moved = ga[j] * r
    oa[j] = ga[j] - moved
    if case == 0:
        L = _add_term(om, ok, oa, L, m - 1, k - 1, moved)
        L = _add_term(om, ok, oa, L, m, k - 1, -moved)
    elif case == 1:
        L = _add_term(om, ok, oa, L, m - 1, k, moved)
        L = _add_term(om, ok, oa, L, m, k + 1, -moved)
    elif not authors_code:
        L = _add_term(om, ok, oa, L, m + 1, k, moved)
        L = _add_term(om, ok, oa, L, m + 1, k + 1, moved)
    else:
        L = _add_term(om, ok, oa, L, m, k, moved)
        L = _add_term(om, ok, oa, L, m + 1, k + 1, moved)
    return L


@njit(cache=True, error_model="numpy")
def prune(gm, gk, ga, L, n, tol, phi_scale, lf):
    """Drop zero terms and, if tol > 0, terms with |a| <= tol (``phi_scale``: |a / C(m, k)| (n+1) <= tol),
    compacting in place; returns the new length."""
    out = 0
    for t in range(L):
        a = ga[t]
        if a == 0.0:
            continue
        if tol > 0.0:
            if phi_scale:
                if abs(a) * math.exp(-(lf[gm[t]] - lf[gk[t]] - lf[gm[t] - gk[t]])) * (n + 1) <= tol:
                    continue
            elif abs(a) <= tol:
                continue
        gm[out] = gm[t]
        gk[out] = gk[t]
        ga[out] = a
        out += 1
    return out


@njit(cache=True, error_model="numpy")
def project_genome(gm, gk, ga, L, n, phi_projection, om, ok, oa):
    """The feasible genome: (n+1, k) -> (n, k) (``phi_projection``: times (n+1-k)/(n+1)), k > n dropped,
    equal atoms merged, zero coefficients dropped; returns the length."""
    P = np.int64(0)
    for t in range(L):
        m = min(gm[t], n)
        k = gk[t]
        if k > m:
            continue
        a = ga[t]
        if gm[t] > n and phi_projection:
            a = a * (n + 1 - k) / (n + 1)
        P = _add_term(om, ok, oa, P, m, k, a)
    out = 0
    for t in range(P):
        if oa[t] != 0.0:
            om[out] = om[t]
            ok[out] = ok[t]
            oa[out] = oa[t]
            out += 1
    return out


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _grow(G, am, ak, aw, A):
    """Double the capacity of the Gram store (G and the atom lists hold A atoms)."""
    cap = 2 * G.shape[0]
    G2 = np.empty((cap, cap))
    m2 = np.empty(cap, dtype=np.int64)
    k2 = np.empty(cap, dtype=np.int64)
    w2 = np.empty(cap, dtype=np.int64)
    for i in range(A):  # element loops: slice assignment compiles a costly shape-mismatch path
        for j in range(A):
            G2[i, j] = G[i, j]
        m2[i] = am[i]
        k2[i] = ak[i]
        w2[i] = aw[i]
    return G2, m2, k2, w2


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _slot(hkeys, key):
    """Open-addressing slot of ``key`` (or the empty slot where it goes) in a power-of-two table."""
    mask = hkeys.shape[0] - 1
    h = (key * 0x9E3779B1) & mask
    while hkeys[h] != key and hkeys[h] != -1:
        h = (h + 1) & mask
    return h


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _rehash(hkeys, hvals):
    K2 = np.full(2 * hkeys.shape[0], -1, dtype=np.int64)
    V2 = np.empty(2 * hkeys.shape[0], dtype=np.int64)
    for h in range(hkeys.shape[0]):
        if hkeys[h] != -1:
            s = _slot(K2, hkeys[h])
            K2[s] = hkeys[h]
            V2[s] = hvals[h]
    return K2, V2


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _genome_mse(u, c, lu, l1u, Lg, Q, lf, pm, pk, pa, P, hkeys, hvals, stride, G, am, ak, aw, A, ids):
    """Exact MSE of a projected genome under p (grouped as u, c); an atom not met before gets its
    row E[Y_i Y_j] against every stored atom (index 0: M_0(n)).  The store must have room for P
    more atoms (G, am, ak, aw) and the index hkeys/hvals (atom m stride + k -> row) stay under
    half full.  Returns (mse, atoms stored)."""
    for t in range(P):
        key = pm[t] * stride + pk[t]
        h = _slot(hkeys, key)
        if hkeys[h] == -1:
            am[A] = pm[t]
            ak[A] = pk[t]
            aw[A] = 0
            for j in range(A + 1):
                G[A, j] = _pair_moment(u, c, lu, l1u, Lg, Q, pm[t], pk[t], aw[A], am[j], ak[j], aw[j], lf)
                G[j, A] = G[A, j]
            hkeys[h] = key
            hvals[h] = A
            A += 1
        ids[t] = hvals[h]
    return quad_mse(G, ids[:P], pa[:P]), A


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _copy_genome(SM, SK, SA, SL, s, DM, DK, DA, DL, d):
    L = SL[s]
    for t in range(L):
        DM[d, t] = SM[s, t]
        DK[d, t] = SK[s, t]
        DA[d, t] = SA[s, t]
    DL[d] = L


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _top3(F, N, order):
    """Indices of the (up to) 3 smallest F[:N], ties in index order (a stable sort's first three)."""
    count = min(3, N)
    for t in range(count):
        b = -1
        for i in range(N):
            taken = False
            for q in range(t):
                if order[q] == i:
                    taken = True
            if not taken and (b < 0 or F[i] < F[b]):
                b = i
        order[t] = b
    return count


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _draw_move(state, gm, gk, L, n):
    """A uniform term, a uniform allowed case, and r = 1 w.p. 1/2 else r ~ U(0, 1)."""
    j = below(state, L)
    _, count = allowed_case(gm[j], gk[j], n, np.int64(0))
    case, _ = allowed_case(gm[j], gk[j], n, below(state, count))
    r = 1.0 if uniform(state) < 0.5 else uniform(state)
    return j, case, r


@njit(cache=True, error_model="numpy")
def evolve_kernel(u, c, lf, n, seed, max_terms, n_parents, tournament, ngen, block, max_gen, improve_tol,
                  stall_tol, prune_tol, authors_code, phi_projection, phi_prune):
    """The generation loop of search.evolve (its docstring states the protocol); randomness from
    xoshiro256** seeded by ``seed``.  Returns the best genome (m, k, a), its fitness, the start's
    fitness, the generations run, per generation (best fitness, population size, atoms met), and
    the atoms met."""
    lu, l1u, Lg, Q = _prepare(u)
    T = max_terms + 2
    cap = 64 if 2 * T < 64 else 2 * T
    G = np.empty((cap, cap))
    am = np.empty(cap, dtype=np.int64)
    ak = np.empty(cap, dtype=np.int64)
    aw = np.empty(cap, dtype=np.int64)
    am[0], ak[0], aw[0] = n, 0, 1
    G[0, 0] = _pair_moment(u, c, lu, l1u, Lg, Q, am[0], ak[0], aw[0], am[0], ak[0], aw[0], lf)
    A = np.int64(1)
    hkeys = np.full(2 * cap, -1, dtype=np.int64)  # atom (m, k) -> its row, keyed by m (n + 2) + k
    hvals = np.empty(2 * cap, dtype=np.int64)
    state = np.empty(4, dtype=np.uint64)
    seed_state(seed, state)
    Cap = 2 * n_parents + 4
    PM = np.zeros((Cap, T), dtype=np.int64)
    PK = np.zeros((Cap, T), dtype=np.int64)
    PA = np.zeros((Cap, T))
    PL = np.zeros(Cap, dtype=np.int64)
    PF = np.empty(Cap)
    CM = np.zeros((Cap, T), dtype=np.int64)
    CK = np.zeros((Cap, T), dtype=np.int64)
    CA = np.zeros((Cap, T))
    CL = np.zeros(Cap, dtype=np.int64)
    CF = np.empty(Cap)
    qm = np.empty(T, dtype=np.int64)
    qk = np.empty(T, dtype=np.int64)
    qa = np.empty(T)
    ids = np.empty(T, dtype=np.int64)
    # the start genome {(n+1, 1): 1}
    PM[0, 0], PK[0, 0], PA[0, 0], PL[0] = n + 1, 1, 1.0, 1
    P = project_genome(PM[0], PK[0], PA[0], PL[0], n, phi_projection, qm, qk, qa)
    f_base, A = _genome_mse(u, c, lu, l1u, Lg, Q, lf, qm, qk, qa, P, hkeys, hvals, n + 2, G, am, ak, aw, A, ids)
    PF[0] = f_base
    npop = np.int64(1)
    hist_best = np.empty(max_gen)
    hist_pop = np.empty(max_gen, dtype=np.int64)
    hist_atoms = np.empty(max_gen, dtype=np.int64)
    sel = np.empty(n_parents, dtype=np.int64)
    order = np.empty(3, dtype=np.int64)
    block_best = f_base
    limit = ngen
    g = 0
    while g < limit:
        g += 1
        ntop = _top3(PF, npop, order)
        for i in range(n_parents):  # tournaments: the first of the fittest among `tournament` draws
            b = below(state, npop)
            for _ in range(tournament - 1):
                j = below(state, npop)
                if PF[j] < PF[b]:
                    b = j
            sel[i] = b
        nc = np.int64(0)
        for i in range(n_parents):
            _copy_genome(PM, PK, PA, PL, sel[i], CM, CK, CA, CL, nc)
            CF[nc] = PF[sel[i]]
            nc += 1
        for i in range(n_parents):
            s = sel[i]
            j, case, r = _draw_move(state, PM[s], PK[s], PL[s], n)
            L = apply_move(PM[s], PK[s], PA[s], PL[s], j, case, r, authors_code, CM[nc], CK[nc], CA[nc])
            L = prune(CM[nc], CK[nc], CA[nc], L, n, prune_tol, phi_prune, lf)
            if L == 0 or L > max_terms:
                continue
            P = project_genome(CM[nc], CK[nc], CA[nc], L, n, phi_projection, qm, qk, qa)
            while A + P > G.shape[0]:
                G, am, ak, aw = _grow(G, am, ak, aw, A)
            while 2 * (A + P) > hkeys.shape[0]:
                hkeys, hvals = _rehash(hkeys, hvals)
            f, A = _genome_mse(u, c, lu, l1u, Lg, Q, lf, qm, qk, qa, P, hkeys, hvals, n + 2, G, am, ak, aw, A, ids)
            CL[nc] = L
            CF[nc] = f
            nc += 1
        CM[nc, 0], CK[nc, 0], CA[nc, 0], CL[nc], CF[nc] = n + 1, 1, 1.0, 1, f_base
        nc += 1
        for t in range(ntop):
            _copy_genome(PM, PK, PA, PL, order[t], CM, CK, CA, CL, nc)
            CF[nc] = PF[order[t]]
            nc += 1
        npop = np.int64(0)  # next population: candidates in order, deduplicated by fitness
        for i in range(nc):
            dup = False
            for j in range(npop):
                if PF[j] == CF[i]:
                    dup = True
                    break
            if not dup:
                _copy_genome(CM, CK, CA, CL, i, PM, PK, PA, PL, npop)
                PF[npop] = CF[i]
                npop += 1
        best = PF[0]
        for i in range(1, npop):
            best = min(best, PF[i])
        hist_best[g - 1] = best
        hist_pop[g - 1] = npop
        hist_atoms[g - 1] = A
        if g >= limit and limit < max_gen:
            if block_best > 0.0 and (block_best - best) / block_best > improve_tol:
                limit += block
                block_best = best
            elif f_base > 0.0 and (f_base - best) / f_base < stall_tol:
                limit += block
            limit = min(limit, max_gen)
    i = 0
    for j in range(1, npop):
        if PF[j] < PF[i]:
            i = j
    L = PL[i]
    return (PM[i, :L].copy(), PK[i, :L].copy(), PA[i, :L].copy(), PF[i], f_base, g, hist_best[:g].copy(),
            hist_pop[:g].copy(), hist_atoms[:g].copy(), A)
