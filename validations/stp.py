"""stp — El Bakkali El Kadi, Saadi (ICLR 2025), "On the Almost Sure Convergence of the Stochastic Three Points
Algorithm", arXiv:2501.13886.

The stored sources are the abstract (arXiv v2 and the ICLR/OpenReview version), the OpenReview reviews and a
third-party summary; the theorems' step-size sequences and Assumptions 4-7 were not read.  Tags in the
citations: [paper] the paper's own text (abstract), [third-party] the reviews' restatement, [derived] our own
derivation (given in the docstrings of theorylab.zeroth.stp).

What is checked, with STP = best of {theta, theta + alpha s, theta - alpha s}, s uniform on the unit sphere:

* strongly convex, exact directional-derivative step alpha = |g.s|/L: E[f_T - f*] contracts per step at most
  by 1 - mu/(dL) (the reviewed abstract's constant; a second-moment derivation proves it);
* with the forward-difference step (h = 1e-6) of the strongly convex theorem: at most 1 - mu/(2 pi d L), the
  ICLR abstract's looser constant;
* the d-dependence of the contraction gap 1 - rho is d^{-1} (log-log slope -1; model tolerance: the finite-d
  deviation of the exact mean-gap recursion from 1/d);
* convex: T E[f_T - f*]/d stays below Phi_0 = f_0 - f* + (L/2)|theta_0 - theta*|^2, the constant of a derived
  O(d/T) bound (the spec's "last-decade slope <= 0.05" is not used: errata);
* almost sure: per path, the forward-difference run contracts faster than 1 - mu/(2 pi d L) (the a.s. rate
  o((1 - s mu/(2 pi d L))^T)), and on a convex, not strongly convex quartic T^{1-eps}(f_T - f*) is
  non-increasing over the last decade (eps = 0.1), both on >= 90% of paths (trends on finite horizons).

Instance of the strongly convex checks (spec): f = 1/2 sum lam_i theta_i^2, lam log-spaced in [1, 10] (mu = 1,
L = 10), theta_0 = (1, ..., 1), d in {8, 16, 32, 64}, T = 40 d iterations.  rho_hat = (mean over paths of
(f_T - f*)/(f_0 - f*))^{1/T}: the per-step contraction of the expectation, which the theorem bounds (the
spec's geometric mean over paths is smaller by Jensen, hence a weaker test).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import Bound, Proportion, Paper, Slope, bootstrap_ci, claim, figure, fit_loglog, mean_ci
from theorylab.core.plotting import errorbar_ci, subplots, theory_line
from theorylab.core.sweep import grid, sweep
from theorylab.core.rates import curve_slope
from theorylab.zeroth import stp as S
from theorylab.zeroth.oracles import quadratic_spectrum
from theorylab.core.experiment import experiment

PAPER = Paper(
    id="stp",
    title="On the Almost Sure Convergence of the Stochastic Three Points Algorithm",
    authors="Taha El Bakkali El Kadi, Omar Saadi",
    arxiv="2501.13886",
)

MU, L_SMOOTH = 1.0, 10.0          # spectrum of the strongly convex instance
ITERS_PER_DIM = 40                # T = 40 d (spec)
H_FD = 1e-6                       # forward-difference increment (spec)
EPS_AS = 0.1                      # epsilon of the almost-sure rate o(T^{-(1 - eps)})


def spectrum(d: int) -> np.ndarray:
    """lam log-spaced in [mu, L] = [1, 10] (spec, check 1)."""
    return quadratic_spectrum(d, kappa=L_SMOOTH / MU, L=L_SMOOTH, spacing="geometric")


# --------------------------------------------------------------------------- experiments (memoised)

def contraction_point(*, d: int, step: str, n_paths: int, seed: int) -> pd.DataFrame:
    """Per path, r = (f_T - f*)/(f_0 - f*) after T = 40 d STP steps on the strongly convex instance."""
    T = ITERS_PER_DIM * d
    run = S.run_stp(spectrum(d), np.ones(d), n_steps=T, n_paths=n_paths, step=step, h=H_FD, L=L_SMOOTH,
                    record_at=[0, T], seed=seed)
    return pd.DataFrame({"d": d, "step": step, "T": T, "path": np.arange(n_paths),
                         "ratio": run.gap[:, 1] / run.gap[:, 0]})


@experiment(PAPER)
def contraction_sweep(dims: tuple, step: str, n_paths: int, seed: int) -> pd.DataFrame:
    return sweep(contraction_point, grid(d=dims, step=[step], n_paths=[n_paths]), seed=seed, progress=False,
                 desc=f"stp contraction ({step}) d")


def _wide(df):
    """(paths, len(dims)) matrix of ratios and the d grid."""
    w = df.pivot(index="path", columns="d", values="ratio")
    return w.columns.to_numpy(dtype=int), w.to_numpy()


def _gap_in_units(ratios, dims, unit):
    """(1 - rho_hat_d) / unit_d per d, rho_hat_d = mean(ratio)^{1/T_d}; ratios (paths, len(dims))."""
    T = ITERS_PER_DIM * dims
    return (1 - ratios.mean(0) ** (1.0 / T)) / unit


def contraction_table(df) -> pd.DataFrame:
    dims, R = _wide(df)
    T = ITERS_PER_DIM * dims
    rows = []
    for j, d in enumerate(dims):
        m, lo, hi, se = mean_ci(R[:, j])
        rho = m ** (1 / T[j])
        lam = spectrum(int(d))
        ex = S.expected_gap(lam, np.ones(d), record_at=[0, T[j]], L=L_SMOOTH)
        rows.append(dict(d=int(d), T=int(T[j]), rho_hat=rho, gap=1 - rho,
                         gap_lo=1 - min(hi, 1.0) ** (1 / T[j]) if hi > 0 else np.nan,
                         gap_hi=1 - max(lo, 1e-300) ** (1 / T[j]),
                         gap_se=rho * se / (T[j] * m),
                         gap_exact_recursion=1 - (ex[1] / ex[0]) ** (1 / T[j]),
                         bound_second_moment=MU / (d * L_SMOOTH),
                         bound_first_moment=MU / (2 * np.pi * d * L_SMOOTH)))
    return pd.DataFrame(rows)


def exact_slope(dims) -> float:
    """OLS log-log slope of the exact recursion's 1 - rho(d) over ``dims`` (the finite-d model of the d^-1 law)."""
    dims = np.asarray(dims)
    g = [1 - (lambda e: (e[1] / e[0]) ** (1 / (ITERS_PER_DIM * d)))(
        S.expected_gap(spectrum(int(d)), np.ones(d), record_at=[0, ITERS_PER_DIM * d], L=L_SMOOTH)) for d in dims]
    return curve_slope(dims.astype(float), np.asarray(g, dtype=float))


