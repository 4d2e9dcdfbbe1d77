"""Measurements built on the simulators: stationary losses, weak errors, decay rates.

Each returns the point estimate with a confidence interval computed over independent paths
(time averages are taken within a path first, so their autocorrelation does not bias the CI).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import as_generator, check_int, check_positive, mean_ci
from theorylab.core.seeding import child_seed

from .optimizers import run_coupled, run_optimizer, run_sde


def stationary_loss(optimizer, quadratic, *, eta, sigma, t_burn, t_avg, x0=0.0, n_paths=500, sde=False,
                    n_record=50, seed=0, **kw):
    """Time-averaged loss over ``[t_burn, t_burn + t_avg]`` (continuous time ``t = k eta``),
    averaged over paths: ``(mean, lo, hi, se)`` with a 95% Student-t CI over paths.

    ``sde=True`` integrates the optimizer's SDE (dt = eta) instead of the optimizer.
    """
    eta = check_positive("eta", eta)
    t_burn = check_positive("t_burn", t_burn)
    t_avg = check_positive("t_avg", t_avg)
    n_record = check_int("n_record", n_record, low=2)
    n_steps = int(np.ceil((t_burn + t_avg) / eta))
    n_burn = int(np.ceil(t_burn / eta))
    rec = max(1, (n_steps - n_burn) // n_record)
    n_steps = n_burn + rec * n_record
    runner = run_sde if sde else run_optimizer
    run = runner(optimizer, quadratic, x0, eta=eta, sigma=sigma, n_steps=n_steps, n_paths=n_paths,
                 record_every=rec, seed=seed, **kw)
    keep = run.step > n_burn
    return mean_ci(run.loss[:, keep].mean(axis=1))


def weak_error_sup(optimizer, quadratic, x0, *, etas, sigma, t_end, t_record, n_paths=4000, n_sub=4,
                   n_boot=200, seed=0, hyper=None, runner=run_coupled):
    """``sup_t |E f(x_{t/eta}) - E f(X_t)|`` over the grid ``t = t_record, 2 t_record, ..., t_end``
    for each ``eta`` in ``etas``, optimizer and SDE coupled (:func:`run_coupled`).

    ``hyper(eta) -> dict`` gives the eta-dependent hyper-parameters (e.g. ``beta2 = 1 - rho2
    eta`` so the SDE is the same for every eta).  The standard error of the sup is a
    bootstrap over paths.  ``runner`` is the coupled optimizer/SDE simulator (:func:`run_coupled`
    for quadratics, :func:`theorylab.sde.mlp.run_mlp_coupled` for the MLP objective).  Returns a
    DataFrame with ``eta``, ``weak``, ``weak_se``, ``t_at``.
    """
    rng = as_generator(seed)
    rows = []
    for j, eta in enumerate(etas):
        n_steps = int(round(t_end / eta))
        every = int(round(t_record / eta))
        if every < 1 or abs(every * eta - t_record) > 1e-9 or n_steps % every:
            raise ValueError(f"t_record / eta and t_end / t_record must be integers; got eta={eta}, "
                             f"t_record={t_record}, t_end={t_end}")
        kw = hyper(eta) if hyper is not None else {}
        opt, sde = runner(optimizer, quadratic, x0, eta=eta, sigma=sigma, n_steps=n_steps, n_sub=n_sub,
                               n_paths=n_paths, record_every=every, seed=child_seed(seed, "eta", j), **kw)
        D = (opt.loss - sde.loss)[:, 1:]
        m = D.mean(axis=0)
        sup = float(np.abs(m).max())
        boot = np.empty(n_boot)
        n = D.shape[0]
        for b in range(n_boot):
            boot[b] = np.abs(D[rng.integers(0, n, n)].mean(axis=0)).max()
        rows.append(dict(eta=eta, weak=sup, weak_se=float(boot.std(ddof=1)),
                         t_at=float(opt.t[1:][np.argmax(np.abs(m))]),
                         loss_at=float(opt.mean()[1:][np.argmax(np.abs(m))])))
    return pd.DataFrame(rows)


def decay_rate(t, m2, floor, *, window):
    """Rate ``r`` of ``m2(t) - floor ~ A exp(-r t)`` by least squares on ``t`` in ``window``."""
    t = np.asarray(t, float)
    mask = (t >= window[0]) & (t <= window[1])
    ex = np.asarray(m2, float)[mask] - floor
    if mask.sum() < 3 or np.any(ex <= 0):
        return float("nan")
    return float(-np.polyfit(t[mask], np.log(ex), 1)[0])
