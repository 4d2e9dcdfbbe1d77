"""Exact rational linear algebra on python-flint (FLINT's ``fmpq_mat``), with a Fraction API.

Small dense helpers shared by the exact parts of the toolkit (decomposition polyhedra in
theorylab.cpwl, region certificates in theorylab.relu): reduced row echelon form, null
space, rank, solving linear systems, and scaling rational rows to primitive integer rows.

Inputs are lists of rows whose entries are ``int``, ``fractions.Fraction``, flint ``fmpz`` /
``fmpq``, numpy integers, decimal strings such as ``"3/7"`` or ``"0.1"``, or floats. A float is
converted **exactly** to the rational equal to its binary value (``0.1`` becomes
3602879701896397/36028797018963968, not 1/10); pass a Fraction or a string to mean the decimal.
Outputs are ``Fraction`` (lists, lists of lists) as before the move to flint, so callers
compare, hash and print them as usual; the elimination itself runs in FLINT (about two orders
of magnitude faster than the former pure-Python Fraction elimination on 60 x 80 matrices, see
``theorylab bench relu_depth exact_rref_flint``).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from math import gcd
from numbers import Integral, Rational

import flint

_fmpq = flint.fmpq
_fmpz = flint.fmpz
_fmpq_mat = flint.fmpq_mat

# refuse matrices larger than this many entries before converting (memory/time budget: a dense
# rational elimination on 4e6 entries already takes minutes in FLINT with growing denominators)
MAX_ENTRIES = 4_000_000


def to_fraction(x) -> Fraction:
    """An exact Fraction from an int, Fraction, flint number, numpy scalar, string or float.

    Floats (and numpy floats) are converted exactly to their binary value; strings are parsed
    by ``Fraction`` (``"1/3"``, ``"0.1"`` = 1/10). NaN/inf and booleans are refused.
    """
    if type(x) is Fraction:
        return x
    if type(x) is int:
        return Fraction(x)
    if isinstance(x, bool):
        raise TypeError(f"expected a number; got {x!r}")
    if isinstance(x, _fmpq):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, _fmpz):
        return Fraction(int(x))
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        x = x.item()
        if isinstance(x, bool):
            raise TypeError(f"expected a number; got {x!r}")
    if isinstance(x, (Rational, str, Decimal)):
        try:
            return Fraction(x)
        except ValueError as e:
            raise ValueError(f"cannot read {x!r} as an exact rational number") from e
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            raise ValueError(f"expected a finite number; got {x!r}")
        return Fraction(x)
    raise TypeError(f"expected an int, Fraction, string or float; got {type(x).__name__} {x!r}")


def _q(x):
    """flint-ready entry: ints stay ints, everything else via an exact Fraction."""
    if type(x) is int:
        return x
    if isinstance(x, (_fmpq, _fmpz)):
        return x
    f = x if type(x) is Fraction else to_fraction(x)
    return _fmpq(f.numerator, f.denominator)


def _back(q) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def frac_matrix(rows) -> list[list[Fraction]]:
    return [[to_fraction(v) for v in row] for row in rows]


def _shape(M, name="M"):
    n_rows = len(M)
    n_cols = len(M[0]) if n_rows else 0
    for i, row in enumerate(M):
        if len(row) != n_cols:
            raise ValueError(f"{name} must be rectangular; row {i} has {len(row)} entries, row 0 has {n_cols}")
    if n_rows * n_cols > MAX_ENTRIES:
        raise ValueError(f"{name} has {n_rows} x {n_cols} entries; the limit is {MAX_ENTRIES} (exact elimination budget)")
    return n_rows, n_cols


def _mat(M, name="M"):
    n_rows, n_cols = _shape(M, name)
    return _fmpq_mat(n_rows, n_cols, [_q(v) for row in M for v in row]), n_rows, n_cols


def _pivots(entries, n_rows, n_cols, r):
    """Pivot columns of the first r rows of an RREF given as a flat entry list."""
    piv = []
    for i in range(r):
        base = i * n_cols
        for c in range(piv[-1] + 1 if piv else 0, n_cols):
            if entries[base + c] != 0:
                piv.append(c)
                break
    return piv


def _rref_flint(M, name="M"):
    A, n_rows, n_cols = _mat(M, name)
    if n_rows == 0 or n_cols == 0:
        return [], n_rows, n_cols, []
    R, r = A.rref()
    ent = R.entries()
    return ent, n_rows, n_cols, _pivots(ent, n_rows, n_cols, r)


def rref(M, n_cols: int | None = None):
    """Reduced row echelon form of a list of rational rows; returns (R, pivot_columns).

    ``R`` is a list of lists of Fractions, row-equivalent to ``M``. With ``n_cols``, pivots are
    reported only in the first ``n_cols`` columns (the rest, e.g. a right-hand side, are carried
    along; rows whose first ``n_cols`` entries vanish come last). Computed as FLINT's RREF of the
    whole matrix, whose left block is the RREF of the left block of ``M``.
    """
    ent, n_rows, total, piv = _rref_flint(M)
    if n_rows == 0:
        return [], []
    if total == 0:
        return [[] for _ in range(n_rows)], []
    if n_cols is not None:
        piv = [c for c in piv if c < n_cols]
    vals = [_back(q) for q in ent]
    return [vals[i * total:(i + 1) * total] for i in range(n_rows)], piv


def rank(M) -> int:
    if not M:
        return 0
    A, n_rows, n_cols = _mat(M)
    return A.rank() if n_cols else 0


def nullspace(M, n_cols: int):
    """A basis (list of column vectors) of {x : M x = 0}, x in Q^n_cols (the RREF basis: one
    vector per free column f, with x_f = 1 and the other free coordinates 0)."""
    if not M:
        return [[Fraction(int(i == j)) for i in range(n_cols)] for j in range(n_cols)]
    ent, n_rows, total, piv = _rref_flint(M)
    if total != n_cols:
        raise ValueError(f"n_cols={n_cols} does not match the {total} columns of M")
    pset = set(piv)
    basis = []
    for f in range(n_cols):
        if f in pset:
            continue
        x = [Fraction(0)] * n_cols
        x[f] = Fraction(1)
        for i, pc in enumerate(piv):
            x[pc] = -_back(ent[i * total + f])
        basis.append(x)
    return basis


def solve(A, b):
    """Solve the square system A x = b exactly; raise ValueError if singular."""
    n, m = _shape(A, "A")
    if n != m:
        raise ValueError(f"A must be square; got {n} x {m}")
    if len(b) != n:
        raise ValueError(f"b must have {n} entries (rows of A); got {len(b)}")
    if n == 0:
        return []
    Aq, _, _ = _mat(A, "A")
    bq = _fmpq_mat(n, 1, [_q(v) for v in b])
    try:
        x = Aq.solve(bq)
    except ZeroDivisionError:
        raise ValueError("singular system") from None
    return [_back(q) for q in x.entries()]


def solve_consistent(M, rhs):
    """One solution y of M y = rhs (Fractions, any shape), free variables 0; None if inconsistent."""
    if len(rhs) != len(M):
        raise ValueError(f"rhs must have one entry per row of M ({len(M)}); got {len(rhs)}")
    n_cols = len(M[0]) if M else 0
    if not M:
        return []
    ent, n_rows, total, piv = _rref_flint([list(row) + [b] for row, b in zip(M, rhs)])
    if piv and piv[-1] == n_cols:         # a pivot in the right-hand side: inconsistent
        return None
    y = [Fraction(0)] * n_cols
    for i, col in enumerate(piv):
        y[col] = _back(ent[i * total + n_cols])
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


class ExactMatrix:
    """A fixed rational matrix kept in FLINT for repeated exact products with vectors.

    ``ExactMatrix(rows)`` converts once; ``A.matvec(x)`` returns ``A x`` as a list of
    Fractions (x: ints, Fractions, strings, floats exactly), ``A.annihilates(x)`` tests
    ``A x == 0``, ``A.matmul(B)`` returns ``A B`` as a list of Fraction rows.
    """

    __slots__ = ("_m", "n_rows", "n_cols")

    def __init__(self, rows, n_cols: int | None = None):
        if rows:
            self._m, self.n_rows, self.n_cols = _mat(rows, "rows")
        else:
            self.n_rows, self.n_cols = 0, (0 if n_cols is None else int(n_cols))
            self._m = _fmpq_mat(0, self.n_cols)

    def _col(self, x):
        if len(x) != self.n_cols:
            raise ValueError(f"x must have {self.n_cols} entries (columns of the matrix); got {len(x)}")
        return _fmpq_mat(self.n_cols, 1, [_q(v) for v in x])

    def matvec(self, x) -> list[Fraction]:
        if self.n_rows == 0:
            return []
        if self.n_cols == 0:
            return [Fraction(0)] * self.n_rows
        return [_back(q) for q in (self._m * self._col(x)).entries()]

    def annihilates(self, x) -> bool:
        if self.n_rows == 0 or self.n_cols == 0:
            return True
        return all(q == 0 for q in (self._m * self._col(x)).entries())

    def matmul(self, B) -> list[list[Fraction]]:
        Bm, r, c = _mat(B, "B")
        if r != self.n_cols:
            raise ValueError(f"B must have {self.n_cols} rows; got {r}")
        if self.n_rows == 0:
            return []
        P = (self._m * Bm).entries()
        vals = [_back(q) for q in P]
        return [vals[i * c:(i + 1) * c] for i in range(self.n_rows)]
