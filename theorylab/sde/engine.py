"""Euler–Maruyama engine: many paths in parallel, per-path seeds, coupled step-size levels.

Two entry points:

* :func:`euler_maruyama` integrates a user SDE ``dY = a(t, Y) dt + diag(b(t, Y)) dW`` given by
  two jitted functions ``a(t, y, params, out)``, ``b(t, y, params, out)`` (compiled once per
  pair and process);
* the built-in models (Ornstein–Uhlenbeck, geometric Brownian motion and the SDEs of SGD,
  SignSGD, RMSpropW and AdamW of Compagnoni et al., ICLR 2025) run on one cached kernel,
  :func:`theorylab.sde._kernels.em_run`, which is the kernel proved on OU/GBM by
  :func:`convergence_table` (strong order 1/2 and weak order 1 of Euler–Maruyama).

Coupling across step sizes follows diffrax's strong-order test: every level is driven by the
same fine Brownian increments, summed in blocks (:func:`coupled_terminal`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import (SimulationDiverged, check_array, check_choice, check_int, check_positive,
                            check_real, spawn_seeds)
from theorylab.core.validate import require_finite
from theorylab.core import interrupt

from . import _kernels as K

MODELS = {"ou": K.OU, "gbm": K.GBM, "sgd": K.SGD, "signsgd": K.SIGNSGD, "rmspropw": K.RMSPROPW,
          "adamw": K.ADAMW}

_EMPTY2 = np.zeros((1, 1))
_EMPTY1 = np.ones(1)
_TAB0 = np.zeros(2)


#: Budgets checked before anything is allocated: the number of floats a call returns (1e8 floats
#: are 800 MB) and the work ``n_paths * n_steps * dim`` (1e11 element-steps is hours on 2 cores;
#: the full-scale claims use at most 4e8).
MAX_OUTPUT = 10 ** 8
MAX_WORK = 10 ** 11
#: A path counts as diverged beyond ``BOUND_FACTOR`` times the problem's own scale (see the
#: ``bound`` of each simulator): a stable run never comes within a factor 1e6 of it.
BOUND_FACTOR = 1e6


def check_budget(*, n_paths, n_steps, dim, n_rec):
    """Refuse sizes beyond :data:`MAX_OUTPUT` (returned floats) or :data:`MAX_WORK` (element-steps)."""
    out = int(n_paths) * int(n_rec) * int(dim)
    if out > MAX_OUTPUT:
        raise ValueError(f"n_paths * n_records * dim = {n_paths} * {n_rec} * {dim} = {out:.3g} floats exceeds the "
                         f"output budget {MAX_OUTPUT:.0e} (n_records grows with n_steps / record_every); use fewer n_paths, "
                         "fewer n_steps or a larger record_every")
    work = int(n_paths) * int(n_steps) * int(dim)
    if work > MAX_WORK:
        raise ValueError(f"n_paths * n_steps * dim = {n_paths} * {n_steps} * {dim} = {work:.3g} exceeds the work "
                         f"budget {MAX_WORK:.0e} element-steps; split the run")


def raise_if_diverged(diverged, *, what, bound, step_unit="step", **context):
    """Raise :class:`SimulationDiverged` naming the first diverged path and its step."""
    bad = np.flatnonzero(np.asarray(diverged) >= 0)
    if bad.size:
        i = int(bad[0])
        ctx = ", ".join(f"{k}={v!r}" for k, v in context.items())
        raise SimulationDiverged(
            f"{what} diverged (non-finite or |state| > {bound:.3g}) on path {i} at {step_unit} "
            f"{int(np.asarray(diverged)[i])}; {bad.size} of {len(diverged)} paths diverged"
            + (f"; {ctx}" if ctx else ""))


def _test_sde_bound(model, x0, t_end, p):
    """|X| bound of a diverged OU/GBM path: ``BOUND_FACTOR`` times a scale no exact path reaches
    (OU: |x0| + |mu| + sigma sqrt(T), since Var X_t <= sigma^2 t; GBM: |x0| exp(max(mu - sigma^2/2, 0) T
    + 10 sigma sqrt T), 10 standard deviations of the running maximum of |W|)."""
    if model == "ou":
        scale = abs(x0) + abs(p[1]) + p[2] * np.sqrt(t_end)
    else:
        scale = abs(x0) * np.exp(min(max(p[0] - p[1] ** 2 / 2, 0.0) * t_end + 10 * p[1] * np.sqrt(t_end), 690.0))
    return float(min(BOUND_FACTOR * scale, 1e300))


def _steps(t_end, dt):
    t_end = check_positive("t_end", t_end)
    dt = check_positive("dt", dt)
    n = int(round(t_end / dt))
    if n < 1 or abs(n * dt - t_end) > 1e-9 * max(1.0, t_end):
        raise ValueError(f"t_end / dt must be a positive integer; got t_end={t_end!r}, dt={dt!r}")
    return t_end, dt, n


def euler_maruyama(drift, diffusion, y0, *, t_end, dt, params=(), t0=0.0, n_paths=100, record_every=1,
                   seed=0, bound=None, parallel=None):
    """Integrate ``dY = a(t, Y) dt + diag(b(t, Y)) dW`` by Euler–Maruyama on many paths.

    Parameters
    ----------
    drift, diffusion : numba-jitted functions ``f(t, y, params, out) -> None``
        Write the drift ``a`` and the diagonal diffusion ``b`` (length ``len(y0)``) into ``out``.
        They are compiled for float64 arguments (t a float, the arrays contiguous) and passed to
        the engine as first-class functions, so the engine itself is compiled once and cached.
    y0 : array (dim,)
        Initial state, the same for every path.
    t_end, dt : float
        Horizon and step (``t_end / dt`` must be an integer).
    params : array-like of float
        Passed to ``drift`` and ``diffusion``.
    n_paths, record_every : int
        Number of independent paths; the state is recorded every ``record_every`` steps.
    seed : int
        Root seed; path ``i`` uses ``spawn_seeds(seed, n_paths)[i]``.
    bound : float, optional
        A path whose state leaves ``|y_j| <= bound`` (or becomes non-finite) counts as diverged and
        raises :class:`SimulationDiverged`; default ``1e6 * max(1, max |y0|)``.  Pass a bound
        derived from your SDE if it legitimately grows further.
    parallel : None or bool
        Checked but without effect: this engine's kernel always spreads the paths over numba's threads
        (``NUMBA_NUM_THREADS=1`` runs them in one).

    Returns
    -------
    times : array (n_rec,)
    paths : array (n_paths, n_rec, dim)
    """
    if parallel is not None and not isinstance(parallel, (bool, np.bool_)):
        raise TypeError(f"parallel must be None, True or False; got {parallel!r:.60}")
    for name, f in (("drift", drift), ("diffusion", diffusion)):
        if not hasattr(f, "py_func"):
            raise TypeError(f"{name} must be a numba-jitted function f(t, y, params, out); got {f!r}")
    y0 = check_array("y0", np.atleast_1d(y0), ndim=1)
    t0 = check_real("t0", t0)
    t_end, dt, n = _steps(t_end, dt)
    n_paths = check_int("n_paths", n_paths, low=1)
    record_every = check_int("record_every", record_every, low=1, high=n)
    params = check_array("params", np.atleast_1d(check_array("params", params)) if np.size(params) else
                         np.zeros(1), ndim=1)
    bound = BOUND_FACTOR * max(1.0, float(np.abs(y0).max())) if bound is None else check_positive("bound", bound)
    check_budget(n_paths=n_paths, n_steps=n, dim=y0.size, n_rec=n // record_every + 1)
    for name, f in (("drift", drift), ("diffusion", diffusion)):
        try:
            f.compile(K.GENERIC_SIG)
        except Exception as exc:  # numba's typing errors: say which function and what it must be
            raise TypeError(f"{name} must compile as f(t: float64, y, params, out: float64[::1]) -> None; "
                            f"numba says: {str(exc).splitlines()[0]}") from None
    seeds = spawn_seeds(seed, n_paths)
    paths, diverged = K.em_generic()(drift, diffusion, np.ascontiguousarray(y0, float), np.ascontiguousarray(params, float),
                                     float(t0), float(dt), n, record_every, seeds, float(bound))
    raise_if_diverged(diverged, what="euler_maruyama", bound=bound, dt=dt)
    require_finite("euler_maruyama paths", paths, dt=dt)
    times = t0 + dt * record_every * np.arange(paths.shape[1])
    return times, paths


# ---------------------------------------------------------------------------------------------
# built-in test SDEs with known solutions
# ---------------------------------------------------------------------------------------------

def _model_params(model, params):
    model = check_choice("model", model, ("ou", "gbm"))
    need = ("theta", "sigma") if model == "ou" else ("mu", "sigma")
    allowed = need + (("mu",) if model == "ou" else ())
    missing = [k for k in need if k not in params]
    extra = sorted(set(params) - set(allowed))
    if missing or extra:
        raise TypeError(f"model={model!r} takes the parameters {', '.join(allowed)}; got {sorted(params)}"
                        + (f" (missing {', '.join(missing)})" if missing else ""))
    if model == "ou":
        th = check_positive("theta", params["theta"])
        mu = check_real("mu", params.get("mu", 0.0))
        s = check_positive("sigma", params["sigma"])
        return K.OU, np.array([th, mu, s])
    mu = check_real("mu", params["mu"])
    s = check_positive("sigma", params["sigma"])
    return K.GBM, np.array([mu, s])


def simulate_test_sde(model, x0, *, t_end, dt, n_paths=1000, record_every=1, seed=0, **params):
    """Euler–Maruyama paths of a scalar test SDE with a known solution.

    ``model="ou"``: ``dX = theta (mu - X) dt + sigma dW``; ``model="gbm"``:
    ``dX = mu X dt + sigma X dW``.  Returns ``(times, paths (n_paths, n_rec))``.
    """
    code, p = _model_params(model, params)
    x0 = check_real("x0", x0)
    t_end, dt, n = _steps(t_end, dt)
    n_paths = check_int("n_paths", n_paths, low=1)
    record_every = check_int("record_every", record_every, low=1, high=n)
    check_budget(n_paths=n_paths, n_steps=n, dim=1, n_rec=n // record_every + 1)
    bound = _test_sde_bound(model, x0, t_end, p)
    states, diverged = K.em_run(code, np.array([x0]), 1, _EMPTY2, _EMPTY1, p, _TAB0, 0.0, dt, n,
                                record_every, spawn_seeds(seed, n_paths), bound)
    raise_if_diverged(diverged, what=f"{model} SDE", bound=bound, dt=dt, **params)
    require_finite(f"{model} SDE paths", states, dt=dt)
    return dt * record_every * np.arange(states.shape[1]), states[:, :, 0]


def _finite_result(what, value, **args):
    if not np.all(np.isfinite(value)):
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        raise ValueError(f"{what} overflows (non-finite result) for {shown}; use arguments whose exponent stays "
                         f"below 709")
    return value


def _times(name, t):
    shape = np.shape(t) if not isinstance(t, str) else None
    t = check_array(name, t)
    if np.any(t < 0):
        raise ValueError(f"{name} must be non-negative times; got minimum {t.min():.3g}")
    return t.reshape(shape) if shape is not None else t


def gbm_exact(x0, mu, sigma, t, w):
    """Exact GBM solution ``x0 exp((mu - sigma^2/2) t + sigma W_t)`` for Brownian values ``w``."""
    x0 = check_real("x0", x0)
    mu = check_real("mu", mu)
    sigma = check_real("sigma", sigma, low=0)
    t = _times("t", t)
    shape = np.shape(w) if not isinstance(w, str) else None
    w = check_array("w", w)
    w = w.reshape(shape) if shape is not None else w
    with np.errstate(over="ignore", invalid="ignore"):
        out = x0 * np.exp((mu - 0.5 * sigma ** 2) * t + sigma * w)
    return _finite_result("gbm_exact", out, x0=x0, mu=mu, sigma=sigma, t_max=float(np.max(t, initial=0)),
                          w=float(np.max(np.abs(w), initial=0)))  # w: its largest |entry|


def ou_moments(x0, theta, mu, sigma, t):
    """Exact mean and variance of the OU process at time ``t``."""
    x0 = check_real("x0", x0)
    theta = check_positive("theta", theta)
    mu = check_real("mu", mu)
    sigma = check_real("sigma", sigma, low=0)
    t = _times("t", t)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(-theta * t)
        mean, var = mu + (x0 - mu) * e, sigma ** 2 / (2 * theta) * (1 - e ** 2)
    _finite_result("ou_moments", np.concatenate([np.ravel(mean), np.ravel(var)]), x0=x0, theta=theta, mu=mu,
                   sigma=sigma)
    if np.ndim(mean) == 0:
        return float(mean), float(var)
    return mean, var


def em_ou_moments(x0, theta, mu, sigma, t, h):
    """Exact mean and variance of Euler–Maruyama for OU after ``t / h`` steps of size ``h``."""
    n = int(round(t / h))
    r = 1.0 - theta * h
    mean = mu + (x0 - mu) * r ** n
    var = sigma ** 2 * h * (1 - r ** (2 * n)) / (1 - r ** 2)
    return mean, var


def coupled_terminal(model, x0, *, t_end, n_fine, factors, n_paths=1000, seed=0, **params):
    """Terminal values of Euler–Maruyama at step sizes ``factors * t_end / n_fine``, all levels
    driven by the same Brownian path; also returns ``W_T`` (for the exact solution).

    Returns ``(h (n_levels,), x_T (n_paths, n_levels), W_T (n_paths,))``.
    """
    code, p = _model_params(model, params)
    x0 = check_real("x0", x0)
    t_end = check_positive("t_end", t_end)
    n_fine = check_int("n_fine", n_fine, low=1, high=10**12)  # (the work budget below is the real limit)
    factors = check_array("factors", factors, ndim=1)
    if not np.all(factors == np.round(factors)) or np.any(np.abs(factors) > n_fine):
        raise ValueError(f"factors must be positive integers dividing n_fine={n_fine}; got {factors.tolist()[:8]}")
    factors = factors.astype(np.int64)
    if factors.ndim != 1 or factors.size < 1 or np.any(factors < 1) or np.any(n_fine % factors):
        raise ValueError(f"factors must be positive integers dividing n_fine={n_fine}; got {factors.tolist()}")
    n_paths = check_int("n_paths", n_paths, low=2)
    check_budget(n_paths=n_paths, n_steps=n_fine, dim=factors.size, n_rec=factors.size + 1)
    bound = _test_sde_bound(model, x0, t_end, p)
    seeds = spawn_seeds(seed, n_paths)
    parts = [K.em_levels(code, np.array([x0]), 1, _EMPTY2, _EMPTY1, p, _TAB0, t_end, n_fine, factors, seeds[sl], bound)
             for sl in interrupt.chunks(n_paths, n_fine * factors.size)]  # a signal stops it within ~1 s
    yT, WT, diverged = (np.concatenate(a) for a in zip(*parts))
    raise_if_diverged(diverged, what=f"{model} SDE (coupled levels)", bound=bound, step_unit="fine step",
                      t_end=t_end, n_fine=n_fine, **params)
    require_finite(f"{model} SDE terminal values", yT, t_end=t_end, n_fine=n_fine)
    return factors * (t_end / n_fine), yT[:, :, 0], WT[:, 0]


def convergence_table(model, x0, *, t_end, levels, n_paths, seed=0, test_fn=None, **params):
    """Strong and weak errors of Euler–Maruyama against the exact solution, coupled levels.

    Step sizes are ``h = t_end / 2**l`` for ``l`` in ``levels``.  The exact terminal value is
    used pathwise for GBM (``gbm_exact`` on the same ``W_T``); for OU (no pathwise closed form
    from ``W_T`` alone) the reference is the same scheme two levels finer (diffrax's choice),
    and for the default ``g(x) = x^2`` the reference's own bias is removed with the closed
    forms of E X_T^2 (OU) and E (X^ref_T)^2 (Euler–Maruyama), :func:`em_ou_moments`.

    Returns a DataFrame with columns ``h``, ``strong`` (E|X^h_T - X_T|), ``strong_se``,
    ``weak`` (|E g(X^h_T) - E g(X_T)|, coupled difference estimator), ``weak_se``, plus
    ``samples_strong`` (n_paths, n_levels) and ``samples_weak`` (per-path differences whose
    mean over paths is ``weak``) in ``df.attrs``, for a bootstrap over paths.  ``test_fn`` is ``g`` (default
    ``g(x) = x`` for GBM, ``g(x) = x**2`` for OU).
    """
    model = check_choice("model", model, ("ou", "gbm"))
    if test_fn is not None and not callable(test_fn):
        raise TypeError(f"test_fn must be a callable g(x) applied elementwise; got {test_fn!r}")
    levels = check_array("levels", levels, ndim=1)
    if not np.all(levels == np.round(levels)) or np.any(levels > 40):
        raise ValueError(f"levels must be integers in [0, 40] (step t_end / 2**level); got {levels.tolist()}")
    levels = levels.astype(np.int64)
    if levels.ndim != 1 or levels.size < 2 or np.any(levels < 0) or np.any(np.diff(levels) <= 0):
        raise ValueError(f"levels must be >= 2 increasing non-negative integers; got {levels.tolist()}")
    fine = int(levels.max()) + (2 if model == "ou" else 0)
    n_fine = 2 ** fine
    factors = 2 ** (fine - levels)
    if model == "ou":
        factors = np.append(factors, 1)
    h, xT, WT = coupled_terminal(model, x0, t_end=t_end, n_fine=n_fine, factors=factors, n_paths=n_paths,
                                 seed=seed, **params)
    if model == "gbm":
        ref = gbm_exact(x0, params["mu"], params["sigma"], t_end, WT)
        g = test_fn or (lambda x: x)
    else:
        ref = xT[:, -1]
        xT, h = xT[:, :-1], h[:-1]
        g = test_fn or (lambda x: x ** 2)
    err = np.abs(xT - ref[:, None])
    diff = g(xT) - g(ref)[:, None]
    n = xT.shape[0]
    df = pd.DataFrame({
        "h": h,
        "strong": err.mean(axis=0),
        "strong_se": err.std(axis=0, ddof=1) / np.sqrt(n),
        "weak": np.abs(diff.mean(axis=0)),
        "weak_se": diff.std(axis=0, ddof=1) / np.sqrt(n),
        "weak_signed": diff.mean(axis=0),
    })
    if model == "ou" and test_fn is None:
        # remove the reference's own bias exactly: E (X^ref_T)^2 of Euler–Maruyama and E X_T^2 of
        # OU are both closed-form, so weak = |E[g(X^h) - g(X^ref)] + (E_EM g(X^ref) - E g(X_T))|
        th, mu, s = params["theta"], params.get("mu", 0.0), params["sigma"]
        m, v = ou_moments(x0, th, mu, s, t_end)
        m_ref, v_ref = em_ou_moments(x0, th, mu, s, t_end, t_end / n_fine)
        bias_ref = (m_ref ** 2 + v_ref) - (m ** 2 + v)
        df["weak_signed"] = df["weak_signed"] + bias_ref
        df["weak"] = np.abs(df["weak_signed"])
        df["reference_bias_exact"] = bias_ref
        diff = diff + bias_ref
    df.attrs["samples_strong"] = err
    # per-path weak differences, signed so that their mean is ``weak``: a bootstrap over paths
    # keeps the correlation between levels (all levels share each path's Brownian increments)
    df.attrs["samples_weak"] = diff * np.sign(df["weak_signed"].values)[None, :]
    return df
