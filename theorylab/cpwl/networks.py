"""Exact ReLU networks for convex CPWL functions (issue #6 check 7).

The paper (Brandenburg, Grillo & Hertrich, ICLR 2025, abstract): "we improve upon previous
constructions of neural networks for a given convex CPWL function".  The statement could not be
read; the construction here is the one the spec recalls (§2(a), [INFERRED], not confirmed):

    f(x) = max_{i<k} (a_i . x + c_i) is the support function of the lifted points
    p_i = (a_i, c_i) evaluated at (x, 1).  Take a triangulation T of the a_i refining the regular
    subdivision induced by the heights c_i (its simplices lift onto the upper hull).  Support
    functions are valuations, so by inclusion-exclusion over T

        f(x) = sum_{F in T, F not in the boundary of conv(a)} (-1)^{n - dim F} max_{i in F} (a_i . x + c_i),

    a signed sum of maxima of at most n + 1 affine functions.  Each maximum is a balanced tree
    of 2-input maxima, so the network has ceil(log2(n + 1)) hidden layers (instead of
    ceil(log2 k) for the max of all k pieces), and width O(#faces of T) = O(k^ceil(n/2)) by the
    upper bound theorem (in the plane: <= 2k - 5 triangles and 3k - 6 edges).

Networks are :class:`theorylab.relu.ReLUNetwork` (exact rational weights), built from its
balanced-tournament ``max_network``.  :func:`verify_network` proves N = f region by region.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from theorylab.cpwl._checks import exact_vector
from theorylab.core.seeding import seed_sequence
from theorylab.core.seeding import as_generator
from theorylab.core.validate import check_array, check_int
from theorylab.relu import ReLUNetwork, ceil_log, max_network

from .complexes import _chebyshev, _walk_regions


# --------------------------------------------------------------------------- input
def _pieces(slopes, offsets):
    A = check_array("slopes", slopes, ndim=2, dtype=object)
    k, n = A.shape
    c = check_array("offsets", offsets, shape=(k,), dtype=object)
    a = [tuple(exact_vector(f"slopes[{i}]", row)) for i, row in enumerate(A)]
    cc = exact_vector("offsets", c)
    for i in range(k):
        for j in range(i):
            if a[i] == a[j]:
                raise ValueError(f"slopes[{i}] == slopes[{j}] = {list(map(str, a[i]))}: parallel pieces; "
                                 "keep only the one with the larger offset")
    return a, cc, n


def _upper_hull_simplices(a, c, n, seed):
    """Simplices (index tuples) of a regular triangulation refining the subdivision of conv(a)
    induced by the heights c (upper hull of (a_i, c_i), heights perturbed by 1e-7 * noise)."""
    k = len(a)
    if k == 1:
        return []
    pts = np.array([[float(v) for v in ai] for ai in a])
    if np.linalg.matrix_rank(pts[1:] - pts[0]) < n:
        raise ValueError(f"the slopes span an affine space of dimension < n = {n}: f is not a function of all "
                         "n inputs (degenerate input; project it first)")
    if k == n + 1:                          # a single simplex: every piece is the maximum somewhere
        return [tuple(range(k))]
    noise = as_generator(seed).standard_normal(k) * 1e-7
    lifted = np.hstack([pts, (np.array([float(v) for v in c]) + noise)[:, None]])
    try:
        hull = ConvexHull(lifted)
    except QhullError as e:
        raise ValueError(f"could not triangulate the lifted pieces: {e}") from None
    up = hull.equations[:, n] > 1e-12       # outer normal with positive last coordinate: upper facets
    simplices = [tuple(sorted(int(v) for v in s)) for s, u in zip(hull.simplices, up) if u]
    used = set(itertools.chain.from_iterable(simplices))
    never = sorted(set(range(k)) - used)
    if never:
        raise ValueError(f"pieces {never} are never the maximum of f = max_i (a_i . x + c_i); "
                         "drop them (f would have fewer than k pieces)")
    return simplices


def valuation_terms(slopes, offsets, *, seed=0):
    """(sign, F) with f = sum sign * max_{i in F} (a_i . x + c_i): the interior faces F of the
    triangulation, sign (-1)^(n - dim F) (see the module docstring)."""
    if not isinstance(seed, np.random.Generator):  # (a Generator is not consumed)
        seed_sequence(seed)  # checked even where nothing is drawn: a bad seed is an error in any mode
    a, c, n = _pieces(slopes, offsets)
    simplices = _upper_hull_simplices(a, c, n, seed)
    if not simplices:
        return [(1, (0,))]
    facet_count = {}
    for s in simplices:
        for F in itertools.combinations(s, n):
            facet_count[F] = facet_count.get(F, 0) + 1
    boundary = [F for F, m in facet_count.items() if m == 1]
    on_boundary = set()
    for F in boundary:
        for r in range(1, n + 1):
            on_boundary.update(itertools.combinations(F, r))
    faces = set()
    for s in simplices:
        for r in range(1, n + 2):
            faces.update(itertools.combinations(s, r))
    return sorted(((-1) ** (n - (len(F) - 1)), F) for F in faces if F not in on_boundary)


# --------------------------------------------------------------------------- network assembly
def _affine(rows, bias) -> ReLUNetwork:
    return ReLUNetwork([np.array(rows, dtype=object)], [np.array(bias, dtype=object)])


def _pass_through(depth: int) -> ReLUNetwork:
    """y -> relu(y) - relu(-y) repeated: the identity on R with ``depth`` hidden layers."""
    net = _affine([[1]], [0])
    for _ in range(depth):
        net = ReLUNetwork([[[1], [-1]], [[1, -1]]]).compose(net)
    return net


def _term_network(a, c, F, depth):
    """max_{i in F} (a_i . x + c_i) - (a_F0 . x + c_F0) = max(0, l_j - l_F0) with ``depth`` hidden layers."""
    i0 = F[0]
    rows = [[aj - a0 for aj, a0 in zip(a[j], a[i0])] for j in F[1:]]
    bias = [c[j] - c[i0] for j in F[1:]]
    net = max_network(len(F) - 1).compose(_affine(rows, bias))
    return _pass_through(depth - net.depth).compose(net) if net.depth < depth else net


def _parallel_sum(nets, signs) -> ReLUNetwork:
    """x -> sum_j signs[j] * nets[j](x) for networks of equal depth (block-diagonal stacking)."""
    L = len(nets[0].weights)
    Ws, bs = [], []
    for l in range(L):
        if l == 0:
            W = np.vstack([N.weights[0] for N in nets])
        elif l == L - 1:
            W = np.hstack([s * N.weights[l] for N, s in zip(nets, signs)])
        else:
            rows = sum(N.weights[l].shape[0] for N in nets)
            cols = sum(N.weights[l].shape[1] for N in nets)
            W = np.zeros((rows, cols), dtype=object)
            W[:] = Fraction(0)
            r0 = c0 = 0
            for N in nets:
                h, w = N.weights[l].shape
                W[r0:r0 + h, c0:c0 + w] = N.weights[l]
                r0, c0 = r0 + h, c0 + w
        b = (np.concatenate([N.biases[l] for N in nets]) if l < L - 1
             else np.array([sum((s * N.biases[l][0] for N, s in zip(nets, signs)), Fraction(0))], dtype=object))
        Ws.append(W)
        bs.append(b)
    return ReLUNetwork(Ws, bs)


def convex_cpwl_network(slopes, offsets, *, seed=0):
    """A ReLU network computing f(x) = max_i (a_i . x + c_i) with ceil(log2(n + 1)) hidden layers.

    Parameters
    ----------
    slopes : (k, n) rationals a_i (pairwise distinct, affinely spanning R^n)
    offsets : (k,) rationals c_i (every piece must be the maximum somewhere)
    seed : perturbation seed of the triangulation (the result is verified, not trusted)

    Returns
    -------
    (ReLUNetwork, info) with info = dict(terms, depth, width, n_neurons, k, n).
    """
    if not isinstance(seed, np.random.Generator):  # (a Generator is not consumed)
        seed_sequence(seed)  # checked even where nothing is drawn: a bad seed is an error in any mode
    a, c, n = _pieces(slopes, offsets)
    terms = valuation_terms(slopes, offsets, seed=seed)
    depth = max(1, ceil_log(2, n + 1))
    # the affine part: singletons and the anchor l_F0 of every term, carried by a pass-through
    lin = [Fraction(0)] * n
    const = Fraction(0)
    nets, signs = [], []
    for sign, F in terms:
        lin = [u + sign * v for u, v in zip(lin, a[F[0]])]
        const += sign * c[F[0]]
        if len(F) > 1:
            nets.append(_term_network(a, c, F, depth))
            signs.append(sign)
    nets.append(_pass_through(depth).compose(_affine([lin], [const])))
    signs.append(1)
    net = _parallel_sum(nets, signs)
    return net, dict(k=len(a), n=n, terms=len(terms), depth=net.depth, width=net.width, n_neurons=net.n_neurons)


def max_tree_network(slopes, offsets):
    """The classical construction: max of all k pieces as one tournament, ceil(log2 k) hidden layers."""
    a, c, n = _pieces(slopes, offsets)
    k = len(a)
    if k == 1:
        return _pass_through(1).compose(_affine([list(a[0])], [c[0]]))
    depth = ceil_log(2, k)
    term = _term_network(a, c, tuple(range(k)), depth)
    return _parallel_sum([term, _pass_through(depth).compose(_affine([list(a[0])], [c[0]]))], [1, 1])


# --------------------------------------------------------------------------- exact verification
def _affine_map_at(net: ReLUNetwork, p):
    """(slope, constant) of the network on the activation region of the point p (exact)."""
    n = len(p)
    M = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]   # value = M x + v
    v = [Fraction(0)] * n
    for l, (W, b) in enumerate(zip(net.weights, net.biases)):
        M = [[sum((W[r, q] * M[q][j] for q in range(len(M))), Fraction(0)) for j in range(n)] for r in range(W.shape[0])]
        v = [sum((W[r, q] * v[q] for q in range(len(v))), Fraction(0)) + b[r] for r in range(W.shape[0])]
        if l < net.depth:
            pre = [sum((Mr[j] * p[j] for j in range(n)), Fraction(0)) + vr for Mr, vr in zip(M, v)]
            M = [Mr if z > 0 else [Fraction(0)] * n for Mr, z in zip(M, pre)]
            v = [vr if z > 0 else Fraction(0) for vr, z in zip(v, pre)]
    return tuple(M[0]), v[0]


def _arrangement_points(a, c, pairs, extra):
    """One rational interior point per cell of the arrangement {l_i = l_j : (i, j) in pairs} ∪ extra."""
    n = len(a[0])
    hyper = [(tuple(ai - aj for ai, aj in zip(a[i], a[j])), c[j] - c[i]) for i, j in pairs]
    hyper += [h for h in extra if any(v != 0 for v in h[0])]
    uniq = {}
    for h in hyper:
        scale = next(v for v in h[0] if v != 0)
        uniq.setdefault(tuple(v / scale for v in h[0]) + (h[1] / scale,), h)
    hyper = list(uniq.values())
    if not hyper:
        return [[Fraction(0)] * n]
    rows = [([float(v) for v in h[0]], float(h[1])) for h in hyper]

    def pattern_at(x):
        return tuple(int(np.dot(r, x) > beta) for r, beta in rows)

    def cell_of(pat):
        A = [[(-v if s else v) for v in h[0]] for h, s in zip(hyper, pat)]
        b = [(-h[1] if s else h[1]) for h, s in zip(hyper, pat)]
        return A, b

    start = np.full(n, 0.1234567) + np.arange(n) * 0.0371
    cells = _walk_regions(n, pattern_at, cell_of, start, "verification arrangement", 100_000)
    out = []
    for A, b in cells:
        s, x = _chebyshev(A, b)
        for den in (2**10, 2**20, 2**40):
            p = [Fraction(round(v * den), den) for v in x]
            if all(sum((Fraction(ai) * pi for ai, pi in zip(r, p)), Fraction(0)) < beta for r, beta in zip(A, b)):
                out.append(p)
                break
        else:
            raise RuntimeError("internal: no rational interior point of a verification cell")
    return out


def _exact_points(name, points, n):
    if isinstance(points, (str, bytes, dict, set)) or points is None or not hasattr(points, "__len__") \
            or (isinstance(points, np.ndarray) and points.ndim == 0):
        raise TypeError(f"{name} must be a sequence of points of R^{n}; got {type(points).__name__} {points!r:.60}")
    return [exact_vector(f"{name}[{i}]", p, length=n) for i, p in enumerate(points)]


def verify_network(net: ReLUNetwork, slopes, offsets, *, extra_points=(), seed=0):
    """Prove N = f exactly: on every cell of the arrangement of {l_i = l_j : i, j in a simplex of
    the triangulation} and the first-layer hyperplanes of N (which contains every kink of N and of
    f, for networks from this module) compare the affine maps of N and f at an interior point;
    also compare exact values at ``extra_points``.  Returns dict(cells, mismatched_cells,
    points, mismatched_points)."""
    if not isinstance(net, ReLUNetwork):
        raise TypeError(f"net must be a ReLUNetwork; got {type(net).__name__} {net!r:.60}")
    a, c, n = _pieces(slopes, offsets)
    if net.n_inputs != n or net.n_outputs != 1:
        raise ValueError(f"net must map R^{n} to R (the dimension of slopes); got a network of dims {net.dims}")
    X = _exact_points("extra_points", extra_points, n)
    # kinks of f: l_i = l_j for regions i, j adjacent, an edge of the triangulation T; kinks of
    # N: inside each term max_{i in F} only l_i = l_j with i, j in F (pairs of a simplex of T),
    # plus the first-layer hyperplanes (incl. the zero set of the carried affine part)
    simplices = _upper_hull_simplices(a, c, n, seed) if len(a) > 1 else []
    pairs = sorted({p for s in simplices for p in itertools.combinations(s, 2)})
    W0, b0 = net.weights[0], net.biases[0]
    extra = [(tuple(W0[r]), -b0[r]) for r in range(W0.shape[0])]
    pts = _arrangement_points(a, c, pairs, extra)
    bad = 0
    for p in pts:
        slope, const = _affine_map_at(net, p)
        vals = [sum((ai * pi for ai, pi in zip(aa, p)), Fraction(0)) + cc for aa, cc in zip(a, c)]
        i = max(range(len(a)), key=lambda j: vals[j])
        bad += (slope != a[i]) or (const != c[i])
    bad_pts = 0
    if X:
        out = net.evaluate(np.array(X, dtype=object))
        for p, y in zip(X, out):
            bad_pts += y[0] != max(sum((ai * pi for ai, pi in zip(aa, p)), Fraction(0)) + cc for aa, cc in zip(a, c))
    return dict(cells=len(pts), mismatched_cells=int(bad), points=len(X), mismatched_points=int(bad_pts))


def random_convex_pieces(k, n=2, *, seed=0, box=6, max_tries=200):
    """k affine pieces with integer data, each of them the maximum somewhere (a random convex f).

    Random offsets in [-box, box] first; if that keeps failing (many pieces, small n), offsets
    c_i = -|a_i|^2 + e_i with e_i in {0, 1} (lifted points near a concave paraboloid, so all of
    them lie on the upper hull). Needs k >= n + 1 (fewer slopes cannot span R^n)."""
    n = check_int("n", n, low=1, high=6)
    k = check_int("k", k, low=n + 1, high=200)
    box = check_int("box", box, low=1, high=10**6)
    max_tries = check_int("max_tries", max_tries, low=1, high=10**4)
    rng = as_generator(seed)
    for t in range(2 * max_tries):
        A = rng.integers(-box, box + 1, size=(k, n))
        if len({tuple(r) for r in A}) < k:
            continue
        if t < max_tries:
            c = rng.integers(-box, box + 1, size=k)
        else:
            c = -np.sum(A * A, axis=1) + rng.integers(0, 2, size=k)
        try:
            valuation_terms(A.tolist(), c.tolist(), seed=0)
        except ValueError:
            continue
        return A.tolist(), [int(v) for v in c]
    raise RuntimeError(f"no convex function with {k} pieces found in {2 * max_tries} tries")