def convex_lam(d: int, decay: float) -> np.ndarray:
    """lam_i = i^-decay: at d = 32, decay = 2 the quadratic is strongly convex only at scale 1e-3 (errata)."""
    return np.arange(1, d + 1, dtype=float) ** (-decay)


def convex_point(*, d: int, decay: float, T_max: int, n_paths: int, seed: int) -> pd.DataFrame:
    lam = convex_lam(d, decay)
    rec = S.record_grid(T_max, 30)
    run = S.run_stp(lam, np.ones(d), n_steps=T_max, n_paths=n_paths, record_at=rec, seed=seed)
    return pd.DataFrame({"path": np.repeat(np.arange(n_paths), rec.size), "T": np.tile(rec, n_paths),
                         "gap": run.gap.ravel()})


@experiment(PAPER)
def convex_sweep(d, decay, T_max, n_paths, seed):
    return sweep(convex_point, grid(d=[d], decay=[decay], T_max=[T_max], n_paths=[n_paths]), seed=seed,
                 progress=False, desc="stp convex")


def quartic_point(*, d: int, T_max: int, n_paths: int, seed: int) -> pd.DataFrame:
    rec = S.record_grid(T_max, 40)
    run = S.run_stp(np.ones(d), np.ones(d), power=4.0, n_steps=T_max, n_paths=n_paths, record_at=rec, seed=seed)
    return pd.DataFrame({"path": np.repeat(np.arange(n_paths), rec.size), "T": np.tile(rec, n_paths),
                         "gap": run.gap.ravel()})


