"""theorylab.missing_mass: kernels against their Python bodies, exact moments three ways, the search, bad input."""

from fractions import Fraction

import numba
import numpy as np
import pytest

from theorylab.missing_mass import (Estimator, MomentCache, brute_force_moments, counts_from_sample, evolve, exact_moments,
                                    exact_moments_rational, frequencies_of_frequencies, genome_expectation,
                                    good_turing, make_distribution, minimal_bias, monte_carlo_mse, mutate,
                                    phi_prefix_matrix, plug_in_distribution, project, sample, search, search_run,
                                    start_genome, to_estimator)
from theorylab.core.rng import seed_state
from theorylab.missing_mass import _kernels as K
from theorylab.missing_mass.search import PROJECTIONS, allowed_cases
from theorylab.missing_mass.moments import _logfact, atoms_with_mass, group_probabilities

P3 = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]


def _atoms(est, n):
    return atoms_with_mass(est, n)


# ----------------------------------------------------------------------------- kernels

def test_gram_and_means_match_python_bodies():
    est = Estimator([0.5, -0.25, 0.1], [4, 5, 5], [1, 2, 1])
    m, k, w, _ = _atoms(est, 5)
    u, c = group_probabilities(np.array([0.5, 1 / 3, 1 / 6]))
    lf = _logfact(8)
    np.testing.assert_allclose(K.gram(u, c, m, k, w, lf), K.gram.py_func(u, c, m, k, w, lf), rtol=1e-12)
    np.testing.assert_allclose(K.means(u, c, m, k, w), K.means.py_func(u, c, m, k, w), rtol=1e-12)
    X = K.cross_moments(u, c, m[:2], k[:2], w[:2], m, k, w, lf)
    np.testing.assert_allclose(X, K.gram(u, c, m, k, w, lf)[:2], rtol=1e-12)


def test_phi_prefix_and_quad_form_match_python_bodies():
    labels = np.array([0, 2, 2, 1, 0, 2, 3], dtype=np.int64)
    np.testing.assert_array_equal(K.phi_prefix_matrix(labels, 5), K.phi_prefix_matrix.py_func(labels, 5))
    G = np.arange(16.0).reshape(4, 4)
    G = G + G.T
    ids, a = np.array([1, 3]), np.array([0.5, -2.0])
    assert K.quad_mse(G, ids, a) == pytest.approx(K.quad_mse.py_func(G, ids, a))


def test_sampler_matches_python_body_on_small_seeds():
    cdf = np.cumsum([0.2, 0.3, 0.5])
    seeds = np.array([11, 12], dtype=np.uint64)
    out = np.empty(9, dtype=np.int64)
    out_py = np.empty(9, dtype=np.int64)
    state = np.empty(4, dtype=np.uint64)
    seed_state(11, state)
    K._draw_labels.py_func(cdf, 9, out_py, state)
    np.testing.assert_array_equal(K.sample_labels_batch(cdf, 9, seeds)[0], out_py)
    assert out.shape == (9,)


def test_same_seed_same_numbers_whatever_the_thread_count():
    p = make_distribution("zipf", 30)
    a = sample(p, 40, seed=3, reps=7)
    mc_a = monte_carlo_mse(good_turing(40), p, 40, reps=50, seed=4)["sq_error"]
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        b = sample(p, 40, seed=3, reps=7)
        mc_b = monte_carlo_mse(good_turing(40), p, 40, reps=50, seed=4)["sq_error"]
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(mc_a, mc_b)
    assert not np.array_equal(sample(p, 40, seed=4), a[0])


# ----------------------------------------------------------------------------- samples and estimators

def test_frequencies_of_frequencies_labels_and_counts_agree():
    labels = np.array([7, 3, 3, 9, 7, 7])
    phi = frequencies_of_frequencies(labels)
    assert phi[1] == 1 and phi[2] == 1 and phi[3] == 1
    np.testing.assert_array_equal(phi[1:], frequencies_of_frequencies(counts=[3, 2, 1, 0])[1:])
    P = phi_prefix_matrix(labels, S=4)
    assert P[0, 0] == 4 and P[2, 1] == 2 and P[6, 0] == 1
    np.testing.assert_array_equal(P.sum(axis=1), 4)
    assert good_turing(6)(labels) == pytest.approx(1 / 6)
    assert good_turing(6)(counts=counts_from_sample(labels)) == pytest.approx(1 / 6)


