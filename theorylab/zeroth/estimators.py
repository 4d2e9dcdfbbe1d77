"""Two-point and forward-difference gradient estimators with pluggable perturbation laws (paper dap).

The estimator with a batch of b directions v_1..v_b drawn from a law V (Ma & Huang, ICLR 2025, Sec. 2;
authors' GradEstimator.estimate in mshaocong/dap-zoo-optimization, Synthetic-Experiments.ipynb):

    central:  g = 1/b sum_j [f(x + delta v_j) - f(x - delta v_j)] / (2 delta) v_j      (2b queries)
    forward:  g = 1/b sum_j [f(x + delta v_j) - f(x)] / delta v_j                      (b + 1 queries:
              f(x) is queried once and shared; the authors' loop re-queries it per direction)

As delta -> 0 both tend to 1/b sum_j v_j v_j^T grad f(x), unbiased iff E[v v^T] = I ("delta-unbiased").
Laws (``LAWS``), each with E[v v^T] = I:

* ``gaussian``    v ~ N(0, I_d);
* ``sphere``      v uniform on the sphere of radius sqrt(d) (authors' "uniform");
* ``rademacher``  v_i = +-1 independently (authors' "bernoulli");
* ``coordinate``  v = sqrt(d) e_i, i uniform (the authors' get_coordinate_noise uses e_i without the
                  sqrt(d), i.e. E[v v^T] = I/d: a biased estimator; ours is the delta-unbiased one);
* ``dap``         v = (I - a a^T/|a|^2) X + xi a/|a|, X ~ N(0, I), xi = +-1 (authors' proj_multiple,
                  "grad" mode), with a = grad f(x) (exact) unless ``a`` is given; then (a^T v)^2 = |a|^2;
* ``optimal``     v = xi sqrt(d) (sqrt(1 - 1/d) w + a/(|a| sqrt(d))), w a uniform unit vector orthogonal to a
                  (authors' get_optimal);
* ``dap_estimated``  b sphere directions give g1, then b DAP directions around a = g1 give g2; the
                  estimate is (g1 + g2)/2 (authors' "empirical_grad" mode), 2b (+1) queries.

Kernels: theorylab.zeroth._kernels (one xoshiro256** state per trial/path, seeded by spawn_seeds, so
results do not depend on the thread count).
"""

from __future__ import annotations

import numpy as np

from theorylab.core.seeding import as_generator, spawn_seeds
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_choice,
                                     check_real, check_size, require_finite)
from theorylab.zeroth import _kernels as K
from theorylab.zeroth.oracles import Oracle, _np_values

__all__ = ["LAWS", "SCHEMES", "law_scale", "queries_per_estimate", "sample_directions", "estimate_gradient",
           "estimator_trials", "estimator_trials_numpy", "zo_sgd"]

LAWS = ("gaussian", "sphere", "rademacher", "coordinate", "dap", "optimal", "dap_estimated")
SCHEMES = ("central", "forward")
_LAW_CODE = {"gaussian": K.LAW_GAUSSIAN, "sphere": K.LAW_SPHERE, "rademacher": K.LAW_RADEMACHER,
             "coordinate": K.LAW_COORDINATE, "dap": K.LAW_DAP, "optimal": K.LAW_OPTIMAL,
             "dap_estimated": K.LAW_DAP_ESTIMATED}
_SCHEME_CODE = {"central": K.CENTRAL, "forward": K.FORWARD}
MAX_BATCH = 10**6
#: Arithmetic budget of one call (queries x cost per query): 1e9 operations, a few seconds of a kernel.
WORK_BUDGET = 10**9


def law_scale(law: str, d: int) -> float:
    """The radius passed to the kernels: sqrt(d) for the constant-norm laws (sphere, coordinate,
    optimal, and the sphere stage of dap_estimated), which makes E[v v^T] = I; 1 for the others."""
    law = check_choice("law", law, LAWS)
    d = check_size("d", d)
    return float(np.sqrt(d)) if law in ("sphere", "coordinate", "optimal", "dap_estimated") else 1.0


def queries_per_estimate(law: str, b: int, scheme: str = "central") -> int:
    """Function values one estimate costs: central 2b, forward b + 1; doubled b for dap_estimated."""
    law = check_choice("law", law, LAWS)
    b = check_size("b", b, budget=MAX_BATCH)
    scheme = check_choice("scheme", scheme, SCHEMES)
    m = 2 * b if law == "dap_estimated" else b
    return 2 * m if scheme == "central" else m + 1


def _unit_direction(a, d: int, name: str = "a"):
    a = check_array(name, a, shape=(d,))
    top = float(np.max(np.abs(a))) if a.size else 0.0
    if not top > 0:
        raise ValueError(f"{name} must be a nonzero direction for the DAP / optimal samplers; got |{name}| = 0")
    a = a / top                      # scale first: |a| of a vector with entries ~1e300 would overflow
    return a / np.linalg.norm(a)


