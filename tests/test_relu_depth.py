"""Unit tests for theorylab.relu: kernels, exact networks, certificates, polytopes, bad input."""

from fractions import Fraction

import numpy as np
import pytest

from theorylab.relu import (F_n, Polytope, ReLUNetwork, binomials_vanish_mod_p, bound_table, certify_max,
                            conv_union, enumerate_regions, evaluate_reference, face_volumes, faces, is_power_of,
                            lower_bound_nary, max2_network, max_network, minkowski_sum, newton_polytopes,
                            normalized_volume, p_adic_valuation, point, random_nary_network, simplex,
                            smallest_prime_not_dividing, to_fraction, upper_bound_bakaev, volume_invariant_table)
from theorylab.relu import _kernels
from theorylab.relu.network import rational_numerators


# --------------------------------------------------------------------------- kernels

def _packed(net):
    forms = net._integer_form()
    S = [1]
    for _, _, D in forms:
        S.append(S[-1] * D)
    A_flat = np.concatenate([np.asarray(A, dtype=np.int64).ravel() for A, _, _ in forms])
    B_flat = np.concatenate([np.asarray(B, dtype=np.int64).ravel() for _, B, _ in forms])
    a_off = np.cumsum([0] + [A.size for A, _, _ in forms])[:-1].astype(np.int64)
    b_off = np.cumsum([0] + [B.size for _, B, _ in forms])[:-1].astype(np.int64)
    return A_flat, B_flat, np.array(S[:-1], dtype=np.int64), a_off, b_off, np.array(net.dims, dtype=np.int64)


def test_eval_kernel_matches_py_func_and_python_ints():
    net = ReLUNetwork([[[1, "-1/2"], ["3/10", 2]], [[1, -1]]], [[0, "1/5"], [3]])
    X = np.random.default_rng(0).integers(-20, 21, size=(7, 2)).astype(np.int64)
    args = _packed(net)
    jit = _kernels.eval_int_batch(X, *args)
    py = _kernels.eval_int_batch.py_func(X, *args)
    assert np.array_equal(jit, py)
    Y, S = net.evaluate_numerators(X.astype(object), 1, backend="python")
    assert np.array_equal(jit.astype(object), Y)


def test_eval_kernel_thread_count_independent():
    import numba

    net = max_network(9)
    X = np.random.default_rng(1).integers(-100, 101, size=(257, 9)).astype(np.int64)
    args = _packed(net)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        a = _kernels.eval_int_batch(X, *args)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        b = _kernels.eval_int_batch(X, *args)
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(a, b)


def test_det_kernel_matches_py_func_and_fractions():
    rng = np.random.default_rng(2)
    M = rng.integers(-5, 6, size=(20, 4, 4)).astype(np.int64)
    jit = _kernels.det_batch(M)
    assert np.array_equal(jit, _kernels.det_batch.py_func(M))
    from theorylab.benchmarks.relu_depth import _det_fraction
    assert [int(v) for v in jit] == [int(_det_fraction(m)) for m in M]


# --------------------------------------------------------------------------- networks

def test_max2_and_reference_evaluation():
    net = max2_network()
    X = [[3, 5], [Fraction(-1, 3), Fraction(-1, 2)], [0, 0]]
    assert list(net.evaluate(X)[:, 0]) == [5, Fraction(-1, 3), 0]
    assert np.array_equal(net.evaluate(X), evaluate_reference(net, X))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 16, 17, 32])
def test_max_network_depth_weights_and_values(n):
    net = max_network(n)
    assert net.depth == int(np.ceil(np.log2(n + 1)))
    assert net.weight_values() <= {Fraction(-1), Fraction(0), Fraction(1)}
    X = np.random.default_rng(n).integers(-9, 10, size=(50, n))
    assert np.array_equal(net.evaluate(X)[:, 0], F_n(X))
    assert np.allclose(net.evaluate(X, exact=False)[:, 0], F_n(X).astype(float))


def test_compose_adds_depths_and_composes():
    inner = max2_network()                                  # R^2 -> R
    outer = ReLUNetwork([[[1], [-1]], [[2, -2]]])           # y -> 2 y (via relu(y) - relu(-y))
    net = outer.compose(inner)
    assert net.depth == 2
    X = [[1, 4], [-3, -7]]
    assert list(net.evaluate(X)[:, 0]) == [8, -6]


def test_nary_detection_and_overflow_fallback():
    net = ReLUNetwork([[["1/10", "3/100"]], [[1]]])
    assert net.is_nary(10) and net.is_nary(2 * 5) and not net.is_nary(2)
    big = [[10 ** 30, -10 ** 30]]
    assert net.evaluate(big)[0, 0] == Fraction(10 ** 29 - 3 * 10 ** 28)
    with pytest.raises(OverflowError):
        net.evaluate_numerators(np.array(big, dtype=object), 1, backend="int64")


def test_rational_numerators():
    num, S = rational_numerators([["1/2", 3], [Fraction(2, 3), 0]])
    assert S == 6 and num.tolist() == [[3, 18], [4, 0]]


