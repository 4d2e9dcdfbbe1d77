"""Figures of paper adaptive_sde (the claims are in ``__init__.py``); their data come from the runners of
:mod:`theorylab.sde.experiments`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import figure, fit_loglog
from theorylab.core.evidence import z_of
from theorylab.core.plotting import errorbar_ci, loglog_rate, subplots, sym, theory_line
from theorylab.sde import adaptive_stationary_loss, sgd_stationary_loss, signsgd_stationary_loss
from theorylab.sde import experiments as E
from theorylab.sde.experiments import HA as _HA, stationary_sweep as _stationary_sweep

from . import _SCALE, _STAT, PAPER

@figure(PAPER, "trajectories_phases",
        caption="SignSGD vs its SDE (Euler–Maruyama, dt = eta): mean loss with 95% band on a 10-d quadratic, "
                "sigma spanning phase 1 (sigma = 0.1), the transition (1) and phase 3 (10)",
        scales={"ci": dict(eta=4e-3, n_paths=40, t_end=6.0), "full": dict(eta=1e-3, n_paths=1000, t_end=10.0)})
def trajectories_phases(*, eta, n_paths, t_end, seed):
    df = E.phase_trajectories(eta=eta, n_paths=n_paths, t_end=t_end, seed=seed)
    fig, axes = subplots(1, 1, width=5.5, height=4.0)
    ax = axes[0, 0]
    for j, s in enumerate(df.sigma.unique()):
        for kind in ("optimizer", "SDE"):
            d = df[(df.sigma == s) & (df.kind == kind)]
            ax.plot(d.t, d["mean"], "-" if kind == "optimizer" else "--", label=f"{sym('sigma')} = {s:g}, {kind}",
                    color=f"C{j}")
            ax.fill_between(d.t, d["mean"] - z_of(0.95) * d.se, d["mean"] + z_of(0.95) * d.se, color=f"C{j}", alpha=0.2)
    ax.set_yscale("log")
    ax.set_xlabel(r"$t = k\eta$")
    ax.set_ylabel(r"$E\,f$")
    ax.set_title(r"SignSGD vs SDE ($x_0 = 3$, $h = 1..10$)")
    ax.legend(fontsize=7, title="shaded: 95% CI", title_fontsize=7)
    return fig, df


@figure(PAPER, "stationary_vs_sigma",
        caption="Stationary E f vs sigma, log-log (95% error bars): SignSGD slope 1, SGD slope 2; closed forms in grey, "
                "SignSGD's dashed and SGD's dash-dotted",
        scales={"ci": dict(_STAT["ci"], sigmas=(0.5, 2.0), n_paths=40, t_avg=3.0), "full": dict(_STAT["full"])})
def stationary_vs_sigma(*, eta, sigmas, n_paths, t_avg, seed):
    fig, axes = subplots(1, 1, width=5.0, height=4.0)
    ax = axes[0, 0]
    frames = []
    for j, (opt, slope) in enumerate((("signsgd", 1.0), ("sgd", 2.0))):
        df = _stationary_sweep(opt, eta=eta, sigmas=sigmas, n_paths=n_paths, t_avg=t_avg, seed=seed)
        fit = fit_loglog(df.sigma.values, df["mean"].values, y_se=df.se.values, seed=seed)
        loglog_rate(ax, df.sigma, df["mean"], fit=fit, yerr=z_of(0.95) * df.se, label=opt, color=f"C{j}")
        theory_line(ax, df.sigma.to_numpy(dtype=float), df.predicted.to_numpy(dtype=float),
                    label=f"{opt} closed form", slope=slope)
        frames.append(df.assign(optimizer=opt))
    ax.set_xlabel(sym("sigma"))
    ax.set_ylabel(r"stationary $E\,f$")
    ax.legend(fontsize=7)
    return fig, pd.concat(frames, ignore_index=True)


@figure(PAPER, "signsgd_vs_nu",
        caption="Stationary E f under Student-t(nu) noise: SignSGD finite for every nu (closed form eta sum sigma / "
                "(8 c_nu)), SGD's closed form diverges as nu -> 2 (infinite for nu <= 2)",
        scales={"ci": dict(eta=4e-3, n_paths=40, t_avg=2.0, nus=(1.0, 3.0, 10.0)),
                "full": dict(eta=1e-3, n_paths=2000, t_avg=20.0, nus=(1.0, 1.5, 2.0, 2.5, 3.0, 5.0, 10.0, 30.0))})
def signsgd_vs_nu(*, eta, n_paths, t_avg, nus, seed):
    df = E.nu_sweep(eta=eta, n_paths=n_paths, t_avg=t_avg, nus=nus, seed=seed)
    fig, axes = subplots(1, 1, width=5.0, height=4.0)
    ax = axes[0, 0]
    for j, opt in enumerate(("signsgd", "sgd")):
        d = df[df.optimizer == opt]
        errorbar_ci(ax, d.nu.to_numpy(dtype=float), d["mean"].to_numpy(dtype=float), d.lo.to_numpy(dtype=float),
                    d.hi.to_numpy(dtype=float), fmt="o", color=f"C{j}", label=opt)
    grid = np.geomspace(min(nus), max(nus), 100)
    theory_line(ax, grid, np.array([signsgd_stationary_loss(np.ones(10), eta=eta, noise="student_t", nu=v)
                                    for v in grid]), label="SignSGD closed form")
    g2 = grid[grid > 2.05]
    theory_line(ax, g2, np.array([sgd_stationary_loss(np.ones(10), eta=eta, noise="student_t", nu=v) for v in g2]),
                label=f"SGD closed form (inf for {sym('nu')} $\\leq 2$)")
    ax.axvline(2.0, color="k", lw=0.8, alpha=0.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"{sym('nu')} (Student-t degrees of freedom)")
    ax.set_ylabel(f"stationary $E\\,f$ ({sym('sigma')} = 1, $d$ = 10)")
    ax.legend(fontsize=7)
    return fig, df


@figure(PAPER, "saturation_vs_theta",
        caption="RMSpropW / AdamW asymptotic E f vs sigma for weight decay theta in {0, 0.1, 1}: linear for theta = 0, "
                "saturating at eta sum h / (4 theta) for theta > 0 (thin horizontal lines); closed forms in grey, "
                "dashed / dash-dotted / dotted for theta = 0 / 0.1 / 1",
        scales={"ci": dict(eta=4e-3, n_paths=10, sigmas=(1.0, 16.0, 256.0)),
                "full": dict(eta=1e-3, n_paths=1000, sigmas=(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0,
                                                             1024.0))})
def saturation_vs_theta(*, eta, n_paths, sigmas, seed):
    frames = []
    fig, axes = subplots(1, 2, width=4.5, height=3.8)
    for k, opt in enumerate(("rmspropw", "adamw")):
        ax = axes[0, k]
        frames.append(E.saturation_cases(opt, eta=eta, n_paths=n_paths, sigmas=sigmas, thetas=(0.0, 0.1, 1.0), seed=seed))
        for j, (th, df) in enumerate(frames[-1].groupby("theta", sort=False)):
            errorbar_ci(ax, df.sigma.to_numpy(dtype=float), df["mean"].to_numpy(dtype=float),
                        df.lo.to_numpy(dtype=float), df.hi.to_numpy(dtype=float), fmt="o", color=f"C{j}",
                        label=f"{sym('theta')} = {th:g}")
            grid = np.geomspace(min(sigmas), max(sigmas), 100)
            theory_line(ax, grid, np.array([adaptive_stationary_loss(_HA, s, eta=eta, theta=th) for s in grid]),
                        label=f"closed form, {sym('theta')} = {th:g}")
            if th > 0:
                ax.axhline(eta * _HA.sum() / (4 * th), color=f"C{j}", lw=0.6, alpha=0.5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(sym("sigma"))
        ax.set_ylabel(r"asymptotic $E\,f$")
        ax.set_title(f"{opt} (thin lines: saturation $\\eta\\sum h/(4\\theta)$)")
        ax.legend(fontsize=6.5)
    return fig, pd.concat(frames, ignore_index=True)


@figure(PAPER, "scaling_rule_per_sample",
        caption="RMSpropW loss vs samples under the batch scaling rule, kappa in {1, 2, 4, 8}: from x0 = 1 "
                "(gradient-dominated, curves separate) and x0 = 0.1 (noise-dominated, curves collapse)",
        scales={"ci": dict(_SCALE["ci"], n_paths=20), "full": dict(_SCALE["full"])})
def scaling_rule_per_sample(*, seed, **kw):
    fig, axes = subplots(1, 2, width=4.5, height=3.8)
    frames = []
    for k, x0 in enumerate((1.0, 0.1)):
        df, _, _ = E.scaling_runs("rmspropw", seed=seed, x0=x0, **kw)
        ax = axes[0, k]
        for j, kappa in enumerate(kw["kappas"]):
            d = df[df.kappa == kappa]
            ax.plot(d.samples, d["mean"], color=f"C{j}", label=f"{sym('kappa')} = {kappa}")
            ax.fill_between(d.samples, d["mean"] - z_of(0.95) * d.se, d["mean"] + z_of(0.95) * d.se, color=f"C{j}", alpha=0.2)
        samples = np.sort(df.samples.unique()).astype(float)
        f_inf = adaptive_stationary_loss(_HA, kw["sigma"], eta=kw["eta"], theta=kw["theta"])
        theory_line(ax, samples, np.full(samples.size, f_inf), label="asymptotic loss")
        ax.set_yscale("log")
        ax.set_xlabel(r"samples (iterations $\times$ batch)")
        ax.set_ylabel(r"$E\,f$")
        ax.set_title(f"$x_0$ = {x0}")
        ax.legend(fontsize=7, title="shaded: 95% CI", title_fontsize=7)
        frames.append(df.assign(x0=x0))
    return fig, pd.concat(frames, ignore_index=True)