@experiment(PAPER)
def quartic_sweep(d, T_max, n_paths, seed):
    return sweep(quartic_point, grid(d=[d], T_max=[T_max], n_paths=[n_paths]), seed=seed, progress=False,
                 desc="stp quartic")


# --------------------------------------------------------------------------- claims

DIMS = {"ci": (8, 16, 32, 64), "full": (8, 16, 32, 64, 128)}
SC_SCALES = {"ci": dict(dims=DIMS["ci"], n_paths=64), "full": dict(dims=DIMS["full"], n_paths=400)}
CONVEX_SCALES = {"ci": dict(d=32, decay=2.0, T_max=10_000, n_paths=32),
                 "full": dict(d=32, decay=2.0, T_max=100_000, n_paths=200)}
QUARTIC_SCALES = {"ci": dict(d=8, T_max=4_000, n_paths=48), "full": dict(d=8, T_max=100_000, n_paths=400)}


@claim(PAPER, "contraction_exact", source="derived", ref="abstract", stream="exact",
       citation="[third-party] OpenReview reviews (ICLR 2025) quoting the reviewed abstract / arXiv v2 abstract: "
                "E[f_T - f*] = O((1 - mu/(dL))^T); [derived] second-moment proof (theorylab.zeroth.stp."
                "contraction_bound) for the exact directional-derivative step",
       statement="exact step alpha = |g.s|/L, s uniform on the sphere, f = 1/2 sum lam_i x_i^2 with lam log-spaced "
                 "in [1, 10]: the measured per-step contraction of E[f - f*] satisfies 1 - rho_hat >= mu/(dL) at "
                 "every d (value: min over d of (1 - rho_hat_d) dL/mu, bootstrap over paths; claim >= 1)",
       scales=SC_SCALES)
def contraction_exact(*, dims, n_paths, seed):
    df = contraction_sweep(tuple(dims), "exact", n_paths, seed)
    d, R = _wide(df)
    unit = MU / (d * L_SMOOTH)
    q, lo, hi = bootstrap_ci(lambda r: float(np.min(_gap_in_units(r, d, unit))), R, seed=seed)
    return Bound(value=q, bound=1.0, side=">=", ci=(lo, hi), data=contraction_table(df),
                 note="per d: " + ", ".join(f"{int(a)}: {b:.3f}" for a, b in zip(d, _gap_in_units(R, d, unit))))


@claim(PAPER, "contraction_fd", source="derived", ref="abstract", stream="fd",
       citation="[paper] ICLR 2025 abstract (OpenReview N8tJmhCw25): with step sizes from approximate directional "
                "derivatives, E[f_T - f*] = O((1 - mu/(2 pi d L))^T); the forward-difference form of the step is "
                "[derived] (the theorem's step was not read)",
       statement="forward-difference step alpha = |f(x + h s) - f(x)|/(h L), h = 1e-6, same instance: "
                 "1 - rho_hat >= mu/(2 pi d L) at every d (value: min over d of (1 - rho_hat_d) 2 pi d L/mu; >= 1)",
       scales=SC_SCALES)
