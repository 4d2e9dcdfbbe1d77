"""theorylab.markov: kernels against their Python bodies, reproducibility, the numpy reference, bad input."""

import numba
import numpy as np
import pytest

from theorylab.core import SimulationDiverged, spawn_seeds
from theorylab.markov import (PairAverages, Problem, cos_problem, divergence_bound, logistic_problem,
                              quadratic_problem, rr_estimate, run_pair, run_pair_numpy, softplus_problem)
from theorylab.markov.chains import MAX_WORK, MAX_WORK_NUMPY
from theorylab.markov import _kernels as K
from theorylab.core import clear_experiments


def test_problem_constants():
    p = softplus_problem()
    s = 1 / (1 + np.exp(-3 * p.theta_star[0]))
    assert abs(p.theta_star[0] + 6 * s) < 1e-12  # f'(theta*) = theta* + c b sigma(b theta*) = 0
    assert abs(p.Delta[0] - (-p.third[0, 0, 0] / (4 * p.H[0, 0] ** 2))) < 1e-12  # 1-d form of Delta
    q = logistic_problem()
    assert np.allclose(q.args["G_star"].mean(0), 0, atol=1e-12)  # grad f(theta*) = 0
    assert np.allclose(q.H @ q.C + q.C @ q.H, q.Sigma_eps)
    assert cos_problem().Delta[0] == 0 and quadratic_problem().Delta[0] == 0


def test_kernel_matches_its_python_body():
    seeds = spawn_seeds(1, 3)
    out_j, out_p = np.empty((3, 4)), np.empty((3, 4))
    div_j, div_p = np.empty(3, np.int64), np.empty(3, np.int64)
    K.pair_chains_1d(K.COS, 0.0, 0.0, 0.05, 1.0, 5.0, 50, 100, seeds, True, 1e6, out_j, div_j)
    states = np.empty((3, 4), dtype=np.uint64)
    K.pair_start(seeds, states)
    x, sums = np.full((3, 2), 5.0), np.zeros((3, 4))
    div_p[:] = -1
    for k0, k1 in ((0, 30), (30, 120), (120, 150)):  # the resumable kernel's Python body, in three ranges
        K.pair_steps_1d.py_func(K.COS, 0.0, 0.0, 0.05, 1.0, 50, k0, k1, states, x, sums, True, 1e6, div_p)
    out_p[:] = sums / 100
    np.testing.assert_allclose(out_j, out_p, rtol=1e-12)
    assert np.all(div_j == -1) and np.all(div_p == -1)


def test_same_seed_same_numbers_whatever_the_thread_count():
    q = logistic_problem()
    kw = dict(gamma=0.01, n=500, n_chains=6, seed=5)
    a = run_pair(q, **kw)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        b = run_pair(q, **kw)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(a.rr, b.rr)
    assert not np.array_equal(run_pair(q, **{**kw, "seed": 6}).rr, a.rr)


def test_shared_noise_leading_terms_coincide_and_rr_combination():
    out = run_pair("cos", gamma=0.02, n=2000, n_chains=16, seed=0)
    np.testing.assert_allclose(out.leading, out.leading_pr)
    np.testing.assert_allclose(out.rr, 2 * out.pr_gamma - out.pr_2gamma)
    ind = run_pair("cos", gamma=0.02, n=2000, n_chains=16, seed=0, coupling="independent")
    assert not np.allclose(ind.leading, ind.leading_pr)


def test_jitted_and_numpy_reference_agree_in_distribution():
    kw = dict(gamma=0.05, n=2000, n_chains=400)
    a = run_pair("softplus", seed=1, **kw)
    b = run_pair_numpy("softplus", seed=2, **kw)
    for x, y in ((a.pr_gamma, b.pr_gamma), (a.rr, b.rr)):
        se = np.sqrt(x.var() / x.size + y.var() / y.size)
        assert abs(x.mean() - y.mean()) < 4 * se
        assert 0.8 < x.std() / y.std() < 1.25