def _direction_for(law, oracle: Oracle, x, a):
    """The unit vector a/|a| the aligned laws need (exact gradient at x unless ``a`` is given); an ``a``
    given to a law that ignores it is still checked."""
    if law not in ("dap", "optimal"):
        if a is not None:
            _unit_direction(a, oracle.d)
        return np.zeros(oracle.d)
    if a is None:
        g = oracle.gradient(x)
        require_finite("grad f(x) (the DAP direction)", g, law=law)
        if not np.max(np.abs(g)) > 0:
            raise ValueError(f"law={law!r} needs a nonzero gradient direction; grad f(x) = 0 at x (pass a=...)")
        return _unit_direction(g, oracle.d, "grad f(x)")
    return _unit_direction(a, oracle.d)


def _check_common(oracle, x, law, b, delta, scheme, x_name="x"):
    if not isinstance(oracle, Oracle):
        raise TypeError(f"oracle must be a theorylab.zeroth.oracles.Oracle; got {type(oracle).__name__}")
    x = check_array(x_name, x, shape=(oracle.d,))
    law = check_choice("law", law, LAWS)
    b = check_size("b", b, budget=MAX_BATCH)
    delta = check_real("delta", delta, low=0.0, low_open=True)
    scheme = check_choice("scheme", scheme, SCHEMES)
    return x, law, b, delta, scheme


def sample_directions(law: str, d: int, n: int = 1, *, a=None, seed=0):
    """``n`` directions of the law (shape (n, d)); ``a`` (a nonzero (d,) vector) is required by dap/optimal."""
    law = check_choice("law", law, LAWS[:-1])
    d = check_size("d", d, budget=10**6)
    n = check_size("n", n)
    check_budget("the directions", n * d, n=n, d=d)
    if law in ("dap", "optimal"):
        if a is None:
            raise ValueError(f"law={law!r} needs the direction a (a nonzero vector of shape ({d},)); got None")
        a_hat = _unit_direction(a, d)
    else:
        if a is not None:  # ignored by this law, but a bad a is an error in any mode
            _unit_direction(a, d)
        a_hat = np.zeros(d)
    out = np.empty((n, d))
    K.sample_directions(_LAW_CODE[law], a_hat, law_scale(law, d), spawn_seeds(seed, n), out)
    return out


def estimator_trials(oracle: Oracle, x, *, law: str = "gaussian", b: int = 1, delta: float = 1e-6,
                     scheme: str = "central", trials: int = 1, a=None, seed=0, parallel: bool = False):
    """``trials`` independent estimates of grad f(x) (shape (trials, d)), each with b directions.

    Jitted, one random state per trial (seeded by ``spawn_seeds(seed, trials)``); ``parallel=True``
    threads over trials with the same numbers (its kernel compiles in ~10 s, so the tests keep the
    serial one).  Adds the queries used to ``oracle.queries``.  Raises SimulationDiverged if an
    estimate is not finite.
    """
    x, law, b, delta, scheme = _check_common(oracle, x, law, b, delta, scheme)
    trials = check_size("trials", trials)
    q = queries_per_estimate(law, b, scheme)
    check_budget("the estimator trials", trials * q * oracle.cost_per_query, max_elements=WORK_BUDGET,
                 unit="operations", trials=trials, b=b, d=oracle.d)
    a_hat = _direction_for(law, oracle, x, a)
    if not isinstance(parallel, (bool, np.bool_)):
        raise TypeError(f"parallel must be a bool; got {parallel!r}")
    out = np.empty((trials, oracle.d))
    kernel = K.estimate_trials_parallel if parallel else K.estimate_trials
    kernel(oracle.kind_code, oracle.params, x, _LAW_CODE[law], a_hat, law_scale(law, oracle.d), b,
                      delta, _SCHEME_CODE[scheme], oracle.noise_code, oracle.noise_level,
                      spawn_seeds(seed, trials), out)
    oracle.queries += trials * q
    require_finite("the gradient estimates", out, law=law, b=b, delta=delta)
    return out


def estimate_gradient(oracle: Oracle, x, *, law: str = "gaussian", b: int = 1, delta: float = 1e-6,
                      scheme: str = "central", a=None, seed=0):
    """One estimate of grad f(x) (shape (d,)) with b directions of ``law``; see the module docstring."""
    return estimator_trials(oracle, x, law=law, b=b, delta=delta, scheme=scheme, trials=1, a=a, seed=seed)[0]


# ----------------------------------------------------------------------------- numpy reference

def _numpy_values(oracle: Oracle, X):
    """f on the last axis of X (..., d), vectorised numpy (the reference of the benchmark)."""
    return _np_values(oracle.kind, oracle.d, oracle.params, X)


def _numpy_directions(law, a_hat, d, shape, rng):
    if law == "gaussian":
        return rng.standard_normal(shape + (d,))
    if law == "sphere":
        V = rng.standard_normal(shape + (d,))
        return V * (np.sqrt(d) / np.linalg.norm(V, axis=-1, keepdims=True))
    if law == "rademacher":
        return rng.choice(np.array([-1.0, 1.0]), size=shape + (d,))
    if law == "coordinate":
        return np.sqrt(d) * np.eye(d)[rng.integers(0, d, size=shape)]
    X = rng.standard_normal(shape + (d,))
    xi = rng.choice(np.array([-1.0, 1.0]), size=shape + (1,))
    W = X - (X @ a_hat)[..., None] * a_hat
    if law == "dap":
        return W + xi * a_hat
    nw = np.linalg.norm(W, axis=-1, keepdims=True)
    return xi * np.sqrt(d) * (np.sqrt(1 - 1 / d) * W / nw + a_hat / np.sqrt(d))


