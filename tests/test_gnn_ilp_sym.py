"""theorylab.exact.ilp_orbits: symmetries against an explicit sigma search, orbits by brute force against colour
refinement, GNN equivariance, the Orbit / Orbit+ enumerations against sympy factorials, the Proposition 2 least
squares against scipy, a broken variant the checks catch, and bad input."""

import itertools
import math

import numpy as np
import pytest
import scipy.linalg
import sympy

import theorylab.validations.gnn_ilp_sym  # noqa: F401  (registers the claims)
from theorylab.exact import ilp_orbits as I


def _has_sigma(A, b, c, p):
    """Definition 2 literally: some sigma with A[sigma(i), p(j)] = A[i, j], b[sigma] = b, c[p] = c."""
    m = A.shape[0]
    if not np.array_equal(c[p], c):
        return False
    for s in itertools.permutations(range(m)):
        s = np.array(s)
        if np.array_equal(b[s], b) and np.array_equal(A[np.ix_(s, p)], A):
            return True
    return False


def test_symmetries_match_definition_2_literally():
    A, b, c = I.graph_colouring_ilp(((0, 1),), 2, 2)          # n = 4, m = 6: S_6 sigma search is cheap
    G = {tuple(g) for g in I.formulation_symmetries(A, b, c)}
    ref = {p for p in itertools.permutations(range(4)) if _has_sigma(A, b, c, np.array(p))}
    assert G == ref and len(G) == 2


def test_bin_packing_orbits_brute_force_and_refinement():
    A, b, c = I.bin_packing_ilp((3.0, 5.0), 3, 8.0)
    G = I.formulation_symmetries(A, b, c)
    assert len(G) == 6                                       # S_3 on the bins
    O = I.orbits_brute_force(A, b, c)
    assert O == [[0, 1, 2], [3, 4, 5]] == I.orbits_refinement(A, b, c)
    assert [m for m, _ in I.coupled_classes(O, G)] == [[0, 1]]


def test_refinement_can_be_coarser_but_contains_orbits():
    # two items of equal weight: the items are interchangeable too, orbits merge; refinement agrees
    A, b, c = I.bin_packing_ilp((2.0, 2.0), 2, 4.0)
    assert I.orbits_brute_force(A, b, c) == I.orbits_refinement(A, b, c) == [[0, 1, 2, 3]]


def test_gnn_equivariant_and_orbit_constant():
    A, b, c = I.bin_packing_ilp((2.0, 3.0, 5.0), 2, 10.0)
    p = I.random_gnn(seed=4)
    rng = np.random.default_rng(0)
    z = rng.random(A.shape[1])
    y = I.gnn_forward(p, A, b, c, z)
    pi, sg = rng.permutation(A.shape[1]), rng.permutation(A.shape[0])
    y2 = I.gnn_forward(p, *I.permute_ilp(A, b, c, pi, sg, z))
    np.testing.assert_allclose(y2[pi], y, atol=1e-13)
    y0 = I.gnn_forward(p, A, b, c)
    for O in I.orbits_brute_force(A, b, c):
        assert np.ptp(y0[O]) < 1e-13
    assert np.ptp(I.gnn_forward(p, A, b, c, I.orbit_features([[0, 1], [2, 3], [4, 5]], seed=1))[:2]) > 1e-6


def test_same_seed_same_numbers():
    O = [[0, 1, 2], [3, 4, 5], [6]]
    np.testing.assert_array_equal(I.orbit_features(O, seed=3), I.orbit_features(O, seed=3))
    z = I.orbit_features(O, seed=3)
    assert sorted(z[:3]) == [1, 2, 3] and z[6] == 0
    a, b = I.random_gnn(seed=2), I.random_gnn(seed=2)
    np.testing.assert_array_equal(a["out"], b["out"])


def test_cardinalities_against_sympy_and_enumeration():
    A, b, c = I.graph_colouring_ilp(((0, 1), (1, 2)), 3, 2)
    G = I.formulation_symmetries(A, b, c)
    O = I.orbits_brute_force(A, b, c)
    f = I.cardinalities(O, G)
    assert f["orbit"] == int(sympy.prod([sympy.factorial(len(o)) for o in O])) == 8
    assert f["position"] == int(sympy.factorial(6))
    assert f["orbit_plus"] == 2 == len(I.enumerate_orbit_plus_features(O, G))
    zs = I.enumerate_orbit_features(O)
    assert len(zs) == 8
    # Orbit+ vectors are a subset of the Orbit ones
    assert I.enumerate_orbit_plus_features(O, G) <= zs


