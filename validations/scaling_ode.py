"""Worschech & Rosenow, ICLR 2025 (arXiv:2410.09005): scaling laws of two-layer networks with
power-law data spectra, checked by one-pass SGD against the order-parameter ODEs.

What was read vs derived: the set-up and Fig. 1 parameters (K = M = 2, eta = 0.1, beta = 1,
sigma_J = 0.01, N = 1024) are from the Fig. 1 caption; the exponent -beta/(1+beta), the
trainable-parameter law, the M^2/L escape time and the existence of plateau-height/width
formulas (Eqs. (12), (15)) come from the abstract and reviews.  The ODEs, the spectrum
normalisation Tr Sigma/N = 1, the linear closed forms and the eta -> 0 plateau height are our
derivations (spec [DERIVED]/[RECALLED]); the paper's own equations could not be read.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import Bound, Estimate, Paper, Slope, claim, figure, fit_loglog, mean_ci, spawn_seeds
from theorylab.core.plotting import subplots
from theorylab.scaling import (eigenvalues, escape_time, group_overlaps, integrate_ode, late_time_rate,
                               linear_eps, linear_power_law, plateau_height, plateau_value, power_law_exponent,
                               power_law_window, simulate_sgd, trainable_final_error)

PAPER = Paper(id="scaling_ode", title="Analyzing Neural Scaling Laws in Two-Layer Networks with Power-Law Data Spectra",
              authors="Worschech & Rosenow", arxiv="2410.09005", seed_file="000_efebce95215ef60b.txt")


def _sgd_and_ode(*, N, L, K, M, eta, activation, alphas, n_seeds, seed, beta=1.0):
    """SGD paths and, for each, the ODE started from that path's own initial overlaps."""
    tab, (J0, B0) = simulate_sgd(N=N, L=L, K=K, M=M, beta=beta, eta=eta, activation=activation, alphas=alphas,
                                 n_seeds=n_seeds, seed=seed, return_init=True)
    sgd = tab.pivot(index="seed_index", columns="alpha", values="eps_g").to_numpy()
    ode = np.array([integrate_ode(L=L, K=K, M=M, beta=beta, eta=eta, activation=activation,
                                  overlaps=group_overlaps(J0[p], B0[p], L), alphas=np.asarray(alphas, float)
                                  ).eps_g.to_numpy() for p in range(n_seeds)])
    return sgd, ode


# --------------------------------------------------------------------------- 1. ODE vs SGD
@claim(PAPER, "ode_matches_sgd", citation="Sec. 3 (ODEs exact as N -> inf), Fig. 1",
       statement="SGD eps_g converges to the ODE solution as N grows, deviation ~ N^-1/2 (fluctuations)",
       scales={"ci": dict(Ns=(64, 128, 256, 512), n_seeds=6, alpha_max=20.0),
               "full": dict(Ns=(128, 256, 512, 1024, 2048), n_seeds=20, alpha_max=100.0)})
def ode_matches_sgd(*, Ns, n_seeds, alpha_max, seed):
    alphas = np.linspace(0, alpha_max, 41)
    rows, samples = [], []
    for N in Ns:
        sgd, ode = _sgd_and_ode(N=N, L=8, K=2, M=2, eta=0.5, activation="erf", alphas=alphas, n_seeds=n_seeds,
                                seed=seed + N)
        rms = np.sqrt(np.mean((sgd - ode) ** 2, axis=1))
        samples.append(rms)
        rows += [dict(N=N, seed_index=p, rms_dev=v) for p, v in enumerate(rms)]
    fit = fit_loglog(np.array(Ns, float), samples=np.array(samples).T, seed=seed)
    return Slope(fit=fit, predicted=-0.5, data=pd.DataFrame(rows),
                 note="per-path RMS over alpha of eps_SGD - eps_ODE, ODE from the path's own initial overlaps; "
                      "erf, K=M=2, L=8, eta=0.5, beta=1")


