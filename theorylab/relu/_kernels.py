"""Jitted kernels for theorylab.relu: integer arithmetic only, no validation, no I/O.

Exact evaluation of a rational ReLU network is done on integer numerators over a common
denominator per layer (ReLU commutes with multiplication by a positive scalar), so the hot
loops are int64 matrix-vector products; the Python layer above proves beforehand that no
intermediate value can overflow int64 and otherwise falls back to Python integers.
"""

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def eval_int_batch(X, A_flat, B_flat, S_before, a_off, b_off, dims):
    """Numerators of a ReLU network's outputs at integer points.

    Layer ``l`` maps numerators ``y`` (over the scalar denominator ``S_before[l]``) to
    ``A_l y + S_before[l] * B_l``; every layer but the last is followed by ReLU.
    ``A_l`` is stored row-major in ``A_flat[a_off[l]:]``, ``B_l`` in ``B_flat[b_off[l]:]``,
    ``dims = (n_0, ..., n_L)``.  Points are independent, so the prange over them gives the
    same numbers for every thread count.
    """
    m = X.shape[0]
    L = dims.size - 1
    width = 0
    for l in range(L + 1):
        if dims[l] > width:
            width = dims[l]
    out = np.empty((m, dims[L]), dtype=np.int64)
    for i in prange(m):
        cur = np.zeros(width, dtype=np.int64)
        nxt = np.zeros(width, dtype=np.int64)
        for c in range(dims[0]):
            cur[c] = X[i, c]
        for l in range(L):
            nin = dims[l]
            nout = dims[l + 1]
            for r in range(nout):
                s = B_flat[b_off[l] + r] * S_before[l]
                base = a_off[l] + r * nin
                for c in range(nin):
                    s += A_flat[base + c] * cur[c]
                if l < L - 1 and s < 0:
                    s = 0
                nxt[r] = s
            for r in range(nout):
                cur[r] = nxt[r]
        for r in range(dims[L]):
            out[i, r] = cur[r]
    return out


@njit(cache=True)
def _bareiss(M):
    """Determinant of one square int64 matrix by fraction-free (Bareiss) elimination."""
    d = M.shape[0]
    A = M.copy()
    sign = 1
    prev = 1
    for k in range(d - 1):
        if A[k, k] == 0:
            piv = -1
            for r in range(k + 1, d):
                if A[r, k] != 0:
                    piv = r
                    break
            if piv < 0:
                return 0
            for c in range(d):
                t = A[k, c]
                A[k, c] = A[piv, c]
                A[piv, c] = t
            sign = -sign
        for i in range(k + 1, d):
            for j in range(k + 1, d):
                A[i, j] = (A[i, j] * A[k, k] - A[i, k] * A[k, j]) // prev
        prev = A[k, k]
    return sign * A[d - 1, d - 1]


@njit(parallel=True, cache=True)
def det_batch(M):
    """Exact determinants of a stack ``M`` of shape (s, d, d) of int64 matrices."""
    s = M.shape[0]
    out = np.empty(s, dtype=np.int64)
    for i in prange(s):
        out[i] = _bareiss(M[i])
    return out