def contraction_fd(*, dims, n_paths, seed):
    df = contraction_sweep(tuple(dims), "finite_difference", n_paths, seed)
    d, R = _wide(df)
    unit = MU / (2 * np.pi * d * L_SMOOTH)
    q, lo, hi = bootstrap_ci(lambda r: float(np.min(_gap_in_units(r, d, unit))), R, seed=seed)
    return Bound(value=q, bound=1.0, side=">=", ci=(lo, hi), data=contraction_table(df),
                 note=f"the second-moment constant mu/(dL) in the same units is 2 pi = {2 * np.pi:.3f}")


@claim(PAPER, "gap_slope_d", source="derived", ref="abstract", stream="exact",
       citation="[paper] abstract: rate (1 - mu/(2 pi d L))^T, [third-party] v2: (1 - mu/(dL))^T, i.e. a "
                "contraction gap of order 1/d; [derived] finite-d correction from the exact mean-gap recursion "
                "(theorylab.zeroth.stp.expected_gap)",
       statement="the contraction gap 1 - rho_hat of exact-step STP scales as d^-1: log-log slope over d = -1; "
                 "model tolerance |s_exact + 1|, s_exact the slope of the exact recursion's 1 - rho(d) on the same "
                 "instance and grid (the O(1/d) finite-dimension corrections)",
       scales=SC_SCALES)
def gap_slope_d(*, dims, n_paths, seed):
    t = contraction_table(contraction_sweep(tuple(dims), "exact", n_paths, seed))
    fit = fit_loglog(t.d.to_numpy(dtype=float), y=t.gap.to_numpy(), y_se=t.gap_se.to_numpy(), seed=seed)
    s_exact = exact_slope(t.d.to_numpy())
    return Slope(fit=fit, predicted=-1.0, tol=abs(s_exact + 1.0), data=t,
                 note=f"exact-recursion slope {s_exact:.4f}")


@claim(PAPER, "as_linear_per_path", source="paper", ref="abstract", stream="fd",
       citation="[paper] ICLR abstract: f(theta_T) - f* = o((1 - s mu/(2 pi d L))^T) almost surely for any s in (0, 1)",
       statement="trend: per path, the forward-difference run's own contraction (f_T/f_0)^{1/T} is below "
                 "1 - mu/(2 pi d L) at T = 40 d, on >= 90% of the paths (all d pooled)",
       scales=SC_SCALES)
def as_linear_per_path(*, dims, n_paths, seed):
    df = contraction_sweep(tuple(dims), "finite_difference", n_paths, seed)
    rho_path = df.ratio.to_numpy() ** (1.0 / df["T"].to_numpy())
    bound = 1 - MU / (2 * np.pi * df.d.to_numpy() * L_SMOOTH)
    ok = rho_path < bound
    t = df.assign(rho_path=rho_path, bound=bound, below=ok).groupby("d").agg(
        rho_path_max=("rho_path", "max"), bound=("bound", "first"), fraction_below=("below", "mean")).reset_index()
    return Proportion(successes=int(ok.sum()), trials=int(ok.size), threshold=0.9, data=t)


@claim(PAPER, "convex_d_over_T", source="derived", ref="abstract", stream="convex",
       citation="[paper] abstract: convex case f(theta_T) - inf f = O(d/T) in expectation; [derived] constant "
                "Phi_0 = f_0 - f* + (L/2)|theta_0 - theta*|^2 (theorylab.zeroth.stp.convex_bound); errata: the "
                "spec's lam_i = 1/i instance collapses and its 'slope <= 0.05' fails on a correct STP",
       statement="exact-step STP on f = 1/2 sum i^-2 x_i^2 (d = {d}, theta_0 = 1, strongly convex only at scale "
                 "1e-3): max over recorded T of T E[f_T - f*] / (d Phi_0) <= 1 (bootstrap over paths)",
       scales=CONVEX_SCALES)
