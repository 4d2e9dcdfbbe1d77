"""Experiment drivers behind the cpwl_decomp checks: instance suites and per-instance checks.

Each function returns a tidy DataFrame (one row per instance or test point) with exact
pass/fail columns, so a claim only aggregates.  Instances use small integer data, so every
verdict is decided in exact rational arithmetic except the LP reducibility test (HiGHS).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from theorylab.core.seeding import as_generator, child_seed
from theorylab.core.validate import check_int

from .complexes import arrangement_complex, braid_fan, max_affine_complex, planar_fan, relu_network_complex
from .functions import CPWLFunction, is_submodular, lovasz_extension, relu_1d, set_function_of
from .polyhedron import DecompositionPolyhedron, lambda_space, naive_decomposition
from .random import four_ray_fan, hexagon_fan, random_planar_fan, random_ray_values, random_set_function


def _fan_instances(n_random, seed, sizes=(4, 5, 6, 7, 8)):
    out = []
    fans = [hexagon_fan(), four_ray_fan()] + [random_planar_fan(m, seed=child_seed(seed, "fan", m)) for m in sizes]
    for fan in fans:
        for r in range(n_random):
            vals = random_ray_values(fan, seed=child_seed(seed, fan.name, r))
            out.append((fan.name, CPWLFunction.from_ray_values(fan, vals)))
    return out


def _other_instances(n_random, seed):
    """1-D, braid fan n = 3, a ReLU-network complex and a max-affine refinement."""
    rng = as_generator(child_seed(seed, "other"))
    out = []
    B3 = braid_fan(3)
    relu = relu_network_complex([[[1, 0], [0, 1], [1, 1]], [[1, -1, 1]]], [[0, 0, -1], [0]])
    maxaff = max_affine_complex(([[1, 0], [0, 1], [-1, -1]], [0, 0, 0]), ([[1, 1], [0, 0]], [0, 1]))
    arr = arrangement_complex([[1, 0], [0, 1], [1, -1], [1, 1]], [0, 0, 1, 0])
    for r in range(n_random):
        k = int(rng.integers(2, 6))
        b = sorted(rng.choice(np.arange(-6, 7), size=k, replace=False).tolist())
        out.append(("line", relu_1d(b, rng.integers(-3, 4, size=k).tolist(), slope=int(rng.integers(-2, 3)))))
        out.append(("braid fan(n=3)", lovasz_extension(B3, random_set_function(3, seed=child_seed(seed, "F3", r)))))
        for name, cx in (("ReLU regions", relu), ("max-affine regions", maxaff), ("arrangement", arr)):
            out.append((name, _random_function(cx, rng)))
    return out


def _random_function(cx, rng):
    """A random integer-bend function on a complex: integer combination of the basis of im lambda."""
    from .polyhedron import lambda_space

    sp = lambda_space(cx)
    coef = rng.integers(-2, 3, size=sp.d)
    bends = [sum(int(c) * row[j] for j, c in enumerate(coef)) for row in sp.L]
    return sp.function_from_bends(bends)


def instance_suite(n_random, seed):
    """(label, f) pairs over several complexes: planar fans of 4..8 rays (incl. the hexagon and a
    4-ray fan), 1-D, braid fan n = 3, a ReLU-network complex, a max-affine refinement, an arrangement."""
    n_random = check_int("n_random", n_random, low=1)
    return _fan_instances(n_random, seed) + _other_instances(max(1, n_random // 2), seed)


# ---------------------------------------------------------------------------------------
def check_translated_cones(instances) -> pd.DataFrame:
    """Per instance: pointedness, validity of every vertex, rec(D) = V_P^+, two-cone form = max form,
    and agreement of the three vertex enumerators (exact DD, numba bases, LP reference)."""
    from . import _dd

    rows = []
    for label, f in instances:
        D = DecompositionPolyhedron(f)
        V, R = D.vrep()
        valid = 0
        for v in V:
            dec = D.decomposition(v)
            valid += dec.g.is_convex() and dec.h.is_convex() and (dec.g - dec.h).equals(f)
        rec_ok = sorted(R) == D.recession_rays()
        if D.d:
            rays2 = _dd.extreme_rays(D._homogenised(D.inequalities("cones")))
            V2 = sorted(tuple(Fraction(x, r[-1]) for x in r[:-1]) for r, _ in rays2 if r[-1] > 0)
        else:
            V2 = V
        Vn = D.vrep("numba")[0] if D.d else V
        lp = D.vertices_lp(60, seed=0) if D.d else [()]
        lp_in = all(any(np.allclose(p, [float(x) for x in v], atol=1e-6) for v in V) for p in lp)
        pointed = len(D.L) == 0 or _rank_int(D.L) == D.d
        rows.append(dict(complex=label, d=D.d, walls=D.n_walls, vertices=len(V), rays=len(R), pointed=pointed,
                         valid_vertices=valid, rec_cone_equal=rec_ok, cones_form_equal=V2 == V,
                         numba_equal=Vn == V, lp_vertices_found=len(lp), lp_subset=lp_in))
    df = pd.DataFrame(rows)
    df["ok"] = (df.pointed & (df.valid_vertices == df.vertices) & df.rec_cone_equal & df.cones_form_equal
                & df.numba_equal & df.lp_subset)
    return df


def _rank_int(L):
    from theorylab.core.exact import rank

    return rank([[Fraction(v) for v in r] for r in L])


def check_irreducible(instances, *, points_per_instance, seed) -> pd.DataFrame:
    """LP reducibility test vs the exact bounded-face test on vertices, edge midpoints, random
    face points and vertex + ray points."""
    rng = as_generator(seed)
    rows = []
    for i, (label, f) in enumerate(instances):
        D = DecompositionPolyhedron(f)
        V, R = D.vrep()
        pts = [("vertex", v) for v in V]
        for y in D.sample_points(points_per_instance, seed=child_seed(seed, i)):
            pts.append(("sample", y))
        if len(V) >= 2:
            for _ in range(2):
                a, b = rng.choice(len(V), size=2, replace=False)
                pts.append(("vertex midpoint", tuple((x + z) / 2 for x, z in zip(V[a], V[b]))))
        for r in R[:2]:
            pts.append(("vertex + ray", tuple(x + z for x, z in zip(V[0], r))))
        for kind, y in pts:
            lp = D.is_irreducible_lp(y)
            face = D.is_bounded_face_point(y)
            rows.append(dict(complex=label, instance=i, kind=kind, lp_irreducible=lp, bounded_face=face,
                             agree=lp == face))
    return pd.DataFrame(rows)


def check_minimal_vertices(instances, *, samples_per_instance, seed) -> pd.DataFrame:
    """Per instance: best vertex piece count vs the best among random points of D (on faces too)."""
    rows = []
    for i, (label, f) in enumerate(instances):
        D = DecompositionPolyhedron(f)
        mins, table = D.minimal_decompositions()
        best_vertex = int(table.total_pieces.min())
        pts = D.sample_points(samples_per_instance, seed=child_seed(seed, i))
        counts = D.piece_counts(pts).sum(axis=1) if pts else np.array([best_vertex])
        naive = naive_decomposition(f).total_pieces
        rows.append(dict(complex=label, instance=i, vertices=len(table), best_vertex=best_vertex,
                         best_sample=int(counts.min()), n_samples=len(pts),
                         samples_below_vertex=int((counts < best_vertex).sum()), naive=naive,
                         f_pieces=f.n_pieces(), n_minimal=len(mins)))
    return pd.DataFrame(rows)


def check_unique_1d(n_instances, seed) -> pd.DataFrame:
    """1-D f = slope*x + sum s_i ReLU(x - b_i): D has one vertex, the positive/negative split."""
    rng = as_generator(seed)
    rows = []
    for r in range(n_instances):
        k = int(rng.integers(1, 7))
        b = sorted(rng.choice(np.arange(-8, 9), size=k, replace=False).tolist())
        s = [int(v) if v != 0 else 1 for v in rng.integers(-4, 5, size=k)]
        f = relu_1d(b, s, slope=int(rng.integers(-2, 3)))
        D = DecompositionPolyhedron(f)
        V, _ = D.vrep()
        g_split = relu_1d(b, [max(v, 0) for v in s])
        h_split = relu_1d(b, [max(-v, 0) for v in s])
        dec = D.decomposition(V[0])
        grid = [Fraction(x, 2) for x in range(-20, 21)]
        same = all(dec.g.bends[t] == g_split.bends[t] and dec.h.bends[t] == h_split.bends[t] for t in range(k))
        exact = all(dec.g([x]) - dec.h([x]) == f([x]) for x in grid)
        rows.append(dict(instance=r, breakpoints=k, vertices=len(V), equals_split=same, exact_on_grid=exact,
                         pieces_g=dec.g.n_pieces(), pieces_h=dec.h.n_pieces(), ok=len(V) == 1 and same and exact))
    return pd.DataFrame(rows)


def check_realizability(n_instances, seed, *, sizes=(5, 6, 7, 8)) -> pd.DataFrame:
    """2-D fans: 'unique vertex' vs the criterion max(0, lambda(f)) in im(lambda)."""
    rows = []
    fans = [hexagon_fan()] + [random_planar_fan(m, seed=child_seed(seed, "rfan", m)) for m in sizes]
    # two fixed instances first (instance = -1), so that every seed sees both directions: the concave
    # f = -1 at the hexagon's rays (max(0, lambda f) = 0 is realizable: one vertex) and the documented
    # counterexample to the converse (5-ray fan, lambda(f) = [4, -6, 11/3, 5/3, -1]: one vertex, criterion false)
    cx5 = planar_fan([(1, 0), (1, 2), (1, 3), (-1, 0), (0, -1)], name="5-ray fan (converse counterexample)")
    fixed = [(fans[0], CPWLFunction.from_ray_values(fans[0], [-1] * 6)),
             (cx5, lambda_space(cx5).function_from_bends([4, -6, Fraction(11, 3), Fraction(5, 3), -1]))]
    cases = [(fan, -1, f) for fan, f in fixed]
    cases += [(fan, r, None) for fan in fans for r in range(n_instances)]
    for fan, r, f in cases:
        if f is None:
            f = CPWLFunction.from_ray_values(fan, random_ray_values(fan, seed=child_seed(seed, fan.name, "u", r)))
        D = DecompositionPolyhedron(f)
        nv = len(D.vrep()[0])
        crit = D.unique_vertex_by_realizability()
        rec = D.recession_rays()
        rows.append(dict(complex=fan.name, rays=str(fan.rays), instance=r, vertices=nv, criterion=crit,
                         agree=crit == (nv == 1), convex_cone_simplicial=len(rec) == D.d,
                         bends_f=str([str(v) for v in D.lam_f])))
    return pd.DataFrame(rows)


def median_function():
    """median(0, x1, x2) on the arrangement x1 = 0, x2 = 0, x1 = x2."""
    cx = arrangement_complex([[1, 0], [0, 1], [1, -1]], name="arrangement x1=0, x2=0, x1=x2")
    return CPWLFunction.from_function(cx, lambda x: sorted([Fraction(0), x[0], x[1]])[1])


def check_submodular(n_instances, seed, *, ns=(3, 4)) -> pd.DataFrame:
    """Braid fan: convex Lovász extension <=> submodular; every vertex of D gives G, H submodular, G - H = F."""
    rows = []
    for n in ns:
        B = braid_fan(n)
        for r in range(n_instances):
            F = random_set_function(n, seed=child_seed(seed, n, r), low=-2, high=2)
            if r % 3 == 0:  # make some instances submodular: F = -(sum over pairs) + modular
                rng = as_generator(child_seed(seed, n, r, "sub"))
                w = rng.integers(0, 3, size=(n, n))
                F = [0] + [int(-sum(w[i, j] for i in range(n) for j in range(i + 1, n) if (S >> i) & 1 and (S >> j) & 1))
                           for S in range(1, 1 << n)]
            f = lovasz_extension(B, F)
            sub = is_submodular([Fraction(v) for v in F], n)
            D = DecompositionPolyhedron(f)
            V, R = D.vrep()
            ok_vertices = 0
            for v in V:
                dec = D.decomposition(v)
                G, H = set_function_of(dec.g), set_function_of(dec.h)
                ok_vertices += (is_submodular(G, n) and is_submodular(H, n)
                                and all(a - b == Fraction(c) for a, b, c in zip(G, H, F)))
            rows.append(dict(n=n, instance=r, submodular=sub, convex=f.is_convex(), agree=sub == f.is_convex(),
                             d=D.d, expected_d=(1 << n) - 1 - n, vertices=len(V), rays=len(R), ok_vertices=ok_vertices))
    df = pd.DataFrame(rows)
    df["ok"] = df.agree & (df.d == df.expected_d) & (df.ok_vertices == df.vertices)
    return df


# ---------------------------------------------------------------------------------------
# Tran & Wang (issue #6 check 5; our reconstruction, see theorylab.cpwl.tran_wang)
TW_EXAMPLE_3D = dict(rays=[(-2, -2, -1), (-1, -2, -2), (0, 0, -1), (0, 1, 1), (1, 0, -1), (1, 1, 2), (2, -2, 1),
                           (2, 0, 1)],
                     values=[-1, 0, 2, 0, 1, 2, -2, 2])
"""Input data of a 3-D instance found by the random search of :func:`check_tran_wang` (seed 0 of
the exploration, fan of 8 rays); the check recomputes everything about it."""


def _tw_row(dim, label, f):
    from .tran_wang import canonical_decomposition_2d, edge_length, tran_wang_decomposition

    D = DecompositionPolyhedron(f)
    tw, ties = tran_wang_decomposition(f, D)
    mins, table = D.minimal_decompositions()
    best = mins[0]
    row = dict(dim=dim, instance=label, walls=D.n_walls, vertices=len(table), tw_pieces=tw.total_pieces,
               tw_split=f"{tw.pieces[0]}+{tw.pieces[1]}", min_pieces=best.total_pieces,
               min_split=f"{best.pieces[0]}+{best.pieces[1]}", tw_length=edge_length(D, tw.y),
               min_vertex_length=min(edge_length(D, m.y) for m in mins), ties=ties,
               tw_minimal=tw.total_pieces == best.total_pieces)
    if dim == 2:
        can = canonical_decomposition_2d(f, D)
        row.update(canonical_pieces=can.total_pieces, canonical_is_tw=can.y == tw.y)
    return row


def check_tran_wang(n_2d, n_3d, seed, *, sizes_2d=(4, 5, 6, 7), sizes_3d=(7, 8)) -> pd.DataFrame:
    """2-D: on random planar fans refined by the closing ray, the exact Tran & Wang canonical
    decomposition equals the least-edge-length vertex of D_P(f) and has the fewest pieces.
    3-D: the least-edge-length vertex vs the best vertex on the fixed example and on random
    fans over integer polytopes (``n_3d`` functions per fan size)."""
    from .complexes import polytope_fan
    from .random import random_polytope_fan
    from .tran_wang import refine_with_closing_ray

    rows = []
    for m in sizes_2d:
        fan = random_planar_fan(m, seed=child_seed(seed, "tw2", m))
        for r in range(n_2d):
            vals = random_ray_values(fan, seed=child_seed(seed, "tw2", m, r))
            F, v2 = refine_with_closing_ray(fan, vals)
            f = CPWLFunction.from_ray_values(F, v2)
            rows.append(_tw_row(2, f"{m} rays #{r}", f))
    fan = polytope_fan(TW_EXAMPLE_3D["rays"], name="example 3-D fan")
    rows.append(_tw_row(3, "example", CPWLFunction.from_ray_values(fan, TW_EXAMPLE_3D["values"])))
    for m in sizes_3d:
        fan = random_polytope_fan(m, seed=child_seed(seed, "tw3", m))
        for r in range(n_3d):
            vals = random_ray_values(fan, seed=child_seed(seed, "tw3", m, r), low=-2, high=2)
            rows.append(_tw_row(3, f"{m} rays #{r}", CPWLFunction.from_ray_values(fan, vals)))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------
# neural networks for convex CPWL functions (issue #6 check 7)
def width_bound(n, k):
    """Width bound of :func:`~theorylab.cpwl.networks.convex_cpwl_network` from Euler's formula:
    n = 1: (k - 1) intervals x 3 + 2; n = 2: <= 2k - 5 triangles x 5 + <= 3k - 9 interior edges x 3
    + 2 (first hidden layer, the widest); None for n >= 3 (O(k^ceil(n/2)), not evaluated)."""
    if n == 1:
        return 3 * (k - 1) + 2
    if n == 2:
        return 5 * (2 * k - 5) + 3 * max(3 * k - 9, 0) + 2
    return None


def check_networks(cases, seed) -> pd.DataFrame:
    """For each (n, k, reps): random convex f = max of k integer affine pieces; build the network,
    prove N = f region by region in exact arithmetic, compare depth/width with the bounds and with
    the single-tournament network (ceil(log2 k) hidden layers)."""
    from theorylab.relu import ceil_log

    from .networks import convex_cpwl_network, max_tree_network, random_convex_pieces, verify_network

    rows = []
    for n, k, reps in cases:
        for r in range(reps):
            A, c = random_convex_pieces(k, n, seed=child_seed(seed, "nn", n, k, r))
            net, info = convex_cpwl_network(A, c)
            rng = as_generator(child_seed(seed, "nnpts", n, k, r))
            pts = [[Fraction(int(v), 7) for v in rng.integers(-60, 61, size=n)] for _ in range(20)]
            ver = verify_network(net, A, c, extra_points=pts)
            tree = max_tree_network(A, c)
            wb = width_bound(n, k)
            rows.append(dict(n=n, k=k, instance=r, terms=info["terms"], depth=net.depth,
                             depth_bound=max(1, ceil_log(2, n + 1)), width=net.width,
                             width_bound=wb if wb is not None else np.nan, n_neurons=net.n_neurons,
                             tree_depth=tree.depth, tree_width=tree.width, **ver))
    df = pd.DataFrame(rows)
    df["ok"] = ((df.mismatched_cells == 0) & (df.mismatched_points == 0) & (df.depth == df.depth_bound)
                & ~(df.width > df.width_bound))
    return df


# ---------------------------------------------------------------------------------------
# simplicial cone of convex functions => unique vertex (why 4-ray fans never show a polygon)
def simplicial_vertex(D):
    """If V_P^+ is simplicial (d extreme rays phi_j), f = sum nu_j phi_j + affine and
    D_P(f) = {sum mu_j phi_j : mu >= max(0, nu)}: its one vertex is sum max(0, nu_j) phi_j.
    Returns that vertex (exact) or None if the cone is not simplicial."""
    from theorylab.core.exact import solve

    R = D.recession_rays()
    if len(R) != D.d:
        return None
    if D.d == 0:
        return ()
    M = [[R[j][i] for j in range(D.d)] for i in range(D.d)]   # columns = extreme rays
    nu = solve(M, list(D.y_f))
    mu = [max(Fraction(0), v) for v in nu]
    return tuple(sum((mu[j] * R[j][i] for j in range(D.d)), Fraction(0)) for i in range(D.d))


def check_simplicial(n_instances, seed, *, sizes=(4, 5, 6)) -> pd.DataFrame:
    """On planar fans of 4..6 rays (every 4-ray fan has d = 2, so a simplicial cone) and 1-D
    complexes: whenever V_P^+ is simplicial, D_P(f) has exactly one vertex, sum max(0, nu_j) phi_j."""
    rows = []
    fans = [four_ray_fan()] + [random_planar_fan(m, seed=child_seed(seed, "sfan", m, r)) for m in sizes
                               for r in range(3)]
    rng = as_generator(child_seed(seed, "s1d"))
    cases = [(fan.name, fan, r) for fan in fans for r in range(n_instances)]
    for name, fan, r in cases:
        f = CPWLFunction.from_ray_values(fan, random_ray_values(fan, seed=child_seed(seed, fan.name, str(fan.rays), r),
                                                                low=-4, high=4))
        rows.append(_simplicial_row(name, f, r))
    for r in range(n_instances):
        k = int(rng.integers(1, 6))
        b = sorted(rng.choice(np.arange(-6, 7), size=k, replace=False).tolist())
        rows.append(_simplicial_row("line", relu_1d(b, rng.integers(-3, 4, size=k).tolist()), r))
    df = pd.DataFrame(rows)
    df["ok"] = ~df.simplicial | ((df.vertices == 1) & df.vertex_is_formula)
    return df


def _simplicial_row(name, f, r):
    D = DecompositionPolyhedron(f)
    V, R = D.vrep()
    v = simplicial_vertex(D)
    return dict(complex=name, instance=r, d=D.d, extreme_rays=len(R), simplicial=v is not None, vertices=len(V),
                vertex_is_formula=(v is not None and len(V) == 1 and tuple(V[0]) == v))
