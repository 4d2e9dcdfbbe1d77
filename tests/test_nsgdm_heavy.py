"""theorylab.stochastic.noise and .nsgdm (paper nsgdm_heavy): samplers against closed-form moments and tails,
kernels against their Python bodies, reproducibility, the numpy reference, the derived schedules, the exact EMA
moment, a broken variant (momentum switched off) that the rate check catches, divergence, and bad input."""

import numpy as np
import pytest

from theorylab.core import spawn_seeds
from theorylab.core.validate import SimulationDiverged
from theorylab.stochastic import _kernels_noise as KN
from theorylab.stochastic import _kernels_nsgdm as K
from theorylab.stochastic import noise as N
from theorylab.stochastic import nsgdm as S


@pytest.mark.parametrize("law, nu", [("gaussian", None), ("student_t", 1.5), ("student_t", 3.0), ("pareto", 1.5),
                                     ("pareto", 2.5)])
def test_samplers_match_closed_form_moments_and_tails(law, nu):
    x = np.abs(N.sample_noise(law, 200_000, nu=nu, n_runs=2, seed=4)).ravel()
    q = 0.5                                   # E|xi|^q has finite variance for 2q < nu
    se = np.std(x**q) / np.sqrt(x.size)
    assert abs(np.mean(x**q) - N.abs_moment(law, q, nu)) < 4.5 * se
    for thr in (1.0, 3.0, 10.0):
        p = N.tail_probability(law, thr, nu)[0]
        assert abs(np.mean(x > thr) - p) < 4.5 * np.sqrt(p * (1 - p) / x.size) + 1e-9
    assert np.mean(N.sample_noise(law, 100_000, nu=nu, seed=5)) == pytest.approx(0.0, abs=0.05)


def test_moment_formulas_against_scipy():
    from scipy import integrate, stats

    for nu, q in ((1.5, 1.2), (3.0, 2.0), (2.5, 0.7)):
        ref = 2 * integrate.quad(lambda x: x**q * stats.t.pdf(x, nu), 0, np.inf, limit=200)[0]
        assert N.abs_moment("student_t", q, nu) == pytest.approx(ref, rel=1e-6)
        ref = integrate.quad(lambda x: x**q * nu * (1 + x) ** (-nu - 1), 0, np.inf, limit=200)[0]
        assert N.abs_moment("pareto", q, nu) == pytest.approx(ref, rel=1e-6)
    assert N.abs_moment("gaussian", 2.0) == pytest.approx(1.0)
    assert N.abs_moment("student_t", 1.5, 1.5) == np.inf and N.abs_moment("pareto", 2.0, 1.8) == np.inf
    np.testing.assert_allclose(N.affine_scale([0.0, 2.0], 3.0, 2.0), [3.0, 5.0])


def test_kernels_match_their_python_bodies():
    seeds = spawn_seeds(2, 3)
    for law, nu in ((KN.LAW_GAUSSIAN, 2.0), (KN.LAW_STUDENT_T, 1.5), (KN.LAW_PARETO, 1.7)):
        a, b = np.empty((3, 40)), np.empty((3, 40))
        KN.fill(law, nu, seeds, a)
        KN.fill.py_func(law, nu, seeds, b)
        np.testing.assert_allclose(a, b, rtol=1e-12)
    x1 = np.full(4, 0.5)
    for obj in (K.OBJ_QUADRATIC, K.OBJ_COSH):
        for method, clip in ((K.METHOD_NSGDM, 0.0), (K.METHOD_SGD, 0.0), (K.METHOD_CLIPPED, 1.5)):
            outs = []
            for fn in (K.run_methods, K.run_methods.py_func):
                avg, last, div = np.empty(3), np.empty(3), np.empty(3, dtype=np.int64)
                fn(obj, x1, 60, 0.05, 0.9, method, clip, KN.LAW_STUDENT_T, 1.8, 1.0, 0.5, 2, np.inf, seeds, avg, last,
                   div)
                outs.append((avg, last, div))
            np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-11)
            np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-11)
            np.testing.assert_array_equal(outs[0][2], outs[1][2])
    a, b = np.empty(3), np.empty(3)
    K.ema_noise(KN.LAW_PARETO, 1.5, 0.1, 2, 0.5, 20, 50, seeds, a)
    K.ema_noise.py_func(KN.LAW_PARETO, 1.5, 0.1, 2, 0.5, 20, 50, seeds, b)
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_noiseless_nsgdm_is_normalised_gradient_descent():
    """sigma0 = 0: every step moves exactly eta along -grad F / ||grad F|| (m_t parallel to grad F on the quadratic
    from x1 = 1/sqrt(d)), so ||x_t|| = 1 - (t - 1) eta while positive."""
    T, eta = 50, 0.01
    r = S.run_methods("quadratic", T, sigma0=0.0, eta=eta, beta=0.9, n_runs=2)
    expected = np.mean(1 - eta * np.arange(T))
    np.testing.assert_allclose(r.avg_grad_norm, expected, rtol=1e-12)
    np.testing.assert_allclose(r.last_grad_norm, 1 - eta * (T - 1), rtol=1e-12)