@pytest.mark.parametrize("kwargs, match", [
    (dict(gamma=-0.1, n=10), "gamma must be a finite float in"),
    (dict(gamma=0.5, n=10), r"gamma must be a finite float in \(0.0, 0.333"),
    (dict(gamma=float("nan"), n=10), "gamma must be a finite float"),
    (dict(gamma=0.01, n=0), rf"n must be an integer in \[1, {MAX_WORK // 320}\]; got 0"),  # 320 chains
    (dict(gamma=0.01, n=10, n_chains=0), "n_chains must be an integer"),
    (dict(gamma=0.01, n=10, coupling="same"), "coupling must be one of 'shared', 'independent'; got 'same'"),
    (dict(gamma=0.01, n=10, x0=[1.0, 2.0]), r"x0 must have shape \(1,?\)"),
    (dict(gamma=0.01, n=10, x0=np.nan), "x0 must contain only finite values"),
])
def test_bad_input_is_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        run_pair("cos", **kwargs)


def test_unknown_problem_and_divergence_are_reported():
    with pytest.raises(ValueError, match="problem must be a Problem or one of 'cos'"):
        run_pair("rosenbrock", gamma=0.01, n=10)
    with pytest.raises(TypeError, match="n must be an integer"):
        run_pair("cos", gamma=0.01, n="10")
    with pytest.raises(ValueError, match="x0 must be within 1e"):
        run_pair(logistic_problem(), gamma=0.01, n=10, n_chains=2, x0=np.full(5, 1e151))


