"""Symmetric ILPs, their bipartite graphs, a random-weight message-passing GNN, orbits and the Orbit / Orbit+
feature augmentations of Chen et al. (ICLR 2025, arXiv:2501.14211), "When GNNs meet symmetry in ILPs".

ILP (1): min{c^T x | A x <= b, x in Z^n}.  Definition 2: pi in S_n is a formulation symmetry when some
sigma in S_m has c[pi] = c, b[sigma] = b and A[sigma(i), pi(j)] = A[i, j]; equivalently the multiset of rows
of [A[:, pi], b] equals that of [A, b] and c[pi] = c (that is the test used by :func:`formulation_symmetries`).
Definition 3: the orbit of i is {pi(i) | pi in G}.

* :func:`bin_packing_ilp`, :func:`graph_colouring_ilp` -- formulations with interchangeable bins / colours;
* :func:`formulation_symmetries` (brute force over S_n, n <= 8) and :func:`orbits_brute_force`;
* :func:`orbits_refinement` -- colour refinement (1-WL) on the bipartite graph; its classes contain the
  orbits, and on the instances here they coincide (checked in the tests and validations);
* :func:`gnn_forward` -- a bipartite message-passing GNN (half-layers constraint <- variable <- constraint,
  tanh, sum aggregation weighted by A_ij) with random float64 weights (:func:`random_gnn`): equivariant to
  variable permutations and invariant to constraint permutations (Assumption 1);
* :func:`orbit_features` (Algorithm 1: without-replacement labels 1..|O_k| on each orbit of size >= 2),
  :func:`orbit_plus_features` (one draw per class of column-coupled orbits, copied along the coupling),
  :func:`coupled_classes`, :func:`enumerate_orbit_features`, :func:`enumerate_orbit_plus_features`;
* :func:`cardinalities` -- c_p = n!, c_o = prod_k |O_k|!, and c_{o+} in the reading stated below.

Orbit+ cardinality, the reading used (errata): the paper writes c_{o+} = (|O_p|!)...(|O_K|!) with ambiguous
indices.  Read here as: every class of p >= 1 column-coupled orbits of common size c contributes c! once
(the features are drawn for one orbit and copied), so c_{o+} = prod over classes of c_class!; an uncoupled
orbit is a class of its own and contributes |O_k|!.  Orbits of size 1 contribute 1! = 1 in every formula.
This reading is checked by enumerating the distinct vectors z the procedure can produce.

One jitted kernel (_kernels_ilp_orbits.symmetry_mask): the brute-force symmetry test over all of S_n;
the rest is small dense linear algebra in numpy.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from theorylab.core.seeding import as_generator
from theorylab.exact import _kernels_ilp_orbits as K
from theorylab.core.validate import check_array, check_budget, check_int, check_real

__all__ = ["bin_packing_ilp", "graph_colouring_ilp", "check_ilp", "formulation_symmetries", "formulation_symmetries_numpy",
           "orbits_brute_force", "orbits_refinement", "random_gnn", "gnn_forward", "orbit_features",
           "orbit_plus_features", "coupled_classes", "enumerate_orbit_features",
           "enumerate_orbit_plus_features", "cardinalities", "permute_ilp", "constrained_lstsq_min"]

MAX_BRUTE_N = 9


def check_ilp(A, b, c):
    """Validate an ILP (A, b, c): A (m, n) finite, b (m,), c (n,); returns float64 copies."""
    A = check_array("A", A, ndim=2)
    m, n = A.shape
    if m < 1 or n < 1:
        raise ValueError(f"A must have at least one row and one column; got shape {A.shape}")
    b = check_array("b", b, ndim=1)
    c = check_array("c", c, ndim=1)
    if b.shape[0] != m:
        raise ValueError(f"b must have length m = A.shape[0] = {m}; got {b.shape[0]}")
    if c.shape[0] != n:
        raise ValueError(f"c must have length n = A.shape[1] = {n}; got {c.shape[0]}")
    check_budget("the ILP matrix", m * n, m=m, n=n)
    return A, b, c


def bin_packing_ilp(weights=(3.0, 5.0), n_bins=3, capacity=8.0):
    """Bin-packing assignment ILP with interchangeable bins: x_{ij} = item i in bin j (index i*n_bins + j).

    Constraints (as A x <= b): sum_j x_ij <= 1 and -sum_j x_ij <= -1 (each item placed once) and
    sum_i w_i x_ij <= capacity (each bin).  Objective c_ij = w_i (independent of the bin).  The bins are
    interchangeable, so S_{n_bins} permuting the bin index is a group of formulation symmetries."""
    w = check_array("weights", weights, ndim=1)
    if w.size < 1:
        raise ValueError("weights must hold at least one item weight; got an empty array")
    k = check_int("n_bins", n_bins, low=1, high=64)
    cap = check_real("capacity", capacity, low=0.0)
    I = w.size
    n = I * k
    check_budget("the bin-packing ILP", (2 * I + k) * n, items=I, n_bins=k)
    A = np.zeros((2 * I + k, n))
    b = np.zeros(2 * I + k)
    for i in range(I):
        A[2 * i, i * k:(i + 1) * k] = 1.0
        A[2 * i + 1, i * k:(i + 1) * k] = -1.0
        b[2 * i], b[2 * i + 1] = 1.0, -1.0
    for j in range(k):
        A[2 * I + j, np.arange(I) * k + j] = w
        b[2 * I + j] = cap
    c = np.repeat(w, k)
    return A, b, c


def graph_colouring_ilp(edges=((0, 1), (1, 2)), n_vertices=3, n_colours=2):
    """Graph-colouring feasibility ILP with interchangeable colours: x_{vc} (index v*n_colours + c).

    Constraints: sum_c x_vc <= 1, -sum_c x_vc <= -1, and x_uc + x_vc <= 1 for every edge and colour.
    Objective c_vc = v + 1 (vertex-dependent, colour-independent), so only colour permutations (and the
    graph automorphisms preserving the vertex weights: none for distinct weights) remain."""
    V = check_int("n_vertices", n_vertices, low=1, high=64)
    k = check_int("n_colours", n_colours, low=1, high=64)
    if isinstance(edges, (str, bytes)) or not hasattr(edges, "__len__"):
        raise TypeError(f"edges must be a sequence of vertex pairs (i, j); got {edges!r}"[:200])
    E = check_array("edges", edges, dtype=np.int64) if len(edges) else np.zeros((0, 2), np.int64)
    if E.size and (E.ndim != 2 or E.shape[1] != 2):
        raise ValueError(f"edges must be a sequence of vertex pairs (i, j), shape (m, 2); got shape {E.shape}")
    if E.size and (E.min() < 0 or E.max() >= V or np.any(E[:, 0] == E[:, 1])):
        raise ValueError(f"edges must be pairs of distinct vertices in [0, {V}); got {edges!r}")
    n = V * k
    rows, rhs = [], []
    for v in range(V):
        r = np.zeros(n); r[v * k:(v + 1) * k] = 1.0
        rows += [r, -r]; rhs += [1.0, -1.0]
    for u, v in E:
        for col in range(k):
            r = np.zeros(n); r[u * k + col] = 1.0; r[v * k + col] = 1.0
            rows.append(r); rhs.append(1.0)
    c = np.repeat(np.arange(1.0, V + 1.0), k)
    return np.array(rows), np.array(rhs), c


def _row_key(M):
    return M[np.lexsort(M.T[::-1])]


def formulation_symmetries(A, b, c):
    """All formulation symmetries pi (Definition 2) by brute force over S_n (n <= 9): an array (|G|, n) of
    permutations, pi[j] = image of j (the variable at j moves to pi[j]).  The test: c[pi] = c and the row
    multiset of [A[:, pi^-1], b] equals that of [A, b] (sigma exists iff the row multisets agree)."""
    A, b, c = check_ilp(A, b, c)
    n = A.shape[1]
    if n > MAX_BRUTE_N:
        raise ValueError(f"brute force needs n <= {MAX_BRUTE_N} variables; got n = {n} (use orbits_refinement)")
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64)
    mask = np.zeros(perms.shape[0], dtype=np.int64)
    K.symmetry_mask(A, b, c, perms, mask)
    return perms[mask == 1]


def formulation_symmetries_numpy(A, b, c):
    """The numpy reference of :func:`formulation_symmetries` (lexicographically sorted row multisets)."""
    A, b, c = check_ilp(A, b, c)
    n = A.shape[1]
    if n > MAX_BRUTE_N:
        raise ValueError(f"brute force needs n <= {MAX_BRUTE_N} variables; got n = {n} (use orbits_refinement)")
    M = np.column_stack([A, b])
    ref = _row_key(M)
    out = []
    for p in itertools.permutations(range(n)):
        p = np.array(p)
        if not np.array_equal(c[p], c):
            continue
        Mp = np.column_stack([A[:, p], b])          # column j of the new matrix is old column p[j]
        if np.array_equal(_row_key(Mp), ref):
            out.append(p)
    return np.array(out, dtype=np.int64)


def _orbits_from_group(G, n):
    label = -np.ones(n, dtype=np.int64)
    orbits = []
    for i in range(n):
        if label[i] >= 0:
            continue
        O = sorted(set(int(g[i]) for g in G))
        for j in O:
            label[j] = len(orbits)
        orbits.append(O)
    return orbits


def orbits_brute_force(A, b, c):
    """Orbits of the formulation symmetry group (Definition 3), from :func:`formulation_symmetries`:
    a list of sorted index lists partitioning {0..n-1}."""
    G = formulation_symmetries(A, b, c)
    return _orbits_from_group(G, A.shape[1] if hasattr(A, "shape") else np.asarray(A).shape[1])


def orbits_refinement(A, b, c, *, max_rounds=None):
    """Colour refinement (1-WL) of the weighted bipartite graph: variables start coloured by c_j,
    constraints by b_i; each round a node's new colour is (its colour, sorted multiset of (A_ij, neighbour
    colour)).  The stable variable classes contain the orbits (refinement is isomorphism-invariant); they
    may be coarser in general, and coincide on the instances of this module.  Returns sorted index lists."""
    A, b, c = check_ilp(A, b, c)
    m, n = A.shape
    rounds = m + n + 1 if max_rounds is None else check_int("max_rounds", max_rounds, low=1, high=10 ** 6)

    def relabel(keys):
        u = {k: t for t, k in enumerate(sorted(set(keys)))}
        return np.array([u[k] for k in keys], dtype=np.int64)

    cv = relabel([float(x) for x in c])
    cw = relabel([float(x) for x in b])
    nz = [np.nonzero(A[i])[0] for i in range(m)]
    nzT = [np.nonzero(A[:, j])[0] for j in range(n)]
    for _ in range(rounds):
        cw_new = relabel([(int(cw[i]), tuple(sorted((float(A[i, j]), int(cv[j])) for j in nz[i]))) for i in range(m)])
        cv_new = relabel([(int(cv[j]), tuple(sorted((float(A[i, j]), int(cw_new[i])) for i in nzT[j]))) for j in range(n)])
        stable = len(set(cv_new)) == len(set(cv)) and len(set(cw_new)) == len(set(cw))
        cv, cw = cv_new, cw_new
        if stable:
            break
    groups = {}
    for j in range(n):
        groups.setdefault(int(cv[j]), []).append(j)
    return sorted(groups.values())


def _check_perm(name, p, n):
    arr = np.asarray(p) if isinstance(p, (list, tuple, np.ndarray)) else None
    if arr is None or arr.ndim != 1 or arr.dtype.kind not in "iu" or arr.size != n \
            or sorted(arr.tolist()) != list(range(n)):
        raise ValueError(f"{name} must be a permutation of range({n}) (an integer array); got {p!r:.80}")
    return arr.astype(np.int64)


def permute_ilp(A, b, c, pi, sigma, z=None):
    """The ILP with variables permuted by pi (variable j moves to position pi[j]) and constraints by sigma:
    A'[sigma[i], pi[j]] = A[i, j], b'[sigma[i]] = b[i], c'[pi[j]] = c[j] (and z likewise)."""
    A, b, c = check_ilp(A, b, c)
    m, n = A.shape
    pi = _check_perm("pi", pi, n)
    sigma = _check_perm("sigma", sigma, m)
    A2 = np.empty_like(A); A2[np.ix_(sigma, pi)] = A
    b2 = np.empty_like(b); b2[sigma] = b
    c2 = np.empty_like(c); c2[pi] = c
    if z is None:
        return A2, b2, c2
    z = check_array("z", z, shape=(n,))
    z2 = np.empty_like(z); z2[pi] = z
    return A2, b2, c2, z2


