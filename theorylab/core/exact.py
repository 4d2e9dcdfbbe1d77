"""Exact rational linear algebra (Python ``fractions.Fraction`` and ``int``).

Small dense helpers shared by the exact parts of the toolkit (decomposition polyhedra in
theorylab.cpwl, region certificates in theorylab.relu): reduced row echelon form, null
space, rank, solving linear systems, and scaling rational rows to primitive integer rows.
Sizes there are tens to a few hundred, so plain Python suffices.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd


def to_fraction(x) -> Fraction:
    """An exact Fraction from an int, Fraction, numpy scalar or float (floats exactly)."""
    if isinstance(x, Fraction):
        return x
    if hasattr(x, "item"):
        x = x.item()
    if isinstance(x, bool):
        raise TypeError(f"expected a number; got {x!r}")
    return Fraction(x)


def frac_matrix(rows) -> list[list[Fraction]]:
    return [[to_fraction(v) for v in row] for row in rows]


def rref(M, n_cols: int | None = None):
    """Reduced row echelon form of a list-of-lists of Fractions; returns (R, pivot_columns).

    With ``n_cols``, pivots are sought only in the first ``n_cols`` columns (the rest, e.g. a
    right-hand side, are carried along).
    """
    R = [list(row) for row in M]
    n_rows = len(R)
    if n_cols is None:
        n_cols = len(R[0]) if n_rows else 0
    pivots = []
    r = 0
    for c in range(n_cols):
        p = next((i for i in range(r, n_rows) if R[i][c] != 0), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        inv = 1 / R[r][c]
        R[r] = [v * inv for v in R[r]]
        for i in range(n_rows):
            if i != r and R[i][c] != 0:
                f = R[i][c]
                R[i] = [a - f * b for a, b in zip(R[i], R[r])]
        pivots.append(c)
        r += 1
        if r == n_rows:
            break
    return R, pivots


def rank(M) -> int:
    if not M:
        return 0
    return len(rref(M)[1])


def nullspace(M, n_cols: int):
    """A basis (list of column vectors) of {x : M x = 0}, x in Q^n_cols."""
    if not M:
        return [[Fraction(int(i == j)) for i in range(n_cols)] for j in range(n_cols)]
    R, pivots = rref(M)
    free = [c for c in range(n_cols) if c not in pivots]
    basis = []
    for f in free:
        x = [Fraction(0)] * n_cols
        x[f] = Fraction(1)
        for row, pc in zip(R, pivots):
            x[pc] = -row[f]
        basis.append(x)
    return basis


def solve(A, b):
    """Solve the square system A x = b exactly; raise ValueError if singular."""
    n = len(A)
    aug = [list(A[i]) + [b[i]] for i in range(n)]
    R, pivots = rref(aug)
    if pivots != list(range(n)):
        raise ValueError("singular system")
    return [R[i][n] for i in range(n)]


def solve_consistent(M, rhs):
    """One solution y of M y = rhs (Fractions, any shape), free variables 0; None if inconsistent."""
    n_cols = len(M[0]) if M else 0
    R, pivots = rref([list(row) + [b] for row, b in zip(M, rhs)], n_cols)
    if any(all(v == 0 for v in row[:-1]) and row[-1] != 0 for row in R):
        return None
    y = [Fraction(0)] * n_cols
    for row, col in zip(R, pivots):
        y[col] = row[-1]
    return y


def lcm(a: int, b: int) -> int:
    return a // gcd(a, b) * b if a and b else max(abs(a), abs(b), 1)


def primitive_int_row(row) -> list[int]:
    """Scale a rational row by a positive factor to coprime integers (zero row stays zero)."""
    row = [to_fraction(v) for v in row]
    den = 1
    for v in row:
        den = lcm(den, v.denominator)
    ints = [int(v * den) for v in row]
    g = 0
    for v in ints:
        g = gcd(g, abs(v))
    return [v // g for v in ints] if g > 1 else ints


def dot(u, v):
    return sum((a * b for a, b in zip(u, v)), Fraction(0))
