"""Jitted kernel of theorylab.exact.ilp_orbits: the brute-force formulation-symmetry test (Definition 2) over a
batch of candidate permutations.  No checks or I/O here (the caller validates)."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def symmetry_mask(A, b, c, perms, out):
    """out[t] = 1 if perms[t] is a formulation symmetry: c[p] = c and every row of [A[:, p], b] can be
    matched to a distinct row of [A, b] (exact float equality; greedy matching is exact for equality)."""
    m, n = A.shape
    for t in prange(perms.shape[0]):
        p = perms[t]
        ok = True
        for j in range(n):
            if c[p[j]] != c[j]:
                ok = False
                break
        if ok:
            used = np.zeros(m, dtype=np.bool_)
            for i in range(m):
                found = False
                for r in range(m):
                    if used[r] or b[r] != b[i]:
                        continue
                    same = True
                    for j in range(n):
                        if A[i, p[j]] != A[r, j]:
                            same = False
                            break
                    if same:
                        used[r] = True
                        found = True
                        break
                if not found:
                    ok = False
                    break
        out[t] = 1 if ok else 0