def random_gnn(*, width=16, layers=4, in_v=2, in_w=1, seed=0):
    """Random float64 weights of the bipartite GNN: ``layers`` half-layers alternating constraint-update and
    variable-update (4 as in the spec, i.e. 2 rounds), width ``width``, a linear read-out."""
    d = check_int("width", width, low=1, high=1024)
    L = check_int("layers", layers, low=2, high=64)
    if L % 2:
        raise ValueError(f"layers must be even (constraint and variable half-layers alternate); got {layers}")
    in_v = check_int("in_v", in_v, low=1, high=64)
    in_w = check_int("in_w", in_w, low=1, high=64)
    rng = as_generator(seed)
    s = 1.0 / np.sqrt(d)
    p = {"Ev": rng.standard_normal((in_v, d)), "Ew": rng.standard_normal((in_w, d)),
         "U": [rng.standard_normal((d, d)) * s for _ in range(L)],
         "W": [rng.standard_normal((d, d)) * s for _ in range(L)],
         "beta": [rng.standard_normal(d) * 0.1 for _ in range(L)],
         "out": rng.standard_normal(d) * s, "layers": L}
    return p


def _check_gnn(params):
    """The weights of :func:`random_gnn`: a dict with Ev (2, d), Ew (1, d), ``layers`` L (even >= 2),
    U and W (L matrices (d, d)), beta (L vectors (d,)) and out (d,), all finite."""
    want = "a dict of GNN weights from random_gnn (keys Ev, Ew, U, W, beta, out, layers)"
    if not isinstance(params, dict):
        raise TypeError(f"params must be {want}; got {type(params).__name__} {params!r:.60}")
    missing = [k for k in ("Ev", "Ew", "U", "W", "beta", "out", "layers") if k not in params]
    if missing:
        raise ValueError(f"params must be {want}; missing {missing}")
    L = check_int("params['layers']", params["layers"], low=2, high=64)
    if L % 2:
        raise ValueError(f"params['layers'] must be even; got {L}")
    Ev = check_array("params['Ev']", params["Ev"], shape=(2, None))  # variable features [c_j, z_j]
    d = Ev.shape[1]
    out = {"Ev": Ev, "Ew": check_array("params['Ew']", params["Ew"], shape=(1, d)),  # constraint feature b_i
           "out": check_array("params['out']", params["out"], shape=(d,)), "layers": L}
    for key, shape in (("U", (d, d)), ("W", (d, d)), ("beta", (d,))):
        seq = params[key]
        if isinstance(seq, (str, bytes, dict)) or not hasattr(seq, "__len__") or len(seq) < L:
            raise ValueError(f"params['{key}'] must be a list of {L} arrays of shape {shape}; got {seq!r:.60}")
        out[key] = [check_array(f"params['{key}'][{l}]", seq[l], shape=shape) for l in range(L)]
    return out


