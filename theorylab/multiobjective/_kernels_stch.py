"""Jitted kernel of paper ``stch_set``: schedule-free SGD on a K-solution set under one of six scalarisations of
the K x m value matrix F[k, i] = f_i(x^(k)), on the two quadratic problem families of the STCH-Set code.

Problem kinds (rows A[i] of an m x n matrix):
    KIND_LSQ   f_i(x) = (A[i] . x - b[i])^2        (quadratic / mixed linear regression problems)
    KIND_DIST  f_i(x) = ||x - A[i]||^2            (clustered instance: A[i] = c_i)

Scalarisations g(F) and their (sub)gradients W = dg/dF (METHOD_*), as in the authors' run_quad_func.py:
    STCH-Set  mu LSE_i( s_i / mu ),  s_i = -mu LSE_k( -F[k, i] / mu )   W[k, i] = p_i q[k, i]
    TCH-Set   max_i min_k F[k, i]                                         W = 1 at (argmin_k, argmax_i)
    SOM       mean_i min_k F[k, i]                                        W = 1/m at each column's argmin
    STCH      sum_k mu LSE_i( lam[k, i] F[k, i] / mu )                    W[k, i] = lam[k, i] softmax_i(...)
    TCH       sum_k max_i lam[k, i] F[k, i]                               W = lam at each row's argmax
    LS        sum_k sum_i lam[k, i] F[k, i]                               W = lam

Schedule-free SGD (Defazio et al. 2024, the ``schedulefree.SGDScheduleFree`` the code uses), in its x / z form:
    gamma_t = lr min(1, (t + 1)/warmup),  w_t = (max_{s <= t} gamma_s)^2,  c_t = w_t / sum_{s <= t} w_s
    y = (1 - beta) z + beta x;   z <- z - gamma_t grad(y);   x <- (1 - c_t) x + c_t z
The gradient is taken at y (train mode), the returned solution set is x (eval mode).  No input checking here
(theorylab.multiobjective.stch validates).
"""

import numpy as np
from numba import njit

KIND_LSQ, KIND_DIST = 0, 1
SKIP = 40.0         # exp(-a) for a >= SKIP is left out of a sum whose largest term is exp(0) = 1
METHOD_STCH_SET, METHOD_TCH_SET, METHOD_SOM, METHOD_STCH, METHOD_TCH, METHOD_LS = 0, 1, 2, 3, 4, 5


@njit(cache=True)
def values(kind, X, A, b, F, R):
    """F[k, i] = f_i(X[k]); for KIND_LSQ also the residuals R[k, i] = A[i] . X[k] - b[i]."""
    K, n = X.shape
    m = A.shape[0]
    for k in range(K):
        for i in range(m):
            acc = 0.0
            if kind == KIND_LSQ:
                for j in range(n):
                    acc += A[i, j] * X[k, j]
                r = acc - b[i]
                R[k, i] = r
                F[k, i] = r * r
            else:
                for j in range(n):
                    d = X[k, j] - A[i, j]
                    acc += d * d
                F[k, i] = acc