def test_estimator_prefix_evaluation_and_printing():
    labels = np.array([0, 1, 0, 2, 2])
    est = Estimator([1.0, 2.0], [3, 5], [1, 2])
    # Phi_1(3) = 1 (class 1), Phi_2(5) = 2 (classes 0, 2)
    assert est(labels) == pytest.approx(1.0 + 4.0)
    assert "Phi_1(3)" in str(est) and "Phi_2(5)" in str(est)
    assert str(good_turing(10)) == "0.1*Phi_1(10)"


def test_distributions_are_normalised_and_dirichlet_is_seeded():
    for d in ("uniform", "half", "zipf", "zipfhalf", "diri", "dirihalf"):
        p = make_distribution(d, 11, seed=1)
        assert p.shape == (11,) and abs(p.sum() - 1) < 1e-12 and np.all(np.diff(p) <= 1e-15)
    np.testing.assert_array_equal(make_distribution("diri", 5, seed=2), make_distribution("diri", 5, seed=2))
    assert make_distribution("half", 4)[0] == pytest.approx(3 / 8)


# ----------------------------------------------------------------------------- exact moments

def test_float_rational_and_enumeration_agree():
    est = Estimator([0.5, -0.25, 0.1], [4, 5, 5], [1, 2, 1])
    bf = brute_force_moments(est, P3, 5)
    ra = exact_moments_rational(est, P3, 5)
    fl = exact_moments(est, np.array([float(x) for x in P3]), 5).as_dict()
    for key in ("mean", "mean_m0", "var", "var_m0", "cov", "mse", "bias"):
        assert bf[key] == ra[key]
        assert fl[key] == pytest.approx(float(bf[key]), rel=1e-11, abs=1e-15)


def test_zero_probability_classes_do_not_count():
    p = np.array([0.5, 0.0, 0.5])
    a = exact_moments(good_turing(6), p, 6)
    b = exact_moments(good_turing(6), np.array([0.5, 0.5]), 6)
    assert a.mse == pytest.approx(b.mse, rel=1e-12)


def test_known_values_and_monte_carlo():
    p = np.full(100, 0.01)
    assert exact_moments(good_turing(50), p, 50).mse == pytest.approx(0.0109147, rel=1e-5)  # spec §1(b)3
    gt = exact_moments(good_turing(100), p, 100)
    assert gt.bias == pytest.approx(0.01 * 0.99**99, rel=1e-12)
    assert gt.mean_m0 == pytest.approx(0.99**100, rel=1e-12)
    mb = exact_moments(minimal_bias(30), np.array([0.25, 0.25, 0.5]), 30)
    assert mb.bias == pytest.approx(-(2 * 0.25**31 + 0.5**31), rel=1e-6)  # -(-1)^n sum p^(n+1)
    mc = monte_carlo_mse(good_turing(100), p, 100, reps=4000, seed=0)
    assert abs(mc["mse"] - gt.mse) < 4 * mc["mse_se"]


# ----------------------------------------------------------------------------- search

def test_mutations_keep_the_expectation_exactly():
    rng = np.random.default_rng(0)
    g = start_genome(6, exact=True)
    target = sum(x * (1 - x) ** 6 for x in P3)
    for _ in range(60):
        g, move = mutate(g, 6, rng, exact=True)
        assert genome_expectation(g, P3) == target
        assert all(m <= 7 and 1 <= k <= m for m, k in g)


def test_start_genome_projects_to_good_turing():
    est = to_estimator(start_genome(50), 50)
    assert est.terms() == good_turing(50).terms()
    assert project({(51, 51): 1.0, (51, 2): 2.0}, 50) == {(50, 2): 2.0}