# --------------------------------------------------------------------------- certificates

@pytest.mark.parametrize("n", [1, 2, 3])
def test_certify_max_accepts_the_construction(n):
    cert = certify_max(max_network(n))
    assert cert["certified"] and cert["n_failed_regions"] == 0 and cert["uncertified_splits"] == 0


def test_certify_max_rejects_wrong_networks():
    # relu(x1) + relu(x2) agrees with F_2 except where both are positive
    assert not certify_max(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]]))["certified"]
    # a network that is correct only on a tiny region differs from F_1 elsewhere
    assert not certify_max(ReLUNetwork([[[1], [-1]], [[1, "1/1000"]]]))["certified"]


def test_regions_cover_with_biases():
    # |x - 1| has two regions, split at x = 1
    net = ReLUNetwork([[[1], [-1]], [[1, 1]]], [[-1, 1], [0]])
    regions, stats = enumerate_regions(net, box=4.0)
    assert len(regions) == 2 and stats["uncertified"] == 0
    slopes = sorted(R.out_lin[0][0] for R in regions)
    assert slopes == [-1, 1]


# --------------------------------------------------------------------------- polytopes and invariant

def test_newton_polytopes_of_construction_are_shifted_simplex():
    for n in (1, 2, 3):
        (P, Q), = newton_polytopes(max_network(n))
        assert P == Q + simplex(n)
        assert not P == Q                                 # the certificate can fail


def test_normalized_volumes():
    assert normalized_volume(simplex(4).num) == 1
    cube = Polytope(np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)]))
    assert normalized_volume(cube.num) == 6
    Z = minkowski_sum(conv_union(point([0, 0]), point(["1/2", 0])), conv_union(point([0, 0]), point([0, 1])))
    assert normalized_volume(Z.num, Z.den) == 1
    # a lattice segment of lattice length 2 in a skew direction, and a triangle in a plane of R^3
    assert normalized_volume(np.array([[0, 0], [2, 4]])) == 2
    assert normalized_volume(np.array([[0, 0, 0], [1, 1, 0], [0, 1, 1]])) == 1
    dims = sorted(d for d, _ in faces(cube, 1))
    assert dims.count(2) == 6 and dims.count(1) == 12 and dims.count(3) == 1


def test_p_adic_valuation():
    assert p_adic_valuation(Fraction(18, 5), 3) == 2
    assert p_adic_valuation(Fraction(5, 9), 3) == -2
    assert p_adic_valuation(0, 2) == float("inf")


def test_invariant_table_integer_parity():
    t = volume_invariant_table(n=3, widths=[4], N=1, p=2, n_networks=2, seed=3)
    above = t[t["above"]]
    assert len(above) > 0 and above["divisible"].all()


def test_random_network_is_nary_and_seeded():
    a = random_nary_network(3, [3, 2], N=10, seed=5)
    b = random_nary_network(3, [3, 2], N=10, seed=5)
    assert a.is_nary(10) and all((x == y).all() for x, y in zip(a.weights, b.weights))


# --------------------------------------------------------------------------- number theory

def test_lucas_and_primes():
    assert binomials_vanish_mod_p(9, 3) and not binomials_vanish_mod_p(6, 3)
    assert is_power_of(27, 3) and not is_power_of(12, 2)
    assert [smallest_prime_not_dividing(N) for N in (1, 2, 6, 30, 210)] == [2, 3, 5, 7, 11]
    assert lower_bound_nary(4, 10) == 2 and lower_bound_nary(8, 10) == 2 and lower_bound_nary(26, 10) == 3
    assert upper_bound_bakaev(4) == 2 and upper_bound_bakaev(100) == 6
    t = bound_table([4, 8, 26, 100, 1000])
    assert t["upper_tournament"].tolist() == [3, 4, 5, 7, 10]
    assert t["lower_N10"].tolist() == [2, 2, 3, 5, 7]


# --------------------------------------------------------------------------- bad input

def test_bad_input_errors():
    with pytest.raises(TypeError, match="weights\\[0\\]\\[0, 0\\] must be exact"):
        ReLUNetwork([[[0.1]], [[1]]])
    with pytest.raises(ValueError, match="mismatched layer shapes: weights\\[1\\] has 3 columns"):
        ReLUNetwork([[[1, 0], [0, 1]], [[1, 1, 1]]])
    with pytest.raises(ValueError, match="biases\\[0\\] must have shape \\(2,\\)"):
        ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0], [0]])
    with pytest.raises(ValueError, match="n must be an integer in \\[1, 100000\\]; got 0"):
        max_network(0)
    with pytest.raises(TypeError, match="must be exact"):
        max_network(2).evaluate([[0.5, 1]])
    with pytest.raises(ValueError, match="X must have shape \\(m, 2\\)"):
        max_network(2).evaluate([[1, 2, 3]])
    with pytest.raises(ValueError, match="finite"):
        to_fraction("w", float("nan"))
    with pytest.raises(ValueError, match="could not parse"):
        to_fraction("w", "pi")
    with pytest.raises(TypeError, match="sympy|rational"):
        to_fraction("w", object())
    with pytest.raises(ValueError, match="p must be a prime; got 4"):
        volume_invariant_table(n=2, widths=[2], N=1, p=4, n_networks=1)
    with pytest.raises(ValueError, match="bias-free"):
        newton_polytopes(ReLUNetwork([[[1]], [[1]]], [[1], [0]]))
    with pytest.raises(ValueError, match="mismatched layer shapes: inner has 1 outputs"):
        max_network(3).compose(max2_network().compose(ReLUNetwork([[[1, 1]], [[1]]])))
    assert to_fraction("w", 0.5, allow_float=True) == Fraction(1, 2)


