"""Jitted kernels of paper ``mgda_gs``: the K-objective zoo, the min-norm point of the convex hull of K gradients,
and MGDA with its warm-started and FA variants.  No input checking here (theorylab.multiobjective.mgda validates).

Objectives (i = 1..K, x in R^d; a term is switched off by zero coefficients / zero terms):
    F_i(x) = sum_j log cosh(A[i, j] . x - b[i, j]) + e[i] exp(U[i] . x - s[i]) + 1/2 (x - c[i])^T H[i] (x - c[i])
The Jacobian is stored by rows, J[i] = grad F_i(x) (the transpose of the paper's G = [grad F_1, ..., grad F_K]).

Min-norm point w* = argmin_{w in simplex} ||G w||:
    ``min_norm_active_set``  exact: for every support S (bitmask), the affine minimiser of ||sum_{i in S} w_i g_i||
                             with sum w_i = 1 from the (|S|-1)-square system of the differences g_i - g_{i0}; the
                             smallest norm among the supports whose affine minimiser has w >= 0 is the hull's
                             (the optimum's own support is one of them; every other candidate is a hull point)
    ``min_norm_pgd``         accelerated projected gradient (FISTA, step 1/||G^T G||_F) on 1/2 ||G w||^2

MGDA step (spec's regularised form [I]), for t = 0..T-1 with G_t = G(x_t):
    w_{t+1} = N steps of  w <- Pi_simplex(w - beta (q + rho w))   from w_t, q = G_t^T G_t w  (MGDA: N = 1, rho = 0)
    x_{t+1} = x_t - alpha G_t w_{t+1}
    FA: q is replaced by qhat_t = (F(x_{t-1}) - F(x_t)) / alpha, the previous step's decrease (errata reading;
        ~ G_{t-1}^T G_{t-1} w_t), one w-step per iteration; at t = 0 there is no previous step and w_1 = w_0.
"""

import numpy as np
from numba import njit

VARIANT_MGDA, VARIANT_FA = 0, 1


@njit(cache=True)
def values_and_jacobian(A, b, U, s, e, H, c, x, F, J):
    """F[i] = F_i(x) and J[i] = grad F_i(x)."""
    K, m, d = A.shape
    for i in range(K):
        f = 0.0
        for k in range(d):
            J[i, k] = 0.0
        for j in range(m):
            z = -b[i, j]
            for k in range(d):
                z += A[i, j, k] * x[k]
            az = abs(z)
            f += az + np.log1p(np.exp(-2.0 * az)) - np.log(2.0)      # log cosh z, overflow-free
            th = np.tanh(z)
            for k in range(d):
                J[i, k] += th * A[i, j, k]
        if e[i] != 0.0:
            z = -s[i]
            for k in range(d):
                z += U[i, k] * x[k]
            ez = e[i] * np.exp(z)
            f += ez
            for k in range(d):
                J[i, k] += ez * U[i, k]
        for k in range(d):
            hk = 0.0
            for l in range(d):
                hk += H[i, k, l] * (x[l] - c[i, l])
            f += 0.5 * (x[k] - c[i, k]) * hk
            J[i, k] += hk
        F[i] = f


@njit(cache=True)
def project_simplex(v, out):
    """Euclidean projection of v onto the probability simplex, by Michelot's (1986) finite algorithm: theta is the
    mean excess (sum_{i in S} v_i - 1)/|S| over the current support S, and entries with v_i <= theta leave S until
    none does (S only shrinks, so at most K passes); then out = max(v - theta, 0).  Sort-free (numba compiles
    np.sort slowly)."""
    K = v.shape[0]
    keep = np.ones(K, np.bool_)
    n = K
    total = 0.0
    for i in range(K):
        total += v[i]
    theta = (total - 1.0) / n
    changed = True
    while changed:
        changed = False
        for i in range(K):
            if keep[i] and v[i] <= theta:
                keep[i] = False
                n -= 1
                changed = True
        if n == 0:          # cannot happen in exact arithmetic (the largest entry stays); guard rounding
            break
        total = 0.0         # summed afresh over the support (no cancellation from subtracting)
        for i in range(K):
            if keep[i]:
                total += v[i]
        theta = (total - 1.0) / n
    for i in range(K):
        out[i] = max(v[i] - theta, 0.0)


