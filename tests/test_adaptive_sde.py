"""Unit tests of theorylab.sde (kernels, API, bad input) for paper adaptive_sde."""

import numba
import numpy as np
import pytest
from numba import njit

from theorylab.core import SimulationDiverged, spawn_seeds
from theorylab import sde
from theorylab.sde import _kernels as K

H2 = np.array([[2.0, 0.5], [0.5, 1.0]])
SEEDS = np.arange(1, 4, dtype=np.uint64)


def _p_opt(eta=0.05, beta1=0.9, beta2=0.99, eps=1e-8, theta=0.1, noise=0.0, nu=1.0):
    return np.array([eta, beta1, beta2, eps, theta, noise, nu])


# ---------------------------------------------------------------------------- kernels

@pytest.mark.parametrize("kind", [K.OPT_SGD, K.OPT_SIGNSGD, K.OPT_RMSPROPW, K.OPT_ADAMW])
def test_opt_step_py_func_matches_jit(kind):
    """One optimizer step, given the noise draw, is the same jitted and in pure Python."""
    xi = np.array([0.3, -1.2])
    out = []
    for f in (K.opt_step, K.opt_step.py_func):
        x, m, v, g = np.array([1.0, -0.5]), np.array([0.1, 0.2]), np.array([1.0, 0.5]), np.zeros(2)
        for k in (1, 2, 3):
            f(kind, k, x, m, v, g, 0.05, 0.9, 0.99, 1e-8, 0.1, H2, np.array([0.5, 1.0]), 0, 1.0, xi)
        out.append(np.concatenate([x, m, v]))
    np.testing.assert_allclose(out[0], out[1], rtol=1e-13)


@pytest.mark.parametrize("model,dim", [(K.OU, 1), (K.GBM, 1), (K.SGD, 2), (K.SIGNSGD, 2), (K.RMSPROPW, 4),
                                       (K.ADAMW, 6)])
@pytest.mark.parametrize("table", [False, True])
def test_em_step_py_func_matches_jit(model, dim, table):
    tab = sde.sign_mean_table("student_t", 3.0) if table else np.zeros(2)
    p = np.array([0.05, 2.0, 1.0, 1e-8, 0.1, 1.0 if table else 0.0]) if model >= K.SGD else np.array([1.0, 0.5, 0.3])
    H = H2 if model >= K.SGD else np.zeros((1, 1))
    sig = np.array([0.5, 1.0]) if model >= K.SGD else np.ones(1)
    out = []
    for f in (K.em_step, K.em_step.py_func):
        y = np.linspace(0.5, 1.5, dim)
        for k in range(3):
            f(model, 0.1 * k, 0.1, y, np.linspace(-0.3, 0.2, dim), H, sig, p, tab, np.zeros(sig.size))
        out.append(y)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)


def test_coupled_run_sgd_optimizer_equals_sde_at_n_sub_1():
    """With n_sub = 1, SGD's SDE stepped by EM at dt = eta IS the SGD recursion on the same noise."""
    q = sde.Quadratic(H2)
    opt, s = sde.run_coupled("sgd", q, [1.0, -0.5], eta=0.05, sigma=[0.5, 1.0], n_steps=30, n_sub=1, n_paths=4)
    np.testing.assert_allclose(opt.loss, s.loss, rtol=1e-10)


def test_levels_coupling_finest_level_equals_plain_run():
    """The finest level of em_levels is exactly em_run with the same seed (same increments)."""
    p = np.array([0.5, 0.5])
    yT, WT, _ = K.em_levels(K.GBM, np.array([1.0]), 1, np.zeros((1, 1)), np.ones(1), p, np.zeros(2), 1.0, 16,
                            np.array([4, 1]), SEEDS)
    st, _ = K.em_run(K.GBM, np.array([1.0]), 1, np.zeros((1, 1)), np.ones(1), p, np.zeros(2), 0.0, 1 / 16, 16, 16,
                     SEEDS)
    np.testing.assert_allclose(yT[:, 1, 0], st[:, -1, 0], rtol=1e-13)


def test_same_seed_same_numbers_and_thread_count_independent():
    q = sde.Quadratic.rotated([1.0, 3.0], seed=2)
    kw = dict(eta=0.05, sigma=0.7, n_steps=40, n_paths=16, record_every=10, seed=11)
    a = sde.run_optimizer("adamw", q, 1.0, **kw).loss
    b = sde.run_optimizer("adamw", q, 1.0, **kw).loss
    np.testing.assert_array_equal(a, b)
    if numba.config.NUMBA_NUM_THREADS >= 2:
        old = numba.get_num_threads()
        try:
            numba.set_num_threads(1)
            one = sde.run_sde("signsgd", q, 1.0, **kw).loss
            numba.set_num_threads(2)
            two = sde.run_sde("signsgd", q, 1.0, **kw).loss
        finally:
            numba.set_num_threads(old)
        np.testing.assert_array_equal(one, two)
    c = sde.run_optimizer("adamw", q, 1.0, **{**kw, "seed": 12}).loss
    assert not np.array_equal(a, c)