def test_plug_in_distribution():
    p_hat = plug_in_distribution(counts=[5, 3, 1, 1, 1, 2, 0])
    assert abs(p_hat.sum() - 1) < 1e-12 and np.all(p_hat > 0)
    assert len(p_hat) > 6  # Chao1 adds unseen classes
    emp = plug_in_distribution(counts=[3, 3, 2])  # no singletons: f0 = 0, empirical
    np.testing.assert_allclose(emp, [3 / 8, 3 / 8, 2 / 8])


def test_genome_kernels_match_python_bodies():
    """apply_move + prune and project_genome (run by evolve) against search._apply_move / _project."""
    from theorylab.missing_mass.search import _apply_move, _project
    from theorylab.missing_mass.moments import _logfact

    rng = np.random.default_rng(3)
    n = 12
    lf = _logfact(n + 2)
    for trial in range(300):
        variant, scale = [("identity", "normalised"), ("authors_code", "phi")][trial % 2]
        genome = start_genome(n)
        for _ in range(int(rng.integers(0, 15))):
            genome, _ = mutate(genome, n, rng, variant=variant)
        keys = list(genome)
        gm, gk = (np.array([key[i] for key in keys] + [0, 0], dtype=np.int64) for i in (0, 1))
        ga = np.array([genome[key] for key in keys] + [0.0, 0.0])
        j = int(rng.integers(len(keys)))
        m, k = keys[j]
        picks = [K.allowed_case(m, k, n, i)[0] for i in range(K.allowed_case(m, k, n, 0)[1])]
        assert picks == allowed_cases(m, k, n)
        case, r = picks[int(rng.integers(len(picks)))], float(rng.choice([1.0, rng.random()]))
        tol = float(rng.choice([0.0, 1e-3, 0.05]))
        om, ok, oa = np.zeros_like(gm), np.zeros_like(gk), np.zeros_like(ga)
        L = K.apply_move(gm, gk, ga, len(keys), j, case, r, variant == "authors_code", om, ok, oa)
        L = K.prune(om, ok, oa, L, n, tol, scale == "phi", lf)
        child = {(int(a), int(b)): float(c) for a, b, c in zip(om[:L], ok[:L], oa[:L])}
        assert child == _apply_move(genome, n, m, k, case, r, tol, variant, scale)
        if child:
            for projection in PROJECTIONS:
                qm, qk, qa = np.zeros(L + 2, np.int64), np.zeros(L + 2, np.int64), np.zeros(L + 2)
                P = K.project_genome(om, ok, oa, L, n, projection == "phi", qm, qk, qa)
                got = {(int(a), int(b)): float(c) for a, b, c in zip(qm[:P], qk[:P], qa[:P])}
                assert got == _project(child, n, projection)


def test_evolve_kernel_fitness_is_the_exact_mse_of_its_genome():
    """The kernel's incremental Gram store against MomentCache (grown independently) and exact_moments."""
    p = plug_in_distribution(sample(make_distribution("zipfhalf", 40, seed=1), 40, seed=2))
    for variant, projection, scale in (("identity", "normalised", "normalised"), ("authors_code", "phi", "phi")):
        res = evolve(p, 40, ngen=60, max_gen=60, seed=4, variant=variant, projection=projection, prune_scale=scale)
        cache = MomentCache(p, 40, projection)
        assert res.fitness == pytest.approx(cache.mse(res.genome), rel=1e-10)
        assert res.initial_fitness == pytest.approx(cache.mse(start_genome(40)), rel=1e-12)
        assert np.all(np.diff(res.history.best_fitness) <= 0)  # elitism: the top 3 survive


def test_evolve_never_worse_than_start_and_reproducible():
    p = make_distribution("uniform", 30)
    a = evolve(p, 30, ngen=20, max_gen=20, seed=1)
    b = evolve(p, 30, ngen=20, max_gen=20, seed=1)
    assert a.fitness <= a.initial_fitness
    assert a.fitness == b.fitness and str(a.estimator) == str(b.estimator)
    assert a.fitness == pytest.approx(exact_moments(a.estimator, p, 30).mse, rel=1e-9)
    assert a.estimator.n_terms <= 20
    r = search_run("zipf", 30, 30, seed=2, max_gen=20, ngen=20)
    assert {"gt_mse", "evo_mse", "ratio", "success"} <= set(r)
    res = search(sample(p, 30, seed=1), ngen=10, max_gen=10, seed=0)
    assert res.generations == 10