def test_divergence_guard_uses_the_derived_bound():
    # a problem that overstates its curvature mu gets a bound far below its real noise level:
    # the guard must fire (on the first step) instead of returning averages
    p = cos_problem()
    liar = Problem(p.name, p.kind, p.theta_star, p.H, p.Sigma_eps, p.third, p.args, mu=1e60)
    assert divergence_bound(liar, 0.01, p.theta_star) < 1e-20
    for run in (run_pair, run_pair_numpy):
        with pytest.raises(SimulationDiverged, match=r"diverged at step \d+: .theta. left the bound"):
            run(liar, gamma=0.01, n=10, n_chains=2)
    # the honest bound: 1e6 x (|x0 - theta*| + the stationary sd of the 2 gamma chain)
    assert divergence_bound(p, 0.02, [3.0]) == pytest.approx(1e6 * (3.0 + np.sqrt(2 * 0.02)))


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=2**63), r"n must be an integer in \[1, {per8}\]"),            # int64 wrap in the kernel before
    (dict(n=10, n_chains=10**9), r"n_chains must be an integer in \[1, "),   # hung before
    (dict(n=10**9, n_chains=10**3), r"n must be an integer in \[1, {per1000}\]"),
    (dict(n=10, n_burn=2**62), "n_burn must be an integer in"),
    (dict(n=10, x0="a"), "x0 must be"),
    (dict(n=10, coupling=["shared"]), "coupling must be a str"),
    (dict(n=10.5), "n must be an integer"),
])
def test_budget_and_types_refused_before_allocating(kwargs, match):
    # the bound on n is the work budget over n_chains (d = 1): MAX_WORK for the kernel, MAX_WORK_NUMPY for numpy
    for fn, budget in ((run_pair, MAX_WORK), (run_pair_numpy, MAX_WORK_NUMPY)):
        chains = kwargs.get("n_chains", 8)
        with pytest.raises((ValueError, TypeError), match=match.format(per8=budget // 8, per1000=budget // chains)):
            fn("cos", gamma=0.01, **{"n_chains": 8, **kwargs})


def test_problem_and_outputs_validate():
    p = cos_problem()
    with pytest.raises(ValueError, match="theta_star must contain only finite values"):
        Problem("x", "1d", np.array([np.nan]), p.H, p.Sigma_eps, p.third, p.args)
    with pytest.raises(ValueError, match="H must be positive definite"):
        Problem("x", "1d", p.theta_star, -p.H, p.Sigma_eps, p.third, p.args)
    with pytest.raises(ValueError, match="kind must be one of"):
        Problem("x", "2d", p.theta_star, p.H, p.Sigma_eps, p.third, p.args)
    with pytest.raises(ValueError, match="args must hold code, c, b, sigma"):
        Problem("x", "1d", p.theta_star, p.H, p.Sigma_eps, p.third, {})
    with pytest.raises(ValueError, match="sigma must be a finite float in"):
        cos_problem(sigma=1e300)
    with pytest.raises(ValueError, match="n_data must be an integer in"):
        logistic_problem(n_data=10**9)
    with pytest.raises(ValueError, match="rr must contain only finite values"):
        PairAverages(np.zeros((2, 1)), np.zeros((2, 1)), np.full((2, 1), np.nan), np.zeros((2, 1)),
                     np.zeros((2, 1)), np.zeros(1))
    with pytest.raises(ValueError, match="leading must have shape"):
        PairAverages(np.zeros((2, 1)), np.zeros((2, 1)), np.zeros((2, 1)), np.zeros((3, 1)), np.zeros((2, 1)),
                     np.zeros(1))
    with pytest.raises(ValueError, match="pr_gamma and pr_2gamma must have the same shape"):
        rr_estimate([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="pr_gamma must be array-like"):
        rr_estimate("abc", [1.0])
    with pytest.raises(ValueError, match="pr_gamma must contain only finite values"):
        rr_estimate([np.nan], [1.0])


def test_mutation_wrong_hessian_is_caught_by_the_remainder_rate(broken_claim):
    """A broken simulator constant: H = 2 instead of f''(0) = 1 for f = x^2 + cos x.  The leading term
    -H^{-1} mean(eps) is then half the true one, the 'remainder' keeps an N^{-1/2} part, and the cheap
    ci claim rr_remainder_rate (slope -3/4) must say "not reproduced"; the intact simulator passes."""
    import theorylab.validations.rr_sgd as V

    small = {"i_max": 4}
    p = cos_problem()
    broken = Problem(p.name, p.kind, p.theta_star, 2.0 * p.H, p.Sigma_eps, p.third, p.args, mu=p.mu)
    assert broken_claim.intact("rr_sgd:rr_remainder_rate", overrides=small).verdict == "reproduced"
    r = broken_claim("rr_sgd:rr_remainder_rate", (V, "cos_problem"), lambda: broken, overrides=small)
    assert r.verdict == "not reproduced", r.measured


@pytest.mark.parametrize("problem,kw", [(cos_problem(), dict(gamma=0.05, n=300, x0=5.0)),
                                        (softplus_problem(), dict(gamma=0.05, n=300)),
                                        (logistic_problem(), dict(gamma=0.01, n=200)),
                                        (logistic_problem(), dict(gamma=0.01, n=200, coupling="independent"))])
def test_chain_batches_stack_to_the_whole_run(problem, kw):
    """run_pair(chains=) runs chains as in the whole run (each its own stream, a lone chain's leading term
    solved like many): batches of any size stack to the whole run's numbers, bit for bit."""
    from theorylab.core.sweep import Batch

    whole = run_pair(problem, n_chains=23, seed=5, **kw)
    for B in (2, 3, 22, 23):
        parts = [run_pair(problem, n_chains=23, seed=5, chains=Batch(b, B).slice(23), **kw) for b in range(B)]
        for name in ("pr_gamma", "pr_2gamma", "rr", "leading", "leading_pr"):
            assert np.array_equal(np.concatenate([getattr(p, name) for p in parts]), getattr(whole, name)), (B, name)


@pytest.mark.parametrize("chains,match", [(range(0, 4, 2), "consecutive"), (slice(0, 4, 2), "consecutive"),
                                          (range(3, 11), "within range"), (range(2, 2), "non-empty"),
                                          ([0, 1], "range or slice")])
def test_bad_chain_ranges_are_named(chains, match):
    with pytest.raises((ValueError, TypeError), match=match):
        run_pair(cos_problem(), gamma=0.05, n=10, n_chains=10, chains=chains)


def test_batched_sweeps_give_the_unbatched_numbers(monkeypatch):
    """Splitting the large points into chain batches (BATCH_STEPS) changes no number of the experiments."""
    from theorylab.validations import rr_sgd as V

    whole = {"cos": V.cos_sweep(3, 12, 7), "bias": V.bias_sweep((0.1, 0.05), 200.0, 10, 7),
             "log": V.logistic_sweep((200, 400), 0.5, 10, 7)}
    monkeypatch.setattr(V, "BATCH_STEPS", 5000)  # every point above 5000 pair-steps in batches
    assert V.cos_batches({"i": 3, "n_chains": 12}) == 10  # 48000 pair-steps
    assert V.bias_batches({"gamma": 0.05, "steps_times_gamma": 200.0, "n_chains": 10}) == 9  # 44000
    assert V.logistic_batches({"n": 200, "n_chains": 10}) == 3
    clear_experiments()
    try:
        batched = {"cos": V.cos_sweep(3, 12, 7), "bias": V.bias_sweep((0.1, 0.05), 200.0, 10, 7),
                   "log": V.logistic_sweep((200, 400), 0.5, 10, 7)}
    finally:
        clear_experiments()
    for k in whole:
        import pandas as pd

        pd.testing.assert_frame_equal(batched[k], whole[k], check_exact=True)