def gnn_forward(params, A, b, c, z=None):
    """f_theta(A~): per-variable scalar outputs (n,).  Variable features [c_j, z_j] (z = 0 if None),
    constraint features [b_i], each scaled by its max |.| (and A by max |A_ij|) so that tanh does not
    saturate on large instances; half-layer 2l: h_w <- tanh(h_w U + (A h_v / deg) W + beta), half-layer
    2l+1: h_v <- tanh(h_v U + (A^T h_w / deg) W + beta); output h_v . out.  Degree-normalised sums over
    neighbours make it equivariant in the variables and invariant in the constraints (Assumption 1)."""
    params = _check_gnn(params)
    A, b, c = check_ilp(A, b, c)
    n = A.shape[1]
    z = np.zeros(n) if z is None else check_array("z", z, ndim=1)
    if z.shape[0] != n:
        raise ValueError(f"z must have length n = {n}; got {z.shape[0]}")
    def unit(v):
        s = np.max(np.abs(v))
        return v / s if s > 0 else v

    An = unit(A)
    deg_w = np.maximum(np.count_nonzero(A, axis=1), 1)[:, None]
    deg_v = np.maximum(np.count_nonzero(A, axis=0), 1)[:, None]
    hv = np.column_stack([unit(c), unit(z)]) @ params["Ev"]
    hw = unit(b)[:, None] @ params["Ew"]
    for l in range(params["layers"]):
        if l % 2 == 0:
            hw = np.tanh(hw @ params["U"][l] + (An @ hv / deg_w) @ params["W"][l] + params["beta"][l])
        else:
            hv = np.tanh(hv @ params["U"][l] + (An.T @ hw / deg_v) @ params["W"][l] + params["beta"][l])
    return hv @ params["out"]