# ----------------------------------------------------------------------------- bad input

def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="sample must be a non-empty"):
        frequencies_of_frequencies(np.array([], dtype=int))
    with pytest.raises(ValueError, match="counts must be non-negative"):
        frequencies_of_frequencies(counts=[2, -1, 3])
    with pytest.raises(ValueError, match="counts must describe a non-empty"):
        plug_in_distribution(counts=[0, 0])
    with pytest.raises(ValueError, match=r"S must be >= the number of observed classes \(3\)"):
        phi_prefix_matrix([0, 1, 2], S=2)
    with pytest.raises(ValueError, match="n' = 12 > n = 10"):
        exact_moments(good_turing(12), np.full(4, 0.25), 10)
    with pytest.raises(ValueError, match="needs prefixes up to n' = 12"):
        good_turing(12)(np.zeros(10, dtype=int))
    with pytest.raises(ValueError, match="p must sum to 1"):
        exact_moments(good_turing(5), [0.5, 0.4], 5)
    with pytest.raises(ValueError, match="p must sum to 1 exactly"):
        exact_moments_rational(good_turing(5), [Fraction(1, 2), Fraction(1, 3)], 5)
    with pytest.raises(ValueError, match="p must be non-negative"):
        sample([1.5, -0.5], 3, seed=0)
    with pytest.raises(ValueError, match="k must satisfy 1 <= k <= m"):
        Estimator([1.0], [3], [4])
    with pytest.raises(ValueError, match="n must be an integer in"):
        sample([1.0], 0, seed=0)
    with pytest.raises(ValueError, match="name must be one of"):
        make_distribution("pareto", 10)
    with pytest.raises(ValueError, match="distribution must be one of"):
        search_run("pareto", 10, 10)
    with pytest.raises(ValueError, match="a count vector only gives Phi_k"):
        Estimator([1.0], [2], [1])(counts=[1, 1, 1])
    with pytest.raises(ValueError, match="n must equal the sample size 3"):
        search(counts=[1, 1, 1], n=5)


def test_rational_path_is_exact_by_default():
    # GT's coefficient 1/n is carried as the Fraction 1/n (was Fraction(float(1/n)): bias off by ~1e-17)
    n = 7
    for est in (good_turing(n), minimal_bias(n)):
        assert est.exact_coef is not None
    bias = exact_moments_rational(good_turing(n), P3, n)["bias"]
    assert bias == sum(x**2 * (1 - x) ** (n - 1) for x in P3)  # E[Phi_1(n)]/n - E[M_0(n)], exactly
    mb = exact_moments_rational(minimal_bias(n), P3, n)["bias"]
    assert mb == -(-1) ** n * sum(x ** (n + 1) for x in P3)
    # floats are converted exactly (their binary value), and must then sum to 1 exactly
    p_float = [0.5, 0.25, 0.25]
    assert exact_moments_rational(good_turing(4), p_float, 4)["mean_m0"] == sum(
        Fraction(x) * (1 - Fraction(x)) ** 4 for x in p_float)
    with pytest.raises(ValueError, match="p must sum to 1 exactly"):
        exact_moments_rational(good_turing(4), [0.3, 0.7], 4)
    # a hand-made estimator without exact_coef: each float's binary value, exactly
    est = Estimator([0.1], [3], [1])
    assert exact_moments_rational(est, P3, 3)["mean"] == Fraction(0.1) * 3 * sum(
        x * (1 - x) ** 2 for x in P3)
    with pytest.raises(ValueError, match="exact_coef must equal coef"):
        Estimator([0.1], [3], [1], exact_coef=[Fraction(1, 3)])