@njit(cache=True)
def _solve_small(M, r, n):
    """Solve M[:n, :n] y = r[:n] by Gaussian elimination with partial pivoting, in place; False if singular."""
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(M[i, j]))
    if scale == 0.0:
        return False
    for col in range(n):
        p = col
        for i in range(col + 1, n):
            if abs(M[i, col]) > abs(M[p, col]):
                p = i
        if abs(M[p, col]) <= 1e-13 * scale:
            return False
        if p != col:
            for j in range(n):
                M[col, j], M[p, j] = M[p, j], M[col, j]
            r[col], r[p] = r[p], r[col]
        for i in range(col + 1, n):
            f = M[i, col] / M[col, col]
            for j in range(col, n):
                M[i, j] -= f * M[col, j]
            r[i] -= f * r[col]
    for i in range(n - 1, -1, -1):
        acc = r[i]
        for j in range(i + 1, n):
            acc -= M[i, j] * r[j]
        r[i] = acc / M[i, i]
    return True


@njit(cache=True)
def min_norm_active_set(J, w):
    """Exact min-norm point of conv{J[0], ..., J[K-1]}: writes w*, returns ||J^T w*||."""
    K, d = J.shape
    best = np.inf
    idx = np.empty(K, np.int64)
    M = np.empty((K, K))
    r = np.empty(K)
    lam = np.empty(K)
    diff = np.empty((K, d))
    dvec = np.empty(d)
    for mask in range(1, 1 << K):
        n = 0
        for i in range(K):
            if (mask >> i) & 1:
                idx[n] = i
                n += 1
        i0 = idx[0]
        ok = True
        if n > 1:
            for a in range(n - 1):
                for k in range(d):
                    diff[a, k] = J[idx[a + 1], k] - J[i0, k]
            for a in range(n - 1):
                acc = 0.0
                for k in range(d):
                    acc += diff[a, k] * J[i0, k]
                r[a] = -acc
                for bb in range(a, n - 1):
                    acc = 0.0
                    for k in range(d):
                        acc += diff[a, k] * diff[bb, k]
                    M[a, bb] = acc
                    M[bb, a] = acc
            ok = _solve_small(M, r, n - 1)
        if not ok:
            continue
        lam0 = 1.0
        for a in range(n - 1):
            lam0 -= r[a]
            if r[a] < 0.0:
                ok = False
        if lam0 < 0.0 or not ok:
            continue
        for k in range(d):
            dvec[k] = lam0 * J[i0, k]
        for a in range(n - 1):
            for k in range(d):
                dvec[k] += r[a] * J[idx[a + 1], k]
        nrm = 0.0
        for k in range(d):
            nrm += dvec[k] * dvec[k]
        if nrm < best:
            best = nrm
            for i in range(K):
                lam[i] = 0.0
            lam[i0] = lam0
            for a in range(n - 1):
                lam[idx[a + 1]] = r[a]
    for i in range(K):
        w[i] = lam[i]
    return np.sqrt(best)


@njit(cache=True)
def min_norm_pgd(J, w0, n_iter, tol, w):
    """FISTA on 1/2 ||J^T w||^2 over the simplex from w0; stops when the projected step moves w by < tol.
    Writes w, returns the number of iterations used."""
    K, d = J.shape
    Q = J @ J.T
    L = 0.0
    for i in range(K):
        for j in range(K):
            L += Q[i, j] * Q[i, j]
    L = np.sqrt(L)
    if L == 0.0:
        for i in range(K):
            w[i] = w0[i]
        return 0
    y = w0.copy()
    wk = w0.copy()
    wn = np.empty(K)
    v = np.empty(K)
    t = 1.0
    it = 0
    for it in range(1, n_iter + 1):
        g = Q @ y
        for i in range(K):
            v[i] = y[i] - g[i] / L
        project_simplex(v, wn)
        tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        move = 0.0
        for i in range(K):
            move = max(move, abs(wn[i] - wk[i]))
            y[i] = wn[i] + (t - 1.0) / tn * (wn[i] - wk[i])
            wk[i] = wn[i]
        t = tn
        if move < tol:
            break
    for i in range(K):
        w[i] = wk[i]
    return it