def _check_orbits(orbits, n=None, name="orbits"):
    bad = ValueError(f"{name} must be a list of lists of variable indices partitioning range(n); got {orbits!r}")
    if isinstance(orbits, (str, bytes)) or not hasattr(orbits, "__iter__"):
        raise bad
    flat = []
    for O in orbits:
        if isinstance(O, (str, bytes)) or not hasattr(O, "__iter__"):
            raise bad
        for j in O:
            if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)):
                raise bad
            flat.append(int(j))
    if len(flat) > 10 ** 6:
        raise ValueError(f"{name} must cover at most 10**6 variables; got {len(flat)}")
    if not flat:
        raise ValueError(f"{name} must partition range(n) for some n >= 1; got no variable in {orbits!r:.60}")
    flat.sort()
    n = len(flat) if n is None else n
    if flat != list(range(n)):
        raise ValueError(f"orbits must partition range({n}); got {orbits!r}")
    return [list(map(int, O)) for O in orbits]


def orbit_features(orbits, *, seed=0):
    """Algorithm 1 (Orbit): z = 0; on each orbit O_k with |O_k| >= 2 the labels 1..|O_k| without
    replacement, in a uniformly random order."""
    orbits = _check_orbits(orbits)
    n = sum(len(O) for O in orbits)
    rng = as_generator(seed)
    z = np.zeros(n)
    for O in orbits:
        if len(O) >= 2:
            z[O] = rng.permutation(len(O)) + 1.0
    return z