def convex_d_over_T(*, d, decay, T_max, n_paths, seed):
    df = convex_sweep(d, decay, T_max, n_paths, seed)
    W = df.pivot(index="path", columns="T", values="gap")
    T = W.columns.to_numpy(dtype=float)
    phi = S.convex_bound(convex_lam(d, decay), np.ones(d))
    stat = lambda g: float(np.max(T * g.mean(0)) / (d * phi))  # noqa: E731
    v, lo, hi = bootstrap_ci(stat, W.to_numpy(), seed=seed)
    tab = pd.DataFrame({"T": T, "mean_gap": W.mean().to_numpy(), "T_gap_over_d_phi": T * W.mean().to_numpy() / (d * phi)})
    return Bound(value=v, bound=1.0, side="<=", ci=(lo, hi), data=tab, note=f"Phi_0 = {phi:.3f}")


@claim(PAPER, "as_convex_trend", source="paper", ref="abstract", stream="quartic",
       citation="[paper] abstract: convex case f(theta_T) - inf f = o(1/T^{1-eps}) almost surely, any eps in (0, 1)",
       statement="trend (eps = 0.1): on f = 1/4 sum x_i^4 (d = {d}, convex, not strongly convex, L on the sublevel "
                 "set [derived]), exact-step STP has T^{1-eps}(f_T - f*) non-increasing over the last decade of T "
                 "(at every recorded T) on >= 90% of the paths",
       scales=QUARTIC_SCALES)
def as_convex_trend(*, d, T_max, n_paths, seed):
    df = quartic_sweep(d, T_max, n_paths, seed)
    W = df.pivot(index="path", columns="T", values="gap")
    T = W.columns.to_numpy(dtype=float)
    last = T >= T_max / 10
    Y = T[last] ** (1 - EPS_AS) * W.to_numpy()[:, last]
    mono = np.all(np.diff(Y, axis=1) <= 0, axis=1)
    tab = pd.DataFrame({"T": T, "mean_gap": W.mean().to_numpy(),
                        "mean_T1eps_gap": T ** (1 - EPS_AS) * W.mean().to_numpy()})
    return Proportion(successes=int(mono.sum()), trials=int(mono.size), threshold=0.9, data=tab)


# --------------------------------------------------------------------------- figures

FIG_SCALES = {"ci": dict(dims=(8, 16, 32), n_paths=16), "full": SC_SCALES["full"]}


@figure(PAPER, "gap_vs_d", caption="STP contraction gap 1 - rho vs d (exact and forward-difference steps, 95% CI) "
        "with the bounds mu/(dL) and mu/(2 pi d L) and the exact mean-gap recursion; lam log-spaced in [1, 10]",
        scales=FIG_SCALES)
def fig_gap_vs_d(*, dims, n_paths, seed):
    ex = contraction_table(contraction_sweep(tuple(dims), "exact", n_paths, seed))
    fd = contraction_table(contraction_sweep(tuple(dims), "finite_difference", n_paths, seed))
    fig, ax = subplots(1, 1, width=5.2)
    ax = ax[0, 0]
    errorbar_ci(ax, ex.d, ex.gap, ex.gap_lo, ex.gap_hi, label="STP, exact step", fmt="o", color="C0")
    errorbar_ci(ax, fd.d * 1.04, fd.gap, fd.gap_lo, fd.gap_hi, label="STP, forward difference", fmt="s", color="C1")
    theory_line(ax, ex.d.to_numpy(dtype=float), ex.gap_exact_recursion.to_numpy(), label="exact recursion")
    theory_line(ax, ex.d.to_numpy(dtype=float), ex.bound_second_moment.to_numpy(), label=r"bound $\mu/(dL)$", slope=-1)
    theory_line(ax, ex.d.to_numpy(dtype=float), ex.bound_first_moment.to_numpy(), label=r"bound $\mu/(2\pi dL)$",
                slope=-1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("dimension d")
    ax.set_ylabel(r"contraction gap $1-\hat\rho$")
    ax.legend(fontsize=7)
    table = pd.concat([ex.assign(step="exact"), fd.assign(step="finite_difference")], ignore_index=True)
    return fig, table