def test_dfs_enumeration_matches_bruteforce_over_all_patterns():
    from theorylab.benchmarks.relu_depth import _regions_bruteforce

    net = max_network(2)
    regions, stats = enumerate_regions(net)
    assert len(regions) == _regions_bruteforce(net) == 5


# --------------------------------------------------------------------------- mutation test
def test_mutation_wrong_lattice_index_in_volume_is_caught(broken_claim):
    """A broken normalized volume (lattice index gcd of minors off by a factor 2) must make the
    simplex claim Vol(face of Delta_n) = 1 fail (run small: n_max = 3)."""
    from theorylab.relu import polytopes

    small = {"n_max": 3}
    assert broken_claim.intact("relu_depth:simplex_unit_volume", overrides=small).verdict == "reproduced"
    minor_gcd = polytopes._minor_gcd
    r = broken_claim("relu_depth:simplex_unit_volume", (polytopes, "_minor_gcd"), lambda B: 2 * minor_gcd(B),
                     overrides=small)
    assert r.verdict == "not reproduced"


def test_polytope_inputs_refused_with_named_arguments():
    from theorylab.relu import (Polytope, bound_table, conv_union, evaluate_reference, face_volumes, lower_bound_vs_N,
                                minkowski_sum, normalized_volume, p_adic_valuation, point, simplex)

    # a polytope with inf vertices used to have volume 1 (int64 cast of inf); now refused
    for bad in ([[np.inf, 0], [1, 0]], [[np.nan, 0]], [[0.5, 0]]):
        with pytest.raises(ValueError, match="num must hold integers"):
            normalized_volume(bad)
        with pytest.raises(ValueError, match="num must hold integers"):
            Polytope(bad)
    with pytest.raises(ValueError, match="num must hold integers with \\|value\\| <= 2\\^40"):
        normalized_volume([[2 ** 41, 0], [0, 0]])
    with pytest.raises(ValueError, match="den must be an integer"):
        normalized_volume([[1, 0], [0, 0]], 0)
    with pytest.raises(TypeError, match="P must be a Polytope"):
        minkowski_sum("abc", simplex(2))
    with pytest.raises(TypeError, match="Q must be a Polytope"):
        conv_union(simplex(2), [])
    with pytest.raises(ValueError, match="same R\\^n"):
        minkowski_sum(simplex(2), simplex(3))
    with pytest.raises(TypeError, match="P must be a Polytope"):
        face_volumes((1, 2))
    with pytest.raises(TypeError, match="v must be a sequence"):
        point(-2.5)
    with pytest.raises(ValueError, match="v\\[0\\]"):
        point([float("inf")])
    with pytest.raises(ValueError, match="n must be an integer in \\[1, 1000\\]"):
        simplex(2 ** 63)
    with pytest.raises(TypeError, match="ns\\[0\\] must be an integer"):
        bound_table([0.2])
    with pytest.raises(TypeError, match="Ns\\[0\\] must be an integer"):
        lower_bound_vs_N(2, [0.2])
    with pytest.raises(ValueError, match="q must be a rational"):
        p_adic_valuation("abc", 3)
    with pytest.raises(TypeError, match="net must be a ReLUNetwork"):
        evaluate_reference("abc", [[1]])
    with pytest.raises(TypeError, match="X\\[0, 1\\] must be exact"):
        F_n([[1, 0.5]])
    assert normalized_volume(simplex(3).num) == 1


def test_fn_construction_stores_its_sweep_points_and_recomputes_only_missing_ones(monkeypatch,
                                                                                  rerun_after_losing_points):
    """Issue 14: one sweep point per n, cached under the claim; a rerun after losing the claim entry and some
    points (a SIGKILL mid-claim) recomputes exactly the missing n and gives the same result."""
    import theorylab.validations.relu_depth as V
    from theorylab.core.checks import REGISTRY

    calls = []
    real_row = V._construction_row
    monkeypatch.setattr(V, "_construction_row", lambda n, *a: calls.append(n) or real_row(n, *a))
    first, again, first_calls = rerun_after_losing_points(
        REGISTRY.claims["relu_depth:fn_construction_exact"], 3, calls, slice(None, None, 2),
        overrides=dict(n_max=6, n_points=5, n_certify=2, n_tropical=1))
    assert sorted(first_calls) == list(range(1, 7))
    assert again.data.equals(first.data)
