"""The decomposition polyhedron D_P(f) = {(g, h) : g, h convex on P, f = g - h}.

Formulation (spec §2(a) [INFERRED], consistent with the paper's abstract [READ]: "the set of
decompositions forms a polyhedron that arises as intersection of two translated cones ...
irreducible decompositions correspond to the bounded faces of this polyhedron and minimal
solutions must be vertices"):

* lambda : V_P -> Q^walls is linear with kernel the affine functions; its image im(lambda)
  is computed exactly (spanning tree of the dual graph + one cycle condition per non-tree
  wall).  ``L`` (walls x d) is an integer basis of im(lambda), d = dim V_P / Aff.
* g in V_P/Aff has coordinates y (lambda(g) = L y).  Then
  D_P(f) = {y : L y >= 0} ∩ {y : L y >= lambda(f)} = C ∩ (C + y_f),
  the intersection of the cone C = V_P^+ of convex functions and its translate by f; as a
  single system L y >= u with u = max(0, lambda(f)).  h = g - f.
* Vertices and extreme rays: exact double description (:mod:`._dd`), or brute force over
  bases with numba (:func:`._kernels.basic_solutions`) re-verified in rationals, or the
  reference "LP over random objectives" (HiGHS via scipy).
* Irreducible (no convex non-affine phi with (g - phi, h - phi) in D): LP test; bounded face:
  exact test from the V-representation.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from fractions import Fraction

import numpy as np
import pandas as pd

from theorylab.core.seeding import seed_sequence
from theorylab.core.seeding import as_generator
from theorylab.core.validate import check_choice, check_int, check_real

from . import _dd
from theorylab.core.exact import ExactMatrix, dot, nullspace, primitive_int_row, rank, rref, to_fraction
from theorylab.core.validate import check_record
from ._checks import _sequence, exact_vector
from .complexes import PolyhedralComplex
from .functions import CPWLFunction


# ---------------------------------------------------------------------------------------
# the image of lambda
# ---------------------------------------------------------------------------------------


def _linprog(*args, **kwargs):
    """scipy.optimize.linprog, imported on first use (keeps ``import theorylab.cpwl`` light)."""
    from scipy.optimize import linprog

    return linprog(*args, **kwargs)

class LambdaSpace:
    """im(lambda) for a complex: integer basis ``L`` and the map bends -> function."""

    def __init__(self, complex: PolyhedralComplex):
        if not isinstance(complex, PolyhedralComplex):
            raise TypeError(f"complex must be a PolyhedralComplex; got {type(complex).__name__}")
        self.complex = complex
        n, W, C = complex.n, complex.n_walls, complex.n_cells
        walls = complex.walls
        vec = [tuple(Fraction(v) for v in w.nu) + (Fraction(-w.beta),) for w in walls]
        # BFS tree: path[k] = list of (wall, sign) from cell 0 to cell k
        adj = {k: [] for k in range(C)}
        for t, w in enumerate(walls):
            adj[w.minus].append((t, w.plus, +1))
            adj[w.plus].append((t, w.minus, -1))
        path = {0: []}
        tree = set()
        q = deque([0])
        while q:
            k = q.popleft()
            for t, j, s in adj[k]:
                if j not in path:
                    path[j] = path[k] + [(t, s)]
                    tree.add(t)
                    q.append(j)
        self.path = path
        self.vec = vec
        rows = []
        for t, w in enumerate(walls):
            if t in tree:
                continue
            for j in range(n + 1):
                row = [Fraction(0)] * W
                for tt, s in path[w.plus]:
                    row[tt] += s * vec[tt][j]
                for tt, s in path[w.minus]:
                    row[tt] -= s * vec[tt][j]
                row[t] -= vec[t][j]
                if any(row):
                    rows.append(row)
        self.K = rows
        basis = nullspace(rows, W) if W else []
        cols = [primitive_int_row(b) for b in basis]
        self.d = len(cols)
        self.L = [[cols[j][i] for j in range(self.d)] for i in range(W)]

    def contains(self, bends) -> bool:
        """bends in im(lambda): every cycle condition K bends = 0 holds (exact)."""
        bends = exact_vector("bends", bends, length=self.complex.n_walls)
        M = getattr(self, "_K_exact", None)
        if M is None:
            M = self._K_exact = ExactMatrix(self.K, n_cols=len(self.vec))
        return M.annihilates(bends)

    def function_from_bends(self, bends, *, base=None) -> CPWLFunction:
        """The function with bends ``bends`` and affine map ``base=(a, c)`` on cell 0."""
        cx = self.complex
        bends = exact_vector("bends", bends, length=cx.n_walls)
        if not self.contains(bends):
            raise ValueError("bends are not realizable: they violate a balancing (cycle) condition of the complex")
        n = cx.n
        if base is not None and (not isinstance(base, (tuple, list)) or len(base) != 2):
            raise TypeError(f"base must be None or a pair (a, c): a of length n = {n} and a number c; got {base!r}"[:300])
        a0, c0 = ([Fraction(0)] * n, Fraction(0)) if base is None else (exact_vector("base[0] (a)", base[0], length=n),
                                                                         exact_vector("base[1] (c)", [base[1]])[0])
        # (a_k, c_k) = (a_0, c_0) + sum_{(t, s) on the path 0 -> k} s lambda_t (nu_t, -beta_t): one
        # exact product P B of the signed path-incidence matrix P (cells x walls) with B = diag(lambda) V
        P = getattr(self, "_path_exact", None)
        if P is None:
            rows = [[0] * cx.n_walls for _ in range(cx.n_cells)]
            for k in range(cx.n_cells):
                for t, s in self.path[k]:
                    rows[k][t] += s
            P = self._path_exact = ExactMatrix(rows, n_cols=cx.n_walls)
        if cx.n_walls == 0:
            V = [[Fraction(0)] * (n + 1) for _ in range(cx.n_cells)]
        else:
            V = P.matmul([[bends[t] * x for x in self.vec[t]] for t in range(cx.n_walls)])
        base_row = list(a0) + [c0]
        rows = [[b + v for b, v in zip(base_row, Vk)] for Vk in V]
        return CPWLFunction(cx, [r[:n] for r in rows], [r[n] for r in rows])

    def coordinates(self, bends) -> list[Fraction]:
        """y with L y = bends (bends must lie in im lambda)."""
        W, d = len(self.L), self.d
        bends = exact_vector("bends", bends, length=W)
        if d == 0:
            return []
        aug = [[Fraction(self.L[i][j]) for j in range(d)] + [bends[i]] for i in range(W)]
        R, piv = rref(aug)
        if d in piv:
            raise ValueError("bends are not in the image of lambda")
        return [R[i][d] for i in range(d)]


def lambda_space(complex: PolyhedralComplex) -> LambdaSpace:
    """Cached :class:`LambdaSpace` of a complex."""
    if not isinstance(complex, PolyhedralComplex):
        raise TypeError(f"complex must be a PolyhedralComplex; got {type(complex).__name__}")
    sp = getattr(complex, "_lambda_space", None)
    if sp is None:
        sp = LambdaSpace(complex)
        complex._lambda_space = sp
    return sp


# Walls from which minimal_decompositions(method="auto") searches by LP: the fitted costs of the exact
# path (walls^2.11) and of the LP search over 300 objectives (walls^0.17) cross at 90 walls
# (benchmarks/cpwl_decomp.py minimal_decomposition, random planar fans of 6..22 walls, 2026-12-04).
LP_CROSSOVER_WALLS = 90


# ---------------------------------------------------------------------------------------
@dataclass(eq=False)
class Decomposition:
    """One point y of D_P(f): f = g - h with g, h convex; exact bends and piece counts.

    ``g`` (bends L y) and ``h = g - f`` are built as functions on first access; ``pieces`` is
    (pieces(g), pieces(h)), from the functions, or ``counted_pieces`` as counted in a batch by
    :meth:`DecompositionPolyhedron.minimal_decompositions`.
    """

    polyhedron: "DecompositionPolyhedron" = field(repr=False)
    y: tuple
    tight: frozenset
    counted_pieces: tuple | None = None

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self, optional=("counted_pieces",))
        P = self.polyhedron
        if not isinstance(P, DecompositionPolyhedron):
            raise TypeError(f"Decomposition: polyhedron must be a DecompositionPolyhedron; got "
                            f"{type(P).__name__} {P!r:.60}")
        self.y = tuple(exact_vector("Decomposition: y", self.y, length=P.d))
        if not isinstance(self.tight, (frozenset, set)) or not all(
                isinstance(i, (int, np.integer)) and not isinstance(i, bool) and 0 <= i < P.n_walls for i in self.tight):
            raise TypeError(f"Decomposition: tight must be a frozenset of wall indices in [0, {P.n_walls - 1}]; got "
                            f"{type(self.tight).__name__} {self.tight!r:.60}")
        self.tight = frozenset(int(i) for i in self.tight)
        if self.counted_pieces is not None:
            cp = self.counted_pieces
            if not isinstance(cp, tuple) or len(cp) != 2:
                raise TypeError(f"Decomposition: counted_pieces must be None or a pair (pieces of g, pieces of h); "
                                f"got {cp!r:.60}")
            self.counted_pieces = tuple(check_int(f"Decomposition: counted_pieces[{i}]", v, low=1)
                                        for i, v in enumerate(cp))

    @cached_property
    def g(self) -> CPWLFunction:
        return self.polyhedron.space.function_from_bends(self.polyhedron.bends_of(self.y))

    @cached_property
    def h(self) -> CPWLFunction:
        return self.g - self.polyhedron.f

    @property
    def pieces(self) -> tuple[int, int]:
        if self.counted_pieces is None:
            self.counted_pieces = (self.g.n_pieces(), self.h.n_pieces())
        return self.counted_pieces

    @property
    def total_pieces(self) -> int:
        return sum(self.pieces)

    def __eq__(self, other):
        return isinstance(other, Decomposition) and self.polyhedron is other.polyhedron and self.y == other.y

    def __hash__(self):
        return hash(self.y)


class DecompositionPolyhedron:
    """D_P(f) for a CPWL function f on its complex (see the module docstring).

    Parameters
    ----------
    f : CPWLFunction

    Attributes
    ----------
    L : list of int rows (walls x d)
    lam_f : list of Fraction, the bends of f
    u : list of Fraction, max(0, lam_f)
    d : int, dim V_P / Aff
    """

    def __init__(self, f: CPWLFunction):
        if not isinstance(f, CPWLFunction):
            raise TypeError(f"f must be a CPWLFunction; got {type(f).__name__}")
        self.f = f
        self.space = lambda_space(f.complex)
        self.L = self.space.L
        self.d = self.space.d
        self.lam_f = f.bends
        self.u = [max(Fraction(0), v) for v in self.lam_f]
        self.y_f = self.space.coordinates(self.lam_f)
        self._vrep = None

    # -- H-representation -----------------------------------------------------------------
    @property
    def n_walls(self) -> int:
        return len(self.L)

    def inequalities(self, form="max"):
        """(A, b) with D = {y : A y >= b}: ``form="max"`` (L, u) or ``"cones"`` (two cones, 2W rows)."""
        check_choice("form", form, ("max", "cones"))
        if form == "max":
            return [list(map(Fraction, r)) for r in self.L], list(self.u)
        A = [list(map(Fraction, r)) for r in self.L] * 2
        return A, [Fraction(0)] * self.n_walls + list(self.lam_f)

    def bends_of(self, y):
        """lambda(g) = L y for the point y of D (exact, one FLINT product)."""
        M = getattr(self, "_L_exact", None)
        if M is None:
            M = self._L_exact = ExactMatrix(self.L, n_cols=self.d)
        return M.matvec(exact_vector("y", y, length=self.d))

    def contains(self, y) -> bool:
        y = exact_vector("y", y, length=self.d)
        return all(v >= ui for v, ui in zip(self.bends_of(y), self.u))

    def tight_set(self, y) -> frozenset:
        y = exact_vector("y", y, length=self.d)
        return frozenset(i for i, (v, ui) in enumerate(zip(self.bends_of(y), self.u)) if v == ui)

    def decomposition(self, y) -> Decomposition:
        y = tuple(exact_vector("y", y, length=self.d))
        if not self.contains(y):
            raise ValueError(f"y = {[str(v) for v in y]} is not in D_P(f)")
        return Decomposition(self, y, self.tight_set(y))

    # -- V-representation -----------------------------------------------------------------
    def _homogenised(self, rows_b):
        A, b = rows_b
        out = [primitive_int_row(list(r) + [-bi]) for r, bi in zip(A, b)]
        out.append([0] * self.d + [1])
        return out

    def vrep(self, method="dd"):
        """(vertices, rays) exactly: lists of tuples of Fractions; ``method`` "dd" or "numba"."""
        check_choice("method", method, ("dd", "numba"))
        if method == "dd" and self._vrep is not None:
            return self._vrep
        if self.d == 0:
            out = ([()], [])
        elif method == "dd":
            rays = _dd.extreme_rays(self._homogenised(self.inequalities("max")))
            verts, recs = [], []
            for r, _ in rays:
                t = r[-1]
                if t > 0:
                    verts.append(tuple(Fraction(v, t) for v in r[:-1]))
                else:
                    recs.append(tuple(Fraction(v) for v in r[:-1]))
            out = (sorted(verts), sorted(recs))
        else:
            out = (self._vertices_numba(), self.recession_rays())
        if method == "dd":
            self._vrep = out
        return out

    def recession_rays(self):
        """Extreme rays of the recession cone {L y >= 0} = V_P^+ / Aff (exact, primitive)."""
        if self.d == 0:
            return []
        A = [list(r) for r in self.L]
        return sorted(tuple(Fraction(v) for v in r) for r, _ in _dd.extreme_rays(A))

    def _vertices_numba(self):
        from math import comb

        from ._kernels import basic_solutions

        if comb(self.n_walls, self.d) > 5_000_000:
            raise ValueError(f"method='numba' would solve C({self.n_walls}, {self.d}) = {comb(self.n_walls, self.d)} "
                             "systems (limit 5e6); use method='dd'")
        Lf = np.array(self.L, dtype=float)
        uf = np.array([float(v) for v in self.u])
        pts, ok = basic_solutions(Lf, uf, 1e-9)
        cand = np.unique(np.round(pts[ok], 9), axis=0)
        return sorted({y for y in (self._exact_vertex_near(p, Lf, uf) for p in cand) if y is not None})

    def _exact_vertex_near(self, p, Lf, uf, rtol=1e-7):
        """The exact vertex whose tight constraints are those nearly tight at the float point ``p``
        (solved in rationals), or None if they do not determine a vertex of D."""
        resid = Lf @ p - uf
        T = [i for i in range(len(uf)) if abs(resid[i]) <= rtol * (1 + abs(uf[i]))]
        R, piv = rref([[Fraction(v) for v in self.L[i]] + [self.u[i]] for i in T])
        if len(piv) != self.d or self.d in piv:
            return None
        y = tuple(R[i][self.d] for i in range(self.d))
        return y if self.contains(y) else None

    def vertices_lp(self, n_objectives=200, *, seed=0):
        """Reference: distinct optimal vertices of min c.y over D for random c = L^T w, w > 0."""
        n_objectives = check_int("n_objectives", n_objectives, low=1, high=10**5)  # one LP each: 10**5 is minutes
        rng = as_generator(seed)
        if self.d == 0:
            return [()]
        Lf = np.array(self.L, dtype=float)
        uf = np.array([float(v) for v in self.u])
        found = set()
        for _ in range(n_objectives):
            w = rng.exponential(size=len(uf))
            res = _linprog(Lf.T @ w, A_ub=-Lf, b_ub=-uf, bounds=[(None, None)] * self.d, method="highs")
            if res.status == 0:
                found.add(tuple(np.round(res.x, 7)))
        return sorted(found)

    # -- faces, irreducibility ------------------------------------------------------------
    def is_bounded_face_point(self, y) -> bool:
        """Exact: the minimal face of D containing y is bounded (no extreme ray with L r = 0 on T(y))."""
        T = self.tight_set(y)
        _, rays = self.vrep()
        for r in rays:
            Lr = self.bends_of(r)
            if all(Lr[i] == 0 for i in T):
                return False
        return True

    def is_irreducible_lp(self, y, *, tol=1e-9) -> bool:
        """LP test: max sum(L dy) s.t. L dy >= 0, L (y - dy) >= u is 0 iff (g, h) is irreducible."""
        y = exact_vector("y", y, length=self.d)
        tol = check_real("tol", tol, low=0.0)
        if self.d == 0:
            return True
        Lf = np.array(self.L, dtype=float)
        uf = np.array([float(v) for v in self.u])
        Ly = Lf @ np.array([float(v) for v in y])
        A_ub = np.vstack([-Lf, Lf])
        b_ub = np.concatenate([np.zeros(len(uf)), Ly - uf])
        res = _linprog(-Lf.sum(axis=0), A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * self.d, method="highs")
        if res.status != 0:
            raise RuntimeError(f"irreducibility LP failed: {res.message}")
        return -res.fun <= tol * (1 + np.abs(Ly).sum())

    def faces(self) -> pd.DataFrame:
        """All non-empty faces, each as its tight set with vertices, dimension and boundedness."""
        verts, rays = self.vrep()
        vt = [self.tight_set(v) for v in verts]
        ray_zero = [frozenset(i for i, x in enumerate(self.bends_of(r)) if x == 0) for r in rays]
        gens = vt + ray_zero
        everything = frozenset(range(self.n_walls))

        def closure(T):
            V = [k for k, S in enumerate(vt) if T <= S]
            R = [k for k, Z in enumerate(ray_zero) if T <= Z]
            C = everything
            for k in V:
                C &= vt[k]
            for k in R:
                C &= ray_zero[k]
            return C, V, R

        faces = {}
        frontier = set(vt)
        seen = set(vt)
        while frontier:
            new = set()
            for T in frontier:
                C, V, R = closure(T)
                if not V or C in faces:
                    continue
                faces[C] = (V, R)
                for S in gens:
                    I = C & S
                    if I not in seen:
                        seen.add(I)
                        new.add(I)
            frontier = new
        rows = []
        for T, (V, R) in faces.items():
            pts = [verts[k] for k in V]
            diffs = [[a - b for a, b in zip(p, pts[0])] for p in pts[1:]] + [list(rays[k]) for k in R]
            dim = rank(diffs) if diffs else 0
            rows.append(dict(tight=tuple(sorted(T)), vertices=tuple(V), rays=tuple(R), dim=dim, bounded=not R))
        df = pd.DataFrame(rows, columns=["tight", "vertices", "rays", "dim", "bounded"])
        return df.sort_values(["dim", "tight"]).reset_index(drop=True)

    # -- minimal decompositions -----------------------------------------------------------
    def vertex_table(self) -> pd.DataFrame:
        """Every vertex with the bends of g and h, piece counts, and exact validity flags."""
        verts, _ = self.vrep()
        rows = []
        for k, v in enumerate(verts):
            dec = self.decomposition(v)
            pg, ph = dec.pieces
            rows.append(dict(vertex=k, y=tuple(str(x) for x in v),
                             bends_g=tuple(str(x) for x in dec.g.bends), bends_h=tuple(str(x) for x in dec.h.bends),
                             pieces_g=pg, pieces_h=ph, total_pieces=pg + ph,
                             g_convex=dec.g.is_convex(), h_convex=dec.h.is_convex(),
                             exact_identity=(dec.g - dec.h).equals(self.f)))
        return pd.DataFrame(rows)

    def vertex_pieces(self, vertices=None) -> pd.DataFrame:
        """Every vertex with the exact bends of g and h, piece counts and convexity flags, from the
        bends alone: lambda(g) = L y, lambda(h) = L y - lambda(f), pieces by one batched union-find
        (:meth:`piece_counts`).  The fast form of :meth:`vertex_table`, which instead rebuilds g and
        h as functions for every vertex and also checks g - h = f; both give the same counts.
        ``vertices``: exact vertices to tabulate (default: all, from :meth:`vrep`)."""
        verts = self.vrep()[0] if vertices is None else self._points("vertices", vertices)
        rows = []
        for k, v in enumerate(verts):
            bg = self.bends_of(v)
            bh = [a - b for a, b in zip(bg, self.lam_f)]
            rows.append(dict(vertex=k, y=tuple(str(x) for x in v), bends_g=tuple(str(x) for x in bg),
                             bends_h=tuple(str(x) for x in bh), g_convex=all(x >= 0 for x in bg),
                             h_convex=all(x >= 0 for x in bh)))
        counts = self._piece_counts(verts) if verts else np.zeros((0, 2), dtype=np.int64)
        df = pd.DataFrame(rows, columns=["vertex", "y", "bends_g", "bends_h", "g_convex", "h_convex"])
        df.insert(4, "pieces_g", counts[:, 0])
        df.insert(5, "pieces_h", counts[:, 1])
        df.insert(6, "total_pieces", counts.sum(axis=1))
        return df

    def minimal_decompositions(self, method="exact", *, n_objectives=300, seed=0):
        """Vertices with the fewest pieces (pieces(g) + pieces(h)) and a certificate.

        Returns (list of :class:`Decomposition`, table DataFrame = :meth:`vertex_pieces` of the vertices
        searched; ``table.attrs["certified"]`` says whether the search was complete).

        ``method="exact"`` (default): every vertex from exact enumeration.  The certificate is complete
        because minimal decompositions are vertices (the paper's theorem, abstract).  Piece counts of all
        vertices come from their bends in one batch; each returned decomposition builds g and h on first
        access, and the first one's piece counts are re-derived from its functions (a mismatch raises
        RuntimeError).  :meth:`vertex_table` is the slower certificate that rebuilds every vertex and
        checks g - h = f there.
        ``method="lp"``: only the vertices that LPs over ``n_objectives`` random objectives reach
        (:meth:`vertices_lp`, each recovered exactly from its tight constraints): the best among them,
        not certified minimal.  ``method="auto"``: exact below :data:`LP_CROSSOVER_WALLS` walls, where
        the LP search becomes faster (measured by ``theorylab bench cpwl_decomp``), lp from there.
        """
        if not isinstance(seed, np.random.Generator):  # (a Generator is not consumed)
            seed_sequence(seed)  # checked even where nothing is drawn: a bad seed is an error in any mode
        method = check_choice("method", method, ("exact", "lp", "auto"))
        n_objectives = check_int("n_objectives", n_objectives, low=1, high=10**5)
        if method == "auto":
            method = "exact" if self.n_walls < LP_CROSSOVER_WALLS else "lp"
        if method == "exact":
            verts = self.vrep()[0]
        else:
            Lf = np.array(self.L, dtype=float)
            uf = np.array([float(v) for v in self.u])
            # vertices_lp rounds to 1e-7: residuals up to ~|L_i|_1 x 1e-7, hence the looser tolerance
            found = (self._exact_vertex_near(np.array(p), Lf, uf, rtol=1e-5)
                     for p in self.vertices_lp(n_objectives, seed=seed))
            verts = sorted({y for y in found if y is not None}) if self.d else [()]
            if not verts:
                raise RuntimeError(f"no LP over {n_objectives} objectives recovered an exact vertex of {self!r}")
        table = self.vertex_pieces(verts)
        table.attrs["certified"] = method == "exact"
        best = table["total_pieces"].min()
        mins = [Decomposition(self, verts[k], self.tight_set(verts[k]), (int(table.pieces_g[k]), int(table.pieces_h[k])))
                for k in table.index[table["total_pieces"] == best]]
        rebuilt = self.decomposition(mins[0].y)  # one minimiser re-counted from its functions
        if rebuilt.pieces != mins[0].pieces:
            raise RuntimeError(f"vertex y = {[str(v) for v in rebuilt.y]}: the rebuilt functions have pieces "
                               f"{rebuilt.pieces}, the batch count from the bends {mins[0].pieces}")
        return mins, table

    def sample_points(self, n_samples, *, seed=0, on_faces=True, max_weight=4):
        """Random exact points of D: convex combinations of vertices plus ray multiples,
        half of them restricted to a random face (so that some constraints stay tight)."""
        n_samples = check_int("n_samples", n_samples, low=1, high=10**6)
        max_weight = check_int("max_weight", max_weight, low=1, high=10**6)
        if not isinstance(on_faces, (bool, np.bool_)):
            raise TypeError(f"on_faces must be True or False; got {on_faces!r}")
        rng = as_generator(seed)
        verts, rays = self.vrep()
        faces = self.faces() if on_faces else None
        out = []
        for s in range(n_samples):
            if on_faces and s % 2 == 0 and len(faces):
                row = faces.iloc[int(rng.integers(len(faces)))]
                V, R = list(row["vertices"]), list(row["rays"])
            else:
                V, R = list(range(len(verts))), list(range(len(rays)))
            w = rng.integers(0, max_weight + 1, size=len(V))
            if w.sum() == 0:
                w[int(rng.integers(len(V)))] = 1
            y = [Fraction(0)] * self.d
            for k, wk in zip(V, w):
                for j in range(self.d):
                    y[j] += Fraction(int(wk), int(w.sum())) * verts[k][j]
            for k in R:
                c = int(rng.integers(0, max_weight + 1))
                for j in range(self.d):
                    y[j] += c * rays[k][j]
            out.append(tuple(y))
        return out

    def piece_counts(self, points) -> np.ndarray:
        """(len(points), 2) pieces of (g, h) for many points at once (numba union-find)."""
        return self._piece_counts(self._points("points", points))

    def _piece_counts(self, points) -> np.ndarray:
        from ._kernels import piece_counts, piece_counts_serial

        flat_g = np.zeros((len(points), self.n_walls), dtype=np.bool_)
        flat_h = np.zeros_like(flat_g)
        for s, y in enumerate(points):
            b = self.bends_of(y)
            flat_g[s] = [v == 0 for v in b]
            flat_h[s] = [v == lf for v, lf in zip(b, self.lam_f)]
        wc = self.f.complex.wall_cells()
        C = self.f.complex.n_cells
        count = piece_counts if len(points) >= 256 else piece_counts_serial   # threads pay off on large batches
        return np.stack([count(flat_g, wc, C), count(flat_h, wc, C)], axis=1)

    def _points(self, name, points):
        """A sequence of exact points of R^d (each checked, ``name[i]`` in messages)."""
        points = _sequence(name, points)
        return [tuple(exact_vector(f"{name}[{i}]", y, length=self.d)) for i, y in enumerate(points)]

    def unique_vertex_by_realizability(self) -> bool:
        """Criterion of spec §2(a)(uniqueness): max(0, lambda(f)) lies in im(lambda)."""
        return self.space.contains(self.u)

    def __repr__(self):
        return f"DecompositionPolyhedron(d={self.d}, walls={self.n_walls}, f on {self.f.complex.name})"


def decomposition_polyhedron(f: CPWLFunction) -> DecompositionPolyhedron:
    """D_P(f) for ``f`` (see :class:`DecompositionPolyhedron`)."""
    return DecompositionPolyhedron(f)


def naive_decomposition(f: CPWLFunction):
    """A standard non-minimal decomposition for comparison: g = f + M * phi, h = M * phi with
    phi = sum over walls of the "max" function bending on every wall, M large enough.

    Concretely y = y_f + t * y_1 where L y_1 = s > 0 is the bends of an everywhere strictly
    convex function on P (found by LP), t the least scale making g and h convex.
    """
    D = DecompositionPolyhedron(f)
    if D.d == 0:
        return D.decomposition(())
    Lf = np.array(D.L, float)
    res = _linprog(np.zeros(D.d), A_ub=-Lf, b_ub=-np.ones(len(Lf)), bounds=[(None, None)] * D.d, method="highs")
    if res.status != 0:
        raise ValueError(f"{f.complex.name} has no strictly convex function (not a regular complex)")
    # rationalise the strictly convex direction and scale until both constraints hold
    y1 = [Fraction(v).limit_denominator(1000) for v in res.x]
    b1 = D.bends_of(y1)
    if min(b1) <= 0:
        raise RuntimeError("internal: rounding lost strict convexity")
    yf = D.y_f
    bf = D.lam_f
    t = max([Fraction(0)] + [max(-bfi, Fraction(0)) / b for bfi, b in zip(bf, b1)] + [Fraction(0)])
    y = [a + t * b for a, b in zip(yf, y1)]  # g = f + t*phi, h = t*phi
    # make both strictly bend everywhere (the "naive" choice): add one more unit of phi
    y = [a + b for a, b in zip(y, y1)]
    return D.decomposition(y)
