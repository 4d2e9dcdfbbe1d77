"""Jitted kernels of theorylab.exact.highway: backpropagation and the Highway-BP iteration along the
residual path.  ``JT`` holds the transposed block Jacobians, ``JT[j] = J_j^T`` (shape (L, n, n)); no
input checking here (the Python layer validates)."""

import numba as nb
import numpy as np


@nb.njit(cache=True)
def _matvec(A, v, out):
    n = A.shape[0]
    for a in range(n):
        s = 0.0
        for b in range(n):
            s += A[a, b] * v[b]
        out[a] = s


@nb.njit(cache=True)
def backprop_kernel(JT, gL, g):
    """BP: g_L given, g_i = (I + J_i)^T g_{i+1}, i = L-1..0; g has shape (L+1, n)."""
    L, n = JT.shape[0], JT.shape[1]
    u = np.empty(n)
    g[L, :] = gL
    for i in range(L - 1, -1, -1):
        _matvec(JT[i], g[i + 1], u)
        for a in range(n):
            g[i, a] = g[i + 1, a] + u[a]


@nb.njit(cache=True)
def highway_kernel(JT, gL, k, g):
    """k Highway-BP steps from g^(0)_i = g_L: u_j = J_j^T g^(t)_{j+1} for every j (the parallel block
    backprops), then g^(t+1)_i = g_L + sum_{j >= i} u_j (reverse cumulative sum along the residual path)."""
    L, n = JT.shape[0], JT.shape[1]
    u = np.empty((L, n))
    for i in range(L + 1):
        g[i, :] = gL
    for _ in range(k):
        for j in range(L):
            _matvec(JT[j], g[j + 1], u[j])
        for a in range(n):
            acc = gL[a]
            for i in range(L - 1, -1, -1):
                acc += u[i, a]
                g[i, a] = acc