@pytest.mark.parametrize("call, exc, match", [
    (lambda: minimal_bias(2**63), ValueError, r"n must be an integer in \[1, 10000\]"),
    (lambda: good_turing(2**63), ValueError, r"n must be an integer in \[1, 1000000\]"),
    (lambda: sample([0.5, 0.5], 10**6, reps=10**9, seed=0), ValueError, "reps must be an integer in"),
    (lambda: monte_carlo_mse(good_turing(10), [0.5, 0.5], 10, reps=10**9), ValueError, "reps must be an integer in"),
    (lambda: phi_prefix_matrix(np.arange(4), S=2**63), ValueError, "S must be an integer in"),
    (lambda: phi_prefix_matrix(np.zeros(20_000, dtype=int)), ValueError, "labels must have at most 9998"),
    (lambda: make_distribution(np.array(["zipf"]), 10), TypeError, "name must be one of"),
    (lambda: make_distribution("zipf", 10**9), ValueError, "S must be an integer in"),
    (lambda: exact_moments(Estimator(np.full(400, 1e-3), np.full(400, 500), np.arange(1, 401)),
                           make_distribution("diri", 400, seed=0), 500), ValueError, "over the budget"),
    (lambda: mutate({(3, 1): 1.0}, 2, np.zeros(3)), TypeError, "rng must be a numpy.random.Generator"),
    (lambda: mutate([0.5], 2, np.random.default_rng(0)), TypeError, "genome must be a dict"),
    (lambda: project({(9, 1): 1.0}, 2), ValueError, r"genome keys must be integer pairs .* m <= n \+ 1 = 3"),
    (lambda: project({(3, 1): float("nan")}, 2), ValueError, "genome coefficients must be finite"),
    (lambda: to_estimator({(3, 1): 1.0}, 2, projection="none"), ValueError, "projection must be one of"),
    (lambda: start_genome(5, exact="yes"), TypeError, "exact must be True or False"),
    (lambda: genome_expectation({(3, 1): 1.0}, [0.5, float("nan")]), ValueError, "p must hold finite numbers"),
    (lambda: evolve([0.5, 0.5], 10, max_gen=10**9), ValueError, "max_gen must be an integer in"),
    (lambda: evolve([0.5, 0.5], 10, variant="other"), ValueError, "variant must be one of"),
    (lambda: search(counts=[3, 1], seed="x"), TypeError, "seed must be"),
    (lambda: exact_moments_rational(good_turing(2), P3, 2, coef=True), TypeError, "coef must be a sequence"),
    (lambda: brute_force_moments(good_turing(2), P3, 2, coef=[1, 2]), ValueError, "coef must have 1 entries"),
])
def test_bad_input_refused_before_allocating(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_outputs_are_checked():
    from theorylab.missing_mass import Moments, family_optimum, g_exact

    with pytest.raises(ValueError, match="var must be a finite float"):
        Moments(0.1, 0.1, float("nan"), 0.1, 0.1, 0.1)
    assert g_exact(P3, 4, 1) == sum(x * (1 - x) ** 3 for x in P3)
    with pytest.raises(ValueError, match=r"k must be an integer in \[0, 4\]"):
        g_exact(P3, 4, 5)
    r = family_optimum(make_distribution("uniform", 10), 4)  # default window clipped to n - 1
    assert np.isfinite(r["ratio"]) and r["ratio"] <= 1 + 1e-9


def test_mutation_wrong_mse_constant_is_caught_by_monte_carlo(broken_claim):
    """A broken simulator constant: MSE = E[E^2] - 1.9 E[E M_0] + E[M_0^2] (instead of 2 E[E M_0]).
    The ci claim gt_mse_monte_carlo (exact MSE against an independent Monte Carlo) must say
    "not reproduced"; the intact formulas pass with the same (reduced) number of repetitions."""
    from theorylab.missing_mass import moments as M

    small = {"reps": 4000}
    assert broken_claim.intact("missing_mass:gt_mse_monte_carlo", overrides=small).verdict == "reproduced"
    original = M.moments_from_gram

    def broken(G, mu, a):
        ok = original(G, mu, a)
        cross = ok.cov + ok.mean * ok.mean_m0           # E[E M_0]
        return M.Moments(ok.mean, ok.mean_m0, ok.var, ok.var_m0, ok.cov, ok.mse + 0.1 * cross)

    r = broken_claim("missing_mass:gt_mse_monte_carlo", (M, "moments_from_gram"), broken, overrides=small)
    assert r.verdict == "not reproduced", r.measured