def test_path_seed_does_not_depend_on_n_paths():
    q = sde.Quadratic.diagonal([1.0, 2.0])
    a = sde.run_optimizer("signsgd", q, 1.0, eta=0.1, sigma=1.0, n_steps=5, n_paths=3, seed=4).loss
    b = sde.run_optimizer("signsgd", q, 1.0, eta=0.1, sigma=1.0, n_steps=5, n_paths=7, seed=4).loss
    np.testing.assert_array_equal(a, b[:3])


def test_sign_mean_table_interpolation():
    ys = np.array([-30.0, -2.0, -0.3, 0.0, 0.1, 1.5, 7.0, 1e6])
    for noise, nu in (("gaussian", None), ("student_t", 1.0), ("student_t", 3.0)):
        tab = sde.sign_mean_table(noise, nu)
        got = np.array([K.sign_mean_table(y, tab) for y in ys])
        np.testing.assert_allclose(got, sde.sign_mean(ys, noise=noise, nu=nu), atol=2e-6)


def test_student_t_sde_uses_t_cdf_drift():
    """The Cauchy SignSGD SDE's one-step mean equals -(2 F_1(Y) - 1) dt."""
    q = sde.Quadratic.diagonal([1.0])
    run = sde.run_sde("signsgd", q, 0.8, eta=1e-2, sigma=1.0, n_steps=1, n_paths=20000, noise="student_t", nu=1.0,
                      return_states=True, seed=1)
    step = run.info["states"][:, 1, 0] - 0.8
    pred = -(2 * np.arctan(0.8) / np.pi) * 1e-2
    assert abs(step.mean() - pred) < 4 * step.std() / np.sqrt(step.size)


# ---------------------------------------------------------------------------- engine API

@njit
def _ou_drift(t, y, p, out):
    out[0] = p[0] * (p[1] - y[0])


@njit
def _ou_diff(t, y, p, out):
    out[0] = p[2]


def test_generic_engine_matches_builtin_ou():
    t, paths = sde.euler_maruyama(_ou_drift, _ou_diff, [1.0], t_end=1.0, dt=0.125, params=[2.0, 0.5, 0.3],
                                  n_paths=5, seed=3)
    t2, paths2 = sde.simulate_test_sde("ou", 1.0, t_end=1.0, dt=0.125, n_paths=5, seed=3, theta=2.0, mu=0.5,
                                       sigma=0.3)
    np.testing.assert_allclose(t, t2)
    np.testing.assert_allclose(paths[:, :, 0], paths2, rtol=1e-12)


@njit
def _explode(t, y, p, out):
    out[0] = y[0] * y[0]


def test_generic_engine_blowup_raises_with_step_and_path():
    with pytest.raises(SimulationDiverged, match=r"path 0 at step \d+"):
        sde.euler_maruyama(_explode, _ou_diff, [1.0], t_end=5.0, dt=0.01, params=[0.0, 0.0, 0.0], n_paths=2)


def test_convergence_table_gbm_shapes():
    df = sde.convergence_table("gbm", 1.0, t_end=1.0, levels=[1, 2, 3], n_paths=50, mu=0.5, sigma=0.5)
    assert list(df.h) == [0.5, 0.25, 0.125]
    assert df.attrs["samples_strong"].shape == (50, 3)
    assert np.all(df.strong > 0)


def test_em_ou_moments_limit():
    m, v = sde.ou_moments(1.0, 1.0, 0.0, 1.0, 1.0)
    from theorylab.sde.engine import em_ou_moments
    m2, v2 = em_ou_moments(1.0, 1.0, 0.0, 1.0, 1.0, 1e-5)
    assert abs(m - m2) < 1e-4 and abs(v - v2) < 1e-4


# ---------------------------------------------------------------------------- optimizers and theory

def test_sgd_matches_closed_form_one_path_no_noise_limit():
    """With tiny noise, one SGD step is x - eta H x."""
    q = sde.Quadratic(H2)
    run = sde.run_optimizer("sgd", q, [1.0, -1.0], eta=0.1, sigma=1e-12, n_steps=1, n_paths=2)
    x1 = np.array([1.0, -1.0]) - 0.1 * H2 @ np.array([1.0, -1.0])
    np.testing.assert_allclose(run.loss[:, 1], q.loss(x1), rtol=1e-9)


def test_run_frame_and_shapes():
    q = sde.Quadratic.diagonal([1.0, 2.0, 3.0])
    opt, sd = sde.run_coupled("rmspropw", q, 1.0, eta=0.05, sigma=1.0, n_steps=20, n_paths=8, record_every=5)
    assert opt.loss.shape == sd.loss.shape == (8, 5)
    df = opt.frame()
    assert list(df.columns) == ["t", "step", "mean_loss", "se"]
    np.testing.assert_allclose(df.t, [0, 0.25, 0.5, 0.75, 1.0])


