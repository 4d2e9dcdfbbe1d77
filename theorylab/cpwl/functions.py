"""CPWL functions compatible with a polyhedral complex: one affine map per maximal cell.

A function f in V_P (spec §2(a), paper's notation) is stored exactly as ``(a_sigma, c_sigma)``
with ``f(x) = a_sigma . x + c_sigma`` on cell sigma.  Its bend on the wall tau is the scalar
lambda_tau(f) with ``a_{sigma+} - a_{sigma-} = lambda_tau(f) nu_tau`` (nu_tau the primitive
normal); f is convex iff lambda_tau(f) >= 0 on every wall.  Continuity across a wall is
checked exactly: inconsistent data raise ``ValueError`` naming the wall.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorylab.core.validate import check_array

from theorylab.core.exact import ExactMatrix, dot, solve, to_fraction
from theorylab.core.validate import check_int

from ._checks import exact_matrix, exact_number, exact_vector, require_type
from .complexes import PolyhedralComplex


class CPWLFunction:
    """A continuous piecewise linear function on the maximal cells of ``complex``.

    Parameters
    ----------
    complex : PolyhedralComplex
    slopes : (n_cells, n) rationals
        ``a_sigma`` for every cell.
    offsets : (n_cells,) rationals
        ``c_sigma`` for every cell.

    Raises ``ValueError`` if f is not continuous across some wall.
    """

    def __init__(self, complex: PolyhedralComplex, slopes, offsets, *, check=True):
        if not isinstance(complex, PolyhedralComplex):
            raise TypeError(f"complex must be a PolyhedralComplex; got {type(complex).__name__}")
        self.complex = complex
        C, n = complex.n_cells, complex.n
        if not isinstance(check, (bool, np.bool_)):
            raise TypeError(f"check must be True or False; got {check!r}")
        self.a = [tuple(r) for r in exact_matrix("slopes", slopes, n_rows=C, n_cols=n)]
        self.c = exact_vector("offsets", offsets, length=C)
        self._bends = self._compute_bends(check)

    # -- constructors ---------------------------------------------------------------------
    @classmethod
    def from_function(cls, complex: PolyhedralComplex, fn):
        """Fit the affine map of every cell from exact evaluations ``fn(x)`` (x: list of Fractions)."""
        require_type("complex", complex, PolyhedralComplex)
        if not callable(fn):
            raise TypeError(f"fn must be a callable taking a point (list of Fractions) to a number; got "
                            f"{type(fn).__name__} {fn!r:.60}")
        n = complex.n
        slopes, offsets = [], []
        for k in range(complex.n_cells):
            pts = complex.rational_points(k)
            vals = [to_fraction(fn(p)) for p in pts]
            sol = solve([list(p) + [Fraction(1)] for p in pts], vals)
            slopes.append(sol[:n])
            offsets.append(sol[n])
        return cls(complex, slopes, offsets)

    @classmethod
    def from_ray_values(cls, fan: PolyhedralComplex, values):
        """A conewise linear function on a simplicial fan from its values at the rays."""
        require_type("fan", fan, PolyhedralComplex, " with rays (planar_fan, simplicial_fan, ...)")
        rays = getattr(fan, "rays", None)
        if rays is None:
            raise ValueError(f"{fan.name} has no rays; use a fan from planar_fan or simplicial_fan")
        vals = exact_vector("values", values, length=len(rays))
        n = fan.n
        slopes = []
        for k in range(fan.n_cells):
            idx = fan.cones[k]
            A = [[Fraction(v) for v in rays[i]] for i in idx]
            slopes.append(solve(A, [vals[i] for i in idx]))
        # the cells of the fan are in the order of fan.cones (planar_fan/simplicial_fan build them so)
        return cls(fan, slopes, [Fraction(0)] * fan.n_cells)

    @classmethod
    def from_bends(cls, complex: PolyhedralComplex, bends, *, base=None):
        """The function with the given bends lambda (must lie in the image of lambda) and
        the affine map ``base = (a, c)`` (default 0) on cell 0."""
        from .polyhedron import lambda_space

        space = lambda_space(complex)
        return space.function_from_bends(bends, base=base)

    # -- bends and properties -------------------------------------------------------------
    def _compute_bends(self, check):
        cx = self.complex
        walls = cx.walls
        if not walls:
            return []
        # (Delta a_t, Delta c_t) = (a, c)_{plus(t)} - (a, c)_{minus(t)} for all walls: one exact product
        # of the wall-cell incidence matrix (cached on the complex) with the table of affine maps
        inc = getattr(cx, "_wall_incidence", None)
        if inc is None:
            rows = [[0] * cx.n_cells for _ in walls]
            for t, w in enumerate(walls):
                rows[t][w.plus] += 1
                rows[t][w.minus] -= 1
            inc = cx._wall_incidence = ExactMatrix(rows, n_cols=cx.n_cells)
        delta = inc.matmul([list(a) + [c] for a, c in zip(self.a, self.c)])
        n = cx.n
        out = []
        for t, w in enumerate(walls):
            da, dc = delta[t][:n], delta[t][n]
            nu = w.nu
            lam = sum((d * v for d, v in zip(da, nu)), Fraction(0)) / sum(v * v for v in nu)
            if check and (any(d != lam * v for d, v in zip(da, nu)) or dc != -lam * w.beta):
                raise ValueError(
                    f"f is not continuous across wall {t} between cells {w.minus} and {w.plus} "
                    f"(hyperplane {list(w.nu)} . x = {w.beta}): the affine pieces differ by "
                    f"{[str(v) for v in da]} . x + {dc}, which does not vanish on the wall")
            out.append(lam)
        return out

    @property
    def bends(self) -> list[Fraction]:
        """lambda_tau(f) for every wall tau (exact)."""
        return list(self._bends)

    def is_convex(self) -> bool:
        """Local convexity test lambda_tau(f) >= 0 on every wall (spec §2(a))."""
        return all(v >= 0 for v in self._bends)

    def n_pieces(self) -> int:
        """Number of affine pieces: cells glued across walls with zero bend (connected regions)."""
        from ._kernels import piece_counts_serial

        flat = np.array([[v == 0 for v in self._bends]], dtype=np.bool_).reshape(1, -1)
        return int(piece_counts_serial(flat, self.complex.wall_cells(), self.complex.n_cells)[0])

    def n_affine_components(self) -> int:
        """Number of distinct affine maps among the cells."""
        return len(set(zip(self.a, self.c)))

    def __call__(self, x):
        """Evaluate exactly at a point (list of rationals) or in floats at an (m, n) array."""
        if isinstance(x, (list, tuple)) and all(isinstance(v, (int, Fraction)) for v in x):
            k = self.complex.locate([float(v) for v in x])
            return dot(self.a[k], [to_fraction(v) for v in x]) + self.c[k]
        X = np.atleast_2d(np.asarray(x, float))
        out = np.empty(len(X))
        A = np.array([[float(v) for v in r] for r in self.a])
        c = np.array([float(v) for v in self.c])
        for i, xi in enumerate(X):
            k = self.complex.locate(xi)
            out[i] = A[k] @ xi + c[k]
        return out

    def __sub__(self, other):
        self._same(other)
        return CPWLFunction(self.complex, [tuple(p - q for p, q in zip(u, v)) for u, v in zip(self.a, other.a)],
                            [p - q for p, q in zip(self.c, other.c)], check=False)

    def __add__(self, other):
        self._same(other)
        return CPWLFunction(self.complex, [tuple(p + q for p, q in zip(u, v)) for u, v in zip(self.a, other.a)],
                            [p + q for p, q in zip(self.c, other.c)], check=False)

    def _same(self, other):
        if not isinstance(other, CPWLFunction):
            raise TypeError(f"other must be a CPWLFunction; got {type(other).__name__} {other!r:.60}")
        if other.complex is not self.complex:
            raise ValueError(f"other must live on the same PolyhedralComplex object as self ({self.complex.name}); "
                             f"got a function on {other.complex.name}")

    def equals(self, other) -> bool:
        """Exact equality of all affine pieces."""
        self._same(other)
        return self.a == other.a and self.c == other.c

    def __repr__(self):
        return f"CPWLFunction on {self.complex.name}: {self.n_pieces()} pieces, convex={self.is_convex()}"


# ---------------------------------------------------------------------------------------
def relu_1d(breakpoints, weights, *, slope=0, intercept=0):
    """f(x) = slope*x + intercept + sum_i w_i ReLU(x - b_i) on :func:`line_complex`(b)."""
    from .complexes import line_complex

    b = exact_vector("breakpoints", breakpoints, min_len=1)
    w = exact_vector("weights", weights)
    if len(w) != len(b):
        raise ValueError(f"weights must have one entry per breakpoint ({len(b)}); got {len(w)}")
    s0, i0 = exact_number("slope", slope), exact_number("intercept", intercept)
    cx = line_complex(b)

    def fn(x):
        return s0 * x[0] + i0 + sum((wi * max(x[0] - bi, 0) for wi, bi in zip(w, b)), Fraction(0))

    return CPWLFunction.from_function(cx, fn)


def lovasz_extension(fan: PolyhedralComplex, F):
    """The Lovász extension of a set function F (dict frozenset -> value or array over bitmasks
    of length 2^n, F(empty) = 0) on :func:`braid_fan`(n).

    On the cone x_pi(1) >= ... >= x_pi(n): f(x) = sum_k x_pi(k) (F(S_k) - F(S_{k-1})),
    S_k = {pi(1), ..., pi(k)}.
    """
    require_type("fan", fan, PolyhedralComplex, " (from braid_fan(n))")
    perms = getattr(fan, "permutations", None)
    if perms is None:
        raise ValueError(f"fan must be a braid fan (use braid_fan(n)); got {fan.name}")
    n = fan.n
    vals = _set_function_values(F, n)
    slopes = []
    for pi in perms:
        a = [Fraction(0)] * n
        S = 0
        for k in range(n):
            T = S | (1 << pi[k])
            a[pi[k]] = vals[T] - vals[S]
            S = T
        slopes.append(a)
    return CPWLFunction(fan, slopes, [Fraction(0)] * len(perms))


def _set_function_values(F, n):
    if isinstance(F, dict):
        vals = [Fraction(0)] * (1 << n)
        for S, v in F.items():
            try:
                members = sorted(int(i) for i in S)
            except (TypeError, ValueError):
                raise TypeError(f"F's keys must be sets of coordinates in range({n}); got {S!r}") from None
            if any(i < 0 or i >= n for i in members):
                raise ValueError(f"F's keys must be subsets of range({n}); got {S!r}")
            vals[sum(1 << i for i in set(members))] = exact_number(f"F[{S!r}]", v)
    else:
        vals = exact_vector("F", F, length=1 << n)
    if vals[0] != 0:
        raise ValueError(f"F(empty set) must be 0 for a Lovász extension; got {vals[0]}")
    return vals


def set_function_of(g: CPWLFunction) -> list[Fraction]:
    """G(S) = g(1_S) for all bitmasks S (the inverse of :func:`lovasz_extension` up to g(0))."""
    require_type("g", g, CPWLFunction)
    if getattr(g.complex, "permutations", None) is None:
        raise ValueError(f"g must live on a braid fan (braid_fan(n)); got {g.complex.name}")
    n = g.complex.n
    out = []
    for S in range(1 << n):
        x = [Fraction((S >> i) & 1) for i in range(n)]
        k = _cell_of_indicator(g.complex, S)
        out.append(dot(g.a[k], x) + g.c[k])
    base = out[0]
    return [v - base for v in out]


def _cell_of_indicator(fan, S):
    n = fan.n
    for k, pi in enumerate(fan.permutations):
        members = [i for i in range(n) if (S >> i) & 1]
        if set(pi[:len(members)]) == set(members):
            return k
    raise RuntimeError("internal: no cone contains the indicator vector")


def is_submodular(vals, n) -> bool:
    """F(S+i) + F(S+j) >= F(S) + F(S+i+j) for all S and i != j not in S (exact).

    ``vals``: the 2^n values F(S) indexed by bitmask; ``n`` <= 20 (n^2 2^n comparisons)."""
    n = check_int("n", n, low=1, high=20)
    vals = exact_vector("vals", vals, length=1 << n)
    for S in range(1 << n):
        for i in range(n):
            for j in range(i + 1, n):
                if (S >> i) & 1 or (S >> j) & 1:
                    continue
                if vals[S | 1 << i] + vals[S | 1 << j] < vals[S] + vals[S | 1 << i | 1 << j]:
                    return False
    return True