def _check_group(G, n):
    arr = np.asarray(G) if isinstance(G, (list, tuple, np.ndarray)) else None
    if arr is None or arr.ndim != 2 or arr.shape[1] != n or arr.shape[0] < 1 or arr.dtype.kind not in "iu":
        raise ValueError(f"G must be an integer array (|G|, n = {n}) of permutations (rows of "
                         f"formulation_symmetries); got {G!r:.80}")
    if arr.shape[0] > 10 ** 6:
        raise ValueError(f"G must hold at most 10**6 permutations; got {arr.shape[0]}")
    if not np.array_equal(np.sort(arr, axis=1), np.broadcast_to(np.arange(n), arr.shape)):
        raise ValueError(f"G must hold permutations of range({n}) in its rows")
    return arr.astype(np.int64)


def coupled_classes(orbits, G):
    """Classes of column-coupled orbits: orbits O_a, O_b of equal size are coupled when a bijection
    phi: O_a -> O_b commutes with every symmetry (pi(phi(i)) = phi(pi(i))), found as the relation
    {(pi(i0), pi(j)) : pi in G} for a reference i0 in O_a being a bijection for some j in O_b.
    Returns a list of (list of orbit indices, list of maps phi_t as dicts from O_first to O_t)."""
    orbits = _check_orbits(orbits)
    G = _check_group(G, sum(len(O) for O in orbits))
    used = [False] * len(orbits)
    classes = []
    for a, Oa in enumerate(orbits):
        if used[a]:
            continue
        used[a] = True
        members, maps = [a], [{i: i for i in Oa}]
        if len(Oa) >= 2:
            i0 = Oa[0]
            for bidx in range(a + 1, len(orbits)):
                Ob = orbits[bidx]
                if used[bidx] or len(Ob) != len(Oa):
                    continue
                for j in Ob:
                    rel = {}
                    ok = True
                    for g in G:
                        x, y = int(g[i0]), int(g[j])
                        if rel.setdefault(x, y) != y:
                            ok = False
                            break
                    if ok and len(set(rel.values())) == len(Oa):
                        members.append(bidx); maps.append(rel); used[bidx] = True
                        break
        classes.append((members, maps))
    return classes