def estimator_trials_numpy(oracle: Oracle, x, *, law: str = "gaussian", b: int = 1, delta: float = 1e-6,
                           scheme: str = "central", trials: int = 1, a=None, seed=0):
    """The same estimator as :func:`estimator_trials`, vectorised in numpy over (trials, b, d) arrays.

    A reference for the benchmark and the tests (numpy's generator: equal in law, not draw by draw;
    value noise is not supported, ``dap_estimated`` is not provided).
    """
    x, law, b, delta, scheme = _check_common(oracle, x, law, b, delta, scheme)
    if law == "dap_estimated":
        raise ValueError("law='dap_estimated' has no numpy reference; use estimator_trials")
    if oracle.noise != "none":
        raise ValueError(f"the numpy reference has no value noise; got an oracle with noise={oracle.noise!r}")
    trials = check_size("trials", trials)
    check_budget("the numpy estimator arrays", 3 * trials * b * oracle.d, max_elements=5 * 10**7, trials=trials, b=b,
                 d=oracle.d)
    check_budget("the numpy estimator", trials * b * oracle.cost_per_query, max_elements=WORK_BUDGET,
                 unit="operations", trials=trials, b=b, d=oracle.d)
    a_hat = _direction_for(law, oracle, x, a)
    rng = as_generator(seed)
    V = _numpy_directions(law, a_hat, oracle.d, (trials, b), rng)
    fp = _numpy_values(oracle, x + delta * V)
    if scheme == "central":
        c = (fp - _numpy_values(oracle, x - delta * V)) / (2 * delta)
    else:
        c = (fp - _numpy_values(oracle, x)) / delta
    out = np.einsum("tb,tbi->ti", c, V) / b
    oracle.queries += trials * queries_per_estimate(law, b, scheme)
    return require_finite("the gradient estimates", out, law=law, b=b)


# ----------------------------------------------------------------------------- ZO-SGD

def zo_sgd(oracle: Oracle, x0, *, law: str = "gaussian", b: int = 1, delta: float = 1e-6, step: float = 1e-3,
           n_iter: int = 100, scheme: str = "central", n_paths: int = 1, record_every: int = 1, seed=0):
    """Zeroth-order SGD x_{t+1} = x_t - step g_t (Ma & Huang, Sec. 3, with delta-unbiased V).

    Returns ``f_path`` of shape (n_paths, n_iter // record_every + 1): the exact (noise-free) f(x_t) at
    t = 0, record_every, ...  For ``dap``/``optimal`` the direction is the exact gradient at x_t.
    Counts n_paths * n_iter * queries_per_estimate queries.  Raises SimulationDiverged if a path leaves
    the region where f stays below 1e6 (|f(x0)| + 1) or becomes non-finite.
    """
    x0, law, b, delta, scheme = _check_common(oracle, x0, law, b, delta, scheme, x_name="x0")
    step = check_real("step", step, low=0.0, low_open=True)
    n_iter = check_size("n_iter", n_iter, low=1)
    n_paths = check_size("n_paths", n_paths)
    record_every = check_size("record_every", record_every)
    q = queries_per_estimate(law, b, scheme)
    check_budget("the ZO-SGD run", n_paths * max(n_iter, 1) * q * oracle.cost_per_query, max_elements=WORK_BUDGET,
                 unit="operations", n_paths=n_paths, n_iter=n_iter, b=b, d=oracle.d)
    n_rec = n_iter // record_every + 1
    check_budget("the recorded values", n_paths * n_rec, n_paths=n_paths, n_iter=n_iter)
    out_f = np.empty((n_paths, n_rec))
    out_x = np.empty((n_paths, oracle.d))
    K.zo_sgd_paths(oracle.kind_code, oracle.params, x0, _LAW_CODE[law], law_scale(law, oracle.d), b, delta,
                   _SCHEME_CODE[scheme], oracle.noise_code, oracle.noise_level, step, n_iter, record_every,
                   spawn_seeds(seed, n_paths), out_f, out_x)
    oracle.queries += n_paths * n_iter * q
    f0 = abs(oracle.exact_value(x0))
    bound = 1e6 * (f0 + 1.0)
    if not (np.all(np.isfinite(out_f)) and np.all(np.abs(out_f) <= bound)):
        bad = np.argwhere(~np.isfinite(out_f) | (np.abs(out_f) > bound))[0].tolist()
        raise SimulationDiverged(f"ZO-SGD diverged: |f| above {bound:.3g} or non-finite at (path, record) {bad} "
                                 f"with law={law}, b={b}, step={step:g}, delta={delta:g}; reduce step")
    return out_f