def test_same_seed_same_numbers_and_threads(monkeypatch):
    import numba

    monkeypatch.setattr(S, "PARALLEL_MIN_WORK", 10**4)
    kw = dict(T=400, eta=0.01, beta=0.95, law="pareto", nu=1.6, n_runs=30, seed=7)   # 1.2e5 draws: threaded
    a = S.run_methods("quadratic", **kw)
    b = S.run_methods("quadratic", parallel=False, **kw)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        c = S.run_methods("quadratic", **kw)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(a.avg_grad_norm, b.avg_grad_norm)
    np.testing.assert_array_equal(a.avg_grad_norm, c.avg_grad_norm)
    np.testing.assert_array_equal(S.run_methods("cosh", 100, n_runs=5, seed=1).avg_grad_norm[:3],
                                  S.run_methods("cosh", 100, n_runs=3, seed=1).avg_grad_norm)
    e1 = S.ema_error("pareto", 1.5, 0.1, n=2000, n_runs=6, seed=2)                         # threaded
    monkeypatch.setattr(S, "PARALLEL_MIN_WORK", 10**9)
    np.testing.assert_array_equal(e1, S.ema_error("pareto", 1.5, 0.1, n=2000, n_runs=6, seed=2))
    np.testing.assert_array_equal(N.sample_noise("student_t", 50, n_runs=4, seed=3)[:2],
                                  N.sample_noise("student_t", 50, n_runs=2, seed=3))


@pytest.mark.parametrize("objective, method, clip", [("quadratic", "nsgdm", None), ("cosh", "nsgdm", None),
                                                     ("quadratic", "clipped_sgd", 2.0), ("quadratic", "sgd", None)])
def test_numpy_reference_agrees_in_distribution(objective, method, clip):
    kw = dict(T=300, eta=0.02, beta=0.9, law="student_t", nu=2.5, sigma1=0.3, batch=2, method=method, clip=clip,
              n_runs=200)
    a = S.run_methods(objective, seed=1, **kw).avg_grad_norm
    b = S.run_methods_numpy(objective, seed=2, **kw).avg_grad_norm
    se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    assert abs(a.mean() - b.mean()) < 4.5 * se, (a.mean(), b.mean(), se)
    a = S.run_methods(objective, T=200, eta=0.02, beta=0.9, sigma0=0.0, method=method, clip=clip, n_runs=1)
    b = S.run_methods_numpy(objective, T=200, eta=0.02, beta=0.9, sigma0=0.0, method=method, clip=clip, n_runs=1)
    np.testing.assert_allclose(a.avg_grad_norm, b.avg_grad_norm, rtol=1e-10)


def test_schedules_and_rates_are_the_derived_ones():
    import sympy as sp

    p, a, b, T = sp.symbols("p a b T", positive=True)
    # equate the exponents of Delta/(eta T) = T^(b-1), eta/(1-beta) = T^(a-b), (1-beta)^(1-1/p) = T^(-a(p-1)/p)
    sol = sp.solve([sp.Eq(b - 1, a - b), sp.Eq(a - b, -a * (p - 1) / p)], [a, b], dict=True)[0]
    for pv in (1.2, 1.5, 2.0):
        ea, eb = S.schedule_exponents("known_p", pv)
        assert ea == pytest.approx(float(sol[a].subs(p, pv))) and eb == pytest.approx(float(sol[b].subs(p, pv)))
        assert S.predicted_rate("known_p", pv) == pytest.approx(float((sol[b] - 1).subs(p, pv)))
        assert S.predicted_rate("unknown_p", pv) == pytest.approx((1 - pv) / (2 * pv))
    eta, beta = S.schedule(10_000, "unknown_p", 1.5, eta0=2.0)
    assert eta == pytest.approx(2.0 * 10_000 ** -0.75) and beta == pytest.approx(1 - 0.01)
    assert S.balanced_eta0("quadratic", 10) == pytest.approx(np.sqrt(0.5))
    assert S.balanced_eta0("cosh", 10) == pytest.approx(np.sqrt(10 * (np.cosh(3) - 1)))


def test_ema_exact_against_limits_and_simulation():
    for nu in (1.5, 3.0):
        assert S.ema_moment_exact(nu, 1.0, q=0.5) == pytest.approx(N.abs_moment("student_t", 0.5, nu), rel=1e-7)
    mc = S.ema_error("student_t", 1.8, 0.01, q=0.5, n=50_000, n_runs=16, seed=3)
    assert abs(mc.mean() - S.ema_moment_exact(1.8, 0.01)) < 4.5 * mc.std(ddof=1) / 4


def test_mutation_momentum_switched_off_is_caught(broken_claim):
    """Broken variant: the schedule's momentum exponent a = 0 (1 - beta = T^0, i.e. beta = 0, no momentum).  The ci
    known-p rate claim must say "not reproduced"."""
    intact = S.schedule_exponents
    r = broken_claim("nsgdm_heavy:known_p_rate_p15", (S, "schedule_exponents"),
                     lambda kind="known_p", p=1.5: (0.0, intact(kind, p)[1]))
    assert r.verdict == "not reproduced", r.measured


