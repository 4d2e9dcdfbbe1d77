"""Polyhedral complexes P in R^n: maximal cells in exact H-representation, walls with normals.

The setting of Brandenburg, Grillo & Hertrich (ICLR 2025, "Decomposition Polyhedra of
Piecewise Linear Functions", abstract and §2 of the spec): a complete polyhedral complex P
fixes where a CPWL function may be non-linear.  Here a maximal cell sigma is
``{x : A_sigma x <= b_sigma}`` with integer (primitive) rows; a wall tau is an
(n-1)-dimensional intersection of two maximal cells sigma_tau^- and sigma_tau^+ lying in the
hyperplane ``nu_tau . x = beta_tau``, with the primitive integer normal nu_tau pointing from
sigma^- into sigma^+.  (The spec uses the unit normal; the primitive integer normal only
rescales every bend by a positive factor, keeping all data integral.)

Constructors: :func:`line_complex` (1-D breakpoints), :func:`planar_fan` (rays in R^2),
:func:`simplicial_fan` (rays and cones in R^n), :func:`braid_fan` (Lovász extensions),
:func:`arrangement_complex` (regions of a hyperplane arrangement = one-hidden-layer ReLU
networks), :func:`relu_network_complex` and :func:`max_affine_complex` (linear regions of a
ReLU network / of max-affine functions and their common refinement).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from theorylab.core.validate import check_array, check_int, check_real

from theorylab.core.exact import frac_matrix, primitive_int_row, rank, solve, to_fraction
from theorylab.core.validate import check_record

from ._checks import exact_matrix, exact_vector

_LP_TOL = 1e-9




def _linprog(*args, **kwargs):
    """scipy.optimize.linprog, imported on first use (keeps ``import theorylab.cpwl`` light)."""
    from scipy.optimize import linprog

    return linprog(*args, **kwargs)

@dataclass(frozen=True)
class Wall:
    """A wall: cells ``minus``/``plus``, primitive normal ``nu`` (minus -> plus), offset ``beta``."""

    minus: int
    plus: int
    nu: tuple[int, ...]
    beta: int
    point: tuple[float, ...] = field(compare=False, default=())

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


def _chebyshev(A, b, eq_A=None, eq_b=None, cap=1.0):
    """Max radius s <= cap of a ball in {A x <= b} (within {eq_A x = eq_b}); (s, x) or (-1, None)."""
    A = np.asarray(A, float)
    b = np.asarray(b, float)
    n = A.shape[1]
    norms = np.linalg.norm(A, axis=1)
    # rows scaled to unit normals: exact integer rows of float data can have entries ~2^53
    A, b = A / norms[:, None], b / norms
    c = np.zeros(n + 1)
    c[-1] = -1.0
    A_ub = np.hstack([A, np.ones((len(A), 1))])
    bounds = [(None, None)] * n + [(None, cap)]
    kw = {}
    if eq_A is not None:
        eq_A, eq_b = np.asarray(eq_A, float), np.asarray(eq_b, float)
        en = np.linalg.norm(eq_A, axis=1)
        kw = dict(A_eq=np.hstack([eq_A / en[:, None], np.zeros((len(eq_A), 1))]), b_eq=eq_b / en)
    res = _linprog(c, A_ub=A_ub, b_ub=b, bounds=bounds, method="highs", **kw)
    if res.status != 0:
        return -1.0, None
    return float(res.x[-1]), res.x[:n]


class PolyhedralComplex:
    """A complete pure polyhedral complex in R^n given by its maximal cells.

    Parameters
    ----------
    cells : list of (A, b)
        Cell ``k`` is ``{x : A x <= b}``; rational entries (ints, Fractions or floats, taken
        exactly).  Each cell must be full-dimensional.
    name : str
        A label used in messages and tables.
    check_complete : bool
        Verify that every facet of every cell is shared with another cell (the complex
        covers R^n); raise ``ValueError`` naming the first uncovered facet otherwise.

    Attributes
    ----------
    n : int
        Ambient dimension.
    cells : list of (tuple of int rows, tuple of int)
        Integer H-representations, facet rows only.
    interior : ndarray (n_cells, n)
        A point in the interior of each cell.
    walls : list of :class:`Wall`
    """

    def __init__(self, cells, *, name="complex", check_complete=True):
        if not isinstance(cells, (list, tuple)) or len(cells) == 0:
            raise ValueError(f"cells must be a non-empty list of (A, b) pairs; got {cells!r:.80}")
        if not isinstance(check_complete, (bool, np.bool_)):
            raise TypeError(f"check_complete must be True or False; got {check_complete!r:.60}")
        self.name = str(name)
        n = None
        int_cells = []
        for k, cell in enumerate(cells):
            try:
                A, b = cell
            except (TypeError, ValueError):
                raise ValueError(f"cells[{k}] must be a pair (A, b); got {cell!r:.80}") from None
            A = frac_matrix(A)
            b = [to_fraction(v) for v in b]
            if len(A) != len(b) or any(len(r) != len(A[0]) for r in A):
                raise ValueError(f"cells[{k}]: A must be (m, n) and b of length m; got {len(A)} rows and {len(b)} offsets")
            if n is None:
                n = len(A[0])
            elif len(A[0]) != n:
                raise ValueError(f"cells[{k}] lives in R^{len(A[0])}, the other cells in R^{n}")
            rows = []
            for r, beta in zip(A, b):
                if all(v == 0 for v in r):
                    if beta < 0:
                        raise ValueError(f"cells[{k}] is empty (inequality 0 <= {beta})")
                    continue
                ints = primitive_int_row(list(r) + [beta])
                if ints not in rows:
                    rows.append(ints)
            int_cells.append(rows)
        self.n = int(n)
        self._setup(int_cells, check_complete)

    # -- construction ---------------------------------------------------------------------
    def _setup(self, int_cells, check_complete):
        n = self.n
        cells, interior = [], []
        for k, rows in enumerate(int_cells):
            A = [r[:n] for r in rows]
            b = [r[n] for r in rows]
            s, x = _chebyshev(A, b)
            if s <= _LP_TOL:
                raise ValueError(f"cell {k} of {self.name} is not full-dimensional (inscribed radius {max(s, 0):.3g}); "
                                 "degenerate rays or inequalities?")
            facets = []
            for i in range(len(rows)):
                others = [j for j in range(len(rows)) if j != i]
                si, _ = _chebyshev([A[j] for j in others] or np.zeros((0, n)), [b[j] for j in others] or [],
                                   eq_A=[A[i]], eq_b=[b[i]]) if others else (1.0, None)
                if si > _LP_TOL:
                    facets.append(i)
            cells.append((tuple(tuple(A[i]) for i in facets), tuple(b[i] for i in facets)))
            interior.append(x)
        self.cells = cells
        self.interior = np.array(interior)
        self.walls = self._find_walls()
        self._check_disjoint()
        if check_complete:
            self._check_complete()
        self._check_connected()

    def _find_walls(self):
        walls = []
        index = {}
        for k, (A, b) in enumerate(self.cells):
            for i, (r, beta) in enumerate(zip(A, b)):
                index.setdefault((r, beta), []).append((k, i))
        for (r, beta), members in index.items():
            neg = tuple(-v for v in r)
            partners = index.get((neg, -beta), [])
            for k, i in members:
                for kk, ii in partners:
                    if kk <= k:
                        continue
                    A1, b1 = self.cells[k]
                    A2, b2 = self.cells[kk]
                    rows = [A1[j] for j in range(len(A1)) if j != i] + [A2[j] for j in range(len(A2)) if j != ii]
                    offs = [b1[j] for j in range(len(b1)) if j != i] + [b2[j] for j in range(len(b2)) if j != ii]
                    if rows:
                        s, x = _chebyshev(rows, offs, eq_A=[r], eq_b=[beta])
                    else:
                        s, x = 1.0, np.asarray(r, float) * beta / float(np.dot(r, r))
                    if s > _LP_TOL:  # k has r.x <= beta: it is the minus side of nu = r
                        walls.append(Wall(k, kk, tuple(r), int(beta), tuple(float(v) for v in x)))
        walls.sort(key=lambda w: (w.minus, w.plus))
        return walls

    def _check_disjoint(self):
        if len(self.cells) > 400:
            return
        for k1, k2 in itertools.combinations(range(len(self.cells)), 2):
            A = list(self.cells[k1][0]) + list(self.cells[k2][0])
            b = list(self.cells[k1][1]) + list(self.cells[k2][1])
            s, x = _chebyshev(A, b)
            if s > 1e-7:
                raise ValueError(f"cells {k1} and {k2} of {self.name} overlap (a ball of radius {s:.3g} around "
                                 f"{np.round(x, 4).tolist()} lies in both); the cells of a complex meet only in faces")

    def _check_complete(self):
        n = self.n
        covered = {(w.minus, w.nu) for w in self.walls} | {(w.plus, tuple(-v for v in w.nu)) for w in self.walls}
        for k, (A, b) in enumerate(self.cells):
            for i, (r, beta) in enumerate(zip(A, b)):
                if (k, r) in covered:
                    continue
                others = [j for j in range(len(A)) if j != i]
                s, x = (_chebyshev([A[j] for j in others], [b[j] for j in others], eq_A=[r], eq_b=[beta])
                        if others else (1.0, np.asarray(r, float) * beta / float(np.dot(r, r))))
                raise ValueError(f"{self.name} is not complete: facet {list(r)} . x <= {beta} of cell {k} "
                                 f"(near x = {np.round(x, 4).tolist()}) is not shared with any other cell")

    def _check_connected(self):
        C = len(self.cells)
        adj = {k: set() for k in range(C)}
        for w in self.walls:
            adj[w.minus].add(w.plus)
            adj[w.plus].add(w.minus)
        seen, stack = {0}, [0]
        while stack:
            k = stack.pop()
            for j in adj[k] - seen:
                seen.add(j)
                stack.append(j)
        if len(seen) != C:
            missing = sorted(set(range(C)) - seen)
            raise ValueError(f"{self.name}: cells {missing[:5]} are not connected to cell 0 through walls")

    # -- queries ----------------------------------------------------------------------------
    @property
    def n_cells(self) -> int:
        return len(self.cells)

    @property
    def n_walls(self) -> int:
        return len(self.walls)

    def wall_cells(self) -> np.ndarray:
        """(n_walls, 2) int array of (minus, plus) cells."""
        return np.array([[w.minus, w.plus] for w in self.walls], dtype=np.int64).reshape(-1, 2)

    def locate(self, x, *, tol=1e-9) -> int:
        """Index of a cell containing the point ``x`` (float test with tolerance ``tol`` >= 0)."""
        x = check_array("x", x, shape=(self.n,))
        tol = check_real("tol", tol, low=0.0)
        for k, (A, b) in enumerate(self.cells):
            if np.all(np.asarray(A, float) @ x <= np.asarray(b, float) + tol):
                return k
        raise ValueError(f"point {x.tolist()} lies in no cell of {self.name}")

    def _cell_index(self, k) -> int:
        return check_int("k", k, low=0, high=self.n_cells - 1)

    def contains_exact(self, k: int, x) -> bool:
        A, b = self.cells[self._cell_index(k)]
        x = exact_vector("x", x, length=self.n)
        return all(sum((Fraction(a) * xi for a, xi in zip(r, x)), Fraction(0)) <= beta for r, beta in zip(A, b))

    def rational_points(self, k: int):
        """n+1 affinely independent rational points of cell k (near its interior point)."""
        n = self.n
        k = self._cell_index(k)
        A = np.asarray(self.cells[k][0], float)
        b = np.asarray(self.cells[k][1], float)
        x0 = self.interior[k]
        slack = (b - A @ x0) / np.maximum(np.linalg.norm(A, axis=1), 1e-300)
        r = float(min(slack.min() if slack.size else 1.0, 1.0)) / 4
        scale = 2 ** -int(np.ceil(-np.log2(r))) if r < 1 else 1
        base = [Fraction(round(v * 2**20), 2**20) for v in x0]
        pts = [base] + [[base[j] + (Fraction(scale) if j == i else 0) for j in range(n)] for i in range(n)]
        for p in pts:
            if not self.contains_exact(k, p):
                raise RuntimeError(f"internal: could not place rational points inside cell {k}")
        return pts

    def summary(self) -> dict:
        return dict(name=self.name, n=self.n, cells=self.n_cells, walls=self.n_walls)

    def __repr__(self):
        return f"PolyhedralComplex({self.name!r}, n={self.n}, cells={self.n_cells}, walls={self.n_walls})"


# ---------------------------------------------------------------------------------------
# constructors
# ---------------------------------------------------------------------------------------
def _name(name):
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string or None; got {type(name).__name__} {name!r:.60}")
    return name


def line_complex(breakpoints, *, name=None) -> PolyhedralComplex:
    """The complex on R with maximal cells (-inf, b_1], [b_1, b_2], ..., [b_k, inf)."""
    name = _name(name)
    b = exact_vector("breakpoints", breakpoints)
    if len(b) == 0:
        raise ValueError("breakpoints must contain at least one point; got an empty list")
    if any(b2 <= b1 for b1, b2 in zip(b, b[1:])):
        raise ValueError(f"breakpoints must be strictly increasing; got {[str(v) for v in b]}")
    cells = [([[1]], [b[0]])]
    cells += [([[-1], [1]], [-b[i], b[i + 1]]) for i in range(len(b) - 1)]
    cells += [([[-1]], [-b[-1]])]
    return PolyhedralComplex(cells, name=name or f"line({len(b)} breakpoints)")


def _is_exact(values) -> bool:
    try:
        return any(isinstance(v, Fraction) for v in np.asarray(values, dtype=object).ravel())
    except Exception:
        return False


def _rays_exact(rays, dim=None):
    arr = check_array("rays", rays, ndim=2, dtype=object if _is_exact(rays) else float)
    if dim is not None and arr.shape[1] != dim:
        raise ValueError(f"rays must have shape (m, {dim}); got {arr.shape}")
    out = []
    for i, r in enumerate(arr):
        fr = [to_fraction(v) for v in r]
        if all(v == 0 for v in fr):
            raise ValueError(f"degenerate rays: ray {i} is the zero vector")
        out.append(primitive_int_row(fr))
    for i, j in itertools.combinations(range(len(out)), 2):
        if out[i] == out[j]:
            raise ValueError(f"degenerate rays: rays {i} and {j} point in the same direction {out[i]}")
    return out


def planar_fan(rays, *, name=None) -> PolyhedralComplex:
    """The complete fan in R^2 whose maximal cones are spanned by angularly consecutive rays.

    ``rays`` (m, 2), m >= 3, no zero ray, no two in the same direction, and every angle
    between consecutive rays < pi (otherwise a "cone" would not be pointed).
    """
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str or None; got {name!r}"[:200])
    R = _rays_exact(rays, dim=2)
    m = len(R)
    if m < 3:
        raise ValueError(f"a complete fan in R^2 needs at least 3 rays; got {m}")
    order = sorted(range(m), key=lambda i: np.arctan2(R[i][1], R[i][0]) % (2 * np.pi))
    R = [R[i] for i in order]
    cells = []
    for i in range(m):
        r, s = R[i], R[(i + 1) % m]
        cross = r[0] * s[1] - r[1] * s[0]
        if cross <= 0:
            raise ValueError(f"degenerate rays: consecutive rays {r} and {s} span an angle >= pi, "
                             "so they do not bound a pointed cone")
        # cone(r, s) = {x : cross(r, x) >= 0, cross(x, s) >= 0}
        cells.append(([[r[1], -r[0]], [-s[1], s[0]]], [0, 0]))
    cx = PolyhedralComplex(cells, name=name or f"planar fan({m} rays)")
    # wall i is the ray r_i (between cones i-1 and i), as in the spec's hexagon example
    def ray_of(w):
        return w.plus if (w.minus, w.plus) == ((w.plus - 1) % m, w.plus) else w.minus
    cx.walls.sort(key=ray_of)
    cx.rays = [tuple(r) for r in R]
    cx.cones = [(i, (i + 1) % m) for i in range(m)]
    return cx


def simplicial_fan(rays, cones, *, name=None) -> PolyhedralComplex:
    """A complete simplicial fan in R^n: ``cones`` lists n ray indices per maximal cone."""
    R = _rays_exact(rays)
    n = len(R[0])
    if isinstance(cones, (str, bytes, dict, set)) or not hasattr(cones, "__len__"):
        raise TypeError(f"cones must be a sequence of cones, each a sequence of {n} ray indices; got "
                        f"{type(cones).__name__} {cones!r:.60}")
    if len(cones) == 0:
        raise ValueError("cones must list at least one cone; got an empty sequence")
    cells = []
    for c, idx in enumerate(cones):
        if isinstance(idx, (str, bytes, dict, set)) or not hasattr(idx, "__len__"):
            raise TypeError(f"cones[{c}] must be a sequence of {n} ray indices; got {type(idx).__name__} {idx!r:.60}")
        idx = [check_int(f"cones[{c}][{j}]", i, low=0, high=len(R) - 1) for j, i in enumerate(idx)]
        if len(idx) != n:
            raise ValueError(f"cones[{c}] must list {n} rays of a simplicial cone in R^{n}; got {len(idx)}")
        M = [[Fraction(R[i][j]) for i in idx] for j in range(n)]  # columns = rays
        if rank(M) < n:
            raise ValueError(f"degenerate rays: the rays {idx} of cones[{c}] are linearly dependent")
        # x = M mu, mu >= 0  <=>  -(M^{-1} x) <= 0
        MT = [list(r) for r in zip(*M)]
        # solve(M^T, e_k) is the k-th row of M^{-1}
        Minv = [solve(MT, [Fraction(int(k == j)) for j in range(n)]) for k in range(n)]
        cells.append(([[-v for v in row] for row in Minv], [0] * n))
    cx = PolyhedralComplex(cells, name=name or f"simplicial fan({len(R)} rays, {len(cones)} cones)")
    cx.rays = [tuple(r) for r in R]
    cx.cones = [tuple(c) for c in cones]
    return cx


def polytope_fan(rays, *, name=None) -> PolyhedralComplex:
    """The complete simplicial fan over the boundary of conv(rays) in R^n (n >= 2).

    Its maximal cones are spanned by the (triangulated) facets of the polytope conv(rays);
    the fan is complete iff the origin lies in the interior of conv(rays).  Used for 3-D fans
    (the Tran & Wang check).  Raises ``ValueError`` for degenerate rays: the origin not in the
    interior, or a ray that is not a vertex of conv(rays) (it would span no cone).
    """
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str or None; got {name!r}"[:200])
    from scipy.spatial import ConvexHull, QhullError

    R = _rays_exact(rays)
    n = len(R[0])
    if n < 2 or len(R) < n + 1:
        raise ValueError(f"a complete fan in R^{n} needs at least {n + 1} rays in n >= 2 dimensions; got {len(R)}")
    P = np.array(R, float)
    try:
        hull = ConvexHull(P)
    except QhullError:
        raise ValueError("degenerate rays: the rays span no full-dimensional polytope (all in a hyperplane?)") from None
    # hull.equations: normal . x + offset <= 0 inside; origin strictly inside <=> offset < 0
    if np.any(hull.equations[:, -1] >= -1e-12):
        raise ValueError("degenerate rays: the origin is not in the interior of conv(rays), so the cones over "
                         "its facets do not cover R^n (the fan would not be complete)")
    missing = sorted(set(range(len(R))) - set(int(v) for v in hull.vertices))
    if missing:
        raise ValueError(f"degenerate rays: rays {missing} are not vertices of conv(rays) and would span no cone")
    cones = [tuple(sorted(int(v) for v in s)) for s in hull.simplices]
    return simplicial_fan(R, cones, name=name or f"polytope fan({len(R)} rays in R^{n})")


def braid_fan(n: int) -> PolyhedralComplex:
    """The braid fan in R^n: cells {x_pi(1) >= ... >= x_pi(n)}, one per permutation pi.

    CPWL functions on it with value 0 at 0 are the Lovász extensions of set functions
    (cf. the paper's abstract: "consequences in the theory of submodular functions").
    """
    n = check_int("n", n, low=2, high=6)
    cells = []
    perms = list(itertools.permutations(range(n)))
    for pi in perms:
        A = []
        for k in range(n - 1):
            row = [0] * n
            row[pi[k + 1]] = 1
            row[pi[k]] = -1
            A.append(row)
        cells.append((A, [0] * (n - 1)))
    cx = PolyhedralComplex(cells, name=f"braid fan(n={n})")
    cx.permutations = perms
    return cx


def _walk_regions(n, pattern_at, cell_of, start, name, max_cells):
    """Discover all cells by walking across facets from ``start`` (a point)."""
    first = pattern_at(np.asarray(start, float))
    found = {first: None}
    queue = [first]
    cells = []
    while queue:
        pat = queue.pop()
        A, b = cell_of(pat)
        cx_rows = []
        for r, beta in zip(A, b):
            ints = primitive_int_row(list(r) + [beta])
            if any(v != 0 for v in ints[:n]) and ints not in cx_rows:
                cx_rows.append(ints)
        Af = np.array([r[:n] for r in cx_rows], float)
        bf = np.array([r[n] for r in cx_rows], float)
        s, x = _chebyshev(Af, bf)
        if s <= _LP_TOL:
            continue
        cells.append(([r[:n] for r in cx_rows], [r[n] for r in cx_rows]))
        if len(cells) > max_cells:
            raise ValueError(f"{name} has more than max_cells={max_cells} cells")
        for i in range(len(cx_rows)):
            others = [j for j in range(len(cx_rows)) if j != i]
            si, p = (_chebyshev(Af[others], bf[others], eq_A=Af[[i]], eq_b=bf[[i]]) if others
                     else (1.0, Af[i] * bf[i] / Af[i] @ Af[i]))
            if si <= _LP_TOL:
                continue
            step = Af[i] / np.linalg.norm(Af[i]) * min(si, 1.0) * 1e-3
            nxt = pattern_at(p + step)
            if nxt not in found:
                found[nxt] = None
                queue.append(nxt)
    return cells


def arrangement_complex(normals, offsets=None, *, name=None, max_cells=5000) -> PolyhedralComplex:
    """The regions of the hyperplane arrangement {a_i . x = c_i} (a one-hidden-layer ReLU net).

    Entries are exact rationals (floats at their exact binary value); at most ``max_cells`` cells."""
    name = _name(name)
    max_cells = check_int("max_cells", max_cells, low=1, high=10**6)
    An = exact_matrix("normals", normals)
    m = len(An)
    n = len(An[0]) if m else 0
    if m < 1 or n < 1:
        raise ValueError(f"normals must be an (m, n) array with m, n >= 1; got {m} rows of length {n}")
    c = [Fraction(0)] * m if offsets is None else exact_vector("offsets", offsets, length=m)
    rows = [primitive_int_row(An[i] + [c[i]]) for i in range(m)]
    for i, r in enumerate(rows):
        if all(v == 0 for v in r[:n]):
            raise ValueError(f"normals[{i}] is the zero vector; a hyperplane needs a non-zero normal")

    def pattern_at(x):
        return tuple(int(np.dot(r[:n], x) > r[n]) for r in rows)

    def cell_of(pat):
        A = [[(-v if s else v) for v in r[:n]] for r, s in zip(rows, pat)]
        b = [(-r[n] if s else r[n]) for r, s in zip(rows, pat)]
        return A, b

    cells = _walk_regions(n, pattern_at, cell_of, np.full(n, 0.123456) + np.arange(n) * 0.0371, "arrangement", max_cells)
    return PolyhedralComplex(cells, name=name or f"arrangement({m} hyperplanes in R^{n})")


def relu_network_complex(weights, biases, *, name=None, max_cells=5000) -> PolyhedralComplex:
    """The activation regions of a ReLU network x -> W_L s(... s(W_1 x + b_1) ...) (hidden layers only).

    ``weights[l]`` (n_l, n_{l-1}) and ``biases[l]`` (n_l,) for the hidden layers, taken as
    exact rationals.  Each region fixes the sign of every hidden pre-activation, so the
    network is affine on it; the regions form the common refinement the network induces.
    """
    name = _name(name)
    max_cells = check_int("max_cells", max_cells, low=1, high=10**6)
    for arg, v in (("weights", weights), ("biases", biases)):
        if isinstance(v, (str, bytes, dict)) or not hasattr(v, "__len__"):
            raise TypeError(f"{arg} must be a list of per-layer arrays; got {type(v).__name__}")
    Ws = [exact_matrix(f"weights[{l}]", W) for l, W in enumerate(weights)]
    bs = [exact_vector(f"biases[{l}]", np.ravel(np.asarray(b, dtype=object)) if not isinstance(b, (str, bytes)) else b)
          for l, b in enumerate(biases)]
    if any(len(W) == 0 or len(W[0]) == 0 for W in Ws):
        raise ValueError("weights must be non-empty matrices (n_l, n_{l-1}) with n_l, n_{l-1} >= 1")
    if len(Ws) == 0 or len(Ws) != len(bs):
        raise ValueError(f"weights and biases must be non-empty lists of equal length; got {len(Ws)} and {len(bs)}")
    n = len(Ws[0][0])
    prev = n
    for l, (W, b) in enumerate(zip(Ws, bs)):
        if any(len(r) != prev for r in W) or len(b) != len(W):
            raise ValueError(f"layer {l}: weights must be ({len(b)}, {prev}) and biases ({len(W)},)")
        prev = len(W)

    def affine_chain(pat):
        """Pre-activations of every hidden neuron as affine maps of x (rows [a..., c]) under pattern."""
        cur = [[Fraction(int(i == j)) for j in range(n)] + [Fraction(0)] for i in range(n)]
        pre_all = []
        k = 0
        for W, b in zip(Ws, bs):
            pre = []
            for i, (w, bi) in enumerate(zip(W, b)):
                row = [sum((w[j] * cur[j][t] for j in range(len(cur))), Fraction(0)) for t in range(n + 1)]
                row[n] += bi
                pre.append(row)
            pre_all.extend(pre)
            cur = [row if pat[k + i] else [Fraction(0)] * (n + 1) for i, row in enumerate(pre)]
            k += len(pre)
        return pre_all, cur

    def pattern_at(x):
        xs = np.asarray(x, float)
        pat = []
        for W, b in zip(Ws, bs):
            z = np.array([[float(v) for v in r] for r in W]) @ xs + np.array([float(v) for v in b])
            pat.extend(int(v > 0) for v in z)
            xs = np.maximum(z, 0)
        return tuple(pat)

    def cell_of(pat):
        pre, _ = affine_chain(pat)
        A, b = [], []
        for row, s in zip(pre, pat):
            a, c = row[:n], row[n]
            if s:  # a.x + c >= 0  <=>  -a.x <= c
                A.append([-v for v in a]); b.append(c)
            else:
                A.append(list(a)); b.append(-c)
        return A, b

    cells = _walk_regions(n, pattern_at, cell_of, np.full(n, 0.0917) + np.arange(n) * 0.0213, "ReLU network", max_cells)
    cx = PolyhedralComplex(cells, name=name or f"ReLU network regions ({len(cells)} cells)")
    return cx


def max_affine_complex(*functions, name=None, max_cells=5000) -> PolyhedralComplex:
    """Common refinement of the linear regions of max-affine functions x -> max_i (a_i . x + c_i).

    Each function is a pair (a (p, n), c (p,)).  Regions where two terms tie on an open set
    (duplicate terms) are merged.
    """
    name = _name(name)
    max_cells = check_int("max_cells", max_cells, low=1, high=10**6)
    if not functions:
        raise ValueError("functions: max_affine_complex needs at least one max-affine function (a, c)")
    terms = []
    for k, fc in enumerate(functions):
        if not isinstance(fc, (tuple, list)) or len(fc) != 2:
            raise TypeError(f"functions[{k}] must be a pair (a (p, n), c (p,)); got {type(fc).__name__} {fc!r:.60}")
        a, c = fc
        a = exact_matrix(f"functions[{k}] slopes", a)
        c = exact_vector(f"functions[{k}] offsets", c, length=len(a))
        if not a or not a[0]:
            raise ValueError(f"functions[{k}] slopes must be a (p, n) array with p, n >= 1")
        if terms and len(a[0]) != len(terms[0][0][0]):
            raise ValueError(f"functions[{k}] slopes must have {len(terms[0][0][0])} columns like functions[0]; "
                             f"got {len(a[0])}")
        uniq = []
        for ai, ci in zip(a, c):
            t = (tuple(ai), ci)
            if t not in uniq:
                uniq.append(t)
        terms.append(uniq)
    n = len(terms[0][0][0])

    def pattern_at(x):
        return tuple(int(np.argmax([float(np.dot([float(v) for v in a], x) + float(c)) for a, c in T])) for T in terms)

    def cell_of(pat):
        A, b = [], []
        for T, i in zip(terms, pat):
            ai, ci = T[i]
            for j, (aj, cj) in enumerate(T):
                if j != i:  # a_j x + c_j <= a_i x + c_i
                    A.append([u - v for u, v in zip(aj, ai)])
                    b.append(ci - cj)
        return (A, b) if A else ([[0] * n], [0])

    cells = _walk_regions(n, pattern_at, cell_of, np.full(n, 0.0713) + np.arange(n) * 0.0291, "max-affine", max_cells)
    return PolyhedralComplex(cells, name=name or f"max-affine regions ({len(cells)} cells)")
