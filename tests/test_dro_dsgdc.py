"""theorylab.stochastic.dro: dual = primal, derivatives vs finite differences, exact loss constants, kernels vs
their Python bodies and a plain reference, reproducibility, the numpy reference, a broken variant the checks
catch, divergence and bad input."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from theorylab.core import spawn_seeds
from theorylab.stochastic import _kernels_dro as K
from theorylab.stochastic import dro as D
from theorylab.core import clear_experiments

rng = np.random.default_rng(0)
A, b, x = rng.normal(size=(50, 4)), rng.normal(size=50), rng.normal(size=4)
A2, b2 = D.make_instance(200, 5, seed=3)
P = D.theorem_parameters(0.2)


@pytest.mark.parametrize("loss", D.LOSSES)
def test_dual_min_equals_primal(loss):
    for lam in (0.5, 1.0, 3.0):
        res = minimize_scalar(lambda e: D.dual_objective(A, b, x, e, lam=lam, loss=loss)[0], bounds=(-50, 50),
                              method="bounded", options={"xatol": 1e-10})
        assert abs(res.fun - D.primal_value(A, b, x, lam=lam, loss=loss)) < 1e-6


@pytest.mark.parametrize("loss", D.LOSSES)
def test_derivatives_match_finite_differences(loss):
    h, eta = 1e-6, 0.3
    L, gx, ge, H, hee = D.dual_objective(A, b, x, eta, loss=loss)
    E = np.eye(4)
    f = lambda xx, ee: D.dual_objective(A, b, xx, ee, loss=loss)
    fd = np.array([(f(x + h * e, eta)[0] - f(x - h * e, eta)[0]) / (2 * h) for e in E])
    np.testing.assert_allclose(gx, fd, rtol=1e-5, atol=1e-7)
    fdH = np.array([(f(x + h * e, eta)[1] - f(x - h * e, eta)[1]) / (2 * h) for e in E])
    np.testing.assert_allclose(H, fdH, rtol=1e-4, atol=1e-6)
    assert ge == pytest.approx((f(x, eta + h)[0] - f(x, eta - h)[0]) / (2 * h), abs=1e-6)
    assert 0 <= hee <= 1.0
    bd = D.block_derivatives(A, b, x[None], np.array([eta]), loss=loss)
    assert bd["grad_x"][0] == pytest.approx(np.linalg.norm(gx)) and bd["hess_xx"][0] == pytest.approx(
        np.linalg.norm(H, 2)) and bd["d_eta"][0] == pytest.approx(ge) and bd["d2_eta"][0] == pytest.approx(hee)


def test_loss_constants_are_exact_suprema():
    G, Ls = D.loss_constants(A2, b2)
    t = np.tanh(np.linspace(-12, 12, 20_001))[None, :]          # a dense grid: sup from below
    s = 1 - t * t
    na, bb = np.linalg.norm(A2, axis=1)[:, None], b2[:, None]
    g = np.max(np.abs((t - bb) * s) * na)
    h = np.max(np.abs(s * s - 2 * (t - bb) * t * s) * na**2)
    assert g <= G * (1 + 1e-12) and h <= Ls * (1 + 1e-12)
    assert G == pytest.approx(g, rel=1e-5) and Ls == pytest.approx(h, rel=1e-5)
    with pytest.raises(ValueError, match="square"):
        D.loss_constants(A2, b2, loss="square")


def test_kernels_match_python_bodies_and_a_plain_reference():
    seeds = spawn_seeds(1, 2)
    outs = []
    for fn in (K.dsgdc_runs, K.dsgdc_runs.py_func):
        o = (np.full((2, 6), np.nan), np.full((2, 6, 5), np.nan), np.full((2, 6), np.nan), np.zeros(2, np.int64))
        fn(A2, b2, K.TANH, 1.0, np.zeros(5), 0.0, 0.3, 0.3, 0.2, 7, 10, 2, -1.0, seeds, *o)
        outs.append(o)
    for a, c in zip(outs[0], outs[1]):
        np.testing.assert_allclose(a, c, rtol=1e-12)
    outs = []
    for fn in (K.spider_runs, K.spider_runs.py_func):
        o = (np.full((2, 6), np.nan), np.full((2, 6, 5), np.nan), np.full((2, 6), np.nan), np.zeros(2, np.int64))
        fn(A2, b2, K.SQUARE, 0.5, np.zeros(5), 0.0, 0.3, 0.1, 0.2, 20, 4, 3, 10, 2, -1.0, seeds, *o)
        outs.append(o)
    for a, c in zip(outs[0], outs[1]):
        np.testing.assert_allclose(a, c, rtol=1e-12)
    # minibatch estimate and full gradient norm against dual_objective
    gx = np.empty(5)
    xx = rng.normal(size=5)
    de = K.batch_gradient(A2, b2, K.TANH, 0.7, xx, 0.1, np.arange(200), gx)
    _, gref, deref, _, _ = D.dual_objective(A2, b2, xx, 0.1, lam=0.7, loss="tanh")
    np.testing.assert_allclose(gx, gref, rtol=1e-12)
    assert de == pytest.approx(deref, rel=1e-12)
    assert K.full_gradient_norm(A2, b2, K.TANH, 0.7, xx, 0.1, gx) == pytest.approx(np.hypot(np.linalg.norm(gref), deref))


def test_one_step_by_hand():
    """D-SGD-C's first step on one sample (batch 1, n = 1): eta and x follow the spec's update exactly."""
    a1, b1 = np.array([[0.5, -1.0]]), np.array([0.3])
    tr = D.dsgdc(a1, b1, gamma=0.4, beta=0.5, clip=0.05, batch=1, n_iter=1, lam=1.0, loss="tanh", n_runs=1)
    _, _, de, _, _ = D.dual_objective(a1, b1, np.zeros(2), 0.0, loss="tanh")
    eta1 = -0.4 * de
    _, gx, _, _, _ = D.dual_objective(a1, b1, np.zeros(2), eta1, loss="tanh")
    x1 = -min(0.5, 0.05 / np.linalg.norm(gx)) * gx
    assert tr.eta[0, 1] == pytest.approx(eta1, rel=1e-12)
    np.testing.assert_allclose(tr.x[0, 1], x1, rtol=1e-12)


def test_same_seed_same_numbers_and_run_independence():
    kw = dict(**P, n_iter=30, n_runs=4, seed=5)
    a, c = D.dsgdc(A2, b2, **kw), D.dsgdc(A2, b2, **kw)
    np.testing.assert_array_equal(a.gnorm, c.gnorm)
    d = D.dsgdc(A2, b2, **{**kw, "n_runs": 2})
    np.testing.assert_array_equal(a.gnorm[:2], d.gnorm)
    s1 = D.dspider(A2, b2, **D.theorem_parameters(0.2, "dspider"), n_iter=30, n_runs=3, seed=2)
    s2 = D.dspider(A2, b2, **D.theorem_parameters(0.2, "dspider"), n_iter=30, n_runs=3, seed=2)
    np.testing.assert_array_equal(s1.x, s2.x)


def test_stopping_rule_and_complexity():
    tr = D.dsgdc(A2, b2, **P, n_iter=2000, eps_stop=0.2, n_runs=3, seed=1)
    assert tr.hit.all()
    for r in range(3):
        g = tr.gnorm[r, :tr.n_records[r]]
        assert g.mean() <= 0.2 and (tr.n_records[r] == 1 or g[:-1].mean() > 0.2)
        assert np.isnan(tr.gnorm[r, tr.n_records[r]:]).all()
    np.testing.assert_array_equal(D.gradient_complexity(tr), 2 * P["batch"] * (tr.n_records - 1))
    with pytest.raises(ValueError, match="eps_stop"):
        D.gradient_complexity(D.dsgdc(A2, b2, **P, n_iter=5, n_runs=1))
    with pytest.raises(ValueError, match="n_iter"):
        D.gradient_complexity(D.dsgdc(A2, b2, **P, n_iter=1, eps_stop=1e-6, n_runs=1))


def test_numpy_reference_agrees_in_distribution():
    kw = dict(**D.theorem_parameters(0.1), n_iter=60, n_runs=60)
    a = D.dsgdc(A2, b2, seed=1, **kw).gnorm[:, -1]
    c = D.dsgdc_numpy(A2, b2, seed=2, **kw).gnorm[:, -1]
    se = np.sqrt(a.var(ddof=1) / a.size + c.var(ddof=1) / c.size)
    assert abs(a.mean() - c.mean()) < 4.5 * se, (a.mean(), c.mean(), se)


def test_mutation_missing_half_in_psi_star_is_caught(broken_claim):
    """Broken variant: psi*(u) = (u + 1)_+^2 - 1/2 (the factor 1/2 dropped), so psi*' = 2 (u + 1)_+ and
    d_eta L = 1 - 2 mean w_i, d2_eta L = 2 mean 1_i / lam.  The ci claim eta_block_smooth must say
    "not reproduced"."""
    intact = D.block_derivatives

    def broken(*args, **kwargs):
        out = intact(*args, **kwargs)
        return {**out, "d_eta": 1.0 - 2.0 * (1.0 - out["d_eta"]), "d2_eta": 2.0 * out["d2_eta"]}

    r = broken_claim("dro_dsgdc:eta_block_smooth", (D, "block_derivatives"), broken,
                     overrides={"n_runs": 2, "n_iter": 20})
    assert r.verdict == "not reproduced", r.measured


def test_divergence_is_reported():
    from theorylab.core.validate import SimulationDiverged

    # square loss, step 1 far above 1/L and a clipping threshold too large to bind: x overshoots to ~1e6
    with pytest.raises(SimulationDiverged, match="clip"):
        D.dsgdc(np.array([[10.0]]), np.array([0.0]), gamma=0.1, beta=1.0, clip=1e6, batch=1, n_iter=50, lam=1.0,
                loss="square", x0=np.array([1.0]), n_runs=1)


@pytest.mark.parametrize("kwargs, name", [
    (dict(lam=0.0), "lam"), (dict(lam=-1.0), "lam"), (dict(lam=np.nan), "lam"), (dict(clip=0.0), "clip"),
    (dict(clip=-1.0), "clip"), (dict(gamma=0.0), "gamma"), (dict(gamma=5.0), "gamma"), (dict(beta=0.0), "beta"),
    (dict(batch=0), "batch"), (dict(n_runs=0), "n_runs"), (dict(loss="hinge"), "loss"),
    (dict(x0=np.ones(3)), "x0"), (dict(x0=np.full(5, np.inf)), "x0"), (dict(eta0=np.nan), "eta0"),
    (dict(eps_stop=0.0), "eps_stop"), (dict(record_every=0), "record_every"),
    (dict(n_iter=10**7, n_runs=10**5), "n_runs"), (dict(A=np.ones((3, 5))), "b"), (dict(A=np.ones(5)), "A"),
])
def test_bad_input_names_the_argument(kwargs, name):
    args = dict(A=A2, b=b2, **P, n_iter=5, n_runs=1)
    args.update(kwargs)
    a, bb = args.pop("A"), args.pop("b")
    for fn in (D.dsgdc, D.dsgdc_numpy):
        with pytest.raises((ValueError, TypeError), match=name):
            fn(a, bb, **args)
    sp = {k: v for k, v in args.items() if k != "batch"}
    if name != "batch":
        with pytest.raises((ValueError, TypeError), match=name):
            D.dspider(a, bb, **sp, batch_big=10, batch_small=2, q=3)


def test_bad_input_objective_and_helpers():
    with pytest.raises(ValueError, match="lam"):
        D.dual_objective(A, b, x, 0.0, lam=-1.0)
    with pytest.raises((ValueError, TypeError), match="eta"):
        D.dual_objective(A, b, x, np.nan)
    with pytest.raises((ValueError, TypeError), match="x"):
        D.dual_objective(A, b, np.ones(3), 0.0)
    with pytest.raises(ValueError, match="eps"):
        D.theorem_parameters(0.0)
    with pytest.raises(ValueError, match="method"):
        D.theorem_parameters(0.1, "adam")
    with pytest.raises(ValueError, match="q"):
        D.dspider(A2, b2, gamma=0.1, beta=0.1, clip=0.1, batch_big=4, batch_small=2, q=0, n_iter=3)
    with pytest.raises(ValueError, match="xs"):
        D.block_derivatives(A2, b2, np.ones((2, 3)), np.zeros(2))
    with pytest.raises(TypeError, match="trace"):
        D.gradient_complexity(np.ones(3))
    with pytest.raises(ValueError, match="outlier_frac"):
        D.make_instance(10, 2, outlier_frac=2.0)


def test_mutation_psi_star_without_positive_part_in_the_solver_is_caught(monkeypatch):
    """Broken solver path: the kernels' weight psi*'(u) = u + 1 without the positive part, so inactive samples
    (u_i <= -1) get negative weight and D-SGD-C's eta settles where mean l_i = eta instead of at eta*.  The kernel
    is monkeypatched at Python level (numba freezes globals): dsgdc_runs runs as its Python body, calling broken
    numpy copies of batch_gradient and full_gradient_norm.  The claim dsgdc_eta_with_inactive_samples (exact
    d_eta L from dual_objective, independent of the kernels) must say "not reproduced"."""
    from theorylab.core import run_claim
    from theorylab.core.checks import REGISTRY
    import theorylab.validations.dro_dsgdc as V

    def batch_gradient(A, b, kind, lam, x, eta, idx, gx):    # numpy twin of the kernel, psi*' = u + 1 (no (.)_+)
        Ab = A[idx]
        ell, g, _ = D._terms(Ab @ x, b[idx], D.LOSSES[kind])
        w = (ell - eta) / lam + 1.0
        gx[:] = (w * g) @ Ab / idx.size
        return 1.0 - w.mean()

    def full_gradient_norm(A, b, kind, lam, x, eta, gx):
        de = batch_gradient(A, b, kind, lam, x, eta, np.arange(A.shape[0]), gx)
        return np.sqrt(de * de + np.sum(gx * gx))

    claim = REGISTRY.claims["dro_dsgdc:dsgdc_eta_with_inactive_samples"]
    small = {"n_runs": 3, "n_iter": 60}          # the broken eta jumps to the batch mean loss at every step
    clear_experiments()               # (the intact claim is run at ci by tests/test_validations.py)
    try:
        monkeypatch.setattr(K, "batch_gradient", batch_gradient)
        monkeypatch.setattr(K, "full_gradient_norm", full_gradient_norm)
        monkeypatch.setattr(K, "dsgdc_runs", K.dsgdc_runs.py_func)
        r = run_claim(claim, "ci", seed=0, overrides=small)
        assert r.verdict == "not reproduced", r.measured
    finally:
        clear_experiments()


def test_eta_star_is_the_dual_optimum_with_most_samples_inactive():
    """eta_star (the validation's bisection) against the primal: L(x_bar, eta*) = primal_value(x_bar), and most samples
    are inactive there for the claim's lam."""
    import theorylab.validations.dro_dsgdc as V

    A_, b_ = V.instance()
    xb, _ = V.erm_stationary_point()
    ell = 0.5 * (np.tanh(A_ @ xb) - b_) ** 2
    for lam in V.INACTIVE_LAMS:
        es = V.eta_star(ell, lam)
        assert D.dual_objective(A_, b_, xb, es, lam=lam, loss="tanh")[0] == pytest.approx(
            D.primal_value(A_, b_, xb, lam=lam, loss="tanh"), abs=1e-12)
        assert np.mean((ell - es) / lam <= -1) > 0.9
