"""Tests of theorylab.zeroth.oracles / estimators (paper dap): the zoo's gradients, the samplers' laws,
the kernels against their definitions and the numpy reference, bad input, and the mutation the checks
catch."""

import numpy as np
import pytest

from theorylab.core import SimulationDiverged
from theorylab.zeroth import estimators as E
from theorylab.zeroth import oracles as O
from theorylab.core import clear_experiments


def _zoo():
    rng = np.random.default_rng(0)
    return [O.quadratic(O.quadratic_spectrum(5, 10.0), rotate=True, center=rng.standard_normal(5), seed=1),
            O.diagonal_quadratic(O.quadratic_spectrum(5, 10.0), center=rng.standard_normal(5)),
            O.product(6), O.rosenbrock(4), O.logistic_loss(30, 4, lam=0.1, seed=2),
            O.strict_saddle(5, n_negative=2)]


@pytest.mark.parametrize("oracle", _zoo(), ids=lambda o: o.kind)
def test_zoo_gradients_hessians_and_minimisers(oracle):
    x = 0.7 * np.random.default_rng(3).standard_normal(oracle.d)
    h = 1e-6
    fd = np.array([(oracle.exact_value(x + h * e) - oracle.exact_value(x - h * e)) / (2 * h) for e in np.eye(oracle.d)])
    assert np.allclose(oracle.gradient(x), fd, atol=1e-7 * (1 + np.abs(fd).max()))
    Hfd = np.array([(oracle.gradient(x + h * e) - oracle.gradient(x - h * e)) / (2 * h) for e in np.eye(oracle.d)])
    assert np.allclose(oracle.hessian(x), Hfd, atol=1e-6 * (1 + np.abs(Hfd).max()))
    if oracle.x_star is not None:
        assert abs(oracle.exact_value(oracle.x_star) - oracle.f_star) < 1e-12
        assert np.abs(oracle.gradient(oracle.x_star)).max() < 1e-12


@pytest.mark.parametrize("oracle", _zoo(), ids=lambda o: o.kind)
def test_kernel_functions_agree_with_the_numpy_oracle(oracle):
    """The jitted f_value (inside the estimator) and f_grad (the DAP direction inside ZO-SGD) against the
    oracle's numpy value/gradient: central differences with delta = 1e-5 give (g.v) v up to O(delta^2), and
    one ZO-SGD step with DAP equals x0 - step * the DAP estimate built on the numpy gradient."""
    x = 0.6 * np.random.default_rng(4).standard_normal(oracle.d)
    g = oracle.gradient(x)
    est = E.estimator_trials(oracle, x, law="gaussian", b=1, delta=1e-5, trials=20, seed=2)
    V = E.sample_directions("gaussian", oracle.d, 20, seed=2)
    assert np.allclose(est, (V @ g)[:, None] * V, rtol=1e-5, atol=1e-6 * (1 + np.abs(g).max()))
    step = 1e-3
    f1 = E.zo_sgd(oracle, x, law="dap", b=1, delta=1e-5, step=step, n_iter=1, n_paths=3, seed=5)[:, 1]
    e1 = E.estimator_trials(oracle, x, law="dap", b=1, delta=1e-5, trials=3, seed=5)
    assert np.allclose(f1, oracle.exact_value(x - step * e1), rtol=1e-9, atol=1e-12)


def test_query_counter_noise_and_finite_sums():
    o = O.product(4)
    o.value(np.ones(4))
    o.value(np.ones((3, 4)))
    assert o.queries == 4
    o.reset_queries()
    assert o.queries == 0
    noisy = o.with_noise("bounded", 0.1, seed=5)
    v = noisy.value(np.ones((2000, 4))) - 1.0
    assert np.abs(v).max() <= 0.1 and np.abs(v).max() > 0.09
    assert np.array_equal(o.with_noise("gaussian", 0.3, seed=7).value(np.ones((5, 4))),
                          o.with_noise("gaussian", 0.3, seed=7).value(np.ones((5, 4))))
    lg = O.logistic_loss(40, 3, lam=0.2, seed=1)
    x = np.array([0.3, -0.2, 0.5])
    assert np.isclose(lg.component_values(x).mean(), lg.exact_value(x))
    assert np.allclose(lg.component_gradients(x).mean(0), lg.gradient(x))
    with pytest.raises(ValueError, match="logistic oracle only"):
        o.component_values(np.ones(4))


