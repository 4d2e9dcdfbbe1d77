"""numba kernels: the two hot numeric loops of the package.

* :func:`basic_solutions` — brute-force vertex enumeration of {y : L y >= u}: every
  ``d``-subset of the rows (unranked from its lexicographic index, so the blocks of
  subsets run on threads give the same result whatever the thread count) is solved by Gaussian elimination with partial
  pivoting and kept if feasible.  Floating point; the Python layer re-verifies in rationals.
* :func:`piece_counts` — the number of affine pieces of many functions on one complex at
  once: union–find of the cells across the walls where the bend is zero.

No input checking and no I/O here (see :mod:`theorylab.cpwl.polyhedron`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from theorylab.core.parallel import map_blocks


@njit(cache=True)
def binomial_table(n, k):
    """C[a, b] = binomial(a, b) for a <= n, b <= k (int64)."""
    C = np.zeros((n + 1, k + 1), dtype=np.int64)
    for a in range(n + 1):
        C[a, 0] = 1
        for b in range(1, min(a, k) + 1):
            C[a, b] = C[a - 1, b - 1] + (C[a - 1, b] if b <= a - 1 else 0)
    return C


@njit(cache=True)
def unrank_combination(r, n, k, C, out):
    """Write the r-th k-subset of range(n) in lexicographic order into ``out``."""
    x = 0
    for i in range(k):
        while C[n - x - 1, k - i - 1] <= r:
            r -= C[n - x - 1, k - i - 1]
            x += 1
        out[i] = x
        x += 1


@njit(cache=True)
def _solve_rows(L, u, rows, x, M):
    """Solve L[rows] x = u[rows] (d x d) by partial pivoting; return False if singular."""
    d = rows.shape[0]
    for i in range(d):
        for j in range(d):
            M[i, j] = L[rows[i], j]
        M[i, d] = u[rows[i]]
    for c in range(d):
        p = c
        best = abs(M[c, c])
        for i in range(c + 1, d):
            if abs(M[i, c]) > best:
                best = abs(M[i, c])
                p = i
        if best < 1e-10:
            return False
        if p != c:
            for j in range(d + 1):
                tmp = M[c, j]
                M[c, j] = M[p, j]
                M[p, j] = tmp
        for i in range(c + 1, d):
            f = M[i, c] / M[c, c]
            for j in range(c, d + 1):
                M[i, j] -= f * M[c, j]
    for i in range(d - 1, -1, -1):
        s = M[i, d]
        for j in range(i + 1, d):
            s -= M[i, j] * x[j]
        x[i] = s / M[i, i]
    return True


def basic_solutions(L, u, tol):
    """All feasible basic solutions of {y : L y >= u}, one candidate per d-subset of rows.

    Returns (points (n_subsets, d), feasible (n_subsets,) bool).  Duplicates (degenerate
    vertices) are left to the caller.  Blocks of subsets run :func:`basic_solutions_block` on
    threads (:func:`theorylab.core.parallel.map_blocks`; a ``prange`` kernel compiled about twice as
    slowly); subset r is unranked from r, so the result does not depend on the split.
    """
    W, d = L.shape
    C = binomial_table(W, d)
    n_sub = int(C[W, d])
    pts = np.zeros((n_sub, d))
    ok = np.zeros(n_sub, dtype=np.bool_)
    map_blocks(lambda s: basic_solutions_block(L, u, tol, C, s.start, s.stop, pts, ok), n_sub, work=n_sub * W * d)
    return pts, ok


@njit(cache=True, nogil=True)
def basic_solutions_block(L, u, tol, C, lo, hi, pts, ok):
    """:func:`basic_solutions` for the subsets of ranks lo..hi-1, written into their rows of ``pts``, ``ok``."""
    W, d = L.shape
    rows = np.empty(d, dtype=np.int64)
    x = np.empty(d)
    M = np.empty((d, d + 1))
    for r in range(lo, hi):
        unrank_combination(r, W, d, C, rows)
        if _solve_rows(L, u, rows, x, M):
            feas = True
            for i in range(W):
                s = 0.0
                for j in range(d):
                    s += L[i, j] * x[j]
                if s < u[i] - tol * (1.0 + abs(u[i])):
                    feas = False
                    break
            if feas:
                ok[r] = True
                for j in range(d):
                    pts[r, j] = x[j]


@njit(cache=True)
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True)
def _pieces_of_row(flat_row, wall_cells, n_cells):
    """Union-find over the cells: cells joined by a flat wall (``flat_row[w]``) are one piece."""
    parent = np.arange(n_cells)
    count = n_cells
    for w in range(flat_row.shape[0]):
        if flat_row[w]:
            a = _find(parent, wall_cells[w, 0])
            b = _find(parent, wall_cells[w, 1])
            if a != b:
                parent[a] = b
                count -= 1
    return count


def piece_counts(flat, wall_cells, n_cells):
    """Number of affine pieces for each row of ``flat`` (S, W) bool: True where the bend is 0.

    ``wall_cells`` (W, 2) are the cells on the two sides of each wall.  Cells joined by a
    flat wall belong to the same piece.  Blocks of rows run :func:`piece_counts_serial` on threads
    (:func:`theorylab.core.parallel.map_blocks`).
    """
    out = np.zeros(flat.shape[0], dtype=np.int64)

    def block(s):
        out[s] = piece_counts_serial(flat[s], wall_cells, n_cells)
    map_blocks(block, flat.shape[0], work=flat.shape[0] * flat.shape[1])
    return out


@njit(cache=True, nogil=True)
def piece_counts_serial(flat, wall_cells, n_cells):
    """:func:`piece_counts` without threads (one block of rows; also what a single function's count runs)."""
    out = np.zeros(flat.shape[0], dtype=np.int64)
    for s in range(flat.shape[0]):
        out[s] = _pieces_of_row(flat[s], wall_cells, n_cells)
    return out
