"""Jitted kernel: loss and gradient of multi-head softmax attention of rank r (paper ``rank_attn``).

Model (one query q, keys x_1..x_N in R^d; head h has Q_h, K_h in R^{d x r} and a value map V_h in R^{d x d}):

    s_hj = (Q_h^T q) . (K_h^T x_j),   p_hj = softmax_j(s_hj),   z_h = sum_j p_hj x_j,   f = sum_h V_h z_h,

so the bilinear form W_QK,h = Q_h K_h^T has rank <= r.  Loss (mean squared error over M samples):
    loss = (1/M) sum_m |f(q_m, X_m) - y_m|^2.
Backward pass (chain rule, e = f - y, g = 2e/M):
    dV_h = g z_h^T,  dz_h = V_h^T g,  ds_hj = p_hj (x_j - z_h) . dz_h,
    dQ_h = q (sum_j ds_hj K_h^T x_j)^T,  dK_h = sum_j x_j ds_hj (Q_h^T q)^T.
No input checking here (see theorylab.exact.attention).  Serial on purpose: the fitting loop calls it
thousands of times on small batches, and a serial kernel compiles in about a second.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def mha_loss_grad(q, X, Y, Q, K, V, gQ, gK, gV):
    """Loss (above) of the heads (Q, K, V) on samples q (M, d), X (M, N, d), targets Y (M, d); writes the
    gradients into gQ, gK (H, d, r) and gV (H, d, d) (overwritten) and returns the loss."""
    M, N, d = X.shape
    H, _, r = Q.shape
    gQ[:] = 0.0
    gK[:] = 0.0
    gV[:] = 0.0
    a = np.empty((H, r))
    b = np.empty((H, N, r))
    p = np.empty((H, N))
    z = np.empty((H, d))
    e = np.empty(d)
    dz = np.empty(d)
    loss = 0.0
    for m in range(M):
        for i in range(d):
            e[i] = -Y[m, i]
        for h in range(H):
            for k in range(r):
                acc = 0.0
                for i in range(d):
                    acc += Q[h, i, k] * q[m, i]
                a[h, k] = acc
            smax = -np.inf
            for j in range(N):
                s = 0.0
                for k in range(r):
                    acc = 0.0
                    for i in range(d):
                        acc += K[h, i, k] * X[m, j, i]
                    b[h, j, k] = acc
                    s += a[h, k] * acc
                p[h, j] = s
                if s > smax:
                    smax = s
            tot = 0.0
            for j in range(N):
                p[h, j] = np.exp(p[h, j] - smax)
                tot += p[h, j]
            for i in range(d):
                z[h, i] = 0.0
            for j in range(N):
                p[h, j] /= tot
                for i in range(d):
                    z[h, i] += p[h, j] * X[m, j, i]
            for i in range(d):
                acc = 0.0
                for l in range(d):
                    acc += V[h, i, l] * z[h, l]
                e[i] += acc
        for i in range(d):
            loss += e[i] * e[i]
            e[i] *= 2.0 / M                      # g = dloss/df
        for h in range(H):
            for l in range(d):
                acc = 0.0
                for i in range(d):
                    gV[h, i, l] += e[i] * z[h, l]
                    acc += V[h, i, l] * e[i]
                dz[l] = acc
            zdz = 0.0
            for l in range(d):
                zdz += z[h, l] * dz[l]
            for j in range(N):
                xdz = 0.0
                for l in range(d):
                    xdz += X[m, j, l] * dz[l]
                ds = p[h, j] * (xdz - zdz)
                for k in range(r):
                    for i in range(d):
                        gQ[h, i, k] += q[m, i] * ds * b[h, j, k]
                        gK[h, i, k] += X[m, j, i] * ds * a[h, k]
    return loss / M