@pytest.mark.parametrize("law", ["gaussian", "sphere", "rademacher", "coordinate", "dap", "optimal"])
def test_every_law_is_delta_unbiased(law):
    """E[v v^T] = I (the estimator's unbiasedness), each entry within 5 standard errors."""
    d, n = 6, 40_000
    a = np.arange(1.0, d + 1)
    V = E.sample_directions(law, d, n, a=a, seed=11)
    outer = V[:, :, None] * V[:, None, :]
    m, se = outer.mean(0), outer.std(0) / np.sqrt(n)
    assert np.all(np.abs(m - np.eye(d)) <= 5 * se + 1e-12), (m, se)


def test_aligned_laws_geometry():
    d = 9
    a = np.random.default_rng(0).standard_normal(d)
    ah = a / np.linalg.norm(a)
    V = E.sample_directions("dap", d, 1000, a=a, seed=1)
    assert np.allclose((V @ ah) ** 2, 1.0)                      # a^T v = +-|a|
    W = E.sample_directions("optimal", d, 1000, a=a, seed=1)
    assert np.allclose((W @ ah) ** 2, 1.0) and np.allclose(np.sum(W**2, 1), d)
    S = E.sample_directions("sphere", d, 100, seed=2)
    assert np.allclose(np.sum(S**2, 1), d)
    C = E.sample_directions("coordinate", d, 100, seed=2)
    assert np.allclose(np.sort(np.abs(C), 1)[:, -1], np.sqrt(d)) and np.all(np.count_nonzero(C, 1) == 1)


@pytest.mark.parametrize("law", ["gaussian", "sphere", "dap", "optimal"])
def test_kernel_equals_its_definition_direction_by_direction(law):
    """With b = 1, central differences on a quadratic, trial t's estimate is (g.v_t) v_t with v_t the
    direction sample_directions draws from the same per-trial seed."""
    o = O.quadratic(O.quadratic_spectrum(7, 5.0), rotate=True, seed=4)
    x = np.linspace(-1, 1, 7)
    g = o.gradient(x)
    est = E.estimator_trials(o, x, law=law, b=1, delta=0.5, trials=50, seed=9)
    V = E.sample_directions(law, 7, 50, a=g, seed=9)
    assert np.allclose(est, (V @ g)[:, None] * V, rtol=1e-10, atol=1e-12)


def test_same_seed_same_numbers_and_query_count():
    o = O.product(5)
    x = np.array([0.5, 1.0, -1.2, 0.8, 1.1])
    a = E.estimator_trials(o, x, law="dap_estimated", b=3, delta=1e-6, scheme="forward", trials=20, seed=3)
    b = E.estimator_trials(o, x, law="dap_estimated", b=3, delta=1e-6, scheme="forward", trials=20, seed=3)
    assert np.array_equal(a, b)
    assert o.queries == 2 * 20 * E.queries_per_estimate("dap_estimated", 3, "forward") == 2 * 20 * 7
    assert E.queries_per_estimate("sphere", 4, "central") == 8


def test_jitted_and_numpy_reference_agree_in_law():
    o = O.quadratic(O.quadratic_spectrum(8, 10.0), rotate=True, seed=2)
    x = np.ones(8)
    g = o.gradient(x)
    for law, pred in (("gaussian", 9.0), ("dap", 7.0)):
        for f in (E.estimator_trials, E.estimator_trials_numpy):
            e = np.sum((f(o, x, law=law, b=1, delta=1.0, trials=20_000, seed=5) - g) ** 2, 1) / (g @ g)
            assert abs(e.mean() - pred) < 5 * e.std() / np.sqrt(e.size), (law, f.__name__, e.mean())