# --------------------------------------------------------------------------- 2. linear power law
def _power_law_claim(beta, *, N, n_seeds, window, seed):
    eta = 0.1  # eta lam_1 / N must be small: with L = N, lam_1 = O(N) and a larger eta leaves the ODE regime
    alphas = np.geomspace(window[0], window[1], 12)
    tab = simulate_sgd(N=N, L=N, K=1, M=1, beta=beta, eta=eta, activation="linear", alphas=alphas,
                       n_seeds=n_seeds, seed=seed, sigma_J=0.0)
    samples = tab.pivot(index="seed_index", columns="alpha", values="eps_g").to_numpy()
    fit = fit_loglog(alphas, samples=samples, seed=seed)
    theory = fit_loglog(alphas, linear_eps(alphas, L=N, beta=beta, eta=eta))
    pred = power_law_exponent(beta)
    tol = abs(theory.slope - pred)
    lo, hi = power_law_window(L=N, beta=beta, eta=eta)
    data = pd.DataFrame({"alpha": alphas, "eps_sgd": samples.mean(0),
                         "eps_exact": linear_eps(alphas, L=N, beta=beta, eta=eta),
                         "eps_power_law": linear_power_law(alphas, L=N, beta=beta, eta=eta)})
    return Slope(fit=fit, predicted=pred, tol=tol, data=data,
                 note=f"N=L={N}, eta={eta}; exact finite-L ODE slope on the window {theory.slope:.3f} "
                      f"(tol = its distance to -b/(1+b)); theory window [{lo:.3g}, {hi:.3g}]")


for _beta in (0.5, 1.0, 2.0):
    def _make(beta):
        def check(*, N, n_seeds, seed):
            lo, hi = power_law_window(L=N, beta=beta, eta=0.1)
            return _power_law_claim(beta, N=N, n_seeds=n_seeds, window=(max(20 * lo, 1.0), min(hi / 20, 100.0)),
                                    seed=seed)
        check.__name__ = check.__qualname__ = f"power_law_beta_{str(beta).replace('.', 'p')}"
        return check
    claim(PAPER, f"power_law_beta_{_beta:g}", citation="Sec. 4.2, power-law regime (cf. Fig. 2 right)",
          statement=f"linear activation: eps_g ~ alpha^(-beta/(1+beta)) = alpha^{-_beta / (1 + _beta):.3f} "
                    f"for 1/(2 eta lam_1) << alpha << 1/(2 eta lam_L), beta={_beta:g}",
          scales={"ci": dict(N=256, n_seeds=4), "full": dict(N=1024, n_seeds=16)})(_make(_beta))


# --------------------------------------------------------------------------- 2b. L = 1 rate
for _eta in (0.5, 1.5):
    def _make_rate(eta):
        def check(*, N, n_seeds, seed):
            pred = eta * (2 - eta)
            alphas = np.linspace(0, 8.0 / pred, 17)
            tab = simulate_sgd(N=N, L=1, K=1, M=1, eta=eta, activation="linear", alphas=alphas, n_seeds=n_seeds,
                               seed=seed, sigma_J=0.0)
            eps = tab.pivot(index="seed_index", columns="alpha", values="eps_g").to_numpy()
            rates = -np.polyfit(alphas, np.log(eps).T, 1)[0]
            m, lo, hi, _ = mean_ci(rates)
            finite_n = 2 * eta ** 2 / N  # O(1/N) correction of the exact per-step contraction
            return Estimate(value=m, ci=(lo, hi), predicted=pred, atol=finite_n,
                            data=pd.DataFrame({"seed_index": range(n_seeds), "rate": rates}),
                            note=f"N={N}; atol = 2 eta^2/N, the finite-N correction of E|u|^2 per step")
        check.__name__ = check.__qualname__ = f"isotropic_rate_{str(eta).replace('.', 'p')}"
        return check
    claim(PAPER, f"isotropic_rate_eta_{_eta:g}", citation="Sec. 4.1 (L = 1, exponential decay)",
          statement=f"L = 1, linear: eps_g ~ exp(-eta(2 - eta) alpha), eta={_eta:g}",
          scales={"ci": dict(N=512, n_seeds=16), "full": dict(N=2048, n_seeds=64)})(_make_rate(_eta))


# --------------------------------------------------------------------------- 3. crossover / late-time rate
@claim(PAPER, "late_time_rate", citation="Sec. 4.2 (finite L: exponential tail set by lambda_L)",
       statement="at finite L the linear error decays at late times with the slowest-mode rate ~ 2 eta lambda_L",
       scales={"ci": dict(N=256, n_seeds=16), "full": dict(N=1024, n_seeds=64)})