def test_prop2_lstsq_against_scipy():
    x = np.array([1.0, 0, 0, 0, 1, 0])
    pi = np.array([1, 0, 2, 4, 3, 5])
    lsq, closed = I.constrained_lstsq_min(x, x, pi)
    P = np.zeros((6, 6)); P[pi, np.arange(6)] = 1
    M = np.vstack([np.eye(6), P]); t = np.concatenate([x, x])
    y = scipy.linalg.lstsq(M, t)[0]
    assert lsq == pytest.approx(np.sum((M @ y - t) ** 2), abs=1e-12) and closed == pytest.approx(2.0)
    px = np.empty(6); px[pi] = x
    assert I.constrained_lstsq_min(x, px, pi)[0] < 1e-20


def test_broken_orbit_plus_formula_is_caught(broken_claim):
    real = I.cardinalities

    def broken(orbits, G=None):                 # the other reading: |O_k|! of every orbit but the first
        out = real(orbits, G)
        if G is not None:
            out["orbit_plus"] = math.prod(math.factorial(len(o)) for o in orbits[1:])
        return out

    assert broken_claim("gnn_ilp_sym:cardinality_orbit_plus", (I, "cardinalities"), broken).verdict == "not reproduced"


def test_broken_gnn_not_equivariant_is_caught(broken_claim):
    real = I.gnn_forward
    r = broken_claim("gnn_ilp_sym:prop1_orbit_mates_equal", (I, "gnn_forward"),
                     lambda p, A, b, c, z=None: real(p, A, b, c, z) + 1e-9 * np.arange(A.shape[1]))
    assert r.verdict == "not reproduced"


def test_bad_input():
    A, b, c = I.bin_packing_ilp()
    with pytest.raises(ValueError, match="b must have length"):
        I.gnn_forward(I.random_gnn(), A, b[:-1], c)
    with pytest.raises(ValueError, match="c must have length"):
        I.formulation_symmetries(A, b, c[:-1])
    with pytest.raises(ValueError, match="brute force"):
        I.formulation_symmetries(*I.bin_packing_ilp((1.0, 2.0, 3.0, 4.0, 5.0), 2, 10.0))
    with pytest.raises(ValueError):
        I.gnn_forward(I.random_gnn(), np.full_like(A, np.nan), b, c)
    with pytest.raises(ValueError, match="partition"):
        I.orbit_features([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="layers"):
        I.random_gnn(layers=3)
    with pytest.raises(ValueError, match="edges"):
        I.graph_colouring_ilp(((0, 5),), 3, 2)
    with pytest.raises(ValueError, match="permutation"):
        I.permute_ilp(A, b, c, np.zeros(A.shape[1], int), np.arange(A.shape[0]))
    with pytest.raises(ValueError, match="limit"):
        I.enumerate_orbit_features([list(range(9))], limit=100)


def test_kernel_matches_its_python_body_and_numpy_reference():
    from theorylab.exact import _kernels_ilp_orbits as K

    A, b, c = I.graph_colouring_ilp(((0, 1), (1, 2)), 3, 2)
    perms = np.array(list(itertools.permutations(range(6))), dtype=np.int64)
    mj, mp = np.zeros(len(perms), np.int64), np.zeros(len(perms), np.int64)
    K.symmetry_mask(A, b, c, perms, mj)
    K.symmetry_mask.py_func(A, b, c, perms, mp)
    np.testing.assert_array_equal(mj, mp)
    np.testing.assert_array_equal(perms[mj == 1], I.formulation_symmetries_numpy(A, b, c))


def test_same_group_on_one_or_several_threads():
    import numba

    args = I.graph_colouring_ilp(((0, 1), (1, 2)), 3, 2)
    threads = numba.get_num_threads()
    a = I.formulation_symmetries(*args)
    numba.set_num_threads(1)
    try:
        b = I.formulation_symmetries(*args)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(a, b)
