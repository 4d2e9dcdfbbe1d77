"""Unit tests of theorylab.cpwl: kernels, exact algebra, complexes, functions, D_P(f), bad input."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from theorylab.cpwl import (CPWLFunction, DecompositionPolyhedron, PolyhedralComplex, arrangement_complex,
                            braid_fan, four_ray_fan, hexagon_fan, is_submodular, line_complex, lovasz_extension,
                            max_affine_complex, planar_fan, relu_1d, relu_network_complex, set_function_of,
                            simplicial_fan)
from theorylab.cpwl import _dd, _kernels
from theorylab.core.exact import nullspace, rank


# ------------------------------------------------------------------ kernels
def test_basic_solutions_py_func_matches_jit():
    L = np.array([[1.0, 0], [0, 1], [1, 1], [-1, 2]])
    u = np.array([0.0, 0, 1, -1])
    p1, ok1 = _kernels.basic_solutions(L, u, 1e-9)
    # the block kernel in pure Python over all 6 subsets, and the jitted one in blocks of 1, 2 and 3 subsets
    C = _kernels.binomial_table(4, 2)
    p2, ok2 = np.zeros((6, 2)), np.zeros(6, dtype=np.bool_)
    _kernels.basic_solutions_block.py_func(L, u, 1e-9, C, 0, 6, p2, ok2)
    assert np.array_equal(ok1, ok2)
    for lo, hi in ((0, 1), (1, 3), (3, 6)):
        p3, ok3 = np.zeros((6, 2)), np.zeros(6, dtype=np.bool_)
        _kernels.basic_solutions_block(L, u, 1e-9, C, lo, hi, p3, ok3)
        assert np.array_equal(ok3[lo:hi], ok1[lo:hi]) and np.array_equal(p3[lo:hi], p1[lo:hi])
    assert np.allclose(p1[ok1], p2[ok2])
    verts = {tuple(np.round(p, 9)) for p in p1[ok1]}
    assert verts == {(0.0, 1.0), (1.0, 0.0)}


def test_unrank_combination_enumerates_all_subsets():
    C = _kernels.binomial_table(6, 3)
    out = np.empty(3, dtype=np.int64)
    seen = set()
    for r in range(C[6, 3]):
        _kernels.unrank_combination(r, 6, 3, C, out)
        seen.add(tuple(out))
    assert len(seen) == 20 and all(len(set(s)) == 3 and max(s) < 6 for s in seen)


def test_piece_counts_kernel_and_thread_independence(monkeypatch):
    import functools

    from theorylab.core import parallel

    flat = np.array([[True, False, False], [True, True, True], [False, False, False]])
    wc = np.array([[0, 1], [1, 2], [2, 0]], dtype=np.int64)
    a = _kernels.piece_counts(flat, wc, 3)
    assert a.tolist() == [2, 1, 3]
    assert np.array_equal(_kernels.piece_counts_serial.py_func(flat, wc, 3), a)
    rng = np.random.default_rng(0)
    big = rng.random((500, 12)) < 0.5
    wc2 = np.array([[i, (i + 1) % 12] for i in range(12)], dtype=np.int64)
    one = _kernels.piece_counts(big, wc2, 12)
    # blocks of rows on 2 and 3 threads (forced: map_blocks keeps a run this small on one thread)
    for threads in (2, 3):
        monkeypatch.setattr(_kernels, "map_blocks", functools.partial(parallel.map_blocks, threads=threads))
        many = _kernels.piece_counts(big, wc2, 12)
        assert np.array_equal(one, many)
    assert np.array_equal(_kernels.piece_counts_serial(big, wc2, 12), many)


# ------------------------------------------------------------------ exact algebra and DD
def test_nullspace_and_rank():
    M = [[Fraction(1), Fraction(2), Fraction(3)], [Fraction(2), Fraction(4), Fraction(6)]]
    ns = nullspace(M, 3)
    assert len(ns) == 2 and rank(M) == 1
    for v in ns:
        assert sum(a * b for a, b in zip(M[0], v)) == 0


def test_dd_square_cone():
    # {x, y >= 0, x + y <= 2 t} homogenised: vertices (0,0), (2,0), (0,2)
    A = [[1, 0, 0], [0, 1, 0], [-1, -1, 2], [0, 0, 1]]
    rays = sorted(r for r, _ in _dd.extreme_rays(A))
    assert rays == [(0, 0, 1), (0, 2, 1), (2, 0, 1)]


def test_dd_rejects_non_pointed():
    with pytest.raises(ValueError, match="not pointed"):
        _dd.extreme_rays([[1, 0, 0], [0, 1, 0]])


# ------------------------------------------------------------------ complexes and functions
def test_hexagon_bends_match_spec_formula():
    fan = hexagon_fan()
    vals = [3, -1, 2, 0, 5, -2]
    f = CPWLFunction.from_ray_values(fan, vals)
    m = len(vals)
    assert [int(v) for v in f.bends] == [vals[i - 1] + vals[(i + 1) % m] - vals[i] for i in range(m)]


def test_convexity_and_pieces():
    fan = hexagon_fan()
    f = CPWLFunction.from_function(fan, lambda x: max(x[0], x[1], 0))
    assert f.is_convex() and f.n_pieces() == 3
    g = CPWLFunction.from_function(fan, lambda x: -max(x[0], 0))
    assert not g.is_convex() and g.n_pieces() == 2


def test_median_pieces_and_components():
    from theorylab.cpwl.experiments import median_function

    f = median_function()
    assert f.n_pieces() == 6 and f.n_affine_components() == 3


def test_relu_network_complex_function_is_exact():
    W = [[[1, 0], [0, 1], [1, 1]], [[1, -1, 1]]]
    b = [[0, 0, -1], [0]]
    cx = relu_network_complex(W, b)

    def net(x):
        h = [max(x[0], 0), max(x[1], 0), max(x[0] + x[1] - 1, 0)]
        return max(h[0] - h[1] + h[2], 0)

    f = CPWLFunction.from_function(cx, net)
    pts = [[Fraction(i, 3), Fraction(j, 5)] for i in range(-6, 7) for j in range(-6, 7)]
    assert all(f(p) == net(p) for p in pts)


def test_max_affine_and_simplicial_fan_build():
    cx = max_affine_complex(([[1, 0], [0, 1], [-1, -1]], [0, 0, 0]))
    assert cx.n_cells == 3
    sf = simplicial_fan([(1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, -1, -1)],
                        [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)])
    assert sf.n_cells == 4 and sf.n_walls == 6
    f = CPWLFunction.from_ray_values(sf, [1, 2, 3, 0])
    assert len(f.bends) == 6


def test_lovasz_extension_convex_iff_submodular():
    B = braid_fan(3)
    cut = [0, 1, 1, 2, 1, 2, 2, 0]  # not a cut... check both ways against the exact test
    f = lovasz_extension(B, cut)
    assert f.is_convex() == is_submodular([Fraction(v) for v in cut], 3)
    G = set_function_of(f)
    assert [int(v) for v in G] == cut


# ------------------------------------------------------------------ decomposition polyhedron
def test_hexagon_worked_example():
    fan = hexagon_fan()
    D = DecompositionPolyhedron(CPWLFunction.from_ray_values(fan, [0, -1, 0, 0, 2, 0]))
    t = D.vertex_table()
    assert sorted(t.total_pieces) == [7, 8]
    assert t.g_convex.all() and t.h_convex.all() and t.exact_identity.all()
    mins, _ = D.minimal_decompositions()
    assert [int(v) for v in mins[0].g.bends] == [0, 2, 0, 2, 0, 2]


def test_vertex_pieces_equals_full_certificate():
    """The batched table (bends + union-find) that minimal_decompositions returns equals vertex_table,
    which rebuilds g and h as functions at every vertex (issue 15: the fast exact path)."""
    from theorylab.cpwl import random_planar_fan, random_ray_values

    cols = ["vertex", "y", "bends_g", "bends_h", "pieces_g", "pieces_h", "total_pieces", "g_convex", "h_convex"]
    for m in (5, 7, 9):
        fan = random_planar_fan(m, seed=m, box=4)
        D = DecompositionPolyhedron(CPWLFunction.from_ray_values(fan, random_ray_values(fan, seed=m + 1)))
        fast, full = D.vertex_pieces(), D.vertex_table()
        assert full.exact_identity.all()
        pd.testing.assert_frame_equal(fast[cols].reset_index(drop=True), full[cols].reset_index(drop=True),
                                      check_dtype=False)
        mins, table = D.minimal_decompositions()
        assert table is not None and {m_.total_pieces for m_ in mins} == {int(full.total_pieces.min())}


def test_minimal_decompositions_lp_and_auto(monkeypatch):
    """method="lp" searches the vertices that random LPs reach (exact, not certified); "auto" is exact
    below LP_CROSSOVER_WALLS walls.  On small fans 300 LPs find every minimum."""
    from theorylab.cpwl import random_planar_fan, random_ray_values
    from theorylab.cpwl.polyhedron import LP_CROSSOVER_WALLS

    for m in (6, 9):
        fan = random_planar_fan(m, seed=m, box=4)
        D = DecompositionPolyhedron(CPWLFunction.from_ray_values(fan, random_ray_values(fan, seed=m + 1)))
        exact, t_exact = D.minimal_decompositions()
        lp, t_lp = D.minimal_decompositions("lp", n_objectives=300, seed=1)
        auto, t_auto = D.minimal_decompositions("auto")
        assert t_exact.attrs["certified"] and not t_lp.attrs["certified"] and t_auto.attrs["certified"]
        assert set(map(tuple, t_lp.y)) <= set(map(tuple, t_exact.y))   # LP vertices are exact vertices
        assert lp[0].total_pieces == exact[0].total_pieces and auto == exact
        assert D.n_walls < LP_CROSSOVER_WALLS
    import theorylab.cpwl.polyhedron as poly

    monkeypatch.setattr(poly, "LP_CROSSOVER_WALLS", D.n_walls)      # at the crossover "auto" searches by LP
    assert not D.minimal_decompositions("auto")[1].attrs["certified"]
    with pytest.raises(ValueError, match="method"):
        D.minimal_decompositions("simplex")
    with pytest.raises(ValueError, match="n_objectives"):
        D.minimal_decompositions("lp", n_objectives=0)


def test_vertex_methods_agree_and_lp_reference():
    fan = planar_fan([(1, 0), (2, 1), (0, 1), (-1, 1), (-1, -1), (1, -2)])
    f = CPWLFunction.from_ray_values(fan, [2, -1, 0, 3, -2, 1])
    D = DecompositionPolyhedron(f)
    V, R = D.vrep()
    assert D.vrep("numba")[0] == V
    for p in D.vertices_lp(40, seed=1):
        assert any(np.allclose(p, [float(x) for x in v], atol=1e-6) for v in V)
    assert sorted(R) == D.recession_rays()


def test_irreducible_lp_matches_bounded_face():
    D = DecompositionPolyhedron(CPWLFunction.from_ray_values(hexagon_fan(), [3, 0, -2, 1, 2, -1]))
    for y in D.sample_points(20, seed=3):
        assert D.is_irreducible_lp(y) == D.is_bounded_face_point(y)


def test_unique_split_1d():
    f = relu_1d([-1, 0, 2], [2, -3, 1], slope=1)
    D = DecompositionPolyhedron(f)
    V, _ = D.vrep()
    assert len(V) == 1
    dec = D.decomposition(V[0])
    assert [int(v) for v in dec.g.bends] == [2, 0, 1] and [int(v) for v in dec.h.bends] == [0, 3, 0]


def test_sample_points_reproducible():
    D = DecompositionPolyhedron(CPWLFunction.from_ray_values(hexagon_fan(), [0, -1, 0, 0, 2, 0]))
    assert D.sample_points(10, seed=5) == D.sample_points(10, seed=5)
    assert all(D.contains(y) for y in D.sample_points(10, seed=5))


# ------------------------------------------------------------------ bad input
def test_non_complete_complex():
    cells = [([[-1, 0], [0, -1]], [0, 0]), ([[1, 0], [0, -1]], [0, 0])]  # upper half-plane only
    with pytest.raises(ValueError, match="not complete"):
        PolyhedralComplex(cells, name="half plane")


def test_overlapping_cells():
    with pytest.raises(ValueError, match="overlap"):
        PolyhedralComplex([([[1]], [1]), ([[-1]], [0])])


def test_incompatible_function_rejected():
    with pytest.raises(ValueError, match="not continuous across wall"):
        CPWLFunction.from_function(four_ray_fan(), lambda x: max(x[0], x[1], -x[0] - x[1]))


def test_inconsistent_values_not_continuous():
    cx = line_complex([0])
    with pytest.raises(ValueError, match="not continuous across wall 0"):
        CPWLFunction(cx, [[1], [2]], [0, 1])


def test_degenerate_rays():
    with pytest.raises(ValueError, match="zero vector"):
        planar_fan([(1, 0), (0, 0), (-1, -1)])
    with pytest.raises(ValueError, match="same direction"):
        planar_fan([(1, 0), (2, 0), (0, 1), (-1, -1)])
    with pytest.raises(ValueError, match="angle >= pi"):
        planar_fan([(1, 0), (0, 1), (-1, 0)])
    with pytest.raises(ValueError, match="linearly dependent"):
        simplicial_fan([(1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1)], [(0, 1, 2)])


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="strictly increasing"):
        line_complex([1, 0])
    with pytest.raises(ValueError, match="not full-dimensional"):
        PolyhedralComplex([([[1], [-1]], [0, 0])])
    with pytest.raises(ValueError, match="one entry per breakpoint"):
        relu_1d([0, 1], [1])
    with pytest.raises(ValueError, match="F\\(empty set\\) must be 0"):
        lovasz_extension(braid_fan(2), [1, 0, 0, 0])
    with pytest.raises(ValueError, match="method must be one of"):
        DecompositionPolyhedron(relu_1d([0], [1])).vrep("magic")
    with pytest.raises(TypeError, match="CPWLFunction"):
        DecompositionPolyhedron("f")
    with pytest.raises(ValueError, match="normals\\[0\\] is the zero vector"):
        arrangement_complex([[0, 0]])


# --------------------------------------------------------------------------- networks (check 7)
def test_valuation_terms_1d_identity():
    from theorylab.cpwl.networks import valuation_terms

    # f = max(0, x, 2x - 1): intervals [0,1], [1,2] (+) and the interior point 1 (-)
    terms = valuation_terms([[0], [1], [2]], [0, 0, -1])
    assert sorted(terms) == sorted([(1, (0, 1)), (1, (1, 2)), (-1, (1,))])


def test_convex_network_exact_and_depth():
    from theorylab.cpwl.networks import convex_cpwl_network, random_convex_pieces, verify_network

    A, c = random_convex_pieces(5, 2, seed=3)
    net, info = convex_cpwl_network(A, c)
    assert net.depth == 2 and info["depth"] == 2
    ver = verify_network(net, A, c, extra_points=[[Fraction(1, 3), Fraction(-5, 2)], [7, 7]])
    assert ver["mismatched_cells"] == 0 and ver["mismatched_points"] == 0 and ver["cells"] > 5


def test_verify_network_detects_a_wrong_network():
    from theorylab.cpwl.networks import convex_cpwl_network, verify_network

    A, c = [[0, 0], [1, 0], [0, 1]], [0, 0, 0]
    net, _ = convex_cpwl_network(A, c)
    wrong = [[0, 0], [1, 0], [0, 1]], [0, 0, 1]          # another function
    assert verify_network(net, *wrong)["mismatched_cells"] > 0


def test_network_bad_input():
    from theorylab.cpwl.networks import convex_cpwl_network

    with pytest.raises(ValueError, match="never the maximum"):
        convex_cpwl_network([[0], [1], [2]], [0, -5, 0])      # max(0, x - 5, 2x): the middle piece never wins
    with pytest.raises(ValueError, match="parallel pieces"):
        convex_cpwl_network([[1, 0], [1, 0], [0, 1]], [0, 1, 0])
    with pytest.raises(ValueError, match="dimension < n"):
        convex_cpwl_network([[0, 0], [1, 1], [2, 2]], [0, 0, -1])


# --------------------------------------------------------------------------- Tran & Wang (check 5)
def test_canonical_2d_is_least_length_and_minimal():
    from theorylab.cpwl import random_planar_fan, random_ray_values
    from theorylab.cpwl.tran_wang import canonical_decomposition_2d, refine_with_closing_ray, tran_wang_decomposition

    fan = random_planar_fan(5, seed=11)
    F, vals = refine_with_closing_ray(fan, random_ray_values(fan, seed=4))
    f = CPWLFunction.from_ray_values(F, vals)
    can = canonical_decomposition_2d(f)
    tw, ties = tran_wang_decomposition(f)
    mins, _ = DecompositionPolyhedron(f).minimal_decompositions()
    assert ties == 0 and tw.y == can.y and can.total_pieces == mins[0].total_pieces


def test_tran_wang_3d_example_not_minimal():
    from theorylab.cpwl.complexes import polytope_fan
    from theorylab.cpwl.experiments import TW_EXAMPLE_3D
    from theorylab.cpwl.tran_wang import tran_wang_decomposition

    fan = polytope_fan(TW_EXAMPLE_3D["rays"])
    f = CPWLFunction.from_ray_values(fan, TW_EXAMPLE_3D["values"])
    tw, ties = tran_wang_decomposition(f)
    D = DecompositionPolyhedron(f)
    mins, _ = D.minimal_decompositions()
    table = D.vertex_table()
    assert ties == 0 and mins[0].total_pieces < tw.total_pieces
    assert bool(table.exact_identity.all()) and bool(table.g_convex.all()) and bool(table.h_convex.all())


def test_polytope_fan_bad_input():
    from theorylab.cpwl.complexes import polytope_fan

    with pytest.raises(ValueError, match="origin is not in the interior"):
        polytope_fan([(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)])
    with pytest.raises(ValueError, match="not vertices"):
        polytope_fan([(3, 1, 1), (1, 3, 1), (1, 1, 3), (-1, -1, -1), (1, 1, 1)])   # (1,1,1) is interior
    with pytest.raises(ValueError, match="zero vector"):
        polytope_fan([(1, 0, 0), (0, 1, 0), (0, 0, 0), (-1, -1, -1)])
    with pytest.raises(ValueError, match="not complete"):
        from theorylab.cpwl import simplicial_fan
        simplicial_fan([(1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, -1, -1)], [(0, 1, 2), (0, 1, 3)])


# --------------------------------------------------------------------------- mutation test
def test_mutation_convexity_sign_is_caught(broken_claim, cache):
    """A broken local convexity test (lambda_tau <= 0 instead of >= 0, spec §2(a)) must make the
    median example (its decomposition into convex g, h) fail at ci scale.  The intact run goes
    through the session cache (test_validations' ci run of the same claim, computed once); the
    mutated run never does."""
    from theorylab.cpwl.functions import CPWLFunction

    assert broken_claim.intact("cpwl_decomp:median_example", cache=cache).verdict == "reproduced"
    r = broken_claim("cpwl_decomp:median_example", (CPWLFunction, "is_convex"),
                     lambda self: all(v <= 0 for v in self._bends))
    assert r.verdict == "not reproduced"


def test_public_functions_name_bad_arguments():
    import theorylab.cpwl as cp

    fan = cp.braid_fan(2)
    cases = [
        (TypeError, "offsets must be a sequence", lambda: cp.CPWLFunction(fan, [[0, 0], [0, 0]], float("nan"))),
        (ValueError, "offsets\\[0\\]: expected a finite number", lambda: cp.CPWLFunction(fan, [[0, 0], [0, 0]], [np.nan, 0])),
        (TypeError, "complex must be a PolyhedralComplex", lambda: cp.LambdaSpace("abc")),
        (TypeError, "complex must be a PolyhedralComplex", lambda: cp.lambda_space(None)),
        (TypeError, "name must be a string", lambda: cp.line_complex([0, 1], name=np.array([1.0, 2.0]))),
        (TypeError, "fan must be a PolyhedralComplex", lambda: cp.lovasz_extension("abc", [0, 1, 1, 0])),
        (ValueError, "n must be an integer in \\[1, 20\\]", lambda: cp.is_submodular([0, 1, 1], 2 ** 63)),
        (ValueError, "vals must have 4 entries", lambda: cp.is_submodular([0, 1, 1], 2)),
        (TypeError, "functions\\[0\\] must be a pair", lambda: cp.max_affine_complex(np.array([0.2, 0.3]))),
        (ValueError, "k must be an integer in \\[3, 200\\]", lambda: cp.random_convex_pieces(2)),
        (ValueError, "max_tries must be an integer", lambda: cp.random_convex_pieces(3, max_tries=10 ** 9)),
        (TypeError, "fan must be a PolyhedralComplex", lambda: cp.random_ray_values(np.array([0.2, 0.3]))),
        (ValueError, "n must be an integer in \\[1, 20\\]", lambda: cp.random_set_function(10 ** 9)),
        (TypeError, "D must be a DecompositionPolyhedron", lambda: cp.edge_length("abc", [0])),
    ]
    for exc, msg, call in cases:
        with pytest.raises(exc, match=msg):
            call()
    # float normals are exact binary values; the cells are still found (rows were 2^54-scaled before)
    assert cp.arrangement_complex(np.array([[1, 0.2], [0.2, 1]])).n_cells == 4