def late_time_rate_check(*, N, n_seeds, seed):
    L, beta, eta = 4, 1.0, 0.5
    pred = late_time_rate(L=L, beta=beta, eta=eta)
    alphas = np.linspace(4.0 / pred, 10.0 / pred, 13)
    tab = simulate_sgd(N=N, L=L, K=1, M=1, beta=beta, eta=eta, activation="linear", alphas=alphas, n_seeds=n_seeds,
                       seed=seed, sigma_J=0.0)
    eps = tab.pivot(index="seed_index", columns="alpha", values="eps_g").to_numpy()
    rates = -np.polyfit(alphas, np.log(eps).T, 1)[0]
    m, lo, hi, _ = mean_ci(rates)
    lamL = eigenvalues(L, beta)[-1]
    return Estimate(value=m, ci=(lo, hi), predicted=pred, data=pd.DataFrame({"rate": rates}),
                    note=f"L={L}, eta={eta}: slowest eigenvalue of the linear ODE {pred:.4f}, "
                         f"leading order 2 eta lambda_L = {2 * eta * lamL:.4f}")


@claim(PAPER, "crossover_to_power_law", citation="Sec. 4.2, abstract (exponential -> power law as L grows)",
       statement="the log-log slope over a fixed alpha window flattens monotonically towards -beta/(1+beta) as L grows",
       scales={"ci": dict(N=256, n_seeds=40), "full": dict(N=1024, n_seeds=64)})
def crossover_to_power_law(*, N, n_seeds, seed):
    beta, eta = 1.0, 0.5
    Ls = [L for L in (1, 4, 16, 64, 256, 1024) if L <= N]
    alphas = np.geomspace(2.0, 20.0, 8)
    slopes = []
    for L in Ls:
        tab = simulate_sgd(N=N, L=L, K=1, M=1, beta=beta, eta=eta, activation="linear", alphas=alphas,
                           n_seeds=n_seeds, seed=seed + L, sigma_J=0.0)
        eps = tab.pivot(index="seed_index", columns="alpha", values="eps_g").to_numpy()
        slopes.append(np.polyfit(np.log(alphas), np.log(eps).T, 1)[0])
    slopes = np.array(slopes)  # (n_L, n_seeds)
    steepening = np.diff(slopes.mean(1))  # must be > 0 (less steep as L grows)
    j = int(np.argmin(steepening))
    worst = float(steepening[j])
    var = slopes.var(1, ddof=1) / n_seeds  # independent seeds per L: se of a difference of two means
    se = float(np.sqrt(var[j] + var[j + 1]))
    return Bound(value=worst, bound=0.0, side=">=", ci=(worst - 1.96 * se, worst + 1.96 * se),
                 data=pd.DataFrame({"L": Ls, "slope_mean": slopes.mean(1)}),
                 note=f"mean windowed slopes {np.round(slopes.mean(1), 3).tolist()} for L={Ls}, "
                      f"asymptote {power_law_exponent(beta):.3f}")


# --------------------------------------------------------------------------- 4. trainable parameters
@claim(PAPER, "trainable_parameter_law", citation="Sec. 4.3",
       statement="training only N_l eigen-coordinates (L = N): eps_g(inf) ~ N_l^-beta",
       scales={"ci": dict(N=256, n_ls=(4, 8, 16, 32), n_seeds=8), "full": dict(N=1024, n_ls=(8, 16, 32, 64, 128), n_seeds=16)})
def trainable_parameter_law(*, N, n_ls, n_seeds, seed):
    beta, eta = 1.0, 0.5
    lam = eigenvalues(N, beta)
    finals = []
    for n in n_ls:
        t_relax = 1.0 / (2 * eta * lam[n - 1])
        alphas = np.linspace(12 * t_relax, 16 * t_relax, 9)
        tab = simulate_sgd(N=N, L=N, K=1, M=1, beta=beta, eta=eta, activation="linear", alphas=alphas,
                           n_seeds=n_seeds, seed=seed, n_trained=n, sigma_J=0.0)
        finals.append(tab.groupby("seed_index").eps_g.mean().to_numpy())
    samples = np.array(finals).T
    x = np.array(n_ls, float)
    fit = fit_loglog(x, samples=samples, seed=seed)
    exact = fit_loglog(x, trainable_final_error(n_ls, N=N, beta=beta, eta=eta))
    return Slope(fit=fit, predicted=-beta, tol=abs(exact.slope + beta),
                 data=pd.DataFrame({"N_l": n_ls, "eps_inf": samples.mean(0),
                                    "exact": trainable_final_error(n_ls, N=N, beta=beta, eta=eta)}),
                 note=f"N=L={N}, eta={eta}; same teacher per seed across N_l; exact finite-N slope {exact.slope:.3f} "
                      f"(tol = its distance to -beta)")