def test_zo_sgd_decreases_and_divergence_is_reported():
    o = O.diagonal_quadratic(O.quadratic_spectrum(10, 10.0))
    f = E.zo_sgd(o, np.ones(10), law="sphere", b=2, delta=1e-4, step=0.05, n_iter=400, n_paths=4,
                 record_every=100, seed=1)
    assert f.shape == (4, 5) and np.all(f[:, -1] < 0.1 * f[:, 0])
    g = E.zo_sgd(o, np.ones(10), law="dap", b=1, delta=1e-4, step=0.05, n_iter=50, n_paths=2, seed=1)
    assert np.all(g[:, -1] < g[:, 0])
    with pytest.raises(SimulationDiverged, match="reduce step"):
        E.zo_sgd(o, np.ones(10), law="gaussian", b=1, delta=1e-4, step=50.0, n_iter=200, n_paths=2, seed=1)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(x=np.array([np.nan, 1.0, 1.0])), ValueError, "x must contain only finite values"),
    (dict(x=np.array([1.0, np.inf, 1.0])), ValueError, "x must contain only finite values"),
    (dict(law="uniform"), ValueError, "law must be one of"),
    (dict(law=3), ValueError, "law must be one of"),
    (dict(b=0), ValueError, "b must be an integer in"),
    (dict(b=2.5), TypeError, "b must be an integer"),
    (dict(delta=0.0), ValueError, "delta must be a finite float in"),
    (dict(delta=-1e-3), ValueError, "delta must be a finite float in"),
    (dict(delta=float("nan")), ValueError, "delta must be a finite float in"),
    (dict(scheme="backward"), ValueError, "scheme must be one of"),
    (dict(trials=0), ValueError, "trials must be an integer in"),
    (dict(x=np.ones(4)), ValueError, r"x must have shape \(3,\)"),
    (dict(law="dap", a=np.zeros(3)), ValueError, "a must be a nonzero direction"),
    (dict(trials=10**7, b=10**3), ValueError, "over the budget"),
])
def test_bad_input_is_named(kwargs, exc, match):
    o = O.product(3)
    args = dict(x=np.array([0.5, 1.0, 2.0]), law="gaussian", b=1, delta=1e-6, trials=2)
    args.update(kwargs)
    x = args.pop("x")
    with pytest.raises(exc, match=match):
        E.estimator_trials(o, x, **args)


def test_bad_oracles_and_factories_are_named():
    with pytest.raises(TypeError, match="oracle must be"):
        E.estimate_gradient("f", np.ones(3))
    with pytest.raises(ValueError, match="kind must be one of"):
        O.Oracle("cubic", 3, [])
    with pytest.raises(ValueError, match="params must have 12 entries"):
        O.Oracle("quadratic", 3, np.ones(5))
    with pytest.raises(ValueError, match="noise must be one of"):
        O.product(3, noise="laplace")
    with pytest.raises(ValueError, match="noise_level must be"):
        O.product(3, noise="bounded", noise_level=-1.0)
    with pytest.raises(ValueError, match="spectrum must contain only finite"):
        O.quadratic([1.0, np.nan])
    with pytest.raises(ValueError, match="gradient direction"):
        E.estimate_gradient(O.quadratic([1.0, 2.0]), np.zeros(2), law="dap")   # grad f(0) = 0
    with pytest.raises(ValueError, match="law must be one of"):
        E.sample_directions("dap_estimated", 3, 2)
    with pytest.raises(ValueError, match="needs the direction a"):
        E.sample_directions("optimal", 3, 2)
    with pytest.raises(ValueError, match="n_iter must be"):
        E.zo_sgd(O.product(3), np.ones(3), n_iter=-1)


def test_mutation_missized_sphere_is_caught_by_the_mse_claim(broken_claim):
    """A wrong constant: the sphere's radius sqrt(d + 2) instead of sqrt(d) (so E vv^T = (d+2)/d I, a
    biased estimator with normalised MSE (d+2)^2/d - 2(d+2)/d + 1 = 23 at d = 20 instead of 19).  The
    cheap ci claim mse_sphere must say "not reproduced"; the intact sampler passes."""
    small = {"trials": 5000}
    real = E.law_scale
    assert broken_claim.intact("dap:mse_sphere", overrides=small).verdict == "reproduced"
    r = broken_claim("dap:mse_sphere", (E, "law_scale"),
                     lambda law, d: np.sqrt(d + 2.0) if law == "sphere" else real(law, d), overrides=small)
    assert r.verdict == "not reproduced", r.measured
