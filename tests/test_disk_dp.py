"""theorylab.stochastic.disk: kernels against their Python bodies, reproducibility (also on one vs several
threads), the numpy reference, the exact filter identity, the Lyapunov prediction against closed forms (sympy),
a broken variant the checks catch, divergence and bad input."""

import numpy as np
import pytest

from theorylab.core import spawn_seeds
from theorylab.core.validate import SimulationDiverged
from theorylab.stochastic import _kernels_disk as K
from theorylab.stochastic import disk as D

P = D.make_quadratic(d=6, n=40, seed=1)
PH = D.make_quadratic(d=6, n=40, spread=0.5, seed=1)


def _kernel_args(prob, kappa=0.7, gamma=0.5, C=0.8):
    kappa, gamma, c = D.disk_coefficients(kappa, gamma)
    return (prob.hess, prob.centres, prob.hbar, prob.m, prob.x_star, prob.x_star + 1.0, 0.8, kappa, c, gamma, C,
            0.2, 8, 55, 10)


def test_kernels_match_their_python_bodies():
    seeds = spawn_seeds(1, 3)
    for prob, C in ((P, 0.8), (PH, 1e3)):                     # clipping active / inactive
        outs = []
        for fn in (K.disk_runs, K.disk_runs.py_func):
            out = [np.empty((3, 6)), np.empty((3, 6)), np.empty((3, 6)), np.zeros(3, dtype=np.int64)]
            fn(*_kernel_args(prob, C=C), seeds, *out)
            outs.append(out)
        for a, b in zip(*outs):
            np.testing.assert_allclose(a, b, rtol=1e-10)
    outs = []
    for fn in (K.disk_trace, K.disk_trace.py_func):
        X, G, W, I = np.empty((31, 6)), np.empty((30, 6)), np.empty((30, 6)), np.empty((30, 8), dtype=np.int64)
        n = fn(P.hess, P.centres, P.x_star + 1, 0.8, 0.7, 0.857, 0.5, 0.8, 0.2, 8, 5, X, G, W, I)
        outs.append((n, X, G, W, I))
    assert outs[0][0] == outs[1][0] > 0
    for a, b in zip(outs[0][1:], outs[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_same_seed_same_numbers_and_threads():
    import numba

    Q = D.make_quadratic(d=50, n=200, seed=2)
    kw = dict(n_steps=300, n_runs=12, B=64, seed=5)             # 1.2e7 per-sample coordinates: threaded
    a = D.run_disk(Q, **kw)
    b = D.run_disk(Q, parallel=False, **kw)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        c = D.run_disk(Q, **kw)
    finally:
        numba.set_num_threads(threads)
    for name in ("err2", "grad2", "gap", "clipped"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        np.testing.assert_array_equal(getattr(a, name), getattr(c, name))
    # run r does not depend on how many runs are computed with it
    np.testing.assert_array_equal(D.run_disk(P, n_runs=5, seed=3).gap[:2], D.run_disk(P, n_runs=2, seed=3).gap)


def test_trace_agrees_with_run_disk():
    """The trace kernel and the windowed kernel draw the same numbers for the same seed."""
    kw = dict(kappa=0.9, gamma=1.0, C=0.8, sigma=0.5, B=8, n_steps=40, x0=P.x_star + 2)
    tr = D.trace_disk(P, seed=4, **kw)
    run = D.run_disk(P, record_every=1, n_runs=1, seed=4, **kw)
    e2 = ((tr.g - P.grad(tr.x[:-1])) ** 2).sum(1)
    np.testing.assert_allclose(run.err2[0], e2, rtol=1e-10)
    np.testing.assert_allclose(run.gap[0], 0.5 * (P.hbar * (tr.x[:-1] - P.x_star) ** 2).sum(1), rtol=1e-10)
    assert run.clipped[0] == tr.clipped > 0


def test_numpy_reference_agrees_in_distribution():
    kw = dict(kappa=0.7, gamma=0.5, C=0.8, sigma=1.0, B=8, eta=0.8, n_steps=200, record_every=50, n_runs=300,
              x0=PH.x_star + 2)
    a = D.run_disk(PH, seed=1, **kw)
    b = D.run_disk_numpy(PH, seed=2, **kw)
    for name in ("gap", "err2"):
        x, y = getattr(a, name)[:, -1], getattr(b, name)[:, -1]
        se = np.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
        assert abs(x.mean() - y.mean()) < 4.5 * se, (name, x.mean(), y.mean(), se)
    # one sample, no privacy noise: deterministic, so both agree to rounding (with clipping active)
    one = D.Quadratic(P.hess[:1], P.centres[:1])
    kw = dict(C=0.5, sigma=0.0, B=3, n_steps=60, record_every=7, n_runs=2, x0=np.full(6, 3.0))
    r1, r2 = D.run_disk(one, **kw), D.run_disk_numpy(one, **kw)
    np.testing.assert_allclose(r1.gap, r2.gap, rtol=1e-9)
    np.testing.assert_array_equal(r1.clipped, r2.clipped)


def test_filter_identity_exact_and_per_sample_residual():
    for kappa, gamma in ((0.5, 0.25), (0.7, 0.0), (0.9, 1.0), (1.0, 0.0)):
        tr = D.trace_disk(P, kappa=kappa, gamma=gamma, C=1e3, n_steps=100, seed=2, x0=P.x_star + 1)
        r, r_pred = D.filter_residual(P, tr)
        assert tr.clipped == 0
        assert np.abs(r).max() < 1e-12 and np.abs(r_pred).max() < 1e-12
    tr = D.trace_disk(PH, kappa=0.7, gamma=0.5, C=1e3, n_steps=100, seed=2, x0=PH.x_star + 1)
    r, r_pred = D.filter_residual(PH, tr)
    assert np.abs(r).max() > 1e-3 and np.abs(r - r_pred).max() < 1e-12
    # without the correction the residual is the drift -(1 - kappa) Hbar (x_t - x_{t-1}), even on a shared Hessian
    tr = D.trace_disk(P, kappa=0.7, C=1e3, n_steps=100, seed=2, x0=P.x_star + 1, corrected=False)
    r, r_pred = D.filter_residual(P, tr)
    assert tr.c == 0.0 and np.abs(r).max() > 1.0
    np.testing.assert_allclose(r, -0.3 * P.hbar * np.diff(tr.x[:-1], axis=0), atol=1e-12)


def test_coefficients_follow_the_optimiser():
    assert D.disk_coefficients(0.7, 0.0) == pytest.approx((0.7, 0.3 / 0.7, 1.0))
    assert D.disk_coefficients(0.7, 0.3 / 0.7 + 5e-4)[2] == 1.0            # snapped as in KFOptimizer
    assert D.disk_coefficients(0.7, 0.5)[2] == pytest.approx(0.3 / 0.35)
    assert D.disk_coefficients(1.0, 0.5) == (1.0, 0.0, 0.0)


def test_error_factor_and_lyapunov_closed_forms():
    import sympy as sp

    k = sp.symbols("kappa", positive=True)
    # stationary AR(1) variance: kappa^2 sum_i (1 - kappa)^(2i) = kappa^2 / (1 - (1 - kappa)^2)
    assert sp.cancel(k**2 / (1 - (1 - k) ** 2) - k / (2 - k)) == 0
    assert D.error_variance_factor(0.7) == pytest.approx(0.7 / 1.3)
    lam, q, eta = np.array([0.05, 0.3, 1.0, 1.5]), np.array([1.0, 2.0, 0.5, 1.0]), 1.2
    # DP-SGD: z_{t+1} = (1 - eta lam) z_t - eta nu_t, E (lam z)^2 = lam^2 eta^2 q / (1 - (1 - eta lam)^2)
    np.testing.assert_allclose(D.lyapunov_gradnorm(lam, q, eta=eta, kappa=1.0),
                               lam**2 * eta**2 * q / (1 - (1 - eta * lam) ** 2), rtol=1e-10)
    # DiSK: solve the three stationary moment equations symbolically
    a, e_ = sp.symbols("a eta_s")
    Pzz, Pze, Pee = sp.symbols("Pzz Pze Pee")
    kap = sp.Rational(7, 10)
    A = sp.Matrix([[a, -e_ * (1 - kap)], [0, 1 - kap]])
    b = sp.Matrix([-e_ * kap, kap])
    Pm = sp.Matrix([[Pzz, Pze], [Pze, Pee]])
    eqs = A * Pm * A.T + b * b.T - Pm
    (pzz, _, _), = sp.linsolve([eqs[0, 0], eqs[0, 1], eqs[1, 1]], [Pzz, Pze, Pee])
    for l, qq in zip(lam, q):
        val = float(pzz.subs({a: 1 - eta * l, e_: eta})) * qq * l * l
        assert D.lyapunov_gradnorm([l], [qq], eta=eta, kappa=0.7)[0] == pytest.approx(val, rel=1e-10)


def test_noise_variance_matches_dpsgd_error():
    """For DP-SGD the error is nu itself: its mean power equals tr Cov(nu)."""
    Q = D.make_quadratic(d=10, n=100, seed=3)
    run = D.run_disk(Q, kappa=1.0, C=20.0, sigma=0.25, B=4, n_steps=4000, record_every=4000, n_runs=8, seed=1)
    q = D.noise_variance(Q, sigma=0.25, C=20.0, B=4).sum()
    x = run.err2[:, 0]
    assert run.clipped.sum() == 0
    assert abs(x.mean() - q) < 4 * x.std(ddof=1) / np.sqrt(x.size), (x.mean(), q)


def test_mutation_missing_gamma_in_c_is_caught(broken_claim):
    """Broken variant: c = (1 - kappa)/kappa (the 1/gamma factor dropped), so the two-point gradient no longer
    cancels the drift for gamma != 1.  The ci filter-identity claim must say "not reproduced"."""
    intact = D.disk_coefficients

    def broken(kappa=0.7, gamma=0.5):
        kappa, gamma, c = intact(kappa, gamma)
        return kappa, gamma, (1 - kappa) / kappa

    r = broken_claim("disk_dp:filter_identity", (D, "disk_coefficients"), broken, overrides={"n_steps": 50})
    assert r.verdict == "not reproduced", r.measured


def test_divergence_is_refused_or_reported():
    """Step sizes with eta L >= 2 are refused (named).  Below that, a sample of curvature 1.99 with B = 1 makes
    the unclipped per-step factor -2.88 or 0.98 (E log|factor| = 0.52 > 0), yet clipping bounds every step by
    eta (C + noise), so the iterates stay finite and the gap saturates near (C/h)^2 instead of overflowing; the
    overflow guard (SimulationDiverged, never a NaN) is exercised directly."""
    Q = D.Quadratic(np.array([[1.99], [0.01]]), np.zeros((2, 1)))
    with pytest.raises(ValueError, match="eta"):
        D.run_disk(Q, eta=2.0)
    r = D.run_disk(Q, kappa=1.0, eta=1.95, B=1, C=1e4, sigma=0.0, n_steps=3000, n_runs=2, x0=np.ones(1))
    assert np.all(np.isfinite(r.gap)) and 1e6 < r.gap[:, -1].max() < 1e10
    means = dict(err2=np.ones((1, 2)), grad2=np.array([[1.0, np.inf]]), gap=np.ones((1, 2)))
    with pytest.raises(SimulationDiverged, match="eta"):
        D._finite("test", **means)
    with pytest.raises(ValueError, match="grad2"):  # a record is never built from an overflowed mean
        D.DiskRun(*means.values(), np.zeros(1), np.arange(2), 1, 0, 0)


@pytest.mark.parametrize("kwargs, name", [
    (dict(kappa=0.0), "kappa"), (dict(kappa=1.5), "kappa"), (dict(kappa=np.nan), "kappa"),
    (dict(gamma=-1.0), "gamma"), (dict(gamma=1e-6), "gamma"), (dict(eta=0.0), "eta"),
    (dict(eta=2.5), "eta"), (dict(C=0.0), "C"), (dict(C=-1.0), "C"), (dict(sigma=-1.0), "sigma"),
    (dict(B=0), "B"), (dict(n_runs=0), "n_runs"), (dict(n_steps=0), "n_steps"), (dict(record_every=0), "record_every"),
    (dict(x0=np.ones(3)), "x0"), (dict(x0=np.full(6, np.inf)), "x0"), (dict(n_runs=10**6, n_steps=10**6), "n_runs"),
])
def test_bad_input_names_the_argument(kwargs, name):
    for fn in (D.run_disk, D.run_disk_numpy):
        with pytest.raises((ValueError, TypeError), match=name):
            fn(P, **kwargs)


def test_bad_input_problem_and_helpers():
    with pytest.raises(TypeError, match="corrected"):
        D.run_disk(P, corrected="no")
    with pytest.raises(TypeError, match="problem"):
        D.run_disk(np.ones((3, 3)))
    with pytest.raises(ValueError, match="hess"):
        D.Quadratic(-np.ones((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="centres"):
        D.Quadratic(np.ones((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="spread"):
        D.make_quadratic(spread=1.0)
    with pytest.raises(ValueError, match="problem"):
        D.noise_variance(PH)
    with pytest.raises(ValueError, match="eta"):
        D.lyapunov_gradnorm([1.0], [1.0], eta=2.0)
    with pytest.raises(ValueError, match="kappa"):
        D.error_variance_factor(0.0)
    with pytest.raises(ValueError, match="trace"):
        D.filter_residual(D.make_quadratic(d=3, n=40), D.trace_disk(P, n_steps=5))
