"""Unit tests of theorylab.tv: kernels (py_func vs jitted, seeds, threads), API, bad input."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numba
import numpy as np
import pytest

import theorylab.tv as tv
from theorylab.core import SimulationDiverged  # noqa: F401  (the API raises it on non-finite output)
from theorylab.core.seeding import spawn_seeds
from theorylab.tv import _kernels as K
from theorylab.tv.equivalence import PRIMES, _modular_arrays
from theorylab.tv.estimators import _cdf, coupling_parts
from theorylab.core import clear_experiments


# --------------------------------------------------------------------------- helpers
def brute_tv(P, Q):
    return 0.5 * sum(abs(P.pmf(x) - Q.pmf(x)) for x in itertools.product(range(P.q), repeat=P.n))


def brute_ising_energies(model):
    n = model.n
    E = np.empty(2 ** n)
    for idx in range(2 ** n):
        x = np.array([1.0 if (idx >> i) & 1 else -1.0 for i in range(n)])
        E[idx] = 0.5 * model.beta * x @ model.J @ x + model.h @ x
    return E


def thread_counts():
    return list(range(1, numba.config.NUMBA_NUM_THREADS + 1))


# --------------------------------------------------------------------------- kernels
def test_mixture_tv_kernel_matches_py_func_and_brute_force():
    P = tv.random_mixture(3, 5, 3, seed=1, exact=False)
    Q = tv.random_mixture(2, 5, 3, seed=2, exact=False)
    c, M = np.concatenate([P.weights, -Q.weights]), np.concatenate([P.marginals, Q.marginals])
    for n_top in (0, 2, 5):
        jit, ops = K.mixture_tv_kernel(c, M, n_top)
        py, ops_py = K.mixture_tv_kernel.py_func(c, M, n_top)
        assert jit == pytest.approx(py, rel=1e-13) and ops == ops_py >= len(c) * 3 ** 5
        assert jit == pytest.approx(brute_tv(P, Q), rel=1e-12)


def test_mixture_tv_kernel_thread_independent():
    P = tv.random_mixture(2, 14, 2, seed=3, exact=False)
    Q = tv.random_mixture(2, 14, 2, seed=4, exact=False)
    old = numba.get_num_threads()
    try:
        vals = []
        for t in thread_counts():
            numba.set_num_threads(t)
            vals.append(tv.tv_exact(P, Q))
    finally:
        numba.set_num_threads(old)
    assert all(v == vals[0] for v in vals)


def test_ising_energies_kernel_gray_code_matches_brute_force():
    m = tv.random_ising(7, beta=1.3, seed=5)
    E_b = brute_ising_energies(m)
    for n_top in (0, 3, 7):
        E = K.ising_energies_kernel(np.ascontiguousarray(m.J), np.ascontiguousarray(m.h), m.beta, n_top)
        np.testing.assert_allclose(E, E_b, rtol=1e-12, atol=1e-12)
    E_py = K.ising_energies_kernel.py_func(np.ascontiguousarray(m.J), np.ascontiguousarray(m.h), m.beta, 2)
    np.testing.assert_allclose(E_py, E_b, rtol=1e-12, atol=1e-12)


def test_ising_energies_thread_independent():
    m = tv.random_ising(12, seed=6)
    old = numba.get_num_threads()
    try:
        outs = []
        for t in thread_counts():
            numba.set_num_threads(t)
            outs.append(tv.log_weights(m))
    finally:
        numba.set_num_threads(old)
    for o in outs[1:]:
        np.testing.assert_array_equal(o, outs[0])


def _coupling_args(P, Q):
    parts = coupling_parts(P, Q)
    p, q_ = P.marginals[0], Q.marginals[0]
    with np.errstate(divide="ignore"):
        logs = np.log(p), np.log(q_), np.log(parts.mins)
    first_cdf = np.cumsum(parts.first)
    first_cdf[-1] = 1.0
    return (first_cdf, _cdf(parts.mins), _cdf(p - parts.mins), _cdf(p)) + logs


def test_coupling_kernel_py_func_same_stream():
    P, Q = tv.random_product(4, 3, seed=7), tv.random_product(4, 3, seed=8)
    args = _coupling_args(P, Q)
    seeds = spawn_seeds(1, 3).astype(np.int64)
    jit = K.coupling_g_kernel(*args, seeds, 16)
    py = K.coupling_g_kernel.py_func(*args, seeds, 16)
    np.testing.assert_allclose(jit, py, rtol=1e-12, atol=0)
    assert np.all((jit >= 0) & (jit <= 1))


def test_coupling_samples_seeded_and_thread_independent():
    P, Q = tv.random_product(6, 2, seed=9), tv.random_product(6, 2, seed=10)
    a = tv.coupling_g_samples(P, Q, 5000, seed=3)
    b = tv.coupling_g_samples(P, Q, 5000, seed=3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, tv.coupling_g_samples(P, Q, 5000, seed=4))
    old = numba.get_num_threads()
    try:
        outs = []
        for t in thread_counts():
            numba.set_num_threads(t)
            outs.append(tv.coupling_g_samples(P, Q, 5000, seed=3))
    finally:
        numba.set_num_threads(old)
    for o in outs:
        np.testing.assert_array_equal(o, a)


def test_uniform_dp_and_modular_kernels_py_func():
    P = tv.random_product(5, 3, seed=11)
    r = tv.fptas_uniform(P, eps=0.2)
    assert r.value > 0
    Pm = tv.random_mixture(2, 4, 2, seed=12)
    Qm = tv.random_mixture(2, 4, 2, seed=13)
    c, M = _modular_arrays(Pm, Qm, PRIMES[0])
    out_j = K.modular_basis_kernel(c, M, PRIMES[0])
    out_p = K.modular_basis_kernel.py_func(c, M, PRIMES[0])
    for a, b in zip(out_j, out_p):
        np.testing.assert_array_equal(a, b)
    w = np.array([[1, -2, 0], [3, -1, -1]], dtype=np.int64)
    dead = np.zeros((2, 3), bool)
    p = np.full((2, 3), 1 / 3)
    suffix = np.array([4, 3, 0], dtype=np.int64)
    assert K.uniform_dp_kernel(w, dead, p, suffix, 3) == pytest.approx(K.uniform_dp_kernel.py_func(w, dead, p, suffix, 3))


# --------------------------------------------------------------------------- exact TV
def test_tv_exact_agrees_three_ways():
    P = tv.random_mixture(3, 4, 3, seed=14)
    Q = tv.random_mixture(2, 4, 3, seed=15)
    r = tv.tv_exact_rational(P, Q)
    assert isinstance(r, Fraction)
    assert tv.tv_exact(P, Q) == pytest.approx(float(r), rel=1e-12)
    assert tv.tv_numpy(P, Q) == pytest.approx(float(r), rel=1e-12)
    assert tv.tv_exact(P, P) == pytest.approx(0, abs=1e-15)


def test_tv_of_products_on_disjoint_supports_is_one():
    P = tv.product([[1, 0], [Fraction(1, 2), Fraction(1, 2)]])
    Q = tv.product([[0, 1], [Fraction(1, 3), Fraction(2, 3)]])
    assert tv.tv_exact_rational(P, Q) == 1
    assert tv.tv_exact(P, Q) == pytest.approx(1.0)


# --------------------------------------------------------------------------- equivalence
@pytest.mark.parametrize("method", ["exact", "modular"])
def test_equivalence_on_nontrivial_pairs(method):
    for s in range(5):
        P = tv.random_mixture(3, 4, 3, seed=s)
        Q = tv.split_and_permute(P, seed=s + 100)
        assert tv.equivalent(P, Q, method=method).equivalent
        A, B = tv.conditioning_pair(3, seed=s)
        assert tv.equivalent(A, B, method=method).equivalent
        assert tv.tv_exact_rational(A, B) == 0
        R = tv.perturb(Q, size=Fraction(1, 10 ** 9), seed=s)
        res = tv.equivalent(P, R, method=method)
        assert not res.equivalent
        assert res.difference == P.pmf_exact(res.witness) - R.pmf_exact(res.witness) != 0
        assert res.event == {res.witness}


def test_equivalence_basis_dimension_and_certify_flag():
    P = tv.random_mixture(3, 6, 2, seed=20)
    Q = tv.random_mixture(3, 6, 2, seed=21)
    res = tv.equivalent(P, Q, method="modular", certify=False)
    assert not res.equivalent and res.difference is None and len(res.witness) == 6
    assert res.basis_sizes.max() <= P.k + Q.k
    assert res.basis_sizes[0] == 1


def test_equivalence_of_float_inputs_uses_exact_binary_values():
    P = tv.product([[0.25, 0.75], [0.5, 0.5]])
    Q = tv.mixture([0.5, 0.5], [[[0.25, 0.75], [0.5, 0.5]]] * 2)
    with pytest.warns(tv.FloatInputWarning, match="exact binary value"):
        assert tv.equivalent(P, Q)
    Q2 = tv.product([[0.25, 0.75], [0.5 + 2 ** -40, 0.5 - 2 ** -40]])
    with pytest.warns(tv.FloatInputWarning):
        assert not tv.equivalent(P, Q2)


def test_decimal_inputs_as_strings_are_exact_and_floats_warn():
    # 0.3/0.7 = 1/2 (0.1/0.9) + 1/2 (0.5/0.5) in decimals, not in binary floats (issue 14)
    P, Q = tv.product([["0.3", "0.7"]]), tv.mixture(["1/2", "1/2"], [[["0.1", "0.9"]], [["0.5", "0.5"]]])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")                         # no warning for exact input
        assert tv.equivalent(P, Q) and tv.tv_exact_rational(P, Q) == 0
    Pf, Qf = tv.product([[0.3, 0.7]]), tv.mixture([0.5, 0.5], [[[0.1, 0.9]], [[0.5, 0.5]]])
    with pytest.warns(tv.FloatInputWarning, match="P, Q built from floats"):
        assert not tv.equivalent(Pf, Qf)
    assert Pf.pmf_exact((0,)) != Qf.pmf_exact((0,))           # binary 0.3 != (binary 0.1) / 2 + 1/4
    with pytest.warns(tv.FloatInputWarning):
        tv.tv_exact_rational(Pf, Qf)
    with pytest.raises(TypeError, match="certify"):
        tv.equivalent(P, Q, certify="yes")


# --------------------------------------------------------------------------- estimators
def test_coupling_identity_sandwich_and_estimate():
    P, Q = tv.random_product(8, 3, seed=22), tv.random_product(8, 3, seed=23)
    exact = tv.tv_exact(P, Q)
    assert tv.coupling_identity(P, Q) == pytest.approx(exact, rel=1e-12)
    lo, hi = tv.coupling_bounds(P, Q)
    assert lo <= exact <= hi
    est = tv.coupling_estimate(P, Q, eps=0.1, delta=0.01, seed=1)
    assert abs(est / exact - 1) <= 0.1
    assert est == tv.coupling_estimate(P, Q, eps=0.1, delta=0.01, seed=1)


def test_coupling_estimate_of_identical_products_is_zero():
    P = tv.random_product(5, 2, seed=24)
    assert tv.coupling_estimate(P, P) == 0.0


def test_fptas_uniform_contract_small():
    for s in range(4):
        P = tv.random_product(10, 2, seed=30 + s)
        exact = tv.tv_exact(P, tv.uniform(10, 2))
        for eps in (0.5, 0.1):
            r = tv.fptas_uniform(P, eps=eps)
            assert abs(r.value - exact) <= eps * exact
    assert tv.fptas_uniform(tv.uniform(4, 3)).value == 0.0


def test_fptas_handles_zero_probabilities():
    P = tv.product([[1.0, 0.0], [0.3, 0.7], [0.0, 1.0]])
    exact = tv.tv_exact(P, tv.uniform(3, 2))
    assert tv.fptas_uniform(P, eps=0.1).value == pytest.approx(exact, rel=0.1)


# --------------------------------------------------------------------------- Ising
def test_ising_identity_and_partition_from_tv():
    m = tv.random_ising(6, beta=1.0, seed=40)
    Q = tv.field_change(m, 2, 0.7)
    assert tv.ising_tv(m, Q) == pytest.approx(abs(tv.marginal_plus(Q, 2) - tv.marginal_plus(m, 2)), abs=1e-13)
    assert tv.marginal_plus(Q, 2) == pytest.approx(tv.marginal_shift(tv.marginal_plus(m, 2), 0.7), rel=1e-12)
    E = brute_ising_energies(m)
    lz = np.log(np.exp(E - E.max()).sum()) + E.max()
    assert tv.log_partition(m) == pytest.approx(lz, rel=1e-13)
    assert tv.log_partition_from_tv(m) == pytest.approx(lz, rel=1e-10)
    assert tv.marginal_from_tv(m, 0) == pytest.approx(tv.marginal_plus(m, 0), abs=1e-12)
    assert tv.marginal_from_tv(m, 0, delta=-20) == pytest.approx(1 - tv.marginal_plus(m, 0), abs=1e-12)


# --------------------------------------------------------------------------- bad input
def test_bad_marginals_and_weights():
    with pytest.raises(ValueError, match=r"marginals\[0, 1, :\] must sum to 1"):
        tv.product([[0.5, 0.5], [0.5, 0.6]])
    with pytest.raises(ValueError, match="must sum to 1 exactly"):
        tv.product([[Fraction(1, 3), Fraction(1, 3)]])
    with pytest.raises(ValueError, match="weights must be non-negative"):
        tv.mixture([1.5, -0.5], [[[0.5, 0.5]], [[0.5, 0.5]]])
    with pytest.raises(ValueError, match="marginals must be non-negative"):
        tv.product([[1.5, -0.5]])
    with pytest.raises(ValueError, match="weights must have shape"):
        tv.mixture([1.0], [[[0.5, 0.5]], [[0.5, 0.5]]])
    with pytest.raises(ValueError, match="3-d array"):
        tv.mixture([1.0], [[0.5, 0.5]])
    with pytest.raises(TypeError, match="must hold numbers"):
        tv.product([[None, 1]])
    with pytest.raises(ValueError, match="not a rational number"):
        tv.product([["a", "1"]])


def test_alphabet_and_dimension_mismatch():
    P = tv.random_product(3, 2, seed=1)
    with pytest.raises(ValueError, match="alphabet mismatch: P has alphabet size q = 2 but Q has q = 3"):
        tv.tv_exact(P, tv.random_product(3, 3, seed=2))
    with pytest.raises(ValueError, match="dimension mismatch"):
        tv.equivalent(P, tv.random_product(4, 2, seed=2))
    with pytest.raises(TypeError, match="Q must be a Mixture"):
        tv.tv_exact(P, np.ones((3, 2)) / 2)


def test_bad_estimator_arguments():
    P, Q = tv.random_product(3, 2, seed=1), tv.random_product(3, 2, seed=2)
    with pytest.raises(ValueError, match=r"eps must be a finite float in \(0.0, 1.0\)"):
        tv.coupling_estimate(P, Q, eps=0)
    with pytest.raises(ValueError, match="delta must be"):
        tv.coupling_estimate(P, Q, delta=1.5)
    with pytest.raises(ValueError, match="P must be a product distribution"):
        tv.coupling_estimate(tv.random_mixture(2, 3, 2, seed=3), Q)
    with pytest.raises(ValueError, match="P must be a product distribution"):
        tv.fptas_uniform(tv.random_mixture(2, 3, 2, seed=3))
    with pytest.raises(ValueError, match="method must be one of"):
        tv.equivalent(P, Q, method="float")
    with pytest.raises(ValueError, match="max_points"):
        tv.tv_exact(tv.random_product(30, 2, seed=4), tv.random_product(30, 2, seed=5))


def test_bad_ising_input():
    with pytest.raises(ValueError, match="J must be symmetric"):
        tv.ising([[0, 1], [0, 0]], [0, 0])
    with pytest.raises(ValueError, match="zero diagonal"):
        tv.ising([[1, 0], [0, 0]], [0, 0])
    with pytest.raises(ValueError, match=r"J must have shape \(2, 2\)"):
        tv.ising(np.zeros((3, 3)), [0, 0])
    with pytest.raises(ValueError, match="P and Q must have the same number of spins"):
        tv.ising_tv(tv.random_ising(3, seed=1), tv.random_ising(4, seed=1))
    with pytest.raises(ValueError, match=r"v must be an integer in \[0, 2\]"):
        tv.field_change(tv.random_ising(3, seed=1), 3, 0.5)
    with pytest.raises(ValueError, match="must contain only finite values"):
        tv.ising(np.zeros((2, 2)), [np.nan, 0])


# --------------------------------------------------------------------------- mutation test
def test_mutation_tv_without_one_half_is_caught(broken_claim):
    """A broken enumeration (d_TV = sum_x |P - Q| instead of 1/2 sum_x |P - Q|, Sec. 1's
    definition) must make the cheap identity claim Z E_pi[g] = d_TV fail at ci scale."""
    from theorylab.tv import exact as tv_exact_module

    key = "tv_distance:coupling_identity_and_sandwich"
    assert broken_claim.intact(key).verdict == "reproduced"
    kernel = tv_exact_module.mixture_tv_kernel

    def doubled(c, M, n_top):
        tv, ops = kernel(c, M, n_top)
        return 2.0 * tv, ops

    assert broken_claim(key, (tv_exact_module, "mixture_tv_kernel"), doubled).verdict == "not reproduced"


def test_public_functions_name_bad_arguments():
    M = tv.random_ising(3, seed=0)
    P = tv.random_mixture(2, 3, 2, seed=0)
    cases = [
        (TypeError, "P must be a Mixture", lambda: tv.joint_pmf("abc")),
        (TypeError, "P must be a Mixture", lambda: tv.perturb("abc")),
        (TypeError, "P must be a Mixture", lambda: tv.split_and_permute((1, 2))),
        (ValueError, "size must be in \\(0, 1\\]", lambda: tv.perturb(P, size=2)),
        (TypeError, "model must be an IsingModel", lambda: tv.marginal_plus("abc", 0)),
        (TypeError, "tv_oracle must be None or a callable", lambda: tv.log_partition_from_tv(M, tv_oracle=3)),
        (TypeError, "field_scale", lambda: tv.random_ising(2, field_scale=None)),
        (ValueError, "denom must be an integer", lambda: tv.random_mixture(2, 2, 2, denom=2 ** 63)),
        (ValueError, "denom must be an integer", lambda: tv.conditioning_pair(2, denom=2 ** 63)),
        (ValueError, "q must be an integer", lambda: tv.conditioning_pair(-1)),
        (ValueError, "random_mixture's marginal table needs", lambda: tv.random_mixture(10 ** 4, 10 ** 4, 2)),
    ]
    for exc, msg, call in cases:
        with pytest.raises(exc, match=msg):
            call()


def test_time_cubic_in_k_stores_its_sweep_points_and_recomputes_only_missing_ones(monkeypatch,
                                                                                   rerun_after_losing_points):
    """Issue 14: one sweep point per (k, n), cached under the claim; a rerun after losing the claim entry and
    a point (a SIGKILL mid-claim) recomputes exactly that point; the cost counts (the evidence) are unchanged."""
    import theorylab.validations.tv_distance as V
    from theorylab.core.checks import REGISTRY

    calls = []
    real = V.ex.equivalence_timings
    monkeypatch.setattr(V.ex, "equivalence_timings", lambda ns, ks, **kw: calls.append(ks) or real(ns, ks, **kw))
    # reset: the in-process memo shared with the figure, so that the claim really runs its sweep
    first, again, first_calls = rerun_after_losing_points(
        REGISTRY.claims["tv_distance:equivalence_time_cubic_in_k"], 2, calls, slice(2, 3),
        overrides=dict(n=40, ks=(3, 4, 6, 8), repeat=1), reset=clear_experiments)
    assert len(first_calls) == 4
    assert again.measured_value == first.measured_value
    assert again.data.ops.tolist() == first.data.ops.tolist()