# --------------------------------------------------------------------------- 5. erf plateau
@claim(PAPER, "plateau_height", citation="Sec. 5, Eq. (12) (plateau height; our eta -> 0 fixed point)",
       statement="the symmetric-plateau eps_g (eta -> 0) equals the fixed-point value, 0.005805 for K = M = 2, any L",
       scales={"ci": dict(Ls=(1, 4), n_seeds=2, N=2 ** 16), "full": dict(Ls=(1, 2, 4, 8), n_seeds=6, N=2 ** 18)})
def plateau_height_check(*, Ls, n_seeds, N, seed):
    pred = plateau_height(K=2, M=2)
    etas = np.array([0.02, 0.05])
    rows, vals = [], []
    for L in Ls:
        for p in range(n_seeds):
            h = []
            for eta in etas:
                al = np.geomspace(50 / eta, 400 / eta, 60)
                o = integrate_ode(L=L, K=2, M=2, eta=eta, alphas=al, N=N, seed=seed + 97 * p)
                h.append(plateau_value(al, o.eps_g.to_numpy(), window=(al[0], al[-1]))[0])
            h0 = h[0] - etas[0] * (h[1] - h[0]) / (etas[1] - etas[0])  # linear extrapolation eta -> 0
            vals.append(h0)
            rows.append(dict(L=L, seed_index=p, h_eta002=h[0], h_eta005=h[1], h_eta0=h0))
    m, lo, hi, _ = mean_ci(np.array(vals))
    return Estimate(value=m, ci=(lo, hi), predicted=pred, data=pd.DataFrame(rows),
                    note=f"ODE from random inits at N={N} (teacher overlaps T = I + O(N^-1/2)), plateau value at the "
                         f"flattest point, extrapolated linearly to eta -> 0 from eta = 0.02, 0.05")


def _escape_times(*, L, M, n_seeds, seed, N=1024, eta=0.1):
    h = plateau_height(K=M, M=M)
    al = np.geomspace(1.0, 1e4, 240)
    return np.array([escape_time(al, integrate_ode(L=L, K=M, M=M, eta=eta, alphas=al, N=N, seed=seed + s).eps_g.to_numpy(),
                                 height=h) for s in range(n_seeds)])


@claim(PAPER, "escape_time_vs_L", citation="Sec. 5, Eq. (15); reviews: tau_esc ~ M^2/L",
       statement="the plateau shortens with L: escape time ~ L^-1 (K = M = 2, ODE, large L)",
       scales={"ci": dict(Ls=(4, 8, 16), n_seeds=2), "full": dict(Ls=(4, 8, 16, 32, 64), n_seeds=8)},
       expect_reproduced=False,
       why_not="measured exponent is about -0.7 for M = 2 at L = 4..16 (flattening to about -0.4 at L = 32..64): "
               "the plateau shortens with L but slower than 1/L at M = 2; the paper states M^2/L for large L AND M")
def escape_time_vs_L(*, Ls, n_seeds, seed):
    samples = np.array([_escape_times(L=L, M=2, n_seeds=n_seeds, seed=seed) for L in Ls]).T
    fit = fit_loglog(np.array(Ls, float), samples=samples, seed=seed)
    return Slope(fit=fit, predicted=-1.0, data=pd.DataFrame(samples, columns=[f"L={L}" for L in Ls]),
                 note=f"escape = first alpha with eps_g < plateau/2, eta=0.1, N=1024; mean times "
                      f"{np.round(samples.mean(0), 1).tolist()}")


@claim(PAPER, "escape_time_vs_M", citation="Sec. 5, Eq. (15); reviews: tau_esc ~ M^2/L",
       statement="escape time grows like M^2 at fixed L (K = M)",
       scales={"ci": dict(Ms=(2, 3, 4), L=8, n_seeds=2), "full": dict(Ms=(2, 3, 4, 6), L=32, n_seeds=8)})