def test_scaling_rule_leaves_formula_invariant():
    h = np.array([1.0, 2.0])
    base = sde.adaptive_stationary_loss(h, 2.0, eta=1e-3, theta=0.5, batch=1.0)
    for kappa in (2, 4, 8):
        hp = sde.scale_hyperparameters(kappa, eta=1e-3, theta=0.5, beta1=0.99, beta2=0.999)
        got = sde.adaptive_stationary_loss(h, 2.0, eta=hp["eta"], theta=hp["theta"], batch=hp["batch"])
        assert got == pytest.approx(base, rel=1e-12)


def test_theory_values():
    assert sde.t_density_at_zero(1.0) == pytest.approx(1 / np.pi)
    assert sde.signsgd_stationary_loss(np.ones(4), eta=0.1) == pytest.approx(0.1 * 4 * np.sqrt(np.pi / 2) / 4)
    assert sde.signsgd_stationary_loss(np.ones(4), eta=0.1, noise="student_t", nu=1) == pytest.approx(
        np.pi * 0.1 * 4 / 8)
    assert sde.sgd_stationary_loss([1.0], eta=0.1, noise="student_t", nu=2.0) == np.inf
    np.testing.assert_array_equal(sde.phase_of([0.5, 1.2, 2.0]), [3, 2, 1])


# ---------------------------------------------------------------------------- bad input

Q = sde.Quadratic.diagonal([1.0, 2.0])


@pytest.mark.parametrize("kw,match", [
    (dict(eta=0.0), r"eta must be a finite float in \(0\.0, inf\); got 0\.0"),
    (dict(eta=-1e-3), "eta must be"),
    (dict(sigma=0.0), "sigma must be"),
    (dict(sigma=[1.0, -1.0]), "sigma must be positive in every coordinate"),
    (dict(sigma=[1.0, 1.0, 1.0]), r"sigma must have shape \(2\)"),
    (dict(noise="student_t", nu=0.0), "nu must be"),
    (dict(noise="student_t", nu=-2.0), "nu must be"),
    (dict(noise="student_t"), "nu must be given"),
    (dict(noise="laplace"), "noise must be one of"),
    (dict(beta2=1.0), "beta2 must be"),
    (dict(n_steps=0), "n_steps must be an integer in"),
])
def test_bad_input_optimizer(kw, match):
    args = dict(eta=0.01, sigma=1.0, n_steps=5, n_paths=2)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        sde.run_optimizer("adamw", Q, 1.0, **args)


def test_bad_shapes_and_names():
    with pytest.raises(ValueError, match=r"x0 must have shape \(2\)"):
        sde.run_optimizer("sgd", Q, [1.0, 2.0, 3.0], eta=0.1, sigma=1.0, n_steps=2)
    with pytest.raises(ValueError, match="optimizer must be one of"):
        sde.run_optimizer("adam", Q, 1.0, eta=0.1, sigma=1.0, n_steps=2)
    with pytest.raises(ValueError, match="H must be positive definite"):
        sde.Quadratic(np.array([[1.0, 0.0], [0.0, -1.0]]))
    with pytest.raises(ValueError, match="square"):
        sde.Quadratic(np.ones((2, 3)))
    with pytest.raises(TypeError, match="quadratic must be"):
        sde.run_optimizer("sgd", np.eye(2), 1.0, eta=0.1, sigma=1.0, n_steps=2)
    with pytest.raises(ValueError, match="nu must be > 2"):
        sde.run_sde("sgd", Q, 1.0, eta=0.1, sigma=1.0, n_steps=2, noise="student_t", nu=1.0)
    with pytest.raises(ValueError, match="t_end / dt must be a positive integer"):
        sde.simulate_test_sde("ou", 1.0, t_end=1.0, dt=0.3, theta=1.0, sigma=1.0)
    with pytest.raises(ValueError, match="sigma must be"):
        sde.simulate_test_sde("gbm", 1.0, t_end=1.0, dt=0.5, mu=1.0, sigma=-1.0)
    with pytest.raises(ValueError, match="factors must be positive integers dividing"):
        sde.coupled_terminal("gbm", 1.0, t_end=1.0, n_fine=8, factors=[3], mu=0.1, sigma=0.1)
    with pytest.raises(ValueError, match="kappa"):
        sde.scale_hyperparameters(20, eta=1e-3, beta1=0.9)


def test_diverging_optimizer_and_sde_raise():
    q = sde.Quadratic.diagonal([1.0])
    with pytest.raises(SimulationDiverged, match=r"sgd optimizer diverged .* on path \d+ at step \d+"):
        sde.run_optimizer("sgd", q, 1.0, eta=3.0, sigma=1.0, n_steps=2000, n_paths=3)
    with pytest.raises(SimulationDiverged, match=r"sgd SDE diverged .* at SDE step \d+"):
        sde.run_sde("sgd", q, 1.0, eta=3.0, sigma=1.0, n_steps=2000, n_paths=3)