@njit(cache=True)
def _ca(J, w, wstar):
    """||J^T w - J^T w*||."""
    K, d = J.shape
    acc = 0.0
    for k in range(d):
        z = 0.0
        for i in range(K):
            z += (w[i] - wstar[i]) * J[i, k]
        acc += z * z
    return np.sqrt(acc)


@njit(cache=True)
def run(variant, A, b, U, s, e, H, c, x0, w0, T, alpha, beta, rho, n_inner, fa_scale, X, W, Fv, Q, ca, ca_dir, ps):
    """T iterations of MGDA (or FA) from (x0, w0).  Records X[t] = x_t, W[t] = w_t, Fv[t] = F(x_t) (t = 0..T),
    Q[t] = the w-gradient used at step t (G_t^T G_t w_t, or FA's qhat_t; 0 when no w-step), the CA distances
    ca[t] = ||G_t (w_t - w_t*)|| and ca_dir[t] = ||G_t (w_{t+1} - w_t*)|| (the direction used), and the Pareto
    stationarity ps[t] = ||G_t w_t*||.  FA's qhat_t = (F(x_{t-1}) - F(x_t)) * fa_scale (fa_scale = 1/alpha, passed
    by the caller).  Returns -1, or the first t at which a state is not finite."""
    K, m, d = A.shape
    J = np.empty((K, d))
    F = np.empty(K)
    Fprev = np.empty(K)
    x = x0.copy()
    w = w0.copy()
    wn = np.empty(K)
    v = np.empty(K)
    wstar = np.empty(K)
    q = np.empty(K)
    for t in range(T):
        values_and_jacobian(A, b, U, s, e, H, c, x, F, J)
        for k in range(d):
            X[t, k] = x[k]
        for i in range(K):
            W[t, i] = w[i]
            Fv[t, i] = F[i]
            if not np.isfinite(F[i]):
                return t
        ps[t] = min_norm_active_set(J, wstar)
        ca[t] = _ca(J, w, wstar)
        for i in range(K):
            wn[i] = w[i]
        if variant == VARIANT_FA:
            if t == 0:
                for i in range(K):
                    q[i] = 0.0
            else:
                for i in range(K):
                    q[i] = (Fprev[i] - F[i]) * fa_scale
                for i in range(K):
                    v[i] = wn[i] - beta * (q[i] + rho * wn[i])
                project_simplex(v, wn)
        else:
            for it in range(n_inner):
                for i in range(K):
                    acc = 0.0
                    for j in range(K):
                        gij = 0.0
                        for k in range(d):
                            gij += J[i, k] * J[j, k]
                        acc += gij * wn[j]
                    if it == 0:
                        q[i] = acc
                    v[i] = wn[i] - beta * (acc + rho * wn[i])
                project_simplex(v, wn)
        for i in range(K):
            Q[t, i] = q[i]
        ca_dir[t] = _ca(J, wn, wstar)
        for k in range(d):
            z = 0.0
            for i in range(K):
                z += wn[i] * J[i, k]
            x[k] -= alpha * z
        for i in range(K):
            Fprev[i] = F[i]
            w[i] = wn[i]
    values_and_jacobian(A, b, U, s, e, H, c, x, F, J)
    for k in range(d):
        X[T, k] = x[k]
        if not np.isfinite(x[k]):
            return T
    for i in range(K):
        W[T, i] = w[i]
        Fv[T, i] = F[i]
        if not np.isfinite(F[i]):
            return T
    return -1