def escape_time_vs_M(*, Ms, L, n_seeds, seed):
    samples = np.array([_escape_times(L=L, M=M, n_seeds=n_seeds, seed=seed) for M in Ms]).T
    fit = fit_loglog(np.array(Ms, float), samples=samples, seed=seed)
    return Slope(fit=fit, predicted=2.0, data=pd.DataFrame(samples, columns=[f"M={M}" for M in Ms]),
                 note=f"L={L}; mean escape times {np.round(samples.mean(0), 1).tolist()}")


# --------------------------------------------------------------------------- figures
@figure(PAPER, "fig1_erf_vs_L", caption="Fig. 1: eps_g vs alpha, erf, K=M=2, eta=0.1, beta=1, sigma_J=0.01; ODE (lines) "
        "and one SGD run (dots) per L",
        scales={"ci": dict(N=128, Ls=(1, 16), alpha_max=200.0, sgd_Ls=(16,)),
                "full": dict(N=1024, Ls=(1, 4, 16, 64, 256), alpha_max=1e4, sgd_Ls=(1, 16, 256))})
def fig1_erf_vs_L(*, N, Ls, alpha_max, sgd_Ls, seed):
    fig, ax = subplots(1, 1, width=5.5, height=4.0)
    ax = ax[0, 0]
    al = np.geomspace(1.0, alpha_max, 80)
    rows = []
    for L in Ls:
        if L in sgd_Ls:
            sgd, ode = _sgd_and_ode(N=N, L=L, K=2, M=2, eta=0.1, activation="erf", alphas=al, n_seeds=1, seed=seed)
            sgd, ode = sgd[0], ode[0]
        else:
            ode, sgd = integrate_ode(L=L, N=N, alphas=al, seed=seed).eps_g.to_numpy(), np.full(al.size, np.nan)
        line, = ax.loglog(al, ode, label=f"L={L}")
        ax.loglog(al, sgd, ".", color=line.get_color(), ms=3)
        rows += [dict(L=L, source="ode", alpha=a, eps_g=o) for a, o in zip(al, ode)]
        rows += [dict(L=L, source="sgd", alpha=a, eps_g=s) for a, s in zip(al, sgd) if np.isfinite(s)]
    ax.axhline(plateau_height(K=2, M=2), color="k", ls=":", lw=1, label="plateau (eta->0)")
    ax.set_xlabel("alpha")
    ax.set_ylabel("eps_g")
    ax.legend(fontsize=8)
    return fig, pd.DataFrame(rows)


@figure(PAPER, "linear_power_law", caption="Linear activation, L = N: SGD vs exact ODE, the -beta/(1+beta) law and "
        "its window [1/(2 eta lam_1), 1/(2 eta lam_L)]",
        scales={"ci": dict(N=128, n_seeds=2), "full": dict(N=1024, n_seeds=8)})
def linear_power_law_fig(*, N, n_seeds, seed):
    fig, axes = subplots(1, 3, width=4.0, height=3.3)
    eta, rows = 0.5, []
    for ax, beta in zip(axes[0], (0.5, 1.0, 2.0)):
        lo, hi = power_law_window(L=N, beta=beta, eta=eta)
        al = np.geomspace(0.1, min(4 * hi, 1e3), 40)
        tab = simulate_sgd(N=N, L=N, K=1, M=1, beta=beta, eta=eta, activation="linear", alphas=al,
                           n_seeds=n_seeds, seed=seed, sigma_J=0.0)
        sgd = tab.groupby("alpha").eps_g.mean().to_numpy()
        ex, pl = linear_eps(al, L=N, beta=beta, eta=eta), linear_power_law(al, L=N, beta=beta, eta=eta)
        ax.loglog(al, sgd, "o", ms=3, label="SGD")
        ax.loglog(al, ex, "-", label="exact ODE")
        ax.loglog(al, pl, "k:", label=f"slope {power_law_exponent(beta):.2f}")
        ax.axvspan(lo, hi, color="0.9", zorder=0)
        ax.set_title(f"beta={beta:g}")
        ax.set_xlabel("alpha")
        rows += [dict(beta=beta, alpha=a, eps_sgd=s, eps_exact=e, eps_power_law=p) for a, s, e, p in zip(al, sgd, ex, pl)]
    axes[0, 0].set_ylabel("eps_g")
    axes[0, 0].legend(fontsize=7)
    return fig, pd.DataFrame(rows)