def orbit_plus_features(orbits, G, *, seed=0):
    """Orbit+: labels drawn as in Algorithm 1 for the first orbit of each coupled class and copied along
    the coupling maps to the other orbits of the class."""
    orbits = _check_orbits(orbits)
    rng = as_generator(seed)
    n = sum(len(O) for O in orbits)
    z = np.zeros(n)
    for members, maps in coupled_classes(orbits, G):
        O = orbits[members[0]]
        if len(O) < 2:
            continue
        lab = rng.permutation(len(O)) + 1.0
        for phi in maps:
            for t, i in enumerate(O):
                z[phi[i]] = lab[t]
    return z


def _enum(blocks, n, limit):
    total = 1
    for O, _ in blocks:
        total *= math.factorial(len(O))
    if total > limit:
        raise ValueError(f"enumeration would produce {total} vectors, more than limit = {limit}")
    seen = set()
    choices = [list(itertools.permutations(range(1, len(O) + 1))) for O, _ in blocks]
    for combo in itertools.product(*choices):
        z = [0] * n
        for (O, maps), lab in zip(blocks, combo):
            for phi in maps:
                for t, i in enumerate(O):
                    z[phi[i]] = lab[t]
        seen.add(tuple(z))
    return seen


def enumerate_orbit_features(orbits, *, limit=10 ** 6):
    """Every distinct z Algorithm 1 can produce (a set of integer tuples), by enumerating the
    without-replacement draws orbit by orbit."""
    orbits = _check_orbits(orbits)
    n = sum(len(O) for O in orbits)
    blocks = [(O, [{i: i for i in O}]) for O in orbits if len(O) >= 2]
    return _enum(blocks, n, check_int("limit", limit, low=1, high=10 ** 8))


def enumerate_orbit_plus_features(orbits, G, *, limit=10 ** 6):
    """Every distinct z Orbit+ can produce."""
    orbits = _check_orbits(orbits)
    n = sum(len(O) for O in orbits)
    blocks = [(orbits[mem[0]], maps) for mem, maps in coupled_classes(orbits, G) if len(orbits[mem[0]]) >= 2]
    return _enum(blocks, n, check_int("limit", limit, low=1, high=10 ** 8))


def cardinalities(orbits, G=None):
    """Closed forms (section 4.3.2): c_p = n!, c_o = prod_k |O_k|!, c_{o+} = prod over coupled classes of
    (common size)! (the reading in the module docstring; needs G).  Python ints (exact)."""
    orbits = _check_orbits(orbits)
    n = sum(len(O) for O in orbits)
    out = {"position": math.factorial(n), "orbit": math.prod(math.factorial(len(O)) for O in orbits)}
    if G is not None:
        out["orbit_plus"] = math.prod(math.factorial(len(orbits[mem[0]])) for mem, _ in coupled_classes(orbits, G))
    return out


def constrained_lstsq_min(x_bar, x_bar2, pi):
    """Proposition 2, constructive: two isomorphic training instances with z' = pi(z).  Any f obeying
    Assumption 1 has f(A~') = pi(f(A~)), so the outputs are one free vector y in R^n and the training loss
    is |y - x_bar|^2 + |P_pi y - x_bar2|^2.  Returns the least-squares minimum (numpy lstsq on [I; P_pi])
    and the closed form |x_bar - P_pi^{-1} x_bar2|^2 / 2 ([derived]); it is 0 iff x_bar2 = pi(x_bar)."""
    x1 = check_array("x_bar", x_bar, ndim=1)
    x2 = check_array("x_bar2", x_bar2, ndim=1)
    n = x1.size
    if x2.size != n:
        raise ValueError(f"x_bar2 must have the length of x_bar, {n}; got {x2.size}")
    check_budget("the least-squares system", 2 * n * n, n=n)
    pi = _check_perm("pi", pi, n)
    P = np.zeros((n, n)); P[pi, np.arange(n)] = 1.0       # (P y)[pi[j]] = y[j]
    M = np.vstack([np.eye(n), P])
    t = np.concatenate([x1, x2])
    y, *_ = np.linalg.lstsq(M, t, rcond=None)
    lsq = float(np.sum((M @ y - t) ** 2))
    closed = float(np.sum((x1 - x2[pi]) ** 2) / 2)
    return lsq, closed
