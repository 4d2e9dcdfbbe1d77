"""Experiment runners behind the adaptive_sde claims and figures (validations/adaptive_sde/).

Each function takes ``seed`` and returns the measured table or samples (a figure's data builder
returns the table the figure plots); nothing here decides a verdict or sets a tolerance.  Sweep points (:func:`stationary_point`, :func:`adaptive_point`) are module-level so that
:func:`theorylab.core.sweep.sweep` can cache them and send them to another process or a cluster.
The quadratics are the issue's: ``H10`` = diag(1..10) (d = 10) and ``HA`` = diag(1, 2) for RMSpropW/AdamW.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from theorylab.core.rates import bootstrap_rows, fit_loglog, mean_ci, paired_ratio
from theorylab.core.seeding import as_generator, child_seed
from theorylab.core.sweep import grid, sweep

from .measure import decay_rate, stationary_loss, weak_error_sup
from .mlp import MLPRegression, run_mlp_coupled
from .optimizers import Quadratic, run_optimizer, run_sde, sign_mean
from .theory import (adaptive_stationary_loss, phase_of, scale_hyperparameters, sgd_stationary_loss,
                     signsgd_phase1_loss, signsgd_phase3_rate, signsgd_stationary_loss, t_density_at_zero)

#: the diagonal quadratic of the stationary-loss checks, d = 10
H10 = np.linspace(1.0, 10.0, 10)
#: the diagonal quadratic of the RMSpropW / AdamW checks
HA = np.array([1.0, 2.0])


# --------------------------------------------------------------------------- weak approximation
def weak_hyper(optimizer, *, rho1, rho2, theta):
    """``eta -> hyper-parameters`` with beta_i = 1 - rho_i eta (so the SDE does not depend on eta) for
    RMSpropW/AdamW; None for SGD and SignSGD (no hyper-parameters)."""
    if optimizer in ("rmspropw", "adamw"):
        return lambda eta: dict(beta1=1 - rho1 * eta, beta2=1 - rho2 * eta, eps=1e-8, theta=theta)
    return None


def weak_errors_quadratic(optimizer, *, h, rot_seed, x0, sigma, etas, n_paths, rho1, rho2, theta, seed):
    """sup_t weak error of the optimizer against its SDE per eta (:func:`weak_error_sup`) on the rotated
    quadratic with eigenvalues ``h``, t in (0, 2] every 1/8, SDE steps eta / 4, 100 bootstrap replicates."""
    q = Quadratic.rotated(h, seed=rot_seed)
    return weak_error_sup(optimizer, q, np.array(x0), etas=etas, sigma=sigma, t_end=2.0, t_record=0.125,
                          n_paths=n_paths, n_sub=4, seed=seed, hyper=weak_hyper(optimizer, rho1=rho1, rho2=rho2,
                                                                                theta=theta), n_boot=100)


def weak_errors_mlp(optimizer, *, n, p, m, label_noise, data_seed, init_seed, init_scale, sigma, etas, n_paths,
                    seed):
    """The same on a tanh-MLP regression with teacher data, t in (0, 1] every 1/16: ``(table, mlp, |Y| at w0)``."""
    mlp = MLPRegression.teacher(n=n, p=p, m=m, label_noise=label_noise, seed=data_seed)
    w0 = mlp.init(scale=init_scale, seed=init_seed)
    y0 = np.abs(mlp.grad(w0[None, :])[0]) / sigma
    df = weak_error_sup(optimizer, mlp, w0, etas=etas, sigma=sigma, t_end=1.0, t_record=0.0625, n_paths=n_paths,
                        n_sub=4, seed=seed, n_boot=100, runner=run_mlp_coupled)
    return df, mlp, y0


# --------------------------------------------------------------------------- stationary loss
def stationary_point(*, optimizer, sigma, eta, n_paths, t_avg, noise, nu, seed):
    """One sweep point: the stationary loss on ``H10`` at ``sigma`` against its closed form."""
    q = Quadratic.diagonal(H10)
    if optimizer == "signsgd":
        c0 = 1 / np.sqrt(2 * np.pi) if noise == "gaussian" else t_density_at_zero(nu)
        a_min = 2 * c0 * H10.min() / sigma
        pred = signsgd_stationary_loss(np.full(10, sigma), eta=eta, noise=noise, nu=nu)
    else:
        a_min = H10.min()
        pred = sgd_stationary_loss(np.full(10, sigma), eta=eta, noise=noise, nu=nu)
    t_burn = 3.0 / a_min
    m, lo, hi, se = stationary_loss(optimizer, q, eta=eta, sigma=sigma, t_burn=t_burn, t_avg=t_avg, n_paths=n_paths,
                                    noise=noise, nu=nu, seed=seed)
    return dict(sigma=sigma, mean=m, lo=lo, hi=hi, se=se, predicted=pred, ratio=m / pred)


def stationary_sweep(optimizer, *, eta, sigmas, n_paths, t_avg, seed, noise="gaussian", nu=None):
    """Stationary loss per sigma; each sigma an independent sweep point with its own child seed."""
    df = sweep(stationary_point, grid(optimizer=[optimizer], sigma=list(sigmas), eta=[eta], n_paths=[n_paths],
                                      t_avg=[t_avg], noise=[noise], nu=[nu]), seed=seed, desc="stationary loss")
    return df.drop(columns=["nu"]) if nu is None else df       # no all-NaN column for Gaussian noise


def nu_sweep(*, eta, n_paths, t_avg, nus, seed):
    """Figure data: the stationary loss at sigma = 1 under Student-t(nu) noise per nu (child stream ``("nu", j)``),
    SignSGD for every nu, SGD for nu > 2.5 (finite variance): columns nu, optimizer, mean, lo, hi, predicted."""
    rows = []
    for j, nu in enumerate(nus):
        d1 = stationary_sweep("signsgd", eta=eta, sigmas=(1.0,), n_paths=n_paths, t_avg=t_avg,
                              seed=child_seed(seed, "nu", j), noise="student_t", nu=nu).iloc[0]
        rows.append(dict(nu=nu, optimizer="signsgd", mean=d1["mean"], lo=d1.lo, hi=d1.hi, predicted=d1.predicted))
        if nu > 2.5:
            d2 = stationary_sweep("sgd", eta=eta, sigmas=(1.0,), n_paths=n_paths, t_avg=t_avg,
                                  seed=child_seed(seed, "nu", j), noise="student_t", nu=nu).iloc[0]
            rows.append(dict(nu=nu, optimizer="sgd", mean=d2["mean"], lo=d2.lo, hi=d2.hi, predicted=d2.predicted))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- heavy tails
def median_of_means(f, groups):
    """Median over groups of the sample mean of ``f`` over ``n`` consecutive paths, for each ``n``."""
    out = []
    for n in groups:
        k = f.size // n
        out.append(float(np.median(f[: k * n].reshape(k, n).mean(axis=1))))
    return np.array(out)


def cauchy_tail_curve(optimizer, *, n_paths, groups, eta, n_steps, seed, n_boot=400):
    """The terminal loss f of ``n_paths`` runs on f(x) = x^2/2 under Cauchy noise, its median-of-means curve
    over ``groups`` and bootstrap slopes of that curve (paths resampled, the whole curve recomputed, so the
    points, which share their paths, keep their correlation): ``(table, slopes)``; a replicate with a
    non-positive point gives a NaN slope."""
    q = Quadratic.diagonal([1.0])
    run = run_optimizer(optimizer, q, 0.0, eta=eta, sigma=1.0, n_steps=n_steps, n_paths=n_paths, noise="student_t",
                        nu=1.0, record_every=n_steps, seed=seed)
    f = run.loss[:, -1]
    log_n = np.log(np.asarray(groups, dtype=float))

    def slope(rows):
        mb = median_of_means(f[rows], groups)
        return np.polyfit(log_n, np.log(mb), 1)[0] if np.all(mb > 0) else np.nan

    # The replicates of core.rates.bootstrap_rows, drawn here: its budget check counts n_boot x n elements,
    # although it holds one replicate (n indices) at a time, and refuses the full scale (400 x 262144 =
    # 1.05e8 > 1e8).  Same draws: rng.integers(0, n, n) per replicate from as_generator(seed).
    # (Left for issue 29: count one replicate in that check, then call bootstrap_rows here again.)
    rng = as_generator(seed)
    slopes = np.array([slope(rng.integers(0, f.size, f.size)) for _ in range(n_boot)], dtype=float)
    df = pd.DataFrame(dict(n=groups, groups=[f.size // g for g in groups], median_mean=median_of_means(f, groups)))
    return df, slopes


def cauchy_tail_fit(optimizer, *, n_paths, groups, eta, n_steps, seed):
    """The log-log slope of :func:`cauchy_tail_curve` in n, with the 95% percentile interval of its bootstrap over
    paths (the whole curve recomputed per replicate, so the points, which share their paths, keep their
    correlation; replicates with a non-positive point dropped): ``(RateFit, table)``."""
    df, slopes = cauchy_tail_curve(optimizer, n_paths=n_paths, groups=groups, eta=eta, n_steps=n_steps, seed=seed)
    fit = fit_loglog(np.asarray(groups, dtype=float), df.median_mean.to_numpy())
    slopes = slopes[np.isfinite(slopes)]
    lo, hi = np.quantile(slopes, [0.025, 0.975])
    return dataclasses.replace(fit, ci=(float(lo), float(hi)), stderr=float(np.std(slopes, ddof=1)),
                               method="bootstrap over paths"), df


# --------------------------------------------------------------------------- SignSGD phases 1 and 3, drift
def phase1_law_table(*, n_paths, eta, seed):
    """SignSGD from x0 = 5 on f(x) = x^2/2, sigma = 0.1 (phase 1 throughout): mean loss with its CI at t = 1..4
    against the phase-1 law ``signsgd_phase1_loss(12.5, 1, t)``."""
    q = Quadratic.diagonal([1.0])
    ts = np.array([1.0, 2.0, 3.0, 4.0])
    every = int(round(1.0 / eta))
    run = run_optimizer("signsgd", q, 5.0, eta=eta, sigma=0.1, n_steps=4 * every, n_paths=n_paths,
                        record_every=every, seed=seed)
    law = signsgd_phase1_loss(12.5, 1.0, ts)
    rows = []
    for j, t in enumerate(ts):
        m, lo, hi, se = mean_ci(run.loss[:, j + 1])
        rows.append(dict(t=t, mean=m, lo=lo, hi=hi, law=law[j], ratio=m / law[j], Y=np.sqrt(2 * m) / 0.1))
    return pd.DataFrame(rows)


def phase1_bound_curve(*, n_paths, eta, seed):
    """SignSGD from x0 = 3 on ``H10``, sigma = 0.1, over t <= 0.8 T* (41 times): mean loss, its standard error and
    the phase-1 bound ``signsgd_phase1_loss(f0, mu, t)``."""
    q = Quadratic.diagonal(H10)
    x0 = np.full(10, 3.0)
    f0 = float(q.loss(x0))
    T = 0.8 * np.sqrt(2 * f0 / q.mu)
    n = int(round(T / eta))
    every = max(1, n // 40)
    run = run_optimizer("signsgd", q, x0, eta=eta, sigma=0.1, n_steps=every * 40, n_paths=n_paths,
                        record_every=every, seed=seed)
    return pd.DataFrame({"t": run.t, "mean": run.mean(), "se": run.se(), "bound": signsgd_phase1_loss(f0, q.mu, run.t)})


def sign_drift_table(*, n_draws, seed):
    """Mean and variance of sign(Y + xi) over ``n_draws`` fresh draws per (noise, Y) cell, Gaussian, Student-t(3) and
    Cauchy xi, against ``sign_mean``; ``z_mean`` = (mean - S(Y)) / its standard error (independent across cells)."""
    rng = as_generator(seed)
    ys = np.array([0.1, 0.5, 1.0, 1.25, 1.5, 2.5])
    rows = []
    for noise, nu in (("gaussian", None), ("student_t", 3.0), ("student_t", 1.0)):
        for y in ys:
            xi = rng.standard_normal(n_draws) if noise == "gaussian" else rng.standard_t(nu, n_draws)
            s = np.sign(y + xi)
            m, v = s.mean(), s.var()
            pred = float(sign_mean(y, noise=noise, nu=nu))
            rows.append(dict(noise=f"{noise}{'' if nu is None else nu}", Y=y, phase=int(phase_of(y)),
                             mean=m, predicted=pred, z_mean=(m - pred) / np.sqrt((1 - pred ** 2) / n_draws),
                             var=v, var_predicted=1 - pred ** 2))
    return pd.DataFrame(rows)


def phase_trajectories(*, eta, n_paths, t_end, seed, sigmas=(0.1, 1.0, 10.0)):
    """Figure data: SignSGD and its SDE from x0 = 3 on ``H10`` per sigma (child stream ``("sigma", j)``), mean loss
    and standard error at about 200 times: columns sigma, kind, t, mean, se."""
    q = Quadratic.diagonal(H10)
    n = int(round(t_end / eta))
    every = max(1, n // 200)
    rows = []
    for j, s in enumerate(sigmas):
        for kind, runner in (("optimizer", run_optimizer), ("SDE", run_sde)):
            run = runner("signsgd", q, 3.0, eta=eta, sigma=s, n_steps=every * (n // every), n_paths=n_paths,
                         record_every=every, seed=child_seed(seed, "sigma", j))
            rows += [dict(sigma=s, kind=kind, t=t, mean=a, se=b) for t, a, b in zip(run.t, run.mean(), run.se())]
    return pd.DataFrame(rows)


def phase3_rates(*, n_paths, eta, sigmas, seed, y0=0.5, n_boot=200):
    """Per sigma, SignSGD's relaxation rate of E x^2 / 2 on f(x) = x^2/2 from x0 = y0 sigma (phase 3), its
    bootstrap standard error over paths, and the predicted rate ``signsgd_phase3_rate(1, sigma)``."""
    rng = as_generator(seed)
    rows = []
    for j, s in enumerate(sigmas):
        a = signsgd_phase3_rate(1.0, s)
        T = 1.0 / a                      # x^2 falls by e^-2: stays in phase 3 and far above the floor
        every = max(1, int(round(T / eta / 20)))
        run = run_optimizer("signsgd", Quadratic.diagonal([1.0]), y0 * s, eta=eta, sigma=s, n_steps=20 * every,
                            n_paths=n_paths, record_every=every, seed=child_seed(seed, "sigma", j))
        m2 = 2 * run.loss
        floor = eta * s * np.sqrt(np.pi / 2) / 2
        r = decay_rate(run.t, m2.mean(axis=0), floor, window=(0, T)) / 2
        boot = bootstrap_rows(lambda rows: decay_rate(run.t, m2[rows].mean(axis=0), floor, window=(0, T)) / 2,
                              n_paths, n_boot=n_boot, seed=rng)
        rows.append(dict(sigma=s, rate=r, se=float(np.std(boot, ddof=1)), predicted=a, ratio=r / a))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- RMSpropW / AdamW
def adaptive_point(*, optimizer, theta, sigma, eta, n_paths, rho1, rho2, batch, seed):
    """One (theta, sigma) sweep point of the RMSpropW/AdamW asymptotic loss on ``HA``."""
    q = Quadratic.diagonal(HA)
    a = HA / (sigma / np.sqrt(batch)) + theta
    t_burn = max(3.0 / a.min(), 5.0 / rho2)
    m, lo, hi, se = stationary_loss(optimizer, q, eta=eta, sigma=sigma, t_burn=t_burn, t_avg=max(t_burn, 5.0),
                                    n_paths=n_paths, beta1=1 - rho1 * eta, beta2=1 - rho2 * eta, theta=theta,
                                    batch=batch, v0=(sigma / np.sqrt(batch)) ** 2, seed=seed)
    pred = adaptive_stationary_loss(HA, sigma, eta=eta, theta=theta, batch=batch)
    return dict(theta=theta, sigma=sigma, mean=m, lo=lo, hi=hi, se=se, predicted=pred, ratio=m / pred,
                a_max=float(a.max()))


def adaptive_cases(optimizer, *, eta, sigmas, thetas, n_paths, rho1, rho2, seed, batch=1.0):
    """:func:`adaptive_point` over the (theta, sigma) grid, one sweep."""
    return sweep(adaptive_point, grid(optimizer=[optimizer], theta=list(thetas), sigma=list(sigmas), eta=[eta],
                                      n_paths=[n_paths], rho1=[rho1], rho2=[rho2], batch=[batch]),
                 seed=seed, desc="asymptotic loss")


def saturation_cases(optimizer, *, eta, n_paths, sigmas, thetas, seed):
    """Figure data: :func:`adaptive_cases` per theta (child stream ``("theta", j)``, rho1 = 100, rho2 = 1), over the
    sigmas whose relaxation time 1 / (h_min / sigma + theta) is at most 20, with an ``optimizer`` column."""
    frames = []
    for j, th in enumerate(thetas):
        ok = [s for s in sigmas if (HA.min() / s + th) >= 1 / 20]
        df = adaptive_cases(optimizer, eta=eta, sigmas=tuple(ok), thetas=(th,), n_paths=n_paths, rho1=100.0, rho2=1.0,
                            seed=child_seed(seed, "theta", j))
        frames.append(df.assign(optimizer=optimizer))
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- the batch scaling rule
def scaling_runs(optimizer, *, kappas, eta, beta1, beta2, theta, sigma, n_paths, n_samples, seed, n_points=40,
                 x0=1.0):
    """Loss vs samples (iterations x batch) under the scaling rule, for each kappa (base B = 1).

    Returns the curve table, per kappa the per-path time average over the second half, and
    per kappa the per-path losses on the common sample grid.  Path i of every kappa runs on the
    same per-path seed (the kappas are paired).
    """
    q = Quadratic.diagonal(HA)
    x0 = np.full(2, float(x0))
    rows, tails, losses = [], {}, {}
    for kappa in kappas:
        hp = scale_hyperparameters(kappa, eta=eta, theta=theta, beta1=beta1, beta2=beta2, eps=1e-8, batch=1.0)
        every = n_samples // kappa // n_points
        run = run_optimizer(optimizer, q, x0, sigma=sigma, n_steps=every * n_points, n_paths=n_paths,
                            record_every=every, v0=float(np.mean(q.grad(x0) ** 2)) + sigma ** 2 / hp["batch"],
                            seed=seed, **hp)
        m, se = run.mean(), run.se()
        for k in range(run.loss.shape[1]):
            rows.append(dict(kappa=kappa, samples=int(run.step[k] * kappa), mean=m[k], se=se[k], eta=hp["eta"]))
        tails[kappa] = run.loss[:, n_points // 2 + 1:].mean(axis=1)
        losses[kappa] = run.loss
    return pd.DataFrame(rows), tails, losses


def scaling_stationary_ratio(optimizer, *, seed, **kw):
    """E f(kappa_max) / E f(kappa = 1), per-path time averages over the second half of :func:`scaling_runs`, with its
    delta-method standard error including the covariance of the paired paths: ``(table, ratio, se, m_1, m_max)``."""
    df, tails, _ = scaling_runs(optimizer, seed=seed, **kw)
    k = max(kw["kappas"])
    ratio, se = paired_ratio(tails[k], tails[1])
    return df, ratio, se, float(tails[1].mean()), float(tails[k].mean())


def per_sample_speed(optimizer, x0, *, seed, **kw):
    """Relaxation rate per sample of E f - f_inf, kappa_max over kappa = 1 (:func:`per_sample_rate_ratio` on
    :func:`scaling_runs` from ``x0``), with the 95% percentile interval of its paired bootstrap over paths:
    ``(table, ratio, (lo, hi), end of the window)``."""
    df, _, losses = scaling_runs(optimizer, seed=seed, x0=x0, **kw)
    k = max(kw["kappas"])
    f_inf = adaptive_stationary_loss(HA, kw["sigma"], eta=kw["eta"], theta=kw["theta"])
    n = df[df.kappa == 1].samples.values.astype(float)
    est, boot, stop = per_sample_rate_ratio(n, losses[1], losses[k], f_inf, seed=seed)
    boot = boot[np.isfinite(boot)]
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return df, float(est), (float(lo), float(hi)), stop


def per_sample_rate_ratio(samples, loss_1, loss_k, f_inf, *, seed, n_boot=300):
    """Relaxation rate per sample of E f - f_inf at kappa over kappa = 1, from per-path losses (n_paths, T) on
    the common sample grid: ``(ratio, bootstrap replicates, end of the window)``.  The window ends where the
    kappa = 1 mean first falls below 3 f_inf (it depends on the data, so every replicate recomputes it); the
    bootstrap resamples paths of both kappas together (paired: path i of every kappa shares its seed)."""
    def window(m1):
        stop = samples[np.argmax(m1 < 3 * f_inf)] if np.any(m1 < 3 * f_inf) else samples[-1]
        return (0.0, float(stop))

    def ratio(rows):
        m1 = loss_1[rows].mean(axis=0)
        win = window(m1)
        return (decay_rate(samples, loss_k[rows].mean(axis=0), f_inf, window=win)
                / decay_rate(samples, m1, f_inf, window=win))

    stop = window(loss_1.mean(axis=0))[1]
    est = ratio(slice(None))
    return est, bootstrap_rows(ratio, loss_1.shape[0], n_boot=n_boot, seed=seed), stop