def test_divergence_is_reported_never_nan():
    with pytest.raises(SimulationDiverged, match="eta"):
        S.run_methods("cosh", 2000, method="sgd", eta=5.0, n_runs=2)
    r = S.run_methods("cosh", 2000, method="sgd", eta=5.0, n_runs=2, on_divergence="report")
    assert r.diverged.all() and np.all(np.isfinite(r.avg_grad_norm)) and np.all(np.isfinite(r.last_grad_norm))
    with pytest.raises(SimulationDiverged):
        S.run_methods_numpy("cosh", 2000, method="sgd", eta=5.0, n_runs=2)
    import theorylab.validations.nsgdm_heavy as V
    import pandas as pd

    df = pd.DataFrame({"run": [0, 0], "T": [10, 20], "avg_grad_norm": [1.0, 0.5], "diverged": [False, True],
                       "method": ["sgd", "sgd"]})
    with pytest.raises(SimulationDiverged, match="no slope"):
        V._fit(df, 0)


@pytest.mark.parametrize("kwargs, name", [
    (dict(nu=1.0), "nu"), (dict(nu=0.5), "nu"), (dict(nu=np.nan), "nu"), (dict(law="cauchy"), "law"),
    (dict(sigma0=-1.0), "sigma0"), (dict(sigma1=-0.1), "sigma1"), (dict(eta=0.0), "eta"), (dict(eta=-1.0), "eta"),
    (dict(eta=np.inf), "eta"), (dict(beta=1.5), "beta"), (dict(method="adam"), "method"), (dict(n_runs=0), "n_runs"),
    (dict(T=0), "T"), (dict(d=0), "d"), (dict(batch=0), "batch"), (dict(method="clipped_sgd"), "clip"),
    (dict(method="clipped_sgd", clip=-1.0), "clip"), (dict(method="sgd", eta=2.5), "eta"),
    (dict(x1=np.ones(3)), "x1"), (dict(objective="cosh", x1=np.full(10, 800.0)), "x1"),
    (dict(n_runs=10**6, T=10**6), "n_runs"), (dict(objective="rosenbrock"), "objective"),
])
def test_bad_input_names_the_argument(kwargs, name):
    args = dict(objective="quadratic", T=10)
    args.update(kwargs)
    obj = args.pop("objective")
    for fn in (S.run_methods, S.run_methods_numpy):
        with pytest.raises((ValueError, TypeError), match=name):
            fn(obj, **args)


def test_bad_input_schedules_and_noise():
    for p in (1.0, 0.5, 2.01, np.nan):
        with pytest.raises(ValueError, match="p"):
            S.schedule(100, "known_p", p)
        with pytest.raises(ValueError, match="p"):
            S.predicted_rate("unknown_p", p)
    with pytest.raises(ValueError, match="kind"):
        S.schedule(100, "adaptive", 1.5)
    with pytest.raises(ValueError, match="one_minus_beta"):
        S.ema_error("student_t", 1.5, 0.0)
    with pytest.raises(ValueError, match="q"):
        S.ema_error("student_t", 1.5, 0.1, q=1.5)
    with pytest.raises(ValueError, match="nu"):
        N.sample_noise("pareto", 10, nu=1.0)
    with pytest.raises(ValueError, match="sigma0"):
        N.affine_scale([1.0], -1.0)
    with pytest.raises(ValueError, match="grad_norm"):
        N.affine_scale([-1.0])
    with pytest.raises(ValueError, match="x"):
        N.tail_probability("student_t", [-1.0])
    with pytest.raises(ValueError, match="nu"):
        S.ema_moment_exact(2.0, 0.1)
    with pytest.raises(ValueError, match="x1"):
        S.balanced_eta0("quadratic", 3, np.zeros(3))


def test_cosh_rows_state_their_start_and_eta0_and_the_spec_instance_runs():
    """Issue 28: the cosh rate claim holds only at eta0 = sqrt(Delta_1/L0) and starts at x1 = 2; both choices are in
    its statement, and the spec's instance (x1 = 3) is a claim of its own whose runs start there."""
    import numpy as np

    import theorylab.validations.nsgdm_heavy as V
    from theorylab.core.checks import REGISTRY

    for cid, x1 in (("cosh_known_p_rate", 2.0), ("cosh_known_p_rate_x1_3", 3.0)):
        c = REGISTRY.claims[f"nsgdm_heavy:{cid}"]
        delta1 = 10 * (np.cosh(x1) - 1)
        assert f"x1 = {x1:g} in every coordinate" in c.statement
        assert f"eta0 = sqrt(Delta_1/L0) = {np.sqrt(delta1):.2f}" in c.statement
    t = V.run_point(objective="cosh", kind="known_p", law="student_t", nu=1.8, p=1.5, T=50, method="nsgdm",
                    n_runs=2, seed=1, x1_cosh=3.0)
    eta0 = t.eta.iloc[0] * 50 ** 0.8
    assert eta0 == pytest.approx(np.sqrt(10 * (np.cosh(3.0) - 1)))
