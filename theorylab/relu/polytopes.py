"""The polytope side of the lower bounds (HHL ICLR'23, Sec. 3; AHM ICLR'25, Sec. 3-4).

A bias-free ReLU network is, through tropical geometry, a difference f = h_P - h_Q of
support functions h_P(x) = max_{v in P} <v, x> of two polytopes, its *Newton polytopes*.
They are built through the layers: the input x_i is (P, Q) = ({e_i}, {0}); a weighted sum
z = sum_j w_j y_j gives (sum_{w_j>0} w_j P_j + sum_{w_j<0} |w_j| Q_j, the same with P/Q
swapped) (Minkowski sums); ReLU(z) = max(h_G, h_H) - h_H gives (conv(G u H), H).  After k
hidden layers the polytopes lie in the class of Minkowski sums of convex hulls of unions of
polytopes of the previous class (HHL's P_k; AHM's SU-closure), with vertices in Z[1/N]^n for
N-ary weights.

Normalized volume: for a d-dimensional face F, ``Vol_d(F) = d! * vol(F)`` measured in the
lattice ``lin(F - F) cap Z^n`` (so a lattice simplex of minimal volume has 1).  For vertices
in Z[1/N]^n it is an element of Z[1/N]; AHM's invariant is read p-adically for primes p not
dividing N.  Here it is computed exactly: the combinatorics (facets, a triangulation of the
boundary) come from Qhull, every volume is an exact sum of integer determinants, and the
exact volume is cross-checked against Qhull's float volume.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial, gcd, lcm
from itertools import combinations

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from theorylab.core.validate import check_array, check_budget, check_int

from . import _kernels
from .network import ReLUNetwork

_DET_SAFE = 2 ** 30      # Hadamard bound below which int64 Bareiss cannot overflow
#: vertex numerators are int64 with |v| <= 2^40, so that Minkowski sums of up to 2^22 polytopes and
#: the lcm rescaling of a few of them stay far from the int64 range (checked on every result)
MAX_COORD = 2 ** 40
#: at most this many points (m x n numerators) per polytope: convex hulls are O(m log m) to O(m^(n/2))
MAX_POINTS = 10 ** 6


def _check_points(name, num):
    """Integer vertex numerators (m, n), m >= 1: finite, integral, |v| <= MAX_COORD, within budget."""
    if isinstance(num, np.ndarray) and num.dtype == np.int64 and num.ndim == 2:
        arr = num
    else:
        arr = check_array(name, num, ndim=2, dtype=np.int64)
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty (m, n) array of vertex numerators with m, n >= 1; "
                         f"got shape {arr.shape}")
    check_budget(f"{name} (points x coordinates)", arr.shape[0] * arr.shape[1], max_elements=MAX_POINTS,
                 m=arr.shape[0], n=arr.shape[1])
    if arr.size and int(np.abs(arr).max()) > MAX_COORD:
        raise ValueError(f"{name} must hold integers with |value| <= 2^40 = {MAX_COORD}; got max |value| "
                         f"{int(np.abs(arr).max())}")
    return arr


class Polytope:
    """A polytope conv(num / den) with integer vertex numerators ``num`` (m, n) and ``den`` >= 1."""

    __slots__ = ("num", "den", "_strict", "_strict_cache")

    def __init__(self, num, den: int = 1, *, prune: bool = True):
        num = _check_points("num", num)
        den = check_int("den", den, low=1, high=MAX_COORD)
        if not isinstance(prune, (bool, np.bool_)):
            raise TypeError(f"prune must be True or False; got {prune!r}")
        g = gcd(den, *[int(v) for v in np.unique(num)]) if num.size else den
        if g > 1:
            num, den = num // g, den // g
        self.num, self.den = num, den
        self._strict = None
        if prune:
            self.num = _vertices(self.num)

    @property
    def ambient_dim(self) -> int:
        return self.num.shape[1]

    @property
    def n_vertices(self) -> int:
        return self.num.shape[0]

    def vertices(self):
        """Vertices as an object array of Fractions."""
        return np.array([[Fraction(int(v), self.den) for v in row] for row in self.num], dtype=object)

    def dim(self) -> int:
        return _affine_rank(self.num)

    def __add__(self, other):
        return minkowski_sum(self, other)

    def scale(self, w: Fraction):
        """w * P for a rational w >= 0."""
        if isinstance(w, bool) or not isinstance(w, (int, np.integer, Fraction, float, np.floating)) \
                or (isinstance(w, (float, np.floating)) and not np.isfinite(w)):
            raise TypeError(f"w must be a finite rational number >= 0; got {w!r} of type {type(w).__name__}")
        w = Fraction(int(w)) if isinstance(w, np.integer) else Fraction(w)
        if w < 0:
            raise ValueError(f"w must be >= 0 to scale a polytope; got {w}")
        if w == 0:
            return Polytope(np.zeros((1, self.ambient_dim), dtype=np.int64), 1, prune=False)
        return Polytope(self.num * w.numerator, self.den * w.denominator, prune=False)

    def strict_vertices(self):
        """The vertex numerators, each certified exactly by a separating functional.

        Qhull may keep a few points that lie on a face but are not vertices (degenerate input);
        here every kept point v needs a rational c with c.(v - u) > 0 for all other points u
        (checked in integers), found by an LP with margin 1; points with no such c are dropped.
        """
        if getattr(self, "_strict", None) is None:
            pts = self.num
            keep = []
            for i in range(pts.shape[0]):
                if pts.shape[0] == 1 or _separable(pts, i):
                    keep.append(i)
            self._strict_cache = pts[keep]
            self._strict = True
        return self._strict_cache

    def key(self):
        return self.den, frozenset(map(tuple, self.strict_vertices().tolist()))

    def __eq__(self, other):
        return isinstance(other, Polytope) and self.key() == other.key()

    def __repr__(self):
        return f"Polytope({self.n_vertices} vertices in R^{self.ambient_dim}, den={self.den})"


def _separable(pts, i) -> bool:
    """Exact check that point i is a vertex of conv(pts): a c with c.(v - u) >= 1 for all u != v."""
    from scipy.optimize import linprog

    v = pts[i]
    diff = np.delete(pts, i, axis=0) - v                    # need c.diff <= -1
    res = linprog(np.zeros(pts.shape[1]), A_ub=diff.astype(float), b_ub=-np.ones(diff.shape[0]),
                  bounds=[(None, None)] * pts.shape[1], method="highs")
    if res.status != 0:
        return False
    for den in (1, 2 ** 10, 2 ** 20, 2 ** 30):
        c = [Fraction(round(x * den), den) for x in res.x]
        if all(sum(ci * int(d) for ci, d in zip(c, row)) < 0 for row in diff):
            return True
    return False


def _affine_rank(num) -> int:
    if num.shape[0] <= 1:
        return 0
    D = (num[1:] - num[0]).astype(float)
    return int(np.linalg.matrix_rank(D))


def _project(num):
    """Coordinates of the points in an affine basis of their affine hull (float), and its rank."""
    D = (num - num[0]).astype(float)
    r = int(np.linalg.matrix_rank(D)) if num.shape[0] > 1 else 0
    if r == 0:
        return np.zeros((num.shape[0], 0)), 0
    U, s, Vt = np.linalg.svd(D, full_matrices=False)
    return D @ Vt[:r].T, r


def _vertices(num):
    num = np.unique(num, axis=0)
    if num.shape[0] <= 1:
        return num
    Y, r = _project(num)
    if r == 0:
        return num[:1]
    if r == 1:
        return num[[int(np.argmin(Y[:, 0])), int(np.argmax(Y[:, 0]))]]
    try:
        hull = ConvexHull(Y)
    except QhullError:
        return num
    return num[np.sort(hull.vertices)]


def _common(P, Q):
    L = lcm(P.den, Q.den)
    return P.num * (L // P.den), Q.num * (L // Q.den), L


def _check_pair(P, Q):
    _check_polytope("P", P)
    _check_polytope("Q", Q)
    if P.ambient_dim != Q.ambient_dim:
        raise ValueError(f"P and Q must live in the same R^n; got P in R^{P.ambient_dim}, Q in R^{Q.ambient_dim}")
    if lcm(P.den, Q.den) > MAX_COORD:
        raise ValueError(f"P and Q have denominators {P.den} and {Q.den} with lcm above 2^40")


def minkowski_sum(P: Polytope, Q: Polytope) -> Polytope:
    """P + Q = {p + q}."""
    _check_pair(P, Q)
    check_budget("minkowski_sum (vertex pairs)", P.n_vertices * Q.n_vertices, max_elements=MAX_POINTS,
                 P_vertices=P.n_vertices, Q_vertices=Q.n_vertices)
    a, b, L = _common(P, Q)
    pts = (a[:, None, :] + b[None, :, :]).reshape(-1, a.shape[1])
    return Polytope(pts, L)


def conv_union(P: Polytope, Q: Polytope) -> Polytope:
    """conv(P u Q)."""
    _check_pair(P, Q)
    a, b, L = _common(P, Q)
    return Polytope(np.vstack([a, b]), L)


def _check_polytope(name, P):
    if not isinstance(P, Polytope):
        raise TypeError(f"{name} must be a Polytope; got {type(P).__name__}")
    return P


def point(v) -> Polytope:
    """The polytope {v} for a rational vector v (ints, Fractions, strings; floats at their exact binary value)."""
    from theorylab.core.exact import to_fraction

    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
        raise TypeError(f"v must be a sequence of rational numbers; got {v!r}")
    if len(v) < 1:
        raise ValueError("v must have at least one coordinate; got an empty vector")
    fr = []
    for i, x in enumerate(v):
        try:
            fr.append(to_fraction(x))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"v[{i}]: {exc}") from None
    L = lcm(*[f.denominator for f in fr]) if fr else 1
    if L > MAX_COORD or any(abs(f.numerator) * (L // f.denominator) > MAX_COORD for f in fr):
        raise ValueError(f"v must have coordinates with common denominator and numerators at most 2^40 "
                         f"(int64 vertex numerators); got common denominator {L}")
    return Polytope(np.array([[int(f * L) for f in fr]], dtype=np.int64), L, prune=False)


def simplex(n: int) -> Polytope:
    """Delta_n = conv(0, e_1, ..., e_n), the Newton polytope of F_n (n <= 1000)."""
    n = check_int("n", n, low=1, high=1000)
    return Polytope(np.vstack([np.zeros((1, n), dtype=np.int64), np.eye(n, dtype=np.int64)]), 1)


def newton_polytopes(net: ReLUNetwork, *, keep_layers: bool = False):
    """Newton polytopes (P, Q) with f = h_P - h_Q for each output of a bias-free network.

    Parameters
    ----------
    net : ReLUNetwork
        Must have zero biases (the bias-free case; biases would lift the polytopes to R^{n+1}).
    keep_layers : bool
        Also return, per hidden layer, the list of (conv(G u H), H) pairs of its neurons.

    Returns
    -------
    outputs : list of (Polytope, Polytope)
    layers : list of lists of (Polytope, Polytope) (only with ``keep_layers``)
    """
    if not isinstance(net, ReLUNetwork):
        raise TypeError(f"net must be a ReLUNetwork; got {type(net).__name__}")
    if not isinstance(keep_layers, (bool, np.bool_)):
        raise TypeError(f"keep_layers must be True or False; got {keep_layers!r}")
    if any(v != 0 for b in net.biases for v in b):
        raise ValueError("newton_polytopes needs a bias-free network; got non-zero biases")
    n = net.n_inputs
    zero = point([0] * n)
    cur = [(point([int(i == j) for j in range(n)]), zero) for i in range(n)]
    layers = []
    for l, W in enumerate(net.weights):
        nxt = []
        for r in range(W.shape[0]):
            G, H = zero, zero
            for j, w in enumerate(W[r]):
                if w > 0:
                    G, H = G + cur[j][0].scale(w), H + cur[j][1].scale(w)
                elif w < 0:
                    G, H = G + cur[j][1].scale(-w), H + cur[j][0].scale(-w)
            nxt.append((conv_union(G, H), H) if l < net.depth else (G, H))
        if l < net.depth:
            layers.append(nxt)
        cur = nxt
    return (cur, layers) if keep_layers else cur


# -- exact volumes -------------------------------------------------------------------------

def _dets(mats):
    """Exact determinants of integer matrices (list of (d, d) object/int arrays)."""
    if not mats:
        return []
    M = np.array(mats, dtype=object)
    d = M.shape[1]
    rows = np.sqrt(np.sum(M.astype(float) ** 2, axis=2))
    had = float(np.max(np.prod(rows, axis=1))) if d else 1.0
    if had < _DET_SAFE:
        return [int(v) for v in _kernels.det_batch(np.ascontiguousarray(M.astype(np.int64)))]
    return [_det_python(m) for m in M]


def _det_python(M):
    """Bareiss on Python integers (no overflow)."""
    A = [[int(v) for v in row] for row in M]
    d, sign, prev = len(A), 1, 1
    for k in range(d - 1):
        if A[k][k] == 0:
            piv = next((r for r in range(k + 1, d) if A[r][k] != 0), None)
            if piv is None:
                return 0
            A[k], A[piv] = A[piv], A[k]
            sign = -sign
        for i in range(k + 1, d):
            for j in range(k + 1, d):
                A[i][j] = (A[i][j] * A[k][k] - A[i][k] * A[k][j]) // prev
        prev = A[k][k]
    return sign * A[d - 1][d - 1] if d else 1


def _int_basis(D):
    """Indices of a maximal set of linearly independent rows of the integer matrix D (exact)."""
    chosen, rows = [], []
    for i, row in enumerate(D):
        trial = rows + [[Fraction(int(v)) for v in row]]
        if _rank_exact(trial) == len(trial):
            rows, chosen = trial, chosen + [i]
    return chosen


def _rank_exact(rows):
    M = [list(r) for r in rows]
    rank, ncol = 0, len(M[0]) if M else 0
    for col in range(ncol):
        p = next((i for i in range(rank, len(M)) if M[i][col] != 0), None)
        if p is None:
            continue
        M[rank], M[p] = M[p], M[rank]
        for i in range(rank + 1, len(M)):
            if M[i][col] != 0:
                f = M[i][col] / M[rank][col]
                M[i] = [a - f * b for a, b in zip(M[i], M[rank])]
        rank += 1
    return rank


def _minor_gcd(B):
    """gcd of all r x r minors of the integer r x n matrix B = index of Z-span(B) in its saturation."""
    r, n = B.shape
    g = 0
    for cols in combinations(range(n), r):
        g = gcd(g, abs(_det_python(B[:, cols])))
        if g == 1:
            break
    return g


def normalized_volume(num, den: int = 1) -> Fraction:
    """Exact normalized volume ``d! vol`` of conv(num/den) in the lattice lin(P-P) cap Z^n.

    ``d`` is the dimension of the polytope (0 for a point: volume 1). ``num`` must hold finite
    integers (|v| <= 2^40); NaN/inf or fractional entries are refused.
    """
    num = np.unique(_check_points("num", num), axis=0)
    den = check_int("den", den, low=1)
    D = num - num[0]
    idx = _int_basis(D[1:]) if num.shape[0] > 1 else []
    r = len(idx)
    if r == 0:
        return Fraction(1)
    B = np.array(D[1:][idx], dtype=object)                 # r x n integer basis of the directions
    # exact coordinates y with y B = D: pick r columns with a non-zero minor
    cols = next(c for c in combinations(range(B.shape[1]), r) if _det_python(B[:, c]) != 0)
    Bc = [[Fraction(int(B[i, j])) for j in cols] for i in range(r)]
    # solve y Bc = D[:, cols] for each point:  Bc^T y^T = D_cols^T
    BcT = [[Bc[i][j] for i in range(r)] for j in range(r)]
    from theorylab.core.exact import solve_consistent
    Y = [solve_consistent(BcT, [Fraction(int(D[p, j])) for j in cols]) for p in range(num.shape[0])]
    L = lcm(*[y.denominator for row in Y for y in row])
    Yi = np.array([[int(y * L) for y in row] for row in Y], dtype=np.int64)
    vol_y = _full_dim_volume(Yi)                            # r! vol in y-coords, scaled by L^r
    g = _minor_gcd(B)
    return Fraction(vol_y * g, L ** r) / Fraction(den) ** r


def _full_dim_volume(Y):
    """Exact r! vol of a full-dimensional integer point set in R^r (integer result)."""
    m, r = Y.shape
    if r == 1:
        return int(Y.max() - Y.min())
    hull = ConvexHull(Y.astype(float), qhull_options="Qt")
    c = Y[hull.vertices].sum(axis=0)                          # interior point * k
    k = len(hull.vertices)
    mats = [(Y[s] * k - c).astype(object) for s in hull.simplices]
    total = sum(abs(d) for d in _dets(mats))
    if total % k ** r:
        raise ArithmeticError("exact volume is not an integer: inconsistent triangulation")
    vol = total // k ** r
    if abs(vol - factorial(r) * hull.volume) > 1e-7 * max(1.0, abs(vol)):
        raise ArithmeticError(f"exact volume {vol} disagrees with Qhull's {factorial(r) * hull.volume}")
    return vol


def faces(P: Polytope, min_dim: int = 0):
    """Faces of P of dimension >= ``min_dim`` as (dim, vertex-index frozenset), P itself included."""
    _check_polytope("P", P)
    min_dim = check_int("min_dim", min_dim, low=0)
    if P.ambient_dim > 12 or P.n_vertices > 5000:
        raise ValueError(f"P has {P.n_vertices} vertices in R^{P.ambient_dim}: face enumeration is limited to "
                         "5000 vertices and dimension 12 (the face lattice grows exponentially)")
    num = P.num
    dP = P.dim()
    out = [(dP, frozenset(range(num.shape[0])))]
    if dP < 1 or min_dim >= dP:
        return out if dP >= min_dim else []
    Y, r = _project(num)
    if r == 1:
        facets = [frozenset([int(np.argmin(Y[:, 0]))]), frozenset([int(np.argmax(Y[:, 0]))])]
    else:
        hull = ConvexHull(Y)
        eq = hull.equations
        facets = set()
        scale = np.abs(Y).max() + 1.0
        for e in eq:
            on = np.nonzero(np.abs(Y @ e[:-1] + e[-1]) <= 1e-9 * scale)[0]
            facets.add(frozenset(int(i) for i in on))
        facets = list(facets)
    level = [f for f in facets]
    dim = dP - 1
    seen = set(level)
    while dim >= min_dim and level:
        out.extend((dim, f) for f in level)
        if dim - 1 < min_dim:
            break
        nxt = set()
        for G in level:
            for F in facets:
                H = G & F
                if len(H) >= dim and H != G and H not in seen:
                    if _affine_rank(num[sorted(H)]) == dim - 1:
                        nxt.add(H)
        seen |= nxt
        level = list(nxt)
        dim -= 1
    return [(d, f) for d, f in out if d >= min_dim]


def p_adic_valuation(q, p: int) -> float:
    """v_p(q) for a rational q (int, Fraction or string; inf for q = 0)."""
    from .network import to_fraction

    q = to_fraction("q", q)
    p = check_int("p", p, low=2)
    if q == 0:
        return float("inf")
    v, a, b = 0, abs(q.numerator), q.denominator
    while a % p == 0:
        a //= p
        v += 1
    while b % p == 0:
        b //= p
        v -= 1
    return v


def face_volumes(P: Polytope, min_dim: int = 1):
    """(dim, normalized volume) of every face of P of dimension >= min_dim."""
    _check_polytope("P", P)
    return [(d, normalized_volume(P.num[sorted(F)], P.den)) for d, F in faces(P, min_dim)]
