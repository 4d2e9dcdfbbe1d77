"""Exact double description method for pointed cones {x : A x >= 0} (integer data).

Motzkin's double description method (Fukuda & Prodon's formulation): start from the
simplicial cone of ``m`` linearly independent rows, add the remaining rows one at a time,
keep the rays on the non-negative side and combine each adjacent (+, -) pair into a new ray
on the hyperplane.  Adjacency uses the combinatorial test on zero sets (bitmasks), which is
exact because every ray is kept as a primitive integer vector.  Used for the vertex
enumeration of decomposition polyhedra (homogenised), so results are exact rationals.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd

from theorylab.core.exact import rref


def _primitive(v):
    g = 0
    for a in v:
        g = gcd(g, abs(a))
    return tuple(a // g for a in v) if g > 1 else tuple(v)


def _popcount(x: int) -> int:
    return bin(x).count("1")


def extreme_rays(A: list[list[int]]) -> list[tuple[tuple[int, ...], int]]:
    """Extreme rays of the pointed cone {x in R^m : A x >= 0}.

    ``A`` is a list of integer rows of length ``m`` of full column rank ``m``.  Returns a list
    of (ray, zero_set) with ray a primitive integer tuple and zero_set a bitmask of the rows
    of ``A`` vanishing on it.
    """
    k = len(A)
    m = len(A[0])
    # choose m linearly independent rows greedily
    chosen: list[int] = []
    basis_rows: list[list[Fraction]] = []
    for i in range(k):
        trial = basis_rows + [[Fraction(v) for v in A[i]]]
        if len(rref(trial)[1]) == len(trial):
            basis_rows = trial
            chosen.append(i)
            if len(chosen) == m:
                break
    if len(chosen) < m:
        raise ValueError(f"the cone is not pointed: its inequality matrix has rank {len(chosen)} < {m}")
    # rays of the initial simplicial cone: columns of B^{-1}
    aug = [row + [Fraction(int(i == j)) for j in range(m)] for i, row in enumerate(basis_rows)]
    R, _ = rref(aug)
    inv_cols = [[R[i][m + j] for i in range(m)] for j in range(m)]
    rays = []
    for j, col in enumerate(inv_cols):
        den = 1
        for v in col:
            den = den * v.denominator // gcd(den, v.denominator)
        vec = _primitive([int(v * den) for v in col])
        zero = 0
        for jj, i in enumerate(chosen):
            if jj != j:
                zero |= 1 << i
        rays.append((vec, zero))
    processed = set(chosen)
    for i in range(k):
        if i in processed:
            continue
        a = A[i]
        bit = 1 << i
        vals = [sum(x * y for x, y in zip(a, r)) for r, _ in rays]
        pos = [j for j, s in enumerate(vals) if s > 0]
        neg = [j for j, s in enumerate(vals) if s < 0]
        keep = [(rays[j][0], rays[j][1] | (bit if vals[j] == 0 else 0)) for j in range(len(rays)) if vals[j] >= 0]
        new = []
        need = m - 2
        for p in pos:
            rp, zp = rays[p]
            for q in neg:
                rq, zq = rays[q]
                z = zp & zq
                if _popcount(z) < need:
                    continue
                adjacent = True
                for t, (_, zt) in enumerate(rays):
                    if t != p and t != q and (zt & z) == z:
                        adjacent = False
                        break
                if not adjacent:
                    continue
                sp, sq = vals[p], vals[q]
                vec = _primitive([sp * y - sq * x for x, y in zip(rp, rq)])
                new.append((vec, z | bit))
        rays = keep + new
        processed.add(i)
    return rays