@njit(cache=True)
def weights(method, F, lam, mu, W):
    """W = dg/dF of scalarisation ``method`` at F (K x m); returns g(F)."""
    K, m = F.shape
    for k in range(K):
        for i in range(m):
            W[k, i] = 0.0
    if method == METHOD_STCH_SET:
        s = np.empty(m)
        for i in range(m):
            lo = F[0, i]
            for k in range(1, K):
                lo = min(lo, F[k, i])
            tot = 0.0
            for k in range(K):
                a = (F[k, i] - lo) / mu
                e = np.exp(-a) if a < SKIP else 0.0      # exp(-40) < 2^-57: below the rounding of tot >= 1
                W[k, i] = e
                tot += e
            s[i] = lo - mu * np.log(tot)
            for k in range(K):
                W[k, i] /= tot
        hi = s[0]
        for i in range(1, m):
            hi = max(hi, s[i])
        tot = 0.0
        for i in range(m):
            s[i] = np.exp((s[i] - hi) / mu)
            tot += s[i]
        for i in range(m):
            p = s[i] / tot
            for k in range(K):
                W[k, i] *= p
        return hi + mu * np.log(tot)
    if method == METHOD_TCH_SET or method == METHOD_SOM:
        total = 0.0
        best_i = 0
        best_k = 0
        best = -np.inf
        for i in range(m):
            kk = 0
            for k in range(1, K):
                if F[k, i] < F[kk, i]:
                    kk = k
            total += F[kk, i]
            if method == METHOD_SOM:
                W[kk, i] = 1.0 / m
            elif F[kk, i] > best:
                best, best_i, best_k = F[kk, i], i, kk
        if method == METHOD_SOM:
            return total / m
        W[best_k, best_i] = 1.0
        return best
    total = 0.0
    for k in range(K):
        if method == METHOD_STCH:
            hi = -np.inf
            for i in range(m):
                hi = max(hi, lam[k, i] * F[k, i] / mu)
            tot = 0.0
            for i in range(m):
                W[k, i] = np.exp(lam[k, i] * F[k, i] / mu - hi)
                tot += W[k, i]
            for i in range(m):
                W[k, i] *= lam[k, i] / tot
            total += mu * (hi + np.log(tot))
        elif method == METHOD_TCH:
            ii = 0
            for i in range(1, m):
                if lam[k, i] * F[k, i] > lam[k, ii] * F[k, ii]:
                    ii = i
            W[k, ii] = lam[k, ii]
            total += lam[k, ii] * F[k, ii]
        else:
            for i in range(m):
                W[k, i] = lam[k, i]
                total += lam[k, i] * F[k, i]
    return total


@njit(cache=True)
def gradient(kind, X, A, W, R, G):
    """G[k] = sum_i W[k, i] d f_i / d x (X[k]):  2 sum_i W R a_i (LSQ),  2 sum_i W (x_k - c_i) (DIST)."""
    K, n = X.shape
    m = A.shape[0]
    for k in range(K):
        for j in range(n):
            G[k, j] = 0.0
    for k in range(K):
        for i in range(m):
            w = W[k, i]
            if w == 0.0:
                continue
            if kind == KIND_LSQ:
                c = 2.0 * w * R[k, i]
                for j in range(n):
                    G[k, j] += c * A[i, j]
            else:
                for j in range(n):
                    G[k, j] += 2.0 * w * (X[k, j] - A[i, j])


@njit(cache=True, nogil=True)
def schedule_free(kind, A, b, method, lam, mu, X0, n_steps, lr, warmup, beta, record_every, X_out, curve):
    """Schedule-free SGD from X0 for n_steps steps; X_out = x (the averaged iterate) at the end, and
    curve[j] = g(F(y)) (the scalarisation at the gradient point) before step j record_every."""
    K, n = X0.shape
    m = A.shape[0]
    x = np.empty((K, n))
    z = np.empty((K, n))
    y = np.empty((K, n))
    for k in range(K):
        for j in range(n):
            x[k, j] = X0[k, j]
            z[k, j] = X0[k, j]
    F = np.empty((K, m))
    R = np.empty((K, m))
    W = np.empty((K, m))
    G = np.empty((K, n))
    lr_max, weight_sum = -1.0, 0.0
    for t in range(n_steps):
        gamma = lr * (t + 1) / warmup if t < warmup else lr
        lr_max = max(lr_max, gamma)
        weight = lr_max * lr_max
        weight_sum += weight
        c = weight / weight_sum
        for k in range(K):
            for j in range(n):
                y[k, j] = (1.0 - beta) * z[k, j] + beta * x[k, j]
        values(kind, y, A, b, F, R)
        g = weights(method, F, lam, mu, W)
        if t % record_every == 0:
            curve[t // record_every] = g
        gradient(kind, y, A, W, R, G)
        for k in range(K):
            for j in range(n):
                z[k, j] -= gamma * G[k, j]
                x[k, j] = (1.0 - c) * x[k, j] + c * z[k, j]
    for k in range(K):
        for j in range(n):
            X_out[k, j] = x[k, j]
